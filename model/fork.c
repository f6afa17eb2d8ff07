/*
 * model/fork.c - what a fork copies, and what it would copy under each
 * sharing rule: the question behind the 2006 shared-page-table patch's
 * lmbench result (fork 179 -> 136 us on a desktop), whose saving was the
 * PTE pages fork no longer had to allocate and fill.
 *
 * Today: fork copies the present and swap PTEs of the VMAs the snapshot's
 * own design copies (lazy fork since 2.6.14 skips VMAs without an anon_vma,
 * model_fork_copies), into one fresh PTE page per window that holds one;
 * a PMD-mapped anonymous THP copies its PMD and one deposited PTE page (no
 * PTE), a PMD-mapped file or shmem THP nothing (copy_huge_pmd).  Under a
 * partner rule, the windows the rule shares for an eligible VMA are shared
 * with the child instead of copied (the child becomes a partner), so neither
 * their PTEs nor their PTE pages are copied.  Content sharing ("identical")
 * merges page tables after the fact, so fork copies what it copies today.
 *
 * One walk over each process's segments (model_walk_segments); a segment
 * lies in one 2 MiB chunk, so it sits in one PTE window and, for the
 * address-aligned rules, wholly inside or outside a shared window (the
 * length rule's windows start at the VMA: its segments are placed by their
 * first record).
 */
#include <stdlib.h>

#include "model/model_internal.h"

#define NO_WINDOW UINT64_MAX

struct fork_walk {
	const struct rmap_profile *today;   /* NULL: every VMA is copied */
	uint64_t window;                    /* last window counted with no sharing */
	uint64_t *rule_window;              /* ... per rule */
};

static void add_copy(struct fork_copy *copy, uint64_t *last, uint64_t window, uint64_t ptes)
{
	copy->ptes += ptes;
	copy->pte_pages += *last != window;
	*last = window;
}

static void visit_segment(struct model_context *c, const struct segment *seg, void *data)
{
	struct fork_walk *walk = data;
	struct model_result *r = c->result;
	struct model_process *mp = &r->process_figures[seg->process];
	const struct vma *vma = seg->vma;
	if (!vma)
		return;
	bool has_anon_vma = c->vma_has_anon_vma[vma - c->snapshot->vmas];
	if (walk->today && !model_fork_copies(walk->today, vma, has_anon_vma))
		return;
	uint64_t ptes = seg->figures->present + seg->figures->swap;
	uint64_t window = seg->base >> c->pte_shift;
	enum pmd_kind kind = window_pmd_kind(c, &c->snapshot->processes[seg->process], window);
	/* copy_huge_pmd: a file or shmem PMD is not copied (the child faults
	 * it again); an anonymous one is, with one PTE page deposited for it
	 * (pte_alloc_one + pgtable_trans_huge_deposit) and no PTE */
	if (kind == PMD_FILE)
		return;
	if (kind == PMD_ANON)
		ptes = 0;
	else if (!ptes)
		return;
	add_copy(&mp->fork_copy, &walk->window, window, ptes);
	uint64_t at = seg->base + content_records(c, seg->content)[seg->first].vaddr;   /* offsets in the chunk */
	for (size_t k = 0; k < r->sharing_count; k++) {
		uint64_t start, end;
		sharing_vma_windows(r->sharing[k].rule, vma, &start, &end);
		if (at < start || at >= end)
			add_copy(&mp->fork_copies[k], &walk->rule_window[k], window, ptes);
	}
}

void model_fork_tables(struct model_context *c)
{
	struct model_result *r = c->result;
	struct fork_walk walk = { r->current_design < r->design_count ? r->designs[r->current_design].profile : NULL,
				  NO_WINDOW, xcalloc(r->sharing_count + 1, sizeof(uint64_t)) };
	for (size_t i = 0; i < c->snapshot->process_count; i++) {
		struct model_process *mp = &r->process_figures[i];
		walk.window = NO_WINDOW;
		for (size_t k = 0; k < r->sharing_count; k++)
			walk.rule_window[k] = NO_WINDOW;
		model_walk_segments(c, i, visit_segment, &walk);
		r->fork_copy.pte_pages += mp->fork_copy.pte_pages;
		r->fork_copy.ptes += mp->fork_copy.ptes;
		for (size_t k = 0; k < r->sharing_count; k++) {
			r->sharing[k].fork_copies.pte_pages += mp->fork_copies[k].pte_pages;
			r->sharing[k].fork_copies.ptes += mp->fork_copies[k].ptes;
		}
	}
	free(walk.rule_window);
}
