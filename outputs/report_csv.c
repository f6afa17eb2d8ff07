/*
 * outputs/report_csv.c - the report as one CSV table (RFC 4180, a header
 * row), for tools: pandas, DuckDB, ClickHouse, BigQuery or sqlite3 load it
 * as it is, and tables of many hosts concatenate, because every row names
 * its host, kernel release and capture time.
 *
 * The rows are an array of the one report tree (report_tree.c), so CSV
 * carries the figures JSON does: designs[] by default, processes[] with
 * --per-process, the files of every sharing rule with --per-file, groups[]
 * with --group-by; with --versus, a row per total (key, before, after,
 * delta).  The designs table ends with the host's totals, a row whose id
 * is "(host totals)" (processes, VmPTE, page tables, PTE pages); the process
 * and group tables have none, so a warehouse's SUM over them stays right.  Nested objects become dotted columns
 * ("pte_chain_estimate.point", "pte_chain_bytes.6.1-x86_64"); the columns
 * are the union over the rows, in the order first seen.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/escape.h"
#include "outputs/report_internal.h"

#define CSV_MAX_COLUMNS 512

struct columns {
	char *names[CSV_MAX_COLUMNS];
	size_t count;
};

static void add_column(struct columns *c, const char *name)
{
	for (size_t i = 0; i < c->count; i++)
		if (!strcmp(c->names[i], name))
			return;
	if (c->count < CSV_MAX_COLUMNS)
		c->names[c->count++] = xstrdup(name);
}

/* Scalar leaves of an object, as dotted names; arrays are left to their own
 * tables. */
static void collect(struct columns *c, const char *prefix, struct json_object *object)
{
	json_object_object_foreach(object, key, value) {
		char name[512];
		snprintf(name, sizeof(name), "%s%s%s", prefix, *prefix ? "." : "", key);
		if (json_object_is_type(value, json_type_object))
			collect(c, name, value);
		else if (!json_object_is_type(value, json_type_array))
			add_column(c, name);
	}
}

/* The value at a dotted name.  Keys may hold dots themselves (profile ids
 * such as "6.1-x86_64"), so every split is tried, longest key first. */
static struct json_object *lookup(struct json_object *object, const char *name)
{
	struct json_object *value;
	if (json_object_object_get_ex(object, name, &value))
		return value;
	for (const char *dot = strrchr(name, '.'); dot; ) {
		char key[512];
		snprintf(key, sizeof(key), "%.*s", (int)(dot - name), name);
		if (json_object_object_get_ex(object, key, &value) && json_object_is_type(value, json_type_object)) {
			struct json_object *found = lookup(value, dot + 1);
			if (found)
				return found;
		}
		while (--dot > name && *dot != '.')
			;
		if (dot <= name)
			break;
	}
	return NULL;
}

static void field(FILE *out, const char *text, bool first)
{
	if (!first)
		fputc(',', out);
	escape_fputs(escape_csv, text, out);
}

static const char *string_at(struct json_object *object, const char *key)
{
	struct json_object *value = NULL;
	return json_object_object_get_ex(object, key, &value) && value ? json_object_get_string(value) : "";
}

/* rows: objects; label_name/labels: an extra leading column per row (the
 * rule of a file row), or NULL. */
static int write_table(FILE *out, struct json_object *tree, struct json_object **rows, const char **labels,
		       size_t count, const char *label_name)
{
	struct json_object *snapshot = NULL;
	json_object_object_get_ex(tree, "snapshot", &snapshot);
	struct columns c = { .count = 0 };
	for (size_t i = 0; i < count; i++)
		collect(&c, "", rows[i]);
	field(out, "host", true);
	field(out, "kernel", false);
	field(out, "captured_at", false);
	if (label_name)
		field(out, label_name, false);
	for (size_t k = 0; k < c.count; k++)
		field(out, c.names[k], false);
	fputs("\r\n", out);
	for (size_t i = 0; i < count; i++) {
		field(out, string_at(snapshot, "hostname"), true);
		field(out, string_at(snapshot, "kernel"), false);
		field(out, string_at(snapshot, "captured_at"), false);
		if (label_name)
			field(out, labels[i], false);
		for (size_t k = 0; k < c.count; k++) {
			struct json_object *value = lookup(rows[i], c.names[k]);
			field(out, value && !json_object_is_type(value, json_type_null) ? json_object_get_string(value) : "",
			      false);
		}
		fputs("\r\n", out);
	}
	for (size_t k = 0; k < c.count; k++)
		free(c.names[k]);
	return ferror(out) ? -1 : 0;
}

/* The host's totals as one more row, named in its label column (LABEL_KEY):
 * a warehouse gets the host's figures from one table. */
static struct json_object *host_totals_row(struct json_object *tree, const char *label_key)
{
	static const char *const keys[] = { "processes", "vmpte_bytes", "pagetable_bytes", "pte_pages" };
	struct json_object *totals = NULL, *row = json_object_new_object(), *value;
	json_object_object_get_ex(tree, "totals", &totals);
	json_object_object_add(row, label_key, json_object_new_string("(host totals)"));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (totals && json_object_object_get_ex(totals, keys[i], &value))
			json_object_object_add(row, keys[i], json_object_get(value));
	return row;
}

/* A row per element of tree[key]; with TOTALS_LABEL, the host totals row last. */
static int write_array(FILE *out, struct json_object *tree, const char *key, const char *totals_label)
{
	struct json_object *array = NULL, *totals = totals_label ? host_totals_row(tree, totals_label) : NULL;
	json_object_object_get_ex(tree, key, &array);
	size_t count = array ? json_object_array_length(array) : 0;
	struct json_object **rows = xcalloc(count + 2, sizeof(*rows));
	for (size_t i = 0; i < count; i++)
		rows[i] = json_object_array_get_idx(array, i);
	if (totals)
		rows[count++] = totals;
	int status = write_table(out, tree, rows, NULL, count, NULL);
	free(rows);
	json_object_put(totals);
	return status;
}

/* One row per file of every sharing rule, the rule's id in front. */
static int write_files(FILE *out, struct json_object *tree)
{
	struct json_object *sharing = NULL;
	json_object_object_get_ex(tree, "sharing", &sharing);
	size_t count = 0, rules = sharing ? json_object_array_length(sharing) : 0;
	for (size_t k = 0; k < rules; k++) {
		struct json_object *files = NULL;
		if (json_object_object_get_ex(json_object_array_get_idx(sharing, k), "files", &files))
			count += json_object_array_length(files);
	}
	struct json_object **rows = xcalloc(count + 1, sizeof(*rows));
	const char **labels = xcalloc(count + 1, sizeof(*labels));
	size_t n = 0;
	for (size_t k = 0; k < rules; k++) {
		struct json_object *rule = json_object_array_get_idx(sharing, k), *files = NULL;
		if (!json_object_object_get_ex(rule, "files", &files))
			continue;
		for (size_t i = 0; i < json_object_array_length(files); i++) {
			labels[n] = string_at(rule, "id");
			rows[n++] = json_object_array_get_idx(files, i);
		}
	}
	int status = write_table(out, tree, rows, labels, n, "rule");
	free(rows);
	free(labels);
	return status;
}

/* The report's words for a key of `totals` and for its blocks (a figure
 * per design or per rule); NULL: a figure a person is not shown (the page
 * field over all RAM is priced apart, as in the designs table). */
static const struct total_words {
	const char *key, *label;
} total_words[] = {
	{ "processes", "processes" },
	{ "pagetable_bytes", "page tables (exact from pagemap)" },
	{ "vmpte_bytes", "VmPTE (the kernel's count)" },
	{ "processes_pagetable_exact", "processes matching VmPTE to the page" },
	{ "processes_with_pagemap", "processes with pagemap" },
	{ "pte_pages", "PTE pages" },
	{ "upper_level_pages", "higher-level page-table pages" },
	{ "pmd_mapped_windows", "windows mapped by a PMD (huge pages)" },
	{ "pmd_ambiguous_windows", "windows that may be PMD-mapped" },
	{ "pmd_mapped_anon_windows", "anonymous windows mapped by a PMD" },
	{ "vmpte_above_model_bytes", "VmPTE above the model (tables outliving pages)" },
	{ "vmpte_below_model_bytes", "VmPTE below the model (capture raced faults)" },
	{ "present_ptes", "present PTEs" },
	{ "swap_ptes", "swap PTEs" },
	{ "zero_page_ptes", "zero-page PTEs" },
	{ "vmas", "VMAs" },
	{ "vmas_with_anon_vma", "VMAs with an anon_vma" },
	{ "rmap_bytes", "rmap by design (pte_chain + object, as the designs table counts it)" },
	{ "pte_chain_bytes", "pte_chain memory by design" },
	{ "object_rmap_bytes", "object rmap by design (VMA fields, anon_vmas, anon_vma_chains)" },
	{ "rmap_total_bytes", NULL },
	{ "sharable_pte_pages", "PTE pages each sharing rule would share" },
	{ "fork_pte_pages_copied", "PTE pages a fork of every process copies" },
	{ "fork_ptes_copied", "PTEs a fork of every process copies" },
};

/* The label of KEY; the key itself when the table lacks it (a figure
 * added to the tree is still shown); NULL when it is not shown. */
static const char *total_label(const char *key)
{
	for (size_t i = 0; i < sizeof(total_words) / sizeof(total_words[0]); i++)
		if (!strcmp(total_words[i].key, key))
			return total_words[i].label;
	return key;
}

/* In words: a design of another architecture than the snapshot's is left
 * out, as the text's designs table leaves it out (--all-designs keeps it). */
static bool design_of_other_arch(struct json_object *tree, const char *id)
{
	const char *arch = json_object_get_string(json_object_object_get(json_object_object_get(tree, "snapshot"), "arch"));
	struct json_object *designs = json_object_object_get(tree, "designs");
	if (!arch || !arch[0])
		arch = "x86_64";
	for (size_t i = 0; i < json_object_array_length(designs); i++) {
		struct json_object *d = json_object_array_get_idx(designs, i);
		if (!strcmp(json_object_get_string(json_object_object_get(d, "id")), id))
			return strcmp(json_object_get_string(json_object_object_get(d, "arch")), arch) != 0;
	}
	return false;
}

struct comparison {
	struct json_object *tree, *rows;
	const struct report_options *words;    /* NULL: every key as is */
};

/* Rows {key, before, after, delta} for each scalar of totals (dotted keys),
 * from the tree --versus built (report_versus.c); in words also {block,
 * label, name}: the block's title ("" for the scalars), the row's words
 * (a design or rule id in a block), and both as one cell. */
static void comparison_rows(struct comparison *c, const char *prefix, const char *block, struct json_object *after,
			    struct json_object *before, struct json_object *delta)
{
	json_object_object_foreach(after, key, value) {
		char name[512];
		struct json_object *then = NULL, *change = NULL;
		const char *label = !c->words ? key : !*prefix ? total_label(key) : !strcmp(key, "none") ? "today (no rule)" : key;
		snprintf(name, sizeof(name), "%s%s%s", prefix, *prefix ? "." : "", key);
		json_object_object_get_ex(before, key, &then);
		json_object_object_get_ex(delta, key, &change);
		if (!label || (c->words && *prefix && !c->words->all_designs && design_of_other_arch(c->tree, key)))
			continue;
		if (json_object_is_type(value, json_type_object)) {
			comparison_rows(c, name, label, value, then, change);
			continue;
		}
		if (json_object_is_type(value, json_type_array))
			continue;
		struct json_object *row = json_object_new_object();
		json_object_object_add(row, "key", json_object_new_string(name));
		if (c->words) {
			char words[512];
			snprintf(words, sizeof(words), "%s%s%s", block, *block ? ": " : "", label);
			json_object_object_add(row, "block", json_object_new_string(block));
			json_object_object_add(row, "label", json_object_new_string(label));
			json_object_object_add(row, "name", json_object_new_string(words));
		}
		json_object_object_add(row, "before", json_object_get(then));
		json_object_object_add(row, "after", json_object_get(value));
		json_object_object_add(row, "delta", json_object_get(change));
		json_object_array_add(c->rows, row);
	}
}

struct json_object *report_comparison_rows(struct json_object *tree, const struct report_options *words)
{
	struct json_object *totals = NULL, *before = NULL, *delta = NULL;
	if (!json_object_object_get_ex(tree, "versus", &before) || !json_object_object_get_ex(tree, "delta", &delta) ||
	    !json_object_object_get_ex(tree, "totals", &totals))
		return NULL;
	struct comparison c = { tree, json_object_new_array(), words };
	comparison_rows(&c, "", "", totals, before, delta);
	return c.rows;
}

/* --calibration: the time section, every process forking once first, then
 * a row per process (its headline rule's figures as headline_sharing.*). */
static int write_time(FILE *out, struct json_object *tree)
{
	struct json_object *time = NULL, *total = NULL, *processes = NULL;
	json_object_object_get_ex(tree, "time", &time);
	json_object_object_get_ex(time, "total", &total);
	json_object_object_get_ex(time, "processes", &processes);
	size_t count = processes ? json_object_array_length(processes) : 0, n = 0;
	struct json_object **rows = xcalloc(count + 2, sizeof(*rows));
	const char **labels = xcalloc(count + 2, sizeof(*labels));
	if (total) {
		labels[n] = "total";
		rows[n++] = total;
	}
	for (size_t i = 0; i < count; i++) {
		labels[n] = "process";
		rows[n++] = json_object_array_get_idx(processes, i);
	}
	int status = write_table(out, tree, rows, labels, n, "row");
	free(rows);
	free(labels);
	return status;
}

int report_write_csv(FILE *out, struct json_object *tree, const struct report_options *options)
{
	struct json_object *rows = NULL;
	if (options->group_by == GROUP_NONE && !options->per_process && !options->per_file &&
	    (rows = report_comparison_rows(tree, NULL))) {
		/* --versus: one row per total, before and after side by side */
		struct json_object *comparison = json_object_new_object();
		json_object_object_add(comparison, "snapshot", json_object_get(json_object_object_get(tree, "snapshot")));
		json_object_object_add(comparison, "comparison", rows);
		int status = write_array(out, comparison, "comparison", NULL);
		json_object_put(comparison);
		return status;
	}
	if (options->group_by != GROUP_NONE)
		return write_array(out, tree, "groups", NULL);
	if (options->per_process)
		return write_array(out, tree, "processes", NULL);
	if (options->per_file)
		return write_files(out, tree);
	if (options->calibration)
		return write_time(out, tree);
	/* the designs are alternatives, never summed: the host's totals join them */
	return write_array(out, tree, "designs", "id");
}
