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
#include <gvc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/escape.h"
#include "outputs/graph.h"

struct format_row {
	const char *name;          /* --format and file extension */
	enum graph_format format;
	const char *renderer;      /* Graphviz renderer; NULL for data formats */
};

static const struct format_row formats[] = {
	{ "svg", GRAPH_FORMAT_SVG, "svg" },
	{ "png", GRAPH_FORMAT_PNG, "png" },
	{ "pdf", GRAPH_FORMAT_PDF, "pdf" },
	{ "dot", GRAPH_FORMAT_DOT, "dot" },
	{ "gv", GRAPH_FORMAT_DOT, "dot" },
	{ "json", GRAPH_FORMAT_JSON, NULL },
	{ "xml", GRAPH_FORMAT_XML, NULL },
};
#define FORMAT_COUNT (sizeof(formats) / sizeof(formats[0]))

enum graph_format graph_format_from_name(const char *name)
{
	for (size_t i = 0; name && i < FORMAT_COUNT; i++)
		if (!strcmp(formats[i].name, name))
			return formats[i].format;
	return GRAPH_FORMAT_NONE;
}

enum graph_format graph_format_from_path(const char *path)
{
	const char *dot = path ? strrchr(path, '.') : NULL;
	if (!dot || strchr(dot, '/'))
		return GRAPH_FORMAT_NONE;
	return graph_format_from_name(dot + 1);
}

static const struct format_row *row_of(enum graph_format format)
{
	for (size_t i = 0; i < FORMAT_COUNT; i++)
		if (formats[i].format == format)
			return &formats[i];
	return NULL;
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

static Agraph_t *cluster_for(Agraph_t *graph, Agraph_t **clusters, const struct callgraph *cg,
			     size_t node)
{
	/* nodes are sorted by file: the first node of a file owns its cluster */
	size_t first = node;
	while (first > 0 && !strcmp(cg->nodes[first - 1].file, cg->nodes[node].file))
		first--;
	if (!clusters[first]) {
		char name[64];
		snprintf(name, sizeof(name), "cluster_%zu", first);
		clusters[first] = agsubg(graph, name, 1);
		set(clusters[first], "label", cg->nodes[node].file);
		set(clusters[first], "style", "rounded,filled");
		set(clusters[first], "fillcolor", "#f7f7f2");
		set(clusters[first], "color", "#b0b0a8");
		set(clusters[first], "fontname", "Helvetica-Bold");
		set(clusters[first], "fontsize", "12");
	}
	return clusters[first];
}

/* "name\nfork: 1234\n12.3% of samples" for a function the overlay names;
 * *touched says whether an event names it. */
static void overlay_label(const struct graph_overlay *overlay, const char *name, char *label,
			  size_t size, bool *touched)
{
	size_t used = (size_t)snprintf(label, size, "%s", name);
	double percent = graph_overlay_percent(overlay, name);
	if (percent >= 0 && used < size)
		used += (size_t)snprintf(label + used, size - used, "\n%.1f%% of samples", percent);
	*touched = false;
	for (long e = graph_overlay_next(overlay, name, 0); e >= 0 && used < size;
	     e = graph_overlay_next(overlay, name, (size_t)e + 1)) {
		used += (size_t)snprintf(label + used, size - used, "\n%s: %llu", overlay->events[e].event,
					 overlay->events[e].count);
		*touched = true;
	}
}

/* Shade a function by its share of the profile, against the profile's hottest symbol. */
static void sample_shade(const struct graph_overlay *overlay, const char *name, Agnode_t *node)
{
	double percent = graph_overlay_percent(overlay, name), hottest = 0;
	if (percent < 0)
		return;
	for (size_t i = 0; i < overlay->sample_count; i++)
		if (overlay->samples[i].percent > hottest)
			hottest = overlay->samples[i].percent;
	char colour[32];
	snprintf(colour, sizeof(colour), "0.0 %.3f 1.0", hottest > 0 ? 0.1 + 0.8 * percent / hottest : 0.1);
	set(node, "fillcolor", colour);
}

static void add_nodes(Agraph_t *graph, const struct callgraph *cg, const struct graph_overlay *overlay,
		      Agnode_t **nodes)
{
	Agraph_t **clusters = calloc(cg->node_count + 1, sizeof(Agraph_t *));
	for (size_t i = 0; i < cg->node_count; i++) {
		const struct cg_node *node = &cg->nodes[i];
		Agraph_t *home = node->file[0] ? cluster_for(graph, clusters, cg, i) : graph;
		nodes[i] = agnode(home, (char *)node->id, 1);
		const struct style *style = &role_styles[node->role];
		char tooltip[512];
		snprintf(tooltip, sizeof(tooltip), "%s:%u", node->file, node->line);
		char label[256];
		bool touched;
		overlay_label(overlay, node->name, label, sizeof(label), &touched);
		set(nodes[i], "label", label);
		set(nodes[i], "shape", style->shape);
		/* with an overlay, rmap functions the workload does not touch are greyed */
		bool untouched = overlay && overlay->event_count && node->role == CG_ROLE_SINK && !touched;
		set(nodes[i], "fillcolor", untouched ? "#eeeeee" : style->fill);
		sample_shade(overlay, node->name, nodes[i]);
		if (untouched) {
			set(nodes[i], "fontcolor", "#999999");
			set(nodes[i], "color", "#bbbbbb");
		}
		set(nodes[i], "penwidth", style->pen);
		set(nodes[i], "tooltip", tooltip);
		if (!node->defined)
			set(nodes[i], "style", "filled,dashed");
	}
	free(clusters);
}

static void add_edges(Agraph_t *graph, const struct callgraph *cg, Agnode_t **nodes)
{
	for (size_t i = 0; i < cg->edge_count; i++) {
		const struct cg_edge *edge = &cg->edges[i];
		bool indirect = edge->kind == CG_EDGE_INDIRECT;
		char key[32];
		snprintf(key, sizeof(key), "%c", indirect ? 'i' : 'd');
		/* one arrow per caller, callee and kind: the name makes agedge reuse it */
		Agedge_t *arrow = agedge(graph, nodes[edge->from], nodes[edge->to], key, 0);
		if (arrow)
			continue;
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
	}
}

static Agraph_t *build(const struct callgraph *cg, const struct graph_overlay *overlay)
{
	Agraph_t *graph = agopen((char *)"callgraph", Agdirected, NULL);
	/* call chains are long (fork: eleven calls down to the rmap): laid out
	 * top to bottom they fold into a page instead of a banner */
	agattr(graph, AGRAPH, (char *)"rankdir", (char *)"TB");
	agattr(graph, AGRAPH, (char *)"fontname", (char *)"Helvetica");
	agattr(graph, AGRAPH, (char *)"ranksep", (char *)"0.6");
	agattr(graph, AGRAPH, (char *)"nodesep", (char *)"0.15");
	/* ranks across clusters: without it dot 2.42 loses edges between
	 * clusters of a large graph ("lost ... edge") and then frees twice */
	agattr(graph, AGRAPH, (char *)"newrank", (char *)"true");
	agattr(graph, AGNODE, (char *)"fontname", (char *)"Helvetica");
	agattr(graph, AGNODE, (char *)"fontsize", (char *)"11");
	agattr(graph, AGNODE, (char *)"style", (char *)"filled");
	agattr(graph, AGNODE, (char *)"height", (char *)"0.3");
	agattr(graph, AGEDGE, (char *)"color", (char *)"#555555");
	agattr(graph, AGEDGE, (char *)"arrowsize", (char *)"0.6");
	agattr(graph, AGEDGE, (char *)"fontname", (char *)"Helvetica");
	agattr(graph, AGEDGE, (char *)"fontsize", (char *)"9");
	char label[1024];
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
		snprintf(label + used, sizeof(label) - used, "\n%s", overlay->title);
	}
	set(graph, "label", label);
	set(graph, "labelloc", "t");
	Agnode_t **nodes = calloc(cg->node_count + 1, sizeof(Agnode_t *));
	add_nodes(graph, cg, overlay, nodes);
	add_edges(graph, cg, nodes);
	free(nodes);
	return graph;
}

bool graph_write_picture(const struct callgraph *cg, const struct graph_overlay *overlay,
			 const char *renderer, FILE *out, char *err, size_t err_size)
{
	Agraph_t *graph = build(cg, overlay);
	bool ok;
	if (!strcmp(renderer, "dot")) {
		ok = agwrite(graph, out) == 0;
	} else {
		/* One context for the whole process: Graphviz 2.42's pango plugin
		 * keeps a pointer into the font cache of the context it last
		 * measured text with, so freeing a context and rendering with a
		 * new one reads freed memory. */
		static GVC_t *context;
		if (!context)
			context = gvContext();
		ok = context && gvLayout(context, graph, "dot") == 0;
		ok = ok && gvRender(context, graph, renderer, out) == 0;
		if (context)
			gvFreeLayout(context, graph);
	}
	agclose(graph);
	if (!ok)
		snprintf(err, err_size, "Graphviz could not lay out or render %s", renderer);
	return ok && !ferror(out);
}

/* --- writing: to a temporary name, renamed when complete ------------------- */

int graph_write(const struct callgraph *graph, const struct graph_overlay *overlay,
		enum graph_format format, const char *path, char *err, size_t err_size)
{
	const struct format_row *row = row_of(format);
	if (!row) {
		snprintf(err, err_size, "%s: unknown output format", path ? path : "stdout");
		return 2;
	}
	bool to_stdout = !path || !strcmp(path, "-");
	char *temporary = NULL;
	FILE *out = stdout;
	if (!to_stdout) {
		if (asprintf(&temporary, "%s.tmp.%ld", path, (long)getpid()) < 0 ||
		    !(out = fopen(temporary, "wb"))) {
			snprintf(err, err_size, "%s: cannot write: %s", path, strerror(errno));
			free(temporary);
			return 2;
		}
	}
	err[0] = '\0';
	bool ok = format == GRAPH_FORMAT_JSON ? graph_write_json(graph, overlay, out)
		: format == GRAPH_FORMAT_XML ? graph_write_xml(graph, overlay, out)
		: graph_write_picture(graph, overlay, row->renderer, out, err, err_size);
	if (to_stdout) {
		ok = fflush(stdout) == 0 && ok;
	} else {
		ok = fclose(out) == 0 && ok;
		if (ok && rename(temporary, path) != 0)
			ok = false;
		if (!ok)
			unlink(temporary);
		free(temporary);
	}
	if (!ok && !err[0])
		snprintf(err, err_size, "%s: cannot write", to_stdout ? "stdout" : path);
	return ok ? 0 : 2;
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
