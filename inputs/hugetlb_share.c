/*
 * inputs/hugetlb_share.c - `ptscope bench hugetlb`: a fork with and without
 * the one page-table sharing today's kernel does, hugetlbfs PMD sharing.
 *
 * A shared hugetlb mapping that covers a whole PUD window (1 GiB of 2 MiB
 * pages on x86_64) lets a second process map the same PMD page instead of
 * its own (huge_pmd_share, since 2.6.20).  The process here maps 1 GiB of
 * shared anonymous hugetlb memory twice over, one at a time: at a 1 GiB
 * boundary (its window can be shared) and 2 MiB past one (it straddles two
 * windows and covers neither: the same pages, no sharing), writes every
 * huge page, then forks, the child exiting at once, and forks again, the
 * child reading one byte of every huge page first.  Since 6.0 fork copies
 * no page table of a shared hugetlb mapping (lazy, as for other shared
 * mappings), so what sharing saves shows in the child's reads: with the
 * window shared, its first fault finds the parent's PMD page and every
 * other read hits; apart, each huge page faults.  The child's minor faults
 * (wait4) are the kernel's own count of it, printed beside the times.
 *
 * The huge pages must be there: when fewer are free than the mapping
 * needs, root raises vm.nr_hugepages for the measurement and puts the
 * value it read back afterwards (also on SIGINT, SIGTERM or SIGHUP); anyone
 * else, or a kernel that cannot give them, gets "skipped" and why.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "inputs/snapshot.h"

#ifndef MAP_HUGETLB
#define MAP_HUGETLB 0x40000
#endif

static const char *nr_hugepages_path = "/proc/sys/vm/nr_hugepages";

/* The value to put back from a signal handler: written before the change. */
static char saved_text[32];
static size_t saved_length;
static volatile sig_atomic_t changed;

static void restore_now(void)
{
	if (!changed)
		return;
	int fd = open(nr_hugepages_path, O_WRONLY);
	if (fd >= 0) {
		if (write(fd, saved_text, saved_length) < 0) {
			/* nothing more a handler can do */
		}
		close(fd);
	}
	changed = 0;
}

static void on_signal(int signal_number)
{
	restore_now();
	signal(signal_number, SIG_DFL);
	raise(signal_number);
}

/* A number of /proc/meminfo ("HugePages_Free"), or -1. */
static long meminfo_value(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	long value = -1;
	size_t length = strlen(key);
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, length) && line[length] == ':') {
			value = strtol(line + length + 1, NULL, 10);
			break;
		}
	if (f)
		fclose(f);
	return value;
}

static long read_nr_hugepages(void)
{
	FILE *f = fopen(nr_hugepages_path, "r");
	long value = -1;
	if (f && fscanf(f, "%ld", &value) != 1)
		value = -1;
	if (f)
		fclose(f);
	return value;
}

static int write_nr_hugepages(long value)
{
	FILE *f = fopen(nr_hugepages_path, "w");
	if (!f)
		return -1;
	int status = fprintf(f, "%ld\n", value) < 0 ? -1 : 0;
	return fclose(f) || status ? -1 : 0;
}

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* One fork; the child reads a byte of every huge page first when asked.
 * Its minor faults from wait4. */
static int fork_once(volatile const char *region, size_t pages, size_t page_bytes, bool read_all, double *us,
		     long *faults, struct error *error)
{
	double start = now_us();
	pid_t child = fork();
	if (child == 0) {
		int sum = 0;
		for (size_t i = 0; read_all && i < pages; i++)
			sum += region[i * page_bytes];
		_exit(sum == -1);
	}
	if (child < 0)
		return error_internal(error, NULL, 0, "bench: hugetlb: fork: %s", strerror(errno));
	int status;
	struct rusage usage;
	while (wait4(child, &status, 0, &usage) < 0)
		if (errno != EINTR)
			return error_internal(error, NULL, 0, "bench: hugetlb: wait: %s", strerror(errno));
	*us = now_us() - start;
	*faults = usage.ru_minflt;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return error_internal(error, NULL, 0, "bench: hugetlb: the child failed (status %d)", status);
	return 0;
}

/* Map the window (shared: at a window boundary; else one huge page past
 * it), write every page, time the forks, unmap. */
static int measure_placement(struct hugetlb_result *result, size_t placement, size_t runs, size_t warmup,
			     struct error *error)
{
	size_t window = result->window_bytes, page_bytes = result->page_bytes, pages = window / page_bytes;
	size_t span = window * 3;
	char *reserve = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (reserve == MAP_FAILED)
		return error_internal(error, NULL, 0, "bench: hugetlb: mmap of address space: %s", strerror(errno));
	uintptr_t aligned = ((uintptr_t)reserve + window - 1) & ~(uintptr_t)(window - 1);
	char *at = (char *)aligned + (placement == HUGETLB_SHARED ? 0 : page_bytes);
	char *region = mmap(at, window, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB | MAP_FIXED,
			    -1, 0);
	if (region == MAP_FAILED) {
		int saved = errno;
		munmap(reserve, span);
		return error_internal(error, NULL, 0, "bench: hugetlb: mmap of %zu MiB of huge pages: %s", window >> 20,
				      strerror(saved));
	}
	for (size_t i = 0; i < pages; i++)
		region[i * page_bytes] = 1;
	double *samples[2] = { xcalloc(runs, sizeof(double)), xcalloc(runs, sizeof(double)) };
	long faults_sum[2] = { 0, 0 };
	int status = 0;
	for (size_t mode = 0; !status && mode < 2; mode++)
		for (size_t i = 0; !status && i < warmup + runs; i++) {
			double us = 0;
			long faults = 0;
			status = fork_once(region, pages, page_bytes, mode == 1, &us, &faults, error);
			if (!status && i >= warmup) {
				samples[mode][i - warmup] = us;
				faults_sum[mode] += faults;
			}
		}
	if (!status)
		for (size_t mode = 0; mode < 2; mode++) {
			latency_stats_of(samples[mode], runs, &result->stats[placement][mode]);
			result->child_faults[placement][mode] = (double)faults_sum[mode] / (double)runs;
		}
	free(samples[0]);
	free(samples[1]);
	munmap(reserve, span);
	return status;
}

/* Have `needed` free huge pages, raising vm.nr_hugepages when root may;
 * false with why_skipped filled when they cannot be had. */
static bool reserve(struct hugetlb_result *result, long needed)
{
	long free_pages = meminfo_value("HugePages_Free");
	result->nr_hugepages_before = read_nr_hugepages();
	result->nr_hugepages_after = result->nr_hugepages_before;
	if (free_pages < 0 || result->nr_hugepages_before < 0) {
		snprintf(result->why_skipped, sizeof(result->why_skipped),
			 "this kernel has no hugetlbfs (no HugePages_Free in /proc/meminfo or no %s)", nr_hugepages_path);
		return false;
	}
	if (free_pages >= needed)
		return true;
	long want = result->nr_hugepages_before + (needed - free_pages);
	if (geteuid() != 0) {
		snprintf(result->why_skipped, sizeof(result->why_skipped),
			 "%ld huge pages free of the %ld needed, and only root may raise vm.nr_hugepages", free_pages, needed);
		return false;
	}
	long available_kb = meminfo_value("MemAvailable");
	if (available_kb >= 0 && (uint64_t)available_kb * 1024 < 2 * (uint64_t)needed * result->page_bytes) {
		snprintf(result->why_skipped, sizeof(result->why_skipped),
			 "%ld MiB available: under twice the %zu MiB of huge pages it would reserve", available_kb >> 10,
			 (size_t)needed * result->page_bytes >> 20);
		return false;
	}
	saved_length = (size_t)snprintf(saved_text, sizeof(saved_text), "%ld\n", result->nr_hugepages_before);
	struct sigaction action = { .sa_handler = on_signal };
	sigemptyset(&action.sa_mask);
	sigaction(SIGINT, &action, NULL);
	sigaction(SIGTERM, &action, NULL);
	sigaction(SIGHUP, &action, NULL);
	changed = 1;
	if (write_nr_hugepages(want) != 0) {
		snprintf(result->why_skipped, sizeof(result->why_skipped), "cannot write %s: %s", nr_hugepages_path,
			 strerror(errno));
		return false;
	}
	result->raised_to = read_nr_hugepages();
	free_pages = meminfo_value("HugePages_Free");
	if (free_pages < needed) {
		snprintf(result->why_skipped, sizeof(result->why_skipped),
			 "vm.nr_hugepages %ld -> %ld gave %ld free huge pages of the %ld needed (memory too fragmented)",
			 result->nr_hugepages_before, want, free_pages, needed);
		return false;
	}
	return true;
}

static void put_back(struct hugetlb_result *result)
{
	if (changed) {
		restore_now();
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		result->changed = true;
	}
	result->nr_hugepages_after = read_nr_hugepages();
}

int hugetlb_measure(size_t runs, size_t warmup, struct hugetlb_result *result, struct error *error)
{
	memset(result, 0, sizeof(*result));
	long hugepage_kb = meminfo_value("Hugepagesize");
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t pmd_bytes = page / sizeof(uint64_t) * page;   /* what one PMD entry maps (2 MiB) */
	result->page_bytes = hugepage_kb > 0 ? (size_t)hugepage_kb * 1024 : 0;
	result->window_bytes = page / sizeof(uint64_t) * pmd_bytes;   /* what one PMD page maps (1 GiB) */
	if (hugepage_kb <= 0) {
		snprintf(result->why_skipped, sizeof(result->why_skipped), "no hugetlbfs here (no Hugepagesize in /proc/meminfo)");
		return 0;
	}
	if (result->page_bytes != pmd_bytes) {
		snprintf(result->why_skipped, sizeof(result->why_skipped),
			 "the default huge page is %ld kB, not the %zu kB a PMD entry maps", hugepage_kb, pmd_bytes >> 10);
		return 0;
	}
	long needed = (long)(result->window_bytes / result->page_bytes);
	int status = 0;
	if (reserve(result, needed)) {
		status = measure_placement(result, HUGETLB_SHARED, runs, warmup, error);
		if (!status)
			status = measure_placement(result, HUGETLB_APART, runs, warmup, error);
		result->measured = status == 0;
	}
	put_back(result);
	if (result->changed && result->nr_hugepages_after != result->nr_hugepages_before) {
		/* the kernel keeps huge pages still in use as surplus: said, not hidden */
		snprintf(result->why_not_restored, sizeof(result->why_not_restored),
			 "vm.nr_hugepages reads %ld after putting back %ld", result->nr_hugepages_after,
			 result->nr_hugepages_before);
	}
	return status;
}
