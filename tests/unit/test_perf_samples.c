/*
 * Kernel profile text in every shape it was posted in (inputs/perf_samples.c),
 * from text written here in the shape of real posts: headers, blank lines,
 * separators, totals lines, call chains, [kernel] markers, clones with dots.
 * Every share below is worked by hand from the counts in the text.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inputs/snapshot.h"
#include "test.h"

static struct perf_samples samples;
static struct error error;

static int read_text(const char *name, const char *text)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", test_tmpdir(), name);
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	perf_samples_free(&samples);
	return perf_samples_read(path, &samples, &error);
}

static const struct perf_sample *find(const char *symbol)
{
	for (size_t i = 0; i < samples.count; i++)
		if (!strcmp(samples.items[i].symbol, symbol))
			return &samples.items[i];
	return NULL;
}

static double percent(const char *symbol)
{
	const struct perf_sample *s = find(symbol);
	return s ? s->percent : -1;
}

#define CLOSE(a, b) CU_ASSERT(fabs((a) - (b)) < 1e-3)

/* The share of all samples on the call CALLER -> CALLEE, -1 when none. */
static double call_percent(const char *caller, const char *callee)
{
	for (size_t i = 0; i < samples.call_count; i++)
		if (!strcmp(samples.calls[i].caller, caller) && !strcmp(samples.calls[i].callee, callee))
			return samples.calls[i].percent;
	return -1;
}

/* A symbol's share in percent, worked out by hand from the text. */
struct share {
	const char *symbol;
	double percent;
};

/* Read text as file NAME: it must be read, as FORMAT, each share a share of
 * SHARE_OF (the words the JSON and the legends print), giving SYMBOLS
 * distinct symbols (counted by hand in the text) with the SHARES given (the
 * list ends with a NULL symbol). */
static void read_as(const char *name, const char *text, const char *format, const char *share_of, size_t symbols,
		    const struct share *shares)
{
	CU_ASSERT_EQUAL_FATAL(read_text(name, text), 0);
	CU_ASSERT_STRING_EQUAL(samples.format, format);
	CU_ASSERT_STRING_EQUAL(samples.share_of, share_of);
	CU_ASSERT_EQUAL(samples.count, symbols);
	for (const struct share *s = shares; s->symbol; s++) {
		if (fabs(percent(s->symbol) - s->percent) >= 1e-3)
			printf("\n%s: %s is %.4f %%, want %.4f %%\n", name, s->symbol, percent(s->symbol), s->percent);
		CLOSE(percent(s->symbol), s->percent);
	}
}

/* 2.4.19-pre7-era oprofile: address, samples, percent of all samples, symbol;
 * the second file adds an image column. */
static void test_oprofile_address(void)
{
	read_as("op.txt",
		"Cpu type: PIII\n"
		"vma      samples  %           symbol name\n"
		"c0129124 6653     21.4157     do_wp_page\n"
		"c012f8d0 3210     10.3328     page_remove_rmap\n"
		"\n"
		"c0130a10 1540     4.9572      page_add_rmap\n",
		"oprofile (address column)", "all samples", 3, (const struct share[]){ { "do_wp_page", 21.4157 }, { NULL, 0 } });
	CU_ASSERT_EQUAL(find("do_wp_page")->samples, 6653);
	CU_ASSERT(find("do_wp_page")->has_samples);
	CU_ASSERT_STRING_EQUAL(samples.items[0].symbol, "do_wp_page");   /* largest first */
	read_as("op-image.txt",
		"c0129124 6653 21.4157 vmlinux do_wp_page\n"
		"0804a000 120 0.3863 bash (no symbols)\n",
		"oprofile (address column)", "all samples", 2,
		(const struct share[]){ { "do_wp_page", 21.4157 }, { "bash (no symbols)", 0.3863 }, { NULL, 0 } });
}

/* "15525 page_remove_rmap": counts only.  Listed: 15525 + 4475 + 1983 + 17
 * = 22000, so page_remove_rmap is 15525 / 22000 = 70.568 %; with a total
 * line of 88000 it is 17.642 %. */
static void test_counts(void)
{
	const char *list =
		"Profile of kernbench, 2.5.62\n"
		"-----------------------------\n"
		"15525 page_remove_rmap\n"
		" 4475 page_add_rmap\n"
		" 1983 do_wp_page\n"
		"   17 copy_page_range.isra.0\n";
	read_as("counts.txt", list, "samples list", "the listed samples", 4,
		(const struct share[]){ { "page_remove_rmap", 70.5682 }, { "copy_page_range", 0.0773 }, { NULL, 0 } });
	CU_ASSERT_EQUAL(samples.total_samples, 22000);
	char with_total[512];
	snprintf(with_total, sizeof(with_total), "%s88000 total\n", list);
	read_as("counts-total.txt", with_total, "samples list", "the total line", 4,
		(const struct share[]){ { "page_remove_rmap", 17.6420 }, { NULL, 0 } });
	CU_ASSERT_PTR_NULL(find("total"));
}

/* perf report --stdio: headers, call chains, [kernel] and [kernel.kallsyms],
 * one symbol under two commands (30 + 20 = 50 %), a clone (10.5 %), a
 * user-space name with spaces, and a second event's section (ignored). */
static void test_perf(void)
{
	read_as("perf.txt",
		"# To display the perf.data header info, please use --header/--header-only options.\n"
		"#\n"
		"# Samples: 10K of event 'cycles'\n"
		"# Event count (approx.): 123456789\n"
		"#\n"
		"# Overhead  Command  Shared Object      Symbol\n"
		"# ........  .......  .................  ...............................\n"
		"#\n"
		"    30.00%  make     [kernel.kallsyms]  [k] page_remove_rmap\n"
		"            |\n"
		"            ---page_remove_rmap\n"
		"               zap_pte_range\n"
		"               |--12.00%--unmap_vmas\n"
		"\n"
		"    20.00%  sh       [kernel]           [k] page_remove_rmap\n"
		"    10.50%  make     [kernel.kallsyms]  [k] copy_pte_range.isra.0\n"
		"     5.00%  make     libstdc++.so.6     [.] std::vector<int>::push_back(int const&)\n"
		"\n"
		"# Samples: 3K of event 'instructions'\n"
		"    90.00%  make     [kernel.kallsyms]  [k] page_remove_rmap\n",
		"perf report", "all samples", 3,
		(const struct share[]){ { "page_remove_rmap", 50.0 }, { "copy_pte_range", 10.5 },
					{ "std::vector<int>::push_back(int const&)", 5.0 }, { NULL, 0 } });
	CU_ASSERT_FALSE(find("page_remove_rmap")->has_samples);
	CU_ASSERT_EQUAL(samples.sections_ignored, 1);
	/* the first entry's call graph, callee order (its first frame is the
	 * entry): zap_pte_range calls page_remove_rmap in all its 30 %, and
	 * unmap_vmas calls zap_pte_range in 12 % of all samples */
	CU_ASSERT_EQUAL(samples.call_count, 2);
	CLOSE(call_percent("zap_pte_range", "page_remove_rmap"), 30.0);
	CLOSE(call_percent("unmap_vmas", "zap_pte_range"), 12.0);
	CU_ASSERT_FALSE(samples.chains_ignored);
}

/* --children: Children then Self; Self is what the function itself ran. */
static void test_perf_children(void)
{
	read_as("children.txt",
		"# Children      Self  Command  Shared Object      Symbol\n"
		"# ........  ........  .......  .................  ............\n"
		"    45.00%     0.50%  make     [kernel.kallsyms]  [k] do_wp_page\n"
		"    40.00%    12.00%  make     [kernel.kallsyms]  [k] page_remove_rmap\n"
		"    99.00%     0.00%  make     [kernel.kallsyms]  [k] entry_SYSCALL_64\n",
		"perf report --children", "all samples (Self column)", 3,
		(const struct share[]){ { "do_wp_page", 0.5 }, { "page_remove_rmap", 12.0 }, { NULL, 0 } });
	CU_ASSERT_STRING_EQUAL(samples.items[0].symbol, "page_remove_rmap");
	CU_ASSERT_FALSE(samples.chains_ignored);   /* no call graph in it */
	/* -n puts the raw count after the percent */
	read_as("perf-n.txt",
		"# Overhead       Samples  Command  Shared Object      Symbol\n"
		"    30.00%          3000  make     [kernel.kallsyms]  [k] page_remove_rmap\n",
		"perf report", "all samples", 1, (const struct share[]){ { "page_remove_rmap", 30.0 }, { NULL, 0 } });
	CU_ASSERT_EQUAL(find("page_remove_rmap")->samples, 3000);
	CU_ASSERT(find("page_remove_rmap")->has_samples);
}

/* opreport -l with image and app columns: samples, percent of all samples. */
static void test_opreport(void)
{
	read_as("opreport.txt",
		"CPU: P4 / Xeon with 2 hyper-threads, speed 2791.08 MHz (estimated)\n"
		"Counted GLOBAL_POWER_EVENTS events (time during which processor is not stopped) "
		"with a unit mask of 0x01 (mandatory) count 100000\n"
		"samples  %        image name               app name                 symbol name\n"
		"5200     52.0000  vmlinux                  vmlinux                  do_wp_page\n"
		"1300     13.0000  vmlinux                  vmlinux                  page_add_rmap\n"
		"800       8.0000  libc-2.3.2.so            libc-2.3.2.so            (no symbols)\n",
		"opreport -l", "all samples", 3,
		(const struct share[]){ { "do_wp_page", 52.0 }, { "libc-2.3.2.so (no symbols)", 8.0 }, { NULL, 0 } });
	CU_ASSERT_EQUAL(find("page_add_rmap")->samples, 1300);
}

/* readprofile, as posted after `sort -nr | head`: the total line first.
 * do_wp_page 4541 / 87465 = 5.192 %, default_idle 27138 / 87465 = 31.027 %.
 * readprofile -v (address first), no total: 4541 / (27138 + 4541) = 14.334 %. */
static void test_readprofile(void)
{
	read_as("readprofile.txt",
		" 87465 total                                      0.0525\n"
		" 27138 default_idle                             424.0312\n"
		"  4541 do_wp_page                                12.0983\n"
		"  3020 page_remove_rmap                           8.1234\n",
		"readprofile", "the total line", 3,
		(const struct share[]){ { "do_wp_page", 5.1918 }, { "default_idle", 31.0273 }, { NULL, 0 } });
	read_as("readprofile-v.txt",
		"c0105250 default_idle                              27138 424.0312\n"
		"c0129124 do_wp_page                                 4541 12.0983\n",
		"readprofile -v", "the listed samples", 2, (const struct share[]){ { "do_wp_page", 14.3344 }, { NULL, 0 } });
}

static void test_refused(void)
{
	CU_ASSERT_EQUAL(read_text("prose.txt", "hello\nworld\nTotal: 12 ms\n\n# 12.5%\n"), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "prose.txt: no profile lines"));
	CU_ASSERT_EQUAL(samples.count, 0);
	char path[4096];
	snprintf(path, sizeof(path), "%s/absent.txt", test_tmpdir());
	CU_ASSERT_EQUAL(perf_samples_read(path, &samples, &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "absent.txt"));
	perf_samples_free(&samples);
}

void suite_perf_samples(void)
{
	ADD_SUITE("perf_samples", test_oprofile_address, test_counts, test_perf, test_perf_children,
		  test_opreport, test_readprofile, test_refused);
}
