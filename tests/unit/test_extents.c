/*
 * tests/unit/test_extents.c - pagemap contents kept as extents
 * (inputs/pagemap_store.c): the canonical encoding of a chunk's records,
 * worked out by hand, its round trip, contents whose hashes are equal, and
 * records found from an address.
 */
#include <stdlib.h>
#include <string.h>

#include "inputs/internal.h"
#include "test.h"

#define P PAGEMAP_PRESENT
#define F PAGEMAP_FILE_OR_SHARED
#define SWAP(type, offset) (PAGEMAP_SWAPPED | (uint64_t)(offset) << 5 | (type))

/* Fifteen records of one chunk and, by hand, their nine extents. */
static const struct pagemap_record mixed[] = {
	{ 0x0000, P | F }, { 0x1000, P | F }, { 0x2000, P | F },        /* equal: one extent, step 0 */
	{ 0x3000, P | 100 }, { 0x4000, P | 101 }, { 0x5000, P | 102 },  /* PFNs ascend: step 1 */
	{ 0x7000, P | 103 },            /* ascends too, but a page later: alone */
	{ 0x8000, SWAP(2, 7) }, { 0x9000, SWAP(2, 8) },  /* the next swap offset is not the next word */
	{ 0xa000, P | F | 200 }, { 0xb000, P | F | 201 },               /* step 1 with other bits */
	{ 0xc000, P | 202 },            /* the PFN goes on, the file bit does not */
	{ 0xd000, P | 300 }, { 0xe000, P | 300 }, { 0xf000, P | 301 },  /* equal first: 301 starts anew */
};

/* entry, offset, length, step, and rank: the records before */
static const struct pagemap_extent mixed_extents[] = {
	{ P | F, 0x0000, 3, 0, 0 }, { P | 100, 0x3000, 3, 1, 3 }, { P | 103, 0x7000, 1, 0, 6 },
	{ SWAP(2, 7), 0x8000, 1, 0, 7 }, { SWAP(2, 8), 0x9000, 1, 0, 8 }, { P | F | 200, 0xa000, 2, 1, 9 },
	{ P | 202, 0xc000, 1, 0, 11 }, { P | 300, 0xd000, 2, 0, 12 }, { P | 301, 0xf000, 1, 0, 14 },
};

#define COUNT(a) ((uint32_t)(sizeof(a) / sizeof((a)[0])))

static void check_extent(const struct pagemap_extent *got, const struct pagemap_extent *want)
{
	CU_ASSERT_EQUAL(got->entry, want->entry);
	CU_ASSERT_EQUAL(got->offset, want->offset);
	CU_ASSERT_EQUAL(got->length, want->length);
	CU_ASSERT_EQUAL(got->step, want->step);
	CU_ASSERT_EQUAL(got->rank, want->rank);
}

static void test_encode(void)
{
	struct pagemap_extent out[COUNT(mixed)];
	uint32_t n = pagemap_extents_encode(mixed, COUNT(mixed), out);
	CU_ASSERT_EQUAL_FATAL(n, COUNT(mixed_extents));
	for (uint32_t k = 0; k < n; k++)
		check_extent(&out[k], &mixed_extents[k]);
	/* a full chunk of one entry is one extent; of 512 scattered PFNs, 512 */
	struct pagemap_record full[512];
	for (uint32_t k = 0; k < 512; k++)
		full[k] = (struct pagemap_record){ (uint64_t)k << 12, P | F };
	struct pagemap_extent wide[512];
	CU_ASSERT_EQUAL(pagemap_extents_encode(full, 512, wide), 1);
	check_extent(&wide[0], &(struct pagemap_extent){ P | F, 0, 512, 0, 0 });
	for (uint32_t k = 0; k < 512; k++)
		full[k].entry = P | (uint64_t)(1000 + 3 * k);
	CU_ASSERT_EQUAL(pagemap_extents_encode(full, 512, wide), 512);
	check_extent(&wide[511], &(struct pagemap_extent){ P | 2533, 511 << 12, 1, 0, 511 });
	CU_ASSERT_EQUAL(sizeof(struct pagemap_extent), sizeof(struct pagemap_record));
}

static void check_decoded(const struct snapshot *s, uint32_t id, const struct pagemap_record *want, uint32_t count)
{
	struct pagemap_record out[512];
	CU_ASSERT_EQUAL_FATAL(s->contents[id].count, count);
	pagemap_content_decode(s, id, out);
	for (uint32_t k = 0; k < count; k++) {
		CU_ASSERT_EQUAL(out[k].vaddr, want[k].vaddr);
		CU_ASSERT_EQUAL(out[k].entry, want[k].entry);
	}
}

static void test_round_trip(void)
{
	struct snapshot s = { 0 };
	static const struct pagemap_record pfn_zero_up[] = { { 0, P }, { 0x1000, P | 1 } };
	static const struct pagemap_record pfn_zero[] = { { 0, P }, { 0x1000, P } };
	CU_ASSERT_EQUAL(pagemap_add_chunk(&s, mixed, COUNT(mixed)), 0);
	CU_ASSERT_EQUAL(pagemap_add_chunk(&s, pfn_zero_up, 2), 1);
	CU_ASSERT_EQUAL(pagemap_add_chunk(&s, pfn_zero, 2), 2);
	CU_ASSERT_EQUAL(pagemap_add_chunk(&s, mixed, COUNT(mixed)), 0);        /* found again */
	CU_ASSERT_EQUAL_FATAL(s.content_count, 3);
	CU_ASSERT_EQUAL(s.content_extent_count, 9 + 1 + 1);
	CU_ASSERT_EQUAL(s.content_record_count, 15 + 2 + 2);
	CU_ASSERT_EQUAL(s.contents[0].extent_count, 9);
	CU_ASSERT_EQUAL(s.contents[1].first, 15);
	CU_ASSERT_EQUAL(s.contents[2].first_extent, 10);
	check_decoded(&s, 0, mixed, COUNT(mixed));
	check_decoded(&s, 1, pfn_zero_up, 2);
	check_decoded(&s, 2, pfn_zero, 2);
	/* a cursor over records [4, 11): from inside one extent to inside another */
	struct content_cursor cursor;
	struct pagemap_record r;
	uint32_t k = 4;
	content_cursor_start(&cursor, &s, 0, 4, 11);
	for (; content_cursor_next(&cursor, &r); k++) {
		CU_ASSERT_EQUAL(r.vaddr, mixed[k].vaddr);
		CU_ASSERT_EQUAL(r.entry, mixed[k].entry);
	}
	CU_ASSERT_EQUAL(k, 11);
	/* a step from PFN 0 reaches PFN 1: that content has a PFN */
	/* records below an offset, counted from the extents: from the first,
	 * and from the extent holding record 4 for every offset above that
	 * extent's first record */
	const struct pagemap_extent *first = s.content_extents + s.contents[0].first_extent;
	const struct pagemap_extent *fourth = pagemap_content_extent(&s, 0, 4);
	const uint64_t below[][2] = { { 0, 0 }, { 0x1000, 1 }, { 0x3800, 4 }, { 0x6000, 6 }, { 0x7000, 6 },
				      { 0x7001, 7 }, { 0xe000, 13 }, { 0x10000, 15 }, { UINT64_MAX, 15 } };
	for (size_t i = 0; i < sizeof(below) / sizeof(below[0]); i++) {
		CU_ASSERT_EQUAL(pagemap_content_rank_from(first, s.contents[0].count, below[i][0]), below[i][1]);
		if (below[i][0] > fourth->offset)
			CU_ASSERT_EQUAL(pagemap_content_rank_from(fourth, s.contents[0].count, below[i][0]), below[i][1]);
	}
	CU_ASSERT_FALSE(s.contents[0].without_pfns);
	CU_ASSERT_FALSE(s.contents[1].without_pfns);
	CU_ASSERT_TRUE(s.contents[2].without_pfns);
	/* record k from the extents: offset and entry (the step added k times) */
	CU_ASSERT_EQUAL(pagemap_content_extent(&s, 0, 10)->offset, 0xa000);
	CU_ASSERT_EQUAL(pagemap_content_extent(&s, 0, 14)->offset, 0xf000);
	const struct { uint32_t k; uint64_t vaddr, entry; } at[] = {
		{ 0, 0x0000, P | F }, { 2, 0x2000, P | F }, { 4, 0x4000, P | 101 }, { 6, 0x7000, P | 103 },
		{ 8, 0x9000, SWAP(2, 8) }, { 10, 0xb000, P | F | 201 }, { 14, 0xf000, P | 301 },
	};
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		struct pagemap_record r = pagemap_content_record(&s, 0, at[i].k);
		CU_ASSERT_EQUAL(r.vaddr, at[i].vaddr);
		CU_ASSERT_EQUAL(r.entry, at[i].entry);
	}
	snapshot_release_pagemaps(&s);
}

/* Records fed as a reader feeds them (a process's, ascending, in any
 * pieces) are encoded as they come: the same extents as at once. */
static void test_fed(void)
{
	struct snapshot s = { 0 };
	struct process p = { 0 };
	struct pagemap_record fed[COUNT(mixed)];
	for (uint32_t k = 0; k < COUNT(mixed); k++)
		fed[k] = (struct pagemap_record){ 3 * PAGEMAP_CHUNK_BYTES + mixed[k].vaddr, mixed[k].entry };
	CU_ASSERT_EQUAL_FATAL(pagemap_feed_begin(&s, &p), 0);
	CU_ASSERT_EQUAL_FATAL(pagemap_feed(&s, &p, fed, 4), 0);       /* a piece, then one at a time */
	for (uint32_t k = 4; k < COUNT(mixed); k++)
		CU_ASSERT_EQUAL_FATAL(pagemap_feed(&s, &p, fed + k, 1), 0);
	CU_ASSERT_EQUAL_FATAL(pagemap_feed_end(&s, &p), 0);
	CU_ASSERT_EQUAL_FATAL(s.content_count, 1);
	CU_ASSERT_EQUAL_FATAL(s.contents[0].extent_count, COUNT(mixed_extents));
	for (uint32_t k = 0; k < COUNT(mixed_extents); k++)
		check_extent(&s.content_extents[k], &mixed_extents[k]);
	pagemap_release_process(&s, &p);
	snapshot_release_pagemaps(&s);
}

/* Records checked as they are kept (pagemap_feed_fitting): the pass stops
 * at a record at or above high (the builder walks on to the next VMA) and
 * at one that does not fit, after keeping those before; resumed, the
 * extents are the same as at once.  A record one page on whose entry is the
 * last one's + 1 would continue the step-1 extent of ~0 - 1 and ~0, but
 * ~0 + 1 is 0: neither present nor swapped, so it stops there too. */
static void test_fed_fitting(void)
{
	struct snapshot s = { 0 };
	struct process p = { 0 };
	struct pagemap_record fed[COUNT(mixed) + 3];
	for (uint32_t k = 0; k < COUNT(mixed); k++)
		fed[k] = (struct pagemap_record){ 3 * PAGEMAP_CHUNK_BYTES + mixed[k].vaddr, mixed[k].entry };
	fed[COUNT(mixed)] = (struct pagemap_record){ 4 * PAGEMAP_CHUNK_BYTES, UINT64_MAX - 1 };
	fed[COUNT(mixed) + 1] = (struct pagemap_record){ 4 * PAGEMAP_CHUNK_BYTES + 0x1000, UINT64_MAX };
	fed[COUNT(mixed) + 2] = (struct pagemap_record){ 4 * PAGEMAP_CHUNK_BYTES + 0x2000, 0 };
	size_t taken;
	CU_ASSERT_EQUAL_FATAL(pagemap_feed_begin(&s, &p), 0);
	/* high inside the step-1 extent of records 3-5: records 0-3 kept */
	uint64_t high = 3 * PAGEMAP_CHUNK_BYTES + 0x4000;
	CU_ASSERT_EQUAL_FATAL(pagemap_feed_fitting(&s, &p, fed, COUNT(fed), 0, high, &taken), 0);
	CU_ASSERT_EQUAL(taken, 4);
	size_t at = taken;
	CU_ASSERT_EQUAL_FATAL(pagemap_feed_fitting(&s, &p, fed + at, COUNT(fed) - at, fed[at - 1].vaddr + 1,
						   UINT64_MAX, &taken), 0);
	CU_ASSERT_EQUAL(at + taken, COUNT(mixed) + 2);  /* the record of entry 0 stops it */
	CU_ASSERT_EQUAL(p.pagemap_count, COUNT(mixed) + 2);
	/* an unaligned record stops it at once */
	struct pagemap_record late = { 5 * PAGEMAP_CHUNK_BYTES + 1, P };
	CU_ASSERT_EQUAL_FATAL(pagemap_feed_fitting(&s, &p, &late, 1, 0, UINT64_MAX, &taken), 0);
	CU_ASSERT_EQUAL(taken, 0);
	/* pages running on over a chunk's end: two extents, two chunks */
	const uint64_t six = 6 * PAGEMAP_CHUNK_BYTES;
	const struct pagemap_record across[] = { { six - 0x2000, P }, { six - 0x1000, P }, { six, P }, { six + 0x1000, P } };
	CU_ASSERT_EQUAL_FATAL(pagemap_feed_fitting(&s, &p, across, 4, 0, UINT64_MAX, &taken), 0);
	CU_ASSERT_EQUAL(taken, 4);
	CU_ASSERT_EQUAL_FATAL(pagemap_feed_end(&s, &p), 0);
	CU_ASSERT_EQUAL_FATAL(s.content_count, 4);
	check_extent(&s.content_extents[COUNT(mixed_extents) + 1], &(struct pagemap_extent){ P, 0x1fe000, 2, 0, 0 });
	check_extent(&s.content_extents[COUNT(mixed_extents) + 2], &(struct pagemap_extent){ P, 0, 2, 0, 0 });
	CU_ASSERT_EQUAL_FATAL(s.contents[0].extent_count, COUNT(mixed_extents));
	for (uint32_t k = 0; k < COUNT(mixed_extents); k++)
		check_extent(&s.content_extents[k], &mixed_extents[k]);
	check_extent(&s.content_extents[COUNT(mixed_extents)], &(struct pagemap_extent){ UINT64_MAX - 1, 0, 2, 1, 0 });
	/* chunks 3 to 6 hold contents 0 to 3: one run */
	CU_ASSERT_EQUAL_FATAL(p.run_count, 1);
	CU_ASSERT_EQUAL(p.runs[0].chunk, 3);
	CU_ASSERT_EQUAL(p.runs[0].length, 4);
	pagemap_release_process(&s, &p);
	snapshot_release_pagemaps(&s);
}

/* A chunk's lookup waits until the next chunk is gathered.  A process
 * dropped with its stream cut short (p: chunk 1 gathered, chunk 2 begun)
 * has its waiting chunk numbered then, and given back with the rest; the
 * next process's chunks are its own. */
static void test_dropped_while_waiting(void)
{
	struct snapshot s = { 0 };
	struct process p = { 0 }, q = { 0 };
	const struct pagemap_record cut[] = { { PAGEMAP_CHUNK_BYTES, P }, { 2 * PAGEMAP_CHUNK_BYTES, P | 5 } };
	const struct pagemap_record next[] = { { PAGEMAP_CHUNK_BYTES, P | 9 } };
	CU_ASSERT_EQUAL_FATAL(pagemap_feed_begin(&s, &p), 0);
	CU_ASSERT_EQUAL_FATAL(pagemap_feed(&s, &p, cut, 2), 0);
	pagemap_release_process(&s, &p);
	CU_ASSERT_EQUAL_FATAL(pagemap_feed_begin(&s, &q), 0);
	CU_ASSERT_EQUAL_FATAL(pagemap_feed(&s, &q, next, 1), 0);
	CU_ASSERT_EQUAL_FATAL(pagemap_feed_end(&s, &q), 0);
	CU_ASSERT_EQUAL_FATAL(s.content_count, 2);
	check_extent(&s.content_extents[0], &(struct pagemap_extent){ P, 0, 1, 0, 0 });
	check_extent(&s.content_extents[1], &(struct pagemap_extent){ P | 9, 0, 1, 0, 0 });
	CU_ASSERT_EQUAL(s.contents[0].references, 0);
	CU_ASSERT_EQUAL(s.contents[1].references, 1);
	CU_ASSERT_EQUAL_FATAL(q.run_count, 1);
	CU_ASSERT_EQUAL(q.runs[0].content, 1);
	pagemap_release_process(&s, &q);
	snapshot_release_pagemaps(&s);
}

/* One record each: the second's offset (page 1) moved to bit 40 cancels the
 * bit set in its entry, so the two extents give one word, one hash. */
static void test_equal_hashes(void)
{
	const uint64_t entry = P | 77;
	const struct pagemap_record one[] = { { 0, entry } }, other[] = { { 0x1000, entry ^ UINT64_C(1) << 40 } };
	struct pagemap_extent one_extent, other_extent;
	CU_ASSERT_EQUAL_FATAL(pagemap_extents_encode(one, 1, &one_extent), 1);
	CU_ASSERT_EQUAL_FATAL(pagemap_extents_encode(other, 1, &other_extent), 1);
	CU_ASSERT_EQUAL(pagemap_extents_hash(&one_extent, 1), pagemap_extents_hash(&other_extent, 1));
	struct snapshot s = { 0 };
	CU_ASSERT_EQUAL(pagemap_add_chunk(&s, one, 1), 0);
	CU_ASSERT_EQUAL(pagemap_add_chunk(&s, other, 1), 1);
	CU_ASSERT_EQUAL(pagemap_add_chunk(&s, other, 1), 1);
	CU_ASSERT_EQUAL(pagemap_add_chunk(&s, one, 1), 0);
	CU_ASSERT_EQUAL_FATAL(s.content_count, 2);
	check_decoded(&s, 0, one, 1);
	check_decoded(&s, 1, other, 1);
	snapshot_release_pagemaps(&s);
}

/* process_next_record reads the extents: the first record at or above an
 * address, inside an extent when the address falls in one. */
static void test_next_record(void)
{
	struct snapshot s = { 0 };
	struct process p = { 0 };
	uint32_t id = pagemap_add_chunk(&s, mixed, COUNT(mixed));
	pagemap_push_run(&p, &(struct pagemap_run){ .chunk = 1, .length = 1, .content = id });
	const uint64_t base = PAGEMAP_CHUNK_BYTES;
	const struct { uint64_t from, vaddr, entry; } want[] = {
		{ 0, 0x0000, P | F }, { 0x1000, 0x1000, P | F }, { 0x3800, 0x4000, P | 101 },
		{ 0x5001, 0x7000, P | 103 }, { 0x9000, 0x9000, SWAP(2, 8) }, { 0xb000, 0xb000, P | F | 201 },
		{ 0xe000, 0xe000, P | 300 }, { 0xf000, 0xf000, P | 301 },
	};
	struct pagemap_record r;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		CU_ASSERT_EQUAL_FATAL(process_next_record(&s, &p, base + want[i].from, UINT64_MAX, &r), 1);
		CU_ASSERT_EQUAL(r.vaddr, base + want[i].vaddr);
		CU_ASSERT_EQUAL(r.entry, want[i].entry);
	}
	CU_ASSERT_EQUAL(process_next_record(&s, &p, base + 0xf001, UINT64_MAX, &r), 0);
	CU_ASSERT_EQUAL(process_next_record(&s, &p, base + 0x3800, base + 0x4000, &r), 0);
	free(p.runs);
	snapshot_release_pagemaps(&s);
}

/* process_find_vma and process_chunk_content over 0 to 40 VMAs and runs,
 * every size the halving meets: VMA i spans [(i + 1) 64 KiB, + 32 KiB),
 * run i holds chunks 4i + 1 and 4i + 2, so the answer for an address is
 * worked out from it by division. */
static void test_process_lookups(void)
{
	struct vma vmas[40];
	struct pagemap_run runs[40];
	for (uint64_t i = 0; i < 40; i++) {
		vmas[i] = (struct vma){ .start = (i + 1) << 16, .end = ((i + 1) << 16) + 0x8000 };
		runs[i] = (struct pagemap_run){ .chunk = 4 * i + 1, .length = 2, .content = 2 * (uint32_t)i };
	}
	for (size_t count = 0; count <= 40; count++) {
		struct process p = { .vmas = vmas, .vma_count = count, .runs = runs, .run_count = count };
		for (uint64_t vaddr = 0; vaddr < (count + 2) << 16; vaddr += 0x4000) {
			uint64_t i = (vaddr >> 16) - 1, inside = vaddr >= 0x10000 && i < count && (vaddr & 0xffff) < 0x8000;
			CU_ASSERT_PTR_EQUAL(process_find_vma(&p, vaddr), inside ? &vmas[i] : NULL);
			CU_ASSERT_PTR_EQUAL(process_find_vma(&p, vaddr + 0x3fff), inside ? &vmas[i] : NULL);
		}
		CU_ASSERT_PTR_NULL(process_find_vma(&p, UINT64_MAX - 1));
		for (uint64_t chunk = 0; chunk < 4 * count + 4; chunk++) {
			uint64_t i = chunk / 4, held = chunk % 4 == 1 || chunk % 4 == 2;
			CU_ASSERT_EQUAL(process_chunk_content(&p, chunk), held && i < count ? (long)(2 * i + chunk % 4 - 1) : -1);
		}
	}
}

/*
 * range_outside_spans, worked by hand over VMAs [0x1000, 0x3000),
 * [0x3000, 0x5000) (neighbours) and [0x8000, 0x9000): a range across the
 * neighbours lies inside; one into the hole after them leaves at 0x5000;
 * one inside the third, after the cursor has moved, lies inside; one past
 * the last leaves at 0x9000; one starting in the hole leaves at its start.
 */
static void test_ranges_in_spans(void)
{
	const struct vma vmas[] = { { .start = 0x1000, .end = 0x3000 }, { .start = 0x3000, .end = 0x5000 },
				    { .start = 0x8000, .end = 0x9000 } };
	size_t v = 0, n = sizeof(vmas) / sizeof(vmas[0]);
	CU_ASSERT_EQUAL(range_outside_spans(vmas, n, sizeof(vmas[0]), &v, 0x2000, 0x4000), 0x4000);
	CU_ASSERT_EQUAL(range_outside_spans(vmas, n, sizeof(vmas[0]), &v, 0x4000, 0x6000), 0x5000);
	CU_ASSERT_EQUAL(range_outside_spans(vmas, n, sizeof(vmas[0]), &v, 0x8000, 0x8800), 0x8800);
	CU_ASSERT_EQUAL(range_outside_spans(vmas, n, sizeof(vmas[0]), &v, 0x8800, 0xa000), 0x9000);
	v = 0;
	CU_ASSERT_EQUAL(range_outside_spans(vmas, n, sizeof(vmas[0]), &v, 0x6000, 0x8800), 0x6000);
}

void suite_extents(void)
{
	ADD_SUITE("extents", test_encode, test_round_trip, test_fed, test_fed_fitting, test_equal_hashes,
		  test_dropped_while_waiting, test_next_record, test_process_lookups, test_ranges_in_spans);
}
