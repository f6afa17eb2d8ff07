/*
 * outputs/graph.c - the call graph as a picture, through Graphviz's own
 * libraries: cgraph builds the graph, gvc lays it out with dot and renders
 * it.  Nothing shells out to the dot program.
 *
 * Readability rules: one cluster per source file, left-to-right ranks,
 * entries (where mm work starts) blue boxes, sinks (rmap functions) red
 * ellipses, calls through a function pointer dashed and labelled with the
 * field.  Several call sites between the same two functions are one arrow.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <gvc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/escape.h"
#include "base/output.h"
#include "outputs/graph.h"

/* Each format's name (--format and the file extension) and its Graphviz
 * renderer (NULL for the data formats), beside enum graph_format. */
static const struct format_row {
	const char *name;
	const char *renderer;
} formats[] = {
	[GRAPH_FORMAT_NONE] = { NULL, NULL },
	[GRAPH_FORMAT_SVG] = { "svg", "svg" },
	[GRAPH_FORMAT_PNG] = { "png", "png" },
	[GRAPH_FORMAT_PDF] = { "pdf", "pdf" },
	[GRAPH_FORMAT_DOT] = { "dot", "dot" },
	[GRAPH_FORMAT_JSON] = { "json", NULL },
	[GRAPH_FORMAT_XML] = { "xml", NULL },
	[GRAPH_FORMAT_TREE] = { "tree", NULL },
	[GRAPH_FORMAT_TABLE] = { "table", NULL },
};
#define FORMAT_COUNT (sizeof(formats) / sizeof(formats[0]))

/* Other names of the same formats: the extensions Graphviz and text files also use. */
static const struct {
	const char *name;
	enum graph_format format;
} format_aliases[] = { { "gv", GRAPH_FORMAT_DOT }, { "txt", GRAPH_FORMAT_TREE } };

enum graph_format graph_format_from_name(const char *name)
{
	for (size_t i = GRAPH_FORMAT_NONE + 1; name && i < FORMAT_COUNT; i++)
		if (!strcmp(formats[i].name, name))
			return (enum graph_format)i;
	for (size_t i = 0; name && i < sizeof(format_aliases) / sizeof(format_aliases[0]); i++)
		if (!strcmp(format_aliases[i].name, name))
			return format_aliases[i].format;
	return GRAPH_FORMAT_NONE;
}

enum graph_format graph_format_from_path(const char *path)
{
	const char *dot = path ? strrchr(path, '.') : NULL;
	if (!dot || strchr(dot, '/'))
		return GRAPH_FORMAT_NONE;
	return graph_format_from_name(dot + 1);
}

/* A4 (8.27 x 11.69 in) and Letter (8.5 x 11 in) less the half-inch margin
 * Graphviz puts around a PDF on each side; a screen 1920 pixels wide at
 * 96 dpi (20 in), as tall as it needs.  A layout wider than tall is turned
 * to landscape on a page. */
const struct graph_page_size graph_pages[] = {
	{ "a4", GRAPH_PAGE_A4, "7.27,10.69", "10.69,7.27", "150" },
	{ "letter", GRAPH_PAGE_LETTER, "7.5,10", "10,7.5", "150" },
	{ "screen", GRAPH_PAGE_SCREEN, "20,1000", NULL, "96" },
	{ NULL, GRAPH_PAGE_DEFAULT, NULL, NULL, NULL },
};

enum graph_page graph_page_from_name(const char *name)
{
	for (const struct graph_page_size *p = graph_pages; name && p->name; p++)
		if (!strcmp(p->name, name))
			return p->page;
	return GRAPH_PAGE_DEFAULT;
}

/* A PDF is printed (A4 unless told), a PNG looked at on a screen; SVG and
 * DOT keep their natural size unless a page is asked for. */
static const struct graph_page_size *page_for(enum graph_page page, const char *renderer)
{
	if (page == GRAPH_PAGE_DEFAULT)
		page = !strcmp(renderer, "pdf") ? GRAPH_PAGE_A4 : !strcmp(renderer, "png") ? GRAPH_PAGE_SCREEN
		       : GRAPH_PAGE_DEFAULT;
	for (const struct graph_page_size *p = graph_pages; p->name; p++)
		if (p->page == page)
			return p;
	return NULL;
}

static const struct format_row *row_of(enum graph_format format)
{
	return format > GRAPH_FORMAT_NONE && (size_t)format < FORMAT_COUNT ? &formats[format] : NULL;
}

/* --- building the cgraph graph ------------------------------------------- */

struct style {
	const char *shape, *fill, *pen;
};

static const struct style role_styles[] = {
	[CG_ROLE_OTHER] = { "box", "#eeeeee", "1" },
	[CG_ROLE_PATH] = { "box", "#ffffff", "1" },
	[CG_ROLE_ENTRY] = { "box", "#cfe2ff", "2" },
	[CG_ROLE_SINK] = { "ellipse", "#ffd2c8", "2" },
};

/* Labels and tooltips hold file names from the tree: valid UTF-8 without the
 * characters XML forbids, so the SVG Graphviz writes stays well-formed
 * (Graphviz escapes markup itself; base/escape.h). */
static void set(void *object, const char *name, const char *value)
{
	char *clean = escape_alloc(escape_xml_chars, value);
	agsafeset(object, (char *)name, clean, (char *)"");
	free(clean);
}

/* The cluster of node `node`'s file.  Nodes are sorted by file and come
 * in order, so the previous node's cluster is reused while the file stays
 * the same (one comparison a node, not a walk back over its file's nodes);
 * the first node of a file names its cluster. */
static Agraph_t *cluster_for(Agraph_t *graph, Agraph_t **clusters, const struct callgraph *cg,
			     size_t node)
{
	if (node > 0 && clusters[node - 1] && !strcmp(cg->nodes[node - 1].file, cg->nodes[node].file))
		return clusters[node] = clusters[node - 1];
	char name[64];
	snprintf(name, sizeof(name), "cluster_%zu", node);
	Agraph_t *cluster = clusters[node] = agsubg(graph, name, 1);
	set(cluster, "label", cg->nodes[node].file);
	set(cluster, "style", "rounded,filled");
	set(cluster, "fillcolor", "#f7f7f2");
	set(cluster, "color", "#b0b0a8");
	set(cluster, "fontname", "Helvetica-Bold");
	set(cluster, "fontsize", "12");
	return cluster;
}

/* 30109 -> "30,109": counts of this size are read at a glance with separators. */
static void grouped(unsigned long long value, char *text, size_t size)
{
	char digits[32];
	int length = snprintf(digits, sizeof(digits), "%llu", value), out = 0;
	for (int i = 0; i < length && (size_t)out + 2 < size; i++) {
		if (i && (length - i) % 3 == 0)
			text[out++] = ',';
		text[out++] = digits[i];
	}
	text[out] = '\0';
}

static size_t append(char *label, size_t size, size_t used, const char *format, ...)
	__attribute__((format(printf, 4, 5)));
static size_t append(char *label, size_t size, size_t used, const char *format, ...)
{
	if (used >= size)
		return used;
	va_list arguments;
	va_start(arguments, format);
	int n = vsnprintf(label + used, size - used, format, arguments);
	va_end(arguments);
	return n < 0 ? used : used + (size_t)n;
}

static size_t event_lines(const struct overlay_count *events, char *label, size_t size, size_t used)
{
	for (int ev = 0; ev < OVERLAY_EVENT_COUNT; ev++) {
		char count[40];
		if (!events->has[ev])
			continue;
		grouped(events->count[ev], count, sizeof(count));
		used = append(label, size, used, "%s%s: %s %s", used ? "\n" : "", overlay_event_names[ev], count,
			      events->unit);
	}
	return used;
}

/* "12.3% of samples", or with a baseline "12.3% (was < 0.82%, >+11.5)" or,
 * counts compared, "1,983 (was 15,525, x0.13 -13,542)" */
static size_t share_lines(const struct graph_overlay *overlay, const struct overlay_node *node, char *label,
			  size_t size, size_t used)
{
	if (!overlay->has_baseline && node->share.present)
		return append(label, size, used, "\n%.1f%% of samples", node->share.percent);
	if (!overlay->has_baseline || (!node->share.present && !node->baseline.present))
		return used;
	char after[48], before[48], change[64];
	overlay_side_text(overlay, &node->share, false, after, sizeof(after));
	overlay_side_text(overlay, &node->baseline, true, before, sizeof(before));
	overlay_change_text(overlay, &node->change, change, sizeof(change));
	used = append(label, size, used, "\n%s (was %s%s%s)", after, before, change[0] ? ", " : "", change);
	if (node->join)   /* the sums of two eras' names: say which */
		used = append(label, size, used, "\n(joined: was %s, now %s)", node->join->before, node->join->after);
	return used;
}

/* A function's label: its name, its shares and what the model counts on it. */
static void node_label(const struct graph_overlay *overlay, size_t index, const char *name, char *label,
		       size_t size)
{
	size_t used = (size_t)snprintf(label, size, "%s", name);
	if (!overlay)
		return;
	const struct overlay_node *node = &overlay->nodes[index];
	used = share_lines(overlay, node, label, size, used);
	if (node->pricing == OVERLAY_NOT_MODELLED)
		append(label, size, used, "\n(not modelled)");
	else if (node->pricing == OVERLAY_COUNTED_ELSEWHERE)
		append(label, size, used, "\n(counted on %s)", node->counted_on);
	else
		event_lines(&node->events, label, size, used);
}

/* Shade by share against the hottest symbol, or colour the change on a
 * diverging scale: red where the function gained share, blue where it lost. */
static void sample_shade(const struct graph_overlay *overlay, size_t index, Agnode_t *node)
{
	const struct overlay_node *o = &overlay->nodes[index];
	char colour[32];
	if (overlay->has_baseline) {
		if (!o->change.known)
			return;
		double t = overlay_change_scale(overlay, &o->change);
		snprintf(colour, sizeof(colour), "%.3f %.3f 1.0", t >= 0 ? 0.0 : 0.6, 0.05 + 0.8 * fabs(t));
	} else {
		if (!o->share.present)
			return;
		double hottest = overlay->hottest_percent;
		snprintf(colour, sizeof(colour), "0.0 %.3f 1.0", hottest > 0 ? 0.1 + 0.8 * o->share.percent / hottest : 0.1);
	}
	set(node, "fillcolor", colour);
}

/* With events: rmap functions priced at 0 are untouched (grey); those no
 * design prices are "not modelled" (white, dotted). */
static void pricing_style(const struct graph_overlay *overlay, size_t index, Agnode_t *node)
{
	const struct overlay_node *o = &overlay->nodes[index];
	bool touched = false;
	for (int ev = 0; ev < OVERLAY_EVENT_COUNT; ev++)
		touched |= o->events.count[ev] != 0;
	if (o->pricing == OVERLAY_NOT_MODELLED) {
		set(node, "fillcolor", "#ffffff");
		set(node, "style", "filled,dotted");
		set(node, "color", "#888888");
	} else if (o->pricing == OVERLAY_PRICED && !touched) {
		set(node, "fillcolor", "#eeeeee");
		set(node, "fontcolor", "#999999");
		set(node, "color", "#bbbbbb");
	}
}

/* Two trees: functions only the new one has green, only the old one orange
 * and dashed. */
static const struct { const char *fill, *pen, *style; } only_in_styles[] = {
	[OVERLAY_ONLY_NEW] = { "#c8ecc8", "#2e7d32", "filled" },
	[OVERLAY_ONLY_OLD] = { "#fde7c0", "#d98c00", "filled,dashed" },
};

static void tree_style(const struct graph_overlay *overlay, size_t index, Agnode_t *node)
{
	enum overlay_only_in where = overlay->nodes[index].only_in;
	if (where == OVERLAY_IN_BOTH)
		return;
	set(node, "fillcolor", only_in_styles[where].fill);
	set(node, "color", only_in_styles[where].pen);
	set(node, "style", only_in_styles[where].style);
	set(node, "penwidth", "2");
}

static void add_nodes(Agraph_t *graph, const struct callgraph *cg, const struct graph_overlay *overlay,
		      Agnode_t **nodes)
{
	Agraph_t **clusters = xcalloc(cg->node_count + 1, sizeof(Agraph_t *));
	for (size_t i = 0; i < cg->node_count; i++) {
		const struct cg_node *node = &cg->nodes[i];
		Agraph_t *home = node->file[0] ? cluster_for(graph, clusters, cg, i) : graph;
		nodes[i] = agnode(home, (char *)node->id, 1);
		const struct style *style = &role_styles[node->role];
		char tooltip[512];
		snprintf(tooltip, sizeof(tooltip), "%s:%u", node->file, node->line);
		char label[512];
		node_label(overlay, i, node->name, label, sizeof(label));
		set(nodes[i], "label", label);
		set(nodes[i], "shape", style->shape);
		set(nodes[i], "fillcolor", style->fill);
		set(nodes[i], "penwidth", style->pen);
		set(nodes[i], "tooltip", tooltip);
		if (!node->defined)
			set(nodes[i], "style", "filled,dashed");
		if (overlay && overlay->has_trees)
			tree_style(overlay, i, nodes[i]);
		if (overlay && overlay->has_events)
			pricing_style(overlay, i, nodes[i]);
		if (overlay && overlay->has_samples)
			sample_shade(overlay, i, nodes[i]);
	}
	free(clusters);
}

/* A call the model counts: its count and unit written on it, width by count. */
static void edge_events(const struct graph_overlay *overlay, size_t index, Agedge_t *arrow)
{
	const struct overlay_count *events = &overlay->edges[index].events;
	if (!events->has[OVERLAY_FORK] && !events->has[OVERLAY_EXIT])
		return;
	char label[160], width[16];
	event_lines(events, label, sizeof(label), 0);
	unsigned long long count = events->count[OVERLAY_FORK] + events->count[OVERLAY_EXIT];
	double largest = (double)overlay->largest_edge_count;
	snprintf(width, sizeof(width), "%.2f", largest > 0 ? 1.0 + 5.0 * log1p((double)count) / log1p(largest) : 1.0);
	set(arrow, "label", label);
	set(arrow, "penwidth", width);
	set(arrow, "color", "#1f6f3f");
	set(arrow, "fontcolor", "#1f6f3f");
}

static void add_edges(Agraph_t *graph, const struct callgraph *cg, const struct graph_overlay *overlay,
		      Agnode_t **nodes)
{
	for (size_t i = 0; i < cg->edge_count; i++) {
		const struct cg_edge *edge = &cg->edges[i];
		bool indirect = edge->kind == CG_EDGE_INDIRECT;
		char key[32];
		snprintf(key, sizeof(key), "%c", indirect ? 'i' : 'd');
		/* one arrow per caller, callee and kind: the name makes agedge reuse it */
		Agedge_t *arrow = agedge(graph, nodes[edge->from], nodes[edge->to], key, 0);
		if (arrow) {
			if (overlay && overlay->has_events)
				edge_events(overlay, i, arrow);
			continue;
		}
		arrow = agedge(graph, nodes[edge->from], nodes[edge->to], key, 1);
		char tooltip[256];
		snprintf(tooltip, sizeof(tooltip), "%s -> %s, line %u", cg->nodes[edge->from].name,
			 cg->nodes[edge->to].name, edge->line);
		set(arrow, "tooltip", tooltip);
		if (indirect) {
			const char *field = edge->field ? strrchr(edge->field, '.') : NULL;
			set(arrow, "style", "dashed");
			set(arrow, "color", "#c0392b");
			set(arrow, "fontcolor", "#c0392b");
			set(arrow, "label", field ? field + 1 : edge->field ? edge->field : "");
		}
		if (overlay && overlay->has_trees && overlay->edges[i].only_in != OVERLAY_IN_BOTH) {
			enum overlay_only_in where = overlay->edges[i].only_in;
			set(arrow, "color", only_in_styles[where].pen);
			set(arrow, "penwidth", "2");
			if (where == OVERLAY_ONLY_OLD)   /* dotted: dashed already means a pointer call */
				set(arrow, "style", "dotted");
		}
		if (overlay && overlay->has_events)
			edge_events(overlay, i, arrow);
		if (overlay && overlay->edges[i].has_call_samples) {
			/* the samples whose chains hold the call: beside the arrow */
			char label[48];
			overlay_call_text(&overlay->edges[i], label, sizeof(label));
			set(arrow, "xlabel", label);
		}
	}
}

/* The diverging scale's legend: five swatches from the largest loss of share
 * to the largest gain, in a row of their own. */
static void add_legend(Agraph_t *graph, const struct graph_overlay *overlay)
{
	Agraph_t *legend = agsubg(graph, (char *)"cluster_legend", 1);
	set(legend, "label", overlay->compare_counts ? "ratio of samples, after / before (counts compared)"
						     : "change in share of samples (percentage points; shares compared)");
	set(legend, "style", "rounded");
	set(legend, "color", "#b0b0a8");
	set(legend, "rank", "same");
	Agnode_t *previous = NULL;
	for (int step = -2; step <= 2; step++) {
		char name[32], label[32], colour[32];
		double t = step / 2.0;
		snprintf(name, sizeof(name), "legend_%d", step + 2);
		if (overlay->compare_counts)
			snprintf(label, sizeof(label), "x%.2f", exp2(t * overlay->largest_change));
		else
			snprintf(label, sizeof(label), "%+.1f", t * overlay->largest_change);
		snprintf(colour, sizeof(colour), "%.3f %.3f 1.0", t >= 0 ? 0.0 : 0.6, 0.05 + 0.8 * fabs(t));
		Agnode_t *swatch = agnode(legend, name, 1);
		set(swatch, "label", label);
		set(swatch, "shape", "box");
		set(swatch, "fillcolor", colour);
		if (previous)
			set(agedge(legend, previous, swatch, NULL, 1), "style", "invis");
		previous = swatch;
	}
}

/*
 * cgraph names an object by the address of its interned name (the default id
 * discipline) and writes subgraphs in the order of those ids, so the order of
 * the clusters in dot, SVG and HTML followed malloc: two runs of one graph
 * differed now and then (threads, allocator).  This discipline gives each
 * cluster name a small even id in the order the clusters are made and leaves
 * every other name to the default, whose ids are heap addresses (far above
 * these) or odd counters (anonymous objects).  Names are interned with
 * agstrdup, as the writer expects of every name (it reads agstrdup's header
 * to tell an HTML-like string).
 */
#define CLUSTER_IDS_MOST 32768

struct cluster_ids {
	Agraph_t *graph;        /* the root graph, whose strings the names are */
	void *default_state;    /* AgIdDisc's own state */
	char *names[CLUSTER_IDS_MOST];
	size_t count;
};

static bool is_cluster_id(IDTYPE id)
{
	return id % 2 == 0 && id >= 2 && id <= 2 * (IDTYPE)CLUSTER_IDS_MOST;
}

static void *cluster_ids_open(Agraph_t *graph, Agdisc_t *disc)
{
	struct cluster_ids *ids = xcalloc(1, sizeof(*ids));
	ids->graph = graph;
	ids->default_state = AgIdDisc.open(graph, disc);
	return ids;
}

static long cluster_ids_map(void *state, int objtype, char *name, IDTYPE *id, int create)
{
	struct cluster_ids *ids = state;
	if (objtype != AGRAPH || !name || strncmp(name, "cluster", 7))
		return AgIdDisc.map(ids->default_state, objtype, name, id, create);
	for (size_t i = 0; i < ids->count; i++)
		if (ids->names[i] && !strcmp(ids->names[i], name))
			return *id = 2 * (IDTYPE)(i + 1), 1;
	if (!create || ids->count == CLUSTER_IDS_MOST)
		return AgIdDisc.map(ids->default_state, objtype, name, id, create);
	ids->names[ids->count++] = agstrdup(ids->graph, name);
	*id = 2 * (IDTYPE)ids->count;
	return 1;
}

static long cluster_ids_alloc(void *state, int objtype, IDTYPE id)
{
	struct cluster_ids *ids = state;
	return is_cluster_id(id) ? 1 : AgIdDisc.alloc(ids->default_state, objtype, id);
}

static void cluster_ids_free(void *state, int objtype, IDTYPE id)
{
	struct cluster_ids *ids = state;
	if (!is_cluster_id(id))
		AgIdDisc.free(ids->default_state, objtype, id);
	else if (id / 2 <= ids->count && ids->names[id / 2 - 1]) {
		agstrfree(ids->graph, ids->names[id / 2 - 1]);
		ids->names[id / 2 - 1] = NULL;
	}
}

static char *cluster_ids_print(void *state, int objtype, IDTYPE id)
{
	struct cluster_ids *ids = state;
	if (is_cluster_id(id) && id / 2 <= ids->count)
		return ids->names[id / 2 - 1];
	return AgIdDisc.print(ids->default_state, objtype, id);
}

static void cluster_ids_close(void *state)
{
	struct cluster_ids *ids = state;
	AgIdDisc.close(ids->default_state);
	free(ids);  /* the names went with their subgraphs (free above) or with the graph's strings */
}

static void cluster_ids_register(void *state, int objtype, void *object)
{
	struct cluster_ids *ids = state;
	AgIdDisc.idregister(ids->default_state, objtype, object);
}

static Agiddisc_t cluster_id_discipline = {
	cluster_ids_open, cluster_ids_map, cluster_ids_alloc, cluster_ids_free,
	cluster_ids_print, cluster_ids_close, cluster_ids_register,
};
static Agdisc_t graph_discipline = { &AgMemDisc, &cluster_id_discipline, &AgIoDisc };

/* Default attributes of one kind: name, value, name, value, ..., NULL. */
static void set_defaults(Agraph_t *graph, int kind, const char *const *pairs)
{
	for (; *pairs; pairs += 2)
		agattr(graph, kind, (char *)pairs[0], (char *)pairs[1]);
}

static Agraph_t *build(const struct callgraph *cg, const struct graph_overlay *overlay)
{
	Agraph_t *graph = agopen((char *)"callgraph", Agdirected, &graph_discipline);
	/* call chains are long (fork: eleven calls down to the rmap): laid out
	 * top to bottom they fold into a page instead of a banner (rankdir TB);
	 * newrank ranks across clusters: without it dot 2.42 loses edges between
	 * clusters of a large graph ("lost ... edge") and then frees twice */
	static const char *const graph_defaults[] = { "rankdir", "TB", "fontname", "Helvetica", "ranksep", "0.6",
						      "nodesep", "0.15", "newrank", "true", NULL };
	static const char *const node_defaults[] = { "fontname", "Helvetica", "fontsize", "11", "style", "filled",
						     "height", "0.3", NULL };
	static const char *const edge_defaults[] = { "color", "#555555", "arrowsize", "0.6", "fontname", "Helvetica",
						     "fontsize", "9", NULL };
	set_defaults(graph, AGRAPH, graph_defaults);
	set_defaults(graph, AGNODE, node_defaults);
	set_defaults(graph, AGEDGE, edge_defaults);
	char label[2048];
	const char *source = cg->summary.source ? cg->summary.source : "the source";
	size_t length = strlen(source);
	while (length > 1 && source[length - 1] == '/')
		length--;
	const char *base = source + length;
	while (base > source && base[-1] != '/')
		base--;
	snprintf(label, sizeof(label),
		 "rmap paths in %.*s: %zu functions, %zu calls\n"
		 "blue box: entry (fork, fault, exit, munmap, mremap, exec, reclaim)   "
		 "red ellipse: rmap function   dashed red: call through a function pointer",
		 (int)(source + length - base), base, cg->node_count, cg->edge_count);
	if (overlay) {
		size_t used = strlen(label);
		snprintf(label + used, sizeof(label) - used, "\n%s%s", overlay->title, overlay->has_events
			 ? "\ngreen arrow: the call that does the counted work, width by count   grey: rmap function the "
			   "workload does not touch   dotted: rmap function the model does not price" : "");
	}
	set(graph, "label", label);
	set(graph, "labelloc", "t");
	Agnode_t **nodes = xcalloc(cg->node_count + 1, sizeof(Agnode_t *));
	add_nodes(graph, cg, overlay, nodes);
	add_edges(graph, cg, overlay, nodes);
	if (overlay && overlay->has_baseline)
		add_legend(graph, overlay);
	free(nodes);
	return graph;
}

/* The laid-out bounding box (points) is wider than tall. */
static bool wider_than_tall(Agraph_t *graph)
{
	boxf bb = GD_bb(graph);
	return bb.UR.x - bb.LL.x > bb.UR.y - bb.LL.y;
}

/* ---- progress while Graphviz lays out: gvLayout has no callback, so a
 * thread says the seconds spent every second once two have passed ---- */

static bool layout_progress;

void graph_set_progress(bool on)
{
	layout_progress = on;
}

struct layout_clock {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t done_signal;
	bool done, started, said;
	int nodes, edges;
};

static void *layout_clock_run(void *argument)
{
	struct layout_clock *clock = argument;
	struct timespec start, until;
	clock_gettime(CLOCK_REALTIME, &start);
	pthread_mutex_lock(&clock->lock);
	for (long seconds = 1; !clock->done; seconds++) {
		until = start;
		until.tv_sec += seconds;
		while (!clock->done && pthread_cond_timedwait(&clock->done_signal, &clock->lock, &until) == 0)
			;
		if (!clock->done && seconds >= 2) {
			fprintf(stderr, "\rcallgraph: Graphviz dot is laying out %d nodes and %d edges: %ld s",
				clock->nodes, clock->edges, seconds);
			clock->said = true;
		}
	}
	if (clock->said)
		fputc('\n', stderr);
	pthread_mutex_unlock(&clock->lock);
	return NULL;
}

static void layout_clock_start(struct layout_clock *clock, Agraph_t *graph)
{
	*clock = (struct layout_clock){ .nodes = agnnodes(graph), .edges = agnedges(graph) };
	if (!layout_progress)
		return;
	pthread_mutex_init(&clock->lock, NULL);
	pthread_cond_init(&clock->done_signal, NULL);
	clock->started = pthread_create(&clock->thread, NULL, layout_clock_run, clock) == 0;
}

static void layout_clock_stop(struct layout_clock *clock)
{
	if (!clock->started)
		return;
	pthread_mutex_lock(&clock->lock);
	clock->done = true;
	pthread_cond_signal(&clock->done_signal);
	pthread_mutex_unlock(&clock->lock);
	pthread_join(clock->thread, NULL);
	pthread_cond_destroy(&clock->done_signal);
	pthread_mutex_destroy(&clock->lock);
}

bool graph_write_picture(const struct callgraph *cg, const struct graph_overlay *overlay,
			 const char *renderer, enum graph_page page, FILE *out, struct error *error)
{
	Agraph_t *graph = build(cg, overlay);
	const struct graph_page_size *fit = page_for(page, renderer);
	if (fit) {
		set(graph, "size", fit->size);
		/* PNG: pixels per inch; PDF: 72, so that Graphviz's inches are points */
		set(graph, "dpi", !strcmp(renderer, "png") ? fit->dpi : "72");
	}
	bool ok = true, written;
	if (!strcmp(renderer, "dot")) {
		written = agwrite(graph, out) == 0;   /* only writes: a failure is the stream's */
	} else {
		/* One context for the whole process: Graphviz 2.42's pango plugin
		 * keeps a pointer into the font cache of the context it last
		 * measured text with, so freeing a context and rendering with a
		 * new one reads freed memory. */
		static GVC_t *context;
		if (!context)
			context = gvContext();
		struct layout_clock clock;
		layout_clock_start(&clock, graph);
		ok = context && gvLayout(context, graph, "dot") == 0;
		if (ok && fit && fit->landscape_size && wider_than_tall(graph)) {
			gvFreeLayout(context, graph);
			set(graph, "landscape", "true");
			set(graph, "size", fit->landscape_size);
			ok = gvLayout(context, graph, "dot") == 0;
		}
		layout_clock_stop(&clock);
		/* Rendered in memory, written here: Graphviz's own writer ends the
		 * process with status 1 when a write fails (gvwrite_no_z). */
		char *data = NULL;
		unsigned int length = 0;
		ok = ok && gvRenderData(context, graph, renderer, &data, &length) == 0;
		written = ok && fwrite(data, 1, length, out) == length;
		if (data)
			gvFreeRenderData(data);
		if (context)
			gvFreeLayout(context, graph);
	}
	agclose(graph);
	if (!ok)
		error_internal(error, NULL, 0, "Graphviz could not lay out or render %s", renderer);
	return ok && written && !ferror(out);
}

/* --- writing: to a temporary name, renamed when complete ------------------- */

int graph_write(const struct callgraph *graph, const struct graph_overlay *overlay,
		enum graph_format format, enum graph_page page, const char *path, struct error *error)
{
	const struct format_row *row = row_of(format);
	if (!row)
		return error_internal(error, path ? path : "stdout", 0, "unknown output format");
	struct output output;
	if (output_open(&output, path, error) != 0)
		return -1;  /* an output failure (docs/architecture.md) */
	FILE *out = output_stream(&output);
	error->message[0] = '\0';   /* graph_write_picture names a Graphviz failure */
	bool ok = out && (format == GRAPH_FORMAT_JSON ? graph_write_json(graph, overlay, out)
		: format == GRAPH_FORMAT_XML ? graph_write_xml(graph, overlay, out)
		: format == GRAPH_FORMAT_TREE ? graph_write_tree(graph, overlay, out)
		: format == GRAPH_FORMAT_TABLE ? graph_write_table(graph, overlay, out)
		: graph_write_picture(graph, overlay, row->renderer, page, out, error));
	if (!ok && !output.path && !error->message[0])
		return 0;   /* a failed write to stdout: the front door says why (ptscope.c) */
	if (!ok) {
		output_discard(&output);
		if (error->message[0])
			return -1;
		if (!output.write_errno)
			return error_internal(error, path, 0, "cannot write");
		error_from_errno(error, path, "cannot write", output.write_errno);
		return error_mark_internal(error);
	}
	/* stdout is flushed and checked by the front door (ptscope.c) */
	return output_publish(&output, error);
}

/*
 * Graphviz 2.42 (gvc and its pango plugin) and fontconfig keep caches for the
 * life of the process that LeakSanitizer reports as leaks; they are not ours
 * to free.  This is the sanitizer's documented hook; without a sanitizer
 * nothing calls it.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	/* dot's cluster ranking (newrank) leaks a few of its auxiliary graphs'
	 * nodes and dictionaries: cgraph and cdt frames.  Our own graph is one
	 * agopen/agclose pair in graph_write_picture. */
	return "leak:libfontconfig.so\nleak:libgvc.so\nleak:libgvplugin_pango.so\n"
	       "leak:libpango\nleak:libcairo\nleak:libglib\nleak:libgobject\n"
	       "leak:libgvplugin_dot_layout.so\nleak:libcgraph.so\nleak:libcdt.so\n";
}

/* Those suppressions are expected: no table of them on stderr at exit, where
 * it would read as the command's own messages (tests/cli/frontdoor.sh wants
 * exactly one line from a failed write). */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}
