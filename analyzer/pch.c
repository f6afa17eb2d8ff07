/*
 * analyzer/pch.c - the headers a tree's files share, parsed once.
 *
 * A kernel file spends most of its parse in the headers it starts with
 * (<linux/mm.h> alone reads ~500), and every file of mm/ reads most of the
 * same ones.  So those are parsed once into a precompiled header, by
 * libclang in a bounded child (parse.c, parse_pch_work), kept in the cache
 * folder (CACHE/pch/KEY.h, KEY.pch, KEY.facts), and each file that fits
 * parses with "-include-pch KEY.pch".  The call graph is the same as
 * without it; a file fits only where that holds by construction:
 *
 *   - the file's head (the lines before its first other line: comments,
 *     then #define lines, then #include <...> lines) has exactly the
 *     header's #define lines, in order, before its includes: a file that
 *     defines pr_fmt, CREATE_TRACE_POINTS or anything else the headers
 *     read keeps its own meaning (it gets a header of its own group, or
 *     none); but a string macro (pr_fmt made of strings and fmt) counts
 *     by its shape: the header has a stand-in, #undef'd at its end, and
 *     the file's own #define follows it (string_define);
 *   - every header the precompiled one includes is one of the file's own
 *     head includes, so nothing is declared that the file would not have:
 *     only the order of its top-level includes among themselves can
 *     differ, which kernel headers, each including what it needs, do not
 *     depend on;
 *   - the flags are the file's, but for the -D that kbuild gives each file
 *     (KBUILD_MODNAME...), which clang defines after the header: a header
 *     that names one outside a #define would read it undefined, so such a
 *     header is not used (checked from the text of every file it read); one
 *     that expands it through the file's own #define lines (pr_fmt) reads a
 *     string stand-in (header_text); search folders of the file's own
 *     after those -D are left out too (own_flags);
 *   - where a unit first meets a name matters only for compiler builtins,
 *     which clang declares there; they are no nodes (parse.c, is_builtin);
 *   - the build had no error, and every header it includes has an include
 *     guard (the file includes it again: it must read as nothing).
 *
 * Otherwise, or when libclang refuses the header when parsing (changed
 * since, another libclang's), the file is parsed without it.  A header is
 * kept where its build's inputs (the tu/ entries' checks, cache.c) still
 * have their size and mtime; its key is the flags, the directory, the
 * generated text, libclang's version and the configuration.
 * PTSCOPE_NO_PCH=1 parses every file on its own (tests compare).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/internal.h"

#define PCH_MAGIC "ptscope-pch 1"
enum {
	PCH_MIN_USERS = 3,          /* fewer files than this: not worth a build */
	PCH_PER_GROUP = 4,          /* headers made for one set of flags and #defines */
	PCH_REFINED = 2,            /* larger headers made within one of those */
	PCH_REFINE_USERS = 10,      /* files a larger header must serve (its build costs ~4 files' gain) */
	HEAD_LIMIT = 1 << 16,       /* bytes of a file read for its head */
};

/* The -D that kbuild gives each file: per-file, so left out of the shared flags. */
static const char *const file_defines[] = { "KBUILD_BASENAME", "KBUILD_MODNAME", "__KBUILD_MODNAME",
					    "KBUILD_MODFILE" };

/* Those of them whose value is a string ("memory"); __KBUILD_MODNAME is
 * an identifier (kmod_memory), which a header could paste into a name. */
static const char *const string_file_defines[] = { "KBUILD_BASENAME", "KBUILD_MODNAME", "KBUILD_MODFILE" };

static bool is_string_file_define(const char *word)
{
	for (size_t i = 0; i < sizeof(string_file_defines) / sizeof(string_file_defines[0]); i++)
		if (!strcmp(word, string_file_defines[i]))
			return true;
	return false;
}

static const char *file_define(const char *argument)
{
	if (strncmp(argument, "-D", 2))
		return NULL;
	for (size_t i = 0; i < sizeof(file_defines) / sizeof(file_defines[0]); i++) {
		size_t length = strlen(file_defines[i]);
		if (!strncmp(argument + 2, file_defines[i], length) && argument[2 + length] == '=')
			return file_defines[i];
	}
	return NULL;
}

/* Where the file's own flags begin: kbuild's per-file -D, then maybe search
 * folders of the file's own (CFLAGS_fault.o "-I$(src)/../include/asm/trace"),
 * searched after every shared one.  Such a folder finds nothing the
 * header's build would have found elsewhere (an include that only it could
 * satisfy was an error there: the header is not made), so the file may use
 * a header built without it, but where a header asks __has_include
 * (probes_search).  The count when the file has no such folder. */
static size_t own_flags(const struct tu_job *job)
{
	size_t count = job->arguments.count, first = count;
	bool folders = false;
	for (size_t i = 0; i < count; i++) {
		const char *argument = job->arguments.items[i];
		if (file_define(argument)) {
			first = first < i ? first : i;
		} else if (first < count && !strcmp(argument, "-I") && i + 1 < count) {
			folders = true, i++;
		} else if (first < count && !strncmp(argument, "-I", 2) && argument[2]) {
			folders = true;
		} else if (first < count) {
			return count;
		}
	}
	return folders ? first : count;
}

/* Is argument i one of the file's own search folders ("-I" and its folder)? */
static bool own_folder(const struct tu_job *job, size_t i)
{
	return i >= own_flags(job) && !file_define(job->arguments.items[i]);
}

static bool has_own_folder(const struct tu_job *job)
{
	return own_flags(job) < job->arguments.count;
}

/* --- a file's head ----------------------------------------------------------- */

struct head {
	struct buffer defines;      /* its #define lines, blanks collapsed, one a line */
	struct cg_list includes;    /* "linux/mm.h" of its #include <...> lines */
	bool read;
};

/* One logical line from *p: comments out (a block comment may span lines),
 * backslash-newlines joined, blanks collapsed; false at the end. */
static bool next_line(const char **p, const char *end, struct buffer *line, bool *in_comment)
{
	line->length = 0;
	if (*p >= end)
		return false;
	char quote = 0;
	for (const char *c = *p; c < end; c++) {
		if (*in_comment) {
			if (c + 1 < end && c[0] == '*' && c[1] == '/')
				*in_comment = false, c++;
			continue;
		}
		if (!quote && c + 1 < end && c[0] == '/' && c[1] == '*') {
			*in_comment = true, c++;
			buffer_add(line, " ", 1);
		} else if (!quote && c + 1 < end && c[0] == '/' && c[1] == '/') {
			while (c < end && *c != '\n')
				c++;
			*p = c < end ? c + 1 : end;
			return true;
		} else if (c[0] == '\\' && c + 1 < end && c[1] == '\n') {
			c++;
		} else if (c[0] == '\n') {
			*p = c + 1;
			return true;
		} else {
			if ((c[0] == '"' || c[0] == '\'') && (c == *p || c[-1] != '\\'))
				quote = quote == c[0] ? 0 : quote ? quote : c[0];
			bool blank = c[0] == ' ' || c[0] == '\t' || c[0] == '\r' || c[0] == '\f' || c[0] == '\v';
			if (!blank || (line->length && line->data[line->length - 1] != ' '))
				buffer_add(line, blank ? " " : c, 1);
		}
	}
	*p = end;
	return true;
}

/* A directive line "# define x" or "#include <y>" as "define x", "include <y>". */
static const char *directive(const char *line)
{
	while (*line == ' ')
		line++;
	if (*line != '#')
		return NULL;
	line++;
	while (*line == ' ')
		line++;
	return line;
}

/* One line of the head; false where the head ends. */
static bool head_line(struct head *head, const char *line)
{
	const char *d = directive(line);
	if (!d)
		return line[strspn(line, " ")] == '\0';
	if (!strncmp(d, "define ", 7) && head->includes.count == 0) {
		size_t length = strlen(line);
		while (length && line[length - 1] == ' ')
			length--;
		buffer_printf(&head->defines, "#%.*s\n", (int)(length - (size_t)(d - line)), d);
		return true;
	}
	if (strncmp(d, "include", 7))
		return false;
	d += 7 + strspn(d + 7, " ");
	const char *close = *d == '<' ? strchr(d, '>') : NULL;
	if (!close || close[1 + strspn(close + 1, " ")] != '\0' || close == d + 1)
		return false;
	char *name = xstrndup(d + 1, (size_t)(close - d - 1));
	if (strchr(name, ' ') || cg_list_has(&head->includes, name))
		free(name);
	else
		cg_list_add_owned(&head->includes, name);
	return true;
}

static void read_head(const char *path, struct head *head)
{
	char *text;
	size_t size;
	if (!cg_read_file(path, &text, &size))
		return;
	const char *p = text, *end = text + (size < HEAD_LIMIT ? size : HEAD_LIMIT);
	struct buffer line = { 0 };
	bool in_comment = false;
	while (next_line(&p, end, &line, &in_comment)) {
		buffer_reserve(&line, 0);
		line.data[line.length] = '\0';
		if (!head_line(head, line.data))
			break;
	}
	head->read = true;
	buffer_free(&line);
	free(text);
}

static void head_free(struct head *head)
{
	buffer_free(&head->defines);
	cg_list_free(&head->includes);
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Does text name word as a whole identifier? */
static bool names_word(const char *text, const char *word)
{
	size_t length = strlen(word);
	for (const char *at = strstr(text, word); at; at = strstr(at + 1, word))
		if ((at == text || !is_name_char(at[-1])) && !is_name_char(at[length]))
			return true;
	return false;
}

/* A string macro: "#define pr_fmt(fmt) "Memory failure: " fmt", a
 * file's own text for its log lines.  Its body is only plain string
 * literals (no '%', no escapes: a format check reads them), string
 * per-file macros (KBUILD_MODNAME) and its parameters.  Where a header
 * expands it, the files that define it differently read different string
 * literals and nothing else, which no fact holds.  So the line is written
 * with each run of strings as with: the group key's placeholder, or the
 * header's stand-in.  false (out unchanged) for any other line. */
static bool string_define(const char *line, const char *with, struct buffer *out)
{
	const char *d = directive(line);
	if (!d || strncmp(d, "define ", 7))
		return false;
	const char *name = d + 7, *p = name;
	while (is_name_char(*p))
		p++;
	for (size_t i = 0; i < sizeof(file_defines) / sizeof(file_defines[0]); i++)
		if ((size_t)(p - name) == strlen(file_defines[i]) && !strncmp(name, file_defines[i], (size_t)(p - name)))
			return false;   /* the file's own -D: kept as it is written */
	const char *body = p;
	if (*p == '(') {
		body = strchr(p, ')');
		if (!body || memchr(p, '.', (size_t)(body - p)))
			return false;
		body++;
	}
	if (p == name || *body != ' ')
		return false;
	char *params = xstrndup(p, (size_t)(body - p));   /* "(fmt)", or "" */
	struct buffer text = { 0 };
	buffer_printf(&text, "#define %.*s", (int)(body - name), name);
	bool strings = false, ok = true, run = false;
	for (const char *c = body; ok && *c; ) {
		const char *end = c + 1;
		if (*c == ' ') {
			c++;
			continue;
		}
		if (*c == '"') {
			end = c + 1 + strcspn(c + 1, "\"\\%");
			ok = *end == '"';
			end++;
		} else if (is_name_char(*c) && !isdigit((unsigned char)*c)) {
			while (is_name_char(*end))
				end++;
		} else {
			ok = false;
		}
		char *word = xstrndup(c, (size_t)(end - c));
		bool literal = *c == '"' || is_string_file_define(word);
		ok = ok && (literal || names_word(params, word));
		if (ok && !(literal && run))
			buffer_printf(&text, " %s", literal ? with : word);
		strings |= literal;
		run = literal;
		free(word);
		c = end;
	}
	if (ok && strings)
		buffer_printf(out, "%s\n", text.data);
	buffer_free(&text);
	free(params);
	return ok && strings;
}

/* The head's #define lines, string macros written with (string_define);
 * and, when undefine is given, an #undef of each of those. */
static void string_defines(const struct head *head, const char *with, struct buffer *out, struct buffer *undefine)
{
	const char *p = head->defines.length ? head->defines.data : "", *end = p + head->defines.length;
	while (p < end) {
		const char *newline = memchr(p, '\n', (size_t)(end - p));
		size_t length = newline ? (size_t)(newline - p) : (size_t)(end - p);
		char *line = xstrndup(p, length);
		if (!string_define(line, with, out))
			buffer_printf(out, "%s\n", line);
		else if (undefine) {
			const char *name = directive(line) + 7;
			buffer_printf(undefine, "#undef %.*s\n", (int)strcspn(name, "( "), name);
		}
		free(line);
		p += length + 1;
	}
}

/* --- which files share which header ----------------------------------------- */

/* Files of one set of flags (their own -D aside), folder and #define lines. */
struct group {
	uint64_t key;
	size_t *members;            /* job indexes */
	size_t count, capacity;
};

static uint64_t shared_flags_key(const struct tu_job *job, const struct head *head)
{
	uint64_t hash = hash_bytes(PCH_MAGIC, sizeof(PCH_MAGIC));
	for (size_t i = 0; i < job->arguments.count; i++)
		if (!file_define(job->arguments.items[i]) && !own_folder(job, i))
			hash = hash_bytes_more(hash, job->arguments.items[i], strlen(job->arguments.items[i]) + 1);
	hash = hash_bytes_more(hash, job->directory, strlen(job->directory) + 1);
	/* string macros of one shape share, whatever their strings say */
	struct buffer defines = { 0 };
	string_defines(head, "<string>", &defines, NULL);
	hash = hash_bytes_more(hash, defines.data ? defines.data : "", defines.length);
	buffer_free(&defines);
	return hash;
}

static bool includes_all(const struct head *head, const struct cg_list *set, const char *also)
{
	for (size_t i = 0; i < set->count; i++)
		if (!cg_list_has(&head->includes, set->items[i]))
			return false;
	return !also || cg_list_has(&head->includes, also);
}

/* Members not yet given a header whose head includes every one of set (and also). */
static size_t fitting(const struct head *heads, const struct group *group, const bool *given,
		      const struct cg_list *set, const char *also)
{
	size_t count = 0;
	for (size_t m = 0; m < group->count; m++)
		count += !given[m] && includes_all(&heads[group->members[m]], set, also);
	return count;
}

/* Grow set by the include that keeps the most files (min_users at least),
 * while files times (weight + headers) grows: with weight 3, the first
 * header (<linux/mm.h>) counts as most of the work, each further one a
 * little; with 0 (refine), each as much.  false when nothing was added. */
static bool grow(const struct head *heads, const struct group *group, const bool *given,
		 struct cg_list *set, size_t weight, size_t min_users)
{
	const char *best = NULL;
	size_t best_count = 0, now = set->count ? fitting(heads, group, given, set, NULL) : 0;
	struct cg_strings tried = { 0 };
	for (size_t m = 0; m < group->count; m++) {
		const struct head *head = &heads[group->members[m]];
		for (size_t i = 0; !given[m] && i < head->includes.count; i++) {
			const char *name = head->includes.items[i];
			uint32_t before = (uint32_t)tried.count;
			if (cg_intern(&tried, name) != before || cg_list_has(set, name))
				continue;
			size_t count = fitting(heads, group, given, set, name);
			if (count > best_count)
				best = name, best_count = count;
		}
	}
	cg_strings_free(&tried);
	if (!best || best_count < min_users || best_count * (weight + 1 + set->count) <= now * (weight + set->count))
		return false;
	cg_list_add(set, best);
	return true;
}

/* The generated header: the group's #define lines, then the chosen
 * includes in the order the first file that fits has them.  Where those
 * #define lines name a per-file string macro (mm/ files start with
 * "#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt", and a header's inline
 * function that logs expands it), the header stands a string in for it
 * while it is built and takes it away at its end, so that each file's own
 * -D defines it after: only the text of a string literal differs, which
 * no fact holds.  Without it such a header does not build at all. */
static char *header_text(const struct head *head, const struct cg_list *chosen)
{
	struct buffer text = { 0 }, defines = { 0 }, undefine = { 0 };
	buffer_printf(&text, "/* ptscope: headers files of this tree share, parsed once (analyzer/pch.c) */\n");
	string_defines(head, "\"ptscope_pch\"", &defines, &undefine);
	for (size_t i = 0; i < sizeof(string_file_defines) / sizeof(string_file_defines[0]); i++)
		if (defines.length && names_word(defines.data, string_file_defines[i])) {
			buffer_printf(&text, "#define %s \"ptscope_pch\"\n", string_file_defines[i]);
			buffer_printf(&undefine, "#undef %s\n", string_file_defines[i]);
		}
	buffer_add(&text, defines.data, defines.length);
	for (size_t i = 0; i < head->includes.count; i++)
		if (cg_list_has(chosen, head->includes.items[i]))
			buffer_printf(&text, "#include <%s>\n", head->includes.items[i]);
	buffer_add(&text, undefine.data, undefine.length);
	buffer_free(&defines);
	buffer_free(&undefine);
	return buffer_release(&text);
}

static void add_pch(struct pch_set *set, const struct tu_job *job, char *text, const char *folder, uint64_t salt)
{
	array_reserve(&set->items, &set->capacity, set->count + 1, sizeof(*set->items));
	struct pch *pch = &set->items[set->count++];
	memset(pch, 0, sizeof(*pch));
	pch->base = SIZE_MAX;
	pch->probes = -1;
	pch->text = text;
	pch->directory = job->directory;
	pch->roots = job->roots;
	uint64_t hash = hash_bytes_more(salt, PCH_MAGIC, sizeof(PCH_MAGIC));
	for (size_t i = 0; i < job->arguments.count; i++) {
		const char *argument = job->arguments.items[i], *name = file_define(argument);
		if (name) {
			cg_list_add(&pch->dropped, name);
			continue;
		}
		if (own_folder(job, i))
			continue;
		cg_list_add(&pch->arguments, argument);
		hash = hash_bytes_more(hash, argument, strlen(argument) + 1);
	}
	hash = hash_bytes_more(hash, job->directory, strlen(job->directory) + 1);
	pch->key = hash_bytes_more(hash, text, strlen(text));
	unsigned long long key = (unsigned long long)pch->key;
	pch->header = xasprintf("%s/%016llx.h", folder, key);
	pch->file = xasprintf("%s/%016llx.pch", folder, key);
	pch->facts_path = xasprintf("%s/%016llx.facts", folder, key);
}

/* Within the files given header base (its includes base_set), a larger
 * one for those that include more of the same headers: the first header
 * is most of the work only when a file includes little else.  Each for
 * PCH_REFINE_USERS files at least; the others keep base. */
static void refine(struct pch_set *set, const struct group *group, const struct head *heads,
		   const struct tu_job *jobs, const size_t *which, size_t *assigned, size_t base,
		   const struct cg_list *base_set, const char *folder, uint64_t salt)
{
	struct group sub = { 0 };
	for (size_t m = 0; m < group->count; m++)
		if (assigned[group->members[m]] == base) {
			array_reserve(&sub.members, &sub.capacity, sub.count + 1, sizeof(size_t));
			sub.members[sub.count++] = group->members[m];
		}
	bool *given = xcalloc(sub.count ? sub.count : 1, sizeof(*given));
	for (int n = 0; n < PCH_REFINED; n++) {
		struct cg_list chosen = { 0 };
		for (size_t i = 0; i < base_set->count; i++)
			cg_list_add(&chosen, base_set->items[i]);
		while (grow(heads, &sub, given, &chosen, 0, PCH_REFINE_USERS))
			;
		size_t first = SIZE_MAX;
		for (size_t m = 0; chosen.count > base_set->count && m < sub.count; m++)
			if (!given[m] && includes_all(&heads[sub.members[m]], &chosen, NULL)) {
				given[m] = true;
				assigned[sub.members[m]] = set->count;
				first = first == SIZE_MAX ? m : first;
			}
		if (first != SIZE_MAX) {
			add_pch(set, &jobs[which[sub.members[first]]],
				header_text(&heads[sub.members[first]], &chosen), folder, salt);
			set->items[set->count - 1].base = base;
		}
		cg_list_free(&chosen);
		if (first == SIZE_MAX)
			break;
	}
	free(given);
	free(sub.members);
}

/* Up to PCH_PER_GROUP headers for the group's files, each file in one at most. */
static void choose(struct pch_set *set, const struct group *group, const struct head *heads,
		   const struct tu_job *jobs, const size_t *which, size_t *assigned,
		   const char *folder, uint64_t salt)
{
	bool *given = xcalloc(group->count, sizeof(*given));
	for (int n = 0; n < PCH_PER_GROUP; n++) {
		struct cg_list chosen = { 0 };
		while (grow(heads, group, given, &chosen, 3, PCH_MIN_USERS))
			;
		size_t first = SIZE_MAX;
		for (size_t m = 0; chosen.count && m < group->count; m++)
			if (!given[m] && includes_all(&heads[group->members[m]], &chosen, NULL)) {
				given[m] = true;
				assigned[group->members[m]] = set->count;
				first = first == SIZE_MAX ? m : first;
			}
		if (first != SIZE_MAX) {
			add_pch(set, &jobs[which[group->members[first]]],
				header_text(&heads[group->members[first]], &chosen), folder, salt);
			refine(set, group, heads, jobs, which, assigned, set->count - 1, &chosen, folder, salt);
		}
		cg_list_free(&chosen);
		if (first == SIZE_MAX)
			break;
	}
	free(given);
}

static void group_by_flags(struct group **groups, size_t *count, const struct tu_job *jobs,
			   const size_t *which, size_t jobs_count, const struct head *heads)
{
	size_t capacity = 0;
	for (size_t i = 0; i < jobs_count; i++) {
		if (!heads[i].includes.count)
			continue;
		uint64_t key = shared_flags_key(&jobs[which[i]], &heads[i]);
		size_t g = 0;
		while (g < *count && (*groups)[g].key != key)
			g++;
		if (g == *count) {
			array_reserve(groups, &capacity, *count + 1, sizeof(**groups));
			(*groups)[(*count)++] = (struct group){ .key = key };
		}
		struct group *group = &(*groups)[g];
		array_reserve(&group->members, &group->capacity, group->count + 1, sizeof(size_t));
		group->members[group->count++] = i;
	}
}

/* --- building, or finding it built ------------------------------------------ */

/* Does text name word outside a #define (comments aside)? */
static bool named_outside_define(const char *text, size_t size, const char *word)
{
	if (!strstr(text, word))
		return false;
	const char *p = text, *end = text + size;
	struct buffer line = { 0 };
	bool in_comment = false, outside = false;
	while (!outside && next_line(&p, end, &line, &in_comment)) {
		buffer_reserve(&line, 0);
		line.data[line.length] = '\0';
		const char *d = directive(line.data);
		outside = !(d && !strncmp(d, "define ", 7)) && names_word(line.data, word);
	}
	buffer_free(&line);
	return outside;
}

/* A file the build read that names a per-file macro where it is expanded
 * at once: it would read it undefined (clang defines those after the header). */
static char *names_file_define(const struct pch *pch)
{
	for (size_t i = 0; i < pch->facts.input_count; i++) {
		char *text;
		size_t size;
		if (!strcmp(pch->facts.inputs[i].path, pch->header) || !cg_read_file(pch->facts.inputs[i].path, &text, &size))
			continue;
		const char *named = NULL;
		for (size_t d = 0; !named && d < pch->dropped.count; d++)
			if (named_outside_define(text, size, pch->dropped.items[d]))
				named = pch->dropped.items[d];
		free(text);
		if (named)
			return xasprintf("%s uses %s outside a #define", pch->facts.inputs[i].path, named);
	}
	return NULL;
}

/* A header built before from the same text and flags whose every input is unchanged. */
static bool pch_current(struct pch *pch, const char *folder)
{
	char *text;
	size_t size;
	if (!cache_entry_private(folder, pch->file) || !cache_entry_private(folder, pch->header) ||
	    !cache_entry_private(folder, pch->facts_path) || !cg_read_private_file(pch->facts_path, &text, &size))
		return false;
	bool ok = cache_parse(text, size, &pch->facts) && tu_inputs_current(&pch->facts, NULL);
	free(text);
	if (!ok) {
		tu_facts_free(&pch->facts);
		memset(&pch->facts, 0, sizeof(pch->facts));
	}
	return ok;
}

/* The child's answer: "ok" and the build's facts, kept beside the header. */
static void take_build(struct pch *pch, struct bounded_task *task)
{
	char *text = task->output.data, *newline = text ? strchr(text, '\n') : NULL;
	if (task->refused) {
		pch->refused = task->refused;
	} else if (!newline) {
		pch->refused = xstrdup("libclang's process answered something unreadable");
	} else if (strncmp(text, "ok\n", 3)) {
		pch->refused = xstrndup(text + 3, (size_t)(newline - text - 3));
	} else if (!cache_parse(newline + 1, task->output.length - (size_t)(newline + 1 - text), &pch->facts)) {
		pch->refused = xstrdup("libclang's process answered something unreadable");
	} else if (!(pch->refused = names_file_define(pch))) {
		struct buffer out = { 0 };
		cache_serialise(&pch->facts, &out);
		pch->ready = cg_write_file_atomic(pch->facts_path, out.data, out.length);
		buffer_free(&out);
	}
	if (!pch->ready)
		unlink(pch->file);
	buffer_free(&task->output);
}

static void build(struct pch_set *set, const char *folder, bool reuse, size_t parallel)
{
	struct bounded_task *tasks = xcalloc(set->count ? set->count : 1, sizeof(*tasks));
	size_t *built = xcalloc(set->count ? set->count : 1, sizeof(*built)), count = 0;
	for (size_t i = 0; i < set->count; i++) {
		struct pch *pch = &set->items[i];
		if (reuse && pch_current(pch, folder)) {
			pch->ready = true;
			continue;
		}
		if (!cg_write_file_atomic(pch->header, pch->text, strlen(pch->text))) {
			pch->refused = xasprintf("%s: cannot write", pch->header);
			continue;
		}
		tasks[count] = (struct bounded_task){ .work = parse_pch_work, .data = pch };
		built[count++] = i;
	}
	/* each build reads what a parse of its files would, and writes in CACHE/pch alone */
	struct read_roots roots = { 0 };
	if (count) {
		roots = *set->items[built[0]].roots;
		roots.writable = folder;
	}
	bounded_run(tasks, count, parallel, count ? &roots : NULL, NULL, NULL);
	for (size_t t = 0; t < count; t++)
		take_build(&set->items[built[t]], &tasks[t]);
	free(tasks);
	free(built);
}

/* Did the header's build read a file that asks __has_include?  The answer
 * could differ for a file with a folder of its own (own_folder). */
static bool probes_search(struct pch *pch)
{
	for (size_t i = 0; pch->probes < 0 && i < pch->facts.input_count; i++) {
		char *text;
		size_t size;
		if (!cg_read_file(pch->facts.inputs[i].path, &text, &size))
			continue;
		if (strstr(text, "__has_include"))
			pch->probes = 1;
		free(text);
	}
	if (pch->probes < 0)
		pch->probes = 0;
	return pch->probes;
}

void pch_prepare(struct pch_set *set, struct tu_job *jobs, const size_t *which, size_t count,
		 const char *cache_dir, bool reuse, uint64_t salt, size_t parallel)
{
	const char *off = getenv("PTSCOPE_NO_PCH");
	if ((off && *off && strcmp(off, "0")) || count < PCH_MIN_USERS)
		return;
	char *folder = xasprintf("%s/pch", cache_dir);
	struct head *heads = xcalloc(count, sizeof(*heads));
	size_t *assigned = xcalloc(count, sizeof(*assigned)), group_count = 0;
	struct group *groups = NULL;
	if (cache_make_folder(folder)) {
		for (size_t i = 0; i < count; i++) {
			read_head(jobs[which[i]].path, &heads[i]);
			assigned[i] = SIZE_MAX;
		}
		group_by_flags(&groups, &group_count, jobs, which, count, heads);
		for (size_t g = 0; g < group_count; g++)
			choose(set, &groups[g], heads, jobs, which, assigned, folder, salt);
		build(set, folder, reuse, parallel);
		for (size_t i = 0; i < count; i++) {
			size_t a = assigned[i];
			/* a larger header that did not build: the one it grew from */
			if (a != SIZE_MAX && !set->items[a].ready && set->items[a].base != SIZE_MAX)
				a = set->items[a].base;
			if (a != SIZE_MAX && set->items[a].ready &&
			    !(has_own_folder(&jobs[which[i]]) && probes_search(&set->items[a]))) {
				jobs[which[i]].pch = &set->items[a];
				set->items[a].users++;
			}
		}
	}
	for (size_t i = 0; i < count; i++)
		head_free(&heads[i]);
	for (size_t g = 0; g < group_count; g++)
		free(groups[g].members);
	free(groups);
	free(heads);
	free(assigned);
	free(folder);
}

void pch_set_free(struct pch_set *set)
{
	for (size_t i = 0; i < set->count; i++) {
		struct pch *pch = &set->items[i];
		free(pch->text);
		free(pch->header);
		free(pch->file);
		free(pch->facts_path);
		cg_list_free(&pch->arguments);
		cg_list_free(&pch->dropped);
		tu_facts_free(&pch->facts);
		free(pch->refused);
	}
	free(set->items);
	memset(set, 0, sizeof(*set));
}
