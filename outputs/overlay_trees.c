/*
 * outputs/overlay_trees.c - `callgraph NEW_TREE --versus OLD_TREE`: the rmap
 * paths of two kernel trees as one graph, the functions and calls only one
 * of them has marked (the overlay's only_in), so a conversion such as 6.1 ->
 * 6.12's page_*_rmap -> folio_*_rmap_ptes reads at a glance.
 *
 * Functions are the same function in both trees when they have the same name
 * and file, or, for one that moved (mm/rmap.c -> include/linux/rmap.h), the
 * same name; calls when they join the same two functions the same way
 * (direct or through a pointer).  The merged graph keeps NEW's nodes and
 * calls, adds OLD's others, and is sorted by file as the writers expect (one
 * cluster per file).  Its strings belong to the two graphs, which must
 * outlive it.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "outputs/overlay_internal.h"

/* OLD's node j in NEW: an unmatched node of its name, of its file when
 * same_file; SIZE_MAX when none. */
static size_t match_node(const struct graph_names *index, const struct cg_node *old, const size_t *new_to_old,
			 bool same_file)
{
	for (size_t n = graph_names_first(index, old->name); n != SIZE_MAX; n = index->next[n])
		if (new_to_old[n] == SIZE_MAX && (!same_file || !strcmp(index->graph->nodes[n].file, old->file)))
			return n;
	return SIZE_MAX;
}

/* ---- edges by (from, to, kind) in merged indexes ---- */

struct edge_key {
	size_t from, to;
	enum cg_edge_kind kind;
};

struct edge_index {
	const struct cg_edge *edges;
	struct hash_table table;
	size_t *next;
};

static uint64_t key_hash(size_t from, size_t to, enum cg_edge_kind kind)
{
	return hash_u64(((uint64_t)from * 0x9e3779b97f4a7c15u) ^ ((uint64_t)to << 1) ^ (uint64_t)kind);
}

static uint64_t edge_hash(const void *context, size_t index)
{
	const struct cg_edge *edges = context;
	return key_hash(edges[index].from, edges[index].to, edges[index].kind);
}

static size_t first_edge(const struct edge_index *index, size_t from, size_t to, enum cg_edge_kind kind)
{
	struct hash_probe probe;
	for (size_t i = hash_first(&index->table, key_hash(from, to, kind), &probe); i != HASH_NONE;
	     i = hash_next(&index->table, &probe)) {
		const struct cg_edge *e = &index->edges[i];
		if (e->from == from && e->to == to && e->kind == kind)
			return i;
	}
	return SIZE_MAX;
}

/* ---- the merged graph ---- */

static const struct callgraph *sort_graph;

static int by_file(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(sort_graph->nodes[x].file, sort_graph->nodes[y].file);
	return c ? c : (x > y) - (x < y);
}

/* Sort the merged nodes by file, carrying only_in and renumbering edges. */
static void sort_nodes(struct callgraph *merged, enum overlay_only_in *only_in)
{
	size_t count = merged->node_count;
	size_t *order = xcalloc(count + 1, sizeof(size_t)), *place = xcalloc(count + 1, sizeof(size_t));
	for (size_t i = 0; i < count; i++)
		order[i] = i;
	sort_graph = merged;
	array_sort(order, count, sizeof(size_t), by_file);
	struct cg_node *nodes = xcalloc(count + 1, sizeof(*nodes));
	enum overlay_only_in *marks = xcalloc(count + 1, sizeof(*marks));
	for (size_t i = 0; i < count; i++) {
		nodes[i] = merged->nodes[order[i]];
		marks[i] = only_in[order[i]];
		place[order[i]] = i;
	}
	memcpy(only_in, marks, count * sizeof(*marks));
	free(merged->nodes);
	merged->nodes = nodes;
	for (size_t e = 0; e < merged->edge_count; e++) {
		merged->edges[e].from = place[merged->edges[e].from];
		merged->edges[e].to = place[merged->edges[e].to];
	}
	free(marks);
	free(order);
	free(place);
}

static void merge_nodes(const struct callgraph *new, const struct callgraph *old, struct callgraph *merged,
			struct tree_versus *versus, size_t *old_to_merged)
{
	struct graph_names index;
	size_t *new_to_old = xcalloc(new->node_count + 1, sizeof(size_t));
	graph_names_build(new, &index);
	for (size_t n = 0; n < new->node_count; n++)
		new_to_old[n] = SIZE_MAX;
	for (size_t j = 0; j < old->node_count; j++)
		old_to_merged[j] = SIZE_MAX;
	for (int pass = 0; pass < 2; pass++)   /* same name and file first, then same name */
		for (size_t j = 0; j < old->node_count; j++) {
			if (old_to_merged[j] != SIZE_MAX)
				continue;
			size_t n = match_node(&index, &old->nodes[j], new_to_old, pass == 0);
			if (n != SIZE_MAX) {
				new_to_old[n] = j;
				old_to_merged[j] = n;
			}
		}
	merged->nodes = xcalloc(new->node_count + old->node_count + 1, sizeof(*merged->nodes));
	versus->node_only_in = xcalloc(new->node_count + old->node_count + 1, sizeof(*versus->node_only_in));
	for (size_t n = 0; n < new->node_count; n++) {
		merged->nodes[merged->node_count] = new->nodes[n];
		versus->node_only_in[merged->node_count++] = new_to_old[n] == SIZE_MAX ? OVERLAY_ONLY_NEW : OVERLAY_IN_BOTH;
	}
	versus->old_ids = xcalloc(old->node_count + 1, sizeof(char *));
	for (size_t j = 0; j < old->node_count; j++)
		if (old_to_merged[j] == SIZE_MAX) {
			old_to_merged[j] = merged->node_count;
			merged->nodes[merged->node_count] = old->nodes[j];
			/* a function of the old tree keeps its USR, marked, so it
			 * can never be taken for a new function of the same USR */
			merged->nodes[merged->node_count].id = versus->old_ids[versus->old_id_count++] =
				xasprintf("old:%s", old->nodes[j].id);
			versus->node_only_in[merged->node_count++] = OVERLAY_ONLY_OLD;
		}
	graph_names_free(&index);
	free(new_to_old);
}

static void merge_edges(const struct callgraph *new, const struct callgraph *old, struct callgraph *merged,
			struct tree_versus *versus, const size_t *old_to_merged)
{
	size_t most = new->edge_count + old->edge_count + 1;
	struct edge_index index = { 0 };
	merged->edges = xcalloc(most, sizeof(*merged->edges));
	versus->edge_only_in = xcalloc(most, sizeof(*versus->edge_only_in));
	index.edges = merged->edges;
	index.next = xcalloc(most, sizeof(size_t));
	/* NEW's calls keep NEW's node numbers: NEW's nodes came first */
	for (size_t e = 0; e < new->edge_count; e++) {
		const struct cg_edge *edge = &new->edges[e];
		size_t i = merged->edge_count++;
		merged->edges[i] = *edge;
		versus->edge_only_in[i] = OVERLAY_ONLY_NEW;
		size_t first = first_edge(&index, edge->from, edge->to, edge->kind);
		if (first == SIZE_MAX) {
			index.next[i] = SIZE_MAX;
			hash_add(&index.table, key_hash(edge->from, edge->to, edge->kind), i, edge_hash, merged->edges);
		} else {
			index.next[i] = index.next[first];
			index.next[first] = i;
		}
	}
	size_t new_edges = merged->edge_count;
	for (size_t e = 0; e < old->edge_count; e++) {
		struct cg_edge edge = old->edges[e];
		edge.from = old_to_merged[edge.from];
		edge.to = old_to_merged[edge.to];
		size_t found = edge.from < new->node_count && edge.to < new->node_count
			? first_edge(&index, edge.from, edge.to, edge.kind) : SIZE_MAX;
		if (found != SIZE_MAX && found < new_edges) {
			for (size_t i = found; i != SIZE_MAX; i = index.next[i])
				versus->edge_only_in[i] = OVERLAY_IN_BOTH;
			continue;
		}
		merged->edges[merged->edge_count] = edge;
		versus->edge_only_in[merged->edge_count++] = OVERLAY_ONLY_OLD;
	}
	hash_free(&index.table);
	free(index.next);
}

void tree_versus_build(const struct callgraph *new, const struct callgraph *old, struct tree_versus *versus)
{
	struct callgraph *merged = xcalloc(1, sizeof(*merged));
	size_t *old_to_merged = xcalloc(old->node_count + 1, sizeof(size_t));
	memset(versus, 0, sizeof(*versus));
	merged->summary = new->summary;
	merge_nodes(new, old, merged, versus, old_to_merged);
	merge_edges(new, old, merged, versus, old_to_merged);
	sort_nodes(merged, versus->node_only_in);
	for (size_t i = 0; i < merged->node_count; i++) {
		versus->only_new_nodes += versus->node_only_in[i] == OVERLAY_ONLY_NEW;
		versus->only_old_nodes += versus->node_only_in[i] == OVERLAY_ONLY_OLD;
	}
	for (size_t i = 0; i < merged->edge_count; i++) {
		versus->only_new_edges += versus->edge_only_in[i] == OVERLAY_ONLY_NEW;
		versus->only_old_edges += versus->edge_only_in[i] == OVERLAY_ONLY_OLD;
	}
	versus->graph = merged;
	versus->new_release = new->summary.release;
	versus->old_release = old->summary.release;
	versus->old_source = old->summary.source;
	free(old_to_merged);
}

/* "linux-source-6.1" of "/root/.cache/ptscope/linux-source-6.1/": the
 * picture names trees as its title does. */
static int base_name(const char *path, const char **base)
{
	size_t length = strlen(path);
	while (length > 1 && path[length - 1] == '/')
		length--;
	*base = path + length;
	while (*base > path && (*base)[-1] != '/')
		(*base)--;
	return (int)(path + length - *base);
}

void tree_versus_mark(const struct tree_versus *versus, struct graph_overlay *overlay)
{
	const char *base;
	int length = base_name(versus->old_source ? versus->old_source : "", &base);
	for (size_t i = 0; i < versus->graph->node_count; i++)
		overlay->nodes[i].only_in = versus->node_only_in[i];
	for (size_t i = 0; i < versus->graph->edge_count; i++)
		overlay->edges[i].only_in = versus->edge_only_in[i];
	overlay->has_trees = true;
	size_t used = strlen(overlay->title);
	snprintf(overlay->title + used, sizeof(overlay->title) - used,
		 "%sversus %.*s%s%s%s: green: only in the new tree (%zu functions, %zu calls); "
		 "orange, dashed box, dotted arrow: only in the old one (%zu functions, %zu calls)",
		 used ? "\n" : "", length, base, versus->old_release && versus->old_release[0] ? " (" : "",
		 versus->old_release ? versus->old_release : "", versus->old_release && versus->old_release[0] ? ")" : "",
		 versus->only_new_nodes, versus->only_new_edges, versus->only_old_nodes, versus->only_old_edges);
}

void tree_versus_free(struct tree_versus *versus)
{
	callgraph_free(versus->graph);
	free(versus->node_only_in);
	free(versus->edge_only_in);
	for (size_t i = 0; i < versus->old_id_count; i++)
		free(versus->old_ids[i]);
	free(versus->old_ids);
	memset(versus, 0, sizeof(*versus));
}
