/*
 * outputs/graph_names.c - a call graph's functions by name, for the
 * overlay's files (outputs/overlay.c, overlay_trees.c, overlay_renames.c):
 * the first node of a name through a hash table, the others chained after
 * it.  Under the overlay: it calls none of its files.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "outputs/overlay_internal.h"

static uint64_t name_hash(const char *name)
{
	return hash_keyed(name, strlen(name));
}

static uint64_t node_name_hash(const void *context, size_t index)
{
	const struct callgraph *graph = context;
	return name_hash(graph->nodes[index].name);
}

size_t graph_names_first(const struct graph_names *names, const char *name)
{
	struct hash_probe probe;
	for (size_t i = hash_first(&names->table, name_hash(name), &probe); i != HASH_NONE;
	     i = hash_next(&names->table, &probe))
		if (!strcmp(names->graph->nodes[i].name, name))
			return i;
	return SIZE_MAX;
}

void graph_names_build(const struct callgraph *graph, struct graph_names *names)
{
	memset(names, 0, sizeof(*names));
	names->graph = graph;
	names->next = xcalloc(graph->node_count + 1, sizeof(size_t));
	for (size_t i = 0; i < graph->node_count; i++) {
		size_t first = graph_names_first(names, graph->nodes[i].name);
		if (first == SIZE_MAX) {
			names->next[i] = SIZE_MAX;
			hash_add(&names->table, name_hash(graph->nodes[i].name), i, node_name_hash, graph);
		} else {   /* the table keeps the first; the others hang after it */
			names->next[i] = names->next[first];
			names->next[first] = i;
		}
	}
}

void graph_names_free(struct graph_names *names)
{
	hash_free(&names->table);
	free(names->next);
}
