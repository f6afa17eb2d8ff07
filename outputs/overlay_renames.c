/*
 * outputs/overlay_renames.c - two profiles of two eras compared like with
 * like.  2.4 lists the PTE zapping under zap_page_range (zap_pte_range is
 * inlined into it), 2.5 under zap_pte_range; 2.4's page_add_rmap is 2.6's
 * page_add_anon_rmap and page_add_file_rmap.  The era rename table
 * (model/profiles/40-renames.xml) says which names are one piece of work:
 * where the two listings name such a piece differently, each listing's
 * names are summed into one entry (self samples of different functions add
 * up: no sample is counted twice) before anything is placed, so every
 * writer compares the sums, and the overlay says which names it joined.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hash.h"
#include "inputs/snapshot.h"
#include "model/model.h"
#include "outputs/overlay_internal.h"

/* Every name of the table, by name: which work and which of its names. */
struct table_names {
	const struct profile_set *set;
	size_t *work, *function, count;
	struct hash_table table;
};

static uint64_t text_hash(const char *text)
{
	return hash_keyed(text, strlen(text));
}

static const char *table_name(const struct table_names *names, size_t i)
{
	return names->set->works[names->work[i]].functions[names->function[i]];
}

static uint64_t table_name_hash(const void *context, size_t index)
{
	return text_hash(table_name(context, index));
}

static void table_names_build(const struct profile_set *set, struct table_names *names)
{
	memset(names, 0, sizeof(*names));
	names->set = set;
	names->work = xcalloc(set->work_count * SAME_WORK_NAMES + 1, sizeof(size_t));
	names->function = xcalloc(set->work_count * SAME_WORK_NAMES + 1, sizeof(size_t));
	for (size_t w = 0; w < set->work_count; w++)
		for (size_t f = 0; f < set->works[w].function_count; f++) {
			names->work[names->count] = w;
			names->function[names->count] = f;
			hash_add(&names->table, text_hash(set->works[w].functions[f]), names->count, table_name_hash, names);
			names->count++;
		}
}

static size_t table_find(const struct table_names *names, const char *symbol)
{
	struct hash_probe probe;
	for (size_t i = hash_first(&names->table, text_hash(symbol), &probe); i != HASH_NONE;
	     i = hash_next(&names->table, &probe))
		if (!strcmp(table_name(names, i), symbol))
			return i;
	return SIZE_MAX;
}

static void table_names_free(struct table_names *names)
{
	hash_free(&names->table);
	free(names->work);
	free(names->function);
}

/* at[w * SAME_WORK_NAMES + f]: the listing's entry for name f of work w, or
 * SIZE_MAX.  One pass over the listing (it may hold 10^5 symbols). */
static size_t *listed_at(const struct table_names *names, const struct perf_samples *listing)
{
	size_t slots = names->set->work_count * SAME_WORK_NAMES;
	size_t *at = xcalloc(slots + 1, sizeof(size_t));
	for (size_t i = 0; i < slots; i++)
		at[i] = SIZE_MAX;
	for (size_t i = 0; i < listing->count; i++) {
		size_t n = table_find(names, listing->items[i].symbol);
		if (n != SIZE_MAX)
			at[names->work[n] * SAME_WORK_NAMES + names->function[n]] = i;
	}
	return at;
}

/* Whether the two listings give the work's names differently, each giving
 * at least one: then only their sums compare like with like. */
static bool names_differ(const struct same_work *w, const size_t *after_at, const size_t *before_at)
{
	bool after_any = false, before_any = false, differ = false;
	for (size_t f = 0; f < w->function_count; f++) {
		after_any |= after_at[f] != SIZE_MAX;
		before_any |= before_at[f] != SIZE_MAX;
		differ |= (after_at[f] != SIZE_MAX) != (before_at[f] != SIZE_MAX);
	}
	return after_any && before_any && differ;
}

/* The name the sums go under: the largest of the AFTER listing's names that
 * the graph has, else the BEFORE listing's, else the AFTER listing's
 * largest (then unplaced, like any symbol the graph lacks). */
static const char *join_target(const struct same_work *w, const size_t *after_at, const size_t *before_at,
			       const struct graph_names *index)
{
	const size_t *sides[3] = { after_at, before_at, after_at };
	for (int pass = 0; pass < 3; pass++) {
		size_t best = SIZE_MAX, best_at = SIZE_MAX;
		for (size_t f = 0; f < w->function_count; f++) {
			size_t at = sides[pass][f];
			bool on_graph = pass == 2 || graph_names_first(index, w->functions[f]) != SIZE_MAX;
			if (at != SIZE_MAX && on_graph && at < best_at) {   /* listings: largest first */
				best = f;
				best_at = at;
			}
		}
		if (best != SIZE_MAX)
			return w->functions[best];
	}
	return w->functions[0];
}

/* Sum the listing's entries of the work into its first one, renamed to
 * target; the others lose their symbol (dropped by drop_joined).  names
 * gets "a+b" in the listing's order. */
static void join_listing(struct perf_samples *listing, const struct same_work *w, const size_t *at,
			 const char *target, char *names, size_t size)
{
	size_t first = SIZE_MAX, used = 0;
	for (size_t f = 0; f < w->function_count; f++)
		first = at[f] < first ? at[f] : first;
	struct perf_sample *sum = &listing->items[first];
	names[0] = '\0';
	for (size_t i = first; i < listing->count; i++) {
		struct perf_sample *item = &listing->items[i];
		bool member = false;
		for (size_t f = 0; f < w->function_count && !member; f++)
			member = at[f] == i;
		if (!member)
			continue;
		if (used < size)
			used += (size_t)snprintf(names + used, size - used, "%s%s", used ? "+" : "", item->symbol);
		if (item == sum)
			continue;
		sum->percent += item->percent;
		sum->samples += item->samples;
		sum->has_samples = sum->has_samples && item->has_samples;
		free(item->symbol);
		item->symbol = NULL;
	}
	if (strcmp(sum->symbol, target)) {
		free(sum->symbol);
		sum->symbol = xstrdup(target);
	}
}

/* The entries a join emptied, taken out (order kept: largest first but for
 * the sums, which no reader relies on). */
static void drop_joined(struct perf_samples *listing)
{
	size_t kept = 0;
	for (size_t i = 0; i < listing->count; i++)
		if (listing->items[i].symbol)
			listing->items[kept++] = listing->items[i];
	listing->count = kept;
}

void overlay_join_renames(const struct profile_set *set, struct perf_samples *after, struct perf_samples *before,
			  const struct graph_names *index, struct graph_overlay *overlay)
{
	struct table_names names;
	table_names_build(set, &names);
	size_t *after_at = listed_at(&names, after), *before_at = listed_at(&names, before);
	overlay->joins = xcalloc(set->work_count + 1, sizeof(*overlay->joins));
	for (size_t w = 0; w < set->work_count; w++) {
		const struct same_work *work = &set->works[w];
		const size_t *a = after_at + w * SAME_WORK_NAMES, *b = before_at + w * SAME_WORK_NAMES;
		if (!names_differ(work, a, b))
			continue;
		struct overlay_join *join = &overlay->joins[overlay->join_count++];
		snprintf(join->work, sizeof(join->work), "%s", work->id);
		snprintf(join->description, sizeof(join->description), "%s", work->description);
		snprintf(join->on, sizeof(join->on), "%s", join_target(work, a, b, index));
		join_listing(after, work, a, join->on, join->after, sizeof(join->after));
		join_listing(before, work, b, join->on, join->before, sizeof(join->before));
	}
	drop_joined(after);
	drop_joined(before);
	free(after_at);
	free(before_at);
	table_names_free(&names);
}
