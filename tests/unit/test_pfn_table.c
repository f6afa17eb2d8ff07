/*
 * tests/unit/test_pfn_table.c - the model's PFN table in runs
 * (model/pfn_table.c), on chunk contents written by hand: where runs merge,
 * where they must not, what each holds, lookups across their edges, and
 * the order numbering puts them in.
 */
#include <string.h>

#include "inputs/internal.h"
#include "model/model_internal.h"
#include "test.h"

#define P PAGEMAP_PRESENT
#define FILE_PAGE PAGEMAP_FILE_OR_SHARED
#define ANON_FLAG (UINT64_C(1) << KPF_ANON)

/*
 * Content 0 (held twice):
 *   0x0000 100, 0x1000 101, 0x2000 102     one record run A [100,103)
 *   0x3000 200, 0x4000 201                 B [200,202)
 *   0x6000 202                             C [202,203): an address gap
 *   0x7000 203 file                        D [203,204): other flags
 *   0x8000 not present                     no PFN
 * Content 1 (held once), files, cut before its second record (a VMA edge):
 *   0x3000 103 | 0x4000 104                E [103,104), F [104,105)
 * Content 2 (held three times): 0x9000 102 G [102,103)
 * Content 3 (held by nobody): 500, not in the table.
 * Kpages: 100 and 101 differ only in a flag the model does not read
 * (REFERENCED), so they stay one run; 102 has another mapcount; 201..203
 * one run whose mapcount differs from 200's.
 * Runs, by hand (records, anon records, mapcount):
 *   [100,102) 2, 2, 5   A alone; kpage runs 100 and 101 merged
 *   [102,103) 5, 5, 7   A (2) + G (3)
 *   [103,104) 1, 0, 1   E
 *   [104,105) 1, 0, 1   F: the same facts as E's page, kept apart (the cut)
 *   [200,201) 2, 2, 2   B, cut by the kpage mapcount
 *   [201,202) 2, 2, 3
 *   [202,203) 2, 2, 3   C: the same facts as B's last page, kept apart
 *   [203,204) 2, 0, 3   D; kpageflags ANON
 */
static const struct pagemap_record records[] = {
	{ 0x0000, P | 100 }, { 0x1000, P | 101 }, { 0x2000, P | 102 }, { 0x3000, P | 200 }, { 0x4000, P | 201 },
	{ 0x6000, P | 202 }, { 0x7000, P | FILE_PAGE | 203 }, { 0x8000, 0 },
	{ 0x3000, P | FILE_PAGE | 103 }, { 0x4000, P | FILE_PAGE | 104 },
	{ 0x9000, P | 102 },
	{ 0x0000, P | 500 },
};

/* contents: their first records and holders */
static const uint32_t content_first[] = { 0, 8, 10, 11, 12 };
static const uint64_t content_references[] = { 2, 1, 3, 0 };

static const struct kpage_run kpages[] = {
	{ 100, 1, 5, ANON_FLAG }, { 101, 1, 5, ANON_FLAG | UINT64_C(1) << 2 }, { 102, 1, 7, ANON_FLAG },
	{ 103, 2, 1, 0 }, { 200, 1, 2, ANON_FLAG }, { 201, 3, 3, ANON_FLAG },
};

struct expected_run {
	uint64_t pfn, pages, records, anon_records, mapcount;
	bool kpage_anon;
};

static const struct expected_run by_pfn[] = {
	{ 100, 2, 2, 2, 5, true }, { 102, 1, 5, 5, 7, true }, { 103, 1, 1, 0, 1, false }, { 104, 1, 1, 0, 1, false },
	{ 200, 1, 2, 2, 2, true }, { 201, 1, 2, 2, 3, true }, { 202, 1, 2, 2, 3, true }, { 203, 1, 2, 0, 3, true },
};

static void build(struct snapshot *s, struct pfn_table *table)
{
	memset(s, 0, sizeof(*s));
	for (uint32_t i = 0; i < sizeof(content_references) / sizeof(content_references[0]); i++) {
		CU_ASSERT_EQUAL_FATAL(pagemap_add_chunk(s, records + content_first[i],
							content_first[i + 1] - content_first[i]), i);
		s->contents[i].references = content_references[i];
	}
	CU_ASSERT_EQUAL_FATAL(s->contents[3].first, 11);
	s->kpage_runs = (struct kpage_run *)kpages;
	s->kpage_run_count = sizeof(kpages) / sizeof(kpages[0]);
	const uint64_t cuts[] = { PFN_CUT_KEY(1, 1) };
	pfn_table_build(table, s, cuts, 1);
}

static void check_run(const struct pfn_run *run, const struct expected_run *want)
{
	CU_ASSERT_EQUAL(run->pfn, want->pfn);
	CU_ASSERT_EQUAL(run->pages, want->pages);
	CU_ASSERT_EQUAL(run->records, want->records);
	CU_ASSERT_EQUAL(run->anon_records, want->anon_records);
	CU_ASSERT_EQUAL(run->mapcount, want->mapcount);
	CU_ASSERT_EQUAL(run->kpage_anon, want->kpage_anon);
	CU_ASSERT_FALSE(run->zero_page);
}

static void test_runs(void)
{
	struct snapshot s;
	struct pfn_table table;
	build(&s, &table);
	CU_ASSERT_EQUAL_FATAL(table.count, 8);
	CU_ASSERT_EQUAL(table.pages, 9);
	for (size_t i = 0; i < table.count; i++)
		check_run(&table.runs[i], &by_pfn[i]);
	pfn_table_free(&table);
	snapshot_release_pagemaps(&s);
}

static void test_find(void)
{
	struct snapshot s;
	struct pfn_table table;
	build(&s, &table);
	/* PFN -> index of the holding run, or -1 */
	const struct { uint64_t pfn; int run; } lookups[] = {
		{ 0, -1 }, { 99, -1 }, { 100, 0 }, { 101, 0 }, { 102, 1 }, { 103, 2 }, { 104, 3 }, { 105, -1 },
		{ 199, -1 }, { 200, 4 }, { 201, 5 }, { 202, 6 }, { 203, 7 }, { 204, -1 }, { 500, -1 },
	};
	for (size_t i = 0; i < sizeof(lookups) / sizeof(lookups[0]); i++) {
		const struct pfn_run *run = pfn_table_find(&table, lookups[i].pfn);
		const struct pfn_run *want = lookups[i].run < 0 ? NULL : &table.runs[lookups[i].run];
		CU_ASSERT_PTR_EQUAL(run, want);
	}
	pfn_table_free(&table);
	snapshot_release_pagemaps(&s);
}

/* Numbered: runs in the order the records first name them, each record
 * its run's index + 1 (0: no PFN, or a content nobody holds). */
static void test_number(void)
{
	struct snapshot s;
	struct pfn_table table;
	build(&s, &table);
	uint32_t record_pfns[sizeof(records) / sizeof(records[0])] = { 0 };
	pfn_table_number(&table, &s, record_pfns);
	const uint32_t want[] = { 1, 1, 2, 3, 4, 5, 6, 0, 7, 8, 2, 0 };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CU_ASSERT_EQUAL(record_pfns[i], want[i]);
	const size_t order[] = { 0, 1, 4, 5, 6, 7, 2, 3 };   /* sorted run at each place */
	CU_ASSERT_EQUAL_FATAL(table.count, 8);
	for (size_t i = 0; i < table.count; i++)
		check_run(&table.runs[i], &by_pfn[order[i]]);
	pfn_table_free(&table);
	snapshot_release_pagemaps(&s);
}

/* The bound on the runs (model_memory_bytes'), by hand.  Above: extents
 * A, B, C, D, the record without a PFN, E-F, G (content 3 is held by
 * nobody): 7 starts of record runs, 11 records with PFNs; PFN runs at most
 * min(11, 2 x 7 + 2 x 6 kpage runs + 1).  Then one entry repeated: each
 * record of a step-0 extent starts a run of its own (the PFN does not go
 * up), and each VMA adds two cuts. */
static void test_runs_most(void)
{
	struct snapshot s;
	struct pfn_table table;
	uint64_t record_runs, pfn_runs;
	build(&s, &table);
	pfn_table_runs_most(&s, &record_runs, &pfn_runs);
	CU_ASSERT_EQUAL(record_runs, 7);
	CU_ASSERT_EQUAL(pfn_runs, 11);
	CU_ASSERT(pfn_runs >= table.count);
	pfn_table_free(&table);
	snapshot_release_pagemaps(&s);

	/* PFN 7 at three pages (the zero page, say), then 8 and 9 after it */
	const struct pagemap_record repeated[] = {
		{ 0xa000, P | 7 }, { 0xb000, P | 7 }, { 0xc000, P | 7 }, { 0xd000, P | 8 }, { 0xe000, P | 9 },
	};
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL_FATAL(pagemap_add_chunk(&s, repeated, 5), 0);
	CU_ASSERT_EQUAL_FATAL(s.contents[0].extent_count, 2);
	s.contents[0].references = 1;
	pfn_table_build(&table, &s, NULL, 0);
	pfn_table_runs_most(&s, &record_runs, &pfn_runs);
	CU_ASSERT_EQUAL(record_runs, 4);        /* [7], [7], [7, 8, 9] built: 3 */
	CU_ASSERT_EQUAL(pfn_runs, 5);
	CU_ASSERT_EQUAL(table.count, 2);        /* [7, 8) under three runs, [8, 10) */
	s.vma_count = 1;
	pfn_table_runs_most(&s, &record_runs, &pfn_runs);
	CU_ASSERT_EQUAL(record_runs, 5);        /* 4 + 2 cuts, no more than the records */
	pfn_table_free(&table);
	snapshot_release_pagemaps(&s);

	/* an entry ascending past PFN 2^55 - 1 carries into the flags (bit 55):
	 * one extent, but the runs [2^55 - 1] and [1] (PFN 0 is none): each
	 * record may start one */
	const uint64_t top = PAGEMAP_PFN_MASK;
	const struct pagemap_record carried[] = { { 0xa000, P | top }, { 0xb000, P | (top + 1) },
						  { 0xc000, P | (top + 2) } };
	memset(&s, 0, sizeof(s));
	CU_ASSERT_EQUAL_FATAL(pagemap_add_chunk(&s, carried, 3), 0);
	CU_ASSERT_EQUAL_FATAL(s.contents[0].extent_count, 1);
	s.contents[0].references = 1;
	pfn_table_runs_most(&s, &record_runs, &pfn_runs);
	CU_ASSERT_EQUAL(record_runs, 3);
	pfn_table_build(&table, &s, NULL, 0);
	CU_ASSERT_EQUAL(table.count, 2);
	CU_ASSERT(pfn_runs >= table.count);
	pfn_table_free(&table);
	snapshot_release_pagemaps(&s);
}

void suite_pfn_table(void)
{
	ADD_SUITE("pfn_table", test_runs, test_find, test_number, test_runs_most);
}
