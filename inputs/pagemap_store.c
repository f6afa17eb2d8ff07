/*
 * inputs/pagemap_store.c - pagemap records kept once per distinct content.
 *
 * Records arrive process by process in ascending address order (a member
 * of a snapshot, or a hand-built array).  They are gathered chunk by chunk
 * (2 MiB of address space); a finished chunk is looked up in a hash table
 * (base/hash.h) of the contents seen so far (hashed, then compared record by record, so
 * a collision costs time, never a wrong answer) and either counted once
 * more or added; a new content is kept as extents (inputs/snapshot.h).
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

struct pagemap_index {
	struct hash_table table;        /* contents by the hash of their extents */
	uint64_t *hashes;               /* per content, for growing the table */
	size_t content_capacity, hash_capacity, extent_capacity;
	/* the chunk being gathered */
	struct pagemap_record pending[PAGEMAP_CHUNK_BYTES / 4096];
	uint64_t pending_chunk;
	uint32_t pending_count;
	struct pagemap_extent encoded[PAGEMAP_CHUNK_BYTES / 4096]; /* ... as extents */
};

/* Does b continue the extent whose last record is a, adding step? */
static inline bool extends(const struct pagemap_record *a, const struct pagemap_record *b, uint64_t step)
{
	return b->vaddr == a->vaddr + 4096 && b->entry == a->entry + step;
}

uint32_t pagemap_extents_encode(const struct pagemap_record *records, uint32_t count, struct pagemap_extent *out)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < count;) {
		uint32_t j = i + 1;
		uint64_t step = j < count && extends(&records[i], &records[j], 1) ? 1 : 0;
		while (j < count && extends(&records[j - 1], &records[j], step))
			j++;
		out[n++] = (struct pagemap_extent){ .entry = records[i].entry, .offset = (uint32_t)records[i].vaddr,
						    .length = (uint16_t)(j - i), .step = step & 1, .rank = i & 0x7fff };
		i = j;
	}
	return n;
}

/* One word a record: the entry with the page's offset in the chunk (bits
 * 12-20) moved to bits 40-48, where a PFN (or a swap offset) rarely reaches;
 * when it does two records may give one word, which costs a compare (equal
 * hashes are compared record by record anyway), never a wrong answer. */
static inline uint64_t record_word(const struct pagemap_record *record)
{
	return record->entry ^ record->vaddr << 28;
}

/* One lane's step: the record's word in, one multiply. */
static inline uint64_t lane_step(uint64_t lane, const struct pagemap_record *record)
{
	lane = (lane ^ record_word(record)) * UINT64_C(0xff51afd7ed558ccd);
	return lane << 29 | lane >> 35;
}

/* Four lanes, records i, i + 1, i + 2, i + 3, none waiting on another,
 * mixed at the end.  The records are hashed, not their extents: a chunk
 * already kept (most chunks of processes sharing memory) is found and
 * compared without being encoded. */
uint64_t pagemap_records_hash(const struct pagemap_record *records, uint32_t count)
{
	uint64_t a = count, b = UINT64_C(0x9e3779b97f4a7c15), c = UINT64_C(0xc4ceb9fe1a85ec53), d = 1;
	uint32_t i = 0;
	for (; i + 4 <= count; i += 4) {
		a = lane_step(a, &records[i]);
		b = lane_step(b, &records[i + 1]);
		c = lane_step(c, &records[i + 2]);
		d = lane_step(d, &records[i + 3]);
	}
	for (; i < count; i++)
		a = lane_step(a, &records[i]);
	return hash_u64(a ^ hash_u64(b ^ hash_u64(c ^ hash_u64(d))));
}

/* Does the kept content hold exactly these records (as many)? */
static bool content_equals(const struct snapshot *s, uint32_t content, const struct pagemap_record *records,
			   uint32_t count)
{
	const struct pagemap_content *c = &s->contents[content];
	if (c->count != count)
		return false;
	const struct pagemap_extent *e = s->content_extents + c->first_extent;
	for (uint32_t x = 0; x < c->extent_count; x++, e++) {
		const struct pagemap_record *r = records + e->rank;
		uint64_t vaddr = e->offset, entry = e->entry, step = e->step;
		for (uint32_t i = 0; i < e->length; i++, vaddr += 4096, entry += step)
			if (r[i].vaddr != vaddr || r[i].entry != entry)
				return false;
	}
	return true;
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

/* The id of the content equal to the pending chunk, added if new. */
static size_t find_or_add(struct snapshot *s, struct pagemap_index *x)
{
	uint64_t h = pagemap_records_hash(x->pending, x->pending_count);
	struct hash_probe probe;
	for (size_t id = hash_first(&x->table, h, &probe); id != HASH_NONE; id = hash_next(&x->table, &probe))
		if (x->hashes[id] == h && content_equals(s, (uint32_t)id, x->pending, x->pending_count))
			return id;
	/* a new content: encoded now */
	uint32_t n = pagemap_extents_encode(x->pending, x->pending_count, x->encoded);
	size_t bytes = n * sizeof(*x->encoded);
	if (s->content_count >= UINT32_MAX - 1)
		out_of_memory();        /* content ids are 32 bits */
	ARRAY_RESERVE(s->contents, x->content_capacity, s->content_count + 1);
	ARRAY_RESERVE(x->hashes, x->hash_capacity, s->content_count + 1);
	ARRAY_RESERVE(s->content_extents, x->extent_capacity, s->content_extent_count + n);
	size_t id = s->content_count++;
	s->contents[id] = (struct pagemap_content){ .first = s->content_record_count,
						    .first_extent = s->content_extent_count,
						    .count = x->pending_count, .extent_count = n,
						    .without_pfns = !extents_have_pfns(x->encoded, n) };
	x->hashes[id] = h;
	memcpy(s->content_extents + s->content_extent_count, x->encoded, bytes);
	s->content_extent_count += n;
	s->content_record_count += x->pending_count;
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

static void finish_chunk(struct snapshot *s, struct pagemap_index *x, struct process *p)
{
	if (!x->pending_count)
		return;
	size_t id = find_or_add(s, x);
	x->pending_count = 0;
	append_chunk(p, x->pending_chunk, (uint32_t)id);
	s->contents[id].references++;
}

uint32_t pagemap_add_chunk(struct snapshot *s, const struct pagemap_record *records, uint32_t count)
{
	if (!s->pagemap_index)
		s->pagemap_index = xcalloc(1, sizeof(*s->pagemap_index));
	struct pagemap_index *x = s->pagemap_index;
	memcpy(x->pending, records, count * sizeof(*records));
	x->pending_count = count;
	uint32_t id = (uint32_t)find_or_add(s, x);
	x->pending_count = 0;
	return id;
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
	s->pagemap_index->pending_count = 0;
	p->has_pagemap = true;
	return 0;
}

/* Records appended to the pending chunk, each chunk finished as the next begins. */
static __attribute__((noinline)) int feed_each(struct snapshot *s, struct process *p,
					       const struct pagemap_record *records, size_t count)
{
	struct pagemap_index *x = s->pagemap_index;
	for (size_t i = 0; i < count; i++) {
		uint64_t chunk = records[i].vaddr >> PAGEMAP_CHUNK_SHIFT;
		if (x->pending_count && (chunk != x->pending_chunk ||
					 x->pending_count == sizeof(x->pending) / sizeof(x->pending[0]))) {
			/* ascending page-aligned records fill a chunk at most once */
			if (chunk == x->pending_chunk)
				return -1;
			finish_chunk(s, x, p);
		}
		x->pending_chunk = chunk;
		x->pending[x->pending_count++] = (struct pagemap_record){
			records[i].vaddr & (PAGEMAP_CHUNK_BYTES - 1), records[i].entry };
	}
	p->pagemap_count += count;
	return 0;
}

/* A stream gives records one at a time: one more of the pending chunk is
 * kept here, with no call and no register saved (feed_each is out of line). */
int pagemap_feed(struct snapshot *s, struct process *p, const struct pagemap_record *records, size_t count)
{
	struct pagemap_index *x = s->pagemap_index;
	if (count != 1 || (x->pending_count && (records[0].vaddr >> PAGEMAP_CHUNK_SHIFT != x->pending_chunk ||
						x->pending_count == sizeof(x->pending) / sizeof(x->pending[0]))))
		return feed_each(s, p, records, count);
	x->pending_chunk = records[0].vaddr >> PAGEMAP_CHUNK_SHIFT;
	x->pending[x->pending_count++] = (struct pagemap_record){ records[0].vaddr & (PAGEMAP_CHUNK_BYTES - 1),
								  records[0].entry };
	p->pagemap_count++;
	return 0;
}

int pagemap_feed_end(struct snapshot *s, struct process *p)
{
	finish_chunk(s, s->pagemap_index, p);
	return 0;
}

void pagemap_release_process(struct snapshot *s, struct process *p)
{
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

/* The run holding chunk, or the first run after it (run_count if none). */
static size_t run_at_or_after(const struct process *p, uint64_t chunk)
{
	size_t low = 0, high = p->run_count;
	while (low < high) {
		size_t middle = low + (high - low) / 2;
		if (p->runs[middle].chunk + p->runs[middle].length <= chunk)
			low = middle + 1;
		else
			high = middle;
	}
	return low;
}

long process_chunk_content(const struct process *p, uint64_t chunk)
{
	size_t r = run_at_or_after(p, chunk);
	if (r == p->run_count || p->runs[r].chunk > chunk)
		return -1;
	return (long)(p->runs[r].content + (chunk - p->runs[r].chunk));
}

/* The content's first record at or above offset in the chunk: 1 with
 * *record filled (its vaddr within the chunk), else 0.  O(log extents). */
static int content_record_from(const struct snapshot *s, uint32_t content, uint64_t offset,
			       struct pagemap_record *record)
{
	const struct pagemap_content *c = &s->contents[content];
	const struct pagemap_extent *extents = s->content_extents + c->first_extent;
	size_t k = !offset ? 0 : array_lower_bound(extents, c->extent_count, sizeof(*extents), pagemap_extent_last, offset);
	if (k == c->extent_count)
		return 0;
	const struct pagemap_extent *e = &extents[k];
	uint64_t i = offset > e->offset ? (offset - e->offset + 4095) / 4096 : 0;
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
			if (content_record_from(s, (uint32_t)(run->content + i), vaddr > base ? vaddr - base : 0, &found)) {
				if (base + found.vaddr >= limit)
					return 0;
				*record = (struct pagemap_record){ base + found.vaddr, found.entry };
				return 1;
			}
		}
	}
	return 0;
}
