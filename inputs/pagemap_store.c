/*
 * inputs/pagemap_store.c - pagemap records kept once per distinct content.
 *
 * Records arrive process by process in ascending address order (a member
 * of a snapshot, or a hand-built array).  They are gathered chunk by chunk
 * (2 MiB of address space) as extents (inputs/snapshot.h), encoded as they
 * come; a finished chunk's extents are looked up in a hash table
 * (base/hash.h) of the contents seen so far (hashed, then compared extent
 * by extent, so a collision costs time, never a wrong answer) and either
 * counted once more or added.
 * A process keeps runs of chunks: a child whose chunks
 * hold the same contents as its parent's, in the same order, needs one run
 * per VMA.  Memory follows the distinct contents, never the mappings.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/hash.h"
#include "internal.h"

/* The chunk being gathered, as extents: encoded[0 .. extents), the last
 * one open (its length and step are here until it closes). */
struct gathering {
	uint64_t chunk;
	uint64_t last_vaddr, last_entry;        /* the last record's (whole address) */
	uint64_t step;                          /* the open extent's, once it has two records */
	uint32_t count;                         /* records; 0: nothing gathered */
	uint32_t extents;
	uint32_t length;                        /* the open extent's records */
};

/* A chunk gathered whose lookup waits until the next one is gathered: its
 * slot in the table, a cache miss, is fetched meanwhile. */
struct waiting {
	uint64_t chunk, hash;
	uint32_t count, extents;        /* count 0: none waits */
};

struct pagemap_index {
	struct hash_table table;        /* contents by the hash of their extents */
	uint64_t *hashes;               /* per content, for growing the table */
	size_t content_capacity, hash_capacity, extent_capacity;
	struct gathering gathering;
	struct waiting waiting;
	unsigned gathering_in;          /* encoded[gathering_in]; the other holds the waiting chunk */
	struct pagemap_extent encoded[2][PAGEMAP_CHUNK_BYTES / 4096];
};

#define CHUNK_RECORDS_MOST (PAGEMAP_CHUNK_BYTES / 4096)

/* A new extent of one record, at its rank in the chunk. */
static inline void open_extent(struct pagemap_extent *out, struct gathering *g, uint64_t vaddr, uint64_t entry)
{
	out[g->extents++] = (struct pagemap_extent){ .entry = entry,
						     .offset = (uint32_t)(vaddr & (PAGEMAP_CHUNK_BYTES - 1)),
						     .length = 1, .rank = g->count & 0x7fff };
	g->length = 1;
	g->step = 0;
}

static inline void close_extent(struct pagemap_extent *out, const struct gathering *g)
{
	out[g->extents - 1].length = (uint16_t)g->length;
	out[g->extents - 1].step = g->step & 1;
}

/* Does the record after the chunk's last one continue the open extent (the
 * next page, the entry equal or one more: the second record decides which,
 * and every later one must keep to it)?  If so it is counted in. */
static inline bool extent_continues(struct gathering *g, uint64_t vaddr, uint64_t entry)
{
	uint64_t step = entry - g->last_entry;
	if (vaddr != g->last_vaddr + 4096 || step > 1 || (g->length > 1 && step != g->step))
		return false;
	g->step = step;
	g->length++;
	return true;
}

/* One more record of the chunk: the open extent grows or a new one opens. */
static inline void gather_record(struct pagemap_extent *out, struct gathering *g, uint64_t vaddr, uint64_t entry)
{
	if (!g->count || !extent_continues(g, vaddr, entry)) {
		if (g->count)
			close_extent(out, g);
		open_extent(out, g, vaddr, entry);
	}
	g->last_vaddr = vaddr;
	g->last_entry = entry;
	g->count++;
}

uint32_t pagemap_extents_encode(const struct pagemap_record *records, uint32_t count, struct pagemap_extent *out)
{
	struct gathering g = { 0 };
	for (uint32_t i = 0; i < count; i++)
		gather_record(out, &g, records[i].vaddr, records[i].entry);
	if (count)
		close_extent(out, &g);
	return g.extents;
}

/* One word an extent: its first entry with the page's offset in the chunk
 * (bits 12-20) moved to bits 40-48 and length and step to bits 49-59, where a
 * PFN (or a swap offset) rarely reaches; when it does two extents may give
 * one word, which costs a compare (equal hashes are compared extent by
 * extent anyway), never a wrong answer. */
static inline uint64_t extent_word(const struct pagemap_extent *e)
{
	return e->entry ^ (uint64_t)e->offset << 28 ^ (uint64_t)(e->length << 1 | e->step) << 49;
}

/* One lane's step: the extent's word in, one multiply. */
static inline uint64_t lane_step(uint64_t lane, const struct pagemap_extent *e)
{
	lane = (lane ^ extent_word(e)) * UINT64_C(0xff51afd7ed558ccd);
	return lane << 29 | lane >> 35;
}

/* Four lanes, extents i, i + 1, i + 2, i + 3, none waiting on another,
 * mixed at the end.  A chunk is hashed as extents, gathered as its records
 * stream by: a chunk of one run of pages is a word or two. */
uint64_t pagemap_extents_hash(const struct pagemap_extent *extents, uint32_t count)
{
	uint64_t a = count, b = UINT64_C(0x9e3779b97f4a7c15), c = UINT64_C(0xc4ceb9fe1a85ec53), d = 1;
	uint32_t i = 0;
	for (; i + 4 <= count; i += 4) {
		a = lane_step(a, &extents[i]);
		b = lane_step(b, &extents[i + 1]);
		c = lane_step(c, &extents[i + 2]);
		d = lane_step(d, &extents[i + 3]);
	}
	for (; i < count; i++)
		a = lane_step(a, &extents[i]);
	return hash_u64(a ^ hash_u64(b ^ hash_u64(c ^ hash_u64(d))));
}

/* Does the kept content hold exactly these extents (so these records: the
 * encoding is canonical)? */
static bool content_equals(const struct snapshot *s, uint32_t content, const struct pagemap_extent *extents,
			   uint32_t extent_count, uint32_t record_count)
{
	const struct pagemap_content *c = &s->contents[content];
	return c->count == record_count && c->extent_count == extent_count &&
	       !memcmp(s->content_extents + c->first_extent, extents, extent_count * sizeof(*extents));
}

static uint64_t content_hash(const void *context, size_t index)
{
	return ((const struct pagemap_index *)context)->hashes[index];
}

/* Does any of the extents hold a present record with a PFN other than 0? */
static bool extents_have_pfns(const struct pagemap_extent *extents, uint32_t count)
{
	for (uint32_t k = 0; k < count; k++) {
		const struct pagemap_extent *e = &extents[k];
		/* a step of one from PFN 0 reaches PFN 1 */
		if ((e->entry & PAGEMAP_PRESENT) && ((e->entry & PAGEMAP_PFN_MASK) || (e->step && e->length > 1)))
			return true;
	}
	return false;
}

/* The id of the content of these extents (a chunk's count records, h
 * their hash), added if new. */
static size_t find_or_add(struct snapshot *s, struct pagemap_index *x, const struct pagemap_extent *extents,
			  uint32_t n, uint32_t count, uint64_t h)
{
	struct hash_probe probe;
	for (size_t id = hash_first(&x->table, h, &probe); id != HASH_NONE; id = hash_next(&x->table, &probe))
		if (x->hashes[id] == h && content_equals(s, (uint32_t)id, extents, n, count))
			return id;
	if (s->content_count >= UINT32_MAX - 1)
		out_of_memory();        /* content ids are 32 bits */
	ARRAY_RESERVE(s->contents, x->content_capacity, s->content_count + 1);
	ARRAY_RESERVE(x->hashes, x->hash_capacity, s->content_count + 1);
	ARRAY_RESERVE(s->content_extents, x->extent_capacity, s->content_extent_count + n);
	size_t id = s->content_count++;
	s->contents[id] = (struct pagemap_content){ .first = s->content_record_count,
						    .first_extent = s->content_extent_count,
						    .count = count, .extent_count = n,
						    .without_pfns = !extents_have_pfns(extents, n) };
	x->hashes[id] = h;
	memcpy(s->content_extents + s->content_extent_count, extents, n * sizeof(*extents));
	s->content_extent_count += n;
	s->content_record_count += count;
	hash_add(&x->table, h, id, content_hash, x);
	return id;
}

void pagemap_content_decode(const struct snapshot *s, uint32_t content, struct pagemap_record *out)
{
	const struct pagemap_content *c = &s->contents[content];
	const struct pagemap_extent *e = s->content_extents + c->first_extent;
	for (uint32_t k = 0; k < c->extent_count; k++) {
		uint64_t vaddr = e[k].offset, entry = e[k].entry, step = e[k].step;
		for (uint32_t i = 0; i < e[k].length; i++, vaddr += 4096, entry += step)
			*out++ = (struct pagemap_record){ vaddr, entry };
	}
}

/* Runs grow by doubling; their capacity is the next power of two of the count. */
void pagemap_push_run(struct process *p, const struct pagemap_run *run)
{
	if ((p->run_count & (p->run_count - 1)) == 0)
		p->runs = xreallocarray(p->runs, p->run_count ? p->run_count * 2 : 4, sizeof(*p->runs));
	p->runs[p->run_count++] = *run;
}

static void append_chunk(struct process *p, uint64_t chunk, uint32_t content)
{
	struct pagemap_run *last = p->run_count ? &p->runs[p->run_count - 1] : NULL;
	if (last && last->chunk + last->length == chunk && last->content + last->length == content) {
		last->length++;
		return;
	}
	pagemap_push_run(p, &(struct pagemap_run){ chunk, 1, content });
}

/* The waiting chunk's content found or added, p's runs extended. */
static void resolve_waiting(struct snapshot *s, struct pagemap_index *x, struct process *p)
{
	struct waiting *w = &x->waiting;
	if (!w->count)
		return;
	size_t id = find_or_add(s, x, x->encoded[x->gathering_in ^ 1], w->extents, w->count, w->hash);
	append_chunk(p, w->chunk, (uint32_t)id);
	s->contents[id].references++;
	w->count = 0;
}

/* The chunk gathered waits, its table slot fetched; the one waiting before
 * is looked up now, in order, so contents are numbered as they come.  g is
 * a copy: the gathering loop keeps its own in registers. */
static __attribute__((noinline)) void finish_chunk(struct snapshot *s, struct pagemap_index *x, struct process *p,
						   struct gathering g)
{
	struct pagemap_extent *out = x->encoded[x->gathering_in];
	close_extent(out, &g);
	uint64_t h = pagemap_extents_hash(out, g.extents);
	if (x->table.slots)
		__builtin_prefetch(&x->table.slots[h & x->table.mask]);
	resolve_waiting(s, x, p);
	x->waiting = (struct waiting){ g.chunk, h, g.count, g.extents };
	x->gathering_in ^= 1;
}

uint32_t pagemap_add_chunk(struct snapshot *s, const struct pagemap_record *records, uint32_t count)
{
	if (!s->pagemap_index)
		s->pagemap_index = xcalloc(1, sizeof(*s->pagemap_index));
	struct pagemap_index *x = s->pagemap_index;
	struct pagemap_extent *out = x->encoded[x->gathering_in];
	uint32_t n = pagemap_extents_encode(records, count, out);
	return (uint32_t)find_or_add(s, x, out, n, count, pagemap_extents_hash(out, n));
}

/* Chunk by chunk (never record by record): as many steps as the process
 * has populated chunks, 1/512 of its records at most. */
int pagemap_resolve_runs(struct snapshot *s, struct process *p, const uint32_t *content_of_chunk,
			 size_t chunk_count, size_t *bad_run)
{
	for (size_t r = 0; r < p->run_count; r++)
		if (p->runs[r].content >= chunk_count || p->runs[r].length > chunk_count - p->runs[r].content) {
			*bad_run = r;
			return -1;
		}
	struct pagemap_run *read = p->runs;
	size_t read_count = p->run_count;
	p->runs = NULL;
	p->run_count = 0;
	p->pagemap_count = 0;
	for (size_t r = 0; r < read_count; r++)
		for (uint64_t i = 0; i < read[r].length; i++) {
			uint32_t content = content_of_chunk[read[r].content + i];
			append_chunk(p, read[r].chunk + i, content);
			s->contents[content].references++;
			p->pagemap_count += s->contents[content].count;
		}
	free(read);
	return 0;
}

int pagemap_feed_begin(struct snapshot *s, struct process *p)
{
	if (!s->pagemap_index)
		s->pagemap_index = xcalloc(1, sizeof(*s->pagemap_index));
	s->pagemap_index->gathering = (struct gathering){ 0 };
	p->has_pagemap = true;
	return 0;
}

/* One record into the gathering, the chunk before finished when this one
 * starts another: false when a chunk would pass 512 records (ascending
 * page-aligned records fill a chunk at most once: only records not
 * checked can). */
static inline __attribute__((always_inline)) bool gather_one(struct snapshot *s, struct process *p,
							     struct gathering *g, uint64_t vaddr, uint64_t entry)
{
	struct pagemap_index *x = s->pagemap_index;
	if (g->count && vaddr >> PAGEMAP_CHUNK_SHIFT == g->chunk) {
		if (g->count == CHUNK_RECORDS_MOST)
			return false;
	} else if (g->count) {
		finish_chunk(s, x, p, *g);
		g->count = g->extents = 0;
	}
	g->chunk = vaddr >> PAGEMAP_CHUNK_SHIFT;
	gather_record(x->encoded[x->gathering_in], g, vaddr, entry);
	return true;
}

int pagemap_feed(struct snapshot *s, struct process *p, const struct pagemap_record *records, size_t count)
{
	struct gathering g = s->pagemap_index->gathering;
	size_t i = 0;
	while (i < count && gather_one(s, p, &g, records[i].vaddr, records[i].entry))
		i++;
	s->pagemap_index->gathering = g;
	p->pagemap_count += i;
	return i < count ? -1 : 0;
}

/* The records from i that go on the open extent (it has two or more, so
 * its step is known): the next page, the entry the step on, in its chunk,
 * below high, present or swapped (~0 + 1 is neither).  Being above an
 * aligned record already checked, each fits.  Most records of most chunks
 * end here: a run of pages with one entry, or PFNs that ascend. */
static inline __attribute__((always_inline)) size_t extent_run(const struct pagemap_record *records, size_t i,
							       size_t count, struct gathering *g, uint64_t high)
{
	uint64_t chunk_end = (g->chunk + 1) << PAGEMAP_CHUNK_SHIFT, limit = high < chunk_end ? high : chunk_end;
	uint64_t vaddr = g->last_vaddr, entry = g->last_entry, step = g->step;
	size_t from = i;
	for (; i < count; i++) {
		__builtin_prefetch(&records[i] + 256);  /* streamed from memory: a page ahead */
		if (records[i].vaddr != vaddr + 4096 || records[i].entry != entry + step || records[i].vaddr >= limit ||
		    !(records[i].entry & (PAGEMAP_PRESENT | PAGEMAP_SWAPPED)))
			break;
		vaddr += 4096;
		entry += step;
	}
	g->length += (uint32_t)(i - from);
	g->count += (uint32_t)(i - from);
	g->last_vaddr = vaddr;
	g->last_entry = entry;
	return i;
}

/*
 * Records checked as they are gathered, in one pass over records read where
 * they lie: it stops at the first that does not fit (low: above the one
 * before) or lies at or above high.
 */
int pagemap_feed_fitting(struct snapshot *s, struct process *p, const struct pagemap_record *records,
			 size_t count, uint64_t low, uint64_t high, size_t *taken)
{
	struct gathering g = s->pagemap_index->gathering;
	size_t i = 0;
	bool kept = true;       /* a chunk of more than 512 cannot be: each record is above the last */
	while (i < count) {
		if (g.count && g.length > 1 && (i = extent_run(records, i, count, &g, high)) == count)
			break;
		low = i ? records[i - 1].vaddr + 1 : low;
		if (!pagemap_record_fits(&records[i], low) || records[i].vaddr >= high ||
		    !(kept = gather_one(s, p, &g, records[i].vaddr, records[i].entry)))
			break;
		i++;
	}
	s->pagemap_index->gathering = g;
	p->pagemap_count += i;
	*taken = i;
	return kept ? 0 : -1;
}

int pagemap_feed_end(struct snapshot *s, struct process *p)
{
	struct pagemap_index *x = s->pagemap_index;
	if (x->gathering.count)
		finish_chunk(s, x, p, x->gathering);
	x->gathering.count = x->gathering.extents = 0;
	resolve_waiting(s, x, p);
	return 0;
}

void pagemap_release_process(struct snapshot *s, struct process *p)
{
	/* a stream cut short leaves its last chunk gathered waiting: looked up
	 * first, as it was when chunks were looked up at once */
	if (s->pagemap_index)
		resolve_waiting(s, s->pagemap_index, p);
	for (size_t r = 0; r < p->run_count; r++)
		for (uint64_t i = 0; i < p->runs[r].length; i++)
			s->contents[p->runs[r].content + i].references--;
	free(p->runs);
	p->runs = NULL;
	p->run_count = 0;
}

int snapshot_add_pagemap(struct snapshot *s, struct process *p,
			 const struct pagemap_record *records, size_t count)
{
	if (pagemap_feed_begin(s, p) || pagemap_feed(s, p, records, count) || pagemap_feed_end(s, p))
		return -1;
	return 0;
}

void snapshot_release_pagemaps(struct snapshot *s)
{
	for (size_t i = 0; i < s->process_count; i++) {
		free(s->processes[i].runs);
		s->processes[i].runs = NULL;
		s->processes[i].run_count = 0;
	}
	if (s->pagemap_index) {
		hash_free(&s->pagemap_index->table);
		free(s->pagemap_index->hashes);
		free(s->pagemap_index);
		s->pagemap_index = NULL;
	}
	free(s->contents);
	free(s->content_extents);
	s->contents = NULL;
	s->content_extents = NULL;
	s->content_count = s->content_record_count = s->content_extent_count = 0;
}

void pagemap_store_trim(struct snapshot *s)
{
	struct pagemap_index *x = s->pagemap_index;
	if (!x)
		return;
	/* arrays grown by doubling hold up to twice what they keep: the model's
	 * tables come next, and memory should follow the information */
	s->contents = xreallocarray(s->contents, s->content_count + 1, sizeof(*s->contents));
	x->hashes = xreallocarray(x->hashes, s->content_count + 1, sizeof(*x->hashes));
	x->content_capacity = x->hash_capacity = s->content_count + 1;
	s->content_extents = xreallocarray(s->content_extents, s->content_extent_count + 1,
					   sizeof(*s->content_extents));
	x->extent_capacity = s->content_extent_count + 1;
}

uint64_t pagemap_kept_bytes(const struct snapshot *s)
{
	const struct pagemap_index *x = s->pagemap_index;
	if (!x)
		return 0;
	return (uint64_t)x->content_capacity * (sizeof(*s->contents) + sizeof(*x->hashes)) +
	       (uint64_t)x->extent_capacity * sizeof(*s->content_extents) +
	       (x->table.slots ? (uint64_t)(x->table.mask + 1) * sizeof(*x->table.slots) : 0) + sizeof(*x);
}

static uint64_t run_end(const void *element)
{
	const struct pagemap_run *run = element;
	return run->chunk + run->length;
}

/* The run holding chunk, or the first run after it (run_count if none). */
static size_t run_at_or_after(const struct process *p, uint64_t chunk)
{
	return array_lower_bound_cold(p->runs, p->run_count, sizeof(*p->runs), run_end, chunk + 1);
}

long process_chunk_content(const struct process *p, uint64_t chunk)
{
	size_t r = run_at_or_after(p, chunk);
	if (r == p->run_count || p->runs[r].chunk > chunk)
		return -1;
	return (long)(p->runs[r].content + (chunk - p->runs[r].chunk));
}

int pagemap_content_record_from(const struct snapshot *s, uint32_t content, uint64_t offset,
				struct pagemap_record *record)
{
	const struct pagemap_content *c = &s->contents[content];
	const struct pagemap_extent *extents = s->content_extents + c->first_extent;
	size_t k = !offset ? 0 : array_lower_bound(extents, c->extent_count, sizeof(*extents), pagemap_extent_last, offset);
	if (k == c->extent_count)
		return 0;
	const struct pagemap_extent *e = &extents[k];
	uint64_t i = pagemap_extent_records_below(e, offset);
	*record = (struct pagemap_record){ e->offset + i * 4096, e->entry + i * e->step };
	return 1;
}

int process_next_record(const struct snapshot *s, const struct process *p, uint64_t vaddr,
			uint64_t limit, struct pagemap_record *record)
{
	uint64_t chunk = vaddr >> PAGEMAP_CHUNK_SHIFT;
	for (size_t r = run_at_or_after(p, chunk); r < p->run_count; r++) {
		const struct pagemap_run *run = &p->runs[r];
		uint64_t i = chunk > run->chunk ? chunk - run->chunk : 0;
		for (; i < run->length; i++) {
			uint64_t base = (run->chunk + i) << PAGEMAP_CHUNK_SHIFT;
			if (base >= limit)
				return 0;
			struct pagemap_record found;
			if (pagemap_content_record_from(s, (uint32_t)(run->content + i), vaddr > base ? vaddr - base : 0, &found)) {
				if (base + found.vaddr >= limit)
					return 0;
				*record = (struct pagemap_record){ base + found.vaddr, found.entry };
				return 1;
			}
		}
	}
	return 0;
}
