/*
 * model/model.c - model_run: page-table pages and pte_chain memory, exact
 * from pagemap and kpages (docs/cost-model.md sections 2, 4, 7 and 8), then the
 * estimates, object rmap and sharing rules (estimate.c, objrmap.c, sharing.c).
 * The driver, on top: the walk it prepares and the rules call back is
 * model/walk.c, which calls no rule.
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_internal.h"

/* ---- pass 2: page-table pages per process ---- */

/* Populated windows at every counted level from the chunks (each chunk
 * holds records), and which PTE windows PMD leaves map. */
static void count_page_tables(struct model_context *c, size_t index)
{
	const struct process *p = &c->snapshot->processes[index];
	struct model_process *mp = &c->result->process_figures[index];
	const struct geometry *g = c->geometry;
	uint64_t last[MODEL_MAX_LEVELS] = { 0 };
	bool any = false;
	for (size_t r = 0; r < p->run_count; r++) {
		for (uint64_t i = 0; i < p->runs[r].length; i++) {
			uint64_t chunk = p->runs[r].chunk + i;
			for (unsigned l = 0; l < g->level_count; l++) {
				unsigned shift = g->levels[l].shift - PAGEMAP_CHUNK_SHIFT;
				uint64_t w = chunk >> shift;
				if (any && w == last[l])
					continue;
				last[l] = w;
				if (l > 0) {
					mp->upper_pages += g->levels[l].counted;
					continue;
				}
				/* a window of one chunk: its content is the run's (no search) */
				struct segment at = { .process = index, .base = chunk << PAGEMAP_CHUNK_SHIFT,
						      .content = p->runs[r].content + (uint32_t)i };
				enum pmd_kind kind = shift ? window_pmd_kind(c, p, w) : segment_pmd_kind(c, &at);
				mp->pte_pages += kind != PMD_FILE;
				mp->pmd_mapped_windows += kind == PMD_FILE || kind == PMD_ANON;
				mp->pmd_mapped_anon_windows += kind == PMD_ANON;
			}
			any = true;
		}
	}
	mp->pagetable_bytes = MODEL_PAGE_BYTES * (mp->pte_pages + mp->upper_pages);
}

/* ---- pte_chain bytes, PSS-style (section 8) ---- */

static void charge_pte_chains(struct model_context *c, struct fraction_sum *sums)
{
	struct model_result *r = c->result;
	/* totals: one term per run of alike PFNs and design, grouped by m */
	for (size_t i = 0; i < c->pfns.count; i++) {
		const struct pfn_run *e = &c->pfns.runs[i];
		if (pfn_is_zero_page(e))
			continue;
		uint64_t m = pfn_mapcount(e);
		bool all_anon = e->kpage_anon;
		uint64_t anon = all_anon ? e->records : e->anon_records;
		/* C(m) from the walk's table: priced once per m, not per run */
		const struct mapping_cost *anon_costs = model_mapping_costs(c, m, true);
		const struct mapping_cost *file_costs = model_mapping_costs(c, m, false);
		for (size_t d = 0; d < r->design_count; d++) {
			unsigned __int128 numerator = (unsigned __int128)anon * anon_costs[d].now +
						      (unsigned __int128)(e->records - anon) * file_costs[d].now;
			fraction_sum_add(&sums[d], numerator * e->pages, m);
		}
	}
}

/* ---- per process: PTEs by kind, pte_chain charges (display) ---- */

/* A segment's pte_chain charges under design d added to *bytes (all its
 * pages') and *anon (anonymous pages'; NULL: not wanted): a run's as its
 * contents' one by one, in order, as the sums of doubles were always made. */
static void add_chain_bytes(const struct model_context *c, const struct segment *seg, size_t d, double *bytes,
			    double *anon)
{
	const struct record_figures *f = seg->figures;
	if (seg->chunks > 1) {
		model_run_add_charges(c, seg, d, bytes, anon);
	} else if (!f->with_pfn) {
		/* no record with a PFN run: figure_mappings added no byte, so
		 * its doubles are 0 (and, from calloc, never touched) */
	} else if (anon) {
		*anon += f->chain_bytes_anon[d];
		*bytes += f->chain_bytes[d] - f->chain_bytes_anon[d];
	} else {
		*bytes += f->chain_bytes[d];
	}
}

static void visit_process_figures(struct model_context *c, const struct segment *seg, void *data)
{
	(void)data;
	struct model_result *r = c->result;
	struct model_process *mp = &r->process_figures[seg->process];
	const struct record_figures *f = seg->figures;
	mp->present_ptes += f->present;
	mp->swap_ptes += f->swap;
	mp->zero_page_ptes += f->zero_page;
	if (r->has_pfns)
		for (size_t d = 0; d < r->design_count; d++)
			add_chain_bytes(c, seg, d, &mp->pte_chain_bytes[d], NULL);
}

/* ---- rmap work per event (section 7) ---- */

const char *const fault_kind_names[FAULT_KIND_COUNT] = { "anon", "cow", "file", "swap" };

/* What one visit adds to every design's work: one segment, or the sums of
 * the segments of one kind (struct work_kind) whose records have no PFN. */
struct work_segment {
	const struct segment *seg;      /* NULL: a kind's sums (no PFN: no pte_chain charge) */
	size_t process;
	const struct record_figures *f;
	const struct vma *vma;          /* the segment's (a kind's: one of its VMAs) */
	enum pmd_kind kind;
	uint64_t pmd_calls;
	bool has_anon_vma;
};

/* Records without a PFN are priced as pages mapped once (walk.c
 * figure_mappings), so a design's work from such segments is their counts
 * times that design's constants.  Their counts are summed per kind of
 * segment (all the designs' loop reads besides the counts), and the loop
 * runs once per kind and process, not once per segment. */
struct work_kind {
	uint64_t flags;                 /* the VMA's vm_flags a lazy fork reads */
	uint8_t bits;                   /* 0: a free slot; else work_kind_bits */
	const struct vma *vma;          /* one VMA of the kind (NULL: outside every VMA) */
	enum pmd_kind kind;
	bool has_anon_vma;
	uint64_t mapped, mapped_anon, swap, pmd_calls;
};

/* The kinds' table is emptied into the work when a quarter of it is left:
 * the sums are of integers, so when they are added does not matter. */
#define WORK_KIND_SLOTS 64

struct kind_table {
	struct work_kind kinds[WORK_KIND_SLOTS];
	uint8_t taken[WORK_KIND_SLOTS]; /* the slots taken, in order */
	size_t taken_count;
};

/* Counts below MUNMAP_SLOTS (a PTE page's entries: most VMAs remove fewer)
 * are tallied by value, the others kept, as the walk leaves each VMA: the
 * median is the tally's or, when it lies above, a selection over the
 * others; the largest is the first VMA of the largest count in process
 * and address order. */
#define MUNMAP_SLOTS 512

struct munmap_tally {
	uint64_t tally[MUNMAP_SLOTS];
	uint64_t *above;                /* the counts of MUNMAP_SLOTS and more */
	size_t above_count, above_capacity;
	uint64_t seen;                  /* VMAs tallied (the others count 0) */
	struct munmap_work work;        /* the largest so far */
};

/* Per process and design, the unrounded pte_chain share of the pages each
 * kind of fault maps (anon, cow, file), rounded once per process. */
struct work_walk {
	double *fault_chain_bytes;      /* [design * 3 + kind] */
	struct design_steps {           /* per design, worked out once */
		int64_t cow_frees;      /* cow_chain_frees */
		uint64_t swap_allocations; /* chains one swap-in allocates */
	} *steps;
	uint64_t fork_flags;            /* every design's fork_copy_flags together */
	struct event_work current;      /* the process's under the current design; the other
					   designs' work is added to their sums at once */
	struct fork_walk *fork;         /* what a fork copies: the same walk (model/fork.c) */
	/* munmap's counts of the VMA being walked (its segments come one
	 * after another), tallied when the walk leaves it: by PTE [0], and on
	 * whole designs [1] */
	const struct vma *vma;
	uint64_t vma_calls[2];
	struct munmap_tally *munmap;    /* [2] */
	/* a kind's work is linear in its counts: one process's kinds under the
	 * current design (kept per process), every process's summed under the
	 * others (their sums only), priced once per kind, not per process */
	struct kind_table process, all;
	struct record_figures sums;     /* a kind's counts; per-design arrays from them */
};

/* pte_chains (or blocks) a COW fault's removal of the old file page frees:
 * (C(m + 1) - C(m)) / unit for the m mappings it keeps, which no snapshot
 * shows (the page was replaced).  Known only where the step is the same
 * for every m: D1 one a removal (2.4 mm/rmap.c page_remove_rmap ->
 * pte_chain_free), none where file pages have no chains.  -1: it depends
 * on m (PG_direct, blocks of NRPTE). */
static int64_t cow_chain_frees(const struct rmap_profile *profile)
{
	unsigned unit = chain_unit_bytes(profile);
	uint64_t step = rmap_page_cost(profile, 1, false);
	uint64_t limit = 2 * (uint64_t)(profile->nrpte ? profile->nrpte : 1) + 2;
	for (uint64_t m = 1; m <= limit; m++)
		if (rmap_page_cost(profile, m + 1, false) - rmap_page_cost(profile, m, false) != step)
			return -1;
	return unit ? (int64_t)(step / unit) : 0;
}

/* A PMD-mapped THP on a whole design: one fault maps it, counted on the
 * segment holding the window's first slot (calls: 1 there, else 0):
 * do_huge_pmd_anonymous_page (one add, one anon_vma_prepare; anonymous VMAs
 * only, and a COW of a huge PMD splits it and copies by PTE since 5.8) or
 * do_set_pmd (one file add). */
static void count_pmd_fault(const struct model_context *c, const struct work_segment *ws, size_t d,
			    uint64_t calls, struct event_work *w, double *chain_bytes)
{
	const struct rmap_profile *profile = c->result->designs[d].profile;
	enum fault_kind k = ws->kind == PMD_ANON ? FAULT_ANON : FAULT_FILE;
	struct fault_work *fault = &w->faults[k];
	fault->faults += calls;
	fault->pmd_faults += calls;
	fault->rmap_calls += calls;
	fault->anon_vma_prepares += k == FAULT_ANON && profile->anon_vma_fork != ANON_VMA_NONE ? calls : 0;
	if (ws->seg)
		chain_bytes[k] += ws->f->chain_bytes[d];
}

/* The faults that would map the segment's pages (section 7): an anonymous
 * page of a file VMA is that file page's COW copy. */
static void count_faults(const struct model_context *c, const struct work_segment *ws, size_t d,
			 const struct design_steps *steps, struct event_work *w, double *chain_bytes)
{
	const struct record_figures *f = ws->f;
	const struct rmap_profile *profile = c->result->designs[d].profile;
	bool file_vma = ws->vma && ws->vma->inode != 0;
	bool prepares = profile->anon_vma_fork != ANON_VMA_NONE;   /* anon_vma_prepare exists */
	enum fault_kind anon_kind = file_vma ? FAULT_COW : FAULT_ANON;
	struct fault_work *anon = &w->faults[anon_kind], *file = &w->faults[FAULT_FILE];
	struct fault_work *swap = &w->faults[FAULT_SWAP];
	anon->faults += f->mapped_anon;
	anon->rmap_calls += (anon_kind == FAULT_COW ? 2 : 1) * f->mapped_anon;
	int64_t frees = anon_kind == FAULT_COW ? steps->cow_frees : 0;
	anon->chain_frees += frees > 0 ? (uint64_t)frees * f->mapped_anon : 0;
	anon->anon_vma_prepares += prepares ? f->mapped_anon : 0;
	if (ws->seg)
		add_chain_bytes(c, ws->seg, d, &chain_bytes[FAULT_FILE], &chain_bytes[anon_kind]);
	file->faults += f->mapped - f->mapped_anon;
	file->rmap_calls += f->mapped - f->mapped_anon;
	swap->faults += f->swap;
	swap->rmap_calls += f->swap;
	swap->chain_allocations += f->swap * steps->swap_allocations;
}

static bool is_pmd_mapped(enum pmd_kind kind)
{
	return kind == PMD_FILE || kind == PMD_ANON;
}

/* rmap calls of a segment: one per mapped PTE, but on a whole design
 * (<huge-pmd rmap="whole">) one per PMD-mapped THP (copy_huge_pmd ->
 * folio_try_dup_anon_rmap_pmd at fork, zap_huge_pmd -> folio_remove_rmap_pmd
 * at exit and munmap), counted on the segment holding the window's first
 * slot. */
static uint64_t segment_calls(struct model_context *c, const struct segment *seg, enum pmd_kind kind)
{
	if (!is_pmd_mapped(kind))
		return seg->figures->mapped;
	uint64_t window_mask = ((uint64_t)1 << c->pte_shift) - 1;
	return seg->first == 0 && (seg->base & window_mask) == 0 && seg->figures->mapped;
}

/* The calls of one segment under one design. */
struct segment_calls {
	uint64_t calls, anon_calls, pmd_calls;
	bool pmd;                       /* the design maps the window by one PMD */
};

static struct segment_calls design_calls(const struct rmap_profile *profile, const struct work_segment *ws)
{
	struct segment_calls s = { ws->f->mapped, ws->f->mapped_anon, 0, false };
	if (!profile->huge_pmd_whole || !is_pmd_mapped(ws->kind))
		return s;
	return (struct segment_calls){ ws->pmd_calls, ws->kind == PMD_ANON ? ws->pmd_calls : 0, ws->pmd_calls, true };
}

static void count_exit(const struct record_figures *f, size_t d, const struct segment_calls *s, struct event_work *w)
{
	w->exit_rmap_calls += s->calls;
	w->exit_rmap_pages += f->mapped;
	w->exit_rmap_anon_calls += s->anon_calls;
	w->exit_rmap_pmd_calls += s->pmd_calls;
	w->exit_rmap_anon_pmd_calls += s->pmd ? s->anon_calls : 0;
	w->exit_chain_frees += f->chain_frees[d];
	w->exit_direct_pages += f->direct_pages[d];
}

/* A segment's (or a kind's) work under design d. */
static void count_design(struct model_context *c, struct work_walk *walk, const struct work_segment *ws, size_t d)
{
	struct model_result *r = c->result;
	const struct record_figures *f = ws->f;
	struct event_work *w = d == r->current_design ? &walk->current : &r->designs[d].work;
	struct segment_calls s = design_calls(r->designs[d].profile, ws);
	count_exit(f, d, &s, w);
	if (s.pmd)
		count_pmd_fault(c, ws, d, ws->pmd_calls, w, &walk->fault_chain_bytes[d * 3]);
	else
		count_faults(c, ws, d, &walk->steps[d], w, &walk->fault_chain_bytes[d * 3]);
	/* copy_huge_pmd leaves a file or shmem PMD to be faulted again */
	if (!model_fork_copies(r->designs[d].profile, ws->vma, ws->has_anon_vma) || (s.pmd && ws->kind == PMD_FILE))
		return;
	w->fork_rmap_calls += s.calls;
	w->fork_rmap_anon_calls += s.anon_calls;
	w->fork_rmap_pmd_calls += s.pmd_calls;
	w->fork_rmap_pages += f->mapped;
	w->fork_chain_allocations += f->chain_allocations[d];
}

static void count_designs(struct model_context *c, struct work_walk *walk, const struct work_segment *ws)
{
	for (size_t d = 0; d < c->result->design_count; d++)
		count_design(c, walk, ws, d);
}

/* What tells one kind of segment from another besides its VMA's flags:
 * how its window is mapped (by PTEs, a file or an anonymous PMD), a file
 * VMA or not, an anon_vma or not; 0 is a free slot. */
static uint8_t work_kind_bits(const struct work_segment *ws)
{
	unsigned pmd = ws->kind == PMD_FILE ? 1 : ws->kind == PMD_ANON ? 2 : 0;
	return (uint8_t)(1 | (ws->vma && ws->vma->inode != 0) << 1 | ws->has_anon_vma << 2 | pmd << 3);
}

/* Every kind of every process gathered so far, under every design but the
 * current, then the table emptied. */
static void count_all_kinds(struct model_context *c, struct work_walk *walk)
{
	struct model_result *r = c->result;
	struct record_figures *f = &walk->sums;
	for (size_t t = 0; t < walk->all.taken_count; t++) {
		struct work_kind *k = &walk->all.kinds[walk->all.taken[t]];
		memset(f->chain_allocations, 0, 3 * r->design_count * sizeof(uint64_t));
		*f = (struct record_figures){ .mapped = k->mapped, .mapped_anon = k->mapped_anon, .swap = k->swap,
					      .chain_allocations = f->chain_allocations, .chain_frees = f->chain_frees,
					      .direct_pages = f->direct_pages };
		model_figure_without_pfns(c, k->mapped, k->mapped_anon, f);
		struct work_segment ws = { NULL, 0, f, k->vma, k->kind, k->pmd_calls, k->has_anon_vma };
		for (size_t d = 0; d < r->design_count; d++)
			if (d != r->current_design)
				count_design(c, walk, &ws, d);
		*k = (struct work_kind){ 0 };
	}
	walk->all.taken_count = 0;
}

/* Counts of a kind (by its VMA's flags and bits) added to table's. */
static bool add_to_kind(struct kind_table *table, uint64_t flags, const struct work_kind *from)
{
	size_t slot = (size_t)((flags ^ (uint64_t)from->bits << 56) * UINT64_C(0x9e3779b97f4a7c15) >> 58);
	while (table->kinds[slot].bits && (table->kinds[slot].bits != from->bits || table->kinds[slot].flags != flags))
		slot = (slot + 1) % WORK_KIND_SLOTS;
	struct work_kind *k = &table->kinds[slot];
	if (!k->bits) {
		*k = (struct work_kind){ .flags = flags, .bits = from->bits, .vma = from->vma, .kind = from->kind,
					 .has_anon_vma = from->has_anon_vma };
		table->taken[table->taken_count++] = (uint8_t)slot;
	}
	k->mapped += from->mapped;
	k->mapped_anon += from->mapped_anon;
	k->swap += from->swap;
	k->pmd_calls += from->pmd_calls;
	return table->taken_count >= WORK_KIND_SLOTS * 3 / 4;
}

/* The process's kinds gathered so far under the current design (its own
 * work), then added to every process's; the table emptied. */
static void count_kinds(struct model_context *c, struct work_walk *walk, size_t process)
{
	size_t current = c->result->current_design;
	struct record_figures *f = &walk->sums;
	for (size_t t = 0; t < walk->process.taken_count; t++) {
		struct work_kind *k = &walk->process.kinds[walk->process.taken[t]];
		if (current < c->result->design_count) {
			*f = (struct record_figures){ .mapped = k->mapped, .mapped_anon = k->mapped_anon, .swap = k->swap,
						      .chain_allocations = f->chain_allocations, .chain_frees = f->chain_frees,
						      .direct_pages = f->direct_pages };
			memset(f->chain_allocations, 0, 3 * c->result->design_count * sizeof(uint64_t));
			model_figure_without_pfns(c, k->mapped, k->mapped_anon, f);
			struct work_segment ws = { NULL, process, f, k->vma, k->kind, k->pmd_calls, k->has_anon_vma };
			count_design(c, walk, &ws, current);
		}
		if (add_to_kind(&walk->all, k->flags, k))
			count_all_kinds(c, walk);
		*k = (struct work_kind){ 0 };
	}
	walk->process.taken_count = 0;
}

/* A segment without a PFN: its counts added to its kind's. */
static void add_kind(struct model_context *c, struct work_walk *walk, const struct work_segment *ws)
{
	uint64_t flags = ws->vma ? ws->vma->vm_flags & walk->fork_flags : 0;
	struct work_kind one = { .bits = work_kind_bits(ws), .vma = ws->vma, .kind = ws->kind,
				 .has_anon_vma = ws->has_anon_vma, .mapped = ws->f->mapped,
				 .mapped_anon = ws->f->mapped_anon, .swap = ws->f->swap, .pmd_calls = ws->pmd_calls };
	if (add_to_kind(&walk->process, flags, &one))
		count_kinds(c, walk, ws->process);
}

/* The walk leaves the VMA it was in (NULL: none yet) for `next`: the
 * VMA's counts tallied, by PTE and on whole designs. */
static void leave_vma(struct work_walk *walk, size_t process, const struct vma *next)
{
	for (int kind = 0; walk->vma && kind < 2; kind++) {
		struct munmap_tally *t = &walk->munmap[kind];
		uint64_t calls = walk->vma_calls[kind];
		if (calls < MUNMAP_SLOTS)
			t->tally[calls]++;
		else
			*ARRAY_PUSH(t->above, t->above_count, t->above_capacity) = calls;
		t->seen++;
		if (calls > t->work.max_calls)
			t->work = (struct munmap_work){ .max_calls = calls, .largest = walk->vma,
							.largest_process = process };
	}
	walk->vma = next;
	walk->vma_calls[0] = walk->vma_calls[1] = 0;
}

/* A segment's work: at once under every design when a record has a PFN
 * (its charges are per design and added in order), else by its kind. */
static void visit_work(struct model_context *c, const struct segment *seg, void *data)
{
	struct work_walk *walk = data;
	const struct record_figures *f = seg->figures;
	visit_process_figures(c, seg, NULL);   /* the one walk for the three */
	enum pmd_kind kind = segment_pmd_kind(c, seg);
	model_fork_visit(c, seg, kind, walk->fork);
	/* a PFN map's PTEs are copied and zapped, but it holds no struct
	 * page: vm_normal_page() gives none, so no rmap call is made */
	if (seg->vma && VMA_HAS_FLAG(seg->vma, VMF_PF))
		return;
	struct work_segment ws = { seg, seg->process, f, seg->vma, kind, segment_calls(c, seg, kind),
				   seg->vma && c->vma_has_anon_vma[seg->vma - c->snapshot->vmas] };
	if (seg->vma) {
		if (seg->vma != walk->vma)
			leave_vma(walk, seg->process, seg->vma);
		walk->vma_calls[0] += f->mapped;
		walk->vma_calls[1] += ws.pmd_calls;
	}
	if (f->with_pfn)
		count_designs(c, walk, &ws);
	else
		add_kind(c, walk, &ws);
}

static void add_work(struct event_work *sum, const struct event_work *w)
{
	sum->fork_rmap_calls += w->fork_rmap_calls;
	sum->fork_rmap_anon_calls += w->fork_rmap_anon_calls;
	sum->fork_rmap_pages += w->fork_rmap_pages;
	sum->fork_rmap_pmd_calls += w->fork_rmap_pmd_calls;
	sum->fork_chain_allocations += w->fork_chain_allocations;
	sum->fork_anon_vma_calls += w->fork_anon_vma_calls;
	sum->exit_rmap_calls += w->exit_rmap_calls;
	sum->exit_rmap_pages += w->exit_rmap_pages;
	sum->exit_rmap_anon_calls += w->exit_rmap_anon_calls;
	sum->exit_rmap_pmd_calls += w->exit_rmap_pmd_calls;
	sum->exit_rmap_anon_pmd_calls += w->exit_rmap_anon_pmd_calls;
	sum->exit_chain_frees += w->exit_chain_frees;
	sum->exit_direct_pages += w->exit_direct_pages;
	sum->exit_anon_vma_unlinks += w->exit_anon_vma_unlinks;
	sum->exit_anon_vma_chain_frees += w->exit_anon_vma_chain_frees;
	for (int k = 0; k < FAULT_KIND_COUNT; k++) {
		sum->faults[k].faults += w->faults[k].faults;
		sum->faults[k].pmd_faults += w->faults[k].pmd_faults;
		sum->faults[k].rmap_calls += w->faults[k].rmap_calls;
		sum->faults[k].chain_allocations += w->faults[k].chain_allocations;
		sum->faults[k].anon_vma_prepares += w->faults[k].anon_vma_prepares;
		sum->faults[k].chain_frees += w->faults[k].chain_frees;
	}
}

/* The k-th smallest of values[0, n) (k < n, from 0), the values reordered:
 * Hoare's selection, linear on average where a sort is n log n. */
static uint64_t kth_smallest(uint64_t *values, size_t n, size_t k)
{
	ptrdiff_t low = 0, high = (ptrdiff_t)n - 1, at = (ptrdiff_t)k;
	while (low < high) {
		uint64_t pivot = values[low + (high - low) / 2];
		ptrdiff_t i = low, j = high;
		while (i <= j) {
			while (values[i] < pivot)
				i++;
			while (values[j] > pivot)
				j--;
			if (i <= j) {
				uint64_t t = values[i];
				values[i++] = values[j];
				values[j--] = t;
			}
		}
		if (at <= j)
			high = j;
		else if (at >= i)
			low = i;
		else
			break;          /* between j and i: equal to the pivot */
	}
	return values[at];
}

/* munmap VMA by VMA: the median and largest count of rmap removals. */
static struct munmap_work finish_munmap(const struct snapshot *s, struct munmap_tally *t)
{
	struct munmap_work m = t->work;
	m.vmas = s->vma_count;
	if (!s->vma_count)
		return m;
	t->tally[0] += s->vma_count - t->seen;
	uint64_t below = 0;
	size_t k = (s->vma_count - 1) / 2, value = 0;
	while (value < MUNMAP_SLOTS && (below += t->tally[value]) <= k)
		value++;
	/* else the k-th smallest is among the counts above, after `below` */
	m.median_calls = value < MUNMAP_SLOTS ? value : kth_smallest(t->above, t->above_count, k - below);
	return m;
}

/* munmap under each design: a whole design's PMD-mapped THP is one removal,
 * as at exit; every design of a kind counts the same. */
static void count_munmaps(struct model_context *c, struct munmap_tally *tallies)
{
	struct munmap_work kinds[2] = { finish_munmap(c->snapshot, &tallies[0]), finish_munmap(c->snapshot, &tallies[1]) };
	for (size_t d = 0; d < c->result->design_count; d++)
		c->result->designs[d].munmap = kinds[c->result->designs[d].profile->huge_pmd_whole ? 1 : 0];
	for (int kind = 0; kind < 2; kind++)
		free(tallies[kind].above);
}

/* Fork, exit and fault work per process and design, then their sums.  The
 * anon_vma parts are counted per process (model_price_anon_vmas), before
 * model_object_rmap sums them.  The same walk gives each
 * process its PTEs by kind and pte_chain charges (visit_process_figures),
 * and what a fork copies (model/fork.c): one walk, not three. */
static void work_walk_make(const struct model_result *r, struct work_walk *walk)
{
	*walk = (struct work_walk){ .fault_chain_bytes = xcalloc(r->design_count * 3 + 1, sizeof(double)),
				    .steps = xcalloc(r->design_count + 1, sizeof(*walk->steps)),
				    .munmap = xcalloc(2, sizeof(*walk->munmap)) };
	uint64_t *counts = xcalloc(3 * r->design_count + 1, sizeof(*counts));
	walk->sums = (struct record_figures){ .chain_allocations = counts, .chain_frees = counts + r->design_count,
					      .direct_pages = counts + 2 * r->design_count };
	for (size_t d = 0; d < r->design_count; d++) {
		/* do_swap_page maps the page once: a page of one mapping */
		const struct rmap_profile *profile = r->designs[d].profile;
		unsigned unit = chain_unit_bytes(profile);
		walk->steps[d] = (struct design_steps){ cow_chain_frees(profile),
							unit ? rmap_page_cost(profile, 1, true) / unit : 0 };
		walk->fork_flags |= profile->fork_copy_flags;
	}
}

static void count_work(struct model_context *c)
{
	struct model_result *r = c->result;
	struct work_walk walk;
	work_walk_make(r, &walk);
	double *total_bytes = xcalloc(r->design_count * 3 + 1, sizeof(double));
	walk.fork = model_fork_begin(c);
	for (size_t i = 0; i < c->snapshot->process_count; i++) {
		model_fork_process_begin(c, walk.fork);
		memset(walk.fault_chain_bytes, 0, r->design_count * 3 * sizeof(double));
		/* only the current design's work is kept per process
		 * (model_process_work): the others' go to their sums */
		walk.current = (struct event_work){ 0 };
		model_price_anon_vmas(c, i, &walk.current);
		/* without a PFN run no segment needs its per-design figures */
		model_walk_segment_runs(c, i, c->pfns.count > 0, visit_work, &walk);
		leave_vma(&walk, i, NULL);
		count_kinds(c, &walk, i);
		if (i + 1 == c->snapshot->process_count)
			count_all_kinds(c, &walk);
		model_fork_process_end(c, walk.fork, i);
		struct model_process *mp = &r->process_figures[i];
		r->present_ptes += mp->present_ptes;
		r->swap_ptes += mp->swap_ptes;
		r->zero_page_ptes += mp->zero_page_ptes;
		/* a process's fault chains are rounded for it alone; a design's
		 * sum is rounded once, below (the rounded shares are not added) */
		for (size_t d = 0; d < r->design_count; d++) {
			unsigned unit = chain_unit_bytes(r->designs[d].profile);
			for (int k = 0; unit && k < 3; k++) {
				if (d == r->current_design)
					walk.current.faults[k].chain_allocations +=
						(uint64_t)llround(walk.fault_chain_bytes[d * 3 + k] / unit);
				total_bytes[d * 3 + k] += walk.fault_chain_bytes[d * 3 + k];
			}
		}
		if (r->current_design < r->design_count) {
			add_work(&r->designs[r->current_design].work, &walk.current);
			mp->work = walk.current;
		}
	}
	/* a page's chains are shared PSS-style among its mappings: the total
	 * is rounded once (a process's share alone may round to 0) */
	for (size_t d = 0; d < r->design_count; d++) {
		struct model_design *design = &r->designs[d];
		unsigned unit = chain_unit_bytes(design->profile);
		for (int k = 0; unit && k < 3; k++)
			design->work.faults[k].chain_allocations = (uint64_t)llround(total_bytes[d * 3 + k] / unit);
		design->faults_exact = r->has_pfns && r->processes_with_pagemap == r->processes;
		design->cow_frees_known = cow_chain_frees(design->profile) >= 0;
	}
	count_munmaps(c, walk.munmap);
	free(total_bytes);
	model_fork_end(walk.fork);
	FREE_ALL(walk.fault_chain_bytes, walk.steps, walk.sums.chain_allocations, walk.munmap);
}

const struct event_work *model_process_work(const struct model_result *r, size_t process, size_t design)
{
	if (!r || process >= r->processes || design >= r->design_count || design != r->current_design)
		return NULL;
	return &r->process_figures[process].work;
}

/* ---- orchestration ---- */

/* Index of a profile among the designs, appending it (not selected) when
 * it is missing: a baseline or the snapshot's design outside --profile. */
static size_t design_index(struct model_result *r, size_t *capacity, const struct rmap_profile *profile)
{
	for (size_t d = 0; d < r->design_count; d++)
		if (r->designs[d].profile == profile)
			return d;
	array_reserve(&r->designs, capacity, r->design_count + 1, sizeof(*r->designs));
	r->designs[r->design_count] = (struct model_design){ .profile = profile };
	return r->design_count++;
}

/*
 * What the snapshot says it is must be what the model can model: the page
 * size it counts in (an aarch64 snapshot of 64 KiB pages was modelled as
 * x86_64's 4 KiB ones; an architecture without profiles of its own and
 * 4 KiB pages is priced like x86_64, as profiles_fit says), and addresses a
 * 32-bit profile's space can hold (an i386 snapshot with VMAs above 4 GiB).
 */
static int check_snapshot_fits(const struct snapshot *s, const struct rmap_profile *current,
			       bool own_geometry, struct error *error)
{
	const char *arch = s->info.arch;
	if (s->info.page_size && s->info.page_size != MODEL_PAGE_BYTES)   /* 0: a snapshot built in memory */
		return error_set(error, s->source, 0, "snapshot.info: pages of %" PRIu64 " bytes: the model "
				 "counts %u-byte pages only", (uint64_t)s->info.page_size, MODEL_PAGE_BYTES);
	if (own_geometry || !current || current->pointer_bytes != 4)
		return 0;
	for (size_t i = 0; i < s->vma_count; i++)
		if (s->vmas[i].end > (UINT64_C(1) << 32))
			return error_set(error, s->source, 0, "a VMA ends at %#" PRIx64 ", above the 4 GiB a "
					 "%s address space holds", s->vmas[i].end, arch);
	return 0;
}

static int choose_profiles(struct model_context *c, struct error *error)
{
	const struct model_options *o = c->options;
	struct model_result *r = c->result;
	const struct profile_set *set = o->profiles;
	size_t selected = o->designs ? o->design_count : set->rmap_count, capacity = 0;
	r->sharing_count = o->rules ? o->rule_count : set->rule_count;
	r->designs = NULL;
	array_reserve(&r->designs, &capacity, selected + 1, sizeof(*r->designs));
	r->sharing = xcalloc(r->sharing_count + 1, sizeof(*r->sharing));
	for (size_t d = 0; d < selected; d++)
		r->designs[r->design_count++] = (struct model_design){
			.profile = o->designs ? o->designs[d] : &set->rmaps[d], .selected = true };
	const struct rmap_profile *current = profiles_fit(set, c->snapshot->info.arch, NULL);
	if (check_snapshot_fits(c->snapshot, current, o->geometry != NULL, error))
		return -1;
	r->current_design = current ? design_index(r, &capacity, current) : SIZE_MAX;
	/* every design's baseline is computed too, so its savings always exist */
	for (size_t d = 0; d < r->design_count; d++)
		r->designs[d].baseline = design_index(r, &capacity, profiles_baseline(set, r->designs[d].profile));
	for (size_t k = 0; k < r->sharing_count; k++)
		r->sharing[k].rule = o->rules ? o->rules[k] : &set->rules[k];
	c->geometry = o->geometry;
	if (!c->geometry) {
		if (!current)
			/* profiles_fit falls back to x86_64's: only a built-in set
			 * without one gets here, the program's failure */
			return error_internal(error, NULL, 0,
					      "no kernel profile describes this snapshot's architecture");
		c->geometry = &current->geometry;
	}
	r->geometry = c->geometry;
	c->pte_shift = c->geometry->levels[0].shift;
	/* the snapshot keeps records by 2 MiB chunk (inputs/snapshot.h): a PTE
	 * page must map one chunk or several.  The geometry is a built-in
	 * profile's (profiles_fit): failing here is the program's failure. */
	if (c->pte_shift < PAGEMAP_CHUNK_SHIFT)
		return error_internal(error, NULL, 0,
				      "geometry %s: PTE pages mapping %llu KiB are not supported (2 MiB or more)",
				      c->geometry->name, (1ull << c->pte_shift) / 1024);
	c->chunks_per_window_shift = c->pte_shift - PAGEMAP_CHUNK_SHIFT;
	return 0;
}

/* What process i's VMAs' counters give, and its smaps-only page-table
 * estimate (model/estimate.c), just before the first walk of its segments
 * (model_walk_begin; its VMAs are then fresh in the cache), which marks the
 * VMAs whose records show an exclusive anonymous page among the rest
 * (model/walk.c). */
static void sum_vmas(struct model_context *c, size_t i)
{
	const struct snapshot *s = c->snapshot;
	const struct vma *vmas = s->processes[i].vmas;
	uint64_t rss = 0, pss = 0;
	for (size_t v = 0; v < s->processes[i].vma_count; v++) {
		/* the VMAs and their counters are read here first: a cache miss
		 * each, fetched a few ahead */
		model_prefetch_vma(vmas, s->processes[i].vma_count, v, MODEL_VMAS_AHEAD);
		if (v + MODEL_VMAS_AHEAD / 2 < s->processes[i].vma_count)
			__builtin_prefetch(vmas[v + MODEL_VMAS_AHEAD / 2].counters);
		rss += vma_kb(&vmas[v], SMAPS_RSS) * 1024;
		pss += vma_kb(&vmas[v], SMAPS_PSS) * 1024;
		/* an anonymous page: an anon_vma; read here, where the
		 * VMA's counters are */
		c->vma_has_anon_vma[&vmas[v] - s->vmas] = vma_kb(&vmas[v], SMAPS_ANONYMOUS) > 0;
		bool anon;
		c->process_smaps_pmds[i] |= model_smaps_pmd_windows(c, &vmas[v], &anon) > 0;
		if (s->processes[i].has_pagemap && model_shared_segment(&vmas[v], (uint64_t)1 << c->pte_shift))
			*ARRAY_PUSH(c->shared_segments, c->shared_segment_count, c->shared_segment_capacity) =
				(struct vma_ref){ i, &vmas[v] };
	}
	c->result->process_figures[i].rss_bytes = rss;
	c->result->process_figures[i].pss_bytes = pss;
	c->result->vma_count += s->processes[i].vma_count;
	model_estimate_process(c, i);   /* while the VMAs are in the cache */
}

static void sum_processes(struct model_context *c)
{
	struct model_result *r = c->result;
	const struct snapshot *s = c->snapshot;
	for (size_t i = 0; i < s->process_count; i++) {
		const struct process *p = &s->processes[i];
		struct model_process *mp = &r->process_figures[i];
		mp->process = p;
		mp->has_vmpte = p->has_status && p->status.has_vm_pte;
		mp->vmpte_bytes = mp->has_vmpte ? p->status.vm_pte_kb * 1024 : 0;
		mp->exact = p->has_pagemap;
		r->vmpte_bytes += mp->vmpte_bytes;
		r->processes_with_status += mp->has_vmpte;
		/* PTEs by kind and pte_chain charges: count_work's walk */
		if (!mp->exact)
			continue;
		r->processes_with_pagemap++;
		r->pte_pages += mp->pte_pages;
		r->upper_pages += mp->upper_pages;
		r->pmd_mapped_windows += mp->pmd_mapped_windows;
		r->pmd_mapped_anon_windows += mp->pmd_mapped_anon_windows;
		r->pagetable_bytes += mp->pagetable_bytes;
		r->vmpte_bytes_of_exact += mp->vmpte_bytes;
		if (mp->has_vmpte && mp->vmpte_bytes == mp->pagetable_bytes)
			r->processes_pagetable_exact++;
		if (mp->has_vmpte && mp->vmpte_bytes > mp->pagetable_bytes)
			r->vmpte_above_model_bytes += mp->vmpte_bytes - mp->pagetable_bytes;
		if (mp->has_vmpte && mp->vmpte_bytes < mp->pagetable_bytes)
			r->vmpte_below_model_bytes += mp->pagetable_bytes - mp->vmpte_bytes;
	}
}

static void finish_designs(struct model_context *c, struct fraction_sum *sums)
{
	struct model_result *r = c->result;
	bool exact = r->has_pfns && r->processes_with_pagemap == r->processes;
	for (size_t d = 0; d < r->design_count; d++) {
		struct model_design *design = &r->designs[d];
		design->pte_chain_exact = exact;
		if (exact) {
			design->pte_chain_bytes = fraction_sum_round(&sums[d]);
			design->pte_chain_value = fraction_sum_value(&sums[d]);
		} else {
			design->pte_chain_value = design->pte_chain_estimate.point;
			design->pte_chain_bytes = (uint64_t)(design->pte_chain_estimate.point + 0.5);
		}
		/* the struct page field is paid on every page of RAM the
		 * architecture can address, not on the captured processes */
		uint64_t ram_bytes = r->ram_pages * MODEL_PAGE_BYTES;
		uint64_t addressable = geometry_addressable_bytes(&design->profile->geometry);
		design->ram_capped = addressable < ram_bytes;
		design->priced_ram_bytes = design->ram_capped ? addressable : ram_bytes;
		design->page_field_bytes = design->priced_ram_bytes / MODEL_PAGE_BYTES * design->profile->page_field_bytes;
		design->rmap_bytes = design->pte_chain_bytes + design->object_rmap_bytes;
		design->total_bytes = design->rmap_bytes + design->page_field_bytes;
		fraction_sum_free(&sums[d]);
	}
	for (size_t d = 0; d < r->design_count; d++) {
		struct model_design *design = &r->designs[d];
		design->saves_bytes = (int64_t)r->designs[design->baseline].rmap_bytes - (int64_t)design->rmap_bytes;
	}
}

/* The rule the headline quotes: the first that shares by address or file
 * (content sharing is an upper bound, not a mechanism). */
static void choose_headline_rule(struct model_result *r)
{
	r->headline_rule = SIZE_MAX;
	for (size_t k = 0; k < r->sharing_count && r->headline_rule == SIZE_MAX; k++)
		if (r->sharing[k].available && r->sharing[k].rule->partners != PARTNERS_CONTENT)
			r->headline_rule = k;
}

uint64_t model_memory_bytes(const struct snapshot *s, const struct model_options *o)
{
	uint64_t designs = o->designs ? o->design_count : o->profiles->rmap_count;
	uint64_t rules = o->rules ? o->rule_count : o->profiles->rule_count;
	uint64_t records = s->content_record_count, contents = s->content_count;
	uint64_t record_runs, pfn_runs;
	pfn_table_runs_most(s, &record_runs, &pfn_runs);
	/* per record kept: its PFN run's index (allocated for every record) */
	uint64_t bytes = records * sizeof(uint32_t);
	/* per record run: itself (32 bytes) and its place in the sweep's heap
	 * (an array doubling: twice); per PFN run: itself, its last PFN and its
	 * number while the table is built (model/pfn_table.c), and reclaim's
	 * walk kind (eleven counts), its pages and hash slot (doubling: twice) */
	bytes += record_runs * (32 + 2 * sizeof(void *));
	bytes += pfn_runs * (sizeof(struct pfn_run) + sizeof(uint64_t) + sizeof(uint32_t) +
			     2 * (11 * sizeof(uint32_t) + sizeof(uint64_t) + 2 * sizeof(uint32_t)));
	/* per content: figures for every design, PMD kind, identical-rule sums and
	 * classes, and the class of a window that is the whole chunk */
	bytes += contents * (sizeof(struct content_totals) + 1 + designs * (2 * sizeof(double) + 3 * sizeof(uint64_t)) +
			     2 * sizeof(uint64_t) + 2 * 64 + sizeof(uint32_t) + sizeof(uint64_t));
	/* per VMA: anon_vma flag, drift, union-find, sharing members, estimate keys,
	 * each rule's eligibility (a byte), reclaim's histogram slot (a walk
	 * visits each VMA once at most);
	 * depth (a byte), family, reclaim's file order, descendants and owners;
	 * the segments of chunks its two edges cut, two each (an array doubling: twice) */
	bytes += (uint64_t)s->vma_count * (2 + sizeof(double) + 2 * sizeof(double) + 2 * sizeof(size_t) + 128 +
					   7 * sizeof(uint64_t) + 2 * 4 * sizeof(uint32_t) + rules);
	/* per chunk a process references (a PTE window at most): the identical
	 * rule's class of the window (model/sharing.c; an array doubling), the
	 * VMA holding it whole (model/walk.c) */
	for (size_t i = 0; i < s->process_count; i++)
		for (size_t r = 0; r < s->processes[i].run_count; r++)
			bytes += s->processes[i].runs[r].length * 3 * sizeof(uint32_t);
	/* the smaps estimate's table of VMA shapes (model/estimate.c), the walk's of runs */
	bytes += model_estimate_table_bytes(designs) + model_walk_run_bytes(designs);
	/* per process: its figures for every design and rule */
	bytes += (uint64_t)s->process_count * (sizeof(struct model_process) + (designs + rules + 2) * sizeof(double) +
					       2 * sizeof(uint64_t));
	return bytes;
}

int model_run(const struct snapshot *snapshot, const struct model_options *options,
	      struct model_result **result, struct error *error)
{
	struct model_context c = { .snapshot = snapshot, .options = options };
	struct model_result *r = xcalloc(1, sizeof(*r));
	*result = NULL;
	c.result = r;
	r->snapshot = snapshot;
	r->processes = snapshot->process_count;
	r->has_kpages = snapshot->kpage_runs != NULL;
	r->has_pfns = snapshot->info.pagemap == PAGEMAP_PFN;
	for (size_t i = 0; i < snapshot->process_count; i++)
		r->has_pagemap |= snapshot->processes[i].has_pagemap;
	r->ram_pages = snapshot_meminfo_kb(snapshot, "MemTotal") / (MODEL_PAGE_BYTES / 1024);
	if (choose_profiles(&c, error)) {
		model_free(r);
		return -1;
	}
	r->process_figures = xcalloc(snapshot->process_count + 1, sizeof(*r->process_figures));
	c.vma_has_anon_vma = xcalloc(snapshot->vma_count + 1, sizeof(*c.vma_has_anon_vma));
	c.process_smaps_pmds = xcalloc(snapshot->process_count + 1, sizeof(*c.process_smaps_pmds));
	struct fraction_sum *sums = xcalloc(r->design_count + 1, sizeof(*sums));
	for (size_t i = 0; i < snapshot->process_count; i++) {
		struct model_process *mp = &r->process_figures[i];
		mp->pte_chain_bytes = xcalloc(r->design_count + 1, sizeof(double));
		mp->sharable_pages = xcalloc(r->sharing_count + 1, sizeof(double));
		mp->fork_copies = xcalloc(r->sharing_count + 1, sizeof(*mp->fork_copies));
	}

	model_walk_begin(&c, sum_vmas);
	for (size_t i = 0; i < snapshot->process_count; i++)
		count_page_tables(&c, i);
	sum_processes(&c);
	if (r->has_pfns)
		charge_pte_chains(&c, sums);
	model_estimate(&c);
	c.vma_depths = xcalloc(snapshot->vma_count + 1, sizeof(*c.vma_depths));
	count_work(&c);                 /* with each process's anon_vmas (model/objrmap.c) */
	model_object_rmap(&c);
	model_reclaim(&c);
	model_walk_segments_end(&c);    /* the last walk */
	model_counters(&c);
	finish_designs(&c, sums);
	model_sharing(&c);
	model_huge_pages(&c);
	choose_headline_rule(r);

	model_walk_end(&c);
	free(c.vma_has_anon_vma);
	free(c.process_smaps_pmds);
	free(c.vma_depths);
	free(c.vma_family);
	free(c.shared_segments);
	free(sums);
	*result = r;
	return 0;
}

void model_free(struct model_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; r->process_figures && i < r->processes; i++) {
		free(r->process_figures[i].pte_chain_bytes);
		free(r->process_figures[i].sharable_pages);
		free(r->process_figures[i].fork_copies);
	}
	for (size_t k = 0; r->sharing && k < r->sharing_count; k++)
		free(r->sharing[k].files);
	free(r->process_figures);
	free(r->designs);
	free(r->sharing);
	free(r->segments);
	free(r);
}
