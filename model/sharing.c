/*
 * model/sharing.c - page-table pages each sharing rule would share
 * (cost-model.md sections 5 and 8).
 *
 * Partner rules (the 2006 patch, its PMD variant, hugetlb PMD sharing, mshare,
 * the aligned what-if) differ only in which VMAs qualify, which fields make two
 * VMAs partners and how a window is named; all are one sort of the eligible
 * VMAs by partner key and one sort of the populated windows of each group.
 * Content sharing hashes every populated PTE window and counts repeats.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model_internal.h"

struct member {
	uint32_t dev_major, dev_minor;
	uint64_t inode, start, end, offset, length;
	char perms[5];
	uint32_t process;
	const struct vma *vma;
};

/* One page-table page a partner keeps in a window: with shares="subtree"
 * every page at or below the window's level is one slot, named by its level
 * and its place in the window, so partners' copies of the same page meet. */
struct slot {
	uint64_t window;                /* the window's name within the group */
	uint64_t page;                  /* level << 56 | index within the window; 0 alone */
	uint32_t process;
};

struct slots {
	struct slot *items;
	size_t count, capacity;
};

/* qsort with nothing to sort may get a NULL array, which qsort forbids. */
static void sort(void *array, size_t count, size_t size, int (*compare)(const void *, const void *))
{
	if (count > 1)
		qsort(array, count, size, compare);
}

static int compare_members(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	const uint64_t xs[] = { x->dev_major, x->dev_minor, x->inode, x->start, x->end, x->offset, x->length };
	const uint64_t ys[] = { y->dev_major, y->dev_minor, y->inode, y->start, y->end, y->offset, y->length };
	for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++)
		if (xs[i] != ys[i])
			return xs[i] < ys[i] ? -1 : 1;
	int c = strcmp(x->perms, y->perms);
	if (c)
		return c;
	return x->process < y->process ? -1 : x->process > y->process;
}

static bool same_group(const struct member *x, const struct member *y)
{
	return x->dev_major == y->dev_major && x->dev_minor == y->dev_minor && x->inode == y->inode &&
	       x->start == y->start && x->end == y->end && x->offset == y->offset &&
	       x->length == y->length && !strcmp(x->perms, y->perms);
}

static int compare_slots(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	if (x->window != y->window)
		return x->window < y->window ? -1 : 1;
	if (x->page != y->page)
		return x->page < y->page ? -1 : 1;
	return x->process < y->process ? -1 : x->process > y->process;
}

/* The partner key: which fields must agree (section 5/8). */
static struct member member_key(const struct sharing_rule *rule, const struct vma *v, size_t process)
{
	struct member m = { .dev_major = v->dev_major, .dev_minor = v->dev_minor, .inode = v->inode,
			    .process = (uint32_t)process, .vma = v };
	memcpy(m.perms, v->perms, sizeof(m.perms));
	switch (rule->partners) {
	case PARTNERS_ADDRESS:
		m.start = v->start;
		m.end = v->end;
		m.offset = v->offset;
		break;
	case PARTNERS_LENGTH:
		m.offset = v->offset;
		m.length = v->end - v->start;
		break;
	case PARTNERS_FILE_INDEX:
	case PARTNERS_CONTENT:
		break;
	}
	return m;
}

/* Windows a member could share: whole windows inside the VMA, named by
 * address, by file index, or by position in the VMA. */
static void member_windows(const struct sharing_rule *rule, const struct vma *v,
			   uint64_t *first, uint64_t *end)
{
	uint64_t size = (uint64_t)1 << rule->window_shift;
	if (rule->partners == PARTNERS_LENGTH) {
		*first = 0;
		*end = (v->end - v->start) / size;
	} else {
		*first = (v->start + size - 1) >> rule->window_shift;
		*end = v->end >> rule->window_shift;
	}
}

static uint64_t window_base(const struct sharing_rule *rule, const struct vma *v, uint64_t w)
{
	return rule->partners == PARTNERS_LENGTH ? v->start + (w << rule->window_shift) : w << rule->window_shift;
}

static uint64_t window_name(const struct sharing_rule *rule, const struct vma *v, uint64_t w)
{
	if (rule->partners == PARTNERS_FILE_INDEX)
		return v->offset + ((w << rule->window_shift) - v->start);
	return w;
}

static void push_slot(struct slots *slots, uint64_t window, uint64_t page, size_t process)
{
	slots->items = model_grow(slots->items, &slots->capacity, slots->count + 1, sizeof(*slots->items));
	slots->items[slots->count++] = (struct slot){ window, page, (uint32_t)process };
}

/* The page-table pages a process keeps for the window at base, from its
 * records [first, end): the window's own page, or with shares="subtree"
 * every level at or below it (a file PMD-mapped 2 MiB window has no PTE page). */
static void push_window_pages(const struct model_context *c, const struct sharing_rule *rule,
			      struct slots *slots, uint64_t name, uint64_t base, size_t process,
			      size_t first, size_t end)
{
	if (!rule->shares_subtree) {
		push_slot(slots, name, 0, process);
		return;
	}
	const struct process *p = &c->snapshot->processes[process];
	const struct process_data *d = &c->data[process];
	for (unsigned l = 0; l < c->geometry->level_count; l++) {
		unsigned shift = c->geometry->levels[l].shift;
		if (shift > rule->window_shift)
			break;
		uint64_t last = 0;
		bool any = false;
		for (size_t k = first; k < end; k++) {
			uint64_t w = p->pagemap[k].vaddr >> shift;
			if (any && w == last)
				continue;
			any = true;
			last = w;
			if (l == 0) {
				size_t i = windows_lower_bound(d, w);
				if (i < d->window_count && d->windows[i].pmd_mapped && !d->windows[i].anon_pmd)
					continue;
			}
			push_slot(slots, name, (uint64_t)l << 56 | ((p->pagemap[k].vaddr - base) >> shift), process);
		}
	}
}

static bool pmd_mapped_window(const struct model_context *c, size_t process, uint64_t vaddr)
{
	const struct process_data *d = &c->data[process];
	size_t i = windows_lower_bound(d, vaddr >> c->pte_shift);
	return i < d->window_count && d->windows[i].window == vaddr >> c->pte_shift && d->windows[i].pmd_mapped;
}

/* The windows a member populated (records), or, without pagemap, every
 * window of a VMA with resident or swapped pages (an upper bound). */
static void member_slots(const struct model_context *c, const struct sharing_rule *rule,
			 const struct member *m, struct slots *slots)
{
	const struct process *p = &c->snapshot->processes[m->process];
	const struct vma *v = m->vma;
	uint64_t first, end;
	member_windows(rule, v, &first, &end);
	if (first >= end)
		return;
	if (!p->has_pagemap) {
		if (v->kb[SMAPS_RSS] + v->kb[SMAPS_SWAP] == 0)
			return;
		for (uint64_t w = first; w < end; w++)
			push_slot(slots, window_name(rule, v, w), 0, m->process);
		return;
	}
	uint64_t size = (uint64_t)1 << rule->window_shift;
	bool check_pmd = rule->skip_pmd_mapped && rule->window_shift == c->pte_shift;
	size_t k = process_first_record(p, window_base(rule, v, first));
	uint64_t limit = window_base(rule, v, end - 1) + size;
	while (k < p->pagemap_count && p->pagemap[k].vaddr < limit) {
		uint64_t vaddr = p->pagemap[k].vaddr;
		uint64_t w = rule->partners == PARTNERS_LENGTH ? (vaddr - v->start) >> rule->window_shift
							       : vaddr >> rule->window_shift;
		uint64_t next = window_base(rule, v, w) + size;
		size_t run_end = process_first_record(p, next);
		if (!(check_pmd && pmd_mapped_window(c, m->process, vaddr)))
			push_window_pages(c, rule, slots, window_name(rule, v, w), window_base(rule, v, w),
					  m->process, k, run_end);
		k = run_end;
	}
}

/* Credit a group's sharable pages to its file (merged with the previous
 * group of the same file: groups are sorted by file). */
static void credit_file(struct model_sharing *out, size_t *capacity, const struct member *m,
			uint64_t pages, uint64_t mappings)
{
	struct model_file_share *last = out->file_count ? &out->files[out->file_count - 1] : NULL;
	if (!last || last->dev_major != m->dev_major || last->dev_minor != m->dev_minor || last->inode != m->inode) {
		out->files = model_grow(out->files, capacity, out->file_count + 1, sizeof(*out->files));
		last = &out->files[out->file_count++];
		*last = (struct model_file_share){ .path = m->vma->path, .dev_major = m->dev_major,
						   .dev_minor = m->dev_minor, .inode = m->inode };
	}
	last->sharable_pages += pages;
	last->mappings += mappings;
}

static uint64_t share_group(struct model_context *c, struct model_sharing *out, size_t rule_index,
			    const struct member *group, size_t count, struct slots *slots)
{
	slots->count = 0;
	for (size_t i = 0; i < count; i++)
		member_slots(c, out->rule, &group[i], slots);
	sort(slots->items, slots->count, sizeof(*slots->items), compare_slots);
	uint64_t shared = 0;
	for (size_t i = 0; i < slots->count;) {
		/* after sharing one copy of each distinct page remains: the union */
		size_t j = i, distinct = 0;
		for (; j < slots->count && slots->items[j].window == slots->items[i].window; j++)
			distinct += j == i || slots->items[j].page != slots->items[j - 1].page;
		uint64_t total = j - i, saved = total - distinct;
		shared += saved;
		for (size_t k = i; k < j; k++)
			c->result->process_figures[slots->items[k].process].sharable_pages[rule_index] +=
				(double)saved / (double)total;
		i = j;
	}
	return shared;
}

static int compare_files(const void *a, const void *b)
{
	const struct model_file_share *x = a, *y = b;
	if (x->sharable_pages != y->sharable_pages)
		return x->sharable_pages > y->sharable_pages ? -1 : 1;
	return strcmp(x->path ? x->path : "", y->path ? y->path : "");
}

static void share_by_partners(struct model_context *c, struct model_sharing *out, size_t rule_index)
{
	const struct snapshot *s = c->snapshot;
	const struct sharing_rule *rule = out->rule;
	struct member *members = malloc((s->vma_count + 1) * sizeof(*members));
	size_t count = 0, file_capacity = 0;
	struct slots slots = { 0 };
	if (!members)
		model_out_of_memory();
	for (size_t i = 0; i < s->process_count; i++)
		for (size_t v = 0; v < s->processes[i].vma_count; v++)
			if (sharing_vma_eligible(rule, &s->processes[i].vmas[v]))
				members[count++] = member_key(rule, &s->processes[i].vmas[v], i);
	out->eligible_vmas = count;
	sort(members, count, sizeof(*members), compare_members);
	for (size_t i = 0; i < count;) {
		size_t j = i + 1;
		bool private_copies = members[i].vma->kb[SMAPS_ANONYMOUS] > 0;
		while (j < count && same_group(&members[i], &members[j]))
			private_copies |= members[j++].vma->kb[SMAPS_ANONYMOUS] > 0;
		uint64_t pages = j - i > 1 ? share_group(c, out, rule_index, members + i, j - i, &slots) : 0;
		out->sharable_pages += pages;
		if (private_copies)
			out->pages_in_cow_vmas += pages;
		if (pages)
			credit_file(out, &file_capacity, &members[i], pages, j - i);
		i = j;
	}
	sort(out->files, out->file_count, sizeof(*out->files), compare_files);
	free(slots.items);
	free(members);
}

/* ---- identical PTE pages ---- */

struct vector {
	uint64_t hash;
	uint32_t process;
	size_t window;                  /* index into the process's windows */
};

static int compare_vectors(const void *a, const void *b)
{
	const struct vector *x = a, *y = b;
	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	return x->window < y->window ? -1 : x->window > y->window;
}

static uint64_t mix(uint64_t h, uint64_t x)
{
	h ^= x + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
	h *= UINT64_C(0xff51afd7ed558ccd);
	return h ^ (h >> 32);
}

static uint64_t perms_word(const struct vma *v)
{
	uint64_t w = 0;
	memcpy(&w, v ? v->perms : "", v ? 4 : 1);
	return w;
}

/* One slot of a vector: slot number, P + PFN or S + swap entry, permissions. */
static void slot_fields(const struct model_context *c, const struct process *p, size_t k, uint64_t out[3])
{
	const struct pagemap_record *r = &p->pagemap[k];
	uint64_t slots = (uint64_t)1 << (c->pte_shift - 12);
	out[0] = ((r->vaddr >> 12) & (slots - 1)) | ((r->entry & PAGEMAP_PRESENT) ? 1ull << 63 : 0);
	out[1] = r->entry & PAGEMAP_PFN_MASK;
	out[2] = perms_word(process_find_vma(p, r->vaddr));
}

static uint64_t vector_hash(const struct model_context *c, const struct process *p, const struct process_window *w)
{
	uint64_t h = w->count;
	for (size_t k = w->first; k < w->first + w->count; k++) {
		uint64_t f[3];
		slot_fields(c, p, k, f);
		h = mix(mix(mix(h, f[0]), f[1]), f[2]);
	}
	return h;
}

static bool same_vector(const struct model_context *c, const struct vector *x, const struct vector *y)
{
	const struct process *px = &c->snapshot->processes[x->process], *py = &c->snapshot->processes[y->process];
	const struct process_window *wx = &c->data[x->process].windows[x->window];
	const struct process_window *wy = &c->data[y->process].windows[y->window];
	if (wx->count != wy->count)
		return false;
	for (size_t i = 0; i < wx->count; i++) {
		uint64_t fx[3], fy[3];
		slot_fields(c, px, wx->first + i, fx);
		slot_fields(c, py, wy->first + i, fy);
		if (memcmp(fx, fy, sizeof(fx)))
			return false;
	}
	return true;
}

/* Σ over distinct vectors of (count - 1), exact: equal hashes are compared
 * slot by slot, so a hash collision can only cost time. */
static void share_identical(struct model_context *c, struct model_sharing *out, size_t rule_index)
{
	const struct snapshot *s = c->snapshot;
	struct vector *vectors = NULL;
	size_t count = 0, capacity = 0;
	for (size_t i = 0; i < s->process_count; i++) {
		const struct process_data *d = &c->data[i];
		for (size_t w = 0; w < d->window_count; w++) {
			if (out->rule->skip_pmd_mapped && d->windows[w].pmd_mapped)
				continue;
			vectors = model_grow(vectors, &capacity, count + 1, sizeof(*vectors));
			vectors[count++] = (struct vector){ vector_hash(c, &s->processes[i], &d->windows[w]), (uint32_t)i, w };
		}
	}
	sort(vectors, count, sizeof(*vectors), compare_vectors);
	size_t *class_of = malloc((count + 1) * sizeof(*class_of));
	size_t *class_size = malloc((count + 1) * sizeof(*class_size));
	if (!class_of || !class_size)
		model_out_of_memory();
	for (size_t i = 0; i < count;) {
		size_t j = i;
		while (j < count && vectors[j].hash == vectors[i].hash)
			j++;
		/* classes within one hash run: representatives are the first of each */
		for (size_t k = i; k < j; k++) {
			class_of[k] = k;
			class_size[k] = 0;
			for (size_t r = i; r < k; r++)
				if (class_of[r] == r && same_vector(c, &vectors[r], &vectors[k])) {
					class_of[k] = r;
					break;
				}
			class_size[class_of[k]]++;
		}
		for (size_t k = i; k < j; k++) {
			size_t n = class_size[class_of[k]];
			if (class_of[k] == k)
				out->sharable_pages += n - 1;
			c->result->process_figures[vectors[k].process].sharable_pages[rule_index] += (double)(n - 1) / (double)n;
		}
		i = j;
	}
	out->eligible_vmas = 0;
	free(class_of);
	free(class_size);
	free(vectors);
}

int model_sharing(struct model_context *c)
{
	struct model_result *r = c->result;
	bool all_pagemap = r->processes_with_pagemap == r->processes;
	for (size_t k = 0; k < r->sharing_count; k++) {
		struct model_sharing *out = &r->sharing[k];
		if (out->rule->partners == PARTNERS_CONTENT) {
			/* without PFNs two windows look alike by their slot pattern
			 * only: an upper bound; without pagemap there is nothing */
			out->available = r->has_pagemap;
			out->exact = r->has_pfns && all_pagemap;
			if (out->available)
				share_identical(c, out, k);
		} else {
			out->available = true;
			out->exact = all_pagemap;
			share_by_partners(c, out, k);
		}
		out->sharable_bytes = out->sharable_pages * MODEL_PAGE_BYTES;
		size_t keep = c->options->top_files ? c->options->top_files : 10;
		if (out->file_count > keep)
			out->file_count = keep;
	}
	return 0;
}
