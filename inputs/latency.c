/*
 * inputs/latency.c - latencies of the running kernel, measured the way
 * lmbench's lat_proc and lat_pagefault do: one CPU (sched_setaffinity, as
 * lmbench's pinning option), a few warm-up runs thrown away, then N timed
 * runs on CLOCK_MONOTONIC, summed up as min / median / p90 in microseconds.
 *
 * Faults are timed over a region and divided by the minor faults getrusage
 * counted in it, so fault-around (several file pages mapped by one fault)
 * makes a fault dearer, never a page cheaper than it is.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/array.h"
#include "inputs/snapshot.h"

enum {
	FAULT_PAGES = 64,               /* pages touched per fault run */
	MUNMAP_PAGES = 256,             /* present pages of the region one munmap removes */
	PAGE_BYTES = 4096,
};

#define EXEC_PROGRAM "/bin/true"
#define SHELL_PROGRAM "/bin/sh"

const struct latency_kind_info latency_kinds[LATENCY_KIND_COUNT] = {
	[LATENCY_FORK] = { "fork", "fork", "fork + exit + wait (the child exits once the parent read the clock)" },
	[LATENCY_EXEC] = { "exec", "exec", "fork + execve " EXEC_PROGRAM " + wait" },
	[LATENCY_SH] = { "sh", "sh", "fork + " SHELL_PROGRAM " -c " EXEC_PROGRAM " + wait" },
	[LATENCY_FAULT_ANON] = { "fault-anon", "fault", "first touch of an anonymous page, per fault" },
	[LATENCY_FAULT_COW] = { "fault-cow", "fault", "write to an anonymous page shared with a child, per fault" },
	[LATENCY_FAULT_FILE] = { "fault-file", "fault", "read of a cached file page, per fault" },
	[LATENCY_MUNMAP] = { "munmap", "munmap", "munmap of 1 MiB holding 256 present anonymous pages" },
};

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static long minor_faults(void)
{
	struct rusage usage;
	getrusage(RUSAGE_SELF, &usage);
	return usage.ru_minflt;
}

int latency_pin(int cpu, int *pinned, struct error *error)
{
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return error_internal(error, NULL, 0, "bench: cannot read the allowed CPUs: %s", strerror(errno));
	if (cpu < 0) {
		/* lmbench pins to a CPU it is allowed; the lowest is as good as any */
		for (cpu = 0; cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &allowed); cpu++)
			;
	}
	if (cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed)) {
		char list[256];
		latency_allowed_cpus(list, sizeof(list));
		return error_set(error, NULL, 0, "bench: --cpu %d is not one of the CPUs this process may use (%s)",
				 cpu, list);
	}
	cpu_set_t one;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) != 0)
		return error_internal(error, NULL, 0, "bench: cannot pin to CPU %d: %s", cpu, strerror(errno));
	*pinned = cpu;
	return 0;
}

void latency_allowed_cpus(char *buffer, size_t size)
{
	cpu_set_t allowed;
	size_t used = 0;
	buffer[0] = '\0';
	if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0)
		return;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed) || (cpu > 0 && CPU_ISSET(cpu - 1, &allowed)))
			continue;
		int last = cpu;
		while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &allowed))
			last++;
		int n = last > cpu ? snprintf(buffer + used, size - used, "%s%d-%d", used ? "," : "", cpu, last)
				   : snprintf(buffer + used, size - used, "%s%d", used ? "," : "", cpu);
		if (n < 0 || (size_t)n >= size - used)
			return;
		used += (size_t)n;
	}
}

static int compare_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void latency_stats_of(double *samples_us, size_t count, struct latency_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	stats->runs = count;
	if (!count)
		return;
	array_sort(samples_us, count, sizeof(double), compare_double);
	double sum = 0;
	for (size_t i = 0; i < count; i++)
		sum += samples_us[i];
	stats->min_us = samples_us[0];
	stats->median_us = count % 2 ? samples_us[count / 2] : (samples_us[count / 2 - 1] + samples_us[count / 2]) / 2;
	/* nearest rank: the smallest sample at or above 90 % of them */
	size_t rank = (size_t)ceil(0.9 * (double)count);
	stats->p90_us = samples_us[rank ? rank - 1 : 0];
	stats->mean_us = sum / (double)count;
}

static double cpu_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* Wait for a child; 0 when it exited with status 0.  usage: its resources
 * (NULL: not wanted). */
static int reap_with(pid_t child, const char *what, struct rusage *usage, struct error *error)
{
	int status;
	while (wait4(child, &status, 0, usage) < 0)
		if (errno != EINTR)
			return error_internal(error, NULL, 0, "bench: %s: wait: %s", what, strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return error_internal(error, NULL, 0, "bench: %s: the child failed (status %d)", what, status);
	return 0;
}

static int reap(pid_t child, const char *what, struct error *error)
{
	return reap_with(child, what, NULL, error);
}

/* One fork of this process; the child execs argv when given, else exits.
 * Beside the elapsed time, a fork that only exits is split into CPU time,
 * which the machine's other work does not lengthen: the parent's in fork()
 * (CLOCK_THREAD_CPUTIME_ID), and the child's whole life, which is its
 * return from fork, one read and its exit (the kernel's sum of its run
 * time, user + system, as wait4 reports it).  Such a child first waits for
 * a byte on a pipe, so that it never runs inside the parent's fork part. */
static int time_process(char *const *argv, const char *what, struct latency_run *run, struct error *error)
{
	int gate[2] = { -1, -1 };
	if (!argv && pipe2(gate, O_CLOEXEC) != 0)
		return error_internal(error, NULL, 0, "bench: %s: pipe: %s", what, strerror(errno));
	double start = now_us(), cpu = cpu_us();
	pid_t child = fork();
	run->fork_us = cpu_us() - cpu;
	if (child == 0) {
		char byte;
		if (argv)
			execv(argv[0], argv);
		/* its own copy of the write end closed: a parent killed before
		 * writing is then an end of file here, not a wait for ever
		 * (the child would hold the subject's pipe to ptscope open) */
		close(gate[1]);
		_exit(argv ? 127 : read(gate[0], &byte, 1) == 1 ? 0 : 1);
	}
	if (!argv) {
		if (child > 0 && write(gate[1], "x", 1) != 1)
			kill(child, SIGKILL);
		close(gate[0]);
		close(gate[1]);
	}
	if (child < 0)
		return error_internal(error, NULL, 0, "bench: %s: fork: %s", what, strerror(errno));
	struct rusage usage;
	int status = reap_with(child, what, &usage, error);
	run->elapsed_us = now_us() - start;
	run->exit_us = (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 +
		       (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
	return status;
}

static void *map_anonymous(size_t pages)
{
	void *region = mmap(NULL, pages * PAGE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		return NULL;
	madvise(region, pages * PAGE_BYTES, MADV_NOHUGEPAGE);  /* 4 KiB faults, not one 2 MiB one */
	return region;
}

static void touch(volatile char *region, size_t pages)
{
	for (size_t i = 0; i < pages; i++)
		region[i * PAGE_BYTES] = 1;
}

static int read_pages(volatile const char *region, size_t pages)
{
	int sum = 0;
	for (size_t i = 0; i < pages; i++)
		sum += region[i * PAGE_BYTES];
	return sum;
}

/* A time over a region divided by the minor faults taken in it. */
static int per_fault(double start_us, long faults_before, struct latency_run *run, struct error *error)
{
	double elapsed = now_us() - start_us;
	long faults = minor_faults() - faults_before;
	if (faults <= 0)
		return error_internal(error, NULL, 0, "bench: the kernel counted no fault where one was due");
	run->elapsed_us = elapsed / (double)faults;
	run->faults = (uint64_t)faults;
	return 0;
}

static int fault_anonymous(struct latency_run *run, struct error *error)
{
	char *region = map_anonymous(FAULT_PAGES);
	if (!region)
		return error_internal(error, NULL, 0, "bench: mmap: %s", strerror(errno));
	long before = minor_faults();
	double start = now_us();
	touch(region, FAULT_PAGES);
	int status = per_fault(start, before, run, error);
	munmap(region, FAULT_PAGES * PAGE_BYTES);
	return status;
}

/* The child holds the pages until the parent has written every one. */
static int fault_cow(struct latency_run *run, struct error *error)
{
	char *region = map_anonymous(FAULT_PAGES);
	int hold[2];
	if (!region)
		return error_internal(error, NULL, 0, "bench: mmap: %s", strerror(errno));
	touch(region, FAULT_PAGES);
	if (pipe(hold) != 0) {
		munmap(region, FAULT_PAGES * PAGE_BYTES);
		return error_internal(error, NULL, 0, "bench: pipe: %s", strerror(errno));
	}
	pid_t child = fork_held(hold);
	int status = child < 0 ? error_internal(error, NULL, 0, "bench: fork: %s", strerror(errno)) : 0;
	if (!status) {
		long before = minor_faults();
		double start = now_us();
		touch(region, FAULT_PAGES);
		status = per_fault(start, before, run, error);
	}
	close(hold[1]);
	if (child > 0 && reap(child, "fault-cow", error) && !status)
		status = -1;
	munmap(region, FAULT_PAGES * PAGE_BYTES);
	return status;
}

static int fault_file(int fd, struct latency_run *run, struct error *error)
{
	char *region = mmap(NULL, FAULT_PAGES * PAGE_BYTES, PROT_READ, MAP_PRIVATE, fd, 0);
	if (region == MAP_FAILED)
		return error_internal(error, NULL, 0, "bench: mmap of the scratch file: %s", strerror(errno));
	long before = minor_faults();
	double start = now_us();
	volatile int sum = read_pages(region, FAULT_PAGES);
	(void)sum;
	int status = per_fault(start, before, run, error);
	munmap(region, FAULT_PAGES * PAGE_BYTES);
	return status;
}

static int time_munmap(struct latency_run *run, struct error *error)
{
	char *region = map_anonymous(MUNMAP_PAGES);
	if (!region)
		return error_internal(error, NULL, 0, "bench: mmap: %s", strerror(errno));
	touch(region, MUNMAP_PAGES);
	double start = now_us();
	munmap(region, MUNMAP_PAGES * PAGE_BYTES);
	run->elapsed_us = now_us() - start;
	return 0;
}

/* A file of FAULT_PAGES pages in a private scratch folder, unlinked at
 * once (the descriptor keeps it), read once so its pages are cached. */
static int scratch_file(struct error *error)
{
	const char *base = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char path[4096];
	snprintf(path, sizeof(path), "%s/ptscope-bench-XXXXXX", base);
	int fd = mkstemp(path);
	if (fd < 0)
		return error_internal(error, path, 0, "cannot make the scratch file: %s", strerror(errno));
	unlink(path);
	char page[PAGE_BYTES];
	memset(page, 'p', sizeof(page));
	for (int i = 0; i < FAULT_PAGES; i++)
		if (write(fd, page, sizeof(page)) != (ssize_t)sizeof(page)) {
			int saved = errno;
			close(fd);
			return error_internal(error, path, 0, "cannot write the scratch file: %s", strerror(saved));
		}
	return fd;
}

static int run_once(enum latency_kind kind, int fd, struct latency_run *run, struct error *error)
{
	static char *const exec_argv[] = { EXEC_PROGRAM, NULL };
	static char *const shell_argv[] = { SHELL_PROGRAM, "-c", EXEC_PROGRAM, NULL };
	run->faults = 0;
	switch (kind) {
	case LATENCY_FORK: return time_process(NULL, "fork", run, error);
	case LATENCY_EXEC: return time_process(exec_argv, EXEC_PROGRAM, run, error);
	case LATENCY_SH: return time_process(shell_argv, SHELL_PROGRAM, run, error);
	case LATENCY_FAULT_ANON: return fault_anonymous(run, error);
	case LATENCY_FAULT_COW: return fault_cow(run, error);
	case LATENCY_FAULT_FILE: return fault_file(fd, run, error);
	case LATENCY_MUNMAP: return time_munmap(run, error);
	case LATENCY_KIND_COUNT: break;
	}
	return error_internal(error, NULL, 0, "bench: unknown measurement %d", (int)kind);
}

int latency_measure(enum latency_kind kind, size_t runs, size_t warmup, struct latency_result *result,
		    struct error *error)
{
	if ((kind == LATENCY_EXEC || kind == LATENCY_SH) && access(EXEC_PROGRAM, X_OK) != 0)
		return error_internal(error, EXEC_PROGRAM, 0, "cannot run it: %s", strerror(errno));
	if (kind == LATENCY_SH && access(SHELL_PROGRAM, X_OK) != 0)
		return error_internal(error, SHELL_PROGRAM, 0, "cannot run it: %s", strerror(errno));
	int fd = -1;
	if (kind == LATENCY_FAULT_FILE && (fd = scratch_file(error)) < 0)
		return -1;
	double *samples = xcalloc(runs ? runs : 1, sizeof(double));
	double *forks = xcalloc(runs ? runs : 1, sizeof(double)), *exits = xcalloc(runs ? runs : 1, sizeof(double));
	uint64_t faults = 0;
	int status = 0;
	for (size_t i = 0; !status && i < warmup + runs; i++) {
		struct latency_run run = { 0, 0, 0, 0 };
		status = run_once(kind, fd, &run, error);
		if (!status && i >= warmup) {
			samples[i - warmup] = run.elapsed_us;
			forks[i - warmup] = run.fork_us;
			exits[i - warmup] = run.exit_us;
			faults += run.faults;
		}
	}
	if (fd >= 0)
		close(fd);
	if (!status) {
		result->kind = kind;
		result->faults_per_run = runs ? (double)faults / (double)runs : 0;
		result->pages_per_run = faults ? FAULT_PAGES : 0;
		latency_stats_of(samples, runs, &result->stats);
		memset(&result->fork_part, 0, sizeof(result->fork_part));
		memset(&result->exit_part, 0, sizeof(result->exit_part));
		if (kind == LATENCY_FORK) {
			latency_stats_of(forks, runs, &result->fork_part);
			latency_stats_of(exits, runs, &result->exit_part);
		}
	}
	free(samples);
	free(forks);
	free(exits);
	return status;
}

/* The value after "key" and a colon in a "key: value" file, or "". */
static void proc_value(const char *path, const char *key, char *value, size_t size)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t length = strlen(key);
	value[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, length) || !strchr(line, ':'))
			continue;
		const char *at = strchr(line, ':') + 1;
		at += strspn(at, " \t");
		snprintf(value, size, "%.*s", (int)strcspn(at, "\n"), at);
		break;
	}
	if (f)
		fclose(f);
}

void latency_machine_read(struct latency_machine *machine)
{
	struct utsname name;
	memset(machine, 0, sizeof(*machine));
	snprintf(machine->kernel, sizeof(machine->kernel), "%s", uname(&name) == 0 ? name.release : "unknown");
	proc_value("/proc/cpuinfo", "model name", machine->cpu_model, sizeof(machine->cpu_model));
	if (!machine->cpu_model[0])
		snprintf(machine->cpu_model, sizeof(machine->cpu_model), "unknown");
	latency_allowed_cpus(machine->allowed_cpus, sizeof(machine->allowed_cpus));
	machine->cpu = -1;
	char rss[64];
	proc_value("/proc/self/status", "VmRSS", rss, sizeof(rss));
	machine->image_rss_kb = strtoull(rss, NULL, 10);
	FILE *maps = fopen("/proc/self/maps", "r");
	int c;
	while (maps && (c = getc(maps)) != EOF)
		machine->image_vmas += c == '\n';
	if (maps)
		fclose(maps);
}
