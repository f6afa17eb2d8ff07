/*
 * model/hugepages.c - what a user can do today: put a shared memory segment
 * (a database's shared buffers: MAP_SHARED|MAP_ANONYMOUS, System V, memfd,
 * /dev/shm) on huge pages (PostgreSQL huge_pages=on, an Oracle SGA on
 * hugetlbfs), and what one more process mapping it costs.
 * docs/cost-model.md section 5, "Huge pages for a shared segment".
 *
 * A segment is every writable MAP_SHARED mapping of one shmem object (device
 * major 0, same device and inode) of at least one huge page, not on huge
 * pages already.  Per mapping, from the pagemap records:
 *  - the PTE pages that map it now: PTE windows overlapping it that hold
 *    records and are not PMD-mapped by a file leaf (as section 4 counts);
 *  - on huge pages of the PMD size (2 MiB on x86_64) its memory is mapped
 *    by PMD entries: a PTE page goes away when every record of its window is
 *    the segment's (a window it shares with another mapping keeps its page);
 *  - on huge pages of the next size (1 GiB), PMD pages go too, by the same
 *    test one level up;
 *  - on PMD-size huge pages, hugetlb PMD sharing (2.6.20+) shares the PMD
 *    page of a whole next-level window inside the mapping among the
 *    mappings of the same file index: (mappings - 1) pages per window;
 *  - a process touching all of it needs one PTE page per PTE window it
 *    spans (the per-process cost of one more process of a group).
 */
#include <stdlib.h>
#include <string.h>

#include "model/model_internal.h"

/* A writable MAP_SHARED mapping of shmem, at least a huge page, not hugetlb. */
bool model_shared_segment(const struct vma *v, uint64_t huge_bytes)
{
	return v->perms[1] == 'w' && v->perms[3] == 's' && v->dev_major == 0 && !VMA_HAS_FLAG(v, VMF_HT) &&
	       v->end - v->start >= huge_bytes;
}

static int compare_candidates(const void *a, const void *b)
{
	const struct vma *x = ((const struct vma_ref *)a)->vma, *y = ((const struct vma_ref *)b)->vma;
	const uint64_t xs[] = { x->dev_minor, x->inode, x->start }, ys[] = { y->dev_minor, y->inode, y->start };
	return model_compare_keys(xs, ys, 3);
}

static bool same_object(const struct vma *x, const struct vma *y)
{
	return x->dev_minor == y->dev_minor && x->inode == y->inode;
}

/* Records of chunks [first, end) of process p: does any lie in it, and do
 * all lie inside [start, stop)? */
static void chunks_inside(const struct model_context *c, const struct process *p, uint64_t first, uint64_t end,
			  uint64_t start, uint64_t stop, bool *populated, bool *inside)
{
	*populated = false;
	*inside = true;
	for (uint64_t chunk = first; chunk < end && *inside; chunk++) {
		long content = process_chunk_content(p, chunk);
		if (content < 0)
			continue;
		uint64_t base = chunk << PAGEMAP_CHUNK_SHIFT;
		if (start <= base && stop > base && stop - base >= PAGEMAP_CHUNK_BYTES) {
			*populated = true;      /* a content holds a record at least; all inside */
			continue;
		}
		struct content_cursor cursor;
		struct pagemap_record record;
		content_cursor_start(&cursor, c->snapshot, (uint32_t)content, 0, c->snapshot->contents[content].count);
		while (content_cursor_next(&cursor, &record)) {
			uint64_t vaddr = base + record.vaddr;
			*populated = true;
			if (vaddr < start || vaddr >= stop) {
				*inside = false;
				break;
			}
		}
	}
}

/* PTE window w of one mapping: a PTE page now when populated and not a
 * file PMD, one huge pages would free when every record is the mapping's. */
static void window_pte_page(struct model_context *c, const struct process *p, const struct vma_ref *m,
			    struct model_segment *seg, uint64_t w)
{
	unsigned k = c->chunks_per_window_shift;
	bool populated, inside;
	chunks_inside(c, p, w << k, (w + 1) << k, m->vma->start, m->vma->end, &populated, &inside);
	if (!populated || window_pmd_kind(c, p, w) == PMD_FILE)
		return;
	seg->pte_pages++;
	seg->pte_pages_saved_pmd_size += inside;
}

static uint64_t run_last_chunk(const void *run)
{
	const struct pagemap_run *r = run;
	return r->chunk + r->length - 1;
}

/* Windows [first, end) of one mapping, PTE pages of one chunk: only the
 * process's chunks are populated; those the mapping holds whole where
 * PID/pmd_mapped says no PMD lies are each one PTE page huge pages free,
 * counted at once; the others window by window. */
static void mapping_chunk_pages(struct model_context *c, const struct process *p, const struct vma_ref *m,
				struct model_segment *seg, uint64_t first, uint64_t end)
{
	uint64_t whole_first = (m->vma->start + PAGEMAP_CHUNK_BYTES - 1) >> PAGEMAP_CHUNK_SHIFT;
	uint64_t whole_end = m->vma->end >> PAGEMAP_CHUNK_SHIFT;
	for (size_t r = array_lower_bound(p->runs, p->run_count, sizeof(*p->runs), run_last_chunk, first);
	     r < p->run_count && p->runs[r].chunk < end; r++) {
		uint64_t low = p->runs[r].chunk > first ? p->runs[r].chunk : first;
		uint64_t high = p->runs[r].chunk + p->runs[r].length < end ? p->runs[r].chunk + p->runs[r].length : end;
		uint64_t in_low = low > whole_first ? low : whole_first, in_high = high < whole_end ? high : whole_end;
		if (in_low >= in_high || !model_range_pmd_none(c, p, in_low << PAGEMAP_CHUNK_SHIFT,
								in_high << PAGEMAP_CHUNK_SHIFT))
			in_low = in_high = high;
		for (uint64_t w = low; w < in_low; w++)
			window_pte_page(c, p, m, seg, w);
		seg->pte_pages += in_high - in_low;
		seg->pte_pages_saved_pmd_size += in_high - in_low;
		for (uint64_t w = in_high; w < high; w++)
			window_pte_page(c, p, m, seg, w);
	}
}

/* The PTE pages of one mapping now, and those huge pages would free. */
static void mapping_pte_pages(struct model_context *c, const struct vma_ref *m, struct model_segment *seg)
{
	const struct process *p = &c->snapshot->processes[m->process];
	unsigned shift = c->pte_shift;
	uint64_t first = m->vma->start >> shift, last = (m->vma->end - 1) >> shift;
	if (c->chunks_per_window_shift == 0)
		mapping_chunk_pages(c, p, m, seg, first, last + 1);
	else
		for (uint64_t w = first; w <= last; w++)
			window_pte_page(c, p, m, seg, w);
	if (last - first + 1 > seg->touch_all_pte_pages)
		seg->touch_all_pte_pages = last - first + 1;
}

/* PMD pages the next huge size frees: every record of their window the segment's. */
static void mapping_pmd_pages(struct model_context *c, const struct vma_ref *m, struct model_segment *seg)
{
	const struct geometry *g = c->geometry;
	if (g->level_count < 2 || !g->levels[1].counted)
		return;
	const struct process *p = &c->snapshot->processes[m->process];
	unsigned shift = g->levels[1].shift, k = shift - PAGEMAP_CHUNK_SHIFT;
	uint64_t first = m->vma->start >> shift, last = (m->vma->end - 1) >> shift;
	for (uint64_t w = first; w <= last; w++) {
		bool populated, inside;
		chunks_inside(c, p, w << k, (w + 1) << k, m->vma->start, m->vma->end, &populated, &inside);
		seg->pmd_pages_saved_next_size += populated && inside;
	}
	if (last - first + 1 > seg->touch_all_pmd_pages)
		seg->touch_all_pmd_pages = last - first + 1;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* hugetlb PMD sharing on PMD-size pages: whole next-level windows inside
 * each mapping, named by file index; (count - 1) pages per name. */
static void pmd_sharing(const struct model_context *c, const struct vma_ref *members, size_t count,
			struct model_segment *seg)
{
	const struct geometry *g = c->geometry;
	if (g->level_count < 2)
		return;
	unsigned shift = g->levels[1].shift;
	uint64_t size = (uint64_t)1 << shift;
	struct { uint64_t *items; size_t count, capacity; } names = { 0 };
	for (size_t i = 0; i < count; i++) {
		const struct vma *v = members[i].vma;
		for (uint64_t w = (v->start + size - 1) >> shift; w < v->end >> shift; w++)
			*ARRAY_PUSH(names.items, names.count, names.capacity) = v->offset + ((w << shift) - v->start);
	}
	if (names.count)
		array_sort(names.items, names.count, sizeof(*names.items), compare_u64);
	for (size_t i = 1; i < names.count; i++)
		seg->pmd_pages_shared += names.items[i] == names.items[i - 1];
	free(names.items);
}

static void add_segment(struct model_context *c, const struct vma_ref *members, size_t count, size_t *capacity)
{
	struct model_result *r = c->result;
	struct model_segment *seg = ARRAY_PUSH(r->segments, r->segment_count, *capacity);
	*seg = (struct model_segment){ .path = members[0].vma->path, .inode = members[0].vma->inode,
				       .mappings = count };
	for (size_t i = 0; i < count; i++) {
		uint64_t bytes = members[i].vma->end - members[i].vma->start;
		seg->bytes = bytes > seg->bytes ? bytes : seg->bytes;
		mapping_pte_pages(c, &members[i], seg);
		mapping_pmd_pages(c, &members[i], seg);
	}
	pmd_sharing(c, members, count, seg);
}

static int compare_segments(const void *a, const void *b)
{
	const struct model_segment *x = a, *y = b;
	if (x->pte_pages_saved_pmd_size != y->pte_pages_saved_pmd_size)
		return x->pte_pages_saved_pmd_size > y->pte_pages_saved_pmd_size ? -1 : 1;
	return x->inode < y->inode ? -1 : x->inode > y->inode;
}

void model_huge_pages(struct model_context *c)
{
	/* the candidates, in process order, sum_processes found (model.c):
	 * it reads every VMA already */
	struct vma_ref *members = c->shared_segments;
	size_t count = c->shared_segment_count, capacity = 0;
	if (!c->result->has_pagemap)
		return;
	if (count)
		array_sort(members, count, sizeof(*members), compare_candidates);
	for (size_t i = 0; i < count;) {
		size_t j = i + 1;
		while (j < count && same_object(members[i].vma, members[j].vma))
			j++;
		add_segment(c, members + i, j - i, &capacity);
		i = j;
	}
	if (c->result->segment_count)
		array_sort(c->result->segments, c->result->segment_count, sizeof(*c->result->segments), compare_segments);
}
