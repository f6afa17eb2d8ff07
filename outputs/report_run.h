/*
 * outputs/report_run.h - a report from its snapshots to what its writer
 * takes: the snapshot read (inputs/), the cost model run on it and on
 * --versus's and --filter's (model/), the --callgraph diagrams drawn with
 * that result (report_callgraph.c); or a series' points.  `ptscope report`
 * (builtin/cmd_report.c) parses its options into a struct report_job, asks
 * for one of these and hands the result to report_write.
 */
#ifndef PTSCOPE_OUTPUTS_REPORT_RUN_H
#define PTSCOPE_OUTPUTS_REPORT_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "inputs/snapshot.h"
#include "model/model.h"
#include "outputs/report.h"

enum { REPORT_MOST_SELECTED = 256, REPORT_MOST_DIAGRAMS = 8 };

/* --profile: the designs ('r') and sharing rules ('s') chosen, as indexes
 * into the profile set (pointers only once every file is loaded: loading
 * moves the set). */
struct report_selection {
	char kind[REPORT_MOST_SELECTED];
	size_t index[REPORT_MOST_SELECTED];
	size_t count;
};
/* --profile ID (a design or a rule of SET) or FILE.xml (loaded into SET,
 * every profile of it chosen).  0, or -1 with error set. */
int report_select_profile(struct profile_set *set, struct report_selection *chosen, const char *argument,
			  struct error *error);

/* What a report is made of, as the command line gave it. */
struct report_job {
	struct report_options report;   /* the writer's options; report_make fills its results in */
	struct read_options read;
	struct profile_set set;         /* the built-in profiles and --profile's files */
	struct report_selection chosen;
	const char *versus;             /* --versus BEFORE, or NULL */
	const char *callgraph;          /* --callgraph TREE, or NULL */
	struct report_diagram diagrams[REPORT_MOST_DIAGRAMS];
	size_t diagram_count;
	const struct calibration *calibration;   /* --calibration, or NULL */
};

/* What report_make read and modelled, owned until report_made_free. */
struct report_made {
	struct snapshot *snapshot, *baseline, *subset;
	struct model_result *result, *before, *filtered;
};

/* One snapshot (PATH; NULL: the live system) with --versus's beside it:
 * read (refused when the model would not fit in memory), modelled, the
 * diagrams drawn; job->report then holds what report_write needs beside
 * made->result.  0, or -1 with error set. */
int report_make(struct report_job *job, const char *path, struct report_made *made, struct error *error);
void report_made_free(struct report_job *job, struct report_made *made);

/* A series: each of PATHS read and modelled in turn, its point kept, the
 * rest freed; job->report.series is then the series' tree (report_write
 * writes it; report_series_free puts it).  0, or -1 with error set. */
int report_make_series(struct report_job *job, const char *const *paths, size_t count, struct error *error);
void report_series_free(struct report_job *job);

/* report_write into PATH, written whole as -o does (NULL or "-": stdout):
 * 0, or the status of the failure said (base/output.h's output_write_whole). */
int report_write_path(const char *path, const struct model_result *result, const struct report_options *options);

#endif
