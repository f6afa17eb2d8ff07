/*
 * outputs/graph_tree.c - the call graph as indented text in the style of GNU
 * cflow -n, to paste into a mail or a commit message:
 *
 *     1 do_fork() <kernel/fork.c:25>:
 *     2     copy_mm() <kernel/fork.c:20>:
 *     ...
 *     9     zap_page_range() <mm/memory.c:43> [see 5]
 *
 * Each line is numbered; a function is expanded once, where it is first
 * reached, and later calls to it point back to that line ("[see N]"), or
 * say "(recursive: see N)" for a call back into the chain being printed, so
 * the text grows with the graph instead of with its number of paths.  Trees
 * start at the entries no kept function calls, in source order (file, line);
 * callees follow in the order of their first call site.  A call through a
 * function pointer names its field: "[via vm_operations_struct.nopage]".
 *
 * Callers (callgraph --reverse, cflow -r): the same text turned over, each
 * sink first and under every function the functions that call it.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/escape.h"
#include "outputs/graph.h"
#include "outputs/report.h"

struct tree_writer {
	const struct callgraph *graph;
	FILE *out;
	size_t *first_edge;         /* per node: index into order[] of its first outgoing edge */
	size_t *order;              /* edge indexes grouped by caller, by call-site line */
	size_t *printed_at;         /* per node: output line where it was expanded (0: not yet) */
	bool *on_chain;             /* per node: on the chain being printed now */
	size_t line;
	bool callers;               /* expand who calls a function, not what it calls */
	const struct graph_overlay *overlay;   /* figures as a column, or NULL */
};

/* The overlay's figures of a node and of the call to it, for a column:
 * "12.3% (was 4.5%, +7.8); fork 4 PTEs; call: fork 4 PTEs". */
static void overlay_column(const struct graph_overlay *overlay, const struct callgraph *graph, size_t node,
			   const struct cg_edge *via, char *text, size_t size)
{
	const struct overlay_node *o = &overlay->nodes[node];
	size_t used = 0;
	text[0] = '\0';
	if (o->share.present || (overlay->has_baseline && o->baseline.present)) {
		char after[48], before[48], change[64];
		overlay_side_text(overlay, &o->share, false, after, sizeof(after));
		if (overlay->has_baseline) {
			overlay_side_text(overlay, &o->baseline, true, before, sizeof(before));
			overlay_change_text(overlay, &o->change, change, sizeof(change));
			used += (size_t)snprintf(text + used, size - used, "%s (was %s%s%s)", after, before,
						 change[0] ? ", " : "", change);
		} else {
			used += (size_t)snprintf(text + used, size - used, "%s", after);
		}
	}
	const struct overlay_count *counts[2] = { &o->events, via ? &overlay->edges[via - graph->edges].events : NULL };
	if (via && overlay->edges[via - graph->edges].has_call_samples) {
		char samples[48];
		overlay_call_text(&overlay->edges[via - graph->edges], samples, sizeof(samples));
		used += (size_t)snprintf(text + used, size - used, "%scall: %s", used ? "; " : "", samples);
	}
	for (int c = 0; c < 2 && used < size; c++)
		for (int ev = 0; counts[c] && ev < OVERLAY_EVENT_COUNT && used < size; ev++) {
			if (!counts[c]->has[ev])
				continue;
			char count[32];
			report_format_count(counts[c]->count[ev], count, sizeof(count));
			used += (size_t)snprintf(text + used, size - used, "%s%s%s %s %s", used ? "; " : "",
						 c ? "call: " : "", overlay_event_names[ev], count,
						 counts[c]->unit ? counts[c]->unit : "");
		}
}

static const struct callgraph *sorting_graph;   /* qsort has no context argument */
static bool sorting_callers;

/* The node an edge is listed under, and the one it leads to, in the
 * writer's direction. */
static size_t edge_owner(const struct cg_edge *edge, bool callers)
{
	return callers ? edge->to : edge->from;
}

static size_t edge_next(const struct cg_edge *edge, bool callers)
{
	return callers ? edge->from : edge->to;
}

static int compare_edges(const void *a, const void *b)
{
	const struct cg_edge *x = &sorting_graph->edges[*(const size_t *)a];
	const struct cg_edge *y = &sorting_graph->edges[*(const size_t *)b];
	size_t x_owner = edge_owner(x, sorting_callers), y_owner = edge_owner(y, sorting_callers);
	if (x_owner != y_owner)
		return x_owner < y_owner ? -1 : 1;
	if (!sorting_callers && x->line != y->line)
		return x->line < y->line ? -1 : 1;
	size_t x_next = edge_next(x, sorting_callers), y_next = edge_next(y, sorting_callers);
	return x_next < y_next ? -1 : x_next > y_next;
}

static int compare_roots(const void *a, const void *b)
{
	const struct cg_node *x = &sorting_graph->nodes[*(const size_t *)a];
	const struct cg_node *y = &sorting_graph->nodes[*(const size_t *)b];
	int by_file = strcmp(x->file ? x->file : "", y->file ? y->file : "");
	if (by_file)
		return by_file;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The overlay's column starts here, or two spaces after a longer line. */
#define OVERLAY_COLUMN 88

static void print_line(struct tree_writer *w, size_t depth, size_t node, const struct cg_edge *via,
		       const char *tail)
{
	const struct cg_node *n = &w->graph->nodes[node];
	char *name = escape_alloc(escape_text, n->name);
	char *file = escape_alloc(escape_text, n->file && n->defined ? n->file : "");
	char *field = escape_alloc(escape_text, via && via->kind == CG_EDGE_INDIRECT && via->field ? via->field : "");
	char place[32] = "";
	if (n->file && n->defined)
		snprintf(place, sizeof(place), ":%u", n->line);
	w->line++;
	int length = fprintf(w->out, "%5zu %*s%s() <%s%s>%s%s%s%s", w->line, (int)(depth * 4), "", name,
			     n->file && n->defined ? file : "not defined in the parsed files", place,
			     field[0] ? " [via " : "", field, field[0] ? "]" : "", tail);
	char column[256] = "";
	if (w->overlay)
		overlay_column(w->overlay, w->graph, node, via, column, sizeof(column));
	if (column[0])
		fprintf(w->out, "%*s%s", length < OVERLAY_COLUMN - 2 ? OVERLAY_COLUMN - length : 2, "", column);
	fputc('\n', w->out);
	free(name);
	free(file);
	free(field);
}

static bool has_callees(const struct tree_writer *w, size_t node)
{
	return w->first_edge[node] < w->first_edge[node + 1];
}

static void expand(struct tree_writer *w, size_t node, size_t depth, const struct cg_edge *via)
{
	char tail[48];
	if (w->on_chain[node]) {
		snprintf(tail, sizeof(tail), " (recursive: see %zu)", w->printed_at[node]);
		print_line(w, depth, node, via, tail);
		return;
	}
	if (w->printed_at[node]) {
		snprintf(tail, sizeof(tail), " [see %zu]", w->printed_at[node]);
		print_line(w, depth, node, via, tail);
		return;
	}
	print_line(w, depth, node, via, has_callees(w, node) ? ":" : "");
	w->printed_at[node] = w->line;
	w->on_chain[node] = true;
	for (size_t k = w->first_edge[node]; k < w->first_edge[node + 1]; k++) {
		const struct cg_edge *edge = &w->graph->edges[w->order[k]];
		/* several call sites of one callee: the first one stands for them */
		bool seen_earlier = false;
		for (size_t j = w->first_edge[node]; j < k && !seen_earlier; j++)
			seen_earlier = edge_next(&w->graph->edges[w->order[j]], w->callers) == edge_next(edge, w->callers);
		if (!seen_earlier)
			expand(w, edge_next(edge, w->callers), depth + 1, edge);
	}
	w->on_chain[node] = false;
}

static bool write_tree(const struct callgraph *graph, const struct graph_overlay *overlay, FILE *out,
		       bool callers)
{
	size_t nodes = graph->node_count, edges = graph->edge_count;
	struct tree_writer w = {
		.graph = graph, .out = out, .callers = callers, .overlay = overlay,
		.first_edge = xcalloc(nodes + 1, sizeof(size_t)),
		.order = xcalloc(edges + 1, sizeof(size_t)),
		.printed_at = xcalloc(nodes + 1, sizeof(size_t)),
		.on_chain = xcalloc(nodes + 1, sizeof(bool)),
	};
	bool *called = xcalloc(nodes + 1, sizeof(bool));
	size_t *roots = xcalloc(nodes + 1, sizeof(size_t)), root_count = 0;

	sorting_graph = graph;
	sorting_callers = callers;
	for (size_t e = 0; e < edges; e++) {
		w.order[e] = e;
		if (graph->edges[e].from != graph->edges[e].to)
			called[edge_next(&graph->edges[e], callers)] = true;
	}
	array_sort(w.order, edges, sizeof(size_t), compare_edges);
	for (size_t k = 0, node = 0; node <= nodes; node++) {
		while (k < edges && edge_owner(&graph->edges[w.order[k]], callers) < node)
			k++;
		w.first_edge[node] = k;
	}
	/* callers: every sink is a root, called or not (one function's callers
	 * are the question, even when it calls another sink) */
	enum cg_role root_role = callers ? CG_ROLE_SINK : CG_ROLE_ENTRY;
	for (size_t n = 0; n < nodes; n++)
		if (graph->nodes[n].role == root_role && (callers || !called[n]))
			roots[root_count++] = n;
	array_sort(roots, root_count, sizeof(size_t), compare_roots);
	for (size_t r = 0; r < root_count; r++)
		expand(&w, roots[r], 0, NULL);
	/* entries only reachable from each other (a cycle), then anything left */
	for (int pass = 0; pass < 2; pass++)
		for (size_t n = 0; n < nodes; n++)
			if (!w.printed_at[n] && (pass || graph->nodes[n].role == root_role) && !callers)
				expand(&w, n, 0, NULL);
	if (!nodes)
		fputs("(no function on a path from an entry to a sink)\n", out);
	free(called);
	free(roots);
	free(w.first_edge);
	free(w.order);
	free(w.printed_at);
	free(w.on_chain);
	return !ferror(out);
}

/* What the figures are (the overlay's title), one "# " line each. */
static void write_title(const struct graph_overlay *overlay, FILE *out)
{
	for (const char *line = overlay->title; *line; ) {
		size_t length = strcspn(line, "\n");
		char *text = xstrndup(line, length);
		char *escaped = escape_alloc(escape_text, text);
		fprintf(out, "# %s\n", escaped);
		free(escaped);
		free(text);
		line += length + (line[length] == '\n');
	}
}

bool graph_write_tree(const struct callgraph *graph, const struct graph_overlay *overlay, FILE *out)
{
	if (overlay)
		write_title(overlay, out);
	return write_tree(graph, overlay, out, false);
}

bool graph_write_callers(const struct callgraph *graph, FILE *out)
{
	return write_tree(graph, NULL, out, true);
}

/* ---- --format table ------------------------------------------------------ */

struct table_row {
	const char *symbol;
	struct overlay_share after, before;
	bool on_graph;
};

static const struct graph_overlay *sorting_overlay;

/* Largest first, by the larger of the two figures; then by name. */
static double row_size(const struct table_row *row)
{
	bool counts = sorting_overlay->compare_counts;
	double after = row->after.present ? (counts ? (double)row->after.samples : row->after.percent) : 0;
	double before = row->before.present ? (counts ? (double)row->before.samples : row->before.percent) : 0;
	return after > before ? after : before;
}

static int compare_rows(const void *a, const void *b)
{
	const struct table_row *x = a, *y = b;
	double sx = row_size(x), sy = row_size(y);
	if (sx != sy)
		return sx < sy ? 1 : -1;
	return strcmp(x->symbol, y->symbol);
}

bool graph_write_table(const struct callgraph *graph, const struct graph_overlay *overlay, FILE *out)
{
	struct table_row *rows = xcalloc(graph->node_count + overlay->unplaced_count + 1, sizeof(*rows));
	size_t count = 0;
	for (size_t n = 0; n < graph->node_count; n++) {
		const struct overlay_node *o = &overlay->nodes[n];
		bool listed = o->share.present || (overlay->has_baseline && o->baseline.present);
		bool repeated = false;   /* two static functions of one name: one row */
		for (size_t r = 0; r < count && !repeated; r++)
			repeated = !strcmp(rows[r].symbol, graph->nodes[n].name);
		if (listed && !repeated)
			rows[count++] = (struct table_row){ graph->nodes[n].name, o->share,
							    overlay->has_baseline ? o->baseline : (struct overlay_share){ 0 },
							    true };
	}
	for (size_t u = 0; u < overlay->unplaced_count; u++)
		rows[count++] = (struct table_row){ overlay->unplaced[u].symbol, overlay->unplaced[u].share,
						    overlay->unplaced[u].baseline, false };
	sorting_overlay = overlay;
	array_sort(rows, count, sizeof(*rows), compare_rows);
	write_title(overlay, out);
	fprintf(out, "# %-30s %12s %12s %18s %8s  %s\n", "function", "before", "after", "change", "ratio", "graph");
	for (size_t r = 0; r < count; r++) {
		char after[48], before[48] = "", change[64] = "", ratio[24] = "";
		struct overlay_change c;
		overlay_side_text(overlay, &rows[r].after, false, after, sizeof(after));
		if (overlay->has_baseline) {
			overlay_side_text(overlay, &rows[r].before, true, before, sizeof(before));
			overlay_change_of(overlay, &rows[r].after, &rows[r].before, &c);
			overlay_change_text(overlay, &c, change, sizeof(change));
			if (!overlay->compare_counts && c.known && c.ratio > 0)
				snprintf(ratio, sizeof(ratio), "%sx%.2f", c.bound == OVERLAY_AT_LEAST ? ">" :
					 c.bound == OVERLAY_AT_MOST ? "<" : "", c.ratio);
		}
		if (overlay->compare_counts) {
			/* counts: "x0.32 -4,360" splits into its two columns */
			char *space = strchr(change, ' ');
			if (space) {
				*space = '\0';
				snprintf(ratio, sizeof(ratio), "%s", change);
				bool bound = change[0] == '<' || change[0] == '>';
				memmove(change + bound, space + 1, strlen(space + 1) + 1);
			}
		}
		char *symbol = escape_alloc(escape_text, rows[r].symbol);
		fprintf(out, "  %-30s %12s %12s %18s %8s  %s\n", symbol, before[0] ? before : "-", after[0] ? after : "-",
			change[0] ? change : "-", ratio[0] ? ratio : "-", rows[r].on_graph ? "yes" : "no");
		free(symbol);
	}
	free(rows);
	return !ferror(out);
}
