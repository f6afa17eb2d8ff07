/*
 * outputs/report.h - the memory-saving report: text for people, and the same
 * figures as JSON, XML, CSV and a self-contained HTML page.
 *
 * The structured formats are all one tree: report_build() turns a model
 * result into a json-c object, and the XML, CSV and HTML writers walk that
 * tree, so a figure added once appears in every format.
 */
#ifndef PTSCOPE_OUTPUTS_REPORT_H
#define PTSCOPE_OUTPUTS_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "model/model.h"

enum report_format { REPORT_TEXT, REPORT_XML, REPORT_JSON, REPORT_CSV, REPORT_HTML };

struct report_options {
	enum report_format format;
	bool per_process;               /* a row per process */
	bool per_file;                  /* every contributing file, not the top few */
	size_t top;                     /* rows in "top" lists (0: 5) */
};

/* "text", "json", ... -> format; -1 when unknown. */
int report_format_parse(const char *name, enum report_format *format);

/* Write the report; 0, or -1 with errno set by the failing write. */
int report_write(FILE *out, const struct model_result *result, const struct report_options *options);

/* The headline in the 2006 style: "shared page tables would share 1773 PTE
 * pages = 6.9 MiB of 11.3 MiB" (empty when there is no sharing rule). */
void report_headline(const struct model_result *result, char *buffer, size_t size);

/* "6.9 MiB", "812 KiB", "96 B". */
void report_format_bytes(double bytes, char *buffer, size_t size);

#endif
