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
 * One walk over each process's segments, count_work's (model/model.c:
 * model_fork_visit on each segment, model_fork_process_end after); a
 * segment lies in one 2 MiB chunk, so it sits in one PTE window and, for the
 * address-aligned rules, wholly inside or outside a shared window (the
 * length rule's windows start at the VMA: its segments are placed by their
 * first record); a run of whole chunks is placed chunk by chunk, at its
 * edges against each rule's range (places_below).
 */
#include <stdlib.h>

#include "model/model_internal.h"

#define NO_WINDOW UINT64_MAX

struct fork_walk {
	const struct rmap_profile *today;   /* NULL: every VMA is copied */
	uint64_t window;                    /* last window counted with no sharing */
	uint64_t *rule_window;              /* ... per rule */
	const struct vma *vma;              /* the VMA the rules' ranges are of (NULL: none yet) */
	uint64_t *rule_start, *rule_end;    /* per rule: the range it shares of it (sharing_vma_windows) */
	bool any_range;                     /* ... one of them not empty (else no place is asked) */
	size_t next_vma;                    /* the process's first VMA whose PTE pages are not counted */
	size_t run;                         /* ... the cursor over its runs vma_pages keeps */
};

static bool fork_copies(const struct model_context *c, const struct fork_walk *walk, const struct vma *vma)
{
	return !walk->today || model_fork_copies(walk->today, vma, c->vma_has_anon_vma[vma - c->snapshot->vmas]);
}

/* Each rule's shared range of the VMA, worked out once per VMA. */
static void rule_ranges(const struct model_context *c, struct fork_walk *walk, const struct vma *vma)
{
	if (walk->vma == vma)
		return;
	walk->vma = vma;
	walk->any_range = false;
	for (size_t k = 0; k < c->result->sharing_count; k++) {
		sharing_vma_windows(c->result->sharing[k].rule, vma, &walk->rule_start[k], &walk->rule_end[k]);
		walk->any_range |= walk->rule_start[k] < walk->rule_end[k];
	}
}

/* Where a chunk's segments are placed against the rules' ranges: its first
 * record (in the VMA: at its start at least). */
static uint64_t chunk_place(const struct model_context *c, const struct vma *vma, uint32_t content, uint64_t chunk)
{
	uint64_t at = (chunk << PAGEMAP_CHUNK_SHIFT) + pagemap_content_record(c->snapshot, content, 0).vaddr;
	return at < vma->start ? vma->start : at;
}

/* Of n chunks from `chunk` (contents from `content`), how many are placed
 * below x: places ascend, and a chunk's lies in it. */
static uint64_t places_below(const struct model_context *c, const struct vma *vma, uint32_t content, uint64_t chunk,
			     uint64_t n, uint64_t x)
{
	uint64_t base = chunk << PAGEMAP_CHUNK_SHIFT;
	if (vma->start >= x || x <= base)
		return 0;
	uint64_t below = (x - base) >> PAGEMAP_CHUNK_SHIFT;   /* chunks wholly below x */
	if (below >= n)
		return n;
	return below + (chunk_place(c, vma, content + (uint32_t)below, chunk + below) < x);
}

/* The PTEs of chunks [first, end) of a run segment. */
static uint64_t run_ptes(const struct model_context *c, const struct segment *seg, uint64_t first, uint64_t end)
{
	uint64_t ptes = 0;
	for (uint64_t k = first; k < end; k++) {
		const struct content_totals *t = &c->content_totals[seg->content + k];
		ptes += (uint64_t)t->present + t->swap;
	}
	return ptes;
}

/* The PTEs of a segment a fork copies under rule k: those outside the
 * range it shares (a run's chunks each placed by its first record). */
static uint64_t rule_copied_ptes(const struct model_context *c, const struct fork_walk *walk, const struct segment *seg,
				 size_t k, uint64_t ptes)
{
	uint64_t start = walk->rule_start[k], end = walk->rule_end[k];
	if (start >= end)
		return ptes;    /* nothing shared: no place to find */
	if (seg->chunks == 1) {
		uint64_t at = seg->base + segment_first_offset(c, seg);   /* offsets in the chunk */
		return at < start || at >= end ? ptes : 0;
	}
	uint64_t chunk = seg->base >> PAGEMAP_CHUNK_SHIFT;
	uint64_t low = places_below(c, seg->vma, seg->content, chunk, seg->chunks, start);
	uint64_t high = places_below(c, seg->vma, seg->content, chunk, seg->chunks, end);
	return run_ptes(c, seg, 0, low) + run_ptes(c, seg, high, seg->chunks);
}

/* The PTEs a fork copies: a segment's present and swap entries, but none
 * of a PMD-mapped window (its PMD is copied whole, or not at all); a run
 * of chunks is none. */
static void visit_segment(struct model_context *c, const struct segment *seg, enum pmd_kind kind,
			  struct fork_walk *walk)
{
	struct model_result *r = c->result;
	struct model_process *mp = &r->process_figures[seg->process];
	const struct vma *vma = seg->vma;
	if (!vma || !fork_copies(c, walk, vma))
		return;
	if (kind == PMD_FILE || kind == PMD_ANON)
		return;
	const struct record_figures *f = model_segment_counts(c, seg);   /* a cut part's: only here */
	uint64_t ptes = f->present + f->swap;
	mp->fork_copy.ptes += ptes;
	rule_ranges(c, walk, vma);
	for (size_t k = 0; k < r->sharing_count; k++)
		mp->fork_copies[k].ptes += rule_copied_ptes(c, walk, seg, k, ptes);
}

static void add_page(uint64_t *pages, uint64_t *last, uint64_t window)
{
	*pages += *last != window;
	*last = window;
}

/* n windows from `window`, one after another, as add_page adds each. */
static void add_pages(uint64_t *pages, uint64_t *last, uint64_t window, uint64_t n)
{
	if (!n)
		return;
	*pages += n - (*last == window);
	*last = window + n - 1;
}

/* One window a fork gives the child a PTE page for (with one record at
 * `place`, the VMA's start at least) unless a rule shares it. */
static void window_page(struct model_context *c, struct fork_walk *walk, struct model_process *mp, uint64_t window,
			uint64_t place)
{
	add_page(&mp->fork_copy.pte_pages, &walk->window, window);
	for (size_t k = 0; k < c->result->sharing_count; k++)
		if (place < walk->rule_start[k] || place >= walk->rule_end[k])
			add_page(&mp->fork_copies[k].pte_pages, &walk->rule_window[k], window);
}

/* The windows of n chunks from `chunk` of one pagemap run (contents from
 * `content`, PTE pages of one chunk each) in the VMA: none PMD-mapped, as
 * many at once as the rules' ranges allow (their edges placed by
 * places_below); else window by window. */
static void chunk_pages(struct model_context *c, struct fork_walk *walk, size_t index, const struct vma *vma,
			uint32_t content, uint64_t chunk, uint64_t n)
{
	const struct process *p = &c->snapshot->processes[index];
	struct model_process *mp = &c->result->process_figures[index];
	if (n < 2 || !model_walk_chunks_pmd_none(c, p, content, chunk, n)) {
		for (uint64_t k = 0; k < n; k++) {
			/* the window is the chunk, its content known: no search */
			struct segment at = { .process = index, .base = (chunk + k) << PAGEMAP_CHUNK_SHIFT,
					      .content = content + (uint32_t)k };
			/* with every rule's range empty, the place is not read */
			if (segment_pmd_kind(c, &at) != PMD_FILE)
				window_page(c, walk, mp, chunk + k, walk->any_range ?
					    chunk_place(c, vma, content + (uint32_t)k, chunk + k) : 0);
		}
		return;
	}
	add_pages(&mp->fork_copy.pte_pages, &walk->window, chunk, n);
	for (size_t k = 0; k < c->result->sharing_count; k++) {
		uint64_t start = walk->rule_start[k], end = walk->rule_end[k];
		uint64_t low = start < end ? places_below(c, vma, content, chunk, n, start) : n;
		uint64_t high = start < end ? places_below(c, vma, content, chunk, n, end) : n;
		add_pages(&mp->fork_copies[k].pte_pages, &walk->rule_window[k], chunk, low);
		add_pages(&mp->fork_copies[k].pte_pages, &walk->rule_window[k], chunk + high, n - high);
	}
}

static uint64_t run_last_chunk(const void *run)
{
	const struct pagemap_run *r = run;
	return r->chunk + r->length - 1;
}

/* The PTE pages a fork gives the child for one VMA it copies: copy_pmd_range
 * allocates one (copy_pte_range) for every window of the VMA whose PMD
 * entry in the parent points to a PTE page, whether or not the VMA's own
 * part of it holds a PTE: a window is taken to have one when the process
 * has a record in it.  An anonymous PMD-mapped window gets the PTE page
 * copy_huge_pmd deposits; a file or shmem one nothing.  With PTE pages of
 * one chunk, the windows are the process's chunks (every one holds a
 * record), taken run by run. */
static void vma_pages(struct model_context *c, struct fork_walk *walk, size_t index, const struct vma *vma,
		      size_t *cursor)
{
	const struct process *p = &c->snapshot->processes[index];
	uint64_t size = (uint64_t)1 << c->pte_shift;
	uint64_t at = vma->start & ~(size - 1);
	uint64_t limit = ((vma->end - 1) | (size - 1)) + 1;   /* 0 past the top of the address space */
	rule_ranges(c, walk, vma);
	if (c->chunks_per_window_shift == 0) {
		uint64_t first = at >> PAGEMAP_CHUNK_SHIFT;
		uint64_t end = limit ? limit >> PAGEMAP_CHUNK_SHIFT : UINT64_C(1) << (64 - PAGEMAP_CHUNK_SHIFT);
		/* the first run ending at or after `first`: VMAs ascend, so
		 * from where the last VMA's search began (*cursor) */
		while (*cursor < p->run_count && run_last_chunk(&p->runs[*cursor]) < first)
			(*cursor)++;
		for (size_t r = *cursor; r < p->run_count && p->runs[r].chunk < end; r++) {
			const struct pagemap_run *run = &p->runs[r];
			uint64_t low = run->chunk > first ? run->chunk : first;
			uint64_t high = run->chunk + run->length < end ? run->chunk + run->length : end;
			chunk_pages(c, walk, index, vma, run->content + (uint32_t)(low - run->chunk), low, high - low);
		}
		return;
	}
	struct pagemap_record record;
	while (process_next_record(c->snapshot, p, at, limit ? limit : UINT64_MAX, &record)) {
		uint64_t window = record.vaddr >> c->pte_shift;
		if (window_pmd_kind(c, p, window) != PMD_FILE)
			window_page(c, walk, &c->result->process_figures[index], window,
				    record.vaddr < vma->start ? vma->start : record.vaddr);
		at = (window + 1) << c->pte_shift;
		if (at == 0)
			break;
	}
}

struct fork_walk *model_fork_begin(struct model_context *c)
{
	struct model_result *r = c->result;
	struct fork_walk *walk = xcalloc(1, sizeof(*walk));
	*walk = (struct fork_walk){ r->current_design < r->design_count ? r->designs[r->current_design].profile : NULL,
				    NO_WINDOW, xcalloc(r->sharing_count + 1, sizeof(uint64_t)), NULL,
				    xcalloc(r->sharing_count + 1, sizeof(uint64_t)),
				    xcalloc(r->sharing_count + 1, sizeof(uint64_t)), false, 0, 0 };
	return walk;
}

void model_fork_process_begin(struct model_context *c, struct fork_walk *walk)
{
	walk->window = NO_WINDOW;
	walk->next_vma = walk->run = 0;
	for (size_t k = 0; k < c->result->sharing_count; k++)
		walk->rule_window[k] = NO_WINDOW;
}

/* The PTE pages of process i's VMAs from the first not counted to the
 * end-th (excluded), in order: the walk of its segments counts a VMA's
 * when it reaches it, while the VMA and its chunks are fresh in the cache,
 * the rest after it (the order of the pages' windows is the VMAs'). */
static void pages_to(struct model_context *c, struct fork_walk *walk, size_t i, size_t end)
{
	const struct process *p = &c->snapshot->processes[i];
	for (; p->has_pagemap && walk->next_vma < end; walk->next_vma++)
		if (fork_copies(c, walk, &p->vmas[walk->next_vma]))
			vma_pages(c, walk, i, &p->vmas[walk->next_vma], &walk->run);
}

void model_fork_visit(struct model_context *c, const struct segment *seg, enum pmd_kind kind, struct fork_walk *walk)
{
	const struct process *p = &c->snapshot->processes[seg->process];
	if (seg->vma)
		pages_to(c, walk, seg->process, (size_t)(seg->vma - p->vmas) + 1);
	visit_segment(c, seg, kind, walk);
}

/* After the walk of process i: its PTE pages, VMA by VMA, and the sums. */
void model_fork_process_end(struct model_context *c, struct fork_walk *walk, size_t i)
{
	struct model_result *r = c->result;
	struct model_process *mp = &r->process_figures[i];
	pages_to(c, walk, i, c->snapshot->processes[i].vma_count);
	r->fork_copy.pte_pages += mp->fork_copy.pte_pages;
	r->fork_copy.ptes += mp->fork_copy.ptes;
	for (size_t k = 0; k < r->sharing_count; k++) {
		r->sharing[k].fork_copies.pte_pages += mp->fork_copies[k].pte_pages;
		r->sharing[k].fork_copies.ptes += mp->fork_copies[k].ptes;
	}
}

void model_fork_end(struct fork_walk *walk)
{
	FREE_ALL(walk->rule_window, walk->rule_start, walk->rule_end);
	free(walk);
}
