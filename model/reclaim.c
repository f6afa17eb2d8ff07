/*
 * model/reclaim.c - what reclaim's rmap walk costs to unmap one page, under
 * each design (docs/cost-model.md section 7), for every mapped page of the
 * snapshot reclaimed once.
 *
 *  - A page its design keeps a per-page map of (pte_chain lists or blocks,
 *    PG_direct) is unmapped by walking that map: one entry per mapping
 *    (2.4 mm/vmscan.c -> try_to_unmap in mm/rmap.c, 2.5/2.6.0 the same over
 *    pte_chain blocks), every entry a mapping.
 *  - A file page under an object design: the VMAs of its file's i_mmap
 *    (2.5.62 try_to_unmap_obj: every VMA of the file, "list"; 2.6.7 on,
 *    prio_tree and the 3.7 interval tree: only those whose file range covers
 *    the page, "range": the profile's <reclaim file-walk>).
 *  - An anonymous page under an object design: the VMAs of its anon_vma
 *    (2.6.7-2.6.33 try_to_unmap_anon: every VMA of the fork family sharing
 *    the anon_vma, its neighbours included; 2.6.34 on: the VMAs chained to
 *    the anon_vma of the VMA that faulted the page, that VMA and the copies
 *    forks made of it, model_vma_ancestors).
 * A visited VMA that does not map the page costs the walk all the same:
 * visited - found is the object designs' price.  Only the captured
 * processes' VMAs and PTEs count (a whole-system snapshot sees them all).
 *
 * Each page's walk starts from one of its mappings (walk_vma): the one of
 * the least fork depth, whose anon_vma the page was faulted into.  On a
 * design whose profile says <huge-pmd reclaim="folio"> a PMD-mapped THP is
 * reclaimed by one walk (shrink_folio_list -> try_to_unmap of the folio):
 * its first page's, at the PMD window's first slot, stands for all of it;
 * each PMD the walk finds is split (an anonymous THP's into PTEs it then
 * removes, a file THP's zapped).
 */
#include <stdlib.h>
#include <string.h>

#include "model/model_internal.h"

/* The walk lengths of one page that depend on no design. */
struct page_walks {
	uint32_t found;                 /* mappings in the snapshot */
	uint32_t file_list, file_range; /* VMAs of its file: all, covering the page */
	uint32_t anon_family, anon_tree;/* VMAs of its 2.6.7 family, of its 2.6.34 anon_vma */
	uint32_t file;                  /* file index + 1 (0: anonymous or no file) */
	uint32_t family_root, owner;    /* global VMA indexes of its anon_vma's owners */
	bool anon;
	bool thp_tail;                  /* in a PMD-mapped THP, not its first page */
	bool thp_head;                  /* ... its first page */
};

/* The pages' walks, each kind once with how many pages walk so: the sums
 * per design are additive, and the pages of one VMA mostly walk alike, so
 * memory follows the kinds of walk, not the pages (36 bytes a page were
 * 2.3 GiB at 64 GiB). */
struct walk_kinds {
	struct page_walks *kinds;
	uint64_t *pages;
	size_t count, capacity, pages_capacity;
	struct hash_table index;
};

static uint64_t rehash_walk(const void *context, size_t index)
{
	const struct walk_kinds *k = context;
	return hash_bytes(&k->kinds[index], sizeof(k->kinds[index]));
}

/* `pages` more pages of kind w (its padding zero: kinds compare as bytes). */
static void add_walk(struct walk_kinds *k, const struct page_walks *w, uint64_t pages)
{
	uint64_t h = hash_bytes(w, sizeof(*w));
	struct hash_probe probe;
	for (size_t i = hash_first(&k->index, h, &probe); i != HASH_NONE; i = hash_next(&k->index, &probe))
		if (!memcmp(&k->kinds[i], w, sizeof(*w))) {
			k->pages[i] += pages;
			return;
		}
	ARRAY_RESERVE(k->kinds, k->capacity, k->count + 1);
	ARRAY_RESERVE(k->pages, k->pages_capacity, k->count + 1);
	memcpy(&k->kinds[k->count], w, sizeof(*w));
	k->pages[k->count++] = pages;
	hash_add(&k->index, h, k->count - 1, rehash_walk, k);
}

/* How many VMAs of a file cover the pages from `offset` to the next step's. */
struct cover_step {
	uint64_t offset;
	uint64_t vmas;
};

/* Files: the VMAs of one (device, inode), sorted together. */
struct file_index {
	size_t *order;                  /* global VMA indexes of file VMAs, by file */
	size_t *first, *count;          /* per file: its run in order */
	uint32_t *of_vma;               /* per global VMA index: file index + 1, 0 none */
	size_t files;
	struct cover_step *steps;       /* per file, ascending: its VMAs' cover of its pages */
	size_t *first_step, *step_count;
};

static const struct snapshot *sort_snapshot;

static int by_file_key(const void *a, const void *b)
{
	const struct vma *x = &sort_snapshot->vmas[*(const size_t *)a], *y = &sort_snapshot->vmas[*(const size_t *)b];
	uint64_t kx[4] = { x->dev_major, x->dev_minor, x->inode, *(const size_t *)a };
	uint64_t ky[4] = { y->dev_major, y->dev_minor, y->inode, *(const size_t *)b };
	return model_compare_keys(kx, ky, 4);
}

static bool same_file(const struct vma *x, const struct vma *y)
{
	return x->inode == y->inode && x->dev_major == y->dev_major && x->dev_minor == y->dev_minor;
}

static void index_files(const struct snapshot *s, struct file_index *f)
{
	size_t n = 0;
	f->order = xcalloc(s->vma_count + 1, sizeof(*f->order));
	f->first = xcalloc(s->vma_count + 1, sizeof(*f->first));
	f->count = xcalloc(s->vma_count + 1, sizeof(*f->count));
	f->of_vma = xcalloc(s->vma_count + 1, sizeof(*f->of_vma));
	for (size_t g = 0; g < s->vma_count; g++)
		if (s->vmas[g].inode)
			f->order[n++] = g;
	sort_snapshot = s;
	array_sort(f->order, n, sizeof(*f->order), by_file_key);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || !same_file(&s->vmas[f->order[i - 1]], &s->vmas[f->order[i]]))
			f->first[f->files++] = i;
		f->count[f->files - 1]++;
		f->of_vma[f->order[i]] = (uint32_t)f->files;
	}
}

static int by_offset(const void *a, const void *b)
{
	const struct cover_step *x = a, *y = b;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Per file, the steps of its cover: each VMA adds one from its first page
 * to its end (edges as +1 and, wrapped, -1; summed in offset order). */
static void index_cover(const struct snapshot *s, struct file_index *f)
{
	size_t vmas = f->files ? f->first[f->files - 1] + f->count[f->files - 1] : 0;
	f->steps = xcalloc(2 * vmas + 1, sizeof(*f->steps));
	f->first_step = xcalloc(f->files + 1, sizeof(*f->first_step));
	f->step_count = xcalloc(f->files + 1, sizeof(*f->step_count));
	size_t n = 0;
	for (size_t file = 0; file < f->files; file++) {
		struct cover_step *edges = &f->steps[n];
		size_t count = 0;
		for (size_t i = f->first[file]; i < f->first[file] + f->count[file]; i++) {
			const struct vma *v = &s->vmas[f->order[i]];
			uint64_t first = v->offset / MODEL_PAGE_BYTES, pages = (v->end - v->start) / MODEL_PAGE_BYTES;
			edges[count++] = (struct cover_step){ first, 1 };
			edges[count++] = (struct cover_step){ first + pages, UINT64_MAX };
		}
		array_sort(edges, count, sizeof(*edges), by_offset);
		/* the edges at one offset become one step holding the cover after them */
		size_t steps = 0;
		uint64_t cover = 0;
		for (size_t i = 0; i < count; i++) {
			cover += edges[i].vmas;
			if (i + 1 < count && edges[i + 1].offset == edges[i].offset)
				continue;
			edges[steps++] = (struct cover_step){ edges[i].offset, cover };
		}
		f->first_step[file] = n;
		f->step_count[file] = steps;
		n += count;
	}
}

static void free_files(struct file_index *f)
{
	FREE_ALL(f->order, f->first, f->count, f->of_vma, f->steps, f->first_step, f->step_count);
}

/* ---- each page's first mapping ---- */

/* Per content, what a whole visit already gave its pages: the least fork
 * depth + 1 of a VMA that visited it whole (0: none yet), and the PMD marks
 * (1: PMD-mapped, 2: from a PMD window's first slot).  A visit of any of its
 * records from a VMA no shallower that adds no mark changes nothing (a
 * page's walk VMA only ever gets shallower), so it is skipped: a content
 * that a thousand processes map is walked once, not a thousand times. */
struct visited_contents {
	uint64_t *depth;
	uint8_t *marks;
};

static void visit_mappings(struct model_context *c, const struct segment *seg, void *data)
{
	struct visited_contents *seen = data;
	const struct vma *vma = seg->vma;
	/* a PFN map holds no struct page: nothing to reclaim through rmap */
	if (!vma || VMA_HAS_FLAG(vma, VMF_PF))
		return;
	if (seg->chunks > 1) {
		model_segment_chunks(c, seg, visit_mappings, data);
		return;
	}
	size_t g = (size_t)(vma - c->snapshot->vmas);
	enum pmd_kind kind = segment_pmd_kind(c, seg);
	uint64_t window_mask = ((uint64_t)1 << c->pte_shift) - 1;
	bool pmd = kind == PMD_ANON || kind == PMD_FILE;
	uint64_t first = pmd ? segment_first_offset(c, seg) : 0;
	uint8_t marks = pmd ? 1 | (((seg->base + first) & window_mask) == 0) << 1 : 0;
	uint64_t depth = c->vma_depths[g];
	if (seen->depth[seg->content] && seen->depth[seg->content] - 1 <= depth && !(marks & ~seen->marks[seg->content]))
		return;
	if (seg->whole && (!seen->depth[seg->content] || depth < seen->depth[seg->content] - 1))
		seen->depth[seg->content] = depth + 1;
	if (seg->whole)
		seen->marks[seg->content] |= marks;
	struct content_cursor cursor;
	struct pagemap_record record;
	segment_cursor(c, seg, &cursor);
	for (uint32_t k = seg->first; content_cursor_next(&cursor, &record); k++) {
		if (!(record.entry & PAGEMAP_PRESENT))
			continue;
		struct pfn_run *e = (struct pfn_run *)content_record_pfn(c, seg->content, k);
		uint64_t vaddr = seg->base + record.vaddr;
		if (e && pmd) {
			e->pmd_mapped = true;
			e->pmd_head |= (vaddr & window_mask) == 0;
		}
		if (!e || pfn_is_zero_page(e) || (e->walk_vma && c->vma_depths[e->walk_vma - 1] <= c->vma_depths[g]))
			continue;
		e->walk_vma = (uint32_t)(g + 1);
		e->walk_anon = record_is_anonymous(record.entry, e);
		/* its run's first page's: the pages of a run sit at consecutive addresses */
		e->walk_page_offset = vma->offset / MODEL_PAGE_BYTES + (vaddr - vma->start) / MODEL_PAGE_BYTES -
				      ((record.entry & PAGEMAP_PFN_MASK) - e->pfn);
	}
}

static void add_descendant(struct model_context *c, const struct vma *ancestor, void *data)
{
	uint32_t *descendants = data;
	descendants[ancestor - c->snapshot->vmas]++;
}

/* Per VMA: the copies forks made of it (2.6.34+ chains to its anon_vma),
 * and per family root the VMAs of the family (2.6.7). */
static void count_anon_vma_members(struct model_context *c, uint32_t *descendants, uint32_t *family_size)
{
	const struct snapshot *s = c->snapshot;
	for (size_t i = 0; i < s->process_count; i++) {
		const struct process *p = &s->processes[i];
		for (size_t v = 0; v < p->vma_count; v++) {
			size_t g = (size_t)(&p->vmas[v] - s->vmas);
			if (!c->vma_has_anon_vma[g])
				continue;
			if (c->vma_depths[g])
				model_vma_ancestors(c, p, &p->vmas[v], add_descendant, descendants);
			if (c->vma_family)
				family_size[c->vma_family[g]]++;
		}
	}
}

static uint64_t step_offset(const void *step)
{
	return ((const struct cover_step *)step)->offset;
}

/* The VMAs of a file whose range covers page_offset, and the offset where
 * that count next changes (*until). */
static uint32_t covering(const struct file_index *f, size_t file, uint64_t page_offset, uint64_t *until)
{
	const struct cover_step *steps = &f->steps[f->first_step[file]];
	size_t count = f->step_count[file];
	size_t after = array_lower_bound(steps, count, sizeof(*steps), step_offset, page_offset + 1);
	*until = after < count ? steps[after].offset : UINT64_MAX;
	return after ? (uint32_t)steps[after - 1].vmas : 0;
}

/* The walks of a run's pages: alike but for the THP head (the first page
 * alone) and the file VMAs covering each page's offset. */
static void measure_run(struct model_context *c, const struct file_index *files, const struct pfn_run *e,
			const uint32_t *descendants, const uint32_t *family_size, struct walk_kinds *walks)
{
	size_t g = e->walk_vma - 1;
	struct page_walks w;
	memset(&w, 0, sizeof(w));
	w.found = (uint32_t)e->records;
	w.anon = e->walk_anon;
	w.owner = (uint32_t)g;
	w.anon_tree = 1 + descendants[g];
	w.family_root = c->vma_family ? (uint32_t)c->vma_family[g] : (uint32_t)g;
	w.anon_family = c->vma_family ? family_size[c->vma_family[g]] : 1;
	w.file = files->of_vma[g];
	if (w.file)
		w.file_list = (uint32_t)files->count[w.file - 1];
	/* pieces of pages that walk alike: the head alone, then up to each
	 * change of the file's cover */
	for (uint32_t i = 0, end; i < e->pages; i = end) {
		w.thp_head = e->pmd_mapped && e->pmd_head && i == 0;
		w.thp_tail = e->pmd_mapped && !w.thp_head;
		end = w.thp_head ? 1 : e->pages;
		if (w.file) {
			uint64_t until;
			w.file_range = covering(files, w.file - 1, e->walk_page_offset + i, &until);
			if (until - e->walk_page_offset < end)
				end = (uint32_t)(until - e->walk_page_offset);
		}
		add_walk(walks, &w, end - i);
	}
}

static void measure_pages(struct model_context *c, const struct file_index *files, struct walk_kinds *walks)
{
	const struct snapshot *s = c->snapshot;
	uint32_t *descendants = xcalloc(s->vma_count + 1, sizeof(*descendants));
	uint32_t *family_size = xcalloc(s->vma_count + 1, sizeof(*family_size));
	count_anon_vma_members(c, descendants, family_size);
	for (size_t i = 0; i < c->pfns.count; i++)
		if (c->pfns.runs[i].walk_vma)
			measure_run(c, files, &c->pfns.runs[i], descendants, family_size, walks);
	free(descendants);
	free(family_size);
}

/* ---- per design ---- */

static uint32_t walk_length(const struct rmap_profile *profile, const struct page_walks *w)
{
	const struct rmap_family_rule *rule = &rmap_families[profile->family];
	uint32_t visited = w->found;
	if (w->anon && rule->anon_by_object)
		visited = profile->anon_vma_fork == ANON_VMA_SHARED ? w->anon_family : w->anon_tree;
	else if (!w->anon && rule->file_by_object && w->file)
		visited = profile->file_walk == FILE_WALK_LIST ? w->file_list : w->file_range;
	return visited > w->found ? visited : w->found;
}

/* Keep the MODEL_WORST_WALKS owners of the most visits, largest first. */
static void keep_worst(struct reclaim_walk_owner *worst, size_t *count, const struct reclaim_walk_owner *candidate)
{
	size_t at = *count;
	while (at > 0 && worst[at - 1].visited < candidate->visited)
		at--;
	if (at >= MODEL_WORST_WALKS)
		return;
	size_t last = *count < MODEL_WORST_WALKS ? *count : MODEL_WORST_WALKS - 1;
	memmove(&worst[at + 1], &worst[at], (last - at) * sizeof(*worst));
	worst[at] = *candidate;
	if (*count < MODEL_WORST_WALKS)
		(*count)++;
}

static size_t process_of(const struct snapshot *s, size_t g)
{
	for (size_t i = 0; i < s->process_count; i++)
		if (g >= (size_t)(s->processes[i].vmas - s->vmas) && g < (size_t)(s->processes[i].vmas - s->vmas) + s->processes[i].vma_count)
			return i;
	return 0;
}

struct owner_sums {
	struct reclaim_walk_owner *files, *anon_vmas;   /* per file, per owner VMA */
	uint64_t *histogram;                            /* walks by length */
	size_t longest;
	struct reclaim_walk_owner unowned;              /* where an unowned page's sums go */
};

static uint64_t rank_value(const uint64_t *histogram, size_t longest, uint64_t rank)
{
	uint64_t seen = 0;
	for (size_t n = 0; n <= longest; n++) {
		seen += histogram[n];
		if (seen >= rank)
			return n;
	}
	return longest;
}

/* The file or anon_vma a page's walk is summed under (sums->unowned: a
 * pte_chain design's anonymous page, or a page of no file). */
static struct reclaim_walk_owner *walk_owner(const struct model_context *c, const struct model_design *design,
					     const struct file_index *files, struct owner_sums *sums,
					     const struct page_walks *page)
{
	bool anon_vmas = rmap_families[design->profile->family].anon_by_object;
	size_t anon_vma = design->profile->anon_vma_fork == ANON_VMA_SHARED ? page->family_root : page->owner;
	struct reclaim_walk_owner *owner = page->anon ? anon_vmas ? &sums->anon_vmas[anon_vma] : NULL
				: page->file ? &sums->files[page->file - 1] : NULL;
	if (!owner) {
		memset(&sums->unowned, 0, sizeof(sums->unowned));
		return &sums->unowned;
	}
	if (!owner->vma)
		owner->vma = &c->snapshot->vmas[page->file && !page->anon ? files->order[files->first[page->file - 1]]
						: anon_vma];
	return owner;
}

static void sum_design(struct model_context *c, struct model_design *design, const struct walk_kinds *walks,
		       const struct file_index *files, struct owner_sums *sums)
{
	const struct snapshot *s = c->snapshot;
	struct reclaim_work *w = &design->reclaim;
	uint64_t thp_pages = (uint64_t)1 << (c->pte_shift - 12);   /* the pages a PMD maps */
	memset(sums->files, 0, (files->files + 1) * sizeof(*sums->files));
	memset(sums->anon_vmas, 0, (s->vma_count + 1) * sizeof(*sums->anon_vmas));
	memset(sums->histogram, 0, (sums->longest + 1) * sizeof(*sums->histogram));
	for (size_t i = 0; i < walks->count; i++) {
		const struct page_walks *page = &walks->kinds[i];
		uint64_t n = walks->pages[i];   /* pages that walk so */
		if (!page->found)
			continue;
		struct reclaim_walk_owner *owner = walk_owner(c, design, files, sums, page);
		w->pages += n;
		w->anon_pages += page->anon * n;
		owner->pages += n;
		bool folio_walk = design->profile->huge_pmd_reclaim_folio;
		if (page->thp_tail && folio_walk)
			continue;   /* its THP's first page walked for it */
		uint64_t visited = walk_length(design->profile, page);
		w->walks += n;
		w->anon_walks += page->anon * n;
		w->anon_visited += page->anon ? visited * n : 0;
		w->visited += visited * n;
		w->found += page->found * n;
		w->removes += (!page->thp_head || !folio_walk ? page->found : page->anon ? page->found * thp_pages : 0) * n;
		w->not_mapping += (visited - page->found) * n;
		sums->histogram[visited] += n;
		if (visited > w->walk_max)
			w->walk_max = visited;
		owner->visited += visited * n;
		owner->not_mapping += (visited - page->found) * n;
	}
	w->walk_median = rank_value(sums->histogram, sums->longest, (w->walks + 1) / 2);
	w->walk_p99 = rank_value(sums->histogram, sums->longest, (w->walks * 99 + 99) / 100);
	for (size_t f = 0; f < files->files; f++)
		if (sums->files[f].pages)
			keep_worst(w->worst_files, &w->worst_file_count, &sums->files[f]);
	for (size_t g = 0; g < s->vma_count; g++)
		if (sums->anon_vmas[g].pages)
			keep_worst(w->worst_anon_vmas, &w->worst_anon_vma_count, &sums->anon_vmas[g]);
	for (size_t k = 0; k < w->worst_file_count; k++)
		w->worst_files[k].process = process_of(s, (size_t)(w->worst_files[k].vma - s->vmas));
	for (size_t k = 0; k < w->worst_anon_vma_count; k++)
		w->worst_anon_vmas[k].process = process_of(s, (size_t)(w->worst_anon_vmas[k].vma - s->vmas));
}

void model_reclaim(struct model_context *c)
{
	const struct snapshot *s = c->snapshot;
	struct model_result *r = c->result;
	/* which page a PTE maps, for every process: nothing to walk without */
	if (!r->has_pfns || r->processes_with_pagemap != r->processes)
		return;
	struct visited_contents seen = { xcalloc(s->content_count + 1, sizeof(*seen.depth)),
					 xcalloc(s->content_count + 1, sizeof(*seen.marks)) };
	for (size_t i = 0; i < s->process_count; i++)
		model_walk_segment_wholes(c, i, visit_mappings, &seen);   /* no figure is read */
	FREE_ALL(seen.depth, seen.marks);
	struct file_index files = { 0 };
	index_files(s, &files);
	index_cover(s, &files);
	struct walk_kinds walks = { 0 };
	measure_pages(c, &files, &walks);
	struct owner_sums sums = { .files = xcalloc(files.files + 1, sizeof(*sums.files)),
				   .anon_vmas = xcalloc(s->vma_count + 1, sizeof(*sums.anon_vmas)) };
	for (size_t i = 0; i < walks.count; i++) {
		const struct page_walks *w = &walks.kinds[i];
		uint32_t most = w->found;
		const uint32_t others[] = { w->file_list, w->file_range, w->anon_family, w->anon_tree };
		for (size_t k = 0; k < 4; k++)
			most = others[k] > most ? others[k] : most;
		sums.longest = most > sums.longest ? most : sums.longest;
	}
	sums.histogram = xcalloc(sums.longest + 1, sizeof(*sums.histogram));
	for (size_t d = 0; d < r->design_count; d++) {
		r->designs[d].reclaim.available = true;
		sum_design(c, &r->designs[d], &walks, &files, &sums);
	}
	free(sums.files);
	free(sums.anon_vmas);
	free(sums.histogram);
	free(walks.kinds);
	free(walks.pages);
	hash_free(&walks.index);
	free_files(&files);
}
