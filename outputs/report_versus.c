/*
 * outputs/report_versus.c - `report AFTER --versus BEFORE`: two snapshots
 * side by side, the way every rmap argument was made (2.4-ac12 against ac12
 * with rmap, 2.5.61 against 2.5.62-mjb1, a desktop with and without shared
 * page tables).
 *
 * The comparison is generic over the report's own tree (report_tree.c): the
 * change of `totals` is every number of AFTER's totals minus BEFORE's, key by
 * key and recursively (designs and sharing rules are keys of sub-objects), so
 * a figure the tree gains is compared without a line here.  A key only one
 * side has counts as 0 on the other.  Processes are matched by command line,
 * then by comm; files by path, per sharing rule.
 */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <json-c/json.h>

#include "base/alloc.h"
#include "base/escape.h"
#include "base/hash.h"
#include "outputs/report_internal.h"

static bool is_number(json_object *value)
{
	return json_object_is_type(value, json_type_int) || json_object_is_type(value, json_type_double);
}

static double number_of(json_object *value)
{
	if (!value || !is_number(value))
		return 0;
	if (json_object_is_type(value, json_type_double))
		return json_object_get_double(value);
	return (double)json_object_get_int64(value);
}

static bool is_integral(json_object *a, json_object *b)
{
	return (!a || json_object_is_type(a, json_type_int)) && (!b || json_object_is_type(b, json_type_int));
}

static void difference_key(json_object *delta, const char *key, json_object *after, json_object *before);

/* AFTER minus BEFORE for every number of both objects, recursively. */
static json_object *difference(json_object *after, json_object *before)
{
	json_object *delta = json_object_new_object();
	if (after && json_object_is_type(after, json_type_object)) {
		json_object_object_foreach(after, key, value)
			difference_key(delta, key, value, before ? json_object_object_get(before, key) : NULL);
	}
	if (before && json_object_is_type(before, json_type_object)) {
		json_object_object_foreach(before, old_key, old_value)
			if (!after || !json_object_object_get_ex(after, old_key, NULL))
				difference_key(delta, old_key, NULL, old_value);
	}
	return delta;
}

static void difference_key(json_object *delta, const char *key, json_object *after, json_object *before)
{
	json_object *shape = after ? after : before;
	if (json_object_is_type(shape, json_type_object)) {
		json_object_object_add(delta, key, difference(after, before));
	} else if (is_number(shape)) {
		double change = number_of(after) - number_of(before);
		json_object_object_add(delta, key, is_integral(after, before) ? json_object_new_int64((int64_t)llround(change))
										: json_object_new_double(round(change * 1e6) / 1e6));
	}
}

/* ---- matching processes: command line, then comm ----------------------- */

struct process_match {
	size_t *before_of;              /* per AFTER process: BEFORE index, or SIZE_MAX (new) */
	const char **by;                /* "cmdline" or "comm" */
	bool *before_used;
};

struct keyed {
	const struct model_result *result;
	bool by_cmdline;
};

static const char *key_of(const struct keyed *k, size_t i)
{
	const struct process *p = k->result->process_figures[i].process;
	return k->by_cmdline ? (p->cmdline ? p->cmdline : "") : (p->comm ? p->comm : "");
}

static uint64_t key_hash(const void *context, size_t index)
{
	const char *key = key_of(context, index);
	return hash_keyed(key, strlen(key));
}

/* One pass of matching on one key: BEFORE's processes indexed by the key,
 * each AFTER process takes the first unused BEFORE process with its key. */
static void match_on(const struct model_result *after, const struct model_result *before, bool by_cmdline,
		     struct process_match *m)
{
	struct keyed k = { before, by_cmdline };
	struct hash_table table = { 0 };
	size_t *next = xcalloc(before->processes + 1, sizeof(size_t));
	/* while building, the last of each key's chain (held at its first):
	 * appending is one step */
	size_t *tail = xcalloc(before->processes + 1, sizeof(size_t));
	for (size_t i = 0; i < before->processes; i++) {
		struct hash_probe probe;
		size_t first = SIZE_MAX;
		const char *key = key_of(&k, i);
		next[i] = SIZE_MAX;
		if (m->before_used[i] || !key[0])
			continue;
		for (size_t j = hash_first(&table, key_hash(&k, i), &probe); j != HASH_NONE; j = hash_next(&table, &probe))
			if (!strcmp(key_of(&k, j), key))
				first = j;
		if (first == SIZE_MAX) {
			tail[i] = i;
			hash_add(&table, key_hash(&k, i), i, key_hash, &k);
			continue;
		}
		next[tail[first]] = i;   /* keep pid order along the chain */
		tail[first] = i;
	}
	for (size_t i = 0; i < before->processes; i++)
		tail[i] = i;     /* from here on: each chain's first possibly unused process */
	struct keyed a = { after, by_cmdline };
	for (size_t i = 0; i < after->processes; i++) {
		struct hash_probe probe;
		const char *key = key_of(&a, i);
		if (m->before_of[i] != SIZE_MAX || !key[0])
			continue;
		for (size_t j = hash_first(&table, hash_keyed(key, strlen(key)), &probe); j != HASH_NONE;
		     j = hash_next(&table, &probe)) {
			if (strcmp(key_of(&k, j), key))
				continue;
			/* the chain's used head is skipped once: tail[j] now
			 * says where its first unused process may be */
			size_t b = tail[j];
			while (b != SIZE_MAX && m->before_used[b])
				b = next[b];
			tail[j] = b;
			if (b != SIZE_MAX) {
				m->before_of[i] = b;
				m->before_used[b] = true;
				m->by[i] = by_cmdline ? "cmdline" : "comm";
			}
			break;
		}
	}
	hash_free(&table);
	free(next);
	free(tail);
}

static void match_processes(const struct model_result *after, const struct model_result *before,
			    struct process_match *m)
{
	m->before_of = xcalloc(after->processes + 1, sizeof(size_t));
	m->by = xcalloc(after->processes + 1, sizeof(char *));
	m->before_used = xcalloc(before->processes + 1, sizeof(bool));
	for (size_t i = 0; i < after->processes; i++)
		m->before_of[i] = SIZE_MAX;
	match_on(after, before, true, m);
	match_on(after, before, false, m);
}

static void match_free(struct process_match *m)
{
	free(m->before_of);
	free(m->by);
	free(m->before_used);
}

static json_object *process_brief(const struct model_process *f)
{
	const struct process *p = f->process;
	json_object *o = json_object_new_object();
	json_object_object_add(o, "pid", json_object_new_int(p->pid));
	json_object_object_add(o, "comm", json_object_new_string(p->comm ? p->comm : ""));
	json_object_object_add(o, "cmdline", json_object_new_string(p->cmdline ? p->cmdline : ""));
	json_object_object_add(o, "pagetable_bytes", json_object_new_int64((int64_t)f->pagetable_bytes));
	json_object_object_add(o, "vmpte_bytes", json_object_new_int64((int64_t)f->vmpte_bytes));
	return o;
}

/* The largest change of page tables first (a new or gone process: all of
 * its page tables), then pid. */
static int64_t change_of(json_object *o)
{
	json_object *delta = json_object_object_get(o, "delta");
	int64_t change = delta ? json_object_get_int64(json_object_object_get(delta, "pagetable_bytes"))
			       : json_object_get_int64(json_object_object_get(o, "pagetable_bytes"));
	return change < 0 ? -change : change;
}

static int by_change(const void *a, const void *b)
{
	json_object *x = *(json_object *const *)a, *y = *(json_object *const *)b;
	int64_t p = change_of(x), q = change_of(y);
	if (p != q)
		return p > q ? -1 : 1;
	return json_object_get_int(json_object_object_get(x, "pid")) - json_object_get_int(json_object_object_get(y, "pid"));
}

/* With --top N the N largest changes, largest first; else every process
 * in pid order (a table for tools). */
static void keep_top(json_object *list, const struct report_options *options)
{
	if (!options->top_given)
		return;
	json_object_array_sort(list, by_change);
	size_t count = json_object_array_length(list);
	if (count > options->top)
		json_object_array_del_idx(list, options->top, count - options->top);
}

/* versus_processes (matched, with the change of each process's figures),
 * new_processes and gone_processes (with their page tables). */
static void add_processes(json_object *tree, json_object *before_tree, const struct model_result *after,
			  const struct model_result *before, const struct report_options *options)
{
	struct process_match m;
	json_object *after_list = json_object_object_get(tree, "processes");
	json_object *before_list = json_object_object_get(before_tree, "processes");
	json_object *matched = json_object_new_array(), *fresh = json_object_new_array(), *gone = json_object_new_array();
	match_processes(after, before, &m);
	for (size_t i = 0; i < after->processes; i++) {
		const struct model_process *f = &after->process_figures[i];
		if (m.before_of[i] == SIZE_MAX) {
			json_object_array_add(fresh, process_brief(f));
			continue;
		}
		json_object *o = process_brief(f);
		json_object *now = json_object_array_get_idx(after_list, i);
		json_object *then = json_object_array_get_idx(before_list, m.before_of[i]);
		json_object_object_add(o, "baseline_pid", json_object_new_int(before->process_figures[m.before_of[i]].process->pid));
		json_object_object_add(o, "baseline_pagetable_bytes", json_object_get(json_object_object_get(then, "pagetable_bytes")));
		json_object_object_add(o, "matched_by", json_object_new_string(m.by[i]));
		json_object_object_add(o, "delta", difference(now, then));
		json_object_array_add(matched, o);
	}
	for (size_t b = 0; b < before->processes; b++)
		if (!m.before_used[b])
			json_object_array_add(gone, process_brief(&before->process_figures[b]));
	/* how many there were before --top kept some */
	json_object_object_add(tree, "versus_process_counts", json_object_new_object());
	json_object *counts = json_object_object_get(tree, "versus_process_counts");
	json_object_object_add(counts, "matched", json_object_new_int64((int64_t)json_object_array_length(matched)));
	json_object_object_add(counts, "new", json_object_new_int64((int64_t)json_object_array_length(fresh)));
	json_object_object_add(counts, "gone", json_object_new_int64((int64_t)json_object_array_length(gone)));
	keep_top(matched, options);
	keep_top(fresh, options);
	keep_top(gone, options);
	json_object_object_add(tree, "versus_processes", matched);
	json_object_object_add(tree, "new_processes", fresh);
	json_object_object_add(tree, "gone_processes", gone);
	match_free(&m);
}

/* ---- files, by path, per sharing rule ----------------------------------- */

static const struct model_sharing *rule_named(const struct model_result *r, const char *id)
{
	for (size_t k = 0; k < r->sharing_count; k++)
		if (!strcmp(r->sharing[k].rule->id, id))
			return &r->sharing[k];
	return NULL;
}

static uint64_t path_hash(const void *context, size_t index)
{
	const struct model_sharing *s = context;
	return hash_keyed(s->files[index].path, strlen(s->files[index].path));
}

static void add_file(json_object *list, const char *rule, const char *path, uint64_t pages, uint64_t baseline)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "rule", json_object_new_string(rule));
	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "pages", json_object_new_int64((int64_t)pages));
	json_object_object_add(o, "baseline_pages", json_object_new_int64((int64_t)baseline));
	json_object_object_add(o, "delta_pages", json_object_new_int64((int64_t)pages - (int64_t)baseline));
	json_object_array_add(list, o);
}

/* One rule's files of both snapshots: matched by path, new ones with a
 * baseline of 0, gone ones with 0 pages now. */
static void compare_files(json_object *list, const struct model_sharing *now, const struct model_sharing *then)
{
	static const struct model_sharing none;
	struct hash_table table = { 0 };
	if (!then)
		then = &none;
	bool *seen = xcalloc(then->file_count + 1, sizeof(bool));
	for (size_t i = 0; i < then->file_count; i++)
		hash_add(&table, path_hash(then, i), i, path_hash, then);
	for (size_t i = 0; now && i < now->file_count; i++) {
		const char *path = now->files[i].path;
		uint64_t baseline = 0;
		struct hash_probe probe;
		for (size_t j = hash_first(&table, hash_keyed(path, strlen(path)), &probe); j != HASH_NONE;
		     j = hash_next(&table, &probe))
			if (!seen[j] && !strcmp(then->files[j].path, path)) {
				seen[j] = true;
				baseline = then->files[j].sharable_pages;
				break;
			}
		add_file(list, now->rule->id, path, now->files[i].sharable_pages, baseline);
	}
	for (size_t j = 0; j < then->file_count; j++)
		if (!seen[j])
			add_file(list, then->rule->id, then->files[j].path, 0, then->files[j].sharable_pages);
	hash_free(&table);
	free(seen);
}

static void add_files(json_object *tree, const struct model_result *after, const struct model_result *before)
{
	json_object *list = json_object_new_array();
	for (size_t k = 0; k < after->sharing_count; k++)
		compare_files(list, &after->sharing[k], rule_named(before, after->sharing[k].rule->id));
	for (size_t k = 0; k < before->sharing_count; k++)
		if (!rule_named(after, before->sharing[k].rule->id))
			compare_files(list, NULL, &before->sharing[k]);
	json_object_object_add(tree, "versus_files", list);
}

json_object *report_build_versus(const struct model_result *after, const struct model_result *before,
				 const struct report_options *options)
{
	json_object *tree = report_build(after, options);
	json_object *before_tree = report_build(before, options);
	json_object *totals = json_object_object_get(tree, "totals");
	json_object *baseline = json_object_object_get(before_tree, "totals");
	json_object_object_add(tree, "delta", difference(totals, baseline));
	json_object_object_add(tree, "versus", json_object_get(baseline));
	json_object_object_add(tree, "versus_snapshot", json_object_get(json_object_object_get(before_tree, "snapshot")));
	if (options->per_process)
		add_processes(tree, before_tree, after, before, options);
	if (options->per_file)
		add_files(tree, after, before);
	json_object_put(before_tree);
	return tree;
}

/* ---- text ---------------------------------------------------------------- */

static bool ends_with(const char *text, const char *end)
{
	size_t a = strlen(text), b = strlen(end);
	return a >= b && !strcmp(text + a - b, end);
}

/* A figure (never negative here) in its unit: the key says it (units are in
 * the names). */
static void figure(double value, bool bytes, char *text, size_t size)
{
	if (bytes)
		report_format_bytes(value, text, size);
	else if (value == floor(value) && value < 1e18)
		report_format_count((uint64_t)value, text, size);
	else
		snprintf(text, size, "%.1f", value);
}

static void change_cells(double after, double before, bool bytes, char *change, char *percent, size_t size)
{
	char magnitude[32];
	figure(fabs(after - before), bytes, magnitude, sizeof(magnitude));
	snprintf(change, size, "%s%s", after > before ? "+" : after < before ? "-" : "", magnitude);
	if (before != 0)
		report_format_percent(100.0 * (after - before) / before, true, percent, size);
	else
		snprintf(percent, size, "%s", after != 0 ? "new" : "-");
}

/* Names are a snapshot's text (comm, paths): a terminal gets them escaped. */
static char *clean(const char *text)
{
	return escape_alloc(escape_text, text ? text : "");
}

static void row(FILE *out, const char *name, double after, double before, bool bytes)
{
	char a[40], b[40], change[40], percent[40], *shown = clean(name);
	figure(before, bytes, b, sizeof(b));
	figure(after, bytes, a, sizeof(a));
	change_cells(after, before, bytes, change, percent, sizeof(change));
	fprintf(out, "  %-46s %12s %12s %12s %9s\n", shown, b, a, change, percent);
	free(shown);
}

/* Every total a person is shown, in the report's words: the scalars, then
 * a block per figure by design or by rule under its title. */
static void write_totals(FILE *out, json_object *tree, const struct report_options *options)
{
	json_object *rows = report_comparison_rows(tree, options);
	const char *block = "";
	fprintf(out, "  %-46s %12s %12s %12s %9s\n", "totals", "before", "after", "change", "%");
	for (size_t i = 0; rows && i < json_object_array_length(rows); i++) {
		json_object *r = json_object_array_get_idx(rows, i);
		const char *this_block = json_object_get_string(json_object_object_get(r, "block"));
		const char *key = json_object_get_string(json_object_object_get(r, "key"));
		if (strcmp(block, this_block))
			fprintf(out, "\n%s\n", this_block);
		block = this_block;
		row(out, json_object_get_string(json_object_object_get(r, "label")),
		    number_of(json_object_object_get(r, "after")), number_of(json_object_object_get(r, "before")),
		    ends_with(key, "_bytes") || strstr(key, "_bytes."));
	}
	json_object_put(rows);
}

/* One process row: pid, the pid before, how matched, page tables before
 * and after, the change, then its command line to the width. */
static void process_row(FILE *out, json_object *p, const char *how, int width)
{
	json_object *pid_before = json_object_object_get(p, "baseline_pid");
	bool fresh = !strcmp(how, "new"), gone = !strcmp(how, "gone");
	double bytes = number_of(json_object_object_get(p, "pagetable_bytes"));
	double after = gone ? 0 : bytes;
	double before = fresh ? 0 : gone ? bytes : number_of(json_object_object_get(p, "baseline_pagetable_bytes"));
	char a[40], b[40], change[40], percent[40], pids[2][16];
	report_format_bytes(after, a, sizeof(a));
	report_format_bytes(before, b, sizeof(b));
	change_cells(after, before, true, change, percent, sizeof(change));
	snprintf(pids[0], sizeof(pids[0]), "%d", gone ? 0 : json_object_get_int(json_object_object_get(p, "pid")));
	snprintf(pids[1], sizeof(pids[1]), "%d", gone ? json_object_get_int(json_object_object_get(p, "pid"))
						      : pid_before ? json_object_get_int(pid_before) : 0);
	const char *command = json_object_get_string(json_object_object_get(p, "cmdline"));
	if (!command || !command[0])
		command = json_object_get_string(json_object_object_get(p, "comm"));
	char *shown = clean(command);
	int room = width - 71;
	fprintf(out, "  %7s %7s %-7s %10s %10s %11s %8s %.*s%s\n", gone ? "-" : pids[0], fresh ? "-" : pids[1], how,
		fresh ? "-" : b, gone ? "-" : a, change, percent, room > 4 && (int)strlen(shown) > room ? room - 3 : room,
		shown, room > 4 && (int)strlen(shown) > room ? "..." : "");
	free(shown);
}

static void write_process_rows(FILE *out, json_object *tree, const struct report_options *options)
{
	static const char *const lists[3][2] = { { "versus_processes", "matched" }, { "new_processes", "new" },
						 { "gone_processes", "gone" } };
	json_object *counts = json_object_object_get(tree, "versus_process_counts");
	int width = options->width ? options->width : 100;
	size_t top = report_top(options);
	fprintf(out, "\nProcesses (matched by command line, then comm), the %zu largest changes of page tables in "
		"each list\n", top);
	fprintf(out, "  %7s %7s %-7s %10s %10s %11s %8s %s\n", "pid", "before", "match", "before", "after", "change", "%",
		"command line");
	for (size_t l = 0; l < 3; l++) {
		json_object *list = json_object_get(json_object_object_get(tree, lists[l][0]));
		json_object_array_sort(list, by_change);
		size_t n = json_object_array_length(list);
		size_t total = (size_t)json_object_get_int64(json_object_object_get(counts, lists[l][1]));
		for (size_t i = 0; i < n && i < top; i++) {
			json_object *p = json_object_array_get_idx(list, i);
			process_row(out, p, l ? lists[l][1] : json_object_get_string(json_object_object_get(p, "matched_by")),
				    width);
		}
		if (total > (n < top ? n : top))
			fprintf(out, "  ... %zu %s processes in all (--top N shows more)\n", total, lists[l][1]);
		else if (!total)
			fprintf(out, "  (no %s processes)\n", lists[l][1]);
		json_object_put(list);
	}
}

static void write_file_rows(FILE *out, json_object *tree)
{
	json_object *files = json_object_object_get(tree, "versus_files");
	const char *rule = "";
	fprintf(out, "\nFiles by path: sharable PTE pages per rule, before -> after\n");
	for (size_t i = 0; i < json_object_array_length(files); i++) {
		json_object *f = json_object_array_get_idx(files, i);
		const char *this_rule = json_object_get_string(json_object_object_get(f, "rule"));
		if (strcmp(rule, this_rule))
			fprintf(out, "%s\n", this_rule);   /* a rule id: checked by the schema */
		rule = this_rule;
		row(out, json_object_get_string(json_object_object_get(f, "path")),
		    number_of(json_object_object_get(f, "pages")), number_of(json_object_object_get(f, "baseline_pages")),
		    false);
	}
}

/* A text field of the tree, "?" when empty. */
static const char *field(json_object *object, const char *key)
{
	const char *text = json_object_get_string(json_object_object_get(object, key));
	return text && text[0] ? text : "?";
}

int report_write_versus_text(FILE *out, json_object *tree, const struct report_options *options)
{
	json_object *snapshot = json_object_object_get(tree, "snapshot");
	json_object *then = json_object_object_get(tree, "versus_snapshot");
	char *now_source = clean(field(snapshot, "source")), *then_source = clean(field(then, "source"));
	fprintf(out, "ptscope report: %s\n  versus %s\n", now_source, then_source);
	free(now_source);
	free(then_source);
	fprintf(out, "  after: kernel %s, %s; before: kernel %s, %s\n\n", field(snapshot, "kernel"),
		field(snapshot, "arch"), field(then, "kernel"), field(then, "arch"));
	write_totals(out, tree, options);
	if (options->per_process)
		write_process_rows(out, tree, options);
	if (options->per_file)
		write_file_rows(out, tree);
	return ferror(out) ? -1 : 0;
}
