/*
 * inputs/layout.c - a captured process's address space, rebuilt in a child
 * of ptscope (the subject) so that `ptscope bench fork --like` times a fork
 * of that shape on this kernel.
 *
 * Each VMA of the snapshot's process is mapped again with its size,
 * permissions, shared or private, anonymous or file-backed: the original
 * file when it is still there, a regular file, large enough and the VMA is
 * not shared-writable (a write through it would reach the file); else a
 * sparse file of the same size with no name (O_TMPFILE in $TMPDIR or /tmp;
 * where the file system cannot, mkstemp's 0600 file unlinked at once), so
 * a subject killed while building leaves nothing behind.  The pages the
 * pagemap showed present are touched: written where they were anonymous (a
 * private file page copied on write is anonymous too), read where they were
 * file pages.  A VMA whose smaps showed AnonHugePages gets MADV_HUGEPAGE,
 * every other MADV_NOHUGEPAGE, so THP does not add what was not there.
 * Without pagemap records, a VMA's first Rss pages are touched.
 *
 * The VMA goes at its own address when that is free, else at an address
 * with the same offset in its 2 MiB window (so it needs the same PTE pages);
 * anonymous VMAs are named (PR_SET_VMA_ANON_NAME) one by one so that two
 * neighbours the original kept apart are not merged into one.  The kernel's
 * own mappings ([vdso], [vvar], [vsyscall]) are not rebuilt.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/file.h"
#include "inputs/snapshot.h"

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

#define PAGE_BYTES 4096u
#define WINDOW_BYTES (UINT64_C(2) << 20)
#define WRITE_BIT (UINT64_C(1) << 63)
#define LOWEST_FIXED (UINT64_C(64) << 10)

static bool kernel_mapping(const char *path)
{
	return !strcmp(path, "[vdso]") || !strncmp(path, "[vvar", 5) || !strcmp(path, "[vsyscall]") ||
	       !strcmp(path, "[uprobes]");
}

/* The pages to touch: pagemap's present records, else the first Rss pages. */
static void add_pages(const struct snapshot *s, const struct process *p, const struct vma *v,
		      struct layout_vma *out)
{
	size_t capacity = 0;
	bool anonymous_vma = !v->path[0] || v->path[0] == '[';
	if (p->has_pagemap) {
		struct pagemap_record record;
		uint64_t at = v->start;
		while (at < v->end && process_next_record(s, p, at, v->end, &record)) {
			at = record.vaddr + PAGE_BYTES;
			if (!(record.entry & PAGEMAP_PRESENT))
				continue;
			bool file_page = (record.entry & PAGEMAP_FILE_OR_SHARED) && !anonymous_vma;
			uint64_t page = (record.vaddr - v->start) / PAGE_BYTES;
			*ARRAY_PUSH(out->pages, out->page_count, capacity) = page | (file_page ? 0 : WRITE_BIT);
		}
		return;
	}
	uint64_t pages = v->kb[SMAPS_RSS] * 1024 / PAGE_BYTES, anonymous = v->kb[SMAPS_ANONYMOUS] * 1024 / PAGE_BYTES;
	uint64_t most = (v->end - v->start) / PAGE_BYTES;
	for (uint64_t page = 0; page < pages && page < most; page++)
		*ARRAY_PUSH(out->pages, out->page_count, capacity) =
			page | (anonymous_vma || page < anonymous ? WRITE_BIT : 0);
}

/* How many pages add_pages would list, counted before anything is kept:
 * a snapshot may claim terabytes present. */
static uint64_t count_pages(const struct snapshot *s, const struct process *p, const struct vma *v)
{
	if (!p->has_pagemap) {
		uint64_t pages = v->kb[SMAPS_RSS] * 1024 / PAGE_BYTES, most = (v->end - v->start) / PAGE_BYTES;
		return pages < most ? pages : most;
	}
	struct pagemap_record record;
	uint64_t at = v->start, count = 0;
	while (at < v->end && process_next_record(s, p, at, v->end, &record)) {
		at = record.vaddr + PAGE_BYTES;
		count += (record.entry & PAGEMAP_PRESENT) != 0;
	}
	return count;
}

/* What the subject could not map as the snapshot says, refused before it
 * tries: a file offset off a page, or past what a file can have. */
static int check_vma(const struct snapshot *s, const struct vma *v, size_t index, struct error *error)
{
	if (v->offset % PAGE_BYTES || v->offset > (uint64_t)INT64_MAX - (v->end - v->start))
		return error_set(error, s->source, 0, "VMA %zu (%" PRIx64 "-%" PRIx64 "): file offset %#" PRIx64
				 " cannot be mapped (off a page, or past the largest file)", index, v->start, v->end,
				 v->offset);
	return 0;
}

int layout_from_snapshot(const struct snapshot *s, const struct process *p, struct layout *layout,
			 struct error *error)
{
	memset(layout, 0, sizeof(*layout));
	uint64_t present = 0;
	for (size_t i = 0; i < p->vma_count; i++) {
		const struct vma *v = &p->vmas[i];
		if (kernel_mapping(v->path) || v->end <= v->start)
			continue;
		if (check_vma(s, v, i, error))
			return -1;
		present += count_pages(s, p, v);
	}
	if (present * PAGE_BYTES > memory_available_bytes() / 2)
		return error_set(error, s->source, 0, "process %d has %" PRIu64 " MiB present: more than half of the "
				 "memory available", p->pid, present >> 8);
	size_t capacity = 0;
	for (size_t i = 0; i < p->vma_count; i++) {
		const struct vma *v = &p->vmas[i];
		if (kernel_mapping(v->path) || v->end <= v->start) {
			layout->skipped++;
			continue;
		}
		struct layout_vma *out = ARRAY_PUSH(layout->vmas, layout->count, capacity);
		memset(out, 0, sizeof(*out));
		out->start = v->start;
		out->bytes = v->end - v->start;
		out->offset = v->offset;
		out->prot = (v->perms[0] == 'r' ? PROT_READ : 0) | (v->perms[1] == 'w' ? PROT_WRITE : 0) |
			    (v->perms[2] == 'x' ? PROT_EXEC : 0);
		out->shared = v->perms[3] == 's';
		out->anonymous = !v->path[0] || v->path[0] == '[';
		out->huge = v->kb[SMAPS_ANON_HUGE_PAGES] > 0;
		out->path = v->path;
		add_pages(s, p, v, out);
		layout->present_pages += out->page_count;
	}
	if (!layout->count)
		return error_set(error, s->source, 0, "process %d has no VMA to rebuild", p->pid);
	return 0;
}

void layout_generate(struct layout *layout, size_t empty_vmas, size_t anon_vmas, size_t windows, size_t pages)
{
	memset(layout, 0, sizeof(*layout));
	layout->count = empty_vmas + anon_vmas;
	layout->vmas = xcalloc(layout->count ? layout->count : 1, sizeof(*layout->vmas));
	for (size_t i = 0; i < layout->count; i++) {
		struct layout_vma *v = &layout->vmas[i];
		bool filled = i >= empty_vmas;
		/* start 0 is never used: each goes at the start of a free 2 MiB window */
		v->bytes = filled ? windows * WINDOW_BYTES : PAGE_BYTES;
		v->prot = PROT_READ | PROT_WRITE;
		v->anonymous = true;
		v->path = "";
		if (!filled)
			continue;
		v->page_count = windows * pages;
		v->pages = xcalloc(v->page_count ? v->page_count : 1, sizeof(*v->pages));
		for (size_t w = 0; w < windows; w++)
			for (size_t k = 0; k < pages; k++)
				v->pages[w * pages + k] = (w * (WINDOW_BYTES / PAGE_BYTES) + k) | WRITE_BIT;
		layout->present_pages += v->page_count;
	}
}

void layout_free(struct layout *layout)
{
	for (size_t i = 0; i < layout->count; i++)
		free(layout->vmas[i].pages);
	free(layout->vmas);
	memset(layout, 0, sizeof(*layout));
}

/* The original file, when mapping it cannot change it and it is long enough. */
static int open_original(const struct layout_vma *v)
{
	if (v->anonymous || !v->path || v->path[0] != '/' || (v->shared && (v->prot & PROT_WRITE)))
		return -1;
	/* a regular file only, looked at before it is opened: the snapshot's
	 * path may name a FIFO (open would block) or a device (opening some
	 * acts: a watchdog, a tape) */
	struct stat named, st;
	if (lstat(v->path, &named) != 0 || !S_ISREG(named.st_mode))
		return -1;
	int fd = open(v->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != named.st_dev ||
			st.st_ino != named.st_ino || (uint64_t)st.st_size < v->offset + v->bytes)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* A sparse file as long as the VMA needs, with no name (file comment). */
static int scratch_file(const char *folder, const struct layout_vma *v)
{
	int fd = open(folder, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0) {
		char path[4200];
		snprintf(path, sizeof(path), "%s/ptscope-like-XXXXXX", folder);
		fd = mkostemp(path, O_CLOEXEC);
		if (fd < 0)
			return -1;
		unlink(path);
	}
	if (ftruncate(fd, (off_t)(v->offset + v->bytes)) != 0) {
		int saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/* Where to map: the VMA's own address when free, else a free place with
 * the same offset in its 2 MiB window. */
static void *place(const struct layout_vma *v, int prot, int flags, int fd, uint64_t offset)
{
	/* never the first 64 KiB: as root the kernel would map address 0 (made-up
	 * layouts ask for it), and a NULL pointer would no longer fault */
	void *at = MAP_FAILED;
	if (v->start >= LOWEST_FIXED)
		at = mmap((void *)(uintptr_t)v->start, v->bytes, prot, flags | MAP_FIXED_NOREPLACE, fd, (off_t)offset);
	if (at != MAP_FAILED)
		return at;
	uint64_t shift = v->start % WINDOW_BYTES;
	char *room = mmap(NULL, v->bytes + 2 * WINDOW_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (room == MAP_FAILED)
		return MAP_FAILED;
	uint64_t base = ((uint64_t)(uintptr_t)room + WINDOW_BYTES - 1) / WINDOW_BYTES * WINDOW_BYTES + shift;
	at = mmap((void *)(uintptr_t)base, v->bytes, prot, flags | MAP_FIXED, fd, (off_t)offset);
	/* give back the rest of the room */
	if ((char *)(uintptr_t)base > room)
		munmap(room, (size_t)(base - (uint64_t)(uintptr_t)room));
	uint64_t end = base + v->bytes, room_end = (uint64_t)(uintptr_t)room + v->bytes + 2 * WINDOW_BYTES;
	if (room_end > end)
		munmap((void *)(uintptr_t)end, (size_t)(room_end - end));
	return at;
}

static void touch_pages(const struct layout_vma *v, char *at)
{
	for (size_t i = 0; i < v->page_count; i++) {
		volatile char *page = at + (v->pages[i] & ~WRITE_BIT) * PAGE_BYTES;
		if ((v->pages[i] & WRITE_BIT) && (v->prot & PROT_WRITE))
			*page = *page;
		else if (v->prot & PROT_READ)
			(void)*page;
	}
}

static int build_vma(struct layout_vma *v, size_t index, const char *folder, struct error *error)
{
	int fd = -1, flags = v->shared ? MAP_SHARED : MAP_PRIVATE;
	uint64_t offset = 0;
	bool writes = false;
	for (size_t i = 0; i < v->page_count && !writes; i++)
		writes = v->pages[i] & WRITE_BIT;
	if (v->anonymous) {
		flags |= MAP_ANONYMOUS;
	} else {
		fd = open_original(v);
		if (fd < 0)
			fd = scratch_file(folder, v);
		if (fd < 0)
			return error_internal(error, folder, 0, "cannot make a file for VMA %zu: %s", index, strerror(errno));
		offset = v->offset;
	}
	/* written while rebuilding (a read-only VMA's anonymous pages were written
	 * before mprotect took the right away), then given its own permissions */
	int prot = v->prot | (writes ? PROT_READ | PROT_WRITE : 0);
	char *at = place(v, prot, flags, fd, offset);
	int saved = errno;
	if (fd >= 0)
		close(fd);
	if (at == MAP_FAILED)
		return error_internal(error, NULL, 0, "cannot map VMA %zu (%llu bytes): %s", index,
				      (unsigned long long)v->bytes, strerror(saved));
	v->placed = (uint64_t)(uintptr_t)at;
	madvise(at, v->bytes, v->huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	if (v->anonymous) {
		char name[48];
		snprintf(name, sizeof(name), "ptscope-like-%zu", index);
		prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, at, v->bytes, name);
	}
	touch_pages(v, at);
	if (prot != v->prot && mprotect(at, v->bytes, v->prot) != 0)
		return error_internal(error, NULL, 0, "cannot protect VMA %zu: %s", index, strerror(errno));
	return 0;
}

int layout_build(struct layout *layout, struct error *error)
{
	const char *folder = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	int status = 0;
	for (size_t i = 0; i < layout->count && !status; i++)
		status = build_vma(&layout->vmas[i], i, folder, error);
	return status;
}

/* ---- the subject: a child that holds the layout and forks on request ---- */

struct subject_request {
	size_t runs, warmup;
	int cpu;
	bool count;                     /* also count one fork by tracepoints */
};
struct subject_reply {
	int status;
	char message[1024];
	struct latency_result result;
	struct trace_result trace;
};

/* In the subject: measure its forks, count one, reply; again for each
 * request until the parent lets go. */
static void serve(int from_parent, int to_parent)
{
	struct subject_request request;
	static struct subject_reply reply;
	while (file_read_exact(from_parent, &request, sizeof(request)) == 0) {
		struct error error = { .message = "" };
		memset(&reply, 0, sizeof(reply));
		reply.status = latency_measure(LATENCY_FORK, request.runs, request.warmup, &reply.result, &error);
		snprintf(reply.message, sizeof(reply.message), "%s", error.message);
		if (!reply.status && request.count)
			trace_count_fork(request.cpu, &reply.trace);
		if (file_write_exact(to_parent, &reply, sizeof(reply)))
			_exit(1);
	}
	_exit(0);   /* the parent let go */
}

int layout_subject_start(struct layout *layout, struct layout_subject *subject, struct error *error)
{
	int down[2], up[2];
	if (pipe2(down, O_CLOEXEC) || pipe2(up, O_CLOEXEC))
		return error_internal(error, NULL, 0, "bench: pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return error_internal(error, NULL, 0, "bench: fork: %s", strerror(errno));
	if (pid == 0) {
		close(down[1]);
		close(up[0]);
		struct error built = { .message = "" };
		int status = layout_build(layout, &built);
		if (file_write_exact(up[1], &status, sizeof(status)) || file_write_exact(up[1], built.message, sizeof(built.message)))
			_exit(1);
		for (size_t i = 0; !status && i < layout->count; i++)
			if (file_write_exact(up[1], &layout->vmas[i].placed, sizeof(uint64_t)))
				_exit(1);
		if (!status)
			serve(down[0], up[1]);
		_exit(1);
	}
	close(down[0]);
	close(up[1]);
	subject->pid = pid;
	subject->to_child = down[1];
	subject->from_child = up[0];
	int status;
	char message[sizeof(error->message)];
	if (file_read_exact(up[0], &status, sizeof(status)) || file_read_exact(up[0], message, sizeof(message))) {
		layout_subject_end(subject);
		return error_internal(error, NULL, 0, "bench: the process rebuilding the layout ended early");
	}
	if (status) {
		layout_subject_end(subject);
		message[sizeof(message) - 1] = '\0';
		return error_internal(error, NULL, 0, "%s", message);
	}
	for (size_t i = 0; i < layout->count; i++)
		if (file_read_exact(up[0], &layout->vmas[i].placed, sizeof(uint64_t))) {
			layout_subject_end(subject);
			return error_internal(error, NULL, 0, "bench: the process rebuilding the layout ended early");
		}
	return 0;
}

int layout_subject_fork(struct layout_subject *subject, size_t runs, size_t warmup, int cpu,
			struct latency_result *result, struct trace_result *trace, struct error *error)
{
	struct subject_request request = { runs, warmup, cpu, trace != NULL };
	struct subject_reply reply;
	if (file_write_exact(subject->to_child, &request, sizeof(request)) ||
	    file_read_exact(subject->from_child, &reply, sizeof(reply)))
		return error_internal(error, NULL, 0, "bench: the process with the layout did not answer");
	if (reply.status) {
		reply.message[sizeof(reply.message) - 1] = '\0';
		return error_internal(error, NULL, 0, "%s", reply.message);
	}
	*result = reply.result;
	if (trace)
		*trace = reply.trace;
	return 0;
}

void layout_subject_end(struct layout_subject *subject)
{
	if (subject->pid <= 0)
		return;
	close(subject->to_child);
	close(subject->from_child);
	kill(subject->pid, SIGKILL);
	while (waitpid(subject->pid, NULL, 0) < 0 && errno == EINTR)
		;
	subject->pid = 0;
}
