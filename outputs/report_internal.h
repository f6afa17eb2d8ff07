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
int report_write_xml(FILE *out, struct json_object *tree);
/* CSV: one table with a header row, chosen by the options: a row per design
 * (default), per process (--per-process), per file (--per-file) or per
 * group (--group-by); every row starts with host, kernel and captured_at. */
int report_write_csv(FILE *out, struct json_object *tree, const struct report_options *options);
int report_write_html(FILE *out, struct json_object *tree);

/* TEXT after PREFIX, wrapped at WIDTH columns, continuation lines indented
 * by INDENT spaces (the text report's legends, `ptscope profiles`). */
void report_wrap(FILE *out, const char *prefix, const char *text, int indent, int width);

/* Rows in "top" lists. */
size_t report_top(const struct report_options *options);

#endif
