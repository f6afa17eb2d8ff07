/*
 * inputs/layout.c - a captured process's address space, described so that
 * the subject (inputs/subject.c) can map it again and `ptscope bench fork
 * --like` time a fork of that shape on this kernel; and ptscope's side of
 * the subject: it execs ptscope-subject (a small static program, so the
 * fork copies the layout and that program's few VMAs, not ptscope's ~150),
 * sends it the layout, and asks it for forks.
 *
 * Each VMA of the snapshot's process is listed with its size, permissions,
 * shared or private, anonymous or file-backed, and the pages the pagemap
 * showed present: to be written where they were anonymous (a private file
 * page copied on write is anonymous too), read where they were file pages.
 * A VMA whose smaps showed AnonHugePages gets MADV_HUGEPAGE, every other
 * MADV_NOHUGEPAGE, so THP does not add what was not there.  Without pagemap
 * records, a VMA's first Rss pages are touched.
 *
 * The VMA goes at its own address when that is free, else at an address
 * with the same offset in its 2 MiB window (so it needs the same PTE pages);
 * anonymous VMAs are named (PR_SET_VMA_ANON_NAME, where the kernel has
 * CONFIG_ANON_VMA_NAME) one by one so that two neighbours the original kept
 * apart are not merged into one.  The kernel's
 * own mappings ([vdso], [vvar], [vsyscall]) are not rebuilt.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/close_range.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inputs/internal.h"

#define PAGE_BYTES LAYOUT_PAGE_BYTES
#define WINDOW_BYTES LAYOUT_WINDOW_BYTES
#define WRITE_BIT LAYOUT_WRITE_BIT

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
	uint64_t pages = vma_kb(v, SMAPS_RSS) * 1024 / PAGE_BYTES, anonymous = vma_kb(v, SMAPS_ANONYMOUS) * 1024 / PAGE_BYTES;
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
		uint64_t pages = vma_kb(v, SMAPS_RSS) * 1024 / PAGE_BYTES, most = (v->end - v->start) / PAGE_BYTES;
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
		out->huge = vma_kb(v, SMAPS_ANON_HUGE_PAGES) > 0;
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

/* ptscope-subject beside this ptscope (a built tree) or in its
 * ../libexec/ptscope (installed); "" when neither is there. */
static void helper_path(char *path, size_t size)
{
	char self[PATH_MAX];
	ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
	path[0] = '\0';
	if (length <= 0)
		return;
	self[length] = '\0';
	char *slash = strrchr(self, '/');
	if (!slash)
		return;
	*slash = '\0';
	const char *const places[] = { "%s/ptscope-subject", "%s/../libexec/ptscope/ptscope-subject" };
	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		int length_out = snprintf(path, size, places[i], self);
		if (length_out > 0 && (size_t)length_out < size && access(path, X_OK) == 0)
			return;
	}
	path[0] = '\0';
}

/* In the forked child: become ptscope-subject on fds 3 (from ptscope) and
 * 4 (to it), or say why not; without a helper, serve from here. */
__attribute__((noreturn)) static void child(struct layout *layout, const char *helper, int from, int to)
{
	/* ptscope killed, the subject goes too (it may be forking for a long
	 * while before it next reads a request); kept across execv */
	pid_t parent = getppid();
	prctl(PR_SET_PDEATHSIG, (unsigned long)SIGKILL, 0UL, 0UL, 0UL);
	if (getppid() != parent)
		_exit(1);
	if (!helper[0]) {
		struct subject_hello hello = { 0, "" };
		if (file_write_exact(to, &hello, sizeof(hello)) || subject_build_and_tell(layout, to))
			_exit(1);
		subject_serve(from, to);
	}
	/* above 4 first, so that neither lands on the other's new number */
	int high_from = fcntl(from, F_DUPFD_CLOEXEC, 10), high_to = fcntl(to, F_DUPFD_CLOEXEC, 10);
	if (high_from >= 0 && high_to >= 0 && dup2(high_from, 3) == 3 && dup2(high_to, 4) == 4) {
		/* nothing else of ptscope's (its snapshot, its output) goes along */
		for (int fd = 5; fd < 10; fd++)
			close(fd);
		close_range(10, ~0u, CLOSE_RANGE_CLOEXEC);
		char *const argv[] = { "ptscope-subject", "--serve", NULL };
		execv(helper, argv);
	}
	struct subject_hello failed = { -1, "" };
	snprintf(failed.message, sizeof(failed.message), "bench: cannot run %s: %s", helper, strerror(errno));
	file_write_exact(to, &failed, sizeof(failed));
	_exit(1);
}

/* The layout to the subject (subject_receive reads it); SIGPIPE ignored
 * meanwhile, so a subject that died is an error, not ptscope's end. */
static int send_layout(int to, const struct layout *layout)
{
	void (*old)(int) = signal(SIGPIPE, SIG_IGN);
	uint64_t count = layout->count;
	int status = file_write_exact(to, &count, sizeof(count));
	for (size_t i = 0; !status && i < layout->count; i++) {
		const struct layout_vma *v = &layout->vmas[i];
		size_t path_bytes = v->path ? strnlen(v->path, SUBJECT_PATH_BYTES - 1) : 0;
		struct subject_wire_vma wire = { v->start, v->bytes, v->offset, v->page_count, v->prot, v->shared,
						 v->anonymous, v->huge, 0, (uint32_t)path_bytes };
		status = file_write_exact(to, &wire, sizeof(wire)) || file_write_exact(to, v->path, path_bytes) ||
			 file_write_exact(to, v->pages, v->page_count * sizeof(*v->pages)) ? -1 : 0;
	}
	signal(SIGPIPE, old);
	return status;
}

/* Its hello (or why it could not run), the layout sent, its build's status
 * and message, then each VMA's place. */
static int hear_built(struct layout *layout, struct layout_subject *subject, struct error *error)
{
	struct subject_hello heard;
	const char *early = "bench: the process rebuilding the layout ended early";
	if (file_read_exact(subject->from_child, &heard, sizeof(heard)))
		return error_internal(error, NULL, 0, "%s", early);
	heard.message[sizeof(heard.message) - 1] = '\0';
	if (heard.status)
		return error_internal(error, NULL, 0, "%s", heard.message);
	if (subject->helper[0] && send_layout(subject->to_child, layout))
		return error_internal(error, NULL, 0, "%s", early);
	if (file_read_exact(subject->from_child, &heard, sizeof(heard)))
		return error_internal(error, NULL, 0, "%s", early);
	heard.message[sizeof(heard.message) - 1] = '\0';
	if (heard.status)
		return error_internal(error, NULL, 0, "%s", heard.message);
	for (size_t i = 0; i < layout->count; i++)
		if (file_read_exact(subject->from_child, &layout->vmas[i].placed, sizeof(uint64_t)))
			return error_internal(error, NULL, 0, "%s", early);
	return 0;
}

int layout_subject_start(struct layout *layout, struct layout_subject *subject, struct error *error)
{
	int down[2], up[2];
	memset(subject, 0, sizeof(*subject));
	helper_path(subject->helper, sizeof(subject->helper));
	if (pipe2(down, O_CLOEXEC) || pipe2(up, O_CLOEXEC))
		return error_internal(error, NULL, 0, "bench: pipe: %s", strerror(errno));
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0)
		return error_internal(error, NULL, 0, "bench: fork: %s", strerror(errno));
	if (pid == 0) {
		close(down[1]);
		close(up[0]);
		child(layout, subject->helper, down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	subject->pid = pid;
	subject->to_child = down[1];
	subject->from_child = up[0];
	if (hear_built(layout, subject, error)) {
		layout_subject_end(subject);
		return -1;
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
