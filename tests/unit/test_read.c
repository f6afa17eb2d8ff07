/*
 * Snapshot readers: every container form gives the same snapshot, broken
 * snapshots fail with file and line, and the reference snapshots load with
 * the counts an independent implementation found (shared/snapshots).
 */
#include <archive.h>
#include <archive_entry.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inputs/internal.h"
#include "test.h"

static char root[512];

static void run(const char *command)
{
	int status = system(command);
	if (status != 0)
		fprintf(stderr, "command failed (%d): %s\n", status, command);
	CU_ASSERT_EQUAL_FATAL(status, 0);
}

static void write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(fwrite(data, 1, size, f), size);
	fclose(f);
}

/*
 * A snapshot of the fixture process (pid 5969, real /proc text) plus a
 * kernel thread (empty smaps), with a pagemap of three records inside the
 * first VMA of the fixture: 0x55fc2d3b4000 (see sleep.smaps).
 */
static const char *make_snapshot_dir(const char *name)
{
	char command[8192];
	snprintf(root, sizeof(root), "%s/%s", test_tmpdir(), name);
	snprintf(command, sizeof(command),
		 "rm -rf %s && mkdir -p %s/5969 %s/2 && cd %s && cp %s/version %s/meminfo . && "
		 "for f in smaps status stat cmdline; do cp %s/sleep.$f 5969/$f; done && "
		 ": > 2/smaps && echo '2 (kthreadd) S 0 0 0' > 2/stat && : > 2/cmdline && "
		 "printf 'format: ptscope-snapshot 1\\npage_size: 4096\\npagemap: pfn\\n' > snapshot.info",
		 root, root, root, root, test_fixture("proc"), test_fixture("proc"), test_fixture("proc"));
	run(command);
	uint64_t first = 0;
	FILE *f = fopen(test_fixture("proc/sleep.smaps"), "r");
	CU_ASSERT_FATAL(f && fscanf(f, "%lx", (unsigned long *)&first) == 1);
	fclose(f);
	uint64_t records[6] = { first, PAGEMAP_PRESENT | 100, first + 4096, PAGEMAP_PRESENT | 101,
				first + 8192, PAGEMAP_SWAPPED | 77 };
	char path[600];
	snprintf(path, sizeof(path), "%s/5969/pagemap", root);
	write_file(path, records, sizeof(records));
	uint64_t kpages[6] = { 100, 1, 1u << 12, 101, 2, 0 };
	snprintf(path, sizeof(path), "%s/kpages", root);
	write_file(path, kpages, sizeof(kpages));
	return root;
}

static void check_fixture_snapshot(const struct snapshot *s)
{
	CU_ASSERT_EQUAL_FATAL(s->process_count, 1);
	CU_ASSERT_EQUAL(s->kernel_threads, 1);
	const struct process *p = &s->processes[0];
	CU_ASSERT_EQUAL(p->pid, 5969);
	CU_ASSERT_EQUAL(p->ppid, 5965);
	CU_ASSERT_STRING_EQUAL(p->comm, "sleep");
	CU_ASSERT_STRING_EQUAL(p->cmdline, "sleep 1000");
	CU_ASSERT_EQUAL(p->vma_count, 37);
	CU_ASSERT_EQUAL(s->vma_count, 37);
	CU_ASSERT(p->has_status && p->status.vm_pte_kb == 48);
	CU_ASSERT_EQUAL_FATAL(p->pagemap_count, 3);
	/* the records, in order, through the snapshot's distinct contents */
	struct pagemap_record records[4];
	size_t n = 0;
	for (uint64_t at = 0; n < 4 && process_next_record(s, p, at, UINT64_MAX, &records[n]); n++)
		at = records[n].vaddr + 1;
	CU_ASSERT_EQUAL_FATAL(n, 3);
	CU_ASSERT(records[0].vaddr < records[1].vaddr && records[1].vaddr < records[2].vaddr);
	CU_ASSERT_EQUAL(records[2].entry, PAGEMAP_SWAPPED | 77);
	CU_ASSERT_EQUAL(process_chunk_content(p, records[0].vaddr >> PAGEMAP_CHUNK_SHIFT) >= 0, 1);
	CU_ASSERT_EQUAL(process_chunk_content(p, 0), -1);
	CU_ASSERT_EQUAL(s->pagemap_bytes, 48);
	CU_ASSERT_EQUAL(s->info.pagemap, PAGEMAP_PFN);
	CU_ASSERT_EQUAL_FATAL(s->kpage_count, 2);
	CU_ASSERT_EQUAL(snapshot_find_kpage(s, 101)->mapcount, 2);
	CU_ASSERT_PTR_NULL(snapshot_find_kpage(s, 102));
	CU_ASSERT_PTR_EQUAL(process_find_vma(p, records[1].vaddr), &p->vmas[0]);
	CU_ASSERT_PTR_NULL(process_find_vma(p, 0x1000));
	CU_ASSERT_PTR_EQUAL(process_find_vma(p, p->vmas[0].end - 1), &p->vmas[0]);
	CU_ASSERT_PTR_EQUAL(process_find_vma(p, p->vmas[0].end), p->vmas[1].start == p->vmas[0].end ? &p->vmas[1] : NULL);
	struct pagemap_record found;
	CU_ASSERT_EQUAL(process_next_record(s, p, records[1].vaddr, UINT64_MAX, &found), 1);
	CU_ASSERT_EQUAL(found.vaddr, records[1].vaddr);
	CU_ASSERT_EQUAL(process_next_record(s, p, records[1].vaddr + 1, UINT64_MAX, &found), 1);
	CU_ASSERT_EQUAL(found.vaddr, records[2].vaddr);
	CU_ASSERT_EQUAL(process_next_record(s, p, records[1].vaddr + 1, records[2].vaddr, &found), 0);
	CU_ASSERT_EQUAL(process_next_record(s, p, records[2].vaddr + 1, UINT64_MAX, &found), 0);
	CU_ASSERT_PTR_EQUAL(snapshot_find_process(s, 5969), p);
	CU_ASSERT_PTR_NULL(snapshot_find_process(s, 2)); /* the kernel thread is not kept */
	CU_ASSERT_PTR_NULL(snapshot_find_process(s, 5970));
	CU_ASSERT(snapshot_meminfo_kb(s, "MemTotal") > 0);
}

static void test_directory(void)
{
	struct snapshot *s;
	struct error error;
	int status = snapshot_read(make_snapshot_dir("dir"), NULL, &s, &error);
	if (status)
		fprintf(stderr, "%s\n", error.message);
	CU_ASSERT_EQUAL_FATAL(status, 0);
	check_fixture_snapshot(s);
	snapshot_free(s);
}

/* A budget below what the snapshot keeps: refused with the figures, whole
 * (not a process dropped, even with skip_bad); a budget above it: read. */
static void test_memory_budget(void)
{
	struct snapshot *s = NULL;
	struct error error;
	struct read_options tight = { .memory_budget_bytes = 4096, .skip_bad = true };
	CU_ASSERT_EQUAL(snapshot_read(make_snapshot_dir("budget"), &tight, &s, &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "does not fit in memory"));
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "MiB are available; reading it all needs"));
	struct read_options roomy = { .memory_budget_bytes = UINT64_C(1) << 30 };
	CU_ASSERT_EQUAL_FATAL(snapshot_read(make_snapshot_dir("budget2"), &roomy, &s, &error), 0);
	check_fixture_snapshot(s);
	snapshot_free(s);
}

/* A process that ended while smemcap read it leaves empty smaps, stat and
 * cmdline members: the snapshot still reads, with one more empty process. */
static void test_vanished_process(void)
{
	struct snapshot *s;
	struct error error;
	const char *dir = make_snapshot_dir("vanished");
	char command[1200];
	snprintf(command, sizeof(command), "mkdir %s/31 && : > %s/31/smaps && : > %s/31/stat && : > %s/31/cmdline",
		 dir, dir, dir, dir);
	run(command);
	int status = snapshot_read(dir, NULL, &s, &error);
	if (status)
		fprintf(stderr, "%s\n", error.message);
	CU_ASSERT_EQUAL_FATAL(status, 0);
	CU_ASSERT_EQUAL_FATAL(s->process_count, 1);
	CU_ASSERT_EQUAL(s->processes[0].pid, 5969);
	CU_ASSERT_EQUAL(s->kernel_threads, 2);  /* pid 2 and the vanished 31 */
	snapshot_free(s);
}

/* Every compressed form, plus the quirks old writers leave in tars. */
static void test_archives(void)
{
	static const char *const forms[] = {
		"tar -cf T.tar -C D .",
		"tar -czf T.tar.gz -C D .",
		"tar -cJf T.tar.xz -C D .",
		"tar --zstd -cf T.tar.zst -C D .",
		"tar --format=v7 -cf T.tar -C D .",
		/* no end-of-archive blocks: strip every trailing all-zero 512-byte block */
		("tar -cf T.tar -C D . && python3 -c \"import sys; d=open('T.tar','rb').read(); "
		 "n=len(d)\nwhile n and not any(d[n-512:n]): n-=512\nopen('T.tar','wb').write(d[:n])\""),
	};
	const char *dir = make_snapshot_dir("arch");
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		char command[8192], archive[600];
		const char *ext = strstr(forms[i], "T.tar.gz") ? ".tar.gz" : strstr(forms[i], "T.tar.xz") ? ".tar.xz"
				: strstr(forms[i], "T.tar.zst") ? ".tar.zst" : ".tar";
		snprintf(archive, sizeof(archive), "%s/T%s", test_tmpdir(), ext);
		snprintf(command, sizeof(command), "cd %s && rm -f T.tar* && %s", test_tmpdir(), forms[i]);
		/* substitute the directory name */
		char *d = strstr(command, "-C D");
		CU_ASSERT_PTR_NOT_NULL_FATAL(d);
		char tail[512];
		snprintf(tail, sizeof(tail), "%s", d + 4);
		snprintf(d, sizeof(command) - (size_t)(d - command), "-C %s%s", dir, tail);
		run(command);
		struct snapshot *s;
		struct error error;
		int status = snapshot_read(archive, NULL, &s, &error);
		if (status)
			fprintf(stderr, "%s: %s\n", forms[i], error.message);
		CU_ASSERT_EQUAL_FATAL(status, 0);
		printf("[%s] ", ext);
		check_fixture_snapshot(s);
		snapshot_free(s);
	}
}

/*
 * A tar read through its mapping (inputs/mapped_file.c): a member ignored
 * (skipped, to a position off any page) before the snapshot's, of sizes
 * that put the smaps across the edge of a mapped window (2 MiB: the piece
 * across it is copied from both windows), reads as the directory does.  Then a file cut short while mapped ends the reader
 * with exit 1 and one line naming the file, not a crash.
 */
static void test_mapped_archive(void)
{
	const char *dir = make_snapshot_dir("mapped");
	char padding[600], archive[600], command[4096];
	snprintf(padding, sizeof(padding), "%s/pad", test_tmpdir());
	snprintf(archive, sizeof(archive), "%s/mapped.tar", test_tmpdir());
	for (size_t size = 2084000; size < 2104000; size += 2053) {
		snprintf(command, sizeof(command), "rm -rf %s && mkdir -p %s && head -c %zu /dev/urandom > %s/zzpad && "
			 "tar -cf %s -C %s zzpad -C %s .", padding, padding, size, padding, archive, padding, dir);
		run(command);
		struct snapshot *s;
		struct error error;
		CU_ASSERT_EQUAL_FATAL(snapshot_read(archive, NULL, &s, &error), 0);
		check_fixture_snapshot(s);
		snapshot_free(s);
	}
	int err[2];
	CU_ASSERT_EQUAL_FATAL(pipe(err), 0);
	pid_t child = fork();
	if (child == 0) {
		dup2(err[1], STDERR_FILENO);
		struct archive *a = archive_read_new();
		struct archive_entry *entry;
		archive_read_support_format_tar(a);
		if (archive_open_mapped(a, archive, 1 << 16) != ARCHIVE_OK || archive_read_next_header(a, &entry))
			_exit(3);
		if (truncate(archive, 0))
			_exit(4);
		while (archive_read_next_header(a, &entry) == ARCHIVE_OK)
			;
		_exit(5);       /* read past the cut without noticing */
	}
	close(err[1]);
	char said[1024] = "";
	ssize_t got = read(err[0], said, sizeof(said) - 1);
	said[got > 0 ? got : 0] = '\0';
	close(err[0]);
	int status;
	CU_ASSERT_EQUAL_FATAL(waitpid(child, &status, 0), child);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(said, "mapped.tar: the file shrank while it was read\n"));
}

/* Expect a failure whose message holds `expect`. */
static void expect_failure(const char *path, const char *expect)
{
	struct snapshot *s = NULL;
	struct error error = { 0 };
	CU_ASSERT_EQUAL(snapshot_read(path, NULL, &s, &error), -1);
	CU_ASSERT_PTR_NULL(s);
	if (!strstr(error.message, expect)) {
		fprintf(stderr, "expected '%s' in '%s'\n", expect, error.message);
		CU_FAIL(expect);
	}
}

static void test_broken_snapshots(void)
{
	char command[8192], path[600];
	const char *dir = make_snapshot_dir("broken");

	/* pagemap address outside every VMA */
	uint64_t outside[2] = { 0x1000, PAGEMAP_PRESENT | 5 };
	snprintf(path, sizeof(path), "%s/5969/pagemap", dir);
	write_file(path, outside, sizeof(outside));
	expect_failure(dir, "5969/pagemap: record 0: address 0x1000 is outside every VMA");

	/* with --skip-bad the broken process is dropped and counted; it was the
	 * only one, so the snapshot has no process left and says so */
	struct snapshot *s = NULL;
	struct error error = { 0 };
	struct read_options skip = { .skip_bad = true };
	CU_ASSERT_EQUAL(snapshot_read(dir, &skip, &s, &error), -1);
	CU_ASSERT_PTR_NULL(s);
	if (!strstr(error.message, "no process in this snapshot: kernel threads 1, zombies 0, broken 1,"))
		fprintf(stderr, "got: %s\n", error.message);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "no process in this snapshot: kernel threads 1, zombies 0, broken 1,"));

	/* pagemap of odd length; truncated smaps names its line */
	write_file(path, outside, 15);
	expect_failure(dir, "5969/pagemap: length 15 is not a multiple of 16");
	make_snapshot_dir("broken");
	snprintf(command, sizeof(command), "cd %s && head -c 1000 %s/sleep.smaps > 5969/smaps",
		 dir, test_fixture("proc"));
	run(command);
	expect_failure(dir, "5969/smaps:");

	/* garbage is not a snapshot */
	snprintf(path, sizeof(path), "%s/garbage.tar.gz", test_tmpdir());
	write_file(path, "\x1f\x8b\x08garbage garbage garbage", 26);
	expect_failure(path, "garbage.tar.gz");
	expect_failure("/nonexistent/snap.tar", "/nonexistent/snap.tar: No such file");

	/* missing meminfo */
	make_snapshot_dir("broken");
	snprintf(command, sizeof(command), "rm %s/meminfo", dir);
	run(command);
	expect_failure(dir, "meminfo: missing");
}

/* A tar header claiming a member of 8 GiB (octal 100000000000) must not be believed. */
static void test_absurd_member_size(void)
{
	char command[8192], path[600];
	const char *dir = make_snapshot_dir("absurd");
	snprintf(path, sizeof(path), "%s/absurd.tar", test_tmpdir());
	snprintf(command, sizeof(command),
		 "cd %s && tar --format=ustar -cf %s version meminfo && "
		 "printf '00100000000000' | dd of=%s bs=1 seek=124 conv=notrunc status=none",
		 dir, path, path);
	run(command);
	expect_failure(path, "absurd.tar");
	snprintf(command, sizeof(command), "cd %s && tar -cf %s . && truncate -s 20000 %s", dir, path, path);
	run(command);
	expect_failure(path, "runcated");
}

struct reference { const char *name; size_t processes; uint64_t vmpte_bytes; };

static void check_reference(const struct reference *r)
{
	const char *shared = test_shared_snapshots();
	if (!shared) {
		test_skip("../shared/snapshots is not here");
		return;
	}
	char path[1024];
	snprintf(path, sizeof(path), "%s/%s.tar.gz", shared, r->name);
	struct snapshot *s;
	struct error error;
	CU_ASSERT_EQUAL_FATAL(snapshot_read(path, NULL, &s, &error), 0);
	CU_ASSERT_EQUAL(s->process_count, r->processes);
	uint64_t vmpte_bytes = 0;
	for (size_t i = 0; i < s->process_count; i++)
		vmpte_bytes += s->processes[i].status.vm_pte_kb * 1024;
	CU_ASSERT_EQUAL(vmpte_bytes, r->vmpte_bytes);
	CU_ASSERT_EQUAL(s->info.pagemap, PAGEMAP_PFN);
	CU_ASSERT(s->kpage_count > 0);
	snapshot_free(s);
}

/*
 * A pagemap streamed after its process's smaps is checked against the VMAs
 * as its records come (builder.c); one streamed before is checked at the
 * finish.  Either way, and whatever the pieces (a record cut by a piece's
 * end, records not 8-byte aligned), the records inside VMAs are kept and
 * one outside fails with its index and address.  The VMAs: [0x10000,
 * 0x14000), [0x20000, 0x400000) (across the chunk at 0x200000),
 * [0x600000, 0x601000).
 */
static int read_streamed(const uint64_t *words, size_t count, size_t piece, size_t skew, bool pagemap_first,
			 struct snapshot **result, struct error *error)
{
	static const char smaps[] = "10000-14000 rw-p 00000000 00:00 0\nSize: 16 kB\nRss: 12 kB\n"
				    "20000-400000 rw-p 00000000 00:00 0\nSize: 3968 kB\nRss: 0 kB\n"
				    "600000-601000 rw-p 00000000 00:00 0\nSize: 4 kB\nRss: 4 kB\n";
	static const char *const top[][2] = { { "version", "Linux version 6.1.0 (unit)\n" },
					       { "meminfo", "MemTotal: 262144 kB\n" },
					       { "snapshot.info", "format: ptscope-snapshot 1\npage_size: 4096\npagemap: pfn\n" },
					       { "1/stat", "1 (p1) S 0 1 1 0 -1\n" } };
	struct snapshot_builder *b = builder_create("streamed", NULL);
	size_t bytes = count * 2 * sizeof(*words);
	unsigned char *copy = malloc(bytes + skew + 1);
	memcpy(copy + skew, words, bytes);
	int status = 0;
	for (size_t i = 0; i < 4 && !status; i++)
		status = builder_add_member(b, top[i][0], top[i][1], strlen(top[i][1]), error);
	if (!status && !pagemap_first)
		status = builder_add_member(b, "1/smaps", smaps, strlen(smaps), error);
	if (!status)
		status = builder_stream_begin(b, "1/pagemap", error);
	for (size_t at = 0; at < bytes && !status; at += piece)
		status = builder_stream_feed(b, copy + skew + at, bytes - at < piece ? bytes - at : piece, error);
	if (!status)
		status = builder_stream_end(b, error);
	if (!status && pagemap_first)
		status = builder_add_member(b, "1/smaps", smaps, strlen(smaps), error);
	free(copy);
	if (status) {
		builder_abort(b);
		return status;
	}
	return builder_finish(b, result, error);
}

static void test_streamed_pagemap_in_vmas(void)
{
	uint64_t inside[2 * 304], words[2 * 305];
	size_t count = 0;
	const uint64_t pages[] = { 0x10000, 0x11000, 0x13000 };
	for (size_t i = 0; i < 3; i++)
		inside[2 * count] = pages[i], inside[2 * count++ + 1] = PAGEMAP_PRESENT | (7 + i);
	for (uint64_t k = 0; k < 300; k++)   /* 0x20000 .. 0x3a1000, every third page */
		inside[2 * count] = 0x20000 + k * 3 * 4096, inside[2 * count++ + 1] = PAGEMAP_SWAPPED | k;
	inside[2 * count] = 0x600000, inside[2 * count++ + 1] = PAGEMAP_PRESENT | 1;
	CU_ASSERT_EQUAL_FATAL(count, 304);
	CU_ASSERT_EQUAL_FATAL(inside[2 * 302], 0x3a1000);
	CU_ASSERT_FATAL(inside[2 * 302] < 0x400000);
	/* one record more, outside: before the first VMA, at the first's end,
	 * at the second's end, past the last */
	const uint64_t outside[][2] = { { 0, 0xf000 }, { 3, 0x14000 }, { 303, 0x400000 }, { 304, 0x601000 } };
	const size_t pieces[] = { 1 << 20, 16, 7, 24, 53, 4096 };
	for (size_t p = 0; p < sizeof(pieces) / sizeof(pieces[0]); p++)
		for (int order = 0; order < 2; order++) {
			struct snapshot *s = NULL;
			struct error error = { 0 };
			CU_ASSERT_EQUAL(read_streamed(inside, count, pieces[p], p % 2, order, &s, &error), 0);
			if (s) {
				CU_ASSERT_EQUAL(s->process_count, 1);
				CU_ASSERT_EQUAL(s->processes[0].pagemap_count, 304);
				snapshot_free(s);
			} else {
				fprintf(stderr, "piece %zu, order %d: %s\n", pieces[p], order, error.message);
			}
			for (size_t o = 0; o < 4; o++) {
				size_t at = outside[o][0];
				memcpy(words, inside, at * 16);
				words[2 * at] = outside[o][1];
				words[2 * at + 1] = PAGEMAP_PRESENT | 3;
				memcpy(words + 2 * at + 2, inside + 2 * at, (count - at) * 16);
				char want[128];
				snprintf(want, sizeof(want), "streamed: 1/pagemap: record %zu: address %#" PRIx64
					 " is outside every VMA", at, outside[o][1]);
				s = NULL;
				error = (struct error){ 0 };
				CU_ASSERT_EQUAL(read_streamed(words, count + 1, pieces[p], p % 2, order, &s, &error), -1);
				CU_ASSERT_PTR_NULL(s);
				if (strcmp(error.message, want))
					fprintf(stderr, "piece %zu, order %d: want '%s', got '%s'\n", pieces[p], order, want,
						error.message);
				CU_ASSERT_STRING_EQUAL(error.message, want);
			}
		}
}

/* processes and vmpte_bytes from NAME.expected */
static void test_reference_pg32(void)
{
	check_reference(&(struct reference){ "pg32", 38, 11894784 });
}

static void test_reference_desktop(void)
{
	check_reference(&(struct reference){ "desktop", 17, 2953216 });
}

void suite_read(void)
{
	ADD_SUITE("read", test_directory, test_memory_budget, test_vanished_process, test_archives, test_mapped_archive, test_broken_snapshots, test_streamed_pagemap_in_vmas,
		  test_absurd_member_size,
		  test_reference_pg32, test_reference_desktop);
}
