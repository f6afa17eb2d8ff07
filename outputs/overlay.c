/*
 * outputs/overlay.c - the call-graph overlay's one room: what a workload does
 * on the rmap paths, resolved against the analysed graph once, for every
 * writer (picture, JSON, XML) to read by node and edge index.
 *
 *  - Events (--overlay-events SNAPSHOT): the cost model runs on the snapshot
 *    under one design (default: the design of the tree's era, the rule of
 *    profiles_fit) and its fork and exit figures go on the rmap functions
 *    that do the work and on the call that makes them (fork: the PTE-copy
 *    function -> the era's rmap add/dup function; exit: the zap function ->
 *    the rmap remove function).  The names are a table across eras; a name
 *    missing from a tree matches nothing.
 *  - Samples (--overlay-profile FILE [--versus BEFORE]): each function's
 *    share of a kernel profile (inputs/perf_samples.c reads the text), and of
 *    a baseline profile; symbols that name no function of the graph are
 *    listed as unplaced.  Two listings that name one piece of work
 *    differently (2.4's zap_page_range, 2.5's zap_pte_range) are compared
 *    on their sums (the era rename table: outputs/overlay_renames.c).
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/escape.h"
#include "base/hash.h"
#include "inputs/snapshot.h"
#include "model/model.h"
#include "outputs/overlay_internal.h"
#include "outputs/report.h"

const char *const overlay_event_names[OVERLAY_EVENT_COUNT] = { "fork", "exit", "fault", "munmap", "reclaim" };
const char *const overlay_only_in_names[3] = { "", "new", "old" };
const char *const overlay_compare_names[] = { "", "shares", "counts", NULL };

/* The model's figures an rmap function can carry (docs/cost-model.md section 7). */
enum event_figure {
	FORK_ALL, FORK_ANON, FORK_FILE, FORK_CHAINS, FORK_CLONED_CHAINS, FORK_ANON_VMA, FORK_ANON_PMDS,
	FORK_ANON_PTES,         /* 6.8 on: the PTE functions apart from the PMD ones */
	EXIT_ALL, EXIT_FILE, EXIT_UNLINKS, EXIT_ANON_PMDS, EXIT_PMDS, EXIT_PTES,
	ADD_ALL,                /* every fault's add: 2.4/2.5 page_add_rmap */
	ADD_NEW_ANON,         /* first touch and COW: page_add_new_anon_rmap */
	ADD_ANON,             /* first touch, COW and swap-in, or swap-in alone where the
				   graph has a new-anon function */
	ADD_SWAP, ADD_FILE, ADD_FILE_PTES, COW_REMOVES, PREPARES, FAULT_CHAIN_ALLOCATIONS,
	COW_CHAIN_FREES,        /* 2.4-rmap: the pte_chain a COW's removal frees (cow_frees_known) */
	FAULT_FILE_PMDS,        /* a file THP mapped by a PMD: one call (do_set_pmd) */
	COW_FILE_REMOVES,       /* 6.1 page_remove_file_rmap: the file page a COW leaves */
	MUNMAP_ALL, MUNMAP_FILE, MUNMAP_UNLINKS, MUNMAP_SPLITS, MUNMAP_ANON_PMDS, MUNMAP_PMDS, MUNMAP_PTES,
	/* reclaim ages a page (page_referenced) and unmaps it (try_to_unmap):
	 * two walks of the same length; rmap_walk serves both from 3.x */
	RECLAIM_UNMAP, RECLAIM_REFERENCED, RECLAIM_WALKS,
	RECLAIM_ANON_UNMAP, RECLAIM_ANON_REFERENCED, RECLAIM_ANON_WALKS, RECLAIM_ANON_LOCKS,
	RECLAIM_ANON_WALK_LOCKS, RECLAIM_ANON_REFERENCED_LOCKS,
	RECLAIM_FILE_UNMAP, RECLAIM_FILE_REFERENCED, RECLAIM_FILE_WALKS,
	RECLAIM_UNMAP_VISITS, RECLAIM_REFERENCED_VISITS, RECLAIM_REMOVES,
	RECLAIM_LOCKED_WALKS,   /* try_to_unmap under TTU_RMAP_LOCKED: THP split, migration, not reclaim */
	FIGURE_COUNT
};

/* Which kinds of fault (enum fault_kind bits) a fault figure counts. */
#define KIND(k) (1u << (k))
#define ALL_KINDS (KIND(FAULT_ANON) | KIND(FAULT_COW) | KIND(FAULT_FILE) | KIND(FAULT_SWAP))

/*
 * Which rmap functions do the work the model counts, across the eras.  Where
 * an era has a batched and a single-PTE variant the model does not tell
 * apart, the figure goes on the first one the graph has and the other says
 * where it is counted.  Functions of the presets no figure fits are listed
 * in docs/cost-model.md section 7 with the reason.
 */
static const struct event_function {
	const char *functions[4];       /* the era's names of this work, first found first; NULL-ended */
	enum overlay_event event;
	enum event_figure figure;
	const char *unit;
} event_functions[] = {
	{ { "page_add_rmap" }, OVERLAY_FORK, FORK_ALL, "PTEs" },  /* 2.4-rmap, 2.5 */
	{ { "pte_chain_alloc" }, OVERLAY_FORK, FORK_CHAINS, "pte_chains" },  /* 2.4-rmap, 2.5 */
	{ { "page_dup_rmap", "__page_dup_rmap" }, OVERLAY_FORK, FORK_ALL, "PTEs" },  /* 2.6.x - 5.x; 6.1: both dups */
	{ { "page_try_dup_anon_rmap" }, OVERLAY_FORK, FORK_ANON, "PTEs" },  /* 5.19 - 6.7 */
	{ { "page_dup_file_rmap" }, OVERLAY_FORK, FORK_FILE, "PTEs" },  /* 5.19 - 6.7 */
	/* 6.8 on, batched */
	{ { "folio_try_dup_anon_rmap_ptes", "folio_try_dup_anon_rmap_pte" }, OVERLAY_FORK, FORK_ANON_PTES, "PTEs" },
	{ { "folio_dup_file_rmap_ptes", "folio_dup_file_rmap_pte" }, OVERLAY_FORK, FORK_FILE, "PTEs" },
	{ { "anon_vma_link", "anon_vma_fork" }, OVERLAY_FORK, FORK_ANON_VMA, "VMAs" },  /* 2.6.7 - 2.6.33; 2.6.34 on */
	{ { "anon_vma_clone" }, OVERLAY_FORK, FORK_CLONED_CHAINS, "anon_vma_chains" },  /* 2.6.34 on */
	{ { "folio_try_dup_anon_rmap_pmd" }, OVERLAY_FORK, FORK_ANON_PMDS, "PMDs" },  /* 6.8 on */
	{ { "page_remove_rmap" }, OVERLAY_EXIT, EXIT_ALL, "PTEs" },  /* 2.4 - 6.7 */
	/* 6.8 on, batched */
	{ { "folio_remove_rmap_ptes", "folio_remove_rmap_pte" }, OVERLAY_EXIT, EXIT_PTES, "PTEs" },
	{ { "page_remove_file_rmap" }, OVERLAY_EXIT, EXIT_FILE, "PTEs" },  /* 5.x - 6.2 */
	{ { "page_remove_anon_compound_rmap" }, OVERLAY_EXIT, EXIT_ANON_PMDS, "PMDs" },
	{ { "folio_remove_rmap_pmd" }, OVERLAY_EXIT, EXIT_PMDS, "PMDs" },  /* 6.8 on */
	/* 2.6.7 - 2.6.33; 2.6.34 on */
	{ { "anon_vma_unlink", "unlink_anon_vmas" }, OVERLAY_EXIT, EXIT_UNLINKS, "VMAs" },
	{ { "page_add_rmap" }, OVERLAY_FAULT, ADD_ALL, "PTEs" },  /* 2.4-rmap, 2.5 */
	{ { "pte_chain_alloc" }, OVERLAY_FAULT, FAULT_CHAIN_ALLOCATIONS, "pte_chains" },
	{ { "pte_chain_free" }, OVERLAY_FAULT, COW_CHAIN_FREES, "pte_chains" },
	/* 2.6.16 - 6.2; 6.3 on */
	{ { "page_add_new_anon_rmap", "folio_add_new_anon_rmap" }, OVERLAY_FAULT, ADD_NEW_ANON, "PTEs" },
	{ { "page_add_anon_rmap" }, OVERLAY_FAULT, ADD_ANON, "PTEs" },  /* 2.6.7 - 6.7 */
	/* 3.x - 5.x swap-in; 6.8 on */
	{ { "do_page_add_anon_rmap", "folio_add_anon_rmap_ptes", "folio_add_anon_rmap_pte" },
	  OVERLAY_FAULT, ADD_SWAP, "PTEs" },
	{ { "page_add_file_rmap" }, OVERLAY_FAULT, ADD_FILE, "PTEs" },  /* 2.6.7 - 6.2 */
	/* 6.8 on */
	{ { "folio_add_file_rmap_ptes", "folio_add_file_rmap_pte" }, OVERLAY_FAULT, ADD_FILE_PTES, "PTEs" },
	{ { "folio_add_file_rmap_range" }, OVERLAY_FAULT, ADD_FILE, "PTEs" },  /* 6.3 - 6.7 */
	{ { "folio_add_file_rmap_pmd" }, OVERLAY_FAULT, FAULT_FILE_PMDS, "PMDs" },
	{ { "page_remove_file_rmap" }, OVERLAY_FAULT, COW_FILE_REMOVES, "PTEs" },
	{ { "page_remove_rmap", "folio_remove_rmap_ptes", "folio_remove_rmap_pte" }, OVERLAY_FAULT, COW_REMOVES, "PTEs" },
	/* 2.6.7 on; 4.x on: the slow part */
	{ { "anon_vma_prepare", "__anon_vma_prepare" }, OVERLAY_FAULT, PREPARES, "calls" },
	{ { "page_remove_rmap" }, OVERLAY_MUNMAP, MUNMAP_ALL, "PTEs" },
	{ { "folio_remove_rmap_ptes", "folio_remove_rmap_pte" }, OVERLAY_MUNMAP, MUNMAP_PTES, "PTEs" },
	{ { "page_remove_file_rmap" }, OVERLAY_MUNMAP, MUNMAP_FILE, "PTEs" },
	{ { "page_remove_anon_compound_rmap" }, OVERLAY_MUNMAP, MUNMAP_ANON_PMDS, "PMDs" },
	{ { "folio_remove_rmap_pmd" }, OVERLAY_MUNMAP, MUNMAP_PMDS, "PMDs" },
	{ { "anon_vma_clone" }, OVERLAY_MUNMAP, MUNMAP_SPLITS, "anon_vma_chains" },
	{ { "anon_vma_unlink", "unlink_anon_vmas" }, OVERLAY_MUNMAP, MUNMAP_UNLINKS, "VMAs" },
	{ { "try_to_unmap" }, OVERLAY_RECLAIM, RECLAIM_UNMAP, "pages" },
	{ { "page_referenced", "folio_referenced" }, OVERLAY_RECLAIM, RECLAIM_REFERENCED, "pages" },
	{ { "rmap_walk" }, OVERLAY_RECLAIM, RECLAIM_WALKS, "walks" },  /* 3.x on */
	{ { "try_to_unmap_anon" }, OVERLAY_RECLAIM, RECLAIM_ANON_UNMAP, "pages" },  /* 2.6.7 - 3.x */
	{ { "page_referenced_anon" }, OVERLAY_RECLAIM, RECLAIM_ANON_REFERENCED, "pages" },
	{ { "rmap_walk_anon" }, OVERLAY_RECLAIM, RECLAIM_ANON_WALKS, "walks" },
	{ { "page_lock_anon_vma" }, OVERLAY_RECLAIM, RECLAIM_ANON_LOCKS, "walks" },  /* 2.6.7 - 3.8: both walks */
	{ { "rmap_walk_anon_lock" }, OVERLAY_RECLAIM, RECLAIM_ANON_WALK_LOCKS, "walks" },
	/* 3.9 on: the referenced walk's rwc->anon_lock */
	{ { "page_lock_anon_vma_read", "folio_lock_anon_vma_read" }, OVERLAY_RECLAIM, RECLAIM_ANON_REFERENCED_LOCKS,
	  "pages" },
	{ { "try_to_unmap_file" }, OVERLAY_RECLAIM, RECLAIM_FILE_UNMAP, "pages" },
	{ { "page_referenced_file" }, OVERLAY_RECLAIM, RECLAIM_FILE_REFERENCED, "pages" },
	{ { "rmap_walk_file" }, OVERLAY_RECLAIM, RECLAIM_FILE_WALKS, "walks" },
	{ { "rmap_walk_locked" }, OVERLAY_RECLAIM, RECLAIM_LOCKED_WALKS, "walks" },
	{ { "try_to_unmap_one" }, OVERLAY_RECLAIM, RECLAIM_UNMAP_VISITS, "visits" },
	{ { "page_referenced_one", "folio_referenced_one" }, OVERLAY_RECLAIM, RECLAIM_REFERENCED_VISITS, "visits" },
	{ { "page_remove_rmap", "folio_remove_rmap_ptes", "folio_remove_rmap_pte" }, OVERLAY_RECLAIM, RECLAIM_REMOVES, "PTEs" },
};
#define EVENT_FUNCTION_COUNT (sizeof(event_functions) / sizeof(event_functions[0]))

/* The functions that make those calls, most specific first: the call from
 * the first of them a graph has carries the count.  Faults are apart:
 * each kind of fault has its own callers (fault_doers). */
static const char *const doers[OVERLAY_EVENT_COUNT][16] = {
	[OVERLAY_FORK] = { "copy_present_ptes", "copy_present_pte", "copy_one_pte", "copy_pte_range",
			   "copy_page_range", "page_add_rmap", "anon_vma_fork", "dup_mmap", NULL },
	[OVERLAY_EXIT] = { "zap_present_folio_ptes", "zap_present_ptes", "zap_present_pte",
			   "zap_pte_range", "zap_page_range", "unmap_page_range", "page_remove_rmap",
			   "free_pgtables", "exit_mmap", NULL },
	[OVERLAY_MUNMAP] = { "zap_present_folio_ptes", "zap_present_ptes", "zap_present_pte",
			     "zap_pte_range", "zap_page_range", "unmap_page_range", "page_remove_rmap",
			     "free_pgtables", "__split_vma", "split_vma", NULL },
	[OVERLAY_RECLAIM] = { "try_to_unmap_one", "try_to_unmap_anon", "try_to_unmap_file", "rmap_walk_anon",
			      "rmap_walk_file", "rmap_walk", "page_referenced_anon", "page_referenced_file",
			      "try_to_unmap", "page_referenced", "shrink_folio_list", "shrink_page_list",
			      "shrink_list", "shrink_cache", NULL },
};

/* The callers of each kind of fault's rmap calls, most specific first. */
static const char *const fault_doers[FAULT_KIND_COUNT][8] = {
	[FAULT_ANON] = { "do_anonymous_page", NULL },
	[FAULT_COW] = { "wp_page_copy", "do_wp_page", "page_remove_rmap", NULL },
	[FAULT_FILE] = { "set_pte_range", "do_set_pte", "finish_fault", "__do_fault", "do_no_page", NULL },
	[FAULT_SWAP] = { "do_swap_page", NULL },
};

/* The callers that handle a PMD-mapped THP: their call carries the figure's
 * PMD part (pmd_part), the PTE doer's the rest. */
static const char *const pmd_doers[OVERLAY_EVENT_COUNT][4] = {
	[OVERLAY_FORK] = { "copy_huge_pmd", NULL },
	[OVERLAY_EXIT] = { "zap_huge_pmd", NULL },
	[OVERLAY_MUNMAP] = { "zap_huge_pmd", NULL },
};
static const char *const pmd_fault_doers[FAULT_KIND_COUNT][4] = {
	[FAULT_ANON] = { "__do_huge_pmd_anonymous_page", "do_huge_pmd_anonymous_page", NULL },
	[FAULT_FILE] = { "do_set_pmd", NULL },
};

struct overlay_inputs {
	struct overlay_request request;
	struct snapshot *snapshot;      /* read here, or the given result's */
	const struct snapshot *events;  /* the snapshot whose events are placed, or NULL */
	struct profile_set profiles;
	struct perf_samples after, before;
};

struct owned {
	struct perf_samples after, before;
};

int overlay_prepare(const struct overlay_request *request, struct overlay_inputs **result,
		    struct error *error)
{
	struct overlay_inputs *in = xcalloc(1, sizeof(*in));
	struct read_options read = { .progress = request->progress };
	*result = in;
	in->request = *request;
	if (request->snapshot && !request->result && snapshot_read(request->snapshot, &read, &in->snapshot, error))
		return -1;
	in->events = request->result ? request->result->snapshot : in->snapshot;
	/* the built-in profiles (designs; the era rename table for two
	 * listings) are part of the program: failing them is internal */
	bool renames = request->baseline_profile && !request->by_name;
	if ((in->events || renames) && profiles_load_builtin(&in->profiles, error))
		return error_mark_internal(error);
	if (in->events && request->design && !profiles_find_rmap(&in->profiles, request->design))
		return error_set(error, NULL, 0, "callgraph: --design: unknown rmap design '%s' (see `ptscope profiles`)",
				 request->design);
	if (request->profile && perf_samples_read(request->profile, &in->after, error))
		return -1;
	if (request->baseline_profile && perf_samples_read(request->baseline_profile, &in->before, error))
		return -1;
	return 0;
}

void overlay_inputs_free(struct overlay_inputs *in)
{
	if (!in)
		return;
	snapshot_free(in->snapshot);
	profiles_free(&in->profiles);
	perf_samples_free(&in->after);
	perf_samples_free(&in->before);
	free(in);
}

/* ---- symbol names ------------------------------------------------------ */

static uint64_t name_hash(const char *name)
{
	return hash_keyed(name, strlen(name));
}

/* ---- events ------------------------------------------------------------- */

/* What the graph says about the era's names: whether it has a function
 * for new anonymous pages (then page_add_anon_rmap is swap-in's alone). */
struct graph_era {
	bool has_new_anon;
};

static uint64_t fault_sum(const struct model_design *d, unsigned kinds)
{
	uint64_t n = 0;
	for (int k = 0; k < FAULT_KIND_COUNT; k++)
		n += kinds & KIND(k) ? d->work.faults[k].faults : 0;
	return n;
}

/* The fault kinds an add figure counts. */
static unsigned figure_kinds(enum event_figure figure, const struct graph_era *era)
{
	switch (figure) {
	case ADD_ALL: return ALL_KINDS;
	case ADD_NEW_ANON: return KIND(FAULT_ANON) | KIND(FAULT_COW);
	case ADD_ANON:
		return era->has_new_anon ? KIND(FAULT_SWAP)
					 : KIND(FAULT_ANON) | KIND(FAULT_COW) | KIND(FAULT_SWAP);
	case ADD_SWAP: return KIND(FAULT_SWAP);
	case ADD_FILE: case ADD_FILE_PTES: return KIND(FAULT_FILE);
	case COW_REMOVES: case COW_FILE_REMOVES: return KIND(FAULT_COW);
	default: return 0;
	}
}

/* Where each job's walk over the page tables starts: a doer counts only when
 * the job reaches it.  2.4 and 2.5 also had a copy_one_pte, mremap's (it
 * moves a PTE and calls page_add_rmap), which fork never calls. */
static const char *const job_roots[OVERLAY_EVENT_COUNT] = {
	[OVERLAY_FORK] = "dup_mmap",
	[OVERLAY_EXIT] = "exit_mmap",
};

/* reached[n]: node n is reached from the job's root, or the graph lacks
 * the root (nothing is ruled out then). */
static bool *job_reach(const struct callgraph *graph, enum overlay_event event)
{
	bool *reached = xcalloc(graph->node_count + 1, sizeof(*reached));
	size_t *queue = xcalloc(graph->node_count + 1, sizeof(*queue)), queued = 0;
	for (size_t n = 0; n < graph->node_count; n++)
		if (job_roots[event] && !strcmp(graph->nodes[n].name, job_roots[event]) && !reached[n]) {
			reached[n] = true;
			queue[queued++] = n;
		}
	if (!queued)
		for (size_t n = 0; n < graph->node_count; n++)
			reached[n] = true;
	for (size_t head = 0; head < queued; head++)
		for (size_t e = 0; e < graph->edge_count; e++)
			if (graph->edges[e].from == queue[head] && !reached[graph->edges[e].to]) {
				reached[graph->edges[e].to] = true;
				queue[queued++] = graph->edges[e].to;
			}
	free(queue);
	return reached;
}

/* A fault figure restricted to the faults of the given kinds. */
static unsigned long long fault_figure(const struct model_design *d, enum event_figure figure, unsigned kinds,
				       const struct graph_era *era)
{
	uint64_t n = 0;
	switch (figure) {
	case PREPARES:
		for (int k = 0; k < FAULT_KIND_COUNT; k++)
			n += kinds & KIND(k) ? d->work.faults[k].anon_vma_prepares : 0;
		return n;
	case FAULT_CHAIN_ALLOCATIONS:
		for (int k = 0; k < FAULT_KIND_COUNT; k++)
			n += kinds & KIND(k) ? d->work.faults[k].chain_allocations : 0;
		return n;
	case COW_CHAIN_FREES:
		return kinds & KIND(FAULT_COW) ? d->work.faults[FAULT_COW].chain_frees : 0;
	case FAULT_FILE_PMDS:
		return kinds & KIND(FAULT_FILE) ? d->work.faults[FAULT_FILE].pmd_faults : 0;
	case ADD_FILE_PTES:
		return kinds & KIND(FAULT_FILE) ? d->work.faults[FAULT_FILE].faults - d->work.faults[FAULT_FILE].pmd_faults : 0;
	default:
		return fault_sum(d, kinds & figure_kinds(figure, era));
	}
}

static unsigned long long figure_of(const struct model_design *d, enum event_figure figure,
				    const struct graph_era *era)
{
	const struct event_work *w = &d->work;
	const struct reclaim_work *r = &d->reclaim;
	switch (figure) {
	case FORK_ALL: return w->fork_rmap_calls;
	case FORK_ANON: return w->fork_rmap_anon_calls;
	case FORK_ANON_PTES: return w->fork_rmap_anon_calls - w->fork_rmap_pmd_calls;
	case FORK_FILE: return w->fork_rmap_calls - w->fork_rmap_anon_calls;
	case FORK_CHAINS: return w->fork_chain_allocations;
	/* anon_vma_fork allocates one chain a VMA, anon_vma_clone the copies */
	case FORK_CLONED_CHAINS: return w->fork_chain_allocations - w->fork_anon_vma_calls;
	case FORK_ANON_VMA: return w->fork_anon_vma_calls;
	case FORK_ANON_PMDS: return w->fork_rmap_pmd_calls;
	case EXIT_ANON_PMDS: case MUNMAP_ANON_PMDS: return w->exit_rmap_anon_pmd_calls;
	case EXIT_PMDS: case MUNMAP_PMDS: return w->exit_rmap_pmd_calls;
	case EXIT_ALL: case MUNMAP_ALL: return w->exit_rmap_calls;
	case EXIT_PTES: case MUNMAP_PTES: return w->exit_rmap_calls - w->exit_rmap_pmd_calls;
	case EXIT_FILE: case MUNMAP_FILE: return w->exit_rmap_calls - w->exit_rmap_anon_calls;
	case EXIT_UNLINKS: case MUNMAP_UNLINKS: return w->exit_anon_vma_unlinks;
	/* munmap of whole VMAs splits none; reclaim walks unlocked */
	case MUNMAP_SPLITS: case RECLAIM_LOCKED_WALKS: return 0;
	case COW_FILE_REMOVES: return w->faults[FAULT_COW].faults;
	/* one walk a page, or a PMD-mapped THP on whole designs */
	case RECLAIM_UNMAP: case RECLAIM_REFERENCED: return r->walks;
	case RECLAIM_WALKS: return 2 * r->walks;
	case RECLAIM_ANON_UNMAP: case RECLAIM_ANON_REFERENCED: return r->anon_walks;
	case RECLAIM_ANON_WALKS: case RECLAIM_ANON_LOCKS: case RECLAIM_ANON_WALK_LOCKS: return 2 * r->anon_walks;
	case RECLAIM_ANON_REFERENCED_LOCKS: return r->anon_walks;
	case RECLAIM_FILE_UNMAP: case RECLAIM_FILE_REFERENCED: return r->walks - r->anon_walks;
	case RECLAIM_FILE_WALKS: return 2 * (r->walks - r->anon_walks);
	case RECLAIM_UNMAP_VISITS: case RECLAIM_REFERENCED_VISITS: return r->visited;
	case RECLAIM_REMOVES: return r->removes;
	default: return fault_figure(d, figure, ALL_KINDS, era);
	}
}

static int rank_in(const char *const *names, const char *name)
{
	for (int r = 0; names[r]; r++)
		if (!strcmp(names[r], name))
			return r;
	return -1;
}

/* Each figure on the first function of the table that the graph has. */
static void place_node_events(const struct model_design *d, struct graph_names *index, const struct graph_era *era,
			      struct graph_overlay *overlay, enum event_figure *node_figures)
{
	const char *placed_on[FIGURE_COUNT] = { NULL };
	for (const struct event_function *f = event_functions; f < event_functions + EVENT_FUNCTION_COUNT; f++) {
		/* a figure the design cannot give from a snapshot (section 7) */
		if (f->figure == COW_CHAIN_FREES && !d->cow_frees_known)
			continue;
		for (const char *const *function = f->functions; *function; function++) {
			for (size_t n = graph_names_first(index, *function); n != SIZE_MAX; n = index->next[n]) {
				struct overlay_node *node = &overlay->nodes[n];
				if (placed_on[f->figure] && strcmp(placed_on[f->figure], *function)) {
					if (node->pricing != OVERLAY_PRICED) {
						node->pricing = OVERLAY_COUNTED_ELSEWHERE;
						node->counted_on = placed_on[f->figure];
					}
					continue;
				}
				placed_on[f->figure] = *function;
				node->pricing = OVERLAY_PRICED;
				node->events.count[f->event] += figure_of(d, f->figure, era);
				node->events.has[f->event] = true;
				node->events.unit = node->events.unit ? node->events.unit : f->unit;
				node_figures[n * OVERLAY_EVENT_COUNT + f->event] = f->figure;
			}
		}
	}
}

static void put_edge(struct graph_overlay *overlay, size_t edge, enum overlay_event ev, unsigned long long count,
		     const char *unit)
{
	struct overlay_edge *e = &overlay->edges[edge];
	e->events.count[ev] = count;
	e->events.has[ev] = true;
	e->events.unit = unit;
	if (count > overlay->largest_edge_count)
		overlay->largest_edge_count = count;
}

/* The call into `to` from the first caller of the list the graph has,
 * among the callers the job reaches. */
static size_t best_caller(const struct callgraph *graph, size_t to, const char *const *callers,
			  const bool *reached)
{
	size_t best = SIZE_MAX;
	int best_rank = -1;
	for (size_t e = 0; e < graph->edge_count; e++) {
		if (graph->edges[e].to != to || !reached[graph->edges[e].from])
			continue;
		int rank = rank_in(callers, graph->nodes[graph->edges[e].from].name);
		if (rank >= 0 && (best_rank < 0 || rank < best_rank)) {
			best = e;
			best_rank = rank;
		}
	}
	return best;
}

/* Reclaim's calls that share a function's count: a walker's call into the
 * per-VMA function carries the visits of its kind of page (rmap_walk_anon:
 * anonymous pages'), and each of the two walks (aging, unmapping) calls
 * rmap_walk once a page.  False: the function takes the general rule. */
static bool place_walk_edges(const struct callgraph *graph, size_t to, enum event_figure figure,
			     const struct reclaim_work *r, struct graph_overlay *overlay)
{
	static const char *const walks[] = { "try_to_unmap", "folio_referenced", "page_referenced", NULL };
	bool visits = figure == RECLAIM_UNMAP_VISITS || figure == RECLAIM_REFERENCED_VISITS;
	if (!visits && figure != RECLAIM_WALKS)
		return false;
	const char *unit = overlay->nodes[to].events.unit;
	for (size_t e = 0; e < graph->edge_count; e++) {
		if (graph->edges[e].to != to)
			continue;
		const char *caller = graph->nodes[graph->edges[e].from].name;
		if (!visits) {
			if (rank_in(walks, caller) >= 0)
				put_edge(overlay, e, OVERLAY_RECLAIM, r->walks, unit);
			continue;
		}
		if (rank_in(doers[OVERLAY_RECLAIM], caller) < 0 || strstr(caller, "shrink"))
			continue;
		unsigned long long count = strstr(caller, "_anon") ? r->anon_visited
					   : strstr(caller, "_file") ? r->visited - r->anon_visited : r->visited;
		put_edge(overlay, e, OVERLAY_RECLAIM, count, unit);
	}
	return true;
}

/* The part of a figure that PMD-mapped THPs' calls make (the design's
 * <huge-pmd rmap="whole">; 0 elsewhere): a PMD-only function's whole
 * count, an rmap function's calls for PMDs. */
static unsigned long long pmd_part(const struct model_design *d, enum event_figure figure, unsigned long long all)
{
	const struct event_work *w = &d->work;
	switch (figure) {
	case FORK_ALL: case FORK_ANON: return w->fork_rmap_pmd_calls;
	case EXIT_ALL: case MUNMAP_ALL: return w->exit_rmap_pmd_calls;
	case EXIT_FILE: case MUNMAP_FILE: return w->exit_rmap_pmd_calls - w->exit_rmap_anon_pmd_calls;
	case FORK_ANON_PMDS: case EXIT_ANON_PMDS: case MUNMAP_ANON_PMDS: case EXIT_PMDS: case MUNMAP_PMDS: return all;
	default: return 0;
	}
}

static unsigned long long fault_pmd_part(const struct model_design *d, enum event_figure figure, enum fault_kind k,
					 const struct graph_era *era)
{
	uint64_t pmd = d->work.faults[k].pmd_faults;
	switch (figure) {
	case PREPARES: return d->work.faults[k].anon_vma_prepares ? pmd : 0;
	case FAULT_FILE_PMDS: return k == FAULT_FILE ? pmd : 0;
	case FAULT_CHAIN_ALLOCATIONS: case COW_REMOVES: case COW_FILE_REMOVES: case ADD_FILE_PTES: case COW_CHAIN_FREES:
		return 0;
	default: return figure_kinds(figure, era) & KIND(k) ? pmd : 0;
	}
}

/* A count split between the call from the PTE doer and, where the graph
 * has one, the call from the PMD doer, which carries the PMD part. */
static void put_split(struct graph_overlay *overlay, size_t pte_edge, size_t pmd_edge, enum overlay_event ev,
		      unsigned long long all, unsigned long long pmd, const char *unit)
{
	if (pmd_edge != SIZE_MAX && pmd_edge != pte_edge)
		put_edge(overlay, pmd_edge, ev, pmd, unit);
	else
		pmd = 0;
	if (pte_edge != SIZE_MAX)
		put_edge(overlay, pte_edge, ev, all - pmd, unit);
}

/* The call from the most specific doer into each priced function carries
 * that function's count (less the PMD part a PMD doer's call carries); a
 * fault's calls carry the faults of the kind their caller makes. */
static void place_edge_events(const struct callgraph *graph, const struct model_design *d, const struct graph_era *era,
			      const enum event_figure *node_figures, struct graph_overlay *overlay)
{
	bool *reached[OVERLAY_EVENT_COUNT];
	for (int ev = 0; ev < OVERLAY_EVENT_COUNT; ev++)
		reached[ev] = job_reach(graph, (enum overlay_event)ev);
	for (size_t to = 0; to < graph->node_count; to++) {
		const struct overlay_node *node = &overlay->nodes[to];
		for (int ev = 0; node->pricing == OVERLAY_PRICED && ev < OVERLAY_EVENT_COUNT; ev++) {
			if (!node->events.has[ev])
				continue;
			enum event_figure figure = node_figures[to * OVERLAY_EVENT_COUNT + ev];
			if (ev == OVERLAY_RECLAIM && place_walk_edges(graph, to, figure, &d->reclaim, overlay))
				continue;
			unsigned long long count = node->events.count[ev];
			if (ev != OVERLAY_FAULT) {
				put_split(overlay, best_caller(graph, to, doers[ev], reached[ev]),
					  best_caller(graph, to, pmd_doers[ev], reached[ev]), (enum overlay_event)ev,
					  count, pmd_part(d, figure, count), node->events.unit);
				continue;
			}
			for (int k = 0; k < FAULT_KIND_COUNT; k++)
				put_split(overlay, best_caller(graph, to, fault_doers[k], reached[ev]),
					  best_caller(graph, to, pmd_fault_doers[k], reached[ev]), OVERLAY_FAULT,
					  fault_figure(d, figure, KIND(k), era), fault_pmd_part(d, figure, (enum fault_kind)k, era),
					  node->events.unit);
		}
	}
	for (int ev = 0; ev < OVERLAY_EVENT_COUNT; ev++)
		free(reached[ev]);
}

/* The model result with the design's figures: the given one when it
 * modelled that design, else a run on the snapshot under it alone (*own,
 * which the caller frees); *figures is the design's entry in it. */
static const struct model_result *events_result(const struct overlay_inputs *in, const struct rmap_profile *design,
						 const struct model_design **figures, struct model_result **own,
						 struct error *error)
{
	const struct model_result *given = in->request.result;
	for (size_t d = 0; given && d < given->design_count; d++)
		if (!strcmp(given->designs[d].profile->id, design->id)) {
			*figures = &given->designs[d];
			return given;
		}
	const struct sharing_rule *no_rules[1] = { NULL };   /* counts only: no sharing rules */
	struct model_options options = { .profiles = &in->profiles, .designs = &design, .design_count = 1,
					 .rules = no_rules, .rule_count = 0 };
	struct error model_error;
	if (model_run(in->events, &options, own, &model_error)) {
		error_set(error, in->events->source, 0, "%s", model_error.message);
		error->status = model_error.status;   /* model/model.c says whose failure it is */
		return NULL;
	}
	*figures = &(*own)->designs[0];
	return *own;
}

static int place_events(struct overlay_inputs *in, const struct callgraph *graph, struct graph_names *index,
			struct graph_overlay *overlay, struct error *error)
{
	const char *release = graph->summary.release;
	const struct rmap_profile *design = in->request.design ? profiles_find_rmap(&in->profiles, in->request.design)
				     : profiles_fit(&in->profiles, in->events->info.arch, release);
	struct model_result *own = NULL;
	const struct model_design *figures = NULL;
	if (!design)
		return error_set(error, NULL, 0, "callgraph: no rmap design fits the snapshot");
	const struct model_result *result = events_result(in, design, &figures, &own, error);
	if (!result)
		return -1;
	struct graph_era names = { graph_names_first(index, "page_add_new_anon_rmap") != SIZE_MAX ||
				 graph_names_first(index, "folio_add_new_anon_rmap") != SIZE_MAX };
	enum event_figure *node_figures = xcalloc(graph->node_count * OVERLAY_EVENT_COUNT + 1, sizeof(*node_figures));
	place_node_events(figures, index, &names, overlay, node_figures);
	for (size_t n = 0; n < graph->node_count; n++)
		if (graph->nodes[n].role == CG_ROLE_SINK && overlay->nodes[n].pricing == OVERLAY_NOT_PRICED)
			overlay->nodes[n].pricing = OVERLAY_NOT_MODELLED;
	place_edge_events(graph, figures, &names, node_figures, overlay);
	free(node_figures);
	char era[96] = "";
	if (!in->request.design)
		snprintf(era, sizeof(era), " (%s%s)", release && release[0] ? "the design of the tree's era, " : "the newest design",
			 release && release[0] ? release : "");
	snprintf(overlay->title, sizeof(overlay->title),
		 "counts: fork and exit (munmap: every VMA) of each of the %zu processes of %s once, every page "
		 "faulted in and reclaimed once, under %s%s",
		 result->processes, in->events->source, design->id, era);
	overlay->has_events = true;
	model_free(own);
	return 0;
}

/* ---- samples ------------------------------------------------------------- */

static struct overlay_share share_of(const struct perf_sample *sample)
{
	return (struct overlay_share){ true, sample->percent, sample->has_samples, sample->samples };
}

/* Unplaced symbols of both profiles, one entry per symbol. */
static uint64_t unplaced_hash(const void *context, size_t index)
{
	const struct graph_overlay *overlay = context;
	return name_hash(overlay->unplaced[index].symbol);
}

static void add_unplaced(struct graph_overlay *overlay, struct hash_table *table,
			 const struct perf_sample *sample, bool baseline)
{
	struct hash_probe probe;
	struct overlay_unplaced *entry = NULL;
	uint64_t hash = name_hash(sample->symbol);
	for (size_t i = hash_first(table, hash, &probe); i != HASH_NONE && !entry; i = hash_next(table, &probe))
		if (!strcmp(overlay->unplaced[i].symbol, sample->symbol))
			entry = &overlay->unplaced[i];
	if (!entry) {
		entry = &overlay->unplaced[overlay->unplaced_count++];
		*entry = (struct overlay_unplaced){ .symbol = sample->symbol };
		hash_add(table, hash, overlay->unplaced_count - 1, unplaced_hash, overlay);
	}
	*(baseline ? &entry->baseline : &entry->share) = share_of(sample);
}

static void place_profile(const struct perf_samples *samples, bool baseline, const struct graph_names *index,
			  struct graph_overlay *overlay, struct hash_table *unplaced)
{
	for (size_t i = 0; i < samples->count; i++) {
		const struct perf_sample *sample = &samples->items[i];
		size_t n = graph_names_first(index, sample->symbol);
		if (sample->percent > overlay->hottest_percent)
			overlay->hottest_percent = sample->percent;
		if (n == SIZE_MAX)
			add_unplaced(overlay, unplaced, sample, baseline);
		for (; n != SIZE_MAX; n = index->next[n])
			*(baseline ? &overlay->nodes[n].baseline : &overlay->nodes[n].share) = share_of(sample);
	}
}

/* Call chains (perf script -g, perf report -g): each call's samples on the
 * graph's calls from a function of the caller's name to one of the callee's. */
static void place_calls(const struct perf_samples *samples, const struct callgraph *graph,
			const struct graph_names *index, struct graph_overlay *overlay)
{
	for (size_t c = 0; c < samples->call_count; c++) {
		const struct perf_call *call = &samples->calls[c];
		for (size_t n = graph_names_first(index, call->caller); n != SIZE_MAX; n = index->next[n])
			for (size_t e = 0; e < graph->edge_count; e++) {
				const struct cg_edge *edge = &graph->edges[e];
				if (edge->from != n || strcmp(graph->nodes[edge->to].name, call->callee))
					continue;
				overlay->edges[e].call_samples += call->samples;
				overlay->edges[e].call_percent += call->percent;
				overlay->edges[e].call_counted = call->has_samples;
				overlay->edges[e].has_call_samples = true;
			}
	}
}

static int by_unplaced_share(const void *a, const void *b)
{
	const struct overlay_unplaced *x = a, *y = b;
	double px = x->share.present ? x->share.percent : x->baseline.percent;
	double py = y->share.present ? y->share.percent : y->baseline.percent;
	if (px != py)
		return (px < py) - (px > py);
	return strcmp(x->symbol, y->symbol);
}

static void title_line(struct graph_overlay *overlay, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
static void title_line(struct graph_overlay *overlay, const char *format, ...)
{
	size_t used = strlen(overlay->title);
	if (used && used + 1 < sizeof(overlay->title))
		overlay->title[used++] = '\n', overlay->title[used] = '\0';
	va_list arguments;
	va_start(arguments, format);
	vsnprintf(overlay->title + used, sizeof(overlay->title) - used, format, arguments);
	va_end(arguments);
}

/* Counts are compared when asked, or when neither listing has a total
 * (two "samples symbol" lists): shares of the listed samples would move with
 * every other line of the list.  NULL, or why counts cannot be compared. */
static const char *choose_compare(const struct overlay_inputs *in, struct graph_overlay *overlay)
{
	const struct perf_samples *after = &in->after, *before = &in->before;
	enum overlay_compare asked = in->request.compare;
	overlay->compare_counts = asked == OVERLAY_COMPARE_COUNTS ||
		(asked == OVERLAY_COMPARE_AUTO && !after->has_total && !before->has_total &&
		 after->has_counts && before->has_counts);
	overlay->compare_why = asked != OVERLAY_COMPARE_AUTO ? "asked (--compare)"
			       : overlay->compare_counts ? "neither listing has a total"
			       : after->has_total || before->has_total ? "a listing gives shares of all samples"
			       : "a listing has no raw counts";
	if (overlay->compare_counts && !after->has_counts)
		return in->request.profile;
	if (overlay->compare_counts && !before->has_counts)
		return in->request.baseline_profile;
	return NULL;
}

/* One listing's figure for a node: what it lists, or its cut-off as a bound. */
static double side_figure(const struct overlay_share *share, const struct overlay_share *floor, bool counts,
			  bool *bounded)
{
	*bounded = !share->present;
	const struct overlay_share *used = share->present ? share : floor;
	return counts ? (double)used->samples : used->percent;
}

void overlay_change_of(const struct graph_overlay *overlay, const struct overlay_share *after_share,
		       const struct overlay_share *before_share, struct overlay_change *change)
{
	memset(change, 0, sizeof(*change));
	if (!after_share->present && !before_share->present)
		return;
	bool after_bounded, before_bounded;
	double after = side_figure(after_share, &overlay->after_floor, overlay->compare_counts, &after_bounded);
	double before = side_figure(before_share, &overlay->before_floor, overlay->compare_counts, &before_bounded);
	/* not listed after: fewer than the cut-off, so the change is at most
	 * this; not listed before: at least */
	change->bound = after_bounded ? OVERLAY_AT_MOST : before_bounded ? OVERLAY_AT_LEAST : OVERLAY_EXACT;
	if (overlay->compare_counts && (before <= 0 || after <= 0))
		return;
	change->points = after - before;    /* counts: the absolute change */
	change->ratio = before > 0 ? after / before : 0;
	change->known = true;
}

static void node_change(struct graph_overlay *overlay, struct overlay_node *node)
{
	overlay_change_of(overlay, &node->share, &node->baseline, &node->change);
	if (!node->change.known)
		return;
	double scale = overlay->compare_counts ? fabs(log2(node->change.ratio)) : fabs(node->change.points);
	if (scale > overlay->largest_change)
		overlay->largest_change = scale;
}

static int place_samples(struct overlay_inputs *in, const struct callgraph *graph,
			 const struct graph_names *index, struct graph_overlay *overlay, struct error *error)
{
	struct hash_table unplaced = { 0 };
	if (in->request.baseline_profile && !in->request.by_name)
		overlay_join_renames(&in->profiles, &in->after, &in->before, index, overlay);
	overlay->unplaced = xcalloc(in->after.count + in->before.count + 1, sizeof(*overlay->unplaced));
	place_profile(&in->after, false, index, overlay, &unplaced);
	place_calls(&in->after, graph, index, overlay);
	if (in->request.baseline_profile)
		place_profile(&in->before, true, index, overlay, &unplaced);
	hash_free(&unplaced);
	array_sort(overlay->unplaced, overlay->unplaced_count, sizeof(*overlay->unplaced), by_unplaced_share);
	overlay->has_samples = true;
	overlay->has_baseline = in->request.baseline_profile != NULL;
	overlay->after_floor = (struct overlay_share){ true, in->after.floor_percent, in->after.has_counts,
						       in->after.floor_samples };
	if (in->after.chains_ignored)
		title_line(overlay, "call chains of %s not read: under --children each sample's chain repeats "
			   "under every function on it (perf report --no-children -g gives them once)", in->request.profile);
	if (!overlay->has_baseline) {
		title_line(overlay, "shade: share of %s of %s (%s)", in->after.share_of, in->request.profile,
			   in->after.format);
		return 0;
	}
	overlay->before_floor = (struct overlay_share){ true, in->before.floor_percent, in->before.has_counts,
							in->before.floor_samples };
	const char *no_counts = choose_compare(in, overlay);
	if (no_counts)
		return error_set(error, no_counts, 0, "callgraph: --compare counts: this listing gives shares, "
				 "not raw sample counts (perf report -n, opreport, readprofile or 'samples symbol' "
				 "text give them)");
	for (size_t j = 0; j < overlay->join_count; j++)
		for (size_t n = graph_names_first(index, overlay->joins[j].on); n != SIZE_MAX; n = index->next[n])
			overlay->nodes[n].join = &overlay->joins[j];
	for (size_t n = 0; n < graph->node_count; n++)
		node_change(overlay, &overlay->nodes[n]);
	if (overlay->compare_counts)
		title_line(overlay, "colour: ratio of samples, %s (%s) to %s (%s): red more, blue fewer; "
			   "counts compared: %s", in->request.baseline_profile, in->before.format,
			   in->request.profile, in->after.format, overlay->compare_why);
	else
		title_line(overlay, "colour: change in share from %s (%s, of %s) to %s (%s, of %s): red more, "
			   "blue less; shares compared: %s", in->request.baseline_profile, in->before.format,
			   in->before.share_of, in->request.profile, in->after.format, in->after.share_of,
			   overlay->compare_why);
	for (size_t j = 0; j < overlay->join_count; j++) {
		const struct overlay_join *join = &overlay->joins[j];
		title_line(overlay, "joined (era rename table, %s): before %s, after %s, summed on %s", join->work,
			   join->before, join->after, join->on);
	}
	return 0;
}

int overlay_place(struct overlay_inputs *in, const struct callgraph *graph, struct graph_overlay *overlay,
		  struct error *error)
{
	struct graph_names index = { 0 };
	memset(overlay, 0, sizeof(*overlay));
	overlay->nodes = xcalloc(graph->node_count + 1, sizeof(*overlay->nodes));
	overlay->edges = xcalloc(graph->edge_count + 1, sizeof(*overlay->edges));
	struct owned *owned = xcalloc(1, sizeof(*owned));
	overlay->owned = owned;
	graph_names_build(graph, &index);
	int status = in->events ? place_events(in, graph, &index, overlay, error) : 0;
	if (!status && in->request.profile)
		status = place_samples(in, graph, &index, overlay, error);
	graph_names_free(&index);
	/* the unplaced symbols point into the profiles: the overlay keeps them */
	owned->after = in->after;
	owned->before = in->before;
	memset(&in->after, 0, sizeof(in->after));
	memset(&in->before, 0, sizeof(in->before));
	return status;
}

void overlay_profiles_on_trees(const struct callgraph *graph, struct graph_overlay *overlay)
{
	overlay->largest_change = 0;
	for (size_t n = 0; n < graph->node_count; n++) {
		struct overlay_node *node = &overlay->nodes[n];
		/* a join's sums are both eras' names: they stay on its one function */
		if (node->only_in == OVERLAY_ONLY_OLD && !node->join)
			node->share = (struct overlay_share){ 0 };
		if (node->only_in == OVERLAY_ONLY_NEW && !node->join)
			node->baseline = (struct overlay_share){ 0 };
		node_change(overlay, node);
	}
}

void overlay_side_text(const struct graph_overlay *overlay, const struct overlay_share *share, bool baseline,
		       char *text, size_t size)
{
	const struct overlay_share *floor = baseline ? &overlay->before_floor : &overlay->after_floor;
	char count[32];
	text[0] = '\0';
	if (share->present && overlay->compare_counts) {
		report_format_count(share->samples, count, sizeof(count));
		snprintf(text, size, "%s", count);
	} else if (share->present) {
		snprintf(text, size, "%.1f%%", share->percent);
	} else if (floor->present && overlay->compare_counts) {
		report_format_count(floor->samples, count, sizeof(count));
		snprintf(text, size, "< %s", count);
	} else if (floor->present) {
		/* two decimals: a cut-off is often below 0.1% */
		snprintf(text, size, "< %.2f%%", floor->percent);
	}
}

void overlay_change_text(const struct graph_overlay *overlay, const struct overlay_change *change,
			 char *text, size_t size)
{
	const char *bound = change->bound == OVERLAY_AT_LEAST ? ">" : change->bound == OVERLAY_AT_MOST ? "<" : "";
	text[0] = '\0';
	if (!change->known)
		return;
	if (!overlay->compare_counts) {
		snprintf(text, size, "%s%+.1f", bound, change->points);
		return;
	}
	char count[32];
	report_format_count((uint64_t)llround(fabs(change->points)), count, sizeof(count));
	snprintf(text, size, "%sx%.2f %s%s", bound, change->ratio, change->points < 0 ? "-" : "+", count);
}

double overlay_change_scale(const struct graph_overlay *overlay, const struct overlay_change *change)
{
	if (!change->known || overlay->largest_change <= 0)
		return 0;
	double value = overlay->compare_counts ? log2(change->ratio) : change->points;
	return value / overlay->largest_change;
}

void overlay_call_text(const struct overlay_edge *edge, char *text, size_t size)
{
	char count[32];
	text[0] = '\0';
	if (!edge->has_call_samples)
		return;
	if (!edge->call_counted) {
		snprintf(text, size, "%.2f%% of samples", edge->call_percent);
		return;
	}
	report_format_count(edge->call_samples, count, sizeof(count));
	snprintf(text, size, "%s sample%s", count, edge->call_samples == 1 ? "" : "s");
}

void overlay_unplaced_summary(const struct graph_overlay *overlay, char *text, size_t size)
{
	double percent = 0;
	text[0] = '\0';
	if (!overlay->unplaced_count)
		return;
	for (size_t i = 0; i < overlay->unplaced_count; i++)
		percent += overlay->unplaced[i].share.present ? overlay->unplaced[i].share.percent : 0;
	size_t used = (size_t)snprintf(text, size, "%zu profile symbols are not in the graph (%.1f%% of the samples)",
				       overlay->unplaced_count, percent);
	for (size_t i = 0; i < overlay->unplaced_count && i < 5 && used < size; i++) {
		const struct overlay_unplaced *u = &overlay->unplaced[i];
		/* symbols are a file's text: a terminal gets them escaped (base/escape.h) */
		char *symbol = escape_alloc(escape_text, u->symbol);
		used += (size_t)snprintf(text + used, size - used, "%s %s %.1f%%", i ? "," : "; largest:", symbol,
					 u->share.present ? u->share.percent : u->baseline.percent);
		free(symbol);
	}
}

void graph_overlay_free(struct graph_overlay *overlay)
{
	struct owned *owned = overlay->owned;
	if (owned) {
		perf_samples_free(&owned->after);
		perf_samples_free(&owned->before);
		free(owned);
	}
	free(overlay->nodes);
	free(overlay->edges);
	free(overlay->unplaced);
	free(overlay->joins);
	memset(overlay, 0, sizeof(*overlay));
}
