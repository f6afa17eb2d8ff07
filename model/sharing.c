/*
 * model/sharing.c - page-table pages each sharing rule would share
 * (docs/cost-model.md sections 5 and 8).
 *
 * Partner rules (the 2006 patch, its PMD variant, hugetlb PMD sharing, mshare,
 * the aligned what-if) differ only in which VMAs qualify, which fields make two
 * VMAs partners and how a window is named; all are one sort of the eligible
 * VMAs by partner key and one sort of the populated windows of each group.
 * Content sharing hashes every populated PTE window and counts repeats.
 */
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/hash.h"
#include "model/model_internal.h"

struct member {
	uint32_t dev_major, dev_minor;
	uint64_t inode, start, end, offset, length;
	char perms[5];
	uint32_t process;
	const struct vma *vma;
};

/* The page-table pages partners keep in a group's windows: with
 * shares="subtree" every page at or below the window's level is one slot,
 * named by its level and its place in the window, so partners' copies of
 * the same page meet.  Slots are counted as they come, per window (slots,
 * distinct pages) and per distinct page, so memory follows the distinct
 * pages, not the partners; a second walk credits each partner's slots. */
struct group_page {
	uint64_t window;                /* the window's name within the group */
	uint64_t page;                  /* level << 56 | index within the window; 0 alone */
};

struct group_window {
	uint64_t window;
	uint64_t total, distinct;       /* slots, distinct pages */
};

/* A window name's place: names meet only within one residue (see
 * cover_runs). */
struct place {
	uint64_t residue, position;
};

/* Where a run of windows without pagemap starts (+1) or ends (-1). */
struct boundary {
	struct place place;
	int delta;
};

/* Positions [first, end) of one residue: covered by `runs` runs, or one
 * window pagemap members populated; weight is its credit per copy, then
 * (sum_in_order) the sum of the weights before it.  A run's credit is the
 * difference of two such sums, which may be large: they are kept in long
 * double so that the difference keeps a double's precision. */
struct stretch {
	struct place first;
	uint64_t end, runs;
	long double weight;
};

struct slots {
	struct group_page *pages;
	size_t page_count, page_capacity;
	struct hash_table page_table;
	struct group_window *windows;
	size_t window_count, window_capacity;
	struct hash_table window_table;
	struct boundary *boundaries;    /* runs of members without pagemap */
	size_t boundary_count, boundary_capacity;
	struct stretch *covers, *touched;
	size_t cover_count, cover_capacity, touched_count, touched_capacity;
	long double cover_total, touched_total;
	size_t window_next, page_next;  /* the index after the last window, page found: partners
					   push the same windows in the same order, so the next
					   one is most often there (tried before hashing) */
	/* the counting walk's slots in order, its window's index and the
	 * process, so crediting need not walk the records again (up to
	 * PUSHES_KEPT; past that, or with more windows than 32 bits
	 * name, crediting walks again) */
	struct pushed_slot { uint32_t window, process; } *pushes;
	size_t push_count, push_capacity;
	size_t *starts;                 /* per member of the group: its first run (member_starts), */
	uint32_t *start_contents;       /* ... and the content there (or UINT32_MAX: none) */
	size_t start_capacity;
	bool pushes_whole;              /* every slot of the walk is in pushes */
	bool crediting;                 /* second walk: credit the partners */
	size_t rule_index;
	struct model_result *result;
};

static uint64_t page_hash(uint64_t window, uint64_t page)
{
	return hash_u64(window ^ hash_u64(page));
}

static uint64_t rehash_page(const void *context, size_t index)
{
	const struct group_page *p = &((const struct slots *)context)->pages[index];
	return page_hash(p->window, p->page);
}

static uint64_t rehash_window(const void *context, size_t index)
{
	return hash_u64(((const struct slots *)context)->windows[index].window);
}

static struct group_window *group_window(struct slots *slots, uint64_t window)
{
	size_t next = slots->window_next;
	if (next < slots->window_count && slots->windows[next].window == window) {
		slots->window_next = next + 1;
		return &slots->windows[next];
	}
	struct hash_probe probe;
	uint64_t h = hash_u64(window);
	for (size_t i = hash_first(&slots->window_table, h, &probe); i != HASH_NONE;
	     i = hash_next(&slots->window_table, &probe))
		if (slots->windows[i].window == window) {
			slots->window_next = i + 1;
			return &slots->windows[i];
		}
	*ARRAY_PUSH(slots->windows, slots->window_count, slots->window_capacity) =
		(struct group_window){ .window = window };
	hash_add(&slots->window_table, h, slots->window_count - 1, rehash_window, slots);
	slots->window_next = slots->window_count;
	return &slots->windows[slots->window_count - 1];
}

/* Whether (window, page) was new. */
static bool group_page_added(struct slots *slots, uint64_t window, uint64_t page)
{
	size_t next = slots->page_next;
	if (next < slots->page_count && slots->pages[next].window == window && slots->pages[next].page == page) {
		slots->page_next = next + 1;
		return false;
	}
	struct hash_probe probe;
	uint64_t h = page_hash(window, page);
	for (size_t i = hash_first(&slots->page_table, h, &probe); i != HASH_NONE;
	     i = hash_next(&slots->page_table, &probe))
		if (slots->pages[i].window == window && slots->pages[i].page == page) {
			slots->page_next = i + 1;
			return false;
		}
	*ARRAY_PUSH(slots->pages, slots->page_count, slots->page_capacity) = (struct group_page){ window, page };
	hash_add(&slots->page_table, h, slots->page_count - 1, rehash_page, slots);
	slots->page_next = slots->page_count;
	return true;
}

/* At most this many slots a group are kept for crediting (128 KiB): a
 * library every process maps, in a window or two, fits. */
#define PUSHES_KEPT ((size_t)1 << 14)

static void slots_reset(struct slots *slots)
{
	slots->push_count = 0;
	slots->pushes_whole = true;
	slots->page_count = slots->window_count = slots->window_next = slots->page_next = 0;
	slots->boundary_count = slots->cover_count = slots->touched_count = 0;
	hash_clear(&slots->page_table);
	hash_clear(&slots->window_table);
	slots->crediting = false;
}

static void slots_free(struct slots *slots)
{
	FREE_ALL(slots->pages, slots->windows, slots->boundaries, slots->covers, slots->touched, slots->pushes,
		 slots->starts, slots->start_contents);
	hash_free(&slots->page_table);
	hash_free(&slots->window_table);
}

/* qsort with nothing to sort may get a NULL array, which qsort forbids. */
static void sort(void *array, size_t count, size_t size, int (*compare)(const void *, const void *))
{
	if (count > 1)
		array_sort(array, count, size, compare);
}

static int order_u64(uint64_t x, uint64_t y)
{
	return x < y ? -1 : x > y;
}

/* Members are compared key by key, each read only when the ones before
 * tie (they are sorted once per rule; most pairs differ in the file or the
 * address): first the file, */
static int compare_file_keys(const struct member *x, const struct member *y)
{
	int c = order_u64(x->dev_major, y->dev_major);
	c = c ? c : order_u64(x->dev_minor, y->dev_minor);
	return c ? c : order_u64(x->inode, y->inode);
}

/* ... and the part of it mapped, how. */
static int compare_mapping_keys(const struct member *x, const struct member *y)
{
	int c = order_u64(x->offset, y->offset);
	c = c ? c : order_u64(x->length, y->length);
	return c ? c : strcmp(x->perms, y->perms);
}

static int compare_members(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	int c = compare_file_keys(x, y);
	c = c ? c : order_u64(x->start, y->start);
	c = c ? c : order_u64(x->end, y->end);
	c = c ? c : compare_mapping_keys(x, y);
	return c ? c : order_u64(x->process, y->process);
}

static bool same_group(const struct member *x, const struct member *y)
{
	return x->dev_major == y->dev_major && x->dev_minor == y->dev_minor && x->inode == y->inode &&
	       x->start == y->start && x->end == y->end && x->offset == y->offset &&
	       x->length == y->length && !strcmp(x->perms, y->perms);
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
static void span_windows(const struct sharing_rule *rule, uint64_t start, uint64_t stop, uint64_t *first,
			 uint64_t *end)
{
	uint64_t size = (uint64_t)1 << rule->window_shift;
	if (rule->partners == PARTNERS_LENGTH) {
		*first = 0;
		*end = (stop - start) / size;
	} else {
		*first = (start + size - 1) >> rule->window_shift;
		*end = stop >> rule->window_shift;
	}
}

static void member_windows(const struct sharing_rule *rule, const struct vma *v,
			   uint64_t *first, uint64_t *end)
{
	span_windows(rule, v->start, v->end, first, end);
}

/* The same from the member's key where it holds the VMA's bounds (address
 * partners) or length (length partners): its VMA lies a line away. */
static void key_windows(const struct sharing_rule *rule, const struct member *m, uint64_t *first, uint64_t *end)
{
	if (rule->partners == PARTNERS_ADDRESS)
		span_windows(rule, m->start, m->end, first, end);
	else if (rule->partners == PARTNERS_LENGTH)
		span_windows(rule, 0, m->length, first, end);
	else
		member_windows(rule, m->vma, first, end);
}

static uint64_t window_base(const struct sharing_rule *rule, const struct vma *v, uint64_t w)
{
	return rule->partners == PARTNERS_LENGTH ? v->start + (w << rule->window_shift) : w << rule->window_shift;
}

void sharing_vma_windows(const struct sharing_rule *rule, const struct vma *vma, uint64_t *start, uint64_t *end)
{
	uint64_t first, last;
	*start = *end = 0;
	if (rule->partners == PARTNERS_CONTENT || !sharing_vma_eligible(rule, vma))
		return;
	member_windows(rule, vma, &first, &last);
	if (first < last) {
		*start = window_base(rule, vma, first);
		*end = window_base(rule, vma, last - 1) + ((uint64_t)1 << rule->window_shift);
	}
}

static uint64_t window_name(const struct sharing_rule *rule, const struct vma *v, uint64_t w)
{
	if (rule->partners == PARTNERS_FILE_INDEX)
		return v->offset + ((w << rule->window_shift) - v->start);
	return w;
}

/* A process's credit for a slot in window w: after sharing one copy of
 * each distinct page remains (the union). */
static void credit_slot(struct slots *slots, const struct group_window *w, size_t process)
{
	slots->result->process_figures[process].sharable_pages[slots->rule_index] +=
		(double)(w->total - w->distinct) / (double)w->total;
}

static void push_slot(struct slots *slots, uint64_t window, uint64_t page, size_t process)
{
	struct group_window *w = group_window(slots, window);
	if (slots->crediting) {
		credit_slot(slots, w, process);
		return;
	}
	size_t index = (size_t)(w - slots->windows);
	if (slots->pushes_whole && slots->push_count < PUSHES_KEPT && index < UINT32_MAX)
		*ARRAY_PUSH(slots->pushes, slots->push_count, slots->push_capacity) =
			(struct pushed_slot){ (uint32_t)index, (uint32_t)process };
	else
		slots->pushes_whole = false;
	w->total++;
	w->distinct += group_page_added(slots, window, page);
}

/* The page-table pages a process keeps for the window [base, end): the
 * window's own page, or with shares="subtree" every level at or below it (a
 * file PMD-mapped 2 MiB window has no PTE page).  Each level's populated
 * windows are found by asking for the next record, so the cost follows the
 * pages pushed, not the records. */
static void push_window_pages(struct model_context *c, const struct sharing_rule *rule,
			      struct slots *slots, uint64_t name, uint64_t base, size_t process,
			      uint64_t end)
{
	if (!rule->shares_subtree) {
		push_slot(slots, name, 0, process);
		return;
	}
	const struct process *p = &c->snapshot->processes[process];
	for (unsigned l = 0; l < c->geometry->level_count; l++) {
		unsigned shift = c->geometry->levels[l].shift;
		if (shift > rule->window_shift)
			break;
		struct pagemap_record record;
		for (uint64_t at = base; process_next_record(c->snapshot, p, at, end, &record);) {
			uint64_t w = record.vaddr >> shift;
			at = (w + 1) << shift;
			if (!(l == 0 && window_pmd_kind(c, p, w) == PMD_FILE))
				push_slot(slots, name, (uint64_t)l << 56 | ((record.vaddr - base) >> shift), process);
			if (at == 0)
				break;
		}
	}
}

static bool pmd_mapped_window(struct model_context *c, size_t process, uint64_t vaddr)
{
	enum pmd_kind kind = window_pmd_kind(c, &c->snapshot->processes[process], vaddr >> c->pte_shift);
	return kind == PMD_FILE || kind == PMD_ANON;
}

/* The chunk after a pagemap run's last (array_lower_bound's key). */
static uint64_t run_end_chunk(const void *item)
{
	const struct pagemap_run *run = item;
	return run->chunk + run->length;
}

/* The address of the process's first record in [at, limit), as
 * process_next_record finds it, from *run, a cursor over its runs (at only
 * ascends): the runs are walked on, never searched, and so are the chunk's
 * extents when at is the chunk's start; a full chunk (a record every page)
 * is its own answer. */
static bool next_record_vaddr(const struct model_context *c, const struct process *p, size_t *run, uint64_t at,
			      uint64_t limit, uint64_t *vaddr)
{
	const struct snapshot *s = c->snapshot;
	uint64_t chunk = at >> PAGEMAP_CHUNK_SHIFT;
	for (; *run < p->run_count; (*run)++) {
		const struct pagemap_run *r = &p->runs[*run];
		for (uint64_t i = chunk > r->chunk ? chunk - r->chunk : 0; i < r->length; i++) {
			uint64_t base = (r->chunk + i) << PAGEMAP_CHUNK_SHIFT, offset = at > base ? at - base : 0;
			uint32_t content = r->content + (uint32_t)i;
			if (base >= limit)
				return false;
			const struct pagemap_content *held = &s->contents[content];
			if (held->count == PAGEMAP_CHUNK_BYTES / MODEL_PAGE_BYTES) {
				*vaddr = base + offset;
				return *vaddr < limit;
			}
			struct pagemap_record record;
			if (pagemap_content_record_from(s, content, offset, &record)) {
				*vaddr = base + record.vaddr;
				return *vaddr < limit;
			}
		}
	}
	return false;
}

/* Each member's first run, the first reaching its first window (found by
 * halving: walking on from the process's first run stepped over 19 runs a
 * member on the generated 4000), and the content of the chunk it starts in
 * and that content's extents asked for from memory.  Members lie far
 * apart, each in its own process: these loops, a member's steps apart from
 * the next one's, overlap the misses that member_slots met one after the
 * other. */
static void member_starts(const struct model_context *c, const struct sharing_rule *rule, const struct member *group,
			  size_t count, struct slots *slots)
{
	size_t capacity = slots->start_capacity;
	array_reserve(&slots->starts, &slots->start_capacity, count, sizeof(*slots->starts));
	array_reserve(&slots->start_contents, &capacity, count, sizeof(*slots->start_contents));
	for (size_t i = 0; i < count; i++) {
		const struct process *p = &c->snapshot->processes[group[i].process];
		uint64_t first, end;
		member_windows(rule, group[i].vma, &first, &end);
		uint64_t chunk = window_base(rule, group[i].vma, first) >> PAGEMAP_CHUNK_SHIFT;
		size_t run = array_lower_bound(p->runs, p->run_count, sizeof(*p->runs), run_end_chunk, chunk + 1);
		slots->start_contents[i] = UINT32_MAX;
		if (run < p->run_count) {
			const struct pagemap_run *r = &p->runs[run];
			slots->start_contents[i] = r->content + (uint32_t)(chunk > r->chunk ? chunk - r->chunk : 0);
			__builtin_prefetch(&c->snapshot->contents[slots->start_contents[i]]);
		}
		slots->starts[i] = run;
	}
	/* then the extents the contents name */
	for (size_t i = 0; i < count; i++)
		if (slots->start_contents[i] != UINT32_MAX)
			__builtin_prefetch(c->snapshot->content_extents +
					   c->snapshot->contents[slots->start_contents[i]].first_extent);
}

/* The windows a member populated (records); a member without pagemap is
 * counted as a run (cover_runs).  run: its first run (member_starts). */
static void member_slots(struct model_context *c, const struct sharing_rule *rule,
			 const struct member *m, size_t run, struct slots *slots)
{
	const struct process *p = &c->snapshot->processes[m->process];
	const struct vma *v = m->vma;
	uint64_t first, end;
	member_windows(rule, v, &first, &end);
	if (first >= end || !p->has_pagemap)
		return;
	uint64_t size = (uint64_t)1 << rule->window_shift;
	uint64_t limit = window_base(rule, v, end - 1) + size;
	uint64_t pte_mask = ((uint64_t)1 << c->pte_shift) - 1;
	bool check_pmd = rule->skip_pmd_mapped && rule->window_shift == c->pte_shift &&
			 !model_range_pmd_none(c, p, window_base(rule, v, first) & ~pte_mask, limit);
	uint64_t at = window_base(rule, v, first);
	uint64_t vaddr;
	while (at < limit && next_record_vaddr(c, p, &run, at, limit, &vaddr)) {
		uint64_t w = rule->partners == PARTNERS_LENGTH ? (vaddr - v->start) >> rule->window_shift
							       : vaddr >> rule->window_shift;
		uint64_t next = window_base(rule, v, w) + size;
		if (!(check_pmd && pmd_mapped_window(c, m->process, vaddr)))
			push_window_pages(c, rule, slots, window_name(rule, v, w), window_base(rule, v, w),
					  m->process, next);
		at = next;
	}
}

/* Credit a group's sharable pages to its file (merged with the previous
 * group of the same file: groups are sorted by file). */
static void credit_file(struct model_sharing *out, size_t *capacity, const struct member *m,
			uint64_t pages, uint64_t mappings)
{
	struct model_file_share *last = out->file_count ? &out->files[out->file_count - 1] : NULL;
	if (!last || last->dev_major != m->dev_major || last->dev_minor != m->dev_minor || last->inode != m->inode) {
		array_reserve(&out->files, capacity, out->file_count + 1, sizeof(*out->files));
		last = &out->files[out->file_count++];
		*last = (struct model_file_share){ .path = m->vma->path, .dev_major = m->dev_major,
						   .dev_minor = m->dev_minor, .inode = m->inode };
	}
	last->sharable_pages += pages;
	last->mappings += mappings;
}

/*
 * Without pagemap a member is an upper bound: every window of its VMA with
 * resident or swapped pages counts.  Those windows are one run of
 * consecutive window names, so such members are counted in closed form per
 * VMA, never per window (a 128 TiB shared VMA has 2^26 windows of 2 MiB in
 * each process): the runs of a group cut the names into stretches, each
 * covered by n runs, where n copies of one page save n - 1, (n - 1)/n per
 * copy.  Only the windows that pagemap members populated are counted one by
 * one (member_slots), and where a run covers one of them its copy joins that
 * window's count, so the figures are those of counting every window, at a
 * cost that follows the records and the VMAs, not the spans.
 *
 * A name's place in a run: address and length rules name windows by number;
 * the file-index rule by file offset in bytes, offset - start + window base,
 * so its names step by the window size and two runs meet only when their
 * names agree below it (the residue).  Offsets wrap at 2^64 as the names do:
 * a run crossing that point is cut in two.
 */
static struct place name_place(const struct sharing_rule *rule, uint64_t name)
{
	if (rule->partners != PARTNERS_FILE_INDEX)
		return (struct place){ 0, name };
	uint64_t size = (uint64_t)1 << rule->window_shift;
	return (struct place){ name & (size - 1), name >> rule->window_shift };
}

static int compare_places(struct place x, struct place y)
{
	if (x.residue != y.residue)
		return x.residue < y.residue ? -1 : 1;
	return x.position < y.position ? -1 : x.position > y.position;
}

static int compare_boundaries(const void *a, const void *b)
{
	const struct boundary *x = a, *y = b;
	return compare_places(x->place, y->place);
}

/* The first stretch at or after place. */
static size_t stretch_at(const struct stretch *stretches, size_t count, struct place place)
{
	size_t low = 0, high = count;
	while (low < high) {
		size_t middle = low + (high - low) / 2;
		if (compare_places(stretches[middle].first, place) < 0)
			low = middle + 1;
		else
			high = middle;
	}
	return low;
}

/* The runs covering place (0: none). */
static uint64_t runs_at(const struct slots *slots, struct place place)
{
	place.position++;
	size_t i = stretch_at(slots->covers, slots->cover_count, place);
	if (i == 0)
		return 0;
	const struct stretch *s = &slots->covers[i - 1];
	place.position--;
	return s->first.residue == place.residue && place.position < s->end ? s->runs : 0;
}

static void add_boundaries(struct slots *slots, struct place first, uint64_t count)
{
	*ARRAY_PUSH(slots->boundaries, slots->boundary_count, slots->boundary_capacity) =
		(struct boundary){ first, +1 };
	*ARRAY_PUSH(slots->boundaries, slots->boundary_count, slots->boundary_capacity) =
		(struct boundary){ { first.residue, first.position + count }, -1 };
}

/* The run of a member without pagemap, as one or two [first, first + count)
 * of positions; false if it has none. */
static bool member_run(const struct sharing_rule *rule, const struct member *m, struct place *first,
		       uint64_t *count, uint64_t *wrapped)
{
	const struct vma *v = m->vma;
	uint64_t w, end;
	member_windows(rule, v, &w, &end);
	if (w >= end || vma_kb(v, SMAPS_RSS) + vma_kb(v, SMAPS_SWAP) == 0)
		return false;
	uint64_t positions = (uint64_t)1 << (64 - rule->window_shift);
	*first = name_place(rule, window_name(rule, v, w));
	*count = end - w;
	*wrapped = *count > positions - first->position ? *count - (positions - first->position) : 0;
	*count -= *wrapped;
	return true;
}

/* The runs of a group's members without pagemap, cut into stretches of
 * equal cover, with each stretch's credit per copy summed in order. */
static uint64_t cover_runs(struct slots *slots, const struct sharing_rule *rule, const struct member *group,
			   size_t count, const struct snapshot *s)
{
	struct place first;
	uint64_t runs, wrapped, shared = 0;
	for (size_t i = 0; i < count; i++) {
		if (s->processes[group[i].process].has_pagemap || !member_run(rule, &group[i], &first, &runs, &wrapped))
			continue;
		add_boundaries(slots, first, runs);
		if (wrapped)
			add_boundaries(slots, (struct place){ first.residue, 0 }, wrapped);
	}
	sort(slots->boundaries, slots->boundary_count, sizeof(*slots->boundaries), compare_boundaries);
	uint64_t depth = 0;
	for (size_t i = 0; i < slots->boundary_count; i++) {
		const struct boundary *b = &slots->boundaries[i];
		if (depth > 0 && i > 0 && compare_places(slots->boundaries[i - 1].place, b->place) < 0) {
			struct place from = slots->boundaries[i - 1].place;
			uint64_t length = b->place.position - from.position;
			*ARRAY_PUSH(slots->covers, slots->cover_count, slots->cover_capacity) = (struct stretch){
				from, b->place.position, depth,
				(long double)((double)(depth - 1) / (double)depth * (double)length) };
			shared += (depth - 1) * length;
		}
		depth += (uint64_t)b->delta;
	}
	return shared;
}

/* Windows that pagemap members populated and runs cover: the runs' copies
 * join the window's count (one page 0 among its pages), and what a run's
 * copy gets there instead of (n - 1)/n is kept for crediting.  Returns the
 * savings counted twice, once in a stretch and once in the window. */
static uint64_t join_runs(struct slots *slots, const struct sharing_rule *rule)
{
	uint64_t twice = 0;
	for (size_t i = 0; slots->cover_count && i < slots->window_count; i++) {
		struct group_window *w = &slots->windows[i];
		struct place place = name_place(rule, w->window);
		uint64_t n = runs_at(slots, place);
		if (!n)
			continue;
		w->total += n;
		w->distinct += group_page_added(slots, w->window, 0);
		twice += n - 1;
		*ARRAY_PUSH(slots->touched, slots->touched_count, slots->touched_capacity) = (struct stretch){
			place, place.position + 1, n,
			(long double)(w->total - w->distinct) / (long double)w->total -
				(long double)(n - 1) / (long double)n };
	}
	return twice;
}

static int compare_stretches(const void *a, const void *b)
{
	return compare_places(((const struct stretch *)a)->first, ((const struct stretch *)b)->first);
}

/* Each stretch's weight becomes the sum of the weights before it, and
 * *total the sum of all: a run's credit is two look-ups. */
static void sum_in_order(struct stretch *stretches, size_t count, long double *total)
{
	long double sum = 0;
	for (size_t i = 0; i < count; i++) {
		long double weight = stretches[i].weight;
		stretches[i].weight = sum;
		sum += weight;
	}
	*total = sum;
}

static long double sum_before(const struct stretch *stretches, size_t count, long double total,
			      struct place place)
{
	size_t i = stretch_at(stretches, count, place);
	return i < count ? stretches[i].weight : total;
}

static double run_credit(const struct slots *slots, struct place first, uint64_t count)
{
	struct place end = { first.residue, first.position + count };
	return (double)(sum_before(slots->covers, slots->cover_count, slots->cover_total, end) -
	       sum_before(slots->covers, slots->cover_count, slots->cover_total, first) +
	       (sum_before(slots->touched, slots->touched_count, slots->touched_total, end) -
		sum_before(slots->touched, slots->touched_count, slots->touched_total, first)));
}

static void credit_runs(struct slots *slots, const struct sharing_rule *rule, const struct member *group,
			size_t count, struct model_context *c, size_t rule_index)
{
	sort(slots->touched, slots->touched_count, sizeof(*slots->touched), compare_stretches);
	sum_in_order(slots->covers, slots->cover_count, &slots->cover_total);
	sum_in_order(slots->touched, slots->touched_count, &slots->touched_total);
	struct place first;
	uint64_t runs, wrapped;
	for (size_t i = 0; i < count; i++) {
		if (c->snapshot->processes[group[i].process].has_pagemap ||
		    !member_run(rule, &group[i], &first, &runs, &wrapped))
			continue;
		double credit = run_credit(slots, first, runs);
		if (wrapped)
			credit += run_credit(slots, (struct place){ first.residue, 0 }, wrapped);
		c->result->process_figures[group[i].process].sharable_pages[rule_index] += credit;
	}
}

static uint64_t share_group(struct model_context *c, struct model_sharing *out, size_t rule_index,
			    const struct member *group, size_t count, struct slots *slots)
{
	slots_reset(slots);
	member_starts(c, out->rule, group, count, slots);
	for (size_t i = 0; i < count; i++)
		member_slots(c, out->rule, &group[i], slots->starts[i], slots);
	uint64_t shared = cover_runs(slots, out->rule, group, count, c->snapshot);
	uint64_t twice = join_runs(slots, out->rule);
	for (size_t w = 0; w < slots->window_count; w++)
		shared += slots->windows[w].total - slots->windows[w].distinct;
	shared -= twice;
	if (!shared)
		return 0;
	slots->crediting = true;
	slots->rule_index = rule_index;
	slots->result = c->result;
	/* the slots in the order the counting walk met them, as a second
	 * walk would meet them again */
	for (size_t i = 0; slots->pushes_whole && i < slots->push_count; i++)
		credit_slot(slots, &slots->windows[slots->pushes[i].window], slots->pushes[i].process);
	for (size_t i = 0; !slots->pushes_whole && i < count; i++)
		member_slots(c, out->rule, &group[i], slots->starts[i], slots);
	credit_runs(slots, out->rule, group, count, c, rule_index);
	return shared;
}

/* Windows of [first, end) a member without pagemap surely populates with
 * pages its PTE pages map: its resident (and, private, swapped) pages
 * less every page that could lie outside the whole windows or in a
 * PMD-mapped window, packed as tightly as they go. */
static uint64_t member_windows_at_least(const struct model_context *c, const struct sharing_rule *rule,
					const struct vma *v, uint64_t first, uint64_t end)
{
	uint64_t kb = vma_kb(v, SMAPS_RSS) + (v->perms[3] == 'p' ? vma_kb(v, SMAPS_SWAP) : 0);
	uint64_t size = (uint64_t)1 << rule->window_shift;
	uint64_t whole_kb = (end - first) * (size / 1024);
	uint64_t outside_kb = (v->end - v->start) / 1024 - whole_kb;
	if (rule->skip_pmd_mapped && rule->window_shift == c->pte_shift)
		outside_kb += vma_kb(v, SMAPS_ANON_HUGE_PAGES) + vma_kb(v, SMAPS_SHMEM_PMD_MAPPED) + vma_kb(v, SMAPS_FILE_PMD_MAPPED);
	if (kb <= outside_kb)
		return 0;
	uint64_t per_window_kb = size / 1024;
	return (kb - outside_kb + per_window_kb - 1) / per_window_kb;
}

/* A lower bound on a group's saving: partners that together populate
 * sum k windows of W share at least sum k - W of them (each window one
 * partner keeps, the rest share it).  Only for groups whose partners have
 * the same windows (address and length partners); a member with pagemap
 * is counted as populating none, which keeps the bound. */
static uint64_t group_lower(const struct model_context *c, const struct sharing_rule *rule,
			    const struct member *group, size_t count)
{
	if (rule->partners != PARTNERS_ADDRESS && rule->partners != PARTNERS_LENGTH)
		return 0;
	uint64_t first, end, populated = 0;
	member_windows(rule, group[0].vma, &first, &end);
	if (first >= end)
		return 0;
	for (size_t i = 0; i < count; i++)
		if (!c->snapshot->processes[group[i].process].has_pagemap)
			populated += member_windows_at_least(c, rule, group[i].vma, first, end);
	return populated > end - first ? populated - (end - first) : 0;
}

static int compare_files(const void *a, const void *b)
{
	const struct model_file_share *x = a, *y = b;
	if (x->sharable_pages != y->sharable_pages)
		return x->sharable_pages > y->sharable_pages ? -1 : 1;
	return strcmp(x->path ? x->path : "", y->path ? y->path : "");
}

/* ---- the census: why a rule finds what it finds ---- */

/*
 * The same mappings without their address (file, offset, length,
 * permissions, from the VMA): groups in two or more processes, and of them
 * those where no two processes map it at one address (what address-space
 * randomisation does to a rule that wants the same address).  Both are
 * counts over each group's members in any order, so the groups are found
 * by hashing, not by sorting the members again: a group's first member and
 * whether another process maps it, and each (group, address) seen once.
 */
struct apart_group {
	const struct member *first;
	uint64_t hash, offset, length;  /* the mapping's offset and length */
	bool processes;                 /* a second process maps it */
	bool together;                  /* two of them at one address */
};

struct apart_start {
	uint64_t group, start, hash;
};

struct apart {
	struct apart_group *groups;
	size_t group_count, group_capacity;
	struct hash_table group_table;
	struct apart_start *starts;
	size_t start_count, start_capacity;
	struct hash_table start_table;
};

/* The permissions as a word, equal where strcmp finds them equal. */
static uint64_t perms_key(const char *perms)
{
	uint64_t key = 0;
	for (size_t i = 0; i < 4 && perms[i]; i++)
		key |= (uint64_t)(unsigned char)perms[i] << (8 * i);
	return key;
}

/* A member's VMA as the census sees it: from the member's key where the
 * key holds it (address partners: all; length partners: all but the
 * start), else from the VMA. */
struct mapping {
	uint64_t offset, length, start;
};

static struct mapping member_mapping(const struct sharing_rule *rule, const struct member *m)
{
	if (rule->partners == PARTNERS_ADDRESS)
		return (struct mapping){ m->offset, m->end - m->start, m->start };
	if (rule->partners == PARTNERS_LENGTH)
		return (struct mapping){ m->offset, m->length, m->vma->start };
	return (struct mapping){ m->vma->offset, m->vma->end - m->vma->start, m->vma->start };
}

static uint64_t mapping_hash(const struct member *m, struct mapping map)
{
	uint64_t h = hash_u64((uint64_t)m->dev_major << 32 ^ m->dev_minor ^ perms_key(m->perms) << 20);
	h = hash_u64(h ^ m->inode);
	h = hash_u64(h ^ map.offset);
	return hash_u64(h ^ map.length);
}

static bool same_mapping(const struct apart_group *g, const struct member *y, struct mapping map)
{
	const struct member *x = g->first;
	return x->dev_major == y->dev_major && x->dev_minor == y->dev_minor && x->inode == y->inode &&
	       g->offset == map.offset && g->length == map.length && !strcmp(x->perms, y->perms);
}

static uint64_t rehash_group(const void *context, size_t index)
{
	return ((const struct apart *)context)->groups[index].hash;
}

static uint64_t rehash_start(const void *context, size_t index)
{
	return ((const struct apart *)context)->starts[index].hash;
}

static struct apart_group *apart_group(struct apart *a, const struct member *m, struct mapping map)
{
	uint64_t h = mapping_hash(m, map);
	struct hash_probe probe;
	for (size_t i = hash_first(&a->group_table, h, &probe); i != HASH_NONE; i = hash_next(&a->group_table, &probe))
		if (a->groups[i].hash == h && same_mapping(&a->groups[i], m, map))
			return &a->groups[i];
	*ARRAY_PUSH(a->groups, a->group_count, a->group_capacity) =
		(struct apart_group){ .first = m, .hash = h, .offset = map.offset, .length = map.length };
	hash_add(&a->group_table, h, a->group_count - 1, rehash_group, a);
	return &a->groups[a->group_count - 1];
}

/* Whether the group had a member at start before. */
static bool apart_start_seen(struct apart *a, uint64_t group, uint64_t start)
{
	uint64_t h = hash_u64(group ^ hash_u64(start));
	struct hash_probe probe;
	for (size_t i = hash_first(&a->start_table, h, &probe); i != HASH_NONE; i = hash_next(&a->start_table, &probe))
		if (a->starts[i].group == group && a->starts[i].start == start)
			return true;
	*ARRAY_PUSH(a->starts, a->start_count, a->start_capacity) = (struct apart_start){ group, start, h };
	hash_add(&a->start_table, h, a->start_count - 1, rehash_start, a);
	return false;
}

static void census_apart_member(struct apart *a, const struct sharing_rule *rule, const struct member *m)
{
	struct mapping map = member_mapping(rule, m);
	struct apart_group *g = apart_group(a, m, map);
	g->processes |= g->first->process != m->process;
	g->together |= apart_start_seen(a, (uint64_t)(g - a->groups), map.start);
}

static void census_apart_count(struct sharing_census *census, struct apart *a)
{
	for (size_t i = 0; i < a->group_count; i++)
		if (a->groups[i].processes) {
			census->file_groups++;
			census->file_groups_apart += !a->groups[i].together;
		}
	FREE_ALL(a->groups, a->starts);
	hash_free(&a->group_table);
	hash_free(&a->start_table);
}

/* kind_vmas: the VMAs the rule would take at any size (gather_members
 * counts them in its pass over the VMAs). */
static void take_census(const struct sharing_rule *rule, const struct member *members, size_t count,
			uint64_t kind_vmas, struct sharing_census *census)
{
	census->kind_vmas += kind_vmas;
	struct apart apart = { 0 };
	const struct member *last[2] = { NULL, NULL };  /* the last two members with windows */
	size_t n = 0;
	for (size_t i = 0; i < count; i++) {
		uint64_t first, end;
		key_windows(rule, &members[i], &first, &end);
		if (first >= end)
			continue;
		n++;
		/* members are sorted by the rule's key: a group is a run */
		bool new_group = !last[0] || !same_group(last[0], &members[i]);
		census->groups += new_group;
		/* a group turns shared when its second member arrives */
		census->shared_groups += !new_group && (!last[1] || !same_group(last[1], last[0]));
		last[1] = last[0];
		last[0] = &members[i];
		census_apart_member(&apart, rule, &members[i]);
	}
	census->window_vmas = n;
	census_apart_count(census, &apart);
}

/* The partner rules (bit k: rule k) whose kind a key is, remembered in a few
 * slots: a snapshot's VMAs have few keys (a library's r-xp, r--p, rw-p). */
struct kind_memo {
	struct sharing_kind_key keys[64];
	uint64_t kinds[64];
	bool used[64];
};

static uint64_t key_kinds(const struct model_context *c, struct kind_memo *memo, struct sharing_kind_key key)
{
	/* one multiply: the keys are few, a slot's collision costs only a test */
	size_t slot = (size_t)(((key.vm_flags ^ (uint64_t)key.anonymous << 62 ^ (uint64_t)key.writable_private << 63) *
				UINT64_C(0x9e3779b97f4a7c15)) >> 58);
	struct sharing_kind_key *held = &memo->keys[slot];
	if (memo->used[slot] && held->vm_flags == key.vm_flags && held->anonymous == key.anonymous &&
	    held->writable_private == key.writable_private)
		return memo->kinds[slot];
	uint64_t kinds = 0;
	for (size_t k = 0; k < c->result->sharing_count; k++) {
		const struct sharing_rule *rule = c->result->sharing[k].rule;
		kinds |= (uint64_t)(rule->partners != PARTNERS_CONTENT && sharing_kind_eligible(rule, key)) << k;
	}
	*held = key;
	memo->kinds[slot] = kinds;
	memo->used[slot] = true;
	return kinds;
}

/* A partner rule's members (the VMAs it takes, with their keys) and the
 * VMAs of its kind at any size (the census's). */
struct rule_members {
	struct member *members;
	size_t count, capacity;
	uint64_t kind_vmas;
};

/* Every partner rule's members in one pass over the VMAs, in process
 * order: the VMAs are many and large (443 k of 88 bytes on the generated
 * 4000), so each is read once, while its line is at hand, not once per
 * rule.  A rule takes a VMA of its kind that is large enough: the kind's
 * tests are made once per key. */
/* A VMA of rule k's kind: counted, and taken when large enough (inline:
 * once a VMA and kind in the pass). */
static inline __attribute__((always_inline)) void take_vma(const struct model_context *c, struct rule_members *all,
							    size_t k, const struct vma *vma, size_t process,
							    bool large_enough)
{
	all[k].kind_vmas++;
	if (large_enough)
		*ARRAY_PUSH(all[k].members, all[k].count, all[k].capacity) =
			member_key(c->result->sharing[k].rule, vma, process);
}

/* The VMAs of one process into the partner rules of their kinds (up to
 * 64 rules: bit k of a key's kinds is rule k), the size test read from
 * least[k], sharing_vma_large_enough's bound. */
static void take_process_vmas(const struct model_context *c, struct rule_members *all, struct kind_memo *memo,
			      const uint64_t *least, size_t process)
{
	const struct process *p = &c->snapshot->processes[process];
	for (size_t v = 0; v < p->vma_count; v++) {
		const struct vma *vma = &p->vmas[v];
		/* both lines a kind key and a member read, twice as far ahead as
		 * the model's other passes (little work a VMA here: 12 measured
		 * 8.6 ms, 6 8.8, 4 9.1 on the generated 4000) */
		model_prefetch_vma(p->vmas, p->vma_count, v, 2 * MODEL_VMAS_AHEAD);
		uint64_t bytes = vma->end - vma->start;
		for (uint64_t kinds = key_kinds(c, memo, sharing_vma_kind_key(vma)); kinds; kinds &= kinds - 1) {
			size_t k = (size_t)__builtin_ctzll(kinds);
			take_vma(c, all, k, vma, process, bytes >= least[k]);
		}
	}
}

static struct rule_members *gather_members(const struct model_context *c)
{
	const struct snapshot *s = c->snapshot;
	size_t rules = c->result->sharing_count;
	struct rule_members *all = xcalloc(rules + 1, sizeof(*all));
	struct kind_memo memo = { 0 };
	uint64_t least[64];
	for (size_t k = 0; k < rules && k < 64; k++) {
		const struct sharing_rule *rule = c->result->sharing[k].rule;
		least[k] = rule->has_eligibility ? rule->min_bytes : 0;
	}
	for (size_t i = 0; i < s->process_count; i++) {
		if (rules <= 64) {
			take_process_vmas(c, all, &memo, least, i);
			continue;
		}
		/* more rules than a word has bits: each asked on its own */
		for (size_t v = 0; v < s->processes[i].vma_count; v++) {
			const struct vma *vma = &s->processes[i].vmas[v];
			for (size_t k = 0; k < rules; k++)
				if (c->result->sharing[k].rule->partners != PARTNERS_CONTENT &&
				    sharing_kind_eligible(c->result->sharing[k].rule, sharing_vma_kind_key(vma)))
					take_vma(c, all, k, vma, i,
						 sharing_vma_large_enough(c->result->sharing[k].rule, vma));
		}
	}
	return all;
}

/* Whether a group's VMAs hold private copies (asked only of groups that
 * share: a VMA's counters lie apart from it). */
static bool private_copies(const struct member *group, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (vma_kb(group[i].vma, SMAPS_ANONYMOUS) > 0)
			return true;
	return false;
}

static void share_by_partners(struct model_context *c, struct model_sharing *out, size_t rule_index,
			      struct rule_members *taken)
{
	const struct sharing_rule *rule = out->rule;
	struct member *members = taken->members;
	size_t count = taken->count, file_capacity = 0;
	struct slots slots = { 0 };
	out->eligible_vmas = count;
	sort(members, count, sizeof(*members), compare_members);
	for (size_t i = 0; i < count;) {
		size_t j = i + 1;
		while (j < count && same_group(&members[i], &members[j]))
			j++;
		uint64_t pages = j - i > 1 ? share_group(c, out, rule_index, members + i, j - i, &slots) : 0;
		out->sharable_pages += pages;
		bool known = true;
		for (size_t k = i; k < j; k++)
			known &= c->snapshot->processes[members[k].process].has_pagemap;
		out->sharable_pages_lower += known ? pages : group_lower(c, rule, members + i, j - i);
		if (pages && private_copies(members + i, j - i))
			out->pages_in_cow_vmas += pages;
		if (pages)
			credit_file(out, &file_capacity, &members[i], pages, j - i);
		i = j;
	}
	sort(out->files, out->file_count, sizeof(*out->files), compare_files);
	take_census(rule, members, count, taken->kind_vmas, &out->census);
	slots_free(&slots);
}

/* ---- identical PTE pages ---- */

/*
 * Two PTE windows are identical when slot by slot they hold the same
 * present bit, PFN (or swap entry) and permissions.  Windows are hashed
 * with a sum over their records that splits by chunk and VMA, so a chunk
 * lying inside one VMA is hashed from its content once; equal hashes are
 * then compared (a window holding the same content with the same
 * permissions as the class's first window is equal at once, any other is
 * compared slot by slot), so a collision can only cost time.  Classes are
 * kept in a hash table (base/hash.h): memory follows distinct windows, not
 * mappings.
 */
struct window_class {
	uint64_t hash;
	uint32_t process;               /* the first window of the class (share_identical:
					   fewer processes than 2^32) */
	uint32_t chunk_content;         /* ... its chunk's content when it is one (else UINT32_MAX) */
	uint64_t window;
	long content;                   /* one chunk in one VMA: its content, else -1 */
	uint32_t perms;
	uint32_t vma_first;             /* a process VMA at or before its window's (UINT32_MAX:
					   none kept), for window_pieces' cursor */
	uint64_t members;
};

struct identical {
	struct window_class *classes;
	size_t count, capacity;
	struct hash_table table;        /* classes by hash; equal hashes probe on */
	double *credits;                /* per class after counting: (members - 1) / members,
					   apart from the classes (read many, far apart) */
	uint64_t *content_sums;         /* per content: its records' hash sum (windows of one chunk), */
	bool *summed;                   /* ... worked out the first time a window is one whole chunk */
	uint64_t *slot_hashes;          /* record_hash's first mix, per slot and present bit */
	uint64_t *zero_sums;            /* per present bit, slots + 1 sums: of record_hash with
					   PFN 0 over the slots below each */
	uint64_t *fields[2];            /* a window's slots, three words each, to compare */
	struct window_piece *pieces[2]; /* a one-chunk window's pieces (window_pieces) */
	size_t piece_count[2];
	bool have_view_pieces;          /* pieces[1] are of view_pieces_process's ..._window, */
	size_t view_pieces_process;     /* as describe_window cut it, a chunk of */
	uint64_t view_pieces_window;
	long view_pieces_content;       /* ... this content (-1: none) */
	bool have_first_pieces;         /* pieces[0] are of first_pieces_process's ..._window, */
	size_t first_pieces_process;
	uint64_t first_pieces_window;
	long first_pieces_content;      /* ... a chunk of this content */
	bool have_first;                /* fields[0] holds the window of first_process, */
	size_t first_process, first_count; /* ... first_window: first_count slots */
	uint64_t first_window;
	/* the counting pass's class of each window it notes, in the order the
	 * passes visit them (NULL past UINT32_MAX classes: crediting finds
	 * them again).  With note_all, every window, and per process the end
	 * of its windows there: crediting reads them in order and visits no
	 * window again.  Else only windows at VMA edges (a window that is one
	 * whole chunk in one VMA is found again): those follow the VMAs, not
	 * the processes times the chunks (at 64 GiB x 1000 processes, 4 bytes
	 * a window were 131 MB). */
	uint32_t *window_classes;
	size_t windows, window_capacity, next_window;
	bool note_all;                  /* share_identical says */
	size_t *window_ends;
	/* per content: the class (index + 1, 0: none yet) of a window that is
	 * that whole chunk in one VMA, and the VMA's permissions: such a
	 * window's class is the same in every process (counting pass) */
	uint32_t *content_class;
	uint64_t *content_perms;
	/* the pass's cursor over the process's VMAs (chunk_vma_from, vma_from):
	 * the windows and the records asked about ascend */
	size_t vma_cursor;
};

static uint64_t mix(uint64_t h, uint64_t x)
{
	h ^= x + UINT64_C(0x9e3779b97f4a7c15) + (h << 6) + (h >> 2);
	h *= UINT64_C(0xff51afd7ed558ccd);
	return h ^ (h >> 32);
}

/* A fixed-size copy: a copy of 4 or 1 bytes was a byte loop. */
static uint64_t perms_word(const struct vma *v)
{
	uint32_t w = 0;
	if (v)
		memcpy(&w, v->perms, sizeof(w));
	return w;
}

/* A slot: its number in the window with the present bit, and P + PFN or S + swap entry. */
static uint64_t slot_word(const struct model_context *c, uint64_t vaddr, uint64_t entry)
{
	uint64_t slots = (uint64_t)1 << (c->pte_shift - 12);
	return ((vaddr >> 12) & (slots - 1)) | ((entry & PAGEMAP_PRESENT) ? 1ull << 63 : 0);
}

/* A record's hash, mix(mix(1, slot word), PFN), its first mix looked up
 * (slot_hashes, made once per rule: one a slot and present bit). */
static uint64_t record_hash(const struct model_context *c, const uint64_t *slot_hashes, uint64_t vaddr,
			    uint64_t entry)
{
	uint64_t slots = (uint64_t)1 << (c->pte_shift - 12);
	return mix(slot_hashes[((vaddr >> 12) & (slots - 1)) << 1 | entry >> 63], entry & PAGEMAP_PFN_MASK);
}

static uint64_t *make_slot_hashes(const struct model_context *c)
{
	uint64_t slots = (uint64_t)1 << (c->pte_shift - 12);
	uint64_t *hashes = xreallocarray(NULL, 2 * slots, sizeof(*hashes));
	for (uint64_t i = 0; i < 2 * slots; i++)
		hashes[i] = mix(1, slot_word(c, (i >> 1) << 12, i & 1 ? PAGEMAP_PRESENT : 0));
	return hashes;
}

/* Sums of record_hash over slots [0, i) for records with PFN 0 (its mix of
 * 0), i = 0 .. slots, for each present bit: a run of them is a difference. */
static uint64_t *make_zero_sums(const struct model_context *c, const uint64_t *slot_hashes)
{
	uint64_t slots = (uint64_t)1 << (c->pte_shift - 12);
	uint64_t *sums = xreallocarray(NULL, 2 * (slots + 1), sizeof(*sums));
	for (uint64_t present = 0; present < 2; present++) {
		uint64_t *row = sums + present * (slots + 1);
		row[0] = 0;
		for (uint64_t i = 0; i < slots; i++)
			row[i + 1] = row[i] + mix(slot_hashes[i << 1 | present], 0);
	}
	return sums;
}

/* The permissions' multiplier: odd, so a sum times it loses nothing. */
static uint64_t perms_factor(uint64_t perms)
{
	return mix(perms, 7) | 1;
}

/* The hash sum of records [first, end) of a content (its chunk at base; e
 * the extent holding record first),
 * extent by extent: the records of one with one entry and PFN 0 lie at
 * consecutive slots of the window (a chunk never crosses one), so their
 * sum is a difference of zero_sums (sums wrap alike in any order). */
static uint64_t piece_sum(const struct model_context *c, const struct identical *x, const struct pagemap_extent *e,
			  uint64_t base, uint32_t first, uint32_t end)
{
	uint64_t slots = (uint64_t)1 << (c->pte_shift - 12), sum = 0;
	for (uint32_t k = first; k < end; e++) {
		uint32_t from = k - e->rank, to = end - e->rank < e->length ? end - e->rank : e->length;
		uint64_t vaddr = base + e->offset + (uint64_t)from * 4096;
		if (!e->step && !(e->entry & PAGEMAP_PFN_MASK)) {
			const uint64_t *row = x->zero_sums + (e->entry >> 63) * (slots + 1);
			uint64_t slot = (vaddr >> 12) & (slots - 1);
			sum += row[slot + (to - from)] - row[slot];
		} else {
			for (uint32_t i = from; i < to; i++, vaddr += 4096)
				sum += record_hash(c, x->slot_hashes, vaddr, e->entry + (uint64_t)i * e->step);
		}
		k = e->rank + to;
	}
	return sum;
}

/* The hash sum of a content's records, the first time it is asked for:
 * only whole chunks inside one VMA are (most contents of a host of small
 * VMAs never are). */
static uint64_t content_sum(const struct model_context *c, struct identical *x, uint32_t content)
{
	if (!x->summed[content]) {
		x->content_sums[content] = piece_sum(c, x, pagemap_content_extent(c->snapshot, content, 0), 0, 0,
						     c->snapshot->contents[content].count);
		x->summed[content] = true;
	}
	return x->content_sums[content];
}

/* A window's description: its hash, and whether it is one chunk inside one VMA. */
struct window_view {
	size_t process;
	uint64_t window, hash;
	long content;
	uint64_t perms;
	size_t vma_first;               /* the pass's VMA cursor when it was described */
};

/* The VMA holding vaddr, or NULL, from the pass's cursor (no search). */
static const struct vma *vma_from(const struct process *p, size_t *v, uint64_t vaddr)
{
	while (*v < p->vma_count && p->vmas[*v].end <= vaddr)
		(*v)++;
	return *v < p->vma_count && p->vmas[*v].start <= vaddr ? &p->vmas[*v] : NULL;
}

/* A run of a one-chunk window's records under the same permissions (of
 * one VMA or of neighbours, or outside every VMA): the records before
 * `end`, their permissions (4 bytes each: no padding for memcmp). */
struct window_piece {
	uint32_t end;
	uint32_t perms;
};

/* A piece of the window describe_window cuts, kept in pieces[1] as
 * window_pieces would find it: neighbours under the same permissions
 * merged (two VMAs' records alike to the slots). */
static void keep_piece(struct identical *x, uint32_t end, uint32_t perms)
{
	struct window_piece *kept = x->pieces[1];
	size_t *n = &x->piece_count[1];
	if (*n && kept[*n - 1].perms == perms)
		kept[*n - 1].end = end;
	else
		kept[(*n)++] = (struct window_piece){ end, perms };
}

/* known: the window's content when it is one chunk (-1: look it up). */
static void describe_window(struct model_context *c, struct identical *x, size_t process, uint64_t window,
			    long known, struct window_view *view)
{
	const struct process *p = &c->snapshot->processes[process];
	unsigned k = c->chunks_per_window_shift;
	uint64_t hash = 0, pieces = 0;
	*view = (struct window_view){ .process = process, .window = window, .content = -1,
				      .vma_first = x->vma_cursor };
	x->have_view_pieces = k == 0;
	x->view_pieces_process = process;
	x->view_pieces_window = window;
	x->view_pieces_content = -1;
	x->piece_count[1] = 0;
	for (uint64_t chunk = window << k; chunk < (window + 1) << k; chunk++) {
		long content = k == 0 && known >= 0 ? known : process_chunk_content(p, chunk);
		if (content < 0)
			continue;
		x->view_pieces_content = content;
		uint32_t count = c->snapshot->contents[content].count;
		uint64_t base = chunk << PAGEMAP_CHUNK_SHIFT;
		const struct pagemap_extent *e = pagemap_content_extent(c->snapshot, (uint32_t)content, 0);
		for (uint32_t first = 0; first < count;) {
			while (e->rank + e->length <= first)
				e++;    /* pieces ascend: the extents are walked once */
			/* a VMA over the whole chunk holds every record: none is read */
			const struct vma *vma = first == 0 ? chunk_vma_from(p, &x->vma_cursor, base) : NULL;
			uint32_t end = vma ? count : first + 1;
			if (!vma) {
				vma = vma_from(p, &x->vma_cursor, base + e->offset + (uint64_t)(first - e->rank) * 4096);
				/* the records below its end (record first lies in it) */
				end = vma ? pagemap_content_rank_from(e, count, vma->end - base) : end;
			}
			uint64_t sum = 0;
			if (k == 0 && first == 0 && end == count) {
				sum = content_sum(c, x, (uint32_t)content);
				view->content = content;
			} else {
				sum = piece_sum(c, x, e, base, first, end);
			}
			view->perms = perms_word(vma);
			hash += sum * perms_factor(view->perms);
			keep_piece(x, end, (uint32_t)view->perms);
			pieces++;
			first = end;
		}
	}
	if (pieces != 1)
		view->content = -1;
	view->hash = mix(hash, 3);
}

/* A window's slots in order, three words each; returns how many. */
static size_t window_fields(struct model_context *c, size_t process, uint64_t window, uint64_t *out)
{
	const struct process *p = &c->snapshot->processes[process];
	unsigned k = c->chunks_per_window_shift;
	size_t n = 0;
	const struct vma *vma = NULL;   /* the last record's: the next one's too, mostly */
	for (uint64_t chunk = window << k; chunk < (window + 1) << k; chunk++) {
		long content = process_chunk_content(p, chunk);
		if (content < 0)
			continue;
		uint64_t base = chunk << PAGEMAP_CHUNK_SHIFT;
		struct content_cursor cursor;
		struct pagemap_record record;
		content_cursor_start(&cursor, c->snapshot, (uint32_t)content, 0, c->snapshot->contents[content].count);
		for (; content_cursor_next(&cursor, &record); n++) {
			uint64_t vaddr = base + record.vaddr;
			if (!vma || vaddr < vma->start || vaddr >= vma->end)
				vma = process_find_vma(p, vaddr);
			out[3 * n] = slot_word(c, vaddr, record.entry);
			out[3 * n + 1] = record.entry & PAGEMAP_PFN_MASK;
			out[3 * n + 2] = perms_word(vma);
		}
	}
	return n;
}

/* The pieces of a window that is one chunk (chunks_per_window_shift 0),
 * at most `most`: how many, 0 when the window is not one chunk, holds no
 * record or has more pieces.  *content: its chunk's. */
static size_t window_pieces(const struct model_context *c, size_t process, uint64_t window, size_t vma_first,
			    uint32_t known, struct window_piece *out, size_t most, long *content)
{
	const struct process *p = &c->snapshot->processes[process];
	*content = c->chunks_per_window_shift ? -1 : known != UINT32_MAX ? (long)known : process_chunk_content(p, window);
	if (*content < 0)
		return 0;
	uint32_t count = c->snapshot->contents[*content].count;
	uint64_t base = window << PAGEMAP_CHUNK_SHIFT;
	const struct pagemap_extent *e = pagemap_content_extent(c->snapshot, (uint32_t)*content, 0);
	size_t n = 0;
	for (uint32_t first = 0; first < count && n < most;) {
		while (e->rank + e->length <= first)
			e++;
		uint64_t vaddr = base + e->offset + (uint64_t)(first - e->rank) * 4096;
		const struct vma *vma = vma_first < UINT32_MAX ? vma_from(p, &vma_first, vaddr) : process_find_vma(p, vaddr);
		/* as describe_window cuts it: the records below the VMA's end */
		first = vma ? pagemap_content_rank_from(e, count, vma->end - base) : first + 1;
		struct window_piece piece = { first, (uint32_t)perms_word(vma) };
		if (n && out[n - 1].perms == piece.perms)
			out[n - 1].end = first;         /* two VMAs' records alike to the slots */
		else
			out[n++] = piece;
	}
	return n && out[n - 1].end == count ? n : 0;
}

/* Are two windows that are one chunk each of one content cut into the same
 * pieces with the same permissions?  Then slot by slot they are equal (the
 * same records at the same offsets, the same permissions), and no record
 * need be read.  false: they may still be equal. */
static bool same_pieces(struct model_context *c, struct identical *x, const struct window_class *class,
			const struct window_view *view)
{
	size_t most = (size_t)1 << (c->pte_shift - 12);
	long content;
	if (!x->have_first_pieces || x->first_pieces_process != class->process ||
	    x->first_pieces_window != class->window) {
		x->piece_count[0] = window_pieces(c, class->process, class->window, class->vma_first,
						  class->chunk_content, x->pieces[0], most, &x->first_pieces_content);
		x->first_pieces_process = class->process;
		x->first_pieces_window = class->window;
		x->have_first_pieces = true;
	}
	/* the view was described last: its pieces are kept, as cut */
	size_t n = x->piece_count[1];
	content = x->view_pieces_content;
	if (!x->have_view_pieces || x->view_pieces_process != view->process || x->view_pieces_window != view->window) {
		n = window_pieces(c, view->process, view->window, view->vma_first, UINT32_MAX, x->pieces[1], most,
				  &content);
		x->have_view_pieces = false;
	}
	return n && n == x->piece_count[0] && content == x->first_pieces_content &&
	       !memcmp(x->pieces[0], x->pieces[1], n * sizeof(*x->pieces[1]));
}

static bool same_window(struct model_context *c, struct identical *x, const struct window_class *class,
			const struct window_view *view)
{
	if (class->content >= 0 && class->content == view->content && class->perms == view->perms)
		return true;
	if (same_pieces(c, x, class, view))
		return true;
	if (!x->have_first || x->first_process != class->process || x->first_window != class->window) {
		x->first_count = window_fields(c, class->process, class->window, x->fields[0]);
		x->first_process = class->process;
		x->first_window = class->window;
		x->have_first = true;
	}
	size_t a = x->first_count;
	size_t b = window_fields(c, view->process, view->window, x->fields[1]);
	return a == b && !memcmp(x->fields[0], x->fields[1], 3 * a * sizeof(uint64_t));
}

static uint64_t class_hash(const void *context, size_t index)
{
	return ((const struct identical *)context)->classes[index].hash;
}

/* The only class of a hash, or NULL when there are several (or none). */
static struct window_class *only_class(struct identical *x, uint64_t hash)
{
	struct hash_probe probe;
	struct window_class *only = NULL;
	for (size_t i = hash_first(&x->table, hash, &probe); i != HASH_NONE; i = hash_next(&x->table, &probe)) {
		if (x->classes[i].hash != hash)
			continue;
		if (only)
			return NULL;
		only = &x->classes[i];
	}
	return only;
}

/* The class of a window; with create, a new class when none is equal.
 * Without, every window has its class already (the counting pass made
 * them), so a hash that only one class has names it without comparing. */
static struct window_class *find_class(struct model_context *c, struct identical *x,
				       const struct window_view *view, bool create)
{
	struct window_class *only = create ? NULL : only_class(x, view->hash);
	if (only)
		return only;
	struct hash_probe probe;
	for (size_t i = hash_first(&x->table, view->hash, &probe); i != HASH_NONE; i = hash_next(&x->table, &probe))
		if (x->classes[i].hash == view->hash && same_window(c, x, &x->classes[i], view))
			return &x->classes[i];
	if (!create)
		return NULL;
	struct window_class *class = ARRAY_PUSH(x->classes, x->count, x->capacity);
	uint32_t chunk = x->have_view_pieces && x->view_pieces_content >= 0 && x->view_pieces_content < UINT32_MAX
				 ? (uint32_t)x->view_pieces_content : UINT32_MAX;
	*class = (struct window_class){ .hash = view->hash, .process = (uint32_t)view->process,
					.chunk_content = chunk, .window = view->window,
					.content = view->content, .perms = (uint32_t)view->perms,
					.vma_first = view->vma_first < UINT32_MAX ? (uint32_t)view->vma_first : UINT32_MAX };
	hash_add(&x->table, view->hash, x->count - 1, class_hash, x);
	return &x->classes[x->count - 1];
}

/* The class of a window whose records are all of `content`, under
 * permissions perms, as that content under those permissions had it
 * before (slot by slot the same window), or NULL. */
static struct window_class *content_perms_class(struct identical *x, long content, uint64_t perms)
{
	if (!x->content_class[content] || perms != x->content_perms[content])
		return NULL;
	return &x->classes[x->content_class[content] - 1];
}

/* The class of a window that is one whole chunk in one VMA (`vma`), as
 * its content under the same permissions had it before, or NULL. */
static struct window_class *known_class(struct identical *x, long content, const struct vma *vma)
{
	return vma ? content_perms_class(x, content, perms_word(vma)) : NULL;
}

/* A window's class: counting, found or made from its description; then
 * found again.  whole: the VMA holding the whole of the window, one chunk
 * of `content` (NULL: none).  A
 * window that is one whole chunk in one VMA takes its content's class when
 * the permissions are the same.  The counting pass notes the classes of
 * the windows x->note_all says for the crediting to read. */
static struct window_class *window_class(struct model_context *c, struct identical *x, size_t process,
					 uint64_t window, long content, const struct vma *whole, bool counting)
{
	if (!counting && x->window_classes && !whole)
		return &x->classes[x->window_classes[x->next_window++]];
	struct window_class *class = known_class(x, content, whole);
	if (!class) {
		struct window_view view;
		describe_window(c, x, process, window, content, &view);
		/* its records all in one VMA that does not hold the whole chunk */
		class = view.content >= 0 ? content_perms_class(x, view.content, view.perms) : NULL;
		class = class ? class : find_class(c, x, &view, counting);
		if (class && view.content >= 0 && x->count < UINT32_MAX) {
			x->content_class[view.content] = (uint32_t)(class - x->classes) + 1;
			x->content_perms[view.content] = view.perms;
		}
	}
	if (counting && x->count > UINT32_MAX)
		FREE_ALL(x->window_classes);
	else if (counting && (x->note_all || !whole))
		*ARRAY_PUSH(x->window_classes, x->windows, x->window_capacity) = (uint32_t)(class - x->classes);
	return class;
}

/* How a window is mapped; content: the window's when it is one chunk (its
 * pagemap run names it: segment_pmd_kind, no search), else -1. */
static enum pmd_kind pass_pmd_kind(struct model_context *c, size_t process, uint64_t window, long content)
{
	if (content < 0)
		return window_pmd_kind(c, &c->snapshot->processes[process], window);
	struct segment at = { .process = process, .base = window << c->pte_shift, .content = (uint32_t)content };
	return segment_pmd_kind(c, &at);
}

/* Every populated PTE window of a process once, PMD-mapped ones skipped if the rule says so. */
static void identical_pass(struct model_context *c, struct identical *x, struct model_sharing *out,
			   size_t rule_index, bool counting)
{
	const struct snapshot *s = c->snapshot;
	unsigned k = c->chunks_per_window_shift;
	for (size_t i = 0; i < s->process_count; i++) {
		const struct process *p = &s->processes[i];
		bool any = false;
		uint64_t last = 0;
		x->vma_cursor = 0;
		for (size_t r = 0; r < p->run_count; r++) {
			const struct pagemap_run *run = &p->runs[r];
			bool check_pmd = out->rule->skip_pmd_mapped &&
					 !(k == 0 && model_range_pmd_none(c, p, run->chunk << PAGEMAP_CHUNK_SHIFT,
									  (run->chunk + run->length) << PAGEMAP_CHUNK_SHIFT));
			for (uint64_t n = 0; n < run->length; n++) {
				uint64_t window = (run->chunk + n) >> k;
				if (any && window == last)
					continue;
				any = true;
				last = window;
				long content = k == 0 ? (long)(run->content + n) : -1;
				if (check_pmd && pass_pmd_kind(c, i, window, content) != PMD_NONE)
					continue;
				const struct vma *whole = k == 0 ? chunk_vma_from(p, &x->vma_cursor, window << PAGEMAP_CHUNK_SHIFT) : NULL;
				struct window_class *class = window_class(c, x, i, window, content, whole, counting);
				if (counting) {
					class->members++;
					continue;
				}
				c->result->process_figures[i].sharable_pages[rule_index] += x->credits[class - x->classes];
			}
		}
		if (counting)
			x->window_ends[i] = x->windows;
	}
}

/* Each process credited its windows' shares, in the order the counting
 * pass met them (the order a second pass would): the same sums. */
static void credit_counted_windows(struct model_context *c, const struct identical *x, size_t rule_index)
{
	size_t w = 0;
	for (size_t i = 0; i < c->snapshot->process_count; i++) {
		double *share = &c->result->process_figures[i].sharable_pages[rule_index];
		for (; w < x->window_ends[i]; w++)
			*share += x->credits[x->window_classes[w]];
	}
}

/* The chunks the processes reference: no fewer than their windows, which
 * are no fewer than the identical rule's classes. */
static uint64_t chunks_referenced(const struct snapshot *s)
{
	uint64_t chunks = 0;
	for (size_t i = 0; i < s->process_count; i++)
		for (size_t r = 0; r < s->processes[i].run_count; r++)
			chunks += s->processes[i].runs[r].length;
	return chunks;
}

/* Σ over distinct windows of (count - 1), exact. */
static void share_identical(struct model_context *c, struct model_sharing *out, size_t rule_index)
{
	const struct snapshot *s = c->snapshot;
	size_t slots = (size_t)1 << (c->pte_shift - 12);
	if (s->process_count >= UINT32_MAX)    /* classes name processes in 32 bits */
		out_of_memory();
	struct identical x = {
		.window_classes = xreallocarray(NULL, 1, sizeof(*x.window_classes)),
		.window_ends = xcalloc(s->process_count + 1, sizeof(*x.window_ends)),
		.content_sums = xcalloc(s->content_count + 1, sizeof(*x.content_sums)),
		.summed = xcalloc(s->content_count + 1, sizeof(*x.summed)),
		.content_class = xcalloc(s->content_count + 1, sizeof(*x.content_class)),
		.content_perms = xcalloc(s->content_count + 1, sizeof(*x.content_perms)),
		.slot_hashes = make_slot_hashes(c),
		.fields = { xreallocarray(NULL, 3 * slots, sizeof(uint64_t)), xreallocarray(NULL, 3 * slots, sizeof(uint64_t)) },
		.pieces = { xcalloc(slots, sizeof(struct window_piece)), xcalloc(slots, sizeof(struct window_piece)) },
	};
	x.zero_sums = make_zero_sums(c, x.slot_hashes);
	/* when the chunks referenced are not many more than the contents the
	 * snapshot holds, 4 bytes a window is little beside them (processes
	 * that map one large region alike are not): every window's class is
	 * noted */
	uint64_t chunks = chunks_referenced(s);
	x.note_all = chunks <= 2 * (uint64_t)s->content_count + ((uint64_t)1 << 20);
	/* most windows are one chunk, classed by its content: the class table
	 * is made for as many classes as contents (or chunks) at once, as each
	 * growth rehashes every class, reading them far apart */
	hash_reserve(&x.table, (size_t)(chunks < s->content_count ? chunks : s->content_count), class_hash, &x);
	identical_pass(c, &x, out, rule_index, true);
	x.credits = xreallocarray(NULL, x.count + 1, sizeof(*x.credits));
	for (size_t i = 0; i < x.count; i++)
		x.credits[i] = (double)(x.classes[i].members - 1) / (double)x.classes[i].members;
	if (x.window_classes && x.note_all)
		credit_counted_windows(c, &x, rule_index);
	else
		identical_pass(c, &x, out, rule_index, false);
	for (size_t i = 0; i < x.count; i++)
		out->sharable_pages += x.classes[i].members - 1;
	out->eligible_vmas = 0;
	hash_free(&x.table);
	FREE_ALL(x.classes, x.credits, x.content_sums, x.summed, x.slot_hashes, x.zero_sums, x.fields[0], x.fields[1],
		 x.pieces[0], x.pieces[1], x.window_classes, x.window_ends, x.content_class, x.content_perms);
}

/* The most a process without pagemap can be credited under a rule: its
 * page tables (VmPTE, else the smaps-only upper bound), less, for a rule of
 * PTE windows, the higher-level pages it surely has. */
static double process_share_cap(const struct model_context *c, const struct sharing_rule *rule,
				const struct model_process *mp)
{
	double pages = (mp->has_vmpte ? (double)mp->vmpte_bytes : mp->pagetable_estimate.upper) / MODEL_PAGE_BYTES;
	if (rule->window_shift == c->pte_shift && !rule->shares_subtree)
		pages -= (double)mp->upper_pages_at_least;
	return pages > 0 ? pages : 0;
}

/* Without pagemap a process's share is an upper bound: never more than its
 * own page tables.  Returns the rule's figure after the caps (rounded up,
 * so it stays an upper bound). */
static uint64_t cap_processes(struct model_context *c, struct model_sharing *out, size_t rule_index)
{
	double total = 0;
	for (size_t i = 0; i < c->snapshot->process_count; i++) {
		struct model_process *mp = &c->result->process_figures[i];
		if (!mp->exact) {
			double cap = process_share_cap(c, out->rule, mp);
			if (mp->sharable_pages[rule_index] > cap)
				mp->sharable_pages[rule_index] = cap;
		}
		total += mp->sharable_pages[rule_index];
	}
	uint64_t bound = (uint64_t)total;
	bound += (double)bound < total - 1e-6;
	return bound < out->sharable_pages ? bound : out->sharable_pages;
}

/* Lower a rule's figure to bound, and its processes' and files' shares by
 * the same factor, so that no process or file is credited more than the
 * whole (a process's share stays within 100 % of the tables too). */
static void cap_sharing(struct model_context *c, struct model_sharing *out, size_t rule_index, uint64_t bound,
			bool scale_processes)
{
	double factor = (double)bound / (double)out->sharable_pages;
	for (size_t i = 0; scale_processes && i < c->snapshot->process_count; i++)
		c->result->process_figures[i].sharable_pages[rule_index] *= factor;
	for (size_t f = 0; f < out->file_count; f++)
		out->files[f].sharable_pages = (uint64_t)((unsigned __int128)out->files[f].sharable_pages * bound /
							  out->sharable_pages);
	out->pages_in_cow_vmas = (uint64_t)((unsigned __int128)out->pages_in_cow_vmas * bound / out->sharable_pages);
	out->sharable_pages = bound;
}

/* Without PID/pmd_mapped, smaps says how many windows of a VMA PMDs map
 * but not which, where more look so (walk.c resolve_pmd_windows): each
 * window that may be taken wrongly moves a figure that skips PMD-mapped
 * windows by at most one page, either way.  Never above the tables. */
static void widen_for_ambiguous_windows(const struct model_result *r, struct model_sharing *out)
{
	uint64_t spread = r->pmd_ambiguous_windows, tables = r->pagetable_bytes / MODEL_PAGE_BYTES;
	out->exact = false;
	out->sharable_pages_lower = out->sharable_pages > spread ? out->sharable_pages - spread : 0;
	out->sharable_pages = out->sharable_pages + spread < tables ? out->sharable_pages + spread : tables;
}

/* Without pagemap everywhere the figure is an upper bound: no process is
 * credited more than its own page tables, and the whole never more than
 * the tables' upper bound (100 %); then bytes, and the files kept. */
static void finish_rule(struct model_context *c, struct model_sharing *out, size_t k, bool all_pagemap)
{
	struct model_result *r = c->result;
	if (!all_pagemap && out->sharable_pages) {
		uint64_t bound = cap_processes(c, out, k);
		if (bound < out->sharable_pages)
			cap_sharing(c, out, k, bound, false);
		uint64_t tables_bound = (uint64_t)(r->pagetable_whole.upper / MODEL_PAGE_BYTES);
		if (out->sharable_pages > tables_bound)
			cap_sharing(c, out, k, tables_bound, true);
	}
	if (out->exact || out->sharable_pages_lower > out->sharable_pages)
		out->sharable_pages_lower = out->sharable_pages;
	if (all_pagemap && out->available && r->pmd_ambiguous_windows &&
	    (out->rule->skip_pmd_mapped || out->rule->partners == PARTNERS_CONTENT))
		widen_for_ambiguous_windows(r, out);
	out->sharable_bytes = out->sharable_pages * MODEL_PAGE_BYTES;
	out->sharable_bytes_lower = out->sharable_pages_lower * MODEL_PAGE_BYTES;
	size_t keep = c->options->top_files ? c->options->top_files : 10;
	if (out->file_count > keep)
		out->file_count = keep;
}

void model_sharing(struct model_context *c)
{
	struct model_result *r = c->result;
	bool all_pagemap = r->processes_with_pagemap == r->processes;
	r->sharing_base_bytes = all_pagemap ? (double)r->pagetable_bytes : r->pagetable_whole.upper;
	/* the rules are worked out apart: the partner rules first, while their
	 * members are kept, which are freed before the content rule's tables
	 * are made */
	struct rule_members *members = gather_members(c);
	for (size_t k = 0; k < r->sharing_count; k++) {
		struct model_sharing *out = &r->sharing[k];
		if (out->rule->partners == PARTNERS_CONTENT)
			continue;
		out->available = true;
		out->exact = all_pagemap;
		share_by_partners(c, out, k, &members[k]);
		finish_rule(c, out, k, all_pagemap);
		FREE_ALL(members[k].members);
	}
	free(members);
	for (size_t k = 0; k < r->sharing_count; k++) {
		struct model_sharing *out = &r->sharing[k];
		if (out->rule->partners != PARTNERS_CONTENT)
			continue;
		/* without PFNs two windows look alike by their slot pattern
		 * only: an upper bound; without pagemap there is nothing */
		out->available = r->has_pagemap;
		out->exact = r->has_pfns && all_pagemap;
		if (out->available)
			share_identical(c, out, k);
		finish_rule(c, out, k, all_pagemap);
	}
}
