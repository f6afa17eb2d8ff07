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

struct json_object;
struct calibration;
struct analyzer_path;
struct error;

/* report --callgraph TREE: one job's rmap-path diagram (a --path preset). */
struct report_diagram {
	const struct analyzer_path *path;
	char *svg;                      /* an SVG document (report_callgraph_draw), or NULL */
};

enum report_format { REPORT_TEXT, REPORT_XML, REPORT_JSON, REPORT_CSV, REPORT_HTML, REPORT_METRICS };

/* --sort: the process (and group) order. */
enum report_sort { SORT_PAGETABLES, SORT_VMPTE, SORT_RSS, SORT_PSS, SORT_SHARABLE, SORT_PTE_CHAIN,
		   SORT_PID, SORT_COMMAND };

/* --group-by: processes summed by owner, control group or command name. */
enum report_group { GROUP_NONE, GROUP_USER, GROUP_CGROUP, GROUP_COMMAND };

struct report_options {
	enum report_format format;
	bool per_process;               /* a row per process */
	bool per_file;                  /* every contributing file, not the top few */
	size_t top;                     /* rows in "top" lists (0: 5) */
	bool all_designs;               /* text: designs of every architecture, not the snapshot's */
	enum report_group group_by;
	enum report_sort sort;          /* default: pagetables */
	const char *filter;             /* POSIX extended regex on the command line, or NULL */
	bool headline_filtered;         /* --filter scoped the headlines: to filtered, or
					   (filtered NULL) no process matched */
	const struct model_result *filtered; /* --filter: the model of the matching processes
					   alone, whose headlines lead (NULL: the snapshot's) */
	bool top_given;                 /* --top N was given: it limits every format's rows */
	bool sort_given;                /* --sort was given: structured formats follow it too */
	const char *callgraph_tree;     /* html: --callgraph TREE, whose diagrams follow */
	const struct report_diagram *diagrams; /* html: embedded in this order */
	size_t diagram_count;
	const struct model_result *versus; /* --versus BEFORE: compare with it (NULL: no comparison) */
	bool brief;                     /* text: the answer alone, <= 80 columns, about 20 lines */
	struct json_object *series;     /* a series' tree (report_build_series): written instead */
	int width;                      /* text: columns to wrap prose at (COLUMNS); 0: 100 */
	const struct calibration *calibration; /* --calibration: a time section after the text (bench.h) */
	const char *calibration_path;
};

/* "pss" -> SORT_PSS ...; "user" -> GROUP_USER ...; -1 when unknown. */
int report_sort_parse(const char *name, enum report_sort *sort);
int report_group_parse(const char *name, enum report_group *group);
const char *report_sort_names(void);            /* for messages */
/* 0 when REGEX compiles; else -1 and regerror's words in message. */
int report_filter_check(const char *regex, char *message, size_t size);
/* keep[i]: process i of S matches the --filter REGEX (the view's test);
 * how many do. */
size_t report_filter_keep(const struct snapshot *s, const char *regex, bool *keep);

/* "text", "json", ... -> format; -1 when unknown. */
int report_format_parse(const char *name, enum report_format *format);

/* -o FILE's extension (.txt .json .xml .csv .html .prom) -> format: 0; 1 when the
 * name has no extension; -1 when the extension is none of these. */
int report_format_from_path(const char *path, enum report_format *format);

/* A series (report SNAP1 SNAP2 ..., report_series.c): each result's point,
 * taken at once so its snapshot can be freed (json-c objects, the caller
 * puts them), then one tree of the points in capture order, written in
 * FORMAT (openmetrics is refused by the command). */
struct json_object *report_series_point(const struct model_result *result);
struct json_object *report_build_series(struct json_object **points, size_t count);
int report_write_series(FILE *out, struct json_object *tree, enum report_format format);

/* report --callgraph TREE: each diagram's job's rmap paths of TREE, with
 * RESULT's figures on them (the overlay of callgraph --overlay-events),
 * rendered as SVG into diagrams[i].svg (the caller frees).  0, or -1 with
 * error set (the analyzer's bad input or internal failure). */
int report_callgraph_draw(const char *tree, struct report_diagram *diagrams, size_t count,
			  const struct model_result *result, bool progress, struct error *error);

/* Write the report; 0, or -1 with errno set by the failing write. */
int report_write(FILE *out, const struct model_result *result, const struct report_options *options);

/* The two headlines, from the figures the model chose (empty when there is
 * no such figure):
 *   sharing: "shared page tables (shpt-2006) would save 1,773 PTE pages =
 *             6.9 MiB of the 11.3 MiB of page tables"
 *   rmap:    "object rmap (6.1-x86_64) costs 1.2 MiB for these processes;
 *             2.4-rmap-x86_64 pte_chains would cost 13.2 MiB"
 * Where a figure is only bounded (no pagemap) both bounds are given:
 *   "... would save 1,257-2,676 PTE pages = 4.9-10.5 MiB of the 11.3 MiB
 *    of page tables (bounds: no pagemap; page tables: VmPTE)" */
void report_headline(const struct model_result *result, char *buffer, size_t size);
void report_headline_rmap(const struct model_result *result, char *buffer, size_t size);

/* Today's lever, first: "today: /dev/zero (deleted) (550.1 MiB, 38
 * processes) on 2.0 MiB huge pages would free 1,662 PTE pages = 6.5 MiB of
 * the 11.3 MiB of page tables (...)"; empty without a shared segment whose
 * huge pages would free something. */
void report_headline_today(const struct model_result *result, char *buffer, size_t size);
/* Whether a kernel a user can run has the rule: "since 2.6.20" (merged),
 * else "proposal", "bound" or "what-if" (no kernel does it). */
void report_rule_kernel(const struct sharing_rule *rule, char *buffer, size_t size);
/* The two huge page sizes of the result's geometry ("2.0 MiB", "1.0 GiB"). */
void report_huge_page_sizes(const struct model_result *result, char *pmd_size, char *next_size, size_t size);

/* Why rule K of the result saves nothing though it was asked, with counts
 * ("46 eligible VMAs in 11 groups mapped by several processes; every group
 * is mapped at a different address in each process (address-space
 * randomisation); the aligned what-if (aligned-what-if) would share 80
 * pages"); empty when it saves something, is content sharing, or lacks
 * pagemap. */
void report_sharing_reason(const struct model_result *result, size_t k, char *buffer, size_t size);

/* "6.9 MiB", "812.0 KiB", "96 B"; never "-0 B". */
void report_format_bytes(double bytes, char *buffer, size_t size);
/* "4.9-10.5 MiB", "900.0 KiB-1.2 MiB"; one figure when both print alike. */
void report_format_byte_range(double lower, double upper, char *buffer, size_t size);
/* "1,773": thousands separators. */
void report_format_count(uint64_t count, char *buffer, size_t size);
/* "+17.4%", "0.0%" (never "-0.0%"). */
void report_format_percent(double percent, bool sign, char *buffer, size_t size);
/* A value rounded to one decimal, without -0.0 ("17.4", "0"). */
double report_round1(double value);

#endif
