/*
 * tests/unit/test_model.c - the cost model's formulas against values worked
 * out by hand (docs/cost-model.md sections 1, 4, 5, 8), on snapshots built in
 * memory so every record is known.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "test.h"

static struct profile_set profiles;

static const struct rmap_profile *design(const char *id)
{
	if (!profiles.rmap_count) {
		struct error error;
		CU_ASSERT_FATAL(profiles_load_builtin(&profiles, &error) == 0);
	}
	const struct rmap_profile *p = profiles_find_rmap(&profiles, id);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	return p;
}

/* Counts worked by hand: IS(got, want) each, checked in order; one that is
 * off is said by name with both values ("w->walks is 3, not 4"). */
struct expected_count {
	const char *name;
	unsigned long long got, want;
};
#define IS(got, want) { #got, (unsigned long long)(got), (unsigned long long)(want) }

static void expect_counts(const struct expected_count *counts, size_t count, int line)
{
	for (size_t i = 0; i < count; i++) {
		CU_ASSERT(counts[i].got == counts[i].want);
		if (counts[i].got != counts[i].want)
			fprintf(stderr, "\ntest_model.c:%d: %s is %llu, not %llu", line, counts[i].name, counts[i].got,
				counts[i].want);
	}
}
#define EXPECT_COUNTS(...)                                                                            \
	expect_counts((const struct expected_count[]){ __VA_ARGS__ },                                     \
		      sizeof((const struct expected_count[]){ __VA_ARGS__ }) / sizeof(struct expected_count), __LINE__)

/* ---- C(m) per design, section 1 ---- */

static void test_nrpte(void)
{
	/* NRPTE = floor((L1 - sizeof(long)) / sizeof(pte_addr_t)) */
	CU_ASSERT_EQUAL(design("2.5-array-i386-l1-32")->nrpte, 7);    /* (32-4)/4 */
	CU_ASSERT_EQUAL(design("2.5-array-i386-l1-64")->nrpte, 15);   /* (64-4)/4 */
	CU_ASSERT_EQUAL(design("2.5-array-i386-l1-128")->nrpte, 31);  /* (128-4)/4 */
	CU_ASSERT_EQUAL(design("2.5-array-i386-pae-l1-32")->nrpte, 3);  /* (32-4)/8 */
	CU_ASSERT_EQUAL(design("2.5-array-i386-pae-l1-128")->nrpte, 15);/* (128-4)/8 */
	CU_ASSERT_EQUAL(design("2.5-array-x86_64-l1-64")->nrpte, 7);  /* (64-8)/8 */
	CU_ASSERT_EQUAL(design("2.5-array-x86_64-l1-128")->nrpte, 15);/* (128-8)/8 */
}

static void test_cost_d1(void)
{
	const struct rmap_profile *p = design("2.4-rmap-i386");
	CU_ASSERT_EQUAL(rmap_page_cost(p, 0, true), 0);
	CU_ASSERT_EQUAL(rmap_page_cost(p, 1, true), 8);       /* one pte_chain even for m = 1 */
	CU_ASSERT_EQUAL(rmap_page_cost(p, 5, false), 40);
	CU_ASSERT_EQUAL(rmap_page_cost(design("2.4-rmap-x86_64"), 3, false), 48);
}

static void test_cost_d2(void)
{
	const struct rmap_profile *p = design("2.5-direct-i386");
	CU_ASSERT_EQUAL(rmap_page_cost(p, 0, true), 0);
	CU_ASSERT_EQUAL(rmap_page_cost(p, 1, true), 0);       /* PG_direct */
	CU_ASSERT_EQUAL(rmap_page_cost(p, 2, true), 16);
	CU_ASSERT_EQUAL(rmap_page_cost(p, 10, false), 80);
}

static void test_cost_d3_edges(void)
{
	const struct rmap_profile *p = design("2.5-array-i386-l1-32");   /* NRPTE 7, 32 B */
	CU_ASSERT_EQUAL(rmap_page_cost(p, 0, true), 0);
	CU_ASSERT_EQUAL(rmap_page_cost(p, 1, true), 0);
	CU_ASSERT_EQUAL(rmap_page_cost(p, 2, true), 32);
	CU_ASSERT_EQUAL(rmap_page_cost(p, 7, true), 32);       /* m = NRPTE: one block */
	CU_ASSERT_EQUAL(rmap_page_cost(p, 8, true), 64);       /* NRPTE + 1: two */
	CU_ASSERT_EQUAL(rmap_page_cost(p, 15, false), 96);     /* ceil(15/7) = 3 */
	const struct rmap_profile *q = design("2.5-array-i386-l1-128");  /* NRPTE 31, 128 B */
	CU_ASSERT_EQUAL(rmap_page_cost(q, 31, true), 128);
	CU_ASSERT_EQUAL(rmap_page_cost(q, 32, true), 256);
	const struct rmap_profile *x = design("2.5-array-x86_64-l1-64"); /* NRPTE 7, 64 B */
	CU_ASSERT_EQUAL(rmap_page_cost(x, 7, true), 64);
	CU_ASSERT_EQUAL(rmap_page_cost(x, 8, true), 128);
}

static void test_cost_d4_d5(void)
{
	const struct rmap_profile *p = design("2.5.62-objrmap-i386-l1-32");
	CU_ASSERT_EQUAL(rmap_page_cost(p, 8, false), 0);       /* file pages by address_space */
	CU_ASSERT_EQUAL(rmap_page_cost(p, 8, true), 64);       /* anon keeps D3 */
	CU_ASSERT_EQUAL(rmap_page_cost(p, 1, true), 0);
	const struct rmap_profile *d5 = design("6.1-x86_64");
	CU_ASSERT_EQUAL(rmap_page_cost(d5, 100, true), 0);
	CU_ASSERT_EQUAL(rmap_page_cost(d5, 100, false), 0);
	CU_ASSERT_EQUAL(d5->anon_vma_chain_bytes, 64);
	CU_ASSERT_EQUAL(design("2.6.34-avc-x86_64")->anon_vma_chain_bytes, 48);
	CU_ASSERT_EQUAL(design("2.6.7-anon_vma-i386")->anon_vma_bytes, 12);
}

static void test_share_range(void)
{
	/* arrays: C(m)/m over [2, M] is largest at m = 2 (L1/2) and smallest at m = NRPTE (L1/N) */
	double low, high;
	rmap_share_range(design("2.5-array-i386-l1-32"), 100, true, &low, &high);
	CU_ASSERT_DOUBLE_EQUAL(high, 16.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(low, 32.0 / 7, 1e-9);
	rmap_share_range(design("2.5-array-i386-l1-32"), 5, true, &low, &high);
	CU_ASSERT_DOUBLE_EQUAL(low, 32.0 / 5, 1e-9);          /* M below NRPTE: m = M */
	rmap_share_range(design("2.4-rmap-i386"), 50, false, &low, &high);
	CU_ASSERT_DOUBLE_EQUAL(low, 8.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(high, 8.0, 1e-9);
}

/* ---- exact rational sums ---- */

static uint64_t round_sum(const uint64_t (*terms)[2], size_t count)
{
	struct fraction_sum sum = { 0 };
	for (size_t i = 0; i < count; i++)
		fraction_sum_add(&sum, terms[i][0], terms[i][1]);
	uint64_t rounded = fraction_sum_round(&sum);
	fraction_sum_free(&sum);
	return rounded;
}

static void test_fraction_sum(void)
{
	const uint64_t half[][2] = { { 1, 3 }, { 1, 6 } };          /* exactly 1/2: rounds up */
	CU_ASSERT_EQUAL(round_sum(half, 2), 1);
	const uint64_t third[][2] = { { 1, 3 } };
	CU_ASSERT_EQUAL(round_sum(third, 1), 0);
	const uint64_t two_and_half[][2] = { { 5, 2 } };
	CU_ASSERT_EQUAL(round_sum(two_and_half, 1), 3);
	/* Sylvester: 1/3 + 1/7 + 1/43 + 1/1807 = 1/2 - 1/6530106 - just below a half */
	const uint64_t below[][2] = { { 1, 3 }, { 1, 7 }, { 1, 43 }, { 1, 1807 } };
	CU_ASSERT_EQUAL(round_sum(below, 4), 0);
	/* the same denominators grouped: 2/3 + 2/3 = 4/3 */
	const uint64_t grouped[][2] = { { 2, 3 }, { 2, 3 } };
	CU_ASSERT_EQUAL(round_sum(grouped, 2), 1);
	/* harmonic number H(200) = 5.878... */
	uint64_t harmonic[200][2];
	for (int i = 0; i < 200; i++) {
		harmonic[i][0] = 1;
		harmonic[i][1] = (uint64_t)i + 1;
	}
	CU_ASSERT_EQUAL(round_sum(harmonic, 200), 6);
	/* 20,000 distinct mapcounts (once quadratic: 22 s): 1/2 + ... + 1/20001
	 * = H(20001) - 1 = 9.4808 (Python's fractions.Fraction), rounds to 9 */
	static uint64_t distinct[20000][2];
	for (int i = 0; i < 20000; i++) {
		distinct[i][0] = 1;
		distinct[i][1] = (uint64_t)i + 2;
	}
	CU_ASSERT_EQUAL(round_sum(distinct, 20000), 9);
	/* many terms over one denominator stay exact: 1000 × 7/2 = 3500 */
	struct fraction_sum sum = { 0 };
	for (int i = 0; i < 1000; i++)
		fraction_sum_add(&sum, 7, 2);
	CU_ASSERT_EQUAL(fraction_sum_round(&sum), 3500);
	fraction_sum_free(&sum);
}

/* ---- a snapshot built by hand ---- */

#define MAX_RECORDS 2048   /* test_thp_windows writes 1535 for one process */
struct fake {
	struct snapshot snapshot;
	struct process processes[8];
	struct vma vmas[16];
	uint64_t kb[16][SMAPS_FIELD_COUNT];     /* each VMA's counters, every field held */
	struct pagemap_record records[8][MAX_RECORDS];
	size_t record_counts[8];
	struct kpage_run kpages[16];
};

/* The fake being built: records are kept here and handed to the snapshot
 * (snapshot_add_pagemap, as a reader does) when the model runs. */
static struct fake *current_fake;

static struct pagemap_record *fake_records(const struct process *p)
{
	return current_fake->records[p - current_fake->processes];
}

static void fake_free(struct fake *f)
{
	snapshot_release_pagemaps(&f->snapshot);
	free(f);
	current_fake = NULL;
}

static struct fake *fake_new(void)
{
	struct fake *f = calloc(1, sizeof(*f));
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	f->snapshot.info.pagemap = PAGEMAP_PFN;
	strcpy(f->snapshot.info.arch, "x86_64");
	f->snapshot.source = "fake";
	f->snapshot.processes = f->processes;
	f->snapshot.vmas = f->vmas;
	current_fake = f;
	return f;
}

static struct process *fake_process(struct fake *f, int pid, int ppid, uint64_t vm_pte_kb)
{
	struct process *p = &f->processes[f->snapshot.process_count];
	p->pid = pid;
	p->ppid = ppid;
	p->comm = "fake";
	p->has_status = true;
	p->status.has_vm_pte = true;
	p->status.vm_pte_kb = vm_pte_kb;
	p->has_pagemap = true;
	p->vmas = &f->vmas[f->snapshot.vma_count];
	f->snapshot.process_count++;
	return p;
}

static struct vma *fake_vma(struct fake *f, struct process *p, uint64_t start, uint64_t end,
			    const char *perms, uint64_t inode, const char *path)
{
	struct vma *v = &f->vmas[f->snapshot.vma_count++];
	p->vma_count++;
	v->start = start;
	v->end = end;
	v->inode = inode;
	v->dev_major = inode ? 8 : 0;
	memcpy(v->perms, perms, 5);
	v->path = path;
	v->counters = f->kb[v - f->vmas];
	v->counter_fields = (UINT32_C(1) << SMAPS_FIELD_COUNT) - 1;
	v->vm_flags = (UINT64_C(1) << VMF_RD) | (perms[1] == 'w' ? UINT64_C(1) << VMF_WR : 0) |
		      (perms[3] == 's' ? UINT64_C(1) << VMF_SH : 0);
	return v;
}

/* The counters of a fake's VMA, to set (vma_kb reads them): fake_vma
 * points them at the fake's own kb[] row. */
static uint64_t *fake_kb(const struct vma *v)
{
	return (uint64_t *)(uintptr_t)v->counters;
}

static void fake_record(struct process *p, uint64_t vaddr, uint64_t entry)
{
	size_t i = (size_t)(p - current_fake->processes);
	current_fake->records[i][current_fake->record_counts[i]++] = (struct pagemap_record){ vaddr, entry };
}

static void fake_kpage(struct fake *f, uint64_t pfn, uint64_t mapcount, uint64_t flags)
{
	f->kpages[f->snapshot.kpage_run_count++] = (struct kpage_run){ pfn, 1, mapcount, flags };
	f->snapshot.kpage_count++;
	f->snapshot.kpage_runs = f->kpages;
}

/* The result of the last run, freed by the next run or after the test
 * (free_fixture, the suite's teardown, frees the fake too): a test frees
 * neither itself. */
static struct model_result *last_result;

static void free_fixture(void)
{
	model_free(last_result);
	last_result = NULL;
	if (current_fake)
		fake_free(current_fake);
}

static struct model_result *run(struct fake *f, const char *const *ids, size_t count)
{
	design("2.4-rmap-i386");       /* loads the profiles */
	const struct rmap_profile *designs[16];
	const struct sharing_rule *rules[8];
	struct model_options options = { .profiles = &profiles };
	size_t d = 0, r = 0;
	for (size_t i = 0; i < count; i++) {
		if (profiles_find_rmap(&profiles, ids[i]))
			designs[d++] = profiles_find_rmap(&profiles, ids[i]);
		else
			rules[r++] = profiles_find_rule(&profiles, ids[i]);
	}
	options.designs = d ? designs : NULL;
	options.design_count = d;
	options.rules = r ? rules : NULL;
	options.rule_count = r;
	snapshot_release_pagemaps(&f->snapshot);
	for (size_t i = 0; i < f->snapshot.process_count; i++) {
		struct process *p = &f->processes[i];
		p->pagemap_count = 0;
		if (p->has_pagemap)
			CU_ASSERT_FATAL(snapshot_add_pagemap(&f->snapshot, p, f->records[i], f->record_counts[i]) == 0);
	}
	struct error error;
	model_free(last_result);
	last_result = NULL;
	CU_ASSERT_FATAL(model_run(&f->snapshot, &options, &last_result, &error) == 0);
	return last_result;
}

#define P (PAGEMAP_PRESENT)
#define FILE_PAGE (PAGEMAP_FILE_OR_SHARED)
#define FLAG(bit) (UINT64_C(1) << (bit))

/*
 * Two processes.  PFN 10 anonymous, mapped by both (m = 2 from records);
 * PFN 11 file, one record but kpagecount 3 (m = 3); PFN 12 file, m = 1;
 * the zero page (skipped); a swap entry (skipped).
 * Per record C(m)/m:
 *   D1 i386 (8 B):     10: 2·(16/2) = 16, 11: 24/3 = 8, 12: 8            -> 32
 *   D2 i386:           10: 16,            11: 8,        12: 0            -> 24
 *   D3 i386 L1 32:     10: 2·(32/2) = 32, 11: 32/3,     12: 0  = 42.67   -> 43
 *   D4 i386 L1 32:     10 anon: 32,       11, 12 file: 0                 -> 32
 *   D3 i386 L1 128:    10: 128,           11: 128/3 = 42.67              -> 170.67 -> 171
 */
static void test_pte_chain_exact(void)
{
	struct fake *f = fake_new();
	struct process *a = fake_process(f, 1, 0, 0);
	fake_vma(f, a, 0x400000, 0x500000, "rw-p", 0, "");
	fake_record(a, 0x400000, P | 10);
	fake_record(a, 0x401000, P | FILE_PAGE | 11);
	fake_record(a, 0x402000, P | 99);                 /* zero page */
	fake_record(a, 0x403000, PAGEMAP_SWAPPED | 0x1234);
	struct process *b = fake_process(f, 2, 1, 0);
	fake_vma(f, b, 0x400000, 0x500000, "rw-p", 0, "");
	fake_record(b, 0x400000, P | 10);
	fake_record(b, 0x401000, P | FILE_PAGE | 12);
	fake_kpage(f, 10, 2, FLAG(KPF_ANON));
	fake_kpage(f, 11, 3, 0);
	fake_kpage(f, 12, 1, 0);
	fake_kpage(f, 99, 40, FLAG(KPF_ZERO_PAGE));
	const char *const ids[] = { "2.4-rmap-i386", "2.5-direct-i386", "2.5-array-i386-l1-32",
				    "2.5.62-objrmap-i386-l1-32", "2.5-array-i386-l1-128" };
	struct model_result *r = run(f, ids, 5);
	CU_ASSERT_TRUE(r->designs[0].pte_chain_exact);
	CU_ASSERT_EQUAL(r->designs[0].pte_chain_bytes, 32);
	CU_ASSERT_EQUAL(r->designs[1].pte_chain_bytes, 24);
	CU_ASSERT_EQUAL(r->designs[2].pte_chain_bytes, 43);
	CU_ASSERT_EQUAL(r->designs[3].pte_chain_bytes, 32);
	CU_ASSERT_EQUAL(r->designs[4].pte_chain_bytes, 171);
	CU_ASSERT_EQUAL(r->zero_page_ptes, 1);
	CU_ASSERT_EQUAL(r->swap_ptes, 1);
	CU_ASSERT_EQUAL(r->present_ptes, 4);
	/* process a's PSS-style share under D1: 8 (PFN 10) + 8 (PFN 11) */
	CU_ASSERT_DOUBLE_EQUAL(r->process_figures[0].pte_chain_bytes[0], 16.0, 1e-9);
	/* work: exit removes every present non-zero PTE (4); D1 fork allocs one chain per copy */
	CU_ASSERT_EQUAL(r->designs[0].work.exit_rmap_calls, 4);
	CU_ASSERT_EQUAL(r->designs[0].work.fork_rmap_calls, 4);
	/* without kpages: m = record count (PFN 11: 1), nothing is the zero page,
	 * D4's anonymous is bit 61 clear: D1 = 16 + 8 + 8 (PFN 99 now counts) + 8 = 40 */
	f->snapshot.kpage_runs = NULL;
	f->snapshot.kpage_run_count = f->snapshot.kpage_count = 0;
	r = run(f, ids, 1);
	CU_ASSERT_EQUAL(r->designs[0].pte_chain_bytes, 40);
}

/*
 * Page tables: records at 0x400000, 0x401000 (window 2), 0x600000 (window 3),
 * 0x7f0000000000 (far): 3 PTE pages; 1 GiB windows {0, 0x1fc00}: 2 PMD pages;
 * 512 GiB windows {0, 254}: 2 PUD pages.  4096 · 7 = 28672 = VmPTE 28 kB.
 */
static void test_pagetables(void)
{
	struct fake *f = fake_new();
	struct process *a = fake_process(f, 1, 0, 28);
	fake_vma(f, a, 0x400000, 0x800000, "rw-p", 0, "");
	fake_vma(f, a, 0x7f0000000000, 0x7f0000001000, "rw-p", 0, "");
	fake_record(a, 0x400000, P | 1);
	fake_record(a, 0x401000, P | 2);
	fake_record(a, 0x600000, PAGEMAP_SWAPPED | 7);    /* swap entries occupy slots too */
	fake_record(a, 0x7f0000000000, P | 3);
	struct process *b = fake_process(f, 2, 1, 32);
	fake_vma(f, b, 0x400000, 0x401000, "rw-p", 0, "");
	fake_record(b, 0x400000, P | 1);
	struct model_result *r = run(f, NULL, 0);
	CU_ASSERT_EQUAL(r->process_figures[0].pte_pages, 3);
	CU_ASSERT_EQUAL(r->process_figures[0].upper_pages, 4);
	CU_ASSERT_EQUAL(r->process_figures[0].pagetable_bytes, 28672);
	CU_ASSERT_EQUAL(r->process_figures[1].pagetable_bytes, 3 * 4096);
	CU_ASSERT_EQUAL(r->pte_pages, 4);
	CU_ASSERT_EQUAL(r->pagetable_bytes, 28672 + 12288);
	/* a: VmPTE 28 kB matches; b: VmPTE 32 kB is 20 kB above the model */
	CU_ASSERT_EQUAL(r->processes_pagetable_exact, 1);
	CU_ASSERT_EQUAL(r->vmpte_above_model_bytes, 32768 - 12288);
	CU_ASSERT_EQUAL(r->vmpte_bytes, 28672 + 32768);
}

/* 512 consecutive PFNs from an aligned compound THP head: PMD-mapped.  An
 * anonymous one still costs its deposited PTE page; a file one does not;
 * 511 records are never PMD-mapped. */
static void test_thp_windows(void)
{
	struct fake *f = fake_new();
	struct process *a = fake_process(f, 1, 0, 0);
	fake_vma(f, a, 0x200000, 0x800000, "rw-p", 0, "");
	for (uint64_t i = 0; i < 512; i++)
		fake_record(a, 0x200000 + i * 4096, P | (0x400 + i));            /* anon THP */
	for (uint64_t i = 0; i < 512; i++)
		fake_record(a, 0x400000 + i * 4096, P | FILE_PAGE | (0x800 + i)); /* file THP */
	for (uint64_t i = 0; i < 511; i++)
		fake_record(a, 0x600000 + i * 4096, P | (0xc00 + i));             /* one short */
	const uint64_t head = FLAG(KPF_COMPOUND_HEAD) | FLAG(KPF_THP);
	fake_kpage(f, 0x400, 1, head | FLAG(KPF_ANON));
	fake_kpage(f, 0x800, 1, head);
	fake_kpage(f, 0xc00, 1, head | FLAG(KPF_ANON));
	struct model_result *r = run(f, NULL, 0);
	CU_ASSERT_EQUAL(r->pmd_mapped_windows, 2);
	CU_ASSERT_EQUAL(r->pte_pages, 2);      /* 3 windows - the file THP window */
	/* unaligned first PFN: not PMD-mapped */
	for (uint64_t i = 0; i < 512; i++)
		fake_records(a)[i].entry = P | (0x401 + i);
	f->kpages[0].pfn = 0x401;
	r = run(f, NULL, 0);
	CU_ASSERT_EQUAL(r->pmd_mapped_windows, 1);
	CU_ASSERT_EQUAL(r->pte_pages, 2);
	/* the capture says which ranges PMDs map (PID/pmd_mapped): only the
	 * anonymous window 0x200000 (its first PFN no longer aligned: the
	 * ranges decide, not the PFNs).  The file folio at 0x400000 is mapped
	 * by 512 PTEs: it costs a PTE page, as does 0x600000:
	 * 3 PTE pages (the anonymous one deposited), 1 PMD-mapped window */
	static struct address_range ranges[] = { { 0x200000, 0x400000 } };
	f->snapshot.pmd_ranges = ranges;
	f->snapshot.pmd_range_count = 1;
	a->has_pmd_map = true;
	a->pmd_first = 0;
	a->pmd_count = 1;
	r = run(f, NULL, 0);
	CU_ASSERT_EQUAL(r->pmd_mapped_windows, 1);
	CU_ASSERT_EQUAL(r->pte_pages, 3);
	/* scanned and none: no window is PMD-mapped, whatever the PFNs */
	a->pmd_count = 0;
	r = run(f, NULL, 0);
	CU_ASSERT_EQUAL(r->pmd_mapped_windows, 0);
	CU_ASSERT_EQUAL(r->pte_pages, 3);
	f->snapshot.pmd_ranges = NULL;
}

/*
 * Without PID/pmd_mapped, smaps' count decides, worked by hand.  One file
 * VMA r--s of 4 windows; each window holds 512 consecutive PFNs from an
 * aligned THP head (2 MiB page-cache folios).  smaps FilePmdMapped 4096 kB:
 * 2 windows are PMD-mapped, 2 are the same kind of folio mapped by PTEs.
 *   PTE pages: 4 windows - 2 file PMD windows = 2 (the records alone: 0)
 *   which 2 is unknown: 2 x min(2, 4 - 2) = 4 windows may be taken wrongly
 * Without kpages the records (512 present, consecutive, aligned) say the same.
 * With smaps counting 0, none is PMD-mapped: 4 PTE pages, nothing ambiguous.
 */
static void test_pmd_windows_from_smaps(void)
{
	struct fake *f = fake_new();
	struct process *a = fake_process(f, 1, 0, 0);
	struct vma *v = fake_vma(f, a, 0x200000, 0xa00000, "r--s", 5, "/data/big");
	fake_kb(v)[SMAPS_FILE_PMD_MAPPED] = 4096;
	v->present_fields = 1u << SMAPS_ANON_HUGE_PAGES | 1u << SMAPS_SHMEM_PMD_MAPPED | 1u << SMAPS_FILE_PMD_MAPPED;
	for (uint64_t w = 0; w < 4; w++) {
		for (uint64_t i = 0; i < 512; i++)
			fake_record(a, 0x200000 + w * 0x200000 + i * 4096, P | FILE_PAGE | (0x1000 + w * 512 + i));
		fake_kpage(f, 0x1000 + w * 512, 1, FLAG(KPF_COMPOUND_HEAD) | FLAG(KPF_THP));
	}
	struct model_result *r = run(f, NULL, 0);
	CU_ASSERT_EQUAL(r->pte_pages, 2);
	CU_ASSERT_EQUAL(r->pmd_mapped_windows, 2);
	CU_ASSERT_EQUAL(r->pmd_ambiguous_windows, 4);
	f->snapshot.kpage_runs = NULL;
	f->snapshot.kpage_run_count = f->snapshot.kpage_count = 0;
	r = run(f, NULL, 0);
	CU_ASSERT_EQUAL(r->pte_pages, 2);
	CU_ASSERT_EQUAL(r->pmd_mapped_windows, 2);
	fake_kb(v)[SMAPS_FILE_PMD_MAPPED] = 0;
	r = run(f, NULL, 0);
	CU_ASSERT_EQUAL(r->pte_pages, 4);
	CU_ASSERT_EQUAL(r->pmd_mapped_windows, 0);
	CU_ASSERT_EQUAL(r->pmd_ambiguous_windows, 0);
}

/*
 * THP at fork and exit, worked by hand (6.1-x86_64 and 2.4-rmap-i386).
 *   VMA A anonymous rw-p, 3 windows, with an anon_vma:
 *     w1 an anonymous THP mapped by a PMD (PFNs 0x400..), w2 another (0x800..),
 *     w3 three small anonymous pages (PFNs 20-22);
 *   VMA B file r--p, 1 window, no anon_vma: a file THP mapped by a PMD (0xc00..).
 * exit: zap_huge_pmd makes one call per PMD: 1 + 1 + 3 + 1 = 6 calls, of
 *       512 + 512 + 3 + 512 = 1539 pages.
 * fork: copy_huge_pmd dups each anonymous PMD with one call; the file PMD is
 *       never copied: 1 + 1 + 3 = 5 calls, of 1027 pages, in every design.
 * fork copies 3 PTE pages: one deposited for each anonymous huge PMD, one
 *       holding w3's 3 PTEs; 3 PTEs (a PMD is not a PTE).
 */
static void test_thp_fork_exit(void)
{
	struct fake *f = fake_new();
	struct process *a = fake_process(f, 1, 0, 0);
	fake_kb(fake_vma(f, a, 0x200000, 0x800000, "rw-p", 0, ""))[SMAPS_ANONYMOUS] = 4108;
	fake_vma(f, a, 0x800000, 0xa00000, "r--p", 5, "/lib/big");
	for (uint64_t i = 0; i < 512; i++) {
		fake_record(a, 0x200000 + i * 4096, P | PAGEMAP_EXCLUSIVE | (0x400 + i));
		fake_record(a, 0x400000 + i * 4096, P | PAGEMAP_EXCLUSIVE | (0x800 + i));
	}
	for (uint64_t i = 0; i < 3; i++)
		fake_record(a, 0x600000 + i * 4096, P | PAGEMAP_EXCLUSIVE | (20 + i));
	for (uint64_t i = 0; i < 512; i++)
		fake_record(a, 0x800000 + i * 4096, P | FILE_PAGE | (0xc00 + i));
	/* records must ascend: the two anonymous THPs were written interleaved */
	struct pagemap_record *records = fake_records(a);
	for (size_t i = 0; i < 1024; i++)
		records[i] = (struct pagemap_record){ 0x200000 + i * 4096,
			P | PAGEMAP_EXCLUSIVE | (i < 512 ? 0x400 + i : 0x800 + i - 512) };
	const uint64_t head = FLAG(KPF_COMPOUND_HEAD) | FLAG(KPF_THP);
	fake_kpage(f, 20, 1, FLAG(KPF_ANON));
	fake_kpage(f, 21, 1, FLAG(KPF_ANON));
	fake_kpage(f, 22, 1, FLAG(KPF_ANON));
	fake_kpage(f, 0x400, 1, head | FLAG(KPF_ANON));
	fake_kpage(f, 0x800, 1, head | FLAG(KPF_ANON));
	fake_kpage(f, 0xc00, 1, head);
	const char *const ids[] = { "6.1-x86_64", "2.4-rmap-i386" };
	struct model_result *r = run(f, ids, 2);
	for (size_t d = 0; d < 2; d++)
		CU_ASSERT_EQUAL(r->designs[d].work.exit_rmap_pages, 1539);
	CU_ASSERT_EQUAL(r->designs[0].work.exit_rmap_calls, 6);
	CU_ASSERT_EQUAL(r->designs[0].work.fork_rmap_calls, 5);
	CU_ASSERT_EQUAL(r->designs[0].work.fork_rmap_anon_calls, 5);
	CU_ASSERT_EQUAL(r->designs[0].work.fork_rmap_pages, 1027);
	/* 2.4 had no THP: the same pages are 1539 PTEs, every one copied at fork */
	CU_ASSERT_EQUAL(r->designs[1].work.exit_rmap_calls, 1539);
	CU_ASSERT_EQUAL(r->designs[1].work.fork_rmap_calls, 1539);
	CU_ASSERT_EQUAL(r->designs[1].work.fork_rmap_anon_calls, 1027);
	CU_ASSERT_EQUAL(r->designs[1].work.fork_rmap_pages, 1539);
	CU_ASSERT_EQUAL(r->fork_copy.pte_pages, 3);
	CU_ASSERT_EQUAL(r->fork_copy.ptes, 3);
	CU_ASSERT_EQUAL(r->pte_pages, 3);      /* 4 windows - the file PMD's */
}

/*
 * Every event at folio granularity, worked by hand.  Process 1 and its
 * forked child 2 map one anonymous THP by a PMD each (PFNs 0x400-0x5ff,
 * mapcount 2); 1 also maps two small anonymous pages (PFNs 20, 21) and a
 * shmem THP by a PMD (PFNs 0xc00-0xdff, a VMA without anon_vma).
 * 1538 PTE-sized mappings of 1026 pages.
 * 6.1 (<huge-pmd rmap="whole">): a PMD is one call and one walk.
 *   exit 1 + 2 + 1 (process 1) + 1 (process 2) = 5 calls, 3 of them PMDs,
 *     2 anonymous PMDs; fork copies the anon VMAs only (lazy fork, and
 *     copy_huge_pmd leaves a shmem PMD): 1 + 2 + 1 = 4 calls, 2 PMDs;
 *   faults: 2 THP faults + 2 small = 4 anon, 4 anon_vma_prepare, 1 file
 *     fault (do_set_pmd), 5 rmap calls;
 *   munmap per VMA: 1, 2, 1, 1 -> median 1, max 2 (process 1's small pages);
 *   reclaim (reclaim="folio"): 4 walks of 1026 pages: the anon THP visits
 *     2 VMAs (1's and the fork copy chained to its anon_vma) and finds 2,
 *     the small pages and the shmem THP 1 each: 5 visits, median 1, p99 2;
 *     removals: each anon PMD split into 512 PTEs removed (1024), the small
 *     pages 2, the shmem PMD zapped by its split (0): 1026.
 * 2.6.34 (THP from 2.6.38, reclaim="split"): calls as 6.1, but reclaim
 *   splits the THP first: 1026 walks, 512 x 2 + 2 + 512 = 1538 visits.
 * 2.4-rmap (no THP): the same pages by PTEs, a call and a walk a page:
 *   exit and fork 1538 calls, 1026 anon faults + 512 file, munmap
 *   512, 2, 512, 512 -> median 512; reclaim 1026 walks, 1538 chain
 *   entries and removals, median 1 (514 walks of 1 of 1026), p99 2.
 */
static void test_thp_events(void)
{
	struct fake *f = fake_new();
	struct process *parent = fake_process(f, 1, 0, 0), *child = NULL;
	fake_kb(fake_vma(f, parent, 0x200000, 0x400000, "rw-p", 0, ""))[SMAPS_ANONYMOUS] = 2048;
	fake_kb(fake_vma(f, parent, 0x600000, 0x602000, "rw-p", 0, ""))[SMAPS_ANONYMOUS] = 8;
	fake_vma(f, parent, 0x800000, 0xa00000, "rw-s", 7, "/dev/shm/buffer");
	child = fake_process(f, 2, 1, 0);
	fake_kb(fake_vma(f, child, 0x200000, 0x400000, "rw-p", 0, ""))[SMAPS_ANONYMOUS] = 2048;
	for (uint64_t i = 0; i < 512; i++)
		fake_record(parent, 0x200000 + i * 4096, P | (0x400 + i));
	fake_record(parent, 0x600000, P | PAGEMAP_EXCLUSIVE | 20);
	fake_record(parent, 0x601000, P | PAGEMAP_EXCLUSIVE | 21);
	for (uint64_t i = 0; i < 512; i++)
		fake_record(parent, 0x800000 + i * 4096, P | FILE_PAGE | (0xc00 + i));
	for (uint64_t i = 0; i < 512; i++)
		fake_record(child, 0x200000 + i * 4096, P | (0x400 + i));
	const uint64_t head = FLAG(KPF_COMPOUND_HEAD) | FLAG(KPF_THP);
	fake_kpage(f, 20, 1, FLAG(KPF_ANON));
	fake_kpage(f, 21, 1, FLAG(KPF_ANON));
	fake_kpage(f, 0x400, 2, head | FLAG(KPF_ANON));
	fake_kpage(f, 0xc00, 1, head);
	const char *const ids[] = { "6.1-x86_64", "2.4-rmap-x86_64", "2.6.34-avc-x86_64" };
	struct model_result *r = run(f, ids, 3);
	const struct model_design *now = &r->designs[0], *old = &r->designs[1], *split = &r->designs[2];
	const struct event_work *w = &now->work;
	CU_ASSERT_EQUAL(r->pmd_mapped_windows, 3);
	EXPECT_COUNTS(IS(w->exit_rmap_calls, 5), IS(w->exit_rmap_pmd_calls, 3), IS(w->exit_rmap_anon_pmd_calls, 2),
		      IS(w->exit_rmap_pages, 1538), IS(w->fork_rmap_calls, 4), IS(w->fork_rmap_pmd_calls, 2));
	EXPECT_COUNTS(IS(w->faults[FAULT_ANON].faults, 4), IS(w->faults[FAULT_ANON].pmd_faults, 2),
		      IS(w->faults[FAULT_ANON].rmap_calls, 4), IS(w->faults[FAULT_ANON].anon_vma_prepares, 4),
		      IS(w->faults[FAULT_FILE].faults, 1), IS(w->faults[FAULT_FILE].pmd_faults, 1));
	EXPECT_COUNTS(IS(now->munmap.median_calls, 1), IS(now->munmap.max_calls, 2));
	EXPECT_COUNTS(IS(now->reclaim.pages, 1026), IS(now->reclaim.walks, 4), IS(now->reclaim.anon_walks, 3),
		      IS(now->reclaim.visited, 5), IS(now->reclaim.found, 5), IS(now->reclaim.removes, 1026),
		      IS(now->reclaim.walk_median, 1), IS(now->reclaim.walk_p99, 2));
	w = &old->work;
	EXPECT_COUNTS(IS(w->exit_rmap_calls, 1538), IS(w->exit_rmap_pmd_calls, 0), IS(w->fork_rmap_calls, 1538),
		      IS(w->faults[FAULT_ANON].faults, 1026), IS(w->faults[FAULT_ANON].pmd_faults, 0),
		      IS(w->faults[FAULT_FILE].faults, 512));
	EXPECT_COUNTS(IS(old->munmap.median_calls, 512), IS(old->munmap.max_calls, 512));
	EXPECT_COUNTS(IS(old->reclaim.walks, 1026), IS(old->reclaim.visited, 1538), IS(old->reclaim.removes, 1538),
		      IS(old->reclaim.walk_median, 1), IS(old->reclaim.walk_p99, 2));
	EXPECT_COUNTS(IS(split->work.exit_rmap_calls, 5), IS(split->work.faults[FAULT_ANON].pmd_faults, 2),
		      IS(split->reclaim.walks, 1026), IS(split->reclaim.visited, 1538), IS(split->reclaim.removes, 1538));
}

/*
 * Sharing without pagemap: bounds, worked by hand.  Two processes map one
 * file r--s at [1 GiB, 1 GiB + 8 MiB): 4 whole 2 MiB windows, each VMA in
 * one PMD and one PUD window.  No pagemap.
 *   1: Rss 2 MiB (512 pages), VmPTE 12 kB = 3 pages;
 *   2: Rss 8 MiB (2048 pages), VmPTE 24 kB = 6 pages.
 * upper: each VMA with pages counts as populating all 4 windows: 4 x (2-1) = 4,
 *        credited 2 to each; but a process is credited at most its PTE pages,
 *        VmPTE less the PMD and PUD pages it surely has: 1: 3 - 2 = 1,
 *        2: 6 - 2 = 4.  So 1 + 2 = 3.
 * lower: 1 populates at least ceil(512/512) = 1 window, 2 at least 4, of 4:
 *        at least 1 + 4 - 4 = 1 window holds both.  (The truth: 1.)
 * whole: VmPTE 12 + 24 kB = 36 KiB, known (lower = upper).
 */
static void test_sharing_bounds(void)
{
	struct fake *f = fake_new();
	const uint64_t vm_pte[2] = { 12, 24 }, rss[2] = { 2048, 8192 };
	for (int i = 0; i < 2; i++) {
		struct process *p = fake_process(f, i + 1, 1, vm_pte[i]);
		p->has_pagemap = false;
		struct vma *v = fake_vma(f, p, 0x40000000, 0x40800000, "r--s", 5, "/data/x");
		fake_kb(v)[SMAPS_SIZE] = 8192;
		fake_kb(v)[SMAPS_RSS] = rss[i];
	}
	const char *const ids[] = { "shpt-2006" };
	struct model_result *r = run(f, ids, 1);
	CU_ASSERT_FALSE(r->sharing[0].exact);
	CU_ASSERT_EQUAL(r->sharing[0].sharable_pages, 3);
	CU_ASSERT_EQUAL(r->sharing[0].sharable_pages_lower, 1);
	CU_ASSERT_DOUBLE_EQUAL(r->process_figures[0].sharable_pages[0], 1.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->process_figures[1].sharable_pages[0], 2.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->pagetable_whole.lower, 36864, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->pagetable_whole.upper, 36864, 1e-9);
	/* a part never exceeds its whole */
	CU_ASSERT(r->sharing[0].sharable_bytes <= r->pagetable_whole.lower);
}

/*
 * Sharing.  File inode 5 "r-xp", 4 MiB at 0x200000 in processes 1 and 2 (two
 * whole windows 1 and 2), and at 0x10200000 in process 3 (same length and
 * offset).  1 and 2 populate window 1 with PFN 100; 1 also populates window 2;
 * 3 populates its first window with PFN 100 at slot 0.
 *   shpt-2006:       group {1, 2}: window 1 n = 2 -> 1, window 2 n = 1 -> 0;
 *                    group {3} alone -> total 1
 *   aligned-what-if: group {1, 2, 3}: k = 0 n = 3 -> 2, k = 1 n = 1 -> 0 -> 2
 *   identical:       {1w1, 2w1, 3w0} share a vector -> 2; {1w2} -> 0 -> 2
 * A writable private mapping of the same file (process 4) is not eligible.
 */
static void test_sharing(void)
{
	struct fake *f = fake_new();
	struct process *p[4];
	const uint64_t starts[4] = { 0x200000, 0x200000, 0x10200000, 0x200000 };
	for (int i = 0; i < 4; i++) {
		/* a process's VMAs must follow it in the VMA array */
		p[i] = fake_process(f, i + 1, 1, 0);
		fake_vma(f, p[i], starts[i], starts[i] + 0x400000, i == 3 ? "rw-p" : "r-xp", 5, "/lib/x.so");
	}
	fake_record(p[0], 0x200000, P | FILE_PAGE | 100);
	fake_record(p[0], 0x400000, P | FILE_PAGE | 101);
	fake_record(p[1], 0x200000, P | FILE_PAGE | 100);
	fake_record(p[2], 0x10200000, P | FILE_PAGE | 100);
	fake_record(p[3], 0x200000, P | FILE_PAGE | 100);
	const char *const ids[] = { "shpt-2006", "aligned-what-if", "identical" };
	struct model_result *r = run(f, ids, 3);
	CU_ASSERT_EQUAL(r->sharing[0].sharable_pages, 1);
	CU_ASSERT_EQUAL(r->sharing[0].sharable_bytes, 4096);
	CU_ASSERT_EQUAL(r->sharing[0].eligible_vmas, 3);
	CU_ASSERT_EQUAL(r->sharing[1].sharable_pages, 2);
	/* identical also sees process 4: same slot, PFN, but "rw-p" -> a vector of its own */
	CU_ASSERT_EQUAL(r->sharing[2].sharable_pages, 2);
	CU_ASSERT_TRUE(r->sharing[2].exact);
	/* each of 1w1, 2w1, 3w0 is credited (3 - 1)/3; 1w2 and 4's window 0 */
	const double identical_credit[4] = { 2.0 / 3, 2.0 / 3, 2.0 / 3, 0 };
	for (int i = 0; i < 4; i++)
		CU_ASSERT_DOUBLE_EQUAL(r->process_figures[i].sharable_pages[2], identical_credit[i], 1e-12);
	CU_ASSERT_EQUAL(r->sharing[0].file_count, 1);
	CU_ASSERT_STRING_EQUAL(r->sharing[0].files[0].path, "/lib/x.so");
	/* PSS-style credit: processes 1 and 2 each saved half a page */
	CU_ASSERT_DOUBLE_EQUAL(r->process_figures[0].sharable_pages[0], 0.5, 1e-9);
	/* the swap entry is a different vector from the PFN with the same bits */
	fake_records(p[1])[0].entry = PAGEMAP_SWAPPED | FILE_PAGE | 100;
	r = run(f, ids + 2, 1);
	CU_ASSERT_EQUAL(r->sharing[0].sharable_pages, 1);
}

/*
 * Identical windows cut by VMA edges.  Four processes hold the PTE window
 * [2 MiB, 4 MiB) with PFN 100 at slot 0 and PFN 101 at slot 1:
 *   1 and 4: two VMAs [2 MiB, +4 KiB) and [+4 KiB, 4 MiB), both "r--p";
 *   2: one VMA over the window, "r--p";
 *   3: the same two VMAs as 1, the second "rw-p".
 * Slot by slot 1, 2 and 4 hold the same PFNs and permissions (where the
 * VMAs split does not matter): one vector of 3 -> 2 pages; 3 differs in
 * slot 1's permissions -> 0.  Total 2.
 */
static void test_identical_cut_windows(void)
{
	struct fake *f = fake_new();
	for (int i = 0; i < 4; i++) {
		struct process *p = fake_process(f, i + 1, 1, 0);
		if (i == 1) {
			fake_vma(f, p, 0x200000, 0x400000, "r--p", 5, "/lib/x.so");
		} else {
			fake_vma(f, p, 0x200000, 0x201000, "r--p", 5, "/lib/x.so");
			fake_vma(f, p, 0x201000, 0x400000, i == 2 ? "rw-p" : "r--p", 5, "/lib/x.so");
		}
		fake_record(p, 0x200000, P | FILE_PAGE | 100);
		fake_record(p, 0x201000, P | FILE_PAGE | 101);
	}
	const char *const ids[] = { "identical" };
	struct model_result *r = run(f, ids, 1);
	CU_ASSERT_EQUAL(r->sharing[0].sharable_pages, 2);
	CU_ASSERT_DOUBLE_EQUAL(r->process_figures[2].sharable_pages[0], 0.0, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->process_figures[3].sharable_pages[0], 2.0 / 3.0, 1e-9);
}

#define GIB (UINT64_C(1) << 30)

/*
 * hugetlb PMD sharing: partners are mappings of the same file at the same
 * file index, whatever their address.  Processes 1-3 map file 42 offset 0
 * over a whole 1 GiB window (process 3 at another address), process 4 at
 * offset 1 GiB: one window, three partners, 3 - 1 = 2 PMD pages; process 4
 * alone shares nothing.  Without VmFlags ht (not hugetlbfs) nothing is eligible.
 */
static void test_hugetlb_pmd(void)
{
	struct fake *f = fake_new();
	const uint64_t starts[4] = { GIB, GIB, 3 * GIB, GIB };
	for (int i = 0; i < 4; i++) {
		struct process *p = fake_process(f, i + 1, 1, 0);
		struct vma *v = fake_vma(f, p, starts[i], starts[i] + GIB, "rw-s", 42, "/dev/hugepages/db");
		v->offset = i == 3 ? GIB : 0;
		v->vm_flags |= UINT64_C(1) << VMF_HT | UINT64_C(1) << VMF_MS;
		fake_record(p, starts[i], P | FILE_PAGE | (UINT64_C(512) * (uint64_t)(i + 1)));
	}
	const char *const ids[] = { "hugetlb-pmd" };
	struct model_result *r = run(f, ids, 1);
	CU_ASSERT_EQUAL(r->sharing[0].sharable_pages, 2);
	CU_ASSERT_EQUAL(r->sharing[0].sharable_bytes, 2 * 4096);
	CU_ASSERT_EQUAL(r->sharing[0].eligible_vmas, 4);
	for (int i = 0; i < 4; i++)
		f->vmas[i].vm_flags &= ~(UINT64_C(1) << VMF_HT);
	r = run(f, ids, 1);
	CU_ASSERT_EQUAL(r->sharing[0].sharable_pages, 0);
	CU_ASSERT_EQUAL(r->sharing[0].eligible_vmas, 0);
}

/*
 * Members without pagemap count every window of their VMA (an upper bound)
 * and are counted as runs, in closed form; members with pagemap count the
 * windows they populated.  hugetlb-pmd names 1 GiB windows by file offset
 * (here in GiB), file 42:
 *   1 no pagemap, offset 0, 4 GiB:             names 0 1 2 3
 *   2 no pagemap, offset 2, 3 GiB:             names     2 3 4
 *   3 pagemap,    offset 3, 2 GiB, a record in both windows: 3 4
 *   4 no pagemap, as process 1 but Rss 0:      nothing
 *   5 no pagemap, offset 2^64 - 1 GiB, 2 GiB:  names 2^64 - 1 GiB and, past
 *     2^64, 0 (file offsets wrap as the names do)
 * copies per name: 0: 2, 1: 1, 2: 2, 3: 3, 4: 2, 2^64 - 1 GiB: 1, so
 * saved 1 + 0 + 1 + 2 + 1 + 0 = 5; each copy is credited (n - 1)/n:
 *   1: 1/2 + 0 + 1/2 + 2/3 = 5/3    2: 1/2 + 2/3 + 1/2 = 5/3
 *   3: 2/3 + 1/2 = 7/6              4: 0          5: 0 + 1/2 = 1/2
 * shpt-2006, file 43 at [2 MiB, 8 MiB): process 6 without pagemap counts
 * windows 1, 2, 3; process 7 has two records in window 1: one saved, 1/2 each.
 */
static void test_mixed_runs(void)
{
	struct fake *f = fake_new();
	static const struct { uint64_t start_gib, length_gib, offset, rss_kb; bool pagemap; } hugetlb[] = {
		{ 4, 4, 0, 4, false }, { 16, 3, 2 * GIB, 4, false }, { 32, 2, 3 * GIB, 8, true },
		{ 4, 4, 0, 0, false }, { 64, 2, 0 - GIB, 4, false },
	};
	for (int i = 0; i < 5; i++) {
		struct process *p = fake_process(f, i + 1, 1, 0);
		p->has_pagemap = hugetlb[i].pagemap;
		p->status.has_vm_pte = false;   /* no VmPTE: shares are capped by smaps bounds only */
		uint64_t start = hugetlb[i].start_gib * GIB;
		struct vma *v = fake_vma(f, p, start, start + hugetlb[i].length_gib * GIB, "rw-s", 42, "/dev/hugepages/db");
		v->offset = hugetlb[i].offset;
		fake_kb(v)[SMAPS_RSS] = hugetlb[i].rss_kb;
		v->vm_flags |= UINT64_C(1) << VMF_HT | UINT64_C(1) << VMF_MS;
		if (p->has_pagemap) {
			fake_record(p, start, P | FILE_PAGE | 512);
			fake_record(p, start + GIB, P | FILE_PAGE | 1024);
		}
	}
	struct process *q = fake_process(f, 6, 1, 0);
	q->has_pagemap = false;
	q->status.has_vm_pte = false;
	fake_kb(fake_vma(f, q, 0x200000, 0x800000, "r--s", 43, "/data"))[SMAPS_RSS] = 4;
	q = fake_process(f, 7, 1, 0);
	fake_kb(fake_vma(f, q, 0x200000, 0x800000, "r--s", 43, "/data"))[SMAPS_RSS] = 8;
	fake_record(q, 0x200000, P | FILE_PAGE | 7);
	fake_record(q, 0x201000, P | FILE_PAGE | 8);
	const char *const ids[] = { "hugetlb-pmd", "shpt-2006" };
	struct model_result *r = run(f, ids, 2);
	CU_ASSERT_EQUAL(r->sharing[0].sharable_pages, 5);
	const double credit[] = { 5.0 / 3, 5.0 / 3, 7.0 / 6, 0, 0.5, 0, 0 };
	for (int i = 0; i < 7; i++)
		CU_ASSERT_DOUBLE_EQUAL(r->process_figures[i].sharable_pages[0], credit[i], 1e-9);
	CU_ASSERT_EQUAL(r->sharing[1].sharable_pages, 1);
	CU_ASSERT_DOUBLE_EQUAL(r->process_figures[5].sharable_pages[1], 0.5, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->process_figures[6].sharable_pages[1], 0.5, 1e-9);
}

/*
 * mshare: one 512 GiB region, shared file mapping, in two processes.  Its
 * subtree per process: process 1 has pages in 2 MiB windows a and b (same
 * 1 GiB), process 2 in a and c (c in another 1 GiB window).
 *   process 1: PTE a, b + PMD 0 + PUD = 4 pages; process 2: PTE a, c + PMD 0, 1 + PUD = 5.
 *   shared, one subtree holds the union: PTE a, b, c + PMD 0, 1 + PUD = 6.
 *   saving = 4 + 5 - 6 = 3 (not 4 + 5 - 5 = 4: the copies differ).
 */
static void test_mshare_union(void)
{
	struct fake *f = fake_new();
	const uint64_t base = UINT64_C(512) * GIB, a = base, b = base + (2 << 20), c = base + GIB;
	struct process *p1 = fake_process(f, 1, 1, 0);
	fake_vma(f, p1, base, base + 512 * GIB, "rw-s", 77, "/dev/shm/region");
	struct process *p2 = fake_process(f, 2, 1, 0);
	fake_vma(f, p2, base, base + 512 * GIB, "rw-s", 77, "/dev/shm/region");
	fake_record(p1, a, P | FILE_PAGE | 10);
	fake_record(p1, b, P | FILE_PAGE | 11);
	fake_record(p2, a, P | FILE_PAGE | 10);
	fake_record(p2, c, P | FILE_PAGE | 12);
	const char *const ids[] = { "mshare" };
	struct model_result *r = run(f, ids, 1);
	CU_ASSERT_EQUAL(r->sharing[0].sharable_pages, 3);
	/* PSS-style credit: 3 pages saved over 9 kept, 4 of them process 1's */
	CU_ASSERT_DOUBLE_EQUAL(r->process_figures[0].sharable_pages[0], 4.0 * 3 / 9, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(r->process_figures[1].sharable_pages[0], 5.0 * 3 / 9, 1e-9);
}

/*
 * Crediting a group without walking its records again, and walking them
 * again when the group has more slots than are kept (16,384).  n processes
 * map one 512 GiB region (mshare) with a page in each of 2,048 2 MiB windows
 * (4 GiB, so 4 PMD pages): each keeps 2,048 + 4 + 1 = 2,053 pages, all of
 * them the same as every other's.  Shared, 2,053 remain: the saving is
 * (n - 1) x 2,053, credited (n - 1)/n per page, 2,053 (n - 1)/n a process.
 *   n = 7: 14,371 slots (kept): 12,318 saved, 1,759.714... each;
 *   n = 8: 16,424 slots (walked again): 14,371 saved, 1,796.375 each.
 */
static void mshare_every_window(int processes)
{
	struct fake *f = fake_new();
	const uint64_t base = UINT64_C(512) * GIB;
	for (int i = 0; i < processes; i++) {
		struct process *p = fake_process(f, i + 1, 1, 0);
		fake_vma(f, p, base, base + 512 * GIB, "rw-s", 77, "/dev/shm/region");
		for (uint64_t k = 0; k < 2048; k++)
			fake_record(p, base + (k << 21), P | FILE_PAGE | (1000 + k));
	}
	const char *const ids[] = { "mshare" };
	struct model_result *r = run(f, ids, 1);
	CU_ASSERT_EQUAL(r->sharing[0].sharable_pages, (uint64_t)(processes - 1) * 2053);
	for (int i = 0; i < processes; i++)
		CU_ASSERT_DOUBLE_EQUAL(r->process_figures[i].sharable_pages[0],
				       2053.0 * (processes - 1) / processes, 1e-6);
	free_fixture();                /* a test calls this twice: one fake at a time */
}

static void test_credit_kept_slots(void)
{
	mshare_every_window(7);
	mshare_every_window(8);
}

static void test_eligibility(void)
{
	design("2.4-rmap-i386");
	const struct sharing_rule *rule = profiles_find_rule(&profiles, "shpt-2006");
	CU_ASSERT_PTR_NOT_NULL_FATAL(rule);
	struct vma v = { .start = 0x200000, .end = 0x400000, .inode = 9, .perms = "r--p" };
	CU_ASSERT_TRUE(sharing_vma_eligible(rule, &v));
	v.end = 0x3ff000;                                  /* under 2 MiB */
	CU_ASSERT_FALSE(sharing_vma_eligible(rule, &v));
	CU_ASSERT_TRUE(sharing_vma_eligible_any_size(rule, &v)); /* of the rule's kind all the same */
	CU_ASSERT_FALSE(sharing_vma_large_enough(rule, &v));
	v.end = 0x400000;
	memcpy(v.perms, "rw-p", 5);                        /* writable private */
	CU_ASSERT_FALSE(sharing_vma_eligible(rule, &v));
	CU_ASSERT_FALSE(sharing_vma_eligible_any_size(rule, &v)); /* not its kind at any size */
	CU_ASSERT_TRUE(sharing_vma_large_enough(rule, &v));
	memcpy(v.perms, "rw-s", 5);                        /* writable shared */
	CU_ASSERT_TRUE(sharing_vma_eligible(rule, &v));
	v.vm_flags = UINT64_C(1) << VMF_PF;                /* VM_PFNMAP */
	CU_ASSERT_FALSE(sharing_vma_eligible(rule, &v));
	v.vm_flags = 0;
	v.inode = 0;                                       /* anonymous */
	CU_ASSERT_FALSE(sharing_vma_eligible(rule, &v));
	/* the kind key: another file, address or size, the same key and kind */
	struct vma w = { .start = 0x7f0000000000, .end = 0x7f0000001000, .inode = 12, .perms = "r--p" };
	v.inode = 9;
	memcpy(v.perms, "r--p", 5);
	struct sharing_kind_key kv = sharing_vma_kind_key(&v), kw = sharing_vma_kind_key(&w);
	CU_ASSERT_TRUE(kv.vm_flags == kw.vm_flags && kv.anonymous == kw.anonymous &&
		       kv.writable_private == kw.writable_private);
	CU_ASSERT_TRUE(sharing_kind_eligible(rule, kw));
	memcpy(w.perms, "rw-p", 5);                        /* writable private: a key of its own */
	CU_ASSERT_TRUE(sharing_vma_kind_key(&w).writable_private);
	CU_ASSERT_FALSE(sharing_kind_eligible(rule, sharing_vma_kind_key(&w)));
	w.inode = 0;
	memcpy(w.perms, "r--p", 5);                        /* anonymous */
	CU_ASSERT_FALSE(sharing_kind_eligible(rule, sharing_vma_kind_key(&w)));
}

/* Object rmap: a parent and a child share anonymous PFN 7 (one fork family
 * for 2.6.7: 1 anon_vma; 2.6.34+: two anon_vmas, the child's VMA has depth 1
 * so 1 + 2 = 3 chains).  VMAs: 2, each with the per-VMA fields. */
static void test_object_rmap(void)
{
	struct fake *f = fake_new();
	struct process *parent = fake_process(f, 10, 1, 0);
	struct vma *pv = fake_vma(f, parent, 0x400000, 0x401000, "rw-p", 0, "");
	struct process *child = fake_process(f, 11, 10, 0);
	struct vma *cv = fake_vma(f, child, 0x400000, 0x401000, "rw-p", 0, "");
	fake_kb(pv)[SMAPS_ANONYMOUS] = fake_kb(cv)[SMAPS_ANONYMOUS] = 4;
	fake_record(parent, 0x400000, P | 7);
	fake_record(child, 0x400000, P | 7);
	fake_kpage(f, 7, 2, FLAG(KPF_ANON));
	const char *const ids[] = { "2.6.7-anon_vma-x86_64", "6.1-x86_64" };
	struct model_result *r = run(f, ids, 2);
	CU_ASSERT_EQUAL(r->designs[0].anon_vma_count, 1);
	CU_ASSERT_EQUAL(r->designs[0].object_rmap_bytes, 2 * 40 + 24);
	CU_ASSERT_EQUAL(r->designs[1].anon_vma_count, 2);
	CU_ASSERT_EQUAL(r->designs[1].anon_vma_chain_count, 3);
	CU_ASSERT_EQUAL(r->designs[1].object_rmap_bytes, 2 * 40 + 2 * 104 + 3 * 64);
}

/*
 * munmap's median above a PTE page's entries, worked by hand.  Three
 * processes, five VMAs, one present record a page:
 *   process 1: A 600 pages (two chunks), B 2 pages
 *   process 2: C 700 pages
 *   process 3: D 513 pages, E none, F 700 pages
 * rmap removals per VMA 600, 2, 700, 513, 0, 700: sorted 0 2 513 600 700
 * 700, the median (the third) 513, the largest 700: the first, C (process 2).
 */
static void test_munmap_median_above(void)
{
	struct fake *f = fake_new();
	const struct { int process; uint64_t start, pages; } v[] = {
		{ 1, 0x400000, 600 }, { 1, 0x800000, 2 }, { 2, 0x400000, 700 }, { 3, 0x400000, 513 }, { 3, 0x800000, 0 },
		{ 3, 0xc00000, 700 },
	};
	const struct vma *c = NULL;
	struct process *p = NULL;
	for (size_t k = 0; k < 6; k++) {
		if (k == 0 || v[k].process != v[k - 1].process)   /* a process's VMAs follow it */
			p = fake_process(f, v[k].process, 1, 0);
		const struct vma *vma = fake_vma(f, p, v[k].start, v[k].start + (v[k].pages + 1) * 4096, "rw-p", 0, "");
		c = k == 2 ? vma : c;
		for (uint64_t i = 0; i < v[k].pages; i++)
			fake_record(p, v[k].start + i * 4096, P | (0x10000 * (k + 1) + i));
	}
	const char *const ids[] = { "6.1-x86_64", "2.4-rmap-x86_64" };
	struct model_result *r = run(f, ids, 2);
	for (size_t d = 0; d < 2; d++) {
		const struct munmap_work *m = &r->designs[d].munmap;
		EXPECT_COUNTS(IS(m->vmas, 6), IS(m->median_calls, 513), IS(m->max_calls, 700), IS(m->largest_process, 1));
		CU_ASSERT_PTR_EQUAL(m->largest, c);
	}
}

/*
 * anon_vmas the records show, worked by hand: no VMA has smaps' Anonymous
 * count, so only a present record with bit 61 clear and bit 56 (exclusive)
 * set marks one.  One process:
 *   V1 0x400000-0x402000 | V2 0x402000-0x404000   (one chunk, cut): V1's
 *       record exclusive, V2's not: V1 only
 *   V3 0x600000-0x800000   two exclusive records (one extent, step 1): marked
 *   V4 0x800000-0x801000   an exclusive file record (bit 61 set): not
 *   V5 0xa00000-0xa02000 | V6 0xa02000-0xa04000   the chunk's second part
 *       holds the exclusive record: V6 only
 *   V7 0xc00000-0xc02000   PFN all ones with soft-dirty, then + 1: the
 *       second record's word carries into bit 56 (exclusive, PFN 0): marked
 *   V8 0xe00000-0xe01000   an exclusive swap entry (not present): not
 * anon_vmas: V1, V3, V6, V7 = 4.
 */
static void test_anon_vmas_from_records(void)
{
	struct fake *f = fake_new();
	struct process *p = fake_process(f, 10, 1, 0);
	const uint64_t starts[] = { 0x400000, 0x402000, 0x600000, 0x800000, 0xa00000, 0xa02000, 0xc00000, 0xe00000 };
	const uint64_t ends[] = { 0x402000, 0x404000, 0x800000, 0x801000, 0xa02000, 0xa04000, 0xc02000, 0xe01000 };
	for (int k = 0; k < 8; k++)
		fake_vma(f, p, starts[k], ends[k], "rw-p", k == 3 ? 5 : 0, k == 3 ? "/lib/x.so" : "");
	fake_record(p, 0x400000, P | PAGEMAP_EXCLUSIVE | 20);
	fake_record(p, 0x402000, P | 21);
	fake_record(p, 0x600000, P | PAGEMAP_EXCLUSIVE | 30);
	fake_record(p, 0x601000, P | PAGEMAP_EXCLUSIVE | 31);
	fake_record(p, 0x800000, P | FILE_PAGE | PAGEMAP_EXCLUSIVE | 40);
	fake_record(p, 0xa00000, P | 50);
	fake_record(p, 0xa02000, P | PAGEMAP_EXCLUSIVE | 51);
	fake_record(p, 0xc00000, P | (UINT64_C(1) << 55) | PAGEMAP_PFN_MASK);
	fake_record(p, 0xc01000, P | PAGEMAP_EXCLUSIVE);
	fake_record(p, 0xe00000, PAGEMAP_SWAPPED | PAGEMAP_EXCLUSIVE | 3);
	const char *const ids[] = { "6.1-x86_64" };
	struct model_result *r = run(f, ids, 1);
	CU_ASSERT_EQUAL(r->anon_vmas, 4);
	CU_ASSERT_EQUAL(r->designs[0].anon_vma_count, 4);
}

/*
 * anon_vmas of neighbours, worked by hand.  A parent (pid 10) and its forked
 * child (pid 11) hold the same six VMAs, each with anonymous pages, one
 * anonymous PFN of each shared by both:
 *   A /lib/x.so r--p off 0x1000 | B /lib/x.so rw-p off 0x2000   (RELRO + data:
 *       adjacent, same file, offset running on, flags but WR equal: compatible)
 *   C anon rw-p | D anon r--p                                   (an mprotect split)
 *   E anon rw-p | F /lib/y.so rw-p                              (file after anon: not)
 * 6.1: the parent's groups {A,B} {C,D} {E} {F} = 4 anon_vmas; anon_vma_fork
 *      gives each of the child's six its own: 4 + 6 = 10; chains 6 x 1 + 6 x 2 = 18.
 * 2.6.7: the child's VMAs share the parent's (shared PFNs): 4 anon_vmas.
 */
static void test_anon_vma_neighbours(void)
{
	struct fake *f = fake_new();
	for (int i = 0; i < 2; i++) {
		struct process *p = fake_process(f, 10 + i, 9 + i, 0);   /* 10, then its child 11 */
		struct vma *v[6] = {
			fake_vma(f, p, 0x1000000, 0x1001000, "r--p", 5, "/lib/x.so"),
			fake_vma(f, p, 0x1001000, 0x1002000, "rw-p", 5, "/lib/x.so"),
			fake_vma(f, p, 0x2000000, 0x2001000, "rw-p", 0, ""),
			fake_vma(f, p, 0x2001000, 0x2002000, "r--p", 0, ""),
			fake_vma(f, p, 0x3000000, 0x3001000, "rw-p", 0, ""),
			fake_vma(f, p, 0x3001000, 0x3002000, "rw-p", 6, "/lib/y.so"),
		};
		v[0]->offset = 0x1000;
		v[1]->offset = 0x2000;
		v[5]->offset = 0x5000;
		for (int k = 0; k < 6; k++) {
			fake_kb(v[k])[SMAPS_ANONYMOUS] = 4;
			fake_record(p, v[k]->start, P | (uint64_t)(100 + k));
		}
	}
	for (int k = 0; k < 6; k++)
		fake_kpage(f, (uint64_t)(100 + k), 2, FLAG(KPF_ANON));
	const char *const ids[] = { "2.6.7-anon_vma-x86_64", "6.1-x86_64" };
	struct model_result *r = run(f, ids, 2);
	CU_ASSERT_EQUAL(r->anon_vmas, 12);                 /* VMAs holding one */
	CU_ASSERT_EQUAL(r->designs[0].anon_vma_count, 4);
	CU_ASSERT_EQUAL(r->designs[1].anon_vma_count, 10);
	CU_ASSERT_EQUAL(r->designs[1].anon_vma_chain_count, 18);
}

/*
 * anon_vma_chains of a fork tree with mprotect splits at three depths,
 * worked by hand.  pid 10 maps one anonymous VMA X of 4 pages; 11 (its
 * child) splits its copy in 2, 12 (child of 11) one of those again (3
 * pieces), 13 (child of 12) once more (4 pieces of a page each).  Every
 * piece holds a page.
 *   chains: anon_vma_fork clones the parent VMA's chains and adds one;
 *   __split_vma clones every chain into each piece:
 *     10: X 1;  11: 2 pieces x 2 = 4;  12: 3 x 3 = 9;  13: 4 x 4 = 16;  total 30
 *   anon_vmas: one per VMA a fork copied, shared by its pieces:
 *     10: 1;  11: 1;  12: one per piece of 11 = 2;  13: one per piece of 12 = 3;  7
 *   fork allocations (6.1): each VMA clones its chains and adds one: 30 + 10
 */
static void test_anon_vma_split_tree(void)
{
	struct fake *f = fake_new();
	const uint64_t base = 0x1000000, page = 0x1000;
	/* the cut points of each process's pieces, in pages */
	static const uint64_t cuts[4][5] = { { 0, 4 }, { 0, 1, 4 }, { 0, 1, 2, 4 }, { 0, 1, 2, 3, 4 } };
	static const size_t pieces[4] = { 1, 2, 3, 4 };
	uint64_t pfn = 100;
	for (int i = 0; i < 4; i++) {
		struct process *p = fake_process(f, 10 + i, 9 + i, 0);
		for (size_t k = 0; k < pieces[i]; k++) {
			struct vma *v = fake_vma(f, p, base + cuts[i][k] * page, base + cuts[i][k + 1] * page,
						 k % 2 ? "r--p" : "rw-p", 0, "");
			fake_kb(v)[SMAPS_ANONYMOUS] = 4;
			fake_record(p, v->start, P | PAGEMAP_EXCLUSIVE | pfn);
			fake_kpage(f, pfn++, 1, FLAG(KPF_ANON));
		}
	}
	const char *const ids[] = { "6.1-x86_64" };
	struct model_result *r = run(f, ids, 1);
	CU_ASSERT_EQUAL(r->anon_vmas, 10);
	CU_ASSERT_EQUAL(r->designs[0].anon_vma_chain_count, 30);
	CU_ASSERT_EQUAL(r->designs[0].anon_vma_count, 7);
	CU_ASSERT_EQUAL(r->designs[0].work.fork_chain_allocations, 40);
}

/*
 * Kernel counters beside the model, worked by hand.  One process without
 * pagemap (VmPTE 12 kB) and VMAs: two apart anonymous ones with pages, a
 * file one and [vsyscall]; meminfo PageTables 40 kB; two CPUs, one node.
 *   page tables: model 12288 (VmPTE, no pagemap), remainder 40960 - 12288 = 28672
 *   anon_vma: model 2; active 5 then 7; slack 1 CPU slab x 2 = 2:
 *             lower 5 - 2 = 3, upper 7: not within (the kernel holds more)
 *   anon_vma_chain: model 2; active 4; another cache merged in: lower 0, upper 4
 *   vm_area_struct: model 4 - [vsyscall] = 3; active 3; slack 1 x (3 x 2 + 10 x 1)
 *             = 16 from sheaves: lower 0, upper 3, within
 */
static void test_counters(void)
{
	struct fake *f = fake_new();
	struct process *p = fake_process(f, 1, 0, 12);
	p->has_pagemap = false;
	fake_kb(fake_vma(f, p, 0x400000, 0x401000, "rw-p", 0, ""))[SMAPS_ANONYMOUS] = 4;
	fake_kb(fake_vma(f, p, 0x600000, 0x601000, "rw-p", 0, ""))[SMAPS_ANONYMOUS] = 4;
	fake_vma(f, p, 0x700000, 0x701000, "r--p", 3, "/lib/z.so");
	fake_vma(f, p, 0xffffffffff600000, 0xffffffffff601000, "--xp", 0, "[vsyscall]");
	struct meminfo_entry meminfo[] = { { "MemTotal", 1024 }, { "PageTables", 40 } };
	f->snapshot.meminfo = meminfo;
	f->snapshot.meminfo_count = 2;
	struct slab_cache slabs[] = {
		{ .name = "anon_vma", .active_objects = 5, .objects = 39, .objects_per_slab = 2,
		  .has_cpu_state = true, .cpu_slabs = 1, .has_active_after = true, .active_objects_after = 7 },
		{ .name = "anon_vma_chain", .active_objects = 4, .objects = 64, .objects_per_slab = 64,
		  .has_cpu_state = true, .aliases = 1 },
		{ .name = "vm_area_struct", .active_objects = 3, .objects = 21, .objects_per_slab = 21,
		  .has_cpu_state = true, .sheaf_capacity = 1 },
	};
	f->snapshot.slabs = slabs;
	f->snapshot.slab_count = 3;
	f->snapshot.slab_cpus = 2;
	f->snapshot.slab_nodes = 1;
	const char *const ids[] = { "6.1-x86_64" };
	struct model_result *r = run(f, ids, 1);
	const struct model_counters *k = &r->counters;
	CU_ASSERT_TRUE(k->has_meminfo_pagetables);
	CU_ASSERT_EQUAL(k->meminfo_pagetables_bytes, 40960);
	CU_ASSERT_EQUAL(k->model_pagetables_bytes, 12288);
	CU_ASSERT_EQUAL(k->remainder_bytes, 28672);
	const uint64_t model[] = { 2, 2, 3 }, lower[] = { 3, 0, 0 }, upper[] = { 7, 4, 3 }, slack[] = { 2, 0, 16 };
	const bool within[] = { false, true, true };
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_TRUE(k->slabs[i].available);
		CU_ASSERT_EQUAL(k->slabs[i].model, model[i]);
		CU_ASSERT_EQUAL(k->slabs[i].lower, lower[i]);
		CU_ASSERT_EQUAL(k->slabs[i].upper, upper[i]);
		CU_ASSERT_EQUAL(k->slabs[i].slack, slack[i]);
		CU_ASSERT_EQUAL(k->slabs[i].within, within[i]);
	}
	CU_ASSERT_FALSE(k->partial);
	/* a --pid/--tree capture: processes not captured hold objects and page
	 * tables, so no lower bound: anon_vma's model 2 <= upper 7 is within */
	f->snapshot.info.scope = SCOPE_PART;
	r = run(f, ids, 1);
	CU_ASSERT_TRUE(r->counters.partial);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_FALSE(r->counters.slabs[i].lower_known);
		CU_ASSERT_EQUAL(r->counters.slabs[i].lower, 0);
		CU_ASSERT_TRUE(r->counters.slabs[i].within);
	}
	/* a snapshot that does not say: without pid 1 it is a part, with it whole */
	f->snapshot.info.scope = SCOPE_UNSTATED;
	p->pid = 2;
	CU_ASSERT_TRUE(run(f, ids, 1)->counters.partial);
	p->pid = 1;
	CU_ASSERT_FALSE(run(f, ids, 1)->counters.partial);
	/* no slabinfo: nothing to compare, said so */
	f->snapshot.slab_count = 0;
	r = run(f, ids, 1);
	CU_ASSERT_FALSE(r->counters.has_slabinfo);
	CU_ASSERT_FALSE(r->counters.slabs[0].available);
	/* the fake outlives this test's arrays (freed after the test) */
	f->snapshot.meminfo = NULL;
	f->snapshot.meminfo_count = 0;
	f->snapshot.slabs = NULL;
}

/*
 * Lazy fork, worked by hand.  One process, five VMAs, one record per page:
 *   V1 anonymous rw-p with an anon_vma      3 records (PFNs 20-22)
 *   V2 file text r-xp                        2 records
 *   V3 hugetlb rw-s (VmFlags ht)             2 records
 *   V4 PFN map rw-s (VmFlags pf)             1 record: no struct page, no rmap call
 *   V5 shmem rw-s with uffd-wp (VmFlags uw)  1 record
 * exit: 3 + 2 + 2 + 1 = 8 page_remove_rmap calls in every design.
 * fork rmap calls:
 *   2.4-rmap and 2.6.7 (every VMA copied):             3 + 2 + 2 + 1 = 8
 *   2.6.14 and 2.6.34 (anon_vma, or ht nl pf mm):      3 + 2 (V3)    = 5
 *   6.1 (anon_vma, or pf mm uw; hugetlb lazy in 6.0):  3 + 1 (V5)    = 4
 */
static void test_lazy_fork(void)
{
	struct fake *f = fake_new();
	struct process *p = fake_process(f, 100, 1, 0);
	struct vma *v1 = fake_vma(f, p, 0x400000, 0x404000, "rw-p", 0, "");
	struct vma *v2 = fake_vma(f, p, 0x500000, 0x502000, "r-xp", 5, "/lib/x.so");
	struct vma *v3 = fake_vma(f, p, 0x600000, 0x800000, "rw-s", 6, "/huge/x");
	struct vma *v4 = fake_vma(f, p, 0x900000, 0x901000, "rw-s", 7, "/dev/mem");
	struct vma *v5 = fake_vma(f, p, 0xa00000, 0xa01000, "rw-s", 8, "/dev/shm/x");
	fake_kb(v1)[SMAPS_ANONYMOUS] = 12;
	v2->vm_flags = FLAG(VMF_RD) | FLAG(VMF_EX);
	v3->vm_flags |= FLAG(VMF_HT);
	v4->vm_flags |= FLAG(VMF_PF);
	v5->vm_flags |= FLAG(VMF_UW);
	for (uint64_t i = 0; i < 3; i++)
		fake_record(p, 0x400000 + i * 4096, P | PAGEMAP_EXCLUSIVE | (20 + i));
	fake_record(p, 0x500000, P | FILE_PAGE | 30);
	fake_record(p, 0x501000, P | FILE_PAGE | 31);
	fake_record(p, 0x600000, P | FILE_PAGE | 40);
	fake_record(p, 0x601000, P | FILE_PAGE | 41);
	fake_record(p, 0x900000, P | FILE_PAGE | 50);
	fake_record(p, 0xa00000, P | FILE_PAGE | 60);
	const uint64_t pfns[] = { 20, 21, 22, 30, 31, 40, 41, 50, 60 };
	for (size_t i = 0; i < sizeof(pfns) / sizeof(pfns[0]); i++)
		fake_kpage(f, pfns[i], 1, i < 3 ? FLAG(KPF_ANON) : 0);
	const char *const ids[] = { "2.4-rmap-i386", "2.6.7-anon_vma-x86_64", "2.6.14-anon_vma-x86_64",
				    "2.6.34-avc-x86_64", "6.1-x86_64" };
	const uint64_t fork_calls[] = { 8, 8, 5, 5, 4 };
	struct model_result *r = run(f, ids, 5);
	for (size_t d = 0; d < 5; d++) {
		CU_ASSERT_EQUAL(r->designs[d].work.exit_rmap_calls, 8);
		CU_ASSERT_EQUAL(r->designs[d].work.fork_rmap_calls, fork_calls[d]);
		CU_ASSERT_EQUAL(r->designs[d].work.fork_rmap_anon_calls, 3);
	}
}

/*
 * Reclaim of a file page, worked by hand.  /lib/f.so (inode 5) is mapped
 * r--p at 0x400000-0x404000, offset 0, by four processes; processes 1-3 map
 * its page 1 (PFN 50, kpagecount 3), process 4 has the VMA but never touched
 * that page.
 *   pte_chain walk (2.4-rmap, 2.5-array): 3 entries, all mappings;
 *   object rmap (2.5.62 list, 6.1 range): 4 VMAs visited, 3 mappings found,
 *   1 visited VMA maps nothing.
 * Then process 4 also maps page 16 of the file elsewhere (0x800000, offset
 * 0x10000): the 2.5.62 list walk visits 5 VMAs for page 1, 6.1's interval
 * tree still 4 (the new VMA does not cover page 1); page 16 itself is one
 * page more, its walk 5 (list) or 1 (range).
 * Faults: 3 file read faults, 3 page_add_rmap; D1 allocates 3 pte_chains
 * (one a mapping), D3 L1 32 one block (C(3) = 32 B, shared by three).
 */
static void test_reclaim_file_walk(void)
{
	struct fake *f = fake_new();
	for (int i = 0; i < 4; i++) {
		struct process *p = fake_process(f, 1 + i, 0, 0);
		fake_vma(f, p, 0x400000, 0x404000, "r--p", 5, "/lib/f.so");
		if (i < 3)
			fake_record(p, 0x401000, P | FILE_PAGE | 50);
	}
	fake_kpage(f, 50, 3, 0);
	const char *const ids[] = { "2.4-rmap-i386", "2.5-array-i386-l1-32", "2.5.62-objrmap-i386-l1-32", "6.1-x86_64" };
	const uint64_t visited[] = { 3, 3, 4, 4 };
	struct model_result *r = run(f, ids, 4);
	for (size_t d = 0; d < 4; d++) {
		const struct reclaim_work *w = &r->designs[d].reclaim;
		CU_ASSERT_TRUE(w->available);
		CU_ASSERT_EQUAL(w->pages, 1);
		CU_ASSERT_EQUAL(w->found, 3);
		CU_ASSERT_EQUAL(w->visited, visited[d]);
		CU_ASSERT_EQUAL(w->not_mapping, visited[d] - 3);
		CU_ASSERT_EQUAL(w->walk_max, visited[d]);
		CU_ASSERT_EQUAL(w->worst_file_count, 1);
		CU_ASSERT_EQUAL(w->worst_files[0].visited, visited[d]);
		CU_ASSERT_STRING_EQUAL(w->worst_files[0].vma->path, "/lib/f.so");
		const struct fault_work *file = &r->designs[d].work.faults[FAULT_FILE];
		CU_ASSERT_EQUAL(file->faults, 3);
		CU_ASSERT_EQUAL(file->rmap_calls, 3);
		CU_ASSERT_EQUAL(file->anon_vma_prepares, 0);
	}
	CU_ASSERT_EQUAL(r->designs[0].work.faults[FAULT_FILE].chain_allocations, 3);
	CU_ASSERT_EQUAL(r->designs[1].work.faults[FAULT_FILE].chain_allocations, 1);
	CU_ASSERT_EQUAL(r->designs[2].work.faults[FAULT_FILE].chain_allocations, 0);   /* file by object */
	/* a fifth VMA of the file, not covering page 1 */
	struct vma *far = fake_vma(f, &f->processes[3], 0x800000, 0x801000, "r--p", 5, "/lib/f.so");
	far->offset = 0x10000;
	fake_record(&f->processes[3], 0x800000, P | FILE_PAGE | 51);
	fake_kpage(f, 51, 1, 0);
	r = run(f, ids, 4);
	const uint64_t visited_page1[] = { 3, 3, 5, 4 }, visited_page16[] = { 1, 1, 5, 1 };
	for (size_t d = 0; d < 4; d++) {
		const struct reclaim_work *w = &r->designs[d].reclaim;
		CU_ASSERT_EQUAL(w->pages, 2);
		CU_ASSERT_EQUAL(w->found, 4);
		CU_ASSERT_EQUAL(w->visited, visited_page1[d] + visited_page16[d]);
		CU_ASSERT_EQUAL(w->not_mapping, visited_page1[d] + visited_page16[d] - 4);
	}
}

/*
 * An anonymous page shared by a fork tree three deep, worked by hand.
 * A (pid 10) forked B (11) and D (13); B forked C (12).  Each holds the
 * anonymous VMA 0x600000-0x602000 (the same range: fork depths A 0, B 1,
 * C 2, D 1).  PFN 60 is mapped by A, B and C (kpagecount 3); D wrote its
 * copy (PFN 61, exclusive); C faulted page 2 after the fork (PFN 62).
 * Reclaim of the three pages:
 *   pte_chain (2.4-rmap, 2.5.62's anon pages): 3 + 1 + 1 = 5 entries;
 *   2.6.7 anon_vma: one anon_vma for the whole family (fork links every
 *     copy to the parent's): 4 VMAs per page = 12 visited, 7 not mapping;
 *   anon_vma_chain: PFN 60 in A's anon_vma (A and its copies B, C, D: 4,
 *     D not mapping), 61 in D's (1), 62 in C's (1): 6 visited, 1 not mapping.
 * Fork and exit: 2.6.34+ chains d + 1 = 1 + 2 + 3 + 2 = 8, a fork allocates
 * them plus one a VMA (12) and an exit frees the 8; 4 anon_vma_fork and
 * 4 unlink calls.  D1 frees a pte_chain for every mapping (5); D2 frees
 * 1 for each of PFN 60's three (m 3 -> 2) and clears PG_direct on 61 and 62.
 * Faults: 5 anonymous first touches; 6.1 calls anon_vma_prepare for each.
 */
static void test_reclaim_fork_tree(void)
{
	struct fake *f = fake_new();
	const int pids[] = { 10, 11, 12, 13 }, ppids[] = { 1, 10, 11, 10 };
	for (int i = 0; i < 4; i++) {
		struct process *p = fake_process(f, pids[i], ppids[i], 0);
		fake_kb(fake_vma(f, p, 0x600000, 0x602000, "rw-p", 0, ""))[SMAPS_ANONYMOUS] = 8;
		fake_record(p, 0x600000, i == 3 ? P | PAGEMAP_EXCLUSIVE | 61 : P | 60);
		if (i == 2)
			fake_record(p, 0x601000, P | PAGEMAP_EXCLUSIVE | 62);
	}
	fake_kpage(f, 60, 3, FLAG(KPF_ANON));
	fake_kpage(f, 61, 1, FLAG(KPF_ANON));
	fake_kpage(f, 62, 1, FLAG(KPF_ANON));
	const char *const ids[] = { "2.4-rmap-i386", "2.5-direct-i386", "2.5.62-objrmap-i386-l1-32",
				    "2.6.7-anon_vma-x86_64", "2.6.34-avc-x86_64", "6.1-x86_64" };
	const uint64_t visited[] = { 5, 5, 5, 12, 6, 6 };
	struct model_result *r = run(f, ids, 6);
	for (size_t d = 0; d < 6; d++) {
		const struct model_design *m = &r->designs[d];
		CU_ASSERT_EQUAL(m->reclaim.pages, 3);
		CU_ASSERT_EQUAL(m->reclaim.found, 5);
		CU_ASSERT_EQUAL(m->reclaim.visited, visited[d]);
		CU_ASSERT_EQUAL(m->reclaim.not_mapping, visited[d] - 5);
		CU_ASSERT_EQUAL(m->work.faults[FAULT_ANON].faults, 5);
		CU_ASSERT_EQUAL(m->work.faults[FAULT_ANON].rmap_calls, 5);
		CU_ASSERT_EQUAL(m->work.faults[FAULT_ANON].anon_vma_prepares, d >= 3 ? 5 : 0);
		CU_ASSERT_EQUAL(m->work.exit_rmap_calls, 5);
		CU_ASSERT_EQUAL(m->work.exit_anon_vma_unlinks, d >= 3 ? 4 : 0);
	}
	CU_ASSERT_EQUAL(r->designs[3].anon_vma_count, 1);
	CU_ASSERT_EQUAL(r->designs[3].reclaim.worst_anon_vma_count, 1);
	CU_ASSERT_EQUAL(r->designs[3].reclaim.worst_anon_vmas[0].visited, 12);
	/* the heaviest anon_vma under chains is A's: PFN 60's walk of 4 */
	CU_ASSERT_EQUAL(r->designs[5].reclaim.worst_anon_vma_count, 3);
	CU_ASSERT_EQUAL(r->designs[5].reclaim.worst_anon_vmas[0].visited, 4);
	CU_ASSERT_EQUAL(r->process_figures[r->designs[5].reclaim.worst_anon_vmas[0].process].process->pid, 10);
	CU_ASSERT_EQUAL(r->designs[5].reclaim.walk_median, 1);
	CU_ASSERT_EQUAL(r->designs[5].reclaim.walk_max, 4);
	for (size_t d = 4; d < 6; d++) {
		CU_ASSERT_EQUAL(r->designs[d].work.fork_chain_allocations, 12);
		CU_ASSERT_EQUAL(r->designs[d].work.exit_anon_vma_chain_frees, 8);
		CU_ASSERT_EQUAL(r->designs[d].work.fork_anon_vma_calls, 4);
	}
	CU_ASSERT_EQUAL(r->designs[0].work.exit_chain_frees, 5);
	CU_ASSERT_EQUAL(r->designs[0].work.exit_direct_pages, 0);
	CU_ASSERT_EQUAL(r->designs[1].work.exit_chain_frees, 3);
	CU_ASSERT_EQUAL(r->designs[1].work.exit_direct_pages, 2);
	/* fault chains: D1 one a mapping (5); D2 C(3)/8 = 3 for PFN 60, none for the direct pages */
	CU_ASSERT_EQUAL(r->designs[0].work.faults[FAULT_ANON].chain_allocations, 5);
	CU_ASSERT_EQUAL(r->designs[1].work.faults[FAULT_ANON].chain_allocations, 3);
	/* per process (model_process_work): C under 6.1 forks 1 VMA of depth
	 * 2 (3 chains + 1 new), frees its 3 chains, faults 2 pages */
	const struct event_work *c = model_process_work(r, 2, 5);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(c->fork_chain_allocations, 4);
	CU_ASSERT_EQUAL(c->exit_anon_vma_chain_frees, 3);
	CU_ASSERT_EQUAL(c->faults[FAULT_ANON].faults, 2);
	CU_ASSERT_PTR_NULL(model_process_work(r, 4, 0));
	CU_ASSERT_PTR_NULL(model_process_work(r, 0, r->design_count));
	/* only the snapshot's own design (6.1, x86_64) is kept per process;
	 * its processes' forks allocate the 12 chains its sum says */
	CU_ASSERT_EQUAL(r->current_design, 5);
	CU_ASSERT_PTR_NULL(model_process_work(r, 2, 4));
	uint64_t chains = 0;
	for (size_t i = 0; i < 4; i++)
		chains += model_process_work(r, i, 5)->fork_chain_allocations;
	CU_ASSERT_EQUAL(chains, 12);
}

/*
 * COW and swap-in faults, worked by hand: one process with a private
 * writable file VMA (/lib/d.so rw-p) holding one anonymous page (a COW copy
 * of the file page, PFN 70) and one file page (PFN 71), and an anonymous
 * VMA with a swapped-out page.
 *   COW: 1 fault, 2 rmap calls (the copy's add, the file page's remove),
 *        D1 1 pte_chain, 6.1 1 anon_vma_prepare;
 *   file read: 1 fault, 1 call; swap-in: 1 fault, 1 call, D1 1 pte_chain,
 *        no anon_vma_prepare (the VMA has its anon_vma).
 * munmap VMA by VMA: the file VMA removes 2 rmaps (the largest), the
 * anonymous one none (a swap entry has no rmap): median of {0, 2} is 0.
 */
static void test_cow_and_swap_faults(void)
{
	struct fake *f = fake_new();
	struct process *p = fake_process(f, 1, 0, 0);
	struct vma *data = fake_vma(f, p, 0x400000, 0x402000, "rw-p", 7, "/lib/d.so");
	fake_kb(fake_vma(f, p, 0x600000, 0x601000, "rw-p", 0, ""))[SMAPS_ANONYMOUS] = 4;
	fake_kb(data)[SMAPS_ANONYMOUS] = 4;
	fake_record(p, 0x400000, P | PAGEMAP_EXCLUSIVE | 70);
	fake_record(p, 0x401000, P | FILE_PAGE | 71);
	fake_record(p, 0x600000, PAGEMAP_SWAPPED | 0x99);
	fake_kpage(f, 70, 1, FLAG(KPF_ANON));
	fake_kpage(f, 71, 1, 0);
	const char *const ids[] = { "2.4-rmap-i386", "6.1-x86_64" };
	struct model_result *r = run(f, ids, 2);
	for (size_t d = 0; d < 2; d++) {
		const struct fault_work *k = r->designs[d].work.faults;
		CU_ASSERT_EQUAL(k[FAULT_COW].faults, 1);
		CU_ASSERT_EQUAL(k[FAULT_COW].rmap_calls, 2);
		CU_ASSERT_EQUAL(k[FAULT_COW].chain_allocations, d == 0 ? 1 : 0);
		CU_ASSERT_EQUAL(k[FAULT_COW].anon_vma_prepares, d == 0 ? 0 : 1);
		CU_ASSERT_EQUAL(k[FAULT_ANON].faults, 0);
		CU_ASSERT_EQUAL(k[FAULT_FILE].faults, 1);
		CU_ASSERT_EQUAL(k[FAULT_FILE].rmap_calls, 1);
		CU_ASSERT_EQUAL(k[FAULT_SWAP].faults, 1);
		CU_ASSERT_EQUAL(k[FAULT_SWAP].rmap_calls, 1);
		CU_ASSERT_EQUAL(k[FAULT_SWAP].chain_allocations, d == 0 ? 1 : 0);
		CU_ASSERT_EQUAL(k[FAULT_SWAP].anon_vma_prepares, 0);
	}
	CU_ASSERT_EQUAL(r->designs[0].munmap.vmas, 2);
	CU_ASSERT_EQUAL(r->designs[0].munmap.max_calls, 2);
	CU_ASSERT_EQUAL(r->designs[0].munmap.median_calls, 0);
	CU_ASSERT_PTR_EQUAL(r->designs[0].munmap.largest, data);
}

/* smaps-only page-table bounds: one VMA of 3 windows with 600 resident pages
 * needs at least ceil(600/512) = 2 windows, spans 3; a one-window VMA adds 1. */
static void test_pagetable_estimate(void)
{
	struct fake *f = fake_new();
	struct process *a = fake_process(f, 1, 0, 0);
	a->has_pagemap = false;
	struct vma *big = fake_vma(f, a, 0x200000, 0x800000, "rw-p", 0, "");
	struct vma *small = fake_vma(f, a, 0x800000, 0x801000, "rw-p", 0, "");
	fake_kb(big)[SMAPS_RSS] = 600 * 4;
	fake_kb(small)[SMAPS_RSS] = 4;
	f->snapshot.info.pagemap = PAGEMAP_NONE;
	struct model_result *r = run(f, NULL, 0);
	const struct estimate *e = &r->process_figures[0].pagetable_estimate;
	/* PTE: lower max(1 + (2 - 2), 2) = 2, upper 4; PMD/PUD: 1 window each */
	CU_ASSERT_DOUBLE_EQUAL(e->lower, 4096.0 * (2 + 2), 1e-6);
	CU_ASSERT_DOUBLE_EQUAL(e->upper, 4096.0 * (4 + 2), 1e-6);
	CU_ASSERT_TRUE(e->point >= e->lower && e->point <= e->upper);
	CU_ASSERT_FALSE(r->designs[0].pte_chain_exact);
}

/*
 * smaps-only pte_chains when many VMAs map one file: m of a file's pages is
 * at most max(processes, VMAs mapping the file).  Eight processes; file A
 * (inode 7) mapped by 12 VMAs (one in each process, a second in four),
 * file B (inode 9) by 4, each VMA 12 shared pages with Pss 4 kB (Σ 1/m = 1
 * page, harmonic mean m = 12).  D3 i386 L1 64 (NRPTE 15) charges
 * ceil(m/15)·64/m a page:
 *   A: m = min(12, 12) = 12: 12 · 64/12 = 64 a VMA, bounds [64·max(12/15, 1),
 *      64·(12/15 + 14/15 · 1.25)] = [64, 125.9]                 -> 12 · 64 = 768
 *   B: m = min(12, max(8, 4)) = 8: 12 · 64/8 = 96, same bounds  ->  4 · 96 = 384
 * Total 1152.  Counting every file's VMAs as one (m_max 16) gives 1024; the
 * process count alone for A (m_max 8) gives 1536.  B's VMAs carry A's path
 * (one path naming two files, as in two containers): files are told apart
 * by device and inode, never by path.
 */
static void test_file_mappers(void)
{
	struct fake *f = fake_new();
	f->snapshot.info.pagemap = PAGEMAP_NONE;
	for (int i = 0; i < 8; i++) {
		struct process *p = fake_process(f, i + 1, 0, 0);
		p->has_pagemap = false;
		struct vma *v[2];
		v[0] = fake_vma(f, p, 0x400000, 0x40c000, "r--s", 7, "/a");
		v[1] = fake_vma(f, p, 0x800000, 0x80c000, "r--s", i < 4 ? 7 : 9, "/a");
		for (int k = 0; k < 2; k++) {
			fake_kb(v[k])[SMAPS_RSS] = fake_kb(v[k])[SMAPS_SHARED_CLEAN] = 12 * 4;
			fake_kb(v[k])[SMAPS_PSS] = 4;
		}
	}
	const char *const ids[] = { "2.5-array-i386-l1-64" };
	struct model_result *r = run(f, ids, 1);
	CU_ASSERT_FALSE(r->designs[0].pte_chain_exact);
	CU_ASSERT_DOUBLE_EQUAL(r->designs[0].pte_chain_estimate.point, 1152.0, 1e-6);
}

/* ---- profiles from XML ---- */

static void test_profile_files(void)
{
	struct profile_set set = { 0 };
	struct error error;
	const char *good =
		"<?xml version=\"1.0\"?>\n<profiles>\n"
		"  <rmap-profile id=\"my-array\" family=\"D3\" arch=\"i386\" kernels=\"test\">\n"
		"    <description>x</description>\n"
		"    <geometry name=\"g\"><level name=\"pte\" shift=\"22\" counted=\"yes\"/></geometry>\n"
		"    <sizes pointer=\"4\" pte-chain=\"8\" cache-line=\"64\" pte-addr=\"8\" page-field=\"8\"\n"
		"           anon-vma=\"0\" anon-vma-chain=\"0\" vma-rmap-fields=\"0\"/>\n"
		"    <fork copies-file-ptes=\"yes\" anon-vma=\"none\"/>\n"
		"  </rmap-profile>\n</profiles>\n";
	CU_ASSERT_EQUAL_FATAL(profiles_load_buffer(&set, "good.xml", good, strlen(good), &error), 0);
	CU_ASSERT_EQUAL(set.rmaps[0].nrpte, 7);                /* (64-4)/8 */
	CU_ASSERT_EQUAL(rmap_page_cost(&set.rmaps[0], 8, true), 128);
	/* the same id again is refused, naming file and line */
	CU_ASSERT_EQUAL(profiles_load_buffer(&set, "again.xml", good, strlen(good), &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "again.xml:3:"));
	const char *bad = "<?xml version=\"1.0\"?>\n<profiles>\n\n  <rmap-profile id=\"x\"/>\n</profiles>\n";
	CU_ASSERT_EQUAL(profiles_load_buffer(&set, "bad.xml", bad, strlen(bad), &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "bad.xml:4:"));
	const char *broken = "<?xml version=\"1.0\"?>\n<profiles>\n<oops>\n</profiles>\n";
	CU_ASSERT_EQUAL(profiles_load_buffer(&set, "broken.xml", broken, strlen(broken), &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "broken.xml:"));
	const char *entity = "<?xml version=\"1.0\"?>\n<!DOCTYPE p [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>\n"
			     "<profiles>&e;</profiles>\n";
	CU_ASSERT_EQUAL(profiles_load_buffer(&set, "xxe.xml", entity, strlen(entity), &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "xxe.xml:2: a DOCTYPE"));
	/* an unknown VmFlags code in copies-vmflags: refused with file and line */
	const char *flags =
		"<?xml version=\"1.0\"?>\n<profiles>\n"
		"  <rmap-profile id=\"lazy\" family=\"D5\" arch=\"x86_64\" kernels=\"test\">\n"
		"    <description>x</description>\n"
		"    <geometry name=\"g\"><level name=\"pte\" shift=\"21\" counted=\"yes\"/></geometry>\n"
		"    <sizes pointer=\"8\" pte-chain=\"0\" cache-line=\"64\" pte-addr=\"8\" page-field=\"4\"\n"
		"           anon-vma=\"24\" anon-vma-chain=\"0\" vma-rmap-fields=\"40\"/>\n"
		"    <fork copies-file-ptes=\"no\" copies-vmflags=\"ht zz\" anon-vma=\"shared\"/>\n"
		"  </rmap-profile>\n</profiles>\n";
	CU_ASSERT_EQUAL(profiles_load_buffer(&set, "flags.xml", flags, strlen(flags), &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "flags.xml:8: unknown VmFlags code 'zz'"));
	CU_ASSERT_EQUAL(set.rmap_count, 1);
	profiles_free(&set);
}

static void test_builtin_ids(void)
{
	const char *const ids[] = { "2.4-rmap-i386", "2.4-rmap-x86_64", "2.5-direct-i386", "2.5-array-i386-l1-32",
				    "2.5-array-i386-l1-128", "2.5-array-x86_64-l1-64", "2.5.62-objrmap-i386-l1-32",
				    "2.6.7-anon_vma-i386", "2.6.14-anon_vma-i386", "2.6.14-anon_vma-x86_64",
				    "2.6.34-avc-x86_64", "6.1-x86_64" };
	design("2.4-rmap-i386");       /* loads the profiles */
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		CU_ASSERT_PTR_NOT_NULL(profiles_find_rmap(&profiles, ids[i]));
	const char *const rules[] = { "shpt-2006", "shpt-2006-pmd", "hugetlb-pmd", "mshare", "identical", "aligned-what-if" };
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		CU_ASSERT_PTR_NOT_NULL(profiles_find_rule(&profiles, rules[i]));
	/* the geometry today's page tables are counted with */
	CU_ASSERT_STRING_EQUAL(profiles_current(&profiles, "x86_64")->geometry.name, "x86_64-4level");
}

/* The one "which design fits" rule: by architecture (others page like
 * x86_64) and, given a release, by the era's default-from attribute. */
static void test_profiles_fit(void)
{
	static const struct { const char *arch, *release, *id; } cases[] = {
		{ "i386", "2.4.20", "2.4-rmap-i386" },
		{ "i386", "2.5.45", "2.5-array-i386-l1-32" },
		{ "i386", "2.5.28", "2.5-direct-i386" },
		{ "x86_64", "2.6.9", "2.6.7-anon_vma-x86_64" },
		{ "x86_64", "2.6.20", "2.6.14-anon_vma-x86_64" },
		{ "x86_64", "2.6.34", "2.6.34-avc-x86_64" },
		{ "x86_64", "6.12.5", "6.1-x86_64" },
		{ "x86_64", "6.1.0", "6.1-x86_64" },
		{ "x86_64", NULL, "6.1-x86_64" },
		{ "aarch64", NULL, "6.1-x86_64" },
		{ "aarch64", "6.12.0", "6.1-x86_64" },
		{ "", "2.4.20", "2.4-rmap-x86_64" },
		{ "i386", "1.2.13", "6.1-i386" },   /* before every era: the newest */
	};
	design("2.4-rmap-i386");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct rmap_profile *fit = profiles_fit(&profiles, cases[i].arch, cases[i].release);
		CU_ASSERT_PTR_NOT_NULL_FATAL(fit);
		if (strcmp(fit->id, cases[i].id))
			fprintf(stderr, "\nprofiles_fit(%s, %s) = %s, want %s\n", cases[i].arch,
				cases[i].release ? cases[i].release : "NULL", fit->id, cases[i].id);
		CU_ASSERT_STRING_EQUAL(fit->id, cases[i].id);
	}
}

static void free_profiles(void)
{
	profiles_free(&profiles);
}

void suite_model(void)
{
	atexit(free_profiles);
	ADD_SUITE_TEARDOWN("model", free_fixture, test_profiles_fit, test_nrpte, test_cost_d1, test_cost_d2, test_cost_d3_edges, test_cost_d4_d5,
		  test_share_range, test_fraction_sum, test_pte_chain_exact, test_pagetables, test_thp_windows, test_pmd_windows_from_smaps, test_thp_fork_exit, test_thp_events,
		  test_sharing, test_identical_cut_windows, test_sharing_bounds, test_hugetlb_pmd, test_mixed_runs, test_mshare_union, test_credit_kept_slots, test_eligibility, test_object_rmap, test_munmap_median_above, test_anon_vmas_from_records, test_lazy_fork, test_anon_vma_neighbours, test_anon_vma_split_tree, test_counters, test_reclaim_file_walk, test_reclaim_fork_tree,
		  test_cow_and_swap_faults, test_pagetable_estimate, test_file_mappers, test_profile_files,
		  test_builtin_ids);
}
