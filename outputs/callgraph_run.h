/*
 * outputs/callgraph_run.h - `ptscope callgraph` from its options to what
 * its writer takes.  The command (builtin/cmd_callgraph.c) fills a struct
 * callgraph_job, callgraph_make analyses and overlays, then one writer:
 * graph_write (graph.h), or the callers or unresolved calls as text.
 */
#ifndef PTSCOPE_OUTPUTS_CALLGRAPH_RUN_H
#define PTSCOPE_OUTPUTS_CALLGRAPH_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "analyzer/analyzer.h"
#include "outputs/graph.h"

struct callgraph_job {
	struct analyzer_options options;        /* the tree, its entries, sinks and excludes settled */
	struct overlay_request overlay;         /* --overlay-events, --overlay-profile, --baseline-profile */
	const char *versus;                     /* --versus OLD_TREE, or NULL */
	const struct analyzer_path *path;       /* --path preset: what it pruned is said */
	bool quiet;                             /* -q: no summary on stderr */
};

/* What callgraph_make analysed, owned until callgraph_made_free. */
struct callgraph_made {
	struct callgraph *graph, *old_graph;
	struct tree_versus versus;
	struct overlay_inputs *inputs;
	struct graph_overlay overlay;
	bool overlaid;                          /* overlay holds something to draw */
	const struct callgraph *drawn;          /* the merged trees with --versus, else graph */
};

/* The overlay read, the tree analysed (the old one with --versus), the
 * overlay placed, the summary said on stderr unless quiet (a cache that
 * could not be made is said even then).  0, or -1 with error set. */
int callgraph_make(struct callgraph_job *job, struct callgraph_made *made, struct error *error);
void callgraph_made_free(struct callgraph_made *made);

/* The analysis in numbers, and what failed, as lines on OUT. */
void callgraph_summary_write(FILE *out, const struct callgraph *graph);
/* --unresolved: "FILE:LINE: CALLER calls through FIELD" a line; --reverse:
 * the callers of the sink as indented text.  To PATH (NULL or "-":
 * stdout), whole or not at all; 0, or -1 with error set. */
int callgraph_write_unresolved(const struct callgraph *graph, const char *path, struct error *error);
int callgraph_write_callers(const struct callgraph *graph, const char *path, struct error *error);

#endif
