/*
 * The one CUnit runner: registers every suite found by the Makefile and runs
 * them in verbose basic mode.  The exit status is non-zero when anything
 * failed, so `make check` cannot pass by accident.
 */
#include <CUnit/Basic.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"

#define SUITE(fn) void fn(void);
#include "tests/unit/suites.h"
#undef SUITE
#define SUITE(fn) fn,
static void (*const suites[])(void) = {
#include "tests/unit/suites.h"
	NULL
};
#undef SUITE

void test_add_suite(const char *name, CU_TearDownFunc teardown, const char *test_names, CU_TestFunc *tests)
{
	CU_pSuite suite = CU_add_suite_with_setup_and_teardown(name, NULL, NULL, NULL, teardown);
	char names[4096];
	snprintf(names, sizeof(names), "%s", test_names);
	char *save = NULL;
	char *tok = strtok_r(names, ", ", &save);
	for (size_t i = 0; suite && tests[i] && tok; i++) {
		CU_add_test(suite, tok, tests[i]); /* CUnit copies the name */
		tok = strtok_r(NULL, ", ", &save);
	}
}

void test_skip(const char *why)
{
	printf("\nSKIP: %s: %s\n", CU_get_current_test() ? CU_get_current_test()->pName : "?", why);
	fflush(stdout);
}

const char *test_shared_snapshots(void)
{
	static char path[PATH_MAX];
	const char *env = getenv("SHARED_SNAPSHOTS");
	struct stat st;
	if (!path[0]) {
		if (env)
			snprintf(path, sizeof(path), "%s", env);
		else
			snprintf(path, sizeof(path), "%s/../../shared/snapshots", PTSCOPE_TESTS_DIR);
	}
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? path : NULL;
}

const char *test_fixture(const char *name)
{
	static char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/fixtures/%s", PTSCOPE_TESTS_DIR, name);
	return path;
}

static char tmpdir[PATH_MAX];
static pid_t tmpdir_owner;

/* Only the runner itself removes it: a forked test child that exits
 * through exit() (out of memory, for one) runs the atexit handlers too. */
static void remove_tmpdir(void)
{
	char cmd[PATH_MAX + 16];
	if (tmpdir[0] && getpid() == tmpdir_owner) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", tmpdir);
	}
}

const char *test_tmpdir(void)
{
	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/ptscope-test.XXXXXX");
		if (!mkdtemp(tmpdir))
			return "/tmp";
		tmpdir_owner = getpid();
		atexit(remove_tmpdir);
	}
	return tmpdir;
}

/* The suite, or with "SUITE:TEST" the one test, argv names; NULL after
 * saying what is missing. */
static CU_pSuite chosen_suite(char *name, CU_pTest *test)
{
	char *test_name = strchr(name, ':');
	if (test_name)
		*test_name++ = '\0';
	CU_pSuite suite = CU_get_suite(name);
	if (!suite) {
		fprintf(stderr, "unit-tests: no suite '%s' (a CUnit suite, or tests/cli/%s.sh)\n", name, name);
		return NULL;
	}
	*test = test_name ? CU_get_test(suite, test_name) : NULL;
	if (test_name && !*test) {
		fprintf(stderr, "unit-tests: suite '%s' has no test '%s'; its tests:", name, test_name);
		for (CU_pTest t = suite->pTest; t; t = t->pNext)
			fprintf(stderr, " %s", t->pName);
		fputc('\n', stderr);
		return NULL;
	}
	return suite;
}

/* `unit-tests [SUITE[:TEST]]`: every suite, one suite, or one test of it
 * (make check SUITE=NAME, SUITE=NAME:TEST). */
int main(int argc, char **argv)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	for (size_t i = 0; suites[i]; i++)
		suites[i]();
	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (argc > 1) {
		CU_pTest test = NULL;
		CU_pSuite suite = chosen_suite(argv[1], &test);
		if (!suite) {
			CU_cleanup_registry();
			return 1;
		}
		if (test)
			CU_basic_run_test(suite, test);
		else
			CU_basic_run_suite(suite);
	} else {
		CU_basic_run_tests();
	}
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
