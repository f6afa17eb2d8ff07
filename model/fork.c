/*
 * model/fork.c - what a fork copies, and what it would copy under each
 * sharing rule: the question behind the 2006 shared-page-table patch's
 * lmbench result (fork 179 -> 136 us on a desktop), whose saving was the
 * PTE pages fork no longer had to allocate and fill.
 *
 * Today: fork copies the present and swap PTEs of the VMAs the snapshot's
 * own design copies (lazy fork since 2.6.14 skips VMAs without an anon_vma,
 * model_fork_copies), and gives the child a PTE page for every window of
 * such a VMA where the parent has one, even one only another VMA fills
 * (copy_pte_range allocates it before looking at the PTEs);
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

static bool fork_copies(const struct model_context *c, const struct fork_walk *walk, const struct vma *vma)
{
	return !walk->today || model_fork_copies(walk->today, vma, c->vma_has_anon_vma[vma - c->snapshot->vmas]);
}

/* The PTEs a fork copies: a segment's present and swap entries, but none
 * of a PMD-mapped window (its PMD is copied whole, or not at all). */
static void visit_segment(struct model_context *c, const struct segment *seg, void *data)
{
	struct fork_walk *walk = data;
	struct model_result *r = c->result;
	struct model_process *mp = &r->process_figures[seg->process];
	const struct vma *vma = seg->vma;
	if (!vma || !fork_copies(c, walk, vma))
		return;
	enum pmd_kind kind = window_pmd_kind(c, &c->snapshot->processes[seg->process], seg->base >> c->pte_shift);
	if (kind == PMD_FILE || kind == PMD_ANON)
		return;
	uint64_t ptes = seg->figures->present + seg->figures->swap;
	uint64_t at = seg->base + content_records(c, seg->content)[seg->first].vaddr;   /* offsets in the chunk */
	mp->fork_copy.ptes += ptes;
	for (size_t k = 0; k < r->sharing_count; k++) {
		uint64_t start, end;
		sharing_vma_windows(r->sharing[k].rule, vma, &start, &end);
		if (at < start || at >= end)
			mp->fork_copies[k].ptes += ptes;
	}
}

static void add_page(uint64_t *pages, uint64_t *last, uint64_t window)
{
	*pages += *last != window;
	*last = window;
}

/* The PTE pages a fork gives the child for one VMA it copies: copy_pmd_range
 * allocates one (copy_pte_range) for every window of the VMA whose PMD
 * entry in the parent points to a PTE page, whether or not the VMA's own
 * part of it holds a PTE: a window is taken to have one when the process
 * has a record in it.  An anonymous PMD-mapped window gets the PTE page
 * copy_huge_pmd deposits; a file or shmem one nothing. */
static void vma_pages(struct model_context *c, struct fork_walk *walk, size_t index, const struct vma *vma)
{
	const struct process *p = &c->snapshot->processes[index];
	struct model_result *r = c->result;
	struct model_process *mp = &r->process_figures[index];
	uint64_t size = (uint64_t)1 << c->pte_shift;
	uint64_t at = vma->start & ~(size - 1);
	uint64_t limit = ((vma->end - 1) | (size - 1)) + 1;   /* 0 past the top of the address space */
	struct pagemap_record record;
	while (process_next_record(c->snapshot, p, at, limit ? limit : UINT64_MAX, &record)) {
		uint64_t window = record.vaddr >> c->pte_shift;
		if (window_pmd_kind(c, p, window) != PMD_FILE) {
			add_page(&mp->fork_copy.pte_pages, &walk->window, window);
			for (size_t k = 0; k < r->sharing_count; k++) {
				uint64_t start, end;
				sharing_vma_windows(r->sharing[k].rule, vma, &start, &end);
				/* placed by its first record in the VMA, as the PTEs are */
				uint64_t place = record.vaddr < vma->start ? vma->start : record.vaddr;
				if (place < start || place >= end)
					add_page(&mp->fork_copies[k].pte_pages, &walk->rule_window[k], window);
			}
		}
		at = (window + 1) << c->pte_shift;
		if (at == 0)
			break;
	}
}

void model_fork_tables(struct model_context *c)
{
	struct model_result *r = c->result;
	struct fork_walk walk = { r->current_design < r->design_count ? r->designs[r->current_design].profile : NULL,
				  NO_WINDOW, xcalloc(r->sharing_count + 1, sizeof(uint64_t)) };
	for (size_t i = 0; i < c->snapshot->process_count; i++) {
		const struct process *p = &c->snapshot->processes[i];
		struct model_process *mp = &r->process_figures[i];
		walk.window = NO_WINDOW;
		for (size_t k = 0; k < r->sharing_count; k++)
			walk.rule_window[k] = NO_WINDOW;
		model_walk_segment_counts(c, i, visit_segment, &walk);
		for (size_t v = 0; p->has_pagemap && v < p->vma_count; v++)
			if (fork_copies(c, &walk, &p->vmas[v]))
				vma_pages(c, &walk, i, &p->vmas[v]);
		r->fork_copy.pte_pages += mp->fork_copy.pte_pages;
		r->fork_copy.ptes += mp->fork_copy.ptes;
		for (size_t k = 0; k < r->sharing_count; k++) {
			r->sharing[k].fork_copies.pte_pages += mp->fork_copies[k].pte_pages;
			r->sharing[k].fork_copies.ptes += mp->fork_copies[k].ptes;
		}
	}
	free(walk.rule_window);
}
