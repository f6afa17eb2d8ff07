/*
 * inputs/tracepoints.c - what the kernel did during an event, counted by
 * its own tracepoints without kprobes: perf_event_open(2) on the ids tracefs
 * gives them (PERF_TYPE_TRACEPOINT), one counter per event and filter on the
 * counted process, and for a fork's child one per event on the CPU it runs
 * on, filtered to its pid (trace_fork).
 *
 *   kmem:kmem_cache_alloc / kmem_cache_free, name == vm_area_struct,
 *     anon_vma, anon_vma_chain: the objects fork makes and exit frees;
 *   exceptions:page_fault_user: faults from user space;
 *   sched:sched_process_fork: the forks themselves.
 *
 * A slab cache merged with others (slab merging: /sys/kernel/slab/NAME is
 * a link) is one cache under the name of the first made, so its counts may
 * hold the others' objects or be 0: said beside them, not guessed.
 * Frees the kernel defers past the child's exit (RCU callbacks) run in
 * another task's name and are not counted.  Where tracefs is not mounted or perf_event_open is refused (not
 * root, perf_event_paranoid), the session says why and counts nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inputs/snapshot.h"

const struct trace_counter_info trace_counters[TRACE_COUNTER_COUNT] = {
	[TRACE_VMA_ALLOC] = { "vm_area_struct allocated", "kmem/kmem_cache_alloc", "vm_area_struct" },
	[TRACE_VMA_FREE] = { "vm_area_struct freed", "kmem/kmem_cache_free", "vm_area_struct" },
	[TRACE_ANON_VMA_ALLOC] = { "anon_vma allocated", "kmem/kmem_cache_alloc", "anon_vma" },
	[TRACE_ANON_VMA_FREE] = { "anon_vma freed", "kmem/kmem_cache_free", "anon_vma" },
	[TRACE_CHAIN_ALLOC] = { "anon_vma_chain allocated", "kmem/kmem_cache_alloc", "anon_vma_chain" },
	[TRACE_CHAIN_FREE] = { "anon_vma_chain freed", "kmem/kmem_cache_free", "anon_vma_chain" },
	[TRACE_FAULT_USER] = { "user page faults", "exceptions/page_fault_user", NULL },
	[TRACE_FORK] = { "forks", "sched/sched_process_fork", NULL },
};

/* Where tracefs is mounted (its own mount, or debugfs's tracing/), or "". */
static void find_tracefs(char *path, size_t size)
{
	FILE *mounts = fopen("/proc/self/mounts", "r");
	char line[4096], where[2048], type[64];
	path[0] = '\0';
	while (mounts && fgets(line, sizeof(line), mounts)) {
		if (sscanf(line, "%*s %2047s %63s", where, type) != 2)
			continue;
		if (!strcmp(type, "tracefs")) {
			snprintf(path, size, "%s", where);
			break;
		}
		if (!strcmp(type, "debugfs") && !path[0])
			snprintf(path, size, "%s/tracing", where);
	}
	if (mounts)
		fclose(mounts);
	struct stat st;
	char events[4200];
	snprintf(events, sizeof(events), "%s/events", path);
	if (path[0] && stat(events, &st) != 0)
		path[0] = '\0';
}

static long event_id(const char *tracefs, const char *event)
{
	char path[4200], text[32];
	snprintf(path, sizeof(path), "%s/events/%s/id", tracefs, event);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	return strtol(text, NULL, 10);
}

/* Is the cache its own (sysfs shows a directory), or merged (a link)? */
static bool cache_merged(const char *cache)
{
	char path[256];
	struct stat st;
	snprintf(path, sizeof(path), "/sys/kernel/slab/%s", cache);
	return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

static int open_counter(long id, pid_t pid, const char *cache)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = (uint64_t)id;
	attr.disabled = 1;
	int fd = (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (cache) {
		char filter[128];
		snprintf(filter, sizeof(filter), "name == \"%s\"", cache);
		if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter) != 0) {
			int saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
	}
	return fd;
}

void trace_open(struct trace_session *session, pid_t pid)
{
	char tracefs[4096];
	memset(session, 0, sizeof(*session));
	for (size_t i = 0; i < TRACE_COUNTER_COUNT; i++)
		session->fds[i] = -1;
	find_tracefs(tracefs, sizeof(tracefs));
	if (!tracefs[0]) {
		snprintf(session->why, sizeof(session->why),
			 "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
		return;
	}
	for (size_t i = 0; i < TRACE_COUNTER_COUNT; i++) {
		const struct trace_counter_info *c = &trace_counters[i];
		long id = event_id(tracefs, c->event);
		if (id < 0) {
			snprintf(session->why, sizeof(session->why), "%s/events/%s: %s", tracefs, c->event,
				 strerror(errno ? errno : ENOENT));
			trace_close(session);
			return;
		}
		session->ids[i] = id;
		session->fds[i] = open_counter(id, pid, c->cache);
		if (session->fds[i] < 0) {
			snprintf(session->why, sizeof(session->why), "perf_event_open of %s: %s%s", c->event,
				 strerror(errno),
				 errno == EACCES || errno == EPERM ? " (root, or kernel.perf_event_paranoid <= 1)" : "");
			trace_close(session);
			return;
		}
		session->merged[i] = c->cache && cache_merged(c->cache);
	}
	session->available = true;
}

static void start(struct trace_session *session)
{
	for (size_t i = 0; session->available && i < TRACE_COUNTER_COUNT; i++) {
		ioctl(session->fds[i], PERF_EVENT_IOC_ENABLE, 0);
	}
}

void trace_close(struct trace_session *session)
{
	for (size_t i = 0; i < TRACE_COUNTER_COUNT; i++) {
		if (session->fds[i] >= 0)
			close(session->fds[i]);
		session->fds[i] = -1;
	}
	session->available = false;
}

/* The child's own counters: CPU-wide on the CPU it runs on, filtered to
 * its pid, since a task's own counters are gone before its exit tears
 * down its memory (measured on 6.18: no free of the exit was counted). */
static int open_child_counters(const struct trace_session *session, pid_t child, int cpu, int *fds)
{
	for (size_t i = 0; i < TRACE_COUNTER_COUNT; i++)
		fds[i] = -1;
	for (size_t i = 0; i < TRACE_COUNTER_COUNT; i++) {
		const struct trace_counter_info *c = &trace_counters[i];
		struct perf_event_attr attr;
		char filter[160];
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.config = (uint64_t)session->ids[i];
		attr.disabled = 1;
		fds[i] = (int)syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (c->cache)
			snprintf(filter, sizeof(filter), "name == \"%s\" && common_pid == %d", c->cache, (int)child);
		else
			snprintf(filter, sizeof(filter), "common_pid == %d", (int)child);
		if (fds[i] < 0 || ioctl(fds[i], PERF_EVENT_IOC_SET_FILTER, filter) != 0 ||
		    ioctl(fds[i], PERF_EVENT_IOC_ENABLE, 0) != 0)
			return -1;
	}
	return 0;
}

static void close_all(int *fds)
{
	for (size_t i = 0; i < TRACE_COUNTER_COUNT; i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

/* Each counter's value now (the kernel never resets what inherited or
 * other counters added, so a count is a difference of two reads). */
static int read_all(const int *fds, uint64_t *values)
{
	for (size_t i = 0; i < TRACE_COUNTER_COUNT; i++)
		if (read(fds[i], &values[i], sizeof(values[i])) != (ssize_t)sizeof(values[i]))
			return -1;
	return 0;
}

/* A child that waits for a byte (or the end) on hold[0], then exits at
 * once: the parent measures between the fork and its write or close of
 * hold[1].  The parent's hold[0] is closed. */
pid_t fork_held(int hold[2])
{
	pid_t child = fork();
	if (child == 0) {
		char byte;
		close(hold[1]);
		_exit(read(hold[0], &byte, 1) < 0);
	}
	close(hold[0]);
	return child;
}

int trace_fork(struct trace_session *session, int cpu, uint64_t *counts)
{
	if (!session->available)
		return -1;
	int hold[2], child_fds[TRACE_COUNTER_COUNT];
	uint64_t before[TRACE_COUNTER_COUNT], after[TRACE_COUNTER_COUNT], child_counts[TRACE_COUNTER_COUNT];
	if (pipe2(hold, O_CLOEXEC) != 0) {
		snprintf(session->why, sizeof(session->why), "pipe: %s", strerror(errno));
		return -1;
	}
	start(session);
	read_all(session->fds, before);
	/* the child waits until the parent has counted it, then exits at once */
	pid_t child = fork_held(hold);
	int status = child < 0 ? -1 : open_child_counters(session, child, cpu, child_fds);
	if (child < 0 || status)
		snprintf(session->why, sizeof(session->why), "%s: %s",
			 child < 0 ? "fork" : "perf_event_open of a CPU's counter", strerror(errno));
	close(hold[1]);   /* the child goes on */
	while (child > 0 && waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	for (size_t i = 0; i < TRACE_COUNTER_COUNT; i++) {
		ioctl(session->fds[i], PERF_EVENT_IOC_DISABLE, 0);
		if (child > 0 && child_fds[i] >= 0)
			ioctl(child_fds[i], PERF_EVENT_IOC_DISABLE, 0);
	}
	if (!status && (read_all(session->fds, after) || read_all(child_fds, child_counts))) {
		snprintf(session->why, sizeof(session->why), "reading the counters: %s", strerror(errno));
		status = -1;
	}
	if (child > 0)
		close_all(child_fds);
	for (size_t i = 0; !status && i < TRACE_COUNTER_COUNT; i++)
		counts[i] = after[i] - before[i] + child_counts[i];
	return status;
}

void trace_count_fork(int cpu, struct trace_result *result)
{
	struct trace_session session;
	memset(result, 0, sizeof(*result));
	trace_open(&session, 0);
	if (session.available && trace_fork(&session, cpu, result->counts) == 0) {
		result->counted = true;
		memcpy(result->merged, session.merged, sizeof(result->merged));
	}
	if (!result->counted)
		snprintf(result->why, sizeof(result->why), "%s", session.why);
	trace_close(&session);
}
