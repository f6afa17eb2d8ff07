/*
 * Capture against a made-up /proc (capture_options.proc_root), so that every
 * byte of the output is known in advance:
 *
 *   pid 100 "fake (one)"  ppid 1    4 VMAs: /bin/fake (1 page), anon (1000
 *                                   pages), a VMA labelled [vsyscall], and
 *                                   a sparse 2 GiB one
 *   pid 101 "child"       ppid 100  1 VMA, 1 page
 *   pid 102 "kthread"     ppid 2    empty smaps: a kernel thread
 *   pid 103 "nosmaps"     ppid 1    no smaps file: vanished, skipped
 *   pid 104 "grandchild"  ppid 101  smaps but no pagemap: skipped
 *
 * The pagemap files are sparse files with entries at (vaddr / 4096) * 8, as
 * the kernel's are; kpagecount and kpageflags hold values at pfn * 8.  The
 * expected records below are written out by hand from those entries.
 */
#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inputs/internal.h"
#include "inputs/snapshot.h"
#include "test.h"

#define PAGE 4096
#define BIN_START    UINT64_C(0x400000)
#define ANON_START   UINT64_C(0x10000000)
#define ANON_PAGES   1000
#define VSYS_START   UINT64_C(0x20000000)
#define BIG_START    UINT64_C(0x40000000)
#define BIG_PAGES    (UINT64_C(1) << 19)  /* 2 GiB: big enough for PAGEMAP_SCAN, which a
					   * plain file refuses, so the plain reads take over */
#define CHILD_START  UINT64_C(0x7f0000000000)
#define SWAP_ENTRY   (PAGEMAP_SWAPPED | (UINT64_C(0x1234) << 5) | 3)  /* offset 0x1234, type 3 */
#define FILE_PRESENT (PAGEMAP_PRESENT | PAGEMAP_FILE_OR_SHARED)

static char proc[512];

static void put_file(const char *name, const char *text)
{
	char path[1024];
	int length = snprintf(path, sizeof(path), "%s/%s", proc, name);
	CU_ASSERT_FATAL(length > 0 && (size_t)length < sizeof(path));
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

/* One 64-bit word at index `at` of a (sparse) binary file. */
static void put_word(const char *name, uint64_t at, uint64_t value)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s", proc, name);
	int fd = open(path, O_WRONLY | O_CREAT, 0644);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(pwrite(fd, &value, 8, (off_t)(at * 8)), 8);
	close(fd);
}

static void put_page(const char *pid, uint64_t vaddr, uint64_t entry)
{
	char name[64];
	snprintf(name, sizeof(name), "%s/pagemap", pid);
	put_word(name, vaddr / PAGE, entry);
}

static void vma_text(char *out, size_t size, uint64_t start, uint64_t pages, const char *path)
{
	snprintf(out, size,
		 "%08llx-%08llx rw-p 00000000 00:00 0                          %s\n"
		 "Size:            %6llu kB\nKernelPageSize:        4 kB\nMMUPageSize:           4 kB\n"
		 "Rss:                   4 kB\nPss:                   4 kB\nSwap:                  0 kB\n"
		 "VmFlags: rd wr mr mw me ac \n",
		 (unsigned long long)start, (unsigned long long)(start + pages * PAGE), path,
		 (unsigned long long)pages * 4);
}

static void put_process(int pid, const char *comm, int ppid, const char *smaps)
{
	char name[600], text[1024];
	snprintf(name, sizeof(name), "%s/%d", proc, pid);
	CU_ASSERT_EQUAL_FATAL(mkdir(name, 0755), 0);
	snprintf(name, sizeof(name), "%d/stat", pid);
	snprintf(text, sizeof(text), "%d (%s) S %d %d %d 0 -1 4194304 138 0 0 0 0 0 0 0 20 0 1 0 "
		 "30552 2990080 420 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n",
		 pid, comm, ppid, pid, pid);
	put_file(name, text);
	snprintf(name, sizeof(name), "%d/status", pid);
	snprintf(text, sizeof(text), "Name:\t%s\nPid:\t%d\nPPid:\t%d\nVmPTE:\t      48 kB\n", comm, pid, ppid);
	put_file(name, text);
	snprintf(name, sizeof(name), "%d/cmdline", pid);
	put_file(name, comm);
	if (smaps) {
		snprintf(name, sizeof(name), "%d/smaps", pid);
		put_file(name, smaps);
	}
}

/* The fake /proc described at the top; with_pfns false zeroes every PFN,
 * as the kernel does for a reader without CAP_SYS_ADMIN. */
static const char *make_proc(const char *name, bool with_pfns)
{
	char command[1100], smaps[2048], block[512];
	uint64_t pfn_mask = with_pfns ? ~UINT64_C(0) : ~PAGEMAP_PFN_MASK;
	snprintf(proc, sizeof(proc), "%s/%s", test_tmpdir(), name);
	snprintf(command, sizeof(command), "rm -rf %s && mkdir -p %s", proc, proc);
	CU_ASSERT_EQUAL_FATAL(system(command), 0);
	put_file("version", "Linux version 6.1.0-fake (test) #1 SMP\n");
	put_file("meminfo", "MemTotal:       24684236 kB\nMemFree:        23104584 kB\n");

	vma_text(smaps, sizeof(smaps), BIN_START, 1, "/bin/fake");
	vma_text(block, sizeof(block), ANON_START, ANON_PAGES, "");
	strcat(smaps, block);
	vma_text(block, sizeof(block), VSYS_START, 1, "[vsyscall]");
	strcat(smaps, block);
	vma_text(block, sizeof(block), BIG_START, BIG_PAGES, "");
	strcat(smaps, block);
	put_process(100, "fake (one)", 1, smaps);
	put_page("100", BIN_START, (FILE_PRESENT | 0x10) & pfn_mask);
	put_page("100", ANON_START, (PAGEMAP_PRESENT | PAGEMAP_EXCLUSIVE | 0x11) & pfn_mask);
	put_page("100", ANON_START + 500 * PAGE, PAGEMAP_SOFT_DIRTY);      /* neither present nor swapped */
	put_page("100", ANON_START + 511 * PAGE, SWAP_ENTRY);
	put_page("100", ANON_START + 512 * PAGE, (PAGEMAP_PRESENT | 0x300) & pfn_mask); /* second window */
	put_page("100", ANON_START + 999 * PAGE, (PAGEMAP_PRESENT | 0x10) & pfn_mask);  /* PFN seen twice */
	put_page("100", VSYS_START, (PAGEMAP_PRESENT | 0x999) & pfn_mask); /* must be skipped */
	put_page("100", ANON_START + ANON_PAGES * PAGE, (PAGEMAP_PRESENT | 0x998) & pfn_mask); /* past the VMA */
	put_page("100", BIG_START, (PAGEMAP_PRESENT | 0x300) & pfn_mask);
	put_page("100", BIG_START + (BIG_PAGES - 1) * PAGE, SWAP_ENTRY);

	vma_text(smaps, sizeof(smaps), CHILD_START, 1, "");
	put_process(101, "child", 100, smaps);
	put_page("101", CHILD_START, (PAGEMAP_PRESENT | 0x11) & pfn_mask);

	put_process(102, "kthread", 2, "");
	put_process(103, "nosmaps", 1, NULL);
	put_process(104, "grandchild", 101, smaps);      /* smaps, but no pagemap file */

	/* kpagecount and kpageflags: one word per PFN */
	put_word("kpagecount", 0x10, 2);
	put_word("kpagecount", 0x11, 5);
	put_word("kpagecount", 0x300, 1);
	put_word("kpagecount", 0x400, 7);            /* a PFN no pagemap has */
	put_word("kpageflags", 0x10, UINT64_C(1) << 5);
	put_word("kpageflags", 0x11, UINT64_C(1) << KPF_ANON);
	put_word("kpageflags", 0x300, (UINT64_C(1) << KPF_ANON) | (UINT64_C(1) << KPF_THP));
	put_word("kpageflags", 0x400, 1);
	return proc;
}

/* ---- reading the output tar back with libarchive ---- */

struct member {
	char name[64];
	char *data;
	size_t size;
};

struct members {
	struct member list[64];
	size_t count;
};

static void load_tar(const char *path, struct members *m)
{
	struct archive *a = archive_read_new();
	struct archive_entry *entry;
	archive_read_support_format_tar(a);
	archive_read_support_filter_all(a);
	CU_ASSERT_EQUAL_FATAL(archive_read_open_filename(a, path, 65536), ARCHIVE_OK);
	m->count = 0;
	while (archive_read_next_header(a, &entry) == ARCHIVE_OK && m->count < 64) {
		if (archive_entry_filetype(entry) != AE_IFREG)
			continue;
		struct member *member = &m->list[m->count++];
		snprintf(member->name, sizeof(member->name), "%s", archive_entry_pathname(entry));
		member->size = (size_t)archive_entry_size(entry);
		member->data = malloc(member->size + 1);
		CU_ASSERT_EQUAL(archive_read_data(a, member->data, member->size), (la_ssize_t)member->size);
		member->data[member->size] = '\0';
	}
	archive_read_free(a);
}

static void free_tar(struct members *m)
{
	for (size_t i = 0; i < m->count; i++)
		free(m->list[i].data);
	m->count = 0;
}

static const struct member *find(const struct members *m, const char *name)
{
	for (size_t i = 0; i < m->count; i++)
		if (!strcmp(m->list[i].name, name))
			return &m->list[i];
	return NULL;
}

static bool info_has(const struct members *m, const char *line)
{
	const struct member *info = find(m, "snapshot.info");
	char want[128];
	snprintf(want, sizeof(want), "\n%s\n", line);
	return info && strstr(info->data, want);
}

/* The format the tests capture: 1, whose records they check one by one,
 * unless a test of format 2 says otherwise. */
static int capture_format = 1;

static int capture(const char *output, const int *pids, size_t pid_count, const int *trees,
		   size_t tree_count, bool no_pagemap, struct capture_result *result)
{
	struct capture_options options = {
		.output = output, .pids = pids, .pid_count = pid_count, .trees = trees,
		.tree_count = tree_count, .no_pagemap = no_pagemap, .proc_root = proc,
		.format = capture_format,
	};
	struct error error = { 0 };
	int status = snapshot_capture(&options, result, &error);
	if (status < 0)
		printf("\ncapture: %s\n", error.message);
	return status;
}

/* One capture of the fake /proc: where it went, what snapshot_capture said,
 * and the archive it wrote, read back. */
struct captured {
	char path[600];
	struct capture_result result;
	struct members members;
};

/* Capture the selection into c->path (a failed capture ends the test) and
 * read the archive back. */
static void capture_read(struct captured *c, const int *pids, size_t pid_count, const int *trees,
			 size_t tree_count, bool no_pagemap)
{
	CU_ASSERT_EQUAL_FATAL(capture(c->path, pids, pid_count, trees, tree_count, no_pagemap, &c->result), 0);
	free_tar(&c->members);
	load_tar(c->path, &c->members);
}

/* A fresh fake /proc NAME captured whole (no --pid, no --tree) into
 * TMPDIR/FILE and read back. */
static void capture_whole(struct captured *c, const char *name, bool with_pfns, const char *file,
			  bool no_pagemap)
{
	make_proc(name, with_pfns);
	snprintf(c->path, sizeof(c->path), "%s/%s", test_tmpdir(), file);
	c->members.count = 0;
	capture_read(c, NULL, 0, NULL, 0, no_pagemap);
}

/* ---- tests ---- */

static void test_all_processes_exact_records(void)
{
	struct captured c;
	capture_whole(&c, "all", true, "all.tar", false);
	CU_ASSERT_STRING_EQUAL(c.result.path, c.path);
	CU_ASSERT_EQUAL(c.result.processes, 2);   /* 100 and 101 */
	CU_ASSERT_EQUAL(c.result.skipped, 2);     /* 103 (no smaps), 104 (no pagemap) */
	CU_ASSERT_EQUAL(c.result.pagemap, PAGEMAP_PFN);
	CU_ASSERT(info_has(&c.members, "pagemap: pfn"));
	CU_ASSERT(info_has(&c.members, "processes: 2"));
	CU_ASSERT(info_has(&c.members, "skipped: 2"));
	CU_ASSERT(info_has(&c.members, "kernel_threads: 1"));
	CU_ASSERT(info_has(&c.members, "format: ptscope-snapshot 1") ||
		  !strncmp(find(&c.members, "snapshot.info")->data, "format: ptscope-snapshot 1\n", 27));
	CU_ASSERT_PTR_NOT_NULL(find(&c.members, "version"));
	CU_ASSERT_PTR_NOT_NULL(find(&c.members, "meminfo"));

	/* pid 100: seven records; the soft-dirty-only page, the [vsyscall] page
	 * and the word past the VMA's end are not there. */
	const uint64_t want100[] = {
		BIN_START, FILE_PRESENT | 0x10,
		ANON_START, PAGEMAP_PRESENT | PAGEMAP_EXCLUSIVE | 0x11,
		ANON_START + 511 * PAGE, SWAP_ENTRY,
		ANON_START + 512 * PAGE, PAGEMAP_PRESENT | 0x300,
		ANON_START + 999 * PAGE, PAGEMAP_PRESENT | 0x10,
		BIG_START, PAGEMAP_PRESENT | 0x300,
		BIG_START + (BIG_PAGES - 1) * PAGE, SWAP_ENTRY,
	};
	const struct member *pm = find(&c.members, "100/pagemap");
	CU_ASSERT_PTR_NOT_NULL_FATAL(pm);
	CU_ASSERT_EQUAL(pm->size, sizeof(want100));
	if (pm->size == sizeof(want100))
		CU_ASSERT_EQUAL(memcmp(pm->data, want100, sizeof(want100)), 0);
	const uint64_t want101[] = { CHILD_START, PAGEMAP_PRESENT | 0x11 };
	pm = find(&c.members, "101/pagemap");
	CU_ASSERT_PTR_NOT_NULL_FATAL(pm);
	CU_ASSERT(pm->size == sizeof(want101) && !memcmp(pm->data, want101, sizeof(want101)));

	/* the kernel thread is kept with its empty smaps and no pagemap */
	CU_ASSERT(find(&c.members, "102/smaps") && find(&c.members, "102/smaps")->size == 0);
	CU_ASSERT_PTR_NOT_NULL(find(&c.members, "102/stat"));
	CU_ASSERT_PTR_NULL(find(&c.members, "102/pagemap"));
	/* skipped processes leave no member at all */
	CU_ASSERT_PTR_NULL(find(&c.members, "103/stat"));
	CU_ASSERT_PTR_NULL(find(&c.members, "104/smaps"));
	/* the files are copied as they are */
	CU_ASSERT_STRING_EQUAL(find(&c.members, "101/cmdline")->data, "child");
	CU_ASSERT(strstr(find(&c.members, "100/stat")->data, "100 (fake (one)) S 1 ") != NULL);

	/* kpages: distinct PFNs 0x10, 0x11, 0x300 ascending, not 0x400 */
	const uint64_t kpages[] = {
		0x10, 2, UINT64_C(1) << 5,
		0x11, 5, UINT64_C(1) << KPF_ANON,
		0x300, 1, (UINT64_C(1) << KPF_ANON) | (UINT64_C(1) << KPF_THP),
	};
	const struct member *kp = find(&c.members, "kpages");
	CU_ASSERT_PTR_NOT_NULL_FATAL(kp);
	CU_ASSERT(kp->size == sizeof(kpages) && !memcmp(kp->data, kpages, sizeof(kpages)));
	free_tar(&c.members);
}

static void test_read_back_by_the_reader(void)
{
	struct captured c;
	struct snapshot *s = NULL;
	struct error error;
	struct read_options options = { 0 };
	capture_whole(&c, "readback", true, "readback.tar.gz", false);
	if (snapshot_read(c.path, &options, &s, &error) < 0) {
		printf("\nread: %s\n", error.message);
		CU_FAIL_FATAL("the reader refuses a capture");
	}
	CU_ASSERT_EQUAL(s->process_count, 2);
	CU_ASSERT_EQUAL(s->kernel_threads, 1);
	CU_ASSERT_EQUAL(s->info.skipped, 2);
	CU_ASSERT_EQUAL(s->info.pagemap, PAGEMAP_PFN);
	CU_ASSERT_EQUAL(s->vma_count, 5);          /* 4 of pid 100, 1 of pid 101 */
	CU_ASSERT_EQUAL(s->kpage_count, 3);
	CU_ASSERT_EQUAL(s->pagemap_bytes, 8 * 16);
	if (s->process_count == 2) {
		CU_ASSERT_EQUAL(s->processes[0].pid, 100);
		CU_ASSERT_STRING_EQUAL(s->processes[0].comm, "fake (one)");
		CU_ASSERT_EQUAL(s->processes[0].pagemap_count, 7);
		CU_ASSERT_EQUAL(s->processes[1].ppid, 100);
	}
	snapshot_free(s);
	free_tar(&c.members);
}

/* --tree 100 is 100, 101 and 104 (through 101); 104 has no pagemap. */
static void test_tree_and_pid_selection(void)
{
	struct captured c = { .members.count = 0 };
	make_proc("tree", true);
	snprintf(c.path, sizeof(c.path), "%s/tree.tar", test_tmpdir());
	capture_read(&c, NULL, 0, (int[]){ 100 }, 1, false);
	CU_ASSERT_EQUAL(c.result.processes, 2);
	CU_ASSERT_EQUAL(c.result.skipped, 1);
	CU_ASSERT_PTR_NOT_NULL(find(&c.members, "100/smaps"));
	CU_ASSERT_PTR_NOT_NULL(find(&c.members, "101/smaps"));
	CU_ASSERT_PTR_NULL(find(&c.members, "102/stat"));

	/* --tree 101: 101 and its child 104, not its parent */
	capture_read(&c, NULL, 0, (int[]){ 101 }, 1, false);
	CU_ASSERT_EQUAL(c.result.processes, 1);
	CU_ASSERT_EQUAL(c.result.skipped, 1);
	CU_ASSERT_PTR_NULL(find(&c.members, "100/smaps"));
	CU_ASSERT_PTR_NOT_NULL(find(&c.members, "101/smaps"));
	/* only PFN 0x11 is in 101's pagemap */
	const struct member *kp = find(&c.members, "kpages");
	CU_ASSERT(kp && kp->size == 24 && ((const uint64_t *)kp->data)[0] == 0x11);

	/* --pid 999 does not exist: an error, and nothing written (issue 9) */
	struct capture_result result;
	char missing[700];
	snprintf(missing, sizeof(missing), "%s.missing.tar", c.path);
	CU_ASSERT_EQUAL(capture(missing, (int[]){ 101, 102, 999 }, 3, NULL, 0, false, &result), -1);
	CU_ASSERT_EQUAL(capture(missing, NULL, 0, (int[]){ 999 }, 1, false, &result), -1);
	CU_ASSERT_EQUAL(access(missing, F_OK), -1);
	/* --pid 102 alone is a kernel thread: no process to write, refused */
	CU_ASSERT_EQUAL(capture(missing, (int[]){ 102 }, 1, NULL, 0, false, &result), -1);
	CU_ASSERT_EQUAL(access(missing, F_OK), -1);

	/* --pid 101 --pid 102 */
	capture_read(&c, (int[]){ 101, 102 }, 2, NULL, 0, false);
	CU_ASSERT_EQUAL(c.result.processes, 1);
	CU_ASSERT_EQUAL(c.result.skipped, 0);
	CU_ASSERT(info_has(&c.members, "kernel_threads: 1"));
	CU_ASSERT_PTR_NULL(find(&c.members, "100/smaps"));
	free_tar(&c.members);
}

static void test_without_pfns_is_present_mode(void)
{
	struct captured c;
	capture_whole(&c, "nopfn", false, "nopfn.tar", false);
	CU_ASSERT_EQUAL(c.result.pagemap, PAGEMAP_PRESENT_ONLY);
	CU_ASSERT(info_has(&c.members, "pagemap: present"));
	CU_ASSERT_PTR_NULL(find(&c.members, "kpages"));
	const struct member *pm = find(&c.members, "100/pagemap");
	CU_ASSERT(pm && pm->size == 7 * 16);      /* the same seven pages, PFN 0 */
	if (pm && pm->size == 7 * 16)
		CU_ASSERT_EQUAL(((const uint64_t *)pm->data)[1], FILE_PRESENT);
	free_tar(&c.members);
}

static void test_no_pagemap(void)
{
	struct captured c;
	capture_whole(&c, "none", true, "none.tar", true);
	CU_ASSERT_EQUAL(c.result.pagemap, PAGEMAP_NONE);
	CU_ASSERT_EQUAL(c.result.processes, 3);     /* 104 no longer needs its pagemap */
	CU_ASSERT_EQUAL(c.result.skipped, 1);
	CU_ASSERT(info_has(&c.members, "pagemap: none"));
	CU_ASSERT_PTR_NULL(find(&c.members, "kpages"));
	CU_ASSERT_PTR_NULL(find(&c.members, "100/pagemap"));
	CU_ASSERT_PTR_NOT_NULL(find(&c.members, "104/smaps"));
	free_tar(&c.members);
}

static void test_output_names_and_errors(void)
{
	struct capture_result result;
	char out[600], host[256] = "";
	make_proc("names", true);

	/* a directory gets ptscope-HOST-DATE.tar.zst inside it (zstd by default) */
	snprintf(out, sizeof(out), "%s/outdir", test_tmpdir());
	CU_ASSERT_EQUAL_FATAL(mkdir(out, 0755), 0);
	CU_ASSERT_EQUAL_FATAL(capture(out, NULL, 0, NULL, 0, false, &result), 0);
	gethostname(host, sizeof(host) - 1);
	char prefix[900];
	snprintf(prefix, sizeof(prefix), "%s/ptscope-%s-", out, host);
	CU_ASSERT_EQUAL(strncmp(result.path, prefix, strlen(prefix)), 0);
	size_t length = strlen(result.path);
	CU_ASSERT(length > 8 && !strcmp(result.path + length - 8, ".tar.zst"));
	struct stat st;
	CU_ASSERT_EQUAL(stat(result.path, &st), 0);

	/* refused: unknown container, missing directory; nothing is written */
	struct capture_options options = { .proc_root = proc };
	struct error error = { 0 };
	snprintf(out, sizeof(out), "%s/s.zip", test_tmpdir());
	options.output = out;
	CU_ASSERT_EQUAL(snapshot_capture(&options, &result, &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "s.zip: unknown container"));
	CU_ASSERT_NOT_EQUAL(stat(out, &st), 0);
	snprintf(out, sizeof(out), "%s/missing/s.tar", test_tmpdir());
	CU_ASSERT_EQUAL(snapshot_capture(&options, &result, &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "missing/s.tar: cannot write a snapshot here"));
	/* no proc root at all */
	snprintf(out, sizeof(out), "%s/s.tar", test_tmpdir());
	options.proc_root = "/nonexistent-proc";
	CU_ASSERT_EQUAL(snapshot_capture(&options, &result, &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "/nonexistent-proc"));
	CU_ASSERT_NOT_EQUAL(stat(out, &st), 0);
}

/* PID/pagemap_runs and pagemap_chunks expanded: the records of PID. */
static size_t expand_runs(const struct members *members, const char *pid, uint64_t *out, size_t capacity)
{
	char name[64];
	snprintf(name, sizeof(name), "%s/pagemap_runs", pid);
	const struct member *runs = find(members, name), *chunks = find(members, "pagemap_chunks");
	size_t n = 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(runs);
	CU_ASSERT_PTR_NOT_NULL_FATAL(chunks);
	CU_ASSERT_EQUAL_FATAL(runs->size % sizeof(struct pagemap_run_record), 0);
	for (size_t r = 0; r < runs->size / sizeof(struct pagemap_run_record); r++) {
		struct pagemap_run_record run;
		memcpy(&run, runs->data + r * sizeof(run), sizeof(run));
		for (uint64_t i = 0; i < run.length; i++) {
			/* chunk run.chunk + i: walk to it through the lengths */
			size_t at = 0;
			uint32_t length = 0;
			for (uint64_t k = 0; k <= run.chunk + i; k++, at += 4 + length) {
				CU_ASSERT_FATAL(at + 4 <= chunks->size);
				memcpy(&length, chunks->data + at, 4);
			}
			at -= 4 + length;
			struct pagemap_record records[PAGEMAP_CODEC_PAGES];
			uint32_t count;
			char problem[160];
			CU_ASSERT_EQUAL_FATAL(pagemap_chunk_decode((const unsigned char *)chunks->data + at + 4, length,
								   records, &count, problem, sizeof(problem)), 0);
			for (uint32_t k = 0; k < count && n + 2 <= capacity; k++) {
				out[n++] = run.vaddr + i * PAGEMAP_CHUNK_BYTES + records[k].vaddr;
				out[n++] = records[k].entry;
			}
		}
	}
	return n * sizeof(*out);
}

/* Format 2 of the same fake /proc holds the same records as format 1, each
 * distinct chunk once: 100's five chunks (its binary, two of its anonymous
 * area, the big area's first and last) and 101's one. */
static void test_format2_same_records(void)
{
	struct captured one, two;
	uint64_t records[64];
	capture_whole(&one, "v1", true, "v1.tar", false);
	capture_format = 2;
	capture_whole(&two, "v2", true, "v2.tar", false);
	capture_format = 1;
	CU_ASSERT(info_has(&two.members, "format: ptscope-snapshot 2") ||
		  !strncmp(find(&two.members, "snapshot.info")->data, "format: ptscope-snapshot 2\n", 27));
	CU_ASSERT_PTR_NULL(find(&two.members, "100/pagemap"));
	const char *pids[] = { "100", "101" };
	for (size_t i = 0; i < 2; i++) {
		char name[64];
		snprintf(name, sizeof(name), "%s/pagemap", pids[i]);
		const struct member *pm = find(&one.members, name);
		CU_ASSERT_PTR_NOT_NULL_FATAL(pm);
		size_t bytes = expand_runs(&two.members, pids[i], records, 64);
		CU_ASSERT_EQUAL(bytes, pm->size);
		CU_ASSERT(bytes == pm->size && !memcmp(records, pm->data, bytes));
	}
	const struct member *chunks = find(&two.members, "pagemap_chunks");
	size_t count = 0;
	for (size_t at = 0; at + 4 <= chunks->size; count++) {
		uint32_t length;
		memcpy(&length, chunks->data + at, 4);
		at += 4 + length;
	}
	CU_ASSERT_EQUAL(count, 6);
	/* kpage_runs, no kpages: PFNs 0x10, 0x11 and 0x300 differ in count and
	 * flags, so three runs of one page.  Worked out by hand: a block of 18
	 * bytes, 3 runs; 0x10, 0, 2, 0x20; 0, 0, 5, 0x1000 ^ 0x20; 0x300 - 0x12,
	 * 0, 1, 0x401000 ^ 0x1000, as varints. */
	CU_ASSERT_PTR_NULL(find(&two.members, "kpages"));
	const struct member *runs = find(&two.members, "kpage_runs");
	const unsigned char want[] = { 18, 0, 0, 0, 3, 0x10, 0, 2, 0x20, 0, 0, 5, 0xa0, 0x20,
				       0xee, 0x05, 0, 1, 0x80, 0x80, 0x80, 0x02 };
	CU_ASSERT_PTR_NOT_NULL_FATAL(runs);
	CU_ASSERT(runs->size == sizeof(want) && !memcmp(runs->data, want, sizeof(want)));
	/* ... read back as format 1's kpages are */
	struct snapshot *s = NULL;
	struct error error;
	struct read_options options = { 0 };
	CU_ASSERT_EQUAL_FATAL(snapshot_read(two.path, &options, &s, &error), 0);
	CU_ASSERT_EQUAL(s->kpage_count, 3);
	CU_ASSERT(snapshot_find_kpage(s, 0x11) && snapshot_find_kpage(s, 0x11)->mapcount == 5);
	CU_ASSERT(snapshot_find_kpage(s, 0x300) && snapshot_find_kpage(s, 0x300)->flags ==
		  ((UINT64_C(1) << KPF_ANON) | (UINT64_C(1) << KPF_THP)));
	CU_ASSERT_PTR_NULL(snapshot_find_kpage(s, 0x12));
	snapshot_free(s);
	free_tar(&one.members);
	free_tar(&two.members);
}

void suite_capture(void)
{
	ADD_SUITE("capture", test_all_processes_exact_records, test_read_back_by_the_reader,
		  test_tree_and_pid_selection, test_without_pfns_is_present_mode, test_no_pagemap,
		  test_output_names_and_errors, test_format2_same_records);
}
