/*
 * outputs/graph.h - call-graph writers: Graphviz pictures (through cgraph
 * and gvc), DOT, JSON (json-c) and XML (libxml2).
 */
#ifndef PTSCOPE_OUTPUTS_GRAPH_H
#define PTSCOPE_OUTPUTS_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analyzer/analyzer.h"

enum graph_format {
	GRAPH_FORMAT_NONE,
	GRAPH_FORMAT_SVG,
	GRAPH_FORMAT_PNG,
	GRAPH_FORMAT_PDF,
	GRAPH_FORMAT_DOT,
	GRAPH_FORMAT_JSON,
	GRAPH_FORMAT_XML,
};

/* "json", "xml", "dot", "svg", ...; GRAPH_FORMAT_NONE when unknown. */
enum graph_format graph_format_from_name(const char *name);
/* From a file name's extension; GRAPH_FORMAT_NONE when unknown. */
enum graph_format graph_format_from_path(const char *path);

/*
 * What a workload does on the graph.  Events (callgraph --overlay-events):
 * what forking and exiting every process of a snapshot would cost under one
 * design, written on the rmap functions that do the work; with events, the
 * sinks they do not name are drawn grey.  Samples (--overlay-profile): each
 * function's share of a kernel profile, written on it and shaded by it.
 */
struct graph_event {
	const char *function;           /* "page_remove_rmap" */
	const char *event;              /* "exit" */
	unsigned long long count;
};
struct graph_sample {
	const char *function;
	double percent;
};
struct graph_overlay {
	const char *title;              /* what the counts are of */
	const struct graph_event *events;
	size_t event_count;
	const struct graph_sample *samples;
	size_t sample_count;
};

/*
 * Write the graph to path (NULL or "-": stdout).  Files are written to a
 * temporary name in the same folder and renamed, so a failure never leaves
 * a partial file.  Returns 0, or 2 with a message in err.
 */
int graph_write(const struct callgraph *graph, const struct graph_overlay *overlay,
		enum graph_format format, const char *path, char *err, size_t err_size);

/* The pieces graph_write uses, one per format family (graph_data.c, graph.c). */
bool graph_write_json(const struct callgraph *graph, const struct graph_overlay *overlay, FILE *out);
bool graph_write_xml(const struct callgraph *graph, const struct graph_overlay *overlay, FILE *out);
/* renderer "dot" writes the unlaid DOT; "svg", "png", "pdf" lay out with dot. */
bool graph_write_picture(const struct callgraph *graph, const struct graph_overlay *overlay,
			 const char *renderer, FILE *out, char *err, size_t err_size);
/* Index of the overlay's first event for function at or after from, or -1
 * (also for a NULL overlay). */
long graph_overlay_next(const struct graph_overlay *overlay, const char *function, size_t from);
/* A function's share of the overlay's profile samples; negative when none. */
double graph_overlay_percent(const struct graph_overlay *overlay, const char *function);
const char *graph_role_name(enum cg_role role);
const char *graph_kind_name(enum cg_edge_kind kind);

#endif
