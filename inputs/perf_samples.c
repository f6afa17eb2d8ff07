/*
 * perf_samples.c - the text of a kernel profile, in every shape kernel
 * developers posted them in to argue about rmap (docs: README, "Which of it a
 * profile shows"):
 *
 *   perf report --stdio     "    12.34%  bash  [kernel.kallsyms]  [k] page_remove_rmap"
 *     with --children       "    45.00%     0.50%  bash  [kernel]  [k] do_wp_page" (Self used)
 *     with -n               "    12.34%   1234  bash  ..." (the raw count kept)
 *   oprofile, address       "c0129124 6653 21.4157 do_wp_page" (vma, samples, %, symbol)
 *   opreport -l             "52        12.7139  vmlinux   vmlinux   page_remove_rmap"
 *   readprofile             "  4541 do_wp_page                              12.0983"
 *   readprofile -v          "c0129124 do_wp_page  4541 12.0983"
 *   samples list            "15525 page_remove_rmap"
 *   perf script -g          "bash 1234 [000] 5.1: 250000 cycles:" then one frame a line,
 *                           "\tffffffff8123abcd page_remove_rmap+0x1d ([kernel.kallsyms])",
 *                           innermost first: the leaf is the sample's symbol, each
 *                           frame and the one below it a call (callgraph weights
 *                           its edges with them)
 *   perf report -g          under each --no-children entry its call graph,
 *                           "|--54.60%--start_secondary" branches and plain
 *                           frames, caller or callee order, graph (percent of
 *                           all samples) or fractal (of the parent) percents:
 *                           each call's share of all samples
 *
 * A line's shape is told by its words alone; the first line with a shape
 * decides the file's, so a header or a totals line of another shape is never
 * taken for data.  Headers, '#' comments, blank lines, separators, call-chain
 * lines and anything else are skipped.  Shares:
 *  - perf and oprofile give the percent of all samples: kept as given;
 *  - readprofile and samples lists give counts: the share is of the "total"
 *    line when the text has one (readprofile prints it; `sort -nr | head`
 *    keeps it), else of the listed samples, and the result says which.
 * A symbol on several lines (several commands, images or clones such as
 * copy_pte_range.isra.0) is summed, through a hash table, so reading is
 * linear in lines.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/file.h"
#include "base/hash.h"
#include "internal.h"

#define WORDS_MAX 32
#define SYMBOL_MAX 512

enum shape {
	SHAPE_NONE, SHAPE_PERF, SHAPE_PERF_CHILDREN, SHAPE_OPROFILE_ADDRESS, SHAPE_OPREPORT,
	SHAPE_READPROFILE, SHAPE_READPROFILE_ADDRESS, SHAPE_COUNTS, SHAPE_SCRIPT, SHAPE_COUNT
};

/* What each shape is called and what its shares are of: one table. */
static const struct {
	const char *name;
	bool counts;                    /* weights are counts, shared out over a total */
} shapes[SHAPE_COUNT] = {
	[SHAPE_NONE] = { "", false },
	[SHAPE_PERF] = { "perf report", false },
	[SHAPE_PERF_CHILDREN] = { "perf report --children", false },
	[SHAPE_OPROFILE_ADDRESS] = { "oprofile (address column)", false },
	[SHAPE_OPREPORT] = { "opreport -l", false },
	[SHAPE_READPROFILE] = { "readprofile", true },
	[SHAPE_READPROFILE_ADDRESS] = { "readprofile -v", true },
	[SHAPE_COUNTS] = { "samples list", true },
	[SHAPE_SCRIPT] = { "perf script (call chains)", true },
};

/* One line's reading: its symbol, percent or count, and raw samples. */
struct line_reading {
	char symbol[SYMBOL_MAX];
	double weight;
	uint64_t samples;
	bool has_samples;
};

static bool is_integer(const char *s, uint64_t *value)
{
	const char *end;
	return *s && isdigit((unsigned char)*s) && parse_u64(s, s + strlen(s), value, &end) && !*end;
}

static bool is_hex_address(const char *s)
{
	size_t length = strlen(s);
	if (length < 4 || length > 16)
		return false;
	for (; *s; s++)
		if (!isxdigit((unsigned char)*s))
			return false;
	return true;
}

static bool is_number(const char *s, double *value)
{
	char *end;
	if (!*s || !(isdigit((unsigned char)*s) || *s == '.'))
		return false;
	errno = 0;
	*value = strtod(s, &end);
	return !*end && !errno;
}

static bool is_percent(char *s, double *value)
{
	size_t length = strlen(s);
	if (length < 2 || s[length - 1] != '%')
		return false;
	s[length - 1] = '\0';
	bool ok = is_number(s, value);
	s[length - 1] = '%';
	return ok;
}

static size_t split_words(char *line, char **words)
{
	size_t count = 0;
	for (char *save = NULL, *w = strtok_r(line, " \t\r", &save); w && count < WORDS_MAX;
	     w = strtok_r(NULL, " \t\r", &save))
		words[count++] = w;
	return count;
}

static void set_symbol(struct line_reading *reading, const char *symbol)
{
	snprintf(reading->symbol, sizeof(reading->symbol), "%s", symbol);
}

/* perf's symbol is what follows the "[k]" / "[.]" marker, spaces and all
 * (user-space C++ names have them); without a marker, the last word. */
static void perf_symbol(const char *line, char **words, size_t count, struct line_reading *reading)
{
	static const char *const markers[] = { "[k] ", "[.] ", "[g] ", "[u] ", "[H] " };
	for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++) {
		const char *at = strstr(line, markers[i]);
		if (!at)
			continue;
		at += strlen(markers[i]);
		while (*at == ' ')
			at++;
		size_t length = strlen(at);
		while (length && isspace((unsigned char)at[length - 1]))
			length--;
		snprintf(reading->symbol, sizeof(reading->symbol), "%.*s", (int)length, at);
		return;
	}
	set_symbol(reading, words[count - 1]);
}

/* opreport writes "(no symbols)" for an image without a symbol table. */
static void last_symbol(char **words, size_t count, struct line_reading *reading)
{
	if (count >= 3 && !strcmp(words[count - 2], "(no") && !strcmp(words[count - 1], "symbols)"))
		snprintf(reading->symbol, sizeof(reading->symbol), "%s (no symbols)", words[count - 3]);
	else
		set_symbol(reading, words[count - 1]);
}

static enum shape read_perf(const char *line, char **words, size_t count, struct line_reading *r)
{
	double self;
	size_t next = 1;
	enum shape shape = SHAPE_PERF;
	if (!is_percent(words[0], &r->weight) || count < 2)
		return SHAPE_NONE;
	if (is_percent(words[1], &self)) {   /* Children, then Self: use Self */
		r->weight = self;
		shape = SHAPE_PERF_CHILDREN;
		next = 2;
	}
	if (next < count - 1 && is_integer(words[next], &r->samples))   /* -n */
		r->has_samples = true;
	perf_symbol(line, words, count, r);
	return shape;
}

/* The shape of one line and what it says; SHAPE_NONE for anything else. */
static enum shape read_line(char *line, struct line_reading *r)
{
	char copy[4096], *words[WORDS_MAX];
	snprintf(copy, sizeof(copy), "%s", line);
	size_t count = split_words(copy, words);
	double number;
	uint64_t integer;
	memset(r, 0, sizeof(*r));
	if (!count)
		return SHAPE_NONE;
	if (words[0][strlen(words[0]) - 1] == '%')
		return read_perf(line, words, count, r);
	if (count >= 4 && is_hex_address(words[0]) && is_integer(words[1], &r->samples) &&
	    is_number(words[2], &r->weight)) {
		r->has_samples = true;
		last_symbol(words, count, r);
		return SHAPE_OPROFILE_ADDRESS;
	}
	if (count == 4 && is_hex_address(words[0]) && !is_number(words[1], &number) &&
	    is_integer(words[2], &r->samples) && is_number(words[3], &number)) {
		r->has_samples = true;
		r->weight = (double)r->samples;
		set_symbol(r, words[1]);
		return SHAPE_READPROFILE_ADDRESS;
	}
	if (!is_integer(words[0], &integer))
		return SHAPE_NONE;
	if (count >= 3 && is_number(words[1], &r->weight)) {
		r->samples = integer;
		r->has_samples = true;
		last_symbol(words, count, r);
		return SHAPE_OPREPORT;
	}
	if ((count == 3 && !is_number(words[1], &number) && is_number(words[2], &number)) ||
	    (count == 2 && !is_number(words[1], &number))) {
		r->samples = integer;
		r->has_samples = true;
		r->weight = (double)integer;
		set_symbol(r, words[1]);
		return count == 3 ? SHAPE_READPROFILE : SHAPE_COUNTS;
	}
	return SHAPE_NONE;
}

/* Lines no profile shape has: comments, separators, perf call chains. */
static bool skipped_line(const char *line)
{
	while (*line == ' ' || *line == '\t')
		line++;
	return !*line || *line == '#' || *line == '|' || *line == '-' || *line == '=';
}

/* copy_pte_range.isra.0, .constprop.0, .part.0, .cold are copy_pte_range;
 * what is not an identifier before its first dot ("libc-2.3.2.so (no
 * symbols)", ".text") is kept whole. */
static size_t symbol_length(const char *symbol)
{
	size_t length = strcspn(symbol, ".");
	for (size_t i = 0; i < length; i++)
		if (!isalnum((unsigned char)symbol[i]) && symbol[i] != '_')
			return strlen(symbol);
	return length ? length : strlen(symbol);
}

/* One line of a perf report entry's call graph: a frame's name, where it
 * stands, and for a branch ("|--12.50%--name") where its "--" starts and
 * its percent. */
struct chain_line {
	char *name;
	size_t column;                  /* the name's, or a branch's "--" */
	bool branch;
	double percent;
};

/* The perf report entry being read and its call-graph lines, worked out
 * when the entry ends (the percents' reading needs them all). */
struct chain_entry {
	bool open;
	char symbol[SYMBOL_MAX];
	double percent;
	struct chain_line *lines;
	size_t count, capacity;
};

struct reader {
	struct perf_samples *samples;
	struct chain_entry chain;
	size_t capacity, call_capacity;
	struct hash_table index;        /* symbols -> position in samples->items */
	struct hash_table call_index;   /* (caller, callee) -> position in samples->calls */
};

static uint64_t symbol_hash(const void *context, size_t index)
{
	const struct perf_samples *s = context;
	return hash_keyed(s->items[index].symbol, strlen(s->items[index].symbol));
}

static void add_sample(struct reader *reader, const struct line_reading *r)
{
	struct perf_samples *s = reader->samples;
	size_t length = symbol_length(r->symbol);
	uint64_t hash = hash_keyed(r->symbol, length);
	struct hash_probe probe;
	for (size_t i = hash_first(&reader->index, hash, &probe); i != HASH_NONE; i = hash_next(&reader->index, &probe)) {
		struct perf_sample *item = &s->items[i];
		if (!strncmp(item->symbol, r->symbol, length) && !item->symbol[length]) {
			item->percent += r->weight;
			item->samples += r->samples;
			return;
		}
	}
	*ARRAY_PUSH(s->items, s->count, reader->capacity) =
		(struct perf_sample){ xstrndup(r->symbol, length), r->samples, r->has_samples, r->weight };
	hash_add(&reader->index, hash, s->count - 1, symbol_hash, s);
}

/* ---- perf script: one sample a block, its call chain one frame a line ---- */

/* "\tffffffff8123abcd page_remove_rmap+0x1d ([kernel.kallsyms])": the
 * symbol without its offset, or false for a line that is no frame. */
static bool script_frame(const char *line, char *symbol, size_t size)
{
	if (*line != ' ' && *line != '\t')
		return false;
	char copy[1024], *words[WORDS_MAX];
	snprintf(copy, sizeof(copy), "%s", line);
	size_t count = split_words(copy, words);
	if (count < 2 || !is_hex_address(words[0]))
		return false;
	size_t length = strcspn(words[1], "+");
	snprintf(symbol, size, "%.*s", (int)length, words[1]);
	return true;
}

/* A sample's header: not indented, "comm pid ... event:" */
static bool script_header(const char *line)
{
	size_t length = strlen(line);
	while (length && isspace((unsigned char)line[length - 1]))
		length--;
	return *line && *line != ' ' && *line != '\t' && *line != '#' && length && line[length - 1] == ':';
}

static uint64_t call_hash_of(const char *caller, size_t caller_length, const char *callee, size_t callee_length)
{
	/* two keyed hashes, the caller's mixed first: (a, b) and (b, a) differ */
	return hash_u64(hash_keyed(caller, caller_length)) ^ hash_keyed(callee, callee_length);
}

static uint64_t call_hash(const void *context, size_t index)
{
	const struct perf_samples *s = context;
	return call_hash_of(s->calls[index].caller, strlen(s->calls[index].caller), s->calls[index].callee,
			    strlen(s->calls[index].callee));
}

/* samples: perf script's one sample (has_samples); percent: perf report's
 * share of all samples. */
static void add_call(struct reader *reader, const char *caller, const char *callee, uint64_t samples,
		     bool has_samples, double percent)
{
	struct perf_samples *s = reader->samples;
	size_t caller_length = symbol_length(caller), callee_length = symbol_length(callee);
	uint64_t hash = call_hash_of(caller, caller_length, callee, callee_length);
	struct hash_probe probe;
	for (size_t i = hash_first(&reader->call_index, hash, &probe); i != HASH_NONE;
	     i = hash_next(&reader->call_index, &probe)) {
		struct perf_call *call = &s->calls[i];
		if (!strncmp(call->caller, caller, caller_length) && !call->caller[caller_length] &&
		    !strncmp(call->callee, callee, callee_length) && !call->callee[callee_length]) {
			call->samples += samples;
			call->percent += percent;
			return;
		}
	}
	*ARRAY_PUSH(s->calls, s->call_count, reader->call_capacity) =
		(struct perf_call){ xstrndup(caller, caller_length), xstrndup(callee, callee_length), samples,
				    has_samples, percent };
	hash_add(&reader->call_index, hash, s->call_count - 1, call_hash, s);
}

/* Is the text perf script output with call chains: a header line and a
 * frame right under it? */
static bool is_script(const struct buffer *text)
{
	const char *line = text->data, *end = text->data + text->length;
	while (line < end && (*line == '#' || *line == '\n')) {
		const char *next = memchr(line, '\n', (size_t)(end - line));
		line = next ? next + 1 : end;
	}
	const char *newline = line < end ? memchr(line, '\n', (size_t)(end - line)) : NULL;
	if (!newline || newline - line >= 1024)
		return false;
	char header[1024], frame[1024], symbol[SYMBOL_MAX];
	snprintf(header, sizeof(header), "%.*s", (int)(newline - line), line);
	const char *second = newline + 1, *second_end = second < end ? memchr(second, '\n', (size_t)(end - second)) : NULL;
	size_t second_length = second_end ? (size_t)(second_end - second) : (size_t)(end - second);
	if (second >= end || second_length >= sizeof(frame))
		return false;
	snprintf(frame, sizeof(frame), "%.*s", (int)second_length, second);
	return script_header(header) && script_frame(frame, symbol, sizeof(symbol));
}

/* The sample's chain, innermost first: its leaf counted, each pair a call
 * (once per sample, however often a recursion repeats it). */
static void end_sample(struct reader *reader, char (*frames)[SYMBOL_MAX], size_t count)
{
	if (!count)
		return;
	struct line_reading leaf = { .samples = 1, .has_samples = true, .weight = 1 };
	size_t length = strnlen(frames[0], sizeof(leaf.symbol) - 1);
	memcpy(leaf.symbol, frames[0], length);
	leaf.symbol[length] = '\0';
	add_sample(reader, &leaf);
	for (size_t i = 0; i + 1 < count; i++) {
		bool repeated = false;
		for (size_t j = 0; j < i && !repeated; j++)
			repeated = !strcmp(frames[j], frames[i]) && !strcmp(frames[j + 1], frames[i + 1]);
		if (!repeated && strcmp(frames[i + 1], "[unknown]") && strcmp(frames[i], "[unknown]"))
			add_call(reader, frames[i + 1], frames[i], 1, true, 0);
	}
}

/* A chain deeper than this is cut (perf's own default limit is 127). */
#define FRAMES_MAX 256

static void read_script(struct buffer *text, struct reader *reader)
{
	static char frames[FRAMES_MAX][SYMBOL_MAX];   /* one reader at a time: the command's */
	size_t count = 0;
	for (char *line = text->data, *end; line < text->data + text->length; line = end + 1) {
		end = memchr(line, '\n', (size_t)(text->data + text->length - line));
		if (!end)
			end = text->data + text->length;
		*end = '\0';
		char symbol[SYMBOL_MAX];
		if (script_frame(line, symbol, sizeof(symbol))) {
			if (count < FRAMES_MAX)
				snprintf(frames[count++], SYMBOL_MAX, "%s", symbol);
		} else if (script_header(line) || !*line) {
			end_sample(reader, frames, count);
			count = 0;
		}
	}
	end_sample(reader, frames, count);
}

/* ---- perf report -g: each entry's call graph, one frame a line ---- */

/* "            |--54.60%--start_secondary", "|          do_idle",
 * "            ---intel_idle", "|            --2.81%-- sys_read" (perf
 * 2.6.3x wrote a space after the marker); false for anything else. */
static bool read_chain_line(const char *line, struct chain_line *out)
{
	size_t at = strspn(line, " |");
	const char *text = line + at;
	memset(out, 0, sizeof(*out));
	if (!strncmp(text, "---", 3)) {
		text += 3;
	} else if (!strncmp(text, "--", 2)) {
		char *end;
		errno = 0;
		out->percent = strtod(text + 2, &end);
		if (end == text + 2 || errno || strncmp(end, "%--", 3) || !(out->percent >= 0 && out->percent <= 100))
			return false;
		out->branch = true;
		out->column = at;
		text = end + 3;
	}
	text += strspn(text, " ");
	size_t length = strcspn(text, " \t\r");
	if (!length || isdigit((unsigned char)*text) || *text == '#' || *text == '-' || length >= SYMBOL_MAX)
		return false;
	if (!out->branch)
		out->column = (size_t)(text - line);
	out->name = xstrndup(text, length);
	return true;
}

/* A frame of the path being walked: its name, column and share of all samples. */
struct chain_frame {
	const char *name;
	size_t column;
	double weight, children;        /* children: its branches' percents, as written */
	unsigned branches;
};

/* Walk the entry's lines as a tree: a branch hangs under the frames left of
 * its marker, a plain line continues the chain it stands under.  relative:
 * branch percents are of their parent (fractal), else of all samples
 * (graph).  add: give each call its weight (callee order: the leaf first,
 * so a frame calls the one above it; a call repeated within one path, a
 * recursion, counts once).  Returns false when the percents cannot be of
 * all samples (siblings summing to more than their parent). */
static bool walk_chain(struct reader *reader, const struct chain_entry *entry, bool relative, bool add,
		       bool callee_order)
{
	struct chain_frame *path = xcalloc(entry->count + 1, sizeof(*path));
	size_t depth = 0;
	struct chain_frame top = { .weight = entry->percent };   /* the entry itself */
	bool consistent = true;
	for (size_t i = 0; i < entry->count; i++) {
		const struct chain_line *line = &entry->lines[i];
		while (depth && (line->branch ? path[depth - 1].column >= line->column : path[depth - 1].column > line->column))
			depth--;
		double parent = depth ? path[depth - 1].weight : entry->percent;
		double weight = !line->branch ? parent : relative ? parent * line->percent / 100.0 : line->percent;
		if (line->branch) {
			struct chain_frame *above = depth ? &path[depth - 1] : &top;
			above->children += line->percent;
			above->branches++;
			/* two decimals each: a rounding's worth of slack per sibling */
			consistent = consistent && above->children <= above->weight * 1.001 + 0.01 * above->branches;
		}
		size_t column = line->branch ? line->column + 1 : line->column;
		if (add && depth) {
			const char *above = path[depth - 1].name, *here = line->name;
			const char *caller = callee_order ? here : above, *callee = callee_order ? above : here;
			bool repeated = false;
			for (size_t d = 1; d + 1 < depth + 1 && !repeated; d++)
				repeated = callee_order ? !strcmp(path[d].name, caller) && !strcmp(path[d - 1].name, callee)
							: !strcmp(path[d - 1].name, caller) && !strcmp(path[d].name, callee);
			if (!repeated && strcmp(caller, "[unknown]") && strcmp(callee, "[unknown]") && weight > 0)
				add_call(reader, caller, callee, 0, false, weight);
		}
		path[depth++] = (struct chain_frame){ line->name, column, weight, 0, 0 };
	}
	free(path);
	return consistent;
}

/* The entry's call graph becomes calls: in callee order its first frame
 * is the entry's own function. */
static void end_entry(struct reader *reader)
{
	struct chain_entry *entry = &reader->chain;
	if (entry->open && entry->count) {
		size_t length = symbol_length(entry->symbol);
		bool callee_order = !strncmp(entry->lines[0].name, entry->symbol, length) &&
				    symbol_length(entry->lines[0].name) == length;
		bool relative = !walk_chain(reader, entry, false, false, callee_order);
		walk_chain(reader, entry, relative, true, callee_order);
	}
	for (size_t i = 0; i < entry->count; i++)
		free(entry->lines[i].name);
	entry->count = 0;
	entry->open = false;
}

static void begin_entry(struct reader *reader, const struct line_reading *r)
{
	end_entry(reader);
	reader->chain.open = true;
	reader->chain.percent = r->weight;
	snprintf(reader->chain.symbol, sizeof(reader->chain.symbol), "%s", r->symbol);
}

/* A line of call graph under a perf report entry: kept for the entry (or,
 * under --children, noted as not read).  False: not such a line. */
static bool chain_line(struct reader *reader, const char *line, enum shape format)
{
	struct chain_line parsed;
	if ((format != SHAPE_PERF && format != SHAPE_PERF_CHILDREN) || (*line != ' ' && *line != '\t' && *line != '|') ||
	    !read_chain_line(line, &parsed))
		return false;
	if (format == SHAPE_PERF_CHILDREN || !reader->chain.open) {
		reader->samples->chains_ignored |= format == SHAPE_PERF_CHILDREN;
		free(parsed.name);
		return true;
	}
	*ARRAY_PUSH(reader->chain.lines, reader->chain.count, reader->chain.capacity) = parsed;
	return true;
}

static int by_share(const void *a, const void *b)
{
	const struct perf_sample *x = a, *y = b;
	if (x->percent != y->percent)
		return (x->percent < y->percent) - (x->percent > y->percent);
	return strcmp(x->symbol, y->symbol);
}

/* Counts become shares of the total line, or of the listed samples. */
static void share_counts(struct perf_samples *s, enum shape shape, uint64_t total_line)
{
	uint64_t listed = 0;
	for (size_t i = 0; i < s->count; i++)
		listed += s->items[i].samples;
	s->total_samples = total_line ? total_line : listed;
	s->share_of = shapes[shape].counts ? (total_line ? "the total line" : "the listed samples")
		      : shape == SHAPE_PERF_CHILDREN ? "all samples (Self column)" : "all samples";
	s->has_total = !shapes[shape].counts || total_line;
	s->has_counts = true;
	for (size_t i = 0; i < s->count; i++)
		s->has_counts = s->has_counts && s->items[i].has_samples;
	if (shapes[shape].counts)
		for (size_t i = 0; i < s->count; i++)
			s->items[i].percent = s->total_samples ? 100.0 * (double)s->items[i].samples / (double)s->total_samples : 0;
	s->floor_percent = s->items[0].percent;
	s->floor_samples = s->items[0].samples;
	for (size_t i = 1; i < s->count; i++) {
		if (s->items[i].percent < s->floor_percent)
			s->floor_percent = s->items[i].percent;
		if (s->items[i].samples < s->floor_samples)
			s->floor_samples = s->items[i].samples;
	}
}

/* perf script output: every sample with its call chain. */
static int read_script_text(const char *path, struct buffer *text, struct reader *reader, struct error *error)
{
	struct perf_samples *s = reader->samples;
	read_script(text, reader);
	if (!s->count) {
		input_error_set(error, path, NULL, 0, "perf script: no sample with a call chain");
		return -1;
	}
	s->format = shapes[SHAPE_SCRIPT].name;
	share_counts(s, SHAPE_SCRIPT, 0);
	s->has_total = true;   /* every sample is there */
	s->share_of = "all samples";
	for (size_t c = 0; c < s->call_count; c++)
		s->calls[c].percent = 100.0 * (double)s->calls[c].samples / (double)s->total_samples;
	return 0;
}

/* Random bytes held lines of some shape (4 MiB of them read as two
 * symbols): a NUL ends the read, naming its line. */
static int refuse_binary(const char *path, const struct buffer *text, struct error *error)
{
	const char *nul = memchr(text->data, '\0', text->length);
	if (!nul)
		return 0;
	unsigned long line_of_nul = 1;
	for (const char *p = text->data; p < nul; p++)
		line_of_nul += *p == '\n';
	input_error_set(error, path, NULL, line_of_nul, "binary data: not a profile text");
	return -1;
}

static int read_text(const char *path, struct buffer *text, struct reader *reader, struct error *error)
{
	struct perf_samples *s = reader->samples;
	if (is_script(text))
		return read_script_text(path, text, reader, error);
	enum shape format = SHAPE_NONE;
	uint64_t total_line = 0;
	bool data_seen = false;
	unsigned long number = 0;
	if (refuse_binary(path, text, error))
		return -1;
	for (char *line = text->data, *end; line < text->data + text->length; line = end + 1) {
		end = memchr(line, '\n', (size_t)(text->data + text->length - line));
		if (!end)
			end = text->data + text->length;
		*end = '\0';
		number++;
		/* perf writes one section per event: the first event's is read */
		if (data_seen && format <= SHAPE_PERF_CHILDREN && !strncmp(line, "# Samples:", 10)) {
			s->sections_ignored++;
			format = SHAPE_COUNT;   /* nothing more matches */
			end_entry(reader);
		}
		struct line_reading r;
		if (strlen(line) < 4096 && chain_line(reader, line, format))
			continue;
		if (skipped_line(line) || strlen(line) >= 4096)
			continue;
		enum shape shape = read_line(line, &r);
		if (shape == SHAPE_NONE || (format && shape != format))
			continue;
		if (!shapes[shape].counts && !(r.weight <= 100.0)) {
			input_error_set(error, path, NULL, number, "a share of %g%%: no share is more than 100%%",
					r.weight);
			return -1;
		}
		format = shape;
		data_seen = true;
		if (shapes[shape].counts && !strcmp(r.symbol, "total")) {
			total_line = r.samples;
			continue;
		}
		add_sample(reader, &r);
		if (shape == SHAPE_PERF)
			begin_entry(reader, &r);
	}
	end_entry(reader);
	if (!s->count) {
		input_error_set(error, path, NULL, 0, "no profile lines (perf report --stdio, opreport -l, "
				"oprofile, readprofile or 'samples symbol' text)");
		return -1;
	}
	if (format == SHAPE_COUNT)
		format = SHAPE_PERF;   /* only perf sections end a read early */
	s->format = shapes[format].name;
	share_counts(s, format, total_line);
	return 0;
}

int perf_samples_read(const char *path, struct perf_samples *samples, struct error *error)
{
	struct buffer text = { 0 };
	struct reader reader = { .samples = samples };
	memset(samples, 0, sizeof(*samples));
	if (file_read_input(path, "profile of samples", FILE_LIMIT_PERF_REPORT_BYTES, &text, error)) {
		buffer_free(&text);
		return -1;
	}
	int status = read_text(path, &text, &reader, error);
	end_entry(&reader);
	free(reader.chain.lines);
	hash_free(&reader.index);
	hash_free(&reader.call_index);
	buffer_free(&text);
	if (status) {
		perf_samples_free(samples);
		return -1;
	}
	array_sort(samples->items, samples->count, sizeof(*samples->items), by_share);
	return 0;
}

void perf_samples_free(struct perf_samples *samples)
{
	for (size_t i = 0; i < samples->count; i++)
		free(samples->items[i].symbol);
	free(samples->items);
	for (size_t i = 0; i < samples->call_count; i++) {
		free(samples->calls[i].caller);
		free(samples->calls[i].callee);
	}
	free(samples->calls);
	memset(samples, 0, sizeof(*samples));
}
