/*
 * model/pfn_table.c - what the model knows about each physical page, kept
 * in runs of consecutive PFNs whose facts are the same (model_internal.h,
 * struct pfn_run), as the snapshot keeps kpages: memory follows what is
 * distinct, not the pages.
 *
 * A run never crosses the edge of a "record run": records of one chunk
 * content that map consecutive PFNs at consecutive addresses with the same
 * flag bits and no VMA edge between them.  The rules later set facts (the
 * anon_vma owner, reclaim's first mapping) one segment at a time, and a
 * segment (model/walk.c) is a content's records inside one VMA, so it holds
 * whole record runs and sets the same fact on every page of a run: a run is
 * never split after it is built.  What varies page by page inside a run
 * follows from its first page: the file offset goes up by one a page, and
 * only the first page can sit at a PMD window's first slot (a window starts
 * a chunk, and a chunk starts a record run).
 *
 * Building: each record run adds its references to [pfn, pfn + pages); a
 * sweep over the runs sorted by PFN cuts the PFN line at every run's edges
 * and at the snapshot's kpage runs' edges, summing the references held
 * between two cuts.  O(R log R) in the record runs R, no hash, and nothing
 * kept per page.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_internal.h"

/* Records mapping [pfn, pfn + pages), each held `references` times. */
struct record_run {
	uint64_t pfn;
	uint64_t references;
	uint32_t pages;
	bool anon;                      /* pagemap bit 61 clear */
};

struct record_runs {
	struct record_run *items;
	size_t count;
};

static bool record_has_pfn(const struct pagemap_record *r)
{
	return (r->entry & PAGEMAP_PRESENT) && (r->entry & PAGEMAP_PFN_MASK);
}

/* Does record b continue record a's run (a the one before it)?  (cut: a
 * VMA edge before b) */
static bool continues(const struct pagemap_record *a, const struct pagemap_record *b, bool cut)
{
	return !cut && record_has_pfn(a) && (b->entry & PAGEMAP_PFN_MASK) == (a->entry & PAGEMAP_PFN_MASK) + 1 &&
	       b->vaddr == a->vaddr + 4096 && ((a->entry ^ b->entry) & ~PAGEMAP_PFN_MASK) == 0;
}

/* The record runs, in an array of their size when out->items is given
 * (else only counted). */
static void collect_record_runs(const struct snapshot *s, const uint64_t *cuts, size_t cut_count,
				struct record_runs *out)
{
	size_t next_cut = 0;
	out->count = 0;
	for (size_t id = 0; id < s->content_count; id++) {
		const struct pagemap_content *pc = &s->contents[id];
		if (!pc->references || pc->without_pfns)
			continue;
		struct content_cursor cursor;
		struct pagemap_record record, previous = { 0 };
		content_cursor_start(&cursor, s, (uint32_t)id, 0, pc->count);
		for (uint32_t k = 0; content_cursor_next(&cursor, &record); k++, previous = record) {
			uint64_t key = PFN_CUT_KEY(id, k);
			while (next_cut < cut_count && cuts[next_cut] < key)
				next_cut++;
			bool cut = next_cut < cut_count && cuts[next_cut] == key;
			if (!record_has_pfn(&record))
				continue;
			if (k > 0 && continues(&previous, &record, cut)) {
				if (out->items)
					out->items[out->count - 1].pages++;
				continue;
			}
			if (out->items)
				out->items[out->count] = (struct record_run){
					.pfn = record.entry & PAGEMAP_PFN_MASK, .references = pc->references,
					.pages = 1, .anon = !(record.entry & PAGEMAP_FILE_OR_SHARED) };
			out->count++;
		}
	}
}

/* ---- the sweep: record runs open at their first PFN, close at their end ---- */

/* Open runs, a min-heap by end PFN. */
struct open_runs {
	const struct record_run **heap;
	size_t count, capacity;
	uint64_t references, anon;      /* summed over the open runs */
};

static uint64_t run_end(const struct record_run *r)
{
	return r->pfn + r->pages;
}

static void open_run(struct open_runs *o, const struct record_run *r)
{
	size_t at = o->count;
	ARRAY_RESERVE(o->heap, o->capacity, o->count + 1);
	o->count++;
	while (at > 0 && run_end(o->heap[(at - 1) / 2]) > run_end(r)) {
		o->heap[at] = o->heap[(at - 1) / 2];
		at = (at - 1) / 2;
	}
	o->heap[at] = r;
	o->references += r->references;
	o->anon += r->anon ? r->references : 0;
}

static void close_first(struct open_runs *o)
{
	const struct record_run *closed = o->heap[0], *last = o->heap[--o->count];
	size_t at = 0;
	for (;;) {
		size_t child = 2 * at + 1;
		if (child >= o->count)
			break;
		if (child + 1 < o->count && run_end(o->heap[child + 1]) < run_end(o->heap[child]))
			child++;
		if (run_end(o->heap[child]) >= run_end(last))
			break;
		o->heap[at] = o->heap[child];
		at = child;
	}
	if (o->count)
		o->heap[at] = last;
	o->references -= closed->references;
	o->anon -= closed->anon ? closed->references : 0;
}

/* What the model reads of kpages (model/walk.c): runs of kpages that differ
 * only in other flags make one PFN run. */
struct kpage_facts {
	uint64_t mapcount;
	bool anon, zero_page;
};

/* The facts at `pfn` and the PFN where the kpage run (or the gap before
 * the next one) holding it ends; *kpage only moves forward. */
static uint64_t facts_at(const struct snapshot *s, size_t *kpage, uint64_t pfn, struct kpage_facts *facts)
{
	const struct kpage_run *runs = s->kpage_runs;
	while (*kpage < s->kpage_run_count && runs[*kpage].pfn + runs[*kpage].pages <= pfn)
		(*kpage)++;
	const struct kpage_run *k = *kpage < s->kpage_run_count ? &runs[*kpage] : NULL;
	*facts = (struct kpage_facts){ 0 };
	if (!k)
		return UINT64_MAX;
	if (k->pfn > pfn)
		return k->pfn;
	*facts = (struct kpage_facts){ k->mapcount, k->flags >> KPF_ANON & 1, k->flags >> KPF_ZERO_PAGE & 1 };
	return k->pfn + k->pages;
}

static bool same_facts(const struct kpage_facts *a, const struct kpage_facts *b)
{
	return a->mapcount == b->mapcount && a->anon == b->anon && a->zero_page == b->zero_page;
}

/* [from, to) held by the open runs, cut again where the kpage facts change
 * (only counted while table->runs is NULL). */
static void add_piece(struct pfn_table *table, const struct snapshot *s, size_t *kpage, uint64_t from, uint64_t to,
		      const struct open_runs *o)
{
	while (from < to) {
		struct kpage_facts facts, next;
		uint64_t end = facts_at(s, kpage, from, &facts);
		while (end < to) {
			uint64_t next_end = facts_at(s, kpage, end, &next);
			if (!same_facts(&facts, &next))
				break;
			end = next_end;
		}
		end = end < to ? end : to;
		if (table->runs)
			table->runs[table->count] = (struct pfn_run){
				.pfn = from, .pages = (uint16_t)(end - from), .records = o->references,
				.anon_records = o->anon, .mapcount = facts.mapcount, .kpage_anon = facts.anon,
				.zero_page = facts.zero_page };
		table->count++;
		table->pages += end - from;
		from = end;
	}
}

static void sweep(struct pfn_table *table, const struct snapshot *s, const struct record_runs *runs)
{
	struct open_runs o = { 0 };
	size_t next = 0, kpage = 0;
	uint64_t at = 0;
	while (next < runs->count || o.count) {
		uint64_t start = next < runs->count ? runs->items[next].pfn : UINT64_MAX;
		uint64_t end = o.count ? run_end(o.heap[0]) : UINT64_MAX;
		uint64_t edge = start < end ? start : end;
		if (o.count && edge > at)
			add_piece(table, s, &kpage, at, edge, &o);
		at = edge;
		while (o.count && run_end(o.heap[0]) == edge)
			close_first(&o);
		while (next < runs->count && runs->items[next].pfn == edge)
			open_run(&o, &runs->items[next++]);
	}
	free(o.heap);
}

void pfn_table_runs_most(const struct snapshot *s, uint64_t *record_runs, uint64_t *pfn_runs)
{
	/* a record run starts at most once per extent of ascending PFNs, at
	 * every record of an extent of one entry repeated (its PFN does not go
	 * up by one) or of one whose PFN would pass 55 bits (the entry's flags
	 * change there), and at each cut, a VMA edge, which falls in one
	 * content: two a VMA.  A PFN run is a stretch between two record runs'
	 * or kpage runs' edges that holds a record's page. */
	uint64_t records = 0, starts = 2 * (uint64_t)s->vma_count;
	for (size_t i = 0; i < s->content_count; i++) {
		const struct pagemap_content *pc = &s->contents[i];
		if (!pc->references || pc->without_pfns)
			continue;       /* as collect_record_runs */
		records += pc->count;
		const struct pagemap_extent *e = s->content_extents + pc->first_extent;
		for (uint32_t k = 0; k < pc->extent_count; k++)
			starts += e[k].step && (e[k].entry & PAGEMAP_PFN_MASK) + e[k].length <= PAGEMAP_PFN_MASK + 1
					  ? 1 : e[k].length;
	}
	*record_runs = records < starts ? records : starts;
	uint64_t pieces = 2 * *record_runs + 2 * (uint64_t)s->kpage_run_count + 1;
	*pfn_runs = records < pieces ? records : pieces;
}

void pfn_table_build(struct pfn_table *table, const struct snapshot *s, const uint64_t *cuts, size_t cut_count)
{
	struct record_runs runs = { 0 };
	memset(table, 0, sizeof(*table));
	collect_record_runs(s, cuts, cut_count, &runs);
	runs.items = xcalloc(runs.count + 1, sizeof(*runs.items));
	collect_record_runs(s, cuts, cut_count, &runs);
	array_sort_by_u64(runs.items, runs.count, sizeof(*runs.items), offsetof(struct record_run, pfn));
	/* twice: the runs counted, then made in an array of their size (a
	 * doubling array holds up to twice its runs, and three times as it moves) */
	sweep(table, s, &runs);
	table->capacity = table->count + 1;
	table->runs = xcalloc(table->capacity, sizeof(*table->runs));
	table->count = table->pages = 0;
	sweep(table, s, &runs);
	free(runs.items);
	table->lasts = xcalloc(table->count + 1, sizeof(*table->lasts));
	for (size_t r = 0; r < table->count; r++)
		table->lasts[r] = table->runs[r].pfn + table->runs[r].pages - 1;
}

static uint64_t last_of(const void *last)
{
	return *(const uint64_t *)last;
}

/* The first run ending at or above pfn (count: none), while they are by PFN. */
static size_t run_at_or_after(const struct pfn_table *table, uint64_t pfn)
{
	return array_lower_bound_cold(table->lasts, table->count, sizeof(*table->lasts), last_of, pfn);
}

struct pfn_run *pfn_table_find(const struct pfn_table *table, uint64_t pfn)
{
	size_t i = run_at_or_after(table, pfn);
	return i < table->count && table->runs[i].pfn <= pfn ? &table->runs[i] : NULL;
}

/* Each record's run (record_pfns: index + 1), and the runs put in the order
 * the records first name them: the order a per-page table kept its pages,
 * so whatever sums over the runs adds its terms in the same order. */
void pfn_table_number(struct pfn_table *table, const struct snapshot *s, uint32_t *record_pfns)
{
	uint32_t *number = xcalloc(table->count + 1, sizeof(*number));   /* sorted index -> order + 1 */
	uint32_t next = 0;
	size_t i = 0;                   /* the last record's run: the next record's too, mostly */
	for (size_t id = 0; id < s->content_count; id++) {
		const struct pagemap_content *pc = &s->contents[id];
		if (!pc->references || pc->without_pfns)
			continue;
		struct content_cursor cursor;
		struct pagemap_record record;
		content_cursor_start(&cursor, s, (uint32_t)id, 0, pc->count);
		for (uint32_t k = 0; content_cursor_next(&cursor, &record); k++) {
			if (!record_has_pfn(&record))
				continue;
			uint64_t pfn = record.entry & PAGEMAP_PFN_MASK;
			/* every record's PFN lies in a run: the runs were made from them */
			if (i >= table->count || pfn < table->runs[i].pfn || pfn - table->runs[i].pfn >= table->runs[i].pages)
				i = run_at_or_after(table, pfn);
			if (!number[i])
				number[i] = ++next;
			record_pfns[pc->first + k] = number[i];
		}
	}
	/* every run is named (it was made from records): move each to its place */
	for (size_t i = 0; i < table->count; i++) {
		while (number[i] - 1 != i) {
			size_t to = number[i] - 1;
			struct pfn_run held = table->runs[to];
			uint32_t held_number = number[to];
			table->runs[to] = table->runs[i];
			number[to] = number[i];
			table->runs[i] = held;
			number[i] = held_number;
		}
	}
	free(number);
	free(table->lasts);     /* the runs are out of PFN order now */
	table->lasts = NULL;
}

void pfn_table_free(struct pfn_table *table)
{
	FREE_ALL(table->runs, table->lasts);
	memset(table, 0, sizeof(*table));
}
