/*
 * model/objrmap.c - object-based rmap memory (docs/cost-model.md section 3): the
 * per-VMA fields, anon_vmas and anon_vma_chains each object design keeps
 * instead of per-page pte_chains.
 *
 * Which VMAs hold an anon_vma, the fork families that share one (2.6.7 to
 * 2.6.33: found by union-find over shared anonymous PFNs) and the fork depth
 * that sets the number of chains (2.6.34+) are facts of the snapshot; the
 * profile only prices them.
 *
 * Neighbours share: a VMA split by mprotect keeps its anon_vma in both
 * halves, and anon_vma_prepare() takes the anon_vma of a compatible
 * neighbour that has never been forked (find_mergeable_anon_vma).  Every
 * shared library's RELRO (r--p) and data (rw-p) VMAs are such a pair.  So
 * compatible neighbours of one process count one anon_vma between them,
 * except VMAs a fork made (depth >= 1): anon_vma_fork gives each its own.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model_internal.h"

/* Union-find over global VMA indices, path halving. */
static size_t find_root(size_t *parent, size_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

static uint64_t flag(enum vma_flag f)
{
	return UINT64_C(1) << f;
}

/* mm/mmap.c anon_vma_compatible() as far as smaps shows it: adjacent, the
 * same file with the offset running on (anonymous VMAs show no offset; an
 * anonymous mmap's offset is its address, so neighbours run on unless
 * mremap moved one), and the same flags but the access permissions and
 * soft-dirty ("sd", read as an unknown code). */
static bool compatible(const struct vma *a, const struct vma *b)
{
	const uint64_t ignored = flag(VMF_RD) | flag(VMF_WR) | flag(VMF_EX) | flag(VMF_OTHER);
	bool anonymous = a->inode == 0 && b->inode == 0 && a->dev_major == 0 && b->dev_major == 0;
	bool same_file = a->inode == b->inode && a->dev_major == b->dev_major &&
			 a->dev_minor == b->dev_minor && !strcmp(a->path, b->path) &&
			 b->offset == a->offset + (a->end - a->start);
	return a->end == b->start && (anonymous || same_file) && a->perms[3] == b->perms[3] &&
	       !((a->vm_flags ^ b->vm_flags) & ~ignored);
}

/* A VMA holds an anon_vma when smaps counts anonymous pages in it (model.c
 * sum_vmas) or its records show an exclusive anonymous page (model/walk.c,
 * the first walk): both marked before the rules run. */
static void count_anon_vmas(struct model_context *c)
{
	for (size_t g = 0; g < c->snapshot->vma_count; g++)
		c->result->anon_vmas += c->vma_has_anon_vma[g];
}

struct families {
	size_t *parent;                 /* union-find over global VMA indices */
	uint32_t *content_owner;        /* per content: global VMA index + 1 that walked it whole */
};

/* VMA g joins the family of each shared anonymous PFN among the segment's records. */
static void join_records(struct model_context *c, const struct segment *seg, size_t g, size_t *parent)
{
	struct content_cursor cursor;
	struct pagemap_record record;
	segment_cursor(c, seg, &cursor);
	for (uint32_t k = seg->first; content_cursor_next(&cursor, &record); k++) {
		uint64_t entry = record.entry;
		if (!(entry & PAGEMAP_PRESENT) || (entry & (PAGEMAP_FILE_OR_SHARED | PAGEMAP_EXCLUSIVE)))
			continue;
		struct pfn_run *e = (struct pfn_run *)content_record_pfn(c, seg->content, k);
		if (!e || pfn_is_zero_page(e))
			continue;
		if (!e->anon_vma_owner)
			e->anon_vma_owner = (uint32_t)(g + 1);
		else
			parent[find_root(parent, g)] = find_root(parent, e->anon_vma_owner - 1);
	}
}

/* A content walked whole once has joined its VMA to the owner of every PFN
 * in it: any later VMA holding the same content joins that VMA, which is
 * the same family, without walking the records again. */
static void visit_families(struct model_context *c, const struct segment *seg, void *data)
{
	struct families *f = data;
	if (!seg->vma || !seg->figures->shared_anon)
		return;
	size_t g = (size_t)(seg->vma - c->snapshot->vmas);
	if (!c->vma_has_anon_vma[g])
		return;
	if (seg->chunks > 1) {          /* a run with a shared anonymous PFN: chunk by chunk */
		model_segment_chunks(c, seg, visit_families, data);
		return;
	}
	if (seg->whole && f->content_owner[seg->content]) {
		f->parent[find_root(f->parent, g)] = find_root(f->parent, f->content_owner[seg->content] - 1);
		return;
	}
	join_records(c, seg, g, f->parent);
	if (seg->whole)
		f->content_owner[seg->content] = (uint32_t)(g + 1);
}

struct join {
	size_t *parent;
	size_t vma;                     /* global index of the VMA joining */
};

static void join_ancestor(struct model_context *c, const struct vma *ancestor, void *data)
{
	struct join *j = data;
	size_t a = (size_t)(ancestor - c->snapshot->vmas);
	j->parent[find_root(j->parent, j->vma)] = find_root(j->parent, a);
}

/* 2.6.7-2.6.33: VMAs of different processes mapping one shared anonymous
 * PFN belong to one fork family and share one anon_vma. */
static uint64_t count_families(struct model_context *c)
{
	const struct snapshot *s = c->snapshot;
	struct families f = {
		.parent = xreallocarray(NULL, s->vma_count + 1, sizeof(*f.parent)),
		.content_owner = xcalloc(s->content_count + 1, sizeof(*f.content_owner)),
	};
	for (size_t g = 0; g < s->vma_count; g++)
		f.parent[g] = g;
	for (size_t i = 0; i < s->process_count; i++)
		model_walk_segment_runs(c, i, false, visit_families, &f);
	/* a forked child's copy joins its parent's anon_vma (anon_vma_link),
	 * even once every page of it has been copied on write */
	for (size_t i = 0; i < s->process_count; i++) {
		const struct process *p = &s->processes[i];
		for (size_t v = 0; v < p->vma_count; v++) {
			size_t g = (size_t)(&p->vmas[v] - s->vmas);
			struct join j = { f.parent, g };
			if (c->vma_has_anon_vma[g] && c->vma_depths[g])
				model_vma_ancestors(c, p, &p->vmas[v], join_ancestor, &j);
		}
	}
	/* split and neighbouring VMAs share their anon_vma */
	for (size_t i = 0; i < s->process_count; i++) {
		const struct process *p = &s->processes[i];
		for (size_t v = 1; v < p->vma_count; v++) {
			size_t a = (size_t)(&p->vmas[v - 1] - s->vmas), b = a + 1;
			if (c->vma_has_anon_vma[a] && c->vma_has_anon_vma[b] && compatible(&s->vmas[a], &s->vmas[b]))
				f.parent[find_root(f.parent, b)] = find_root(f.parent, a);
		}
	}
	uint64_t families = 0;
	for (size_t g = 0; g < s->vma_count; g++)
		families += c->vma_has_anon_vma[g] && find_root(f.parent, g) == g;
	/* reclaim walks a family's VMAs (model/reclaim.c): each VMA's root */
	for (size_t g = 0; g < s->vma_count; g++)
		f.parent[g] = find_root(f.parent, g);
	c->vma_family = f.parent;
	free(f.content_owner);
	return families;
}

/* The first VMA of p with an anon_vma that overlaps [start, end), or NULL;
 * *from: where the search for the first VMA ending above start begins (a
 * cursor when the ranges asked ascend, else 0). */
static const struct vma *overlapping_anon_vma(const struct model_context *c, const struct process *p,
					      uint64_t start, uint64_t end, size_t *from)
{
	size_t low = *from, high = p->vma_count;
	while (low < high) {            /* the first VMA ending above start */
		size_t middle = low + (high - low) / 2;
		if (p->vmas[middle].end <= start)
			low = middle + 1;
		else
			high = middle;
	}
	*from = low;
	for (size_t v = low; v < p->vma_count && p->vmas[v].start < end; v++)
		if (c->vma_has_anon_vma[&p->vmas[v] - c->snapshot->vmas])
			return &p->vmas[v];
	return NULL;
}

/* The processes along p's PPid chain, nearest first, 64 hops at most: how
 * many (a chain that loops repeats, as the hops do). */
#define ANCESTOR_HOPS 64
static size_t ancestor_chain(const struct snapshot *s, const struct process *p, const struct process **chain)
{
	size_t n = 0;
	const struct process *ancestor = p;
	for (int hops = 0; hops < ANCESTOR_HOPS; hops++) {
		if (ancestor->ppid == ancestor->pid)
			break;
		ancestor = snapshot_find_process(s, ancestor->ppid);
		if (!ancestor)
			break;
		chain[n++] = ancestor;
	}
	return n;
}

/* model_vma_ancestors over a chain found once; cursors: per ancestor, or NULL. */
static uint64_t chain_ancestors(struct model_context *c, const struct process *const *chain, size_t n,
				size_t *cursors, const struct vma *vma, ancestor_visit visit, void *data)
{
	uint64_t depth = 0;
	for (size_t k = 0; k < n; k++) {
		size_t none = 0;
		const struct vma *overlap = overlapping_anon_vma(c, chain[k], vma->start, vma->end,
								 cursors ? &cursors[k] : &none);
		if (overlap) {
			depth++;
			if (visit)
				visit(c, overlap, data);
		}
	}
	return depth;
}

/* The ancestors a fork copied a VMA from: along the PPid chain, those
 * holding a VMA with an anon_vma that overlaps it.  A VMA's fork depth d
 * is their number, its chain count d + 1: anon_vma_fork clones the parent
 * VMA's chains and adds one, and a split (__split_vma -> anon_vma_clone)
 * gives each piece every chain of the VMA it came from, so a piece is
 * matched to the ancestor's VMA by overlap, not by equal ends. */
uint64_t model_vma_ancestors(struct model_context *c, const struct process *p, const struct vma *vma,
			     ancestor_visit visit, void *data)
{
	const struct process *chain[ANCESTOR_HOPS];
	return chain_ancestors(c, chain, ancestor_chain(c->snapshot, p, chain), NULL, vma, visit, data);
}

/* The nearest ancestor's overlapping VMA (the first visited): pieces of
 * one VMA a fork made share its anon_vma. */
static void remember_nearest(struct model_context *c, const struct vma *ancestor, void *data)
{
	(void)c;
	const struct vma **nearest = data;
	if (!*nearest)
		*nearest = ancestor;
}

/* Process i's VMAs holding an anon_vma, their chains (*chains), and those
 * not sharing their neighbour's (added to c->anon_vma_own).  2.6.34+: one
 * anon_vma per VMA holding one, but compatible neighbours (never forked)
 * count one between them; chains: d + 1 per VMA.  The neighbour's depth is
 * known: VMAs are walked in address order. */
static uint64_t process_anon_vmas(struct model_context *c, size_t i, uint64_t *chains)
{
	const struct snapshot *s = c->snapshot;
	const struct process *p = &s->processes[i];
	uint64_t vmas = 0;
	/* the chain once per process; its VMAs ascend, so a cursor per ancestor */
	const struct process *chain[ANCESTOR_HOPS];
	size_t cursors[ANCESTOR_HOPS] = { 0 }, hops = ancestor_chain(s, p, chain);
	const struct vma *nearest = NULL, *before = NULL;   /* the VMA's and the one before's */
	*chains = 0;
	for (size_t v = 0; v < p->vma_count; v++, before = nearest) {
		size_t g = (size_t)(&p->vmas[v] - s->vmas);
		/* the process's VMAs are read here first in count_work's walk: a
		 * cache miss each, fetched a few ahead */
		model_prefetch_vma(p->vmas, p->vma_count, v, MODEL_VMAS_AHEAD);
		nearest = NULL;
		if (!c->vma_has_anon_vma[g])
			continue;
		/* at most ANCESTOR_HOPS: a byte */
		c->vma_depths[g] = (uint8_t)chain_ancestors(c, chain, hops, cursors, &p->vmas[v], remember_nearest, &nearest);
		vmas++;
		*chains += c->vma_depths[g] + 1;
		/* never forked: compatible neighbours share (anon_vma_prepare);
		 * forked: the pieces of one forked VMA share its anon_vma */
		bool shares = v > 0 && c->vma_has_anon_vma[g - 1] && c->vma_depths[g - 1] == c->vma_depths[g] &&
			      before == nearest && compatible(&s->vmas[g - 1], &s->vmas[g]);
		c->anon_vma_own += !shares;
	}
	c->anon_vma_chains += *chains;
	return vmas;
}

/* What process i's fork and exit do with anon_vmas under each design,
 * counted here (count_work's walk calls it for every process in order,
 * while its VMAs are fresh in the cache: every VMA is marked by then):
 * anon_vma_link / anon_vma_fork per VMA holding one, and 2.6.34+ the
 * chains anon_vma_clone copies plus one new (d + 2), freed again at exit
 * by unlink_anon_vmas (d + 1). */
void model_price_anon_vmas(struct model_context *c, size_t process, struct event_work *current)
{
	struct model_result *r = c->result;
	uint64_t chains, vmas = process_anon_vmas(c, process, &chains);
	for (size_t d = 0; d < r->design_count; d++) {
		struct event_work *w = d == r->current_design ? current : &r->designs[d].work;
		switch (r->designs[d].profile->anon_vma_fork) {
		case ANON_VMA_NONE:
			break;
		case ANON_VMA_SHARED:
			w->fork_anon_vma_calls += vmas;          /* anon_vma_link */
			w->exit_anon_vma_unlinks += vmas;        /* anon_vma_unlink */
			break;
		case ANON_VMA_CHAIN:
			w->fork_anon_vma_calls += vmas;          /* anon_vma_fork */
			w->fork_chain_allocations += chains + vmas;
			w->exit_anon_vma_unlinks += vmas;        /* unlink_anon_vmas */
			w->exit_anon_vma_chain_frees += chains;
			break;
		}
	}
}

/* After count_work's walk (model_price_anon_vmas): the anon_vmas and
 * chains each design keeps. */
void model_object_rmap(struct model_context *c)
{
	struct model_result *r = c->result;
	count_anon_vmas(c);
	bool exact = r->has_pfns && r->processes_with_pagemap == r->processes;
	uint64_t families = exact ? count_families(c) : c->anon_vma_own;
	for (size_t d = 0; d < r->design_count; d++) {
		struct model_design *design = &r->designs[d];
		const struct rmap_profile *profile = design->profile;
		design->vma_field_bytes = r->vma_count * profile->vma_rmap_bytes;
		design->anon_vma_exact = true;
		switch (profile->anon_vma_fork) {
		case ANON_VMA_NONE:
			break;
		case ANON_VMA_SHARED:
			design->anon_vma_count = families;
			design->anon_vma_exact = exact;
			break;
		case ANON_VMA_CHAIN:
			design->anon_vma_count = c->anon_vma_own;
			design->anon_vma_chain_count = c->anon_vma_chains;
			break;
		}
		design->object_rmap_bytes = design->vma_field_bytes +
			design->anon_vma_count * profile->anon_vma_bytes +
			design->anon_vma_chain_count * profile->anon_vma_chain_bytes;
	}
}
