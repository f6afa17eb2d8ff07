/*
 * tests/unit/test_fuzz_crashes.c - every input `make fuzz` found a crash or
 * undefined behaviour with (tests/fixtures/fuzz-crashes/) is read again as a
 * snapshot: it must be refused or read, never crash (under SANITIZE=1 the
 * sanitizers check the "never").  archive-no-process-qsort-null: a tar with
 * members but no process passed NULL to qsort (fuzz_archive, 10-minute run).
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "inputs/snapshot.h"
#include "tests/unit/test.h"

static void test_fuzz_crash_inputs(void)
{
	const char *dir = test_fixture("fuzz-crashes");
	DIR *d = opendir(dir);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	size_t count = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		struct read_options options = { 0 };
		struct snapshot *snapshot = NULL;
		struct error error;
		if (snapshot_read(path, &options, &snapshot, &error) == 0)
			snapshot_free(snapshot);
		else
			CU_ASSERT(strstr(error.message, e->d_name) != NULL);   /* refused, naming the file */
		count++;
	}
	closedir(d);
	CU_ASSERT(count >= 1);
}

void suite_fuzz_crashes(void)
{
	ADD_SUITE("fuzz_crashes", test_fuzz_crash_inputs);
}
