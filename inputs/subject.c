/*
 * inputs/subject.c - the subject of `ptscope bench fork --like` and of
 * `bench --calibrate`: the process that holds a rebuilt layout and times
 * its own forks on request.
 *
 * It runs as ptscope-subject (ptscope-subject.c), a small static program
 * ptscope execs, so that what a fork copies is the layout plus that
 * program's few VMAs (its text and data, heap, stack, vdso), not ptscope's
 * ~150 (libclang, Graphviz, libxml2 ...).  ptscope sends it the layout
 * (subject_receive), it maps and touches it (layout_build), says where each
 * VMA went, then times forks on request (subject_serve).  Where no helper
 * is installed, a child of ptscope does the same from layout_build on.
 *
 * Each VMA is mapped with its size, permissions, shared or private,
 * anonymous or file-backed: the original file when it is still there, a
 * regular file, large enough and the VMA is not shared-writable (a write
 * through it would reach the file); else a sparse file of the same size
 * with no name (O_TMPFILE in $TMPDIR or /tmp; where the file system cannot,
 * mkstemp's 0600 file unlinked at once), so a subject killed while building
 * leaves nothing behind.  Pages are touched as inputs/layout.c listed them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inputs/internal.h"

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

#define LOWEST_FIXED (UINT64_C(64) << 10)

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
	uint64_t shift = v->start % LAYOUT_WINDOW_BYTES;
	char *room = mmap(NULL, v->bytes + 2 * LAYOUT_WINDOW_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (room == MAP_FAILED)
		return MAP_FAILED;
	uint64_t base = ((uint64_t)(uintptr_t)room + LAYOUT_WINDOW_BYTES - 1) / LAYOUT_WINDOW_BYTES * LAYOUT_WINDOW_BYTES + shift;
	at = mmap((void *)(uintptr_t)base, v->bytes, prot, flags | MAP_FIXED, fd, (off_t)offset);
	/* give back the rest of the room */
	if ((char *)(uintptr_t)base > room)
		munmap(room, (size_t)(base - (uint64_t)(uintptr_t)room));
	uint64_t end = base + v->bytes, room_end = (uint64_t)(uintptr_t)room + v->bytes + 2 * LAYOUT_WINDOW_BYTES;
	if (room_end > end)
		munmap((void *)(uintptr_t)end, (size_t)(room_end - end));
	return at;
}

/* prot: what the VMA is mapped with while it is built (write added where
 * a page is to be written), not its own: a read-only VMA's copied-on-write
 * pages (a library's relocated data) are written too. */
static void touch_pages(const struct layout_vma *v, char *at, int prot)
{
	for (size_t i = 0; i < v->page_count; i++) {
		volatile char *page = at + (v->pages[i] & ~LAYOUT_WRITE_BIT) * LAYOUT_PAGE_BYTES;
		if ((v->pages[i] & LAYOUT_WRITE_BIT) && (prot & PROT_WRITE))
			*page = *page;
		else if (prot & PROT_READ)
			(void)*page;
	}
}

static int build_vma(struct layout_vma *v, size_t index, const char *folder, struct error *error)
{
	int fd = -1, flags = v->shared ? MAP_SHARED : MAP_PRIVATE;
	uint64_t offset = 0;
	bool writes = false;
	for (size_t i = 0; i < v->page_count && !writes; i++)
		writes = v->pages[i] & LAYOUT_WRITE_BIT;
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
		/* every argument an unsigned long: prctl reads them so (varargs) */
		prctl(PR_SET_VMA, (unsigned long)PR_SET_VMA_ANON_NAME, (unsigned long)(uintptr_t)at, (unsigned long)v->bytes,
		      (unsigned long)(uintptr_t)name);
	}
	touch_pages(v, at, prot);
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

/* In the subject: measure its forks, count one, reply; again for each
 * request until the parent lets go. */
void subject_serve(int from_parent, int to_parent)
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


/* The layout as inputs/layout.c's layout_send wrote it, bounded: a VMA
 * count, then each VMA with its path and pages. */
static int receive_vma(int from, struct layout_vma *v)
{
	struct subject_wire_vma wire;
	if (file_read_exact(from, &wire, sizeof(wire)) || wire.path_bytes >= SUBJECT_PATH_BYTES ||
	    wire.bytes == 0 || wire.page_count > wire.bytes / LAYOUT_PAGE_BYTES)
		return -1;
	char *path = xcalloc(wire.path_bytes + 1, 1);
	v->start = wire.start;
	v->bytes = wire.bytes;
	v->offset = wire.offset;
	v->prot = wire.prot;
	v->shared = wire.shared;
	v->anonymous = wire.anonymous;
	v->huge = wire.huge;
	v->path = path;
	v->page_count = (size_t)wire.page_count;
	v->pages = xcalloc(v->page_count ? v->page_count : 1, sizeof(*v->pages));
	if (file_read_exact(from, path, wire.path_bytes) ||
	    file_read_exact(from, v->pages, v->page_count * sizeof(*v->pages)))
		return -1;
	for (size_t i = 0; i < v->page_count; i++)
		if ((v->pages[i] & ~LAYOUT_WRITE_BIT) >= v->bytes / LAYOUT_PAGE_BYTES)
			return -1;
	return 0;
}

int subject_receive(int from, struct layout *layout)
{
	uint64_t count;
	memset(layout, 0, sizeof(*layout));
	if (file_read_exact(from, &count, sizeof(count)) || count == 0 || count > SUBJECT_MOST_VMAS)
		return -1;
	layout->vmas = xcalloc((size_t)count, sizeof(*layout->vmas));
	layout->count = (size_t)count;
	for (size_t i = 0; i < layout->count; i++)
		if (receive_vma(from, &layout->vmas[i]))
			return -1;
	return 0;
}

/* Build what the layout says and tell ptscope: its status and message,
 * then where each VMA went. */
int subject_build_and_tell(struct layout *layout, int to)
{
	struct error built = { .message = "" };
	int status = layout_build(layout, &built);
	if (file_write_exact(to, &status, sizeof(status)) || file_write_exact(to, built.message, sizeof(built.message)))
		return -1;
	for (size_t i = 0; !status && i < layout->count; i++)
		if (file_write_exact(to, &layout->vmas[i].placed, sizeof(uint64_t)))
			return -1;
	return status;
}

int subject_main(int from, int to)
{
	struct layout layout;
	struct subject_hello hello = { 0, "" };
	if (file_write_exact(to, &hello, sizeof(hello)))
		return 1;
	if (subject_receive(from, &layout)) {
		int status = -1;
		struct error bad = { .message = "" };
		snprintf(bad.message, sizeof(bad.message), "ptscope-subject: the layout it was sent is cut short or "
			 "out of bounds");
		if (file_write_exact(to, &status, sizeof(status)) == 0)
			file_write_exact(to, bad.message, sizeof(bad.message));
		return 1;
	}
	if (subject_build_and_tell(&layout, to))
		return 1;
	/* what described the layout is not part of it: given back, so that
	 * malloc's own mappings of it are not forked too */
	for (size_t i = 0; i < layout.count; i++) {
		free((char *)layout.vmas[i].path);
		free(layout.vmas[i].pages);
	}
	free(layout.vmas);
	subject_serve(from, to);
	return 0;
}
