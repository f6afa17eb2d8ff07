/*
 * outputs/overlay_internal.h - shared by the overlay's files only
 * (outputs/overlay.c, outputs/overlay_trees.c, outputs/overlay_renames.c,
 * outputs/graph_names.c).
 */
#ifndef PTSCOPE_OUTPUTS_OVERLAY_INTERNAL_H
#define PTSCOPE_OUTPUTS_OVERLAY_INTERNAL_H

#include "base/hash.h"
#include "outputs/graph.h"

/* A graph's functions by name (outputs/graph_names.c): the first of a name through a hash table,
 * the others chained after it (two static functions of one name are two
 * nodes). */
struct graph_names {
	const struct callgraph *graph;
	struct hash_table table;
	size_t *next;                   /* next node of the same name, or SIZE_MAX */
};
void graph_names_build(const struct callgraph *graph, struct graph_names *names);
/* The first node named name, or SIZE_MAX; the next ones through names->next. */
size_t graph_names_first(const struct graph_names *names, const char *name);
void graph_names_free(struct graph_names *names);

/* The era rename table (outputs/overlay_renames.c): where the two listings
 * name one piece of work differently, each listing's entries of it become
 * one, their sum, under one name; overlay->joins says which. */
struct profile_set;
struct perf_samples;
void overlay_join_renames(const struct profile_set *set, struct perf_samples *after, struct perf_samples *before,
			  const struct graph_names *index, struct graph_overlay *overlay);

#endif
