/*
 * tests/unit/test_fuzz_crashes.c - every input `make fuzz` found a crash or
 * undefined behaviour with (tests/fixtures/fuzz-crashes/) is read again as a
 * snapshot: it must be refused or read, never crash (under SANITIZE=1 the
 * sanitizers check the "never").  archive-no-process-qsort-null: a tar with
 * members but no process passed NULL to qsort (fuzz_archive, 10-minute run).
 * kbuild-*.mk are kbuild Makefiles (fuzz_kbuild): kbuild-nested-expansion.mk
 * nests variable references wide and deep, and ran past libFuzzer's 10 s
 * timeout expanding gigabytes (analyzer/kbuild.c now budgets an expansion).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyzer/internal.h"
#include "inputs/snapshot.h"
#include "tests/unit/test.h"

/* What fuzz_kbuild does with a Makefile: every value within the budget. */
static void read_as_kbuild(const char *path)
{
	struct kconfig config = { 0 };
	kconfig_set(&config, "CONFIG_MMU", "y");
	struct kbuild *kbuild = kbuild_load(path, &config, NULL);
	static const char *const names[] = { "obj-y", "SUBARCH", "" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *value = kbuild_get(kbuild, names[i]);
		CU_ASSERT(!value || strlen(value) <= (size_t)1 << 20);
		free(value);
	}
	kbuild_free(kbuild);
	struct cg_list objects = { 0 };
	kbuild_objects(path, &config, &objects);
	cg_list_free(&objects);
	kconfig_free(&config);
}

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
		count++;
		if (!strncmp(e->d_name, "kbuild-", 7)) {
			read_as_kbuild(path);
			continue;
		}
		struct read_options options = { 0 };
		struct snapshot *snapshot = NULL;
		struct error error;
		if (snapshot_read(path, &options, &snapshot, &error) == 0)
			snapshot_free(snapshot);
		else
			CU_ASSERT(strstr(error.message, e->d_name) != NULL);   /* refused, naming the file */
	}
	closedir(d);
	CU_ASSERT(count >= 1);
}

void suite_fuzz_crashes(void)
{
	ADD_SUITE("fuzz_crashes", test_fuzz_crash_inputs);
}
