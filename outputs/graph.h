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

struct model_result;

enum graph_format {
	GRAPH_FORMAT_NONE,
	GRAPH_FORMAT_SVG,
	GRAPH_FORMAT_PNG,
	GRAPH_FORMAT_PDF,
	GRAPH_FORMAT_DOT,
	GRAPH_FORMAT_JSON,
	GRAPH_FORMAT_XML,
	GRAPH_FORMAT_TREE,      /* cflow-style indented text (graph_tree.c) */
	GRAPH_FORMAT_TABLE,     /* two profiles as a perf diff-like table (graph_tree.c) */
};

/* Where a picture is to be read (--page): Graphviz scales the layout down
 * to fit the page's printable area (or the screen's width). */
enum graph_page { GRAPH_PAGE_DEFAULT, GRAPH_PAGE_A4, GRAPH_PAGE_LETTER, GRAPH_PAGE_SCREEN };
struct graph_page_size {
	const char *name;               /* --page NAME */
	enum graph_page page;
	const char *size;               /* Graphviz "size": inches, scaled down to fit */
	const char *landscape_size;     /* turned, for a wide layout; NULL: never turned */
	const char *dpi;                /* for PNG */
};
extern const struct graph_page_size graph_pages[];     /* ends with name NULL */
/* GRAPH_PAGE_DEFAULT when the name is none of graph_pages. */
enum graph_page graph_page_from_name(const char *name);

/* "json", "xml", "dot", "svg", ...; GRAPH_FORMAT_NONE when unknown. */
enum graph_format graph_format_from_name(const char *name);
/* From a file name's extension; GRAPH_FORMAT_NONE when unknown. */
enum graph_format graph_format_from_path(const char *path);

/*
 * What a workload does on the graph (outputs/overlay.c, the overlay's one
 * room).  Events (--overlay-events SNAPSHOT): what forking and exiting every
 * process of the snapshot would cost under one design, on the rmap functions
 * that do the work and on the calls that make them.  Samples
 * (--overlay-profile FILE [--versus BEFORE]): each function's share of a
 * kernel profile, and of a baseline profile.  Everything is resolved against
 * the graph once: one entry per node and per edge, indexed like the graph.
 */
enum overlay_event { OVERLAY_FORK, OVERLAY_EXIT, OVERLAY_FAULT, OVERLAY_MUNMAP, OVERLAY_RECLAIM, OVERLAY_EVENT_COUNT };
/* "fork", "exit", "fault", "munmap", "reclaim" */
extern const char *const overlay_event_names[OVERLAY_EVENT_COUNT];

enum overlay_pricing {
	OVERLAY_NOT_PRICED,             /* not an rmap function of any design's table */
	OVERLAY_PRICED,                 /* the model counts it (count may be 0: untouched) */
	OVERLAY_COUNTED_ELSEWHERE,      /* its figure is written on another function */
	OVERLAY_NOT_MODELLED,           /* an rmap function the model does not price */
};

struct overlay_count {
	unsigned long long count[OVERLAY_EVENT_COUNT];
	bool has[OVERLAY_EVENT_COUNT];
	const char *unit;               /* "PTEs", "VMAs", "pte_chains" */
};

struct overlay_share {
	bool present;
	double percent;
	bool has_samples;
	unsigned long long samples;
};

/* Two profiles compared as posted: shares of all samples (percentage
 * points), or raw counts (a ratio) when neither listing has a total or when
 * asked (--compare).  A function a listing does not name had less than the
 * listing's smallest entry: the change is then a bound, not a figure. */
enum overlay_compare { OVERLAY_COMPARE_AUTO, OVERLAY_COMPARE_SHARES, OVERLAY_COMPARE_COUNTS };
extern const char *const overlay_compare_names[];   /* "", "shares", "counts", NULL */

enum overlay_bound { OVERLAY_EXACT, OVERLAY_AT_LEAST, OVERLAY_AT_MOST };

struct overlay_change {
	bool known;                     /* listed in at least one of the two */
	double points;                  /* after - before, percentage points */
	double ratio;                   /* after / before, counts (0: not computable) */
	enum overlay_bound bound;       /* what the figures are when one side is a cut-off */
};

/* callgraph NEW --versus OLD: where a function or call is */
enum overlay_only_in { OVERLAY_IN_BOTH, OVERLAY_ONLY_NEW, OVERLAY_ONLY_OLD };
extern const char *const overlay_only_in_names[3];   /* "", "new", "old" */

/* Two profiles that list one piece of work under different names (the era
 * rename table, model/profiles/40-renames.xml): each listing's names summed
 * and compared on one function, `on`. */
struct overlay_join {
	char work[64], description[256];        /* the table's id and words */
	char on[64];                            /* the name the sums are placed under */
	char before[256], after[256];           /* the names each listing gave, "a+b" */
};

struct overlay_node {
	enum overlay_only_in only_in;
	const struct overlay_join *join;        /* its figures are a join's sums */
	struct overlay_count events;
	enum overlay_pricing pricing;
	const char *counted_on;         /* OVERLAY_COUNTED_ELSEWHERE: where */
	struct overlay_share share, baseline;
	struct overlay_change change;   /* with a baseline profile */
};

struct overlay_edge {
	enum overlay_only_in only_in;
	struct overlay_count events;
	unsigned long long call_samples;   /* samples whose call chain holds this call */
	double call_percent;               /* the same as a share of all samples */
	bool has_call_samples;             /* a call chain holds it (call_percent known) */
	bool call_counted;                 /* call_samples known (perf script) */
};

struct overlay_unplaced {
	const char *symbol;
	struct overlay_share share, baseline;
};

struct graph_overlay {
	char title[1024];               /* what the counts and shades are of */
	bool has_events, has_samples, has_baseline, has_trees;
	struct overlay_node *nodes;     /* graph->node_count of them */
	struct overlay_edge *edges;     /* graph->edge_count */
	unsigned long long largest_edge_count;
	double hottest_percent, largest_change;   /* for the colour scales (points, or |log2 ratio|) */
	bool compare_counts;            /* the baseline comparison is of counts, not shares */
	const char *compare_why;        /* "asked", "neither listing has a total", ... */
	struct overlay_share after_floor, before_floor;   /* each listing's smallest entry */
	struct overlay_unplaced *unplaced;        /* profile symbols not in the graph, largest first */
	size_t unplaced_count;
	struct overlay_join *joins;     /* renamed work the two profiles were compared on */
	size_t join_count;
	void *owned;                    /* private: the profiles' and the model's memory */
};

/* What the overlay is made of (callgraph's options). */
struct overlay_request {
	const char *snapshot;           /* --overlay-events */
	const struct model_result *result; /* instead of snapshot: a model already run on one
	                                   (report --callgraph); its design of the tree's era
	                                   is used when it has it, else the model runs again
	                                   on its snapshot, in memory */
	const char *design;             /* --design; NULL: the tree's era (profiles_fit) */
	const char *profile;            /* --overlay-profile */
	const char *baseline_profile;   /* --versus with --overlay-profile */
	bool progress;
	enum overlay_compare compare;   /* --compare */
	bool by_name;                   /* --no-renames: never join the era rename table's names */
};

/* Read and check the overlay's inputs before the (long) analysis, so bad
 * input fails at once; then place it on the analysed graph.  Both return 0,
 * or -1 with error set (its status: bad input or internal). */
struct overlay_inputs;
int overlay_prepare(const struct overlay_request *request, struct overlay_inputs **inputs,
		    struct error *error);
int overlay_place(struct overlay_inputs *inputs, const struct callgraph *graph,
		  struct graph_overlay *overlay, struct error *error);
/* The change from before to after (either may be absent: its listing's
 * cut-off stands in, as a bound). */
void overlay_change_of(const struct graph_overlay *overlay, const struct overlay_share *after,
		       const struct overlay_share *before, struct overlay_change *change);
/* One listing's figure for a node as text: "12.3%", "1,983", or the
 * listing's cut-off "< 0.82%" / "< 52" when it does not list the function
 * (baseline: the BEFORE listing); "" when the overlay has no such listing. */
void overlay_side_text(const struct graph_overlay *overlay, const struct overlay_share *share, bool baseline,
		       char *text, size_t size);
/* The change as text: "+7.8" points, or "x0.13 -13,542" for counts, with
 * ">" / "<" when one side is a cut-off; "" when nothing is known. */
void overlay_change_text(const struct graph_overlay *overlay, const struct overlay_change *change,
			 char *text, size_t size);
/* Where a change falls on the diverging colour scale, -1 (largest fall) to
 * 1 (largest rise); 0 when unknown. */
double overlay_change_scale(const struct graph_overlay *overlay, const struct overlay_change *change);
/* Two trees, two profiles: after tree_versus_mark, the AFTER profile stays
 * only on NEW's functions and the BEFORE one only on OLD's, and the changes
 * are worked out again. */
void overlay_profiles_on_trees(const struct callgraph *graph, struct graph_overlay *overlay);
/* The samples on a call as text: "3 samples" (perf script) or "1.25% of
 * samples" (perf report -g); "" when no chain holds it. */
void overlay_call_text(const struct overlay_edge *edge, char *text, size_t size);
/* The unplaced symbols as one stderr line ("" when none). */
void overlay_unplaced_summary(const struct graph_overlay *overlay, char *text, size_t size);
void overlay_inputs_free(struct overlay_inputs *inputs);

/* Two trees' graphs as one (outputs/overlay_trees.c): NEW's functions and
 * calls plus OLD's others, sorted by file; the graph's strings are the two
 * graphs', which must outlive it.  tree_versus_mark writes only_in on an
 * overlay placed on versus->graph. */
struct tree_versus {
	struct callgraph *graph;
	enum overlay_only_in *node_only_in, *edge_only_in;
	size_t only_new_nodes, only_old_nodes, only_new_edges, only_old_edges;
	const char *new_release, *old_release, *old_source;
	char **old_ids;                 /* "old:USR" of the functions only OLD has */
	size_t old_id_count;
};
void tree_versus_build(const struct callgraph *new_graph, const struct callgraph *old_graph,
		       struct tree_versus *versus);
void tree_versus_mark(const struct tree_versus *versus, struct graph_overlay *overlay);
void tree_versus_free(struct tree_versus *versus);
void graph_overlay_free(struct graph_overlay *overlay);

/*
 * Write the graph to path (NULL or "-": stdout).  Files are written to a
 * temporary name in the same folder and renamed, so a failure never leaves
 * a partial file.  Returns 0, or -1 with error set (internal: an output failure).
 */
int graph_write(const struct callgraph *graph, const struct graph_overlay *overlay,
		enum graph_format format, enum graph_page page, const char *path, struct error *error);

/* The pieces graph_write uses, one per format family (graph_data.c, graph.c). */
bool graph_write_json(const struct callgraph *graph, const struct graph_overlay *overlay, FILE *out);
bool graph_write_xml(const struct callgraph *graph, const struct graph_overlay *overlay, FILE *out);
bool graph_write_tree(const struct callgraph *graph, const struct graph_overlay *overlay, FILE *out);
/* --format table: each profiled function's figure before and after, the
 * change, the ratio and whether it is on the graph, largest first, in the
 * columns of perf diff (overlay with samples required). */
bool graph_write_table(const struct callgraph *graph, const struct graph_overlay *overlay, FILE *out);
/* callgraph --reverse: the same text turned over, from each sink to the
 * functions that call it, and theirs (cflow -r). */
bool graph_write_callers(const struct callgraph *graph, FILE *out);
/* On: while Graphviz lays out a picture (seconds to minutes for a whole
 * tree), stderr says so every second once two have passed. */
void graph_set_progress(bool on);
/* renderer "dot" writes the unlaid DOT; "svg", "png", "pdf" lay out with dot. */
bool graph_write_picture(const struct callgraph *graph, const struct graph_overlay *overlay,
			 const char *renderer, enum graph_page page, FILE *out, struct error *error);
const char *graph_role_name(enum cg_role role);
const char *graph_kind_name(enum cg_edge_kind kind);

#endif
