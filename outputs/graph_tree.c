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
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/escape.h"
#include "outputs/graph.h"

struct tree_writer {
	const struct callgraph *graph;
	FILE *out;
	size_t *first_edge;         /* per node: index into order[] of its first outgoing edge */
	size_t *order;              /* edge indexes grouped by caller, by call-site line */
	size_t *printed_at;         /* per node: output line where it was expanded (0: not yet) */
	bool *on_chain;             /* per node: on the chain being printed now */
	size_t line;
};

static const struct callgraph *sorting_graph;   /* qsort has no context argument */

static int compare_edges(const void *a, const void *b)
{
	const struct cg_edge *x = &sorting_graph->edges[*(const size_t *)a];
	const struct cg_edge *y = &sorting_graph->edges[*(const size_t *)b];
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
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

static void print_line(struct tree_writer *w, size_t depth, size_t node, const struct cg_edge *via,
		       const char *tail)
{
	const struct cg_node *n = &w->graph->nodes[node];
	w->line++;
	fprintf(w->out, "%5zu %*s", w->line, (int)(depth * 4), "");
	escape_fputs(escape_text, n->name, w->out);
	fputs("() <", w->out);
	if (n->file && n->defined) {
		escape_fputs(escape_text, n->file, w->out);
		fprintf(w->out, ":%u>", n->line);
	} else {
		fputs("not defined in the parsed files>", w->out);
	}
	if (via && via->kind == CG_EDGE_INDIRECT && via->field) {
		fputs(" [via ", w->out);
		escape_fputs(escape_text, via->field, w->out);
		fputc(']', w->out);
	}
	fputs(tail, w->out);
	fputc('\n', w->out);
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
			seen_earlier = w->graph->edges[w->order[j]].to == edge->to;
		if (!seen_earlier)
			expand(w, edge->to, depth + 1, edge);
	}
	w->on_chain[node] = false;
}

bool graph_write_tree(const struct callgraph *graph, FILE *out)
{
	size_t nodes = graph->node_count, edges = graph->edge_count;
	struct tree_writer w = {
		.graph = graph, .out = out,
		.first_edge = xcalloc(nodes + 1, sizeof(size_t)),
		.order = xcalloc(edges + 1, sizeof(size_t)),
		.printed_at = xcalloc(nodes + 1, sizeof(size_t)),
		.on_chain = xcalloc(nodes + 1, sizeof(bool)),
	};
	bool *called = xcalloc(nodes + 1, sizeof(bool));
	size_t *roots = xcalloc(nodes + 1, sizeof(size_t)), root_count = 0;

	sorting_graph = graph;
	for (size_t e = 0; e < edges; e++) {
		w.order[e] = e;
		if (graph->edges[e].from != graph->edges[e].to)
			called[graph->edges[e].to] = true;
	}
	array_sort(w.order, edges, sizeof(size_t), compare_edges);
	for (size_t k = 0, node = 0; node <= nodes; node++) {
		while (k < edges && graph->edges[w.order[k]].from < node)
			k++;
		w.first_edge[node] = k;
	}
	for (size_t n = 0; n < nodes; n++)
		if (graph->nodes[n].role == CG_ROLE_ENTRY && !called[n])
			roots[root_count++] = n;
	array_sort(roots, root_count, sizeof(size_t), compare_roots);
	for (size_t r = 0; r < root_count; r++)
		expand(&w, roots[r], 0, NULL);
	/* entries only reachable from each other (a cycle), then anything left */
	for (int pass = 0; pass < 2; pass++)
		for (size_t n = 0; n < nodes; n++)
			if (!w.printed_at[n] && (pass || graph->nodes[n].role == CG_ROLE_ENTRY))
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
