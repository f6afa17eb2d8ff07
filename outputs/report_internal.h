/*
 * outputs/report_internal.h - shared by the report writers only.
 */
#ifndef PTSCOPE_OUTPUTS_REPORT_INTERNAL_H
#define PTSCOPE_OUTPUTS_REPORT_INTERNAL_H

#include <json-c/json.h>

#include "outputs/report.h"

/* The structured report (report_tree.c); the caller puts it. */
struct json_object *report_build(const struct model_result *result, const struct report_options *options);

/* AFTER's tree plus `versus` (BEFORE's totals), `delta` (AFTER minus BEFORE,
 * key by key), and with per_process / per_file the matched processes and
 * files (report_versus.c); the caller puts it. */
struct json_object *report_build_versus(const struct model_result *after, const struct model_result *before,
					const struct report_options *options);
int report_write_versus_text(FILE *out, struct json_object *tree, const struct report_options *options);

/* Writers: 0, or -1 on a write error. */
int report_write_text(FILE *out, const struct model_result *result, const struct report_options *options);
/* --calibration (outputs/report_time.c): the time section as text, after
 * the rest, and as the tree's "time" object the other formats print. */
int report_write_time(FILE *out, const struct model_result *result, const struct report_options *options);
struct json_object *report_time_tree(const struct model_result *result, const struct calibration *calibration,
				     const char *path);
int report_write_xml(FILE *out, struct json_object *tree);
/* CSV: one table with a header row, chosen by the options: a row per design
 * (default), per process (--per-process), per file (--per-file) or per
 * group (--group-by); every row starts with host, kernel and captured_at. */
int report_write_csv(FILE *out, struct json_object *tree, const struct report_options *options);
/* Prometheus text exposition (OpenMetrics' # EOF at the end): HELP and TYPE
 * lines, host and kernel labels (report_metrics.c). */
int report_write_metrics(FILE *out, struct json_object *tree);
/* HTML: one self-contained page a person reads (report_html.c). */
int report_write_html(FILE *out, struct json_object *tree, const struct model_result *result,
		      const struct report_options *options);
/* --versus trees: [{key, before, after, delta}] per scalar total, or NULL;
 * with WORDS (a person's formats) also {block, label} in the report's
 * words, without the figures the text does not show (designs of other
 * architectures unless words->all_designs, the page field over RAM). */
struct json_object *report_comparison_rows(struct json_object *tree, const struct report_options *words);

/* TEXT after PREFIX, wrapped at WIDTH columns, continuation lines indented
 * by INDENT spaces (the text report's legends, `ptscope profiles`). */
void report_wrap(FILE *out, const char *prefix, const char *text, int indent, int width);

/* The processes a report shows, in order, and their groups (report_view.c). */
struct report_group_row {
	char key[256];                  /* "uid 1000", a cgroup path, a comm */
	size_t processes;
	uint64_t vmpte_bytes, pagetable_bytes, rss_bytes, pss_bytes;
	double sharable_pages, pte_chain_bytes;
};
struct report_view {
	size_t *order;                  /* indices into process_figures, filtered and sorted */
	size_t count;
	struct report_group_row *groups;/* sorted like the processes */
	size_t group_count;
};
int report_view_build(struct report_view *view, const struct model_result *result, const struct report_options *options);
void report_view_free(struct report_view *view);
const char *report_sort_name(enum report_sort sort);
const char *report_group_name(enum report_group group);
/* The captured host's name for the process's real uid, or NULL (no uid, or
 * a snapshot without the users member). */
const char *report_user_name(const struct model_result *result, const struct process *process);
/* The command line, or comm when it is empty (kernel threads, zombies). */
const char *report_command(const struct process *process);

/* Rows in "top" lists. */
size_t report_top(const struct report_options *options);

#endif
