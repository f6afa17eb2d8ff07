/*
 * tests/unit/test.h - shared helpers for the CUnit suites.
 *
 * Each tests/unit/test_NAME.c defines `void suite_NAME(void)` at the start
 * of a line; the Makefile finds it and main.c registers it.
 */
#ifndef PTSCOPE_TEST_H
#define PTSCOPE_TEST_H

#include <CUnit/CUnit.h>
#include <stdio.h>

/* Add a suite with its tests: ADD_SUITE("name", test_a, test_b, ...). */
#define ADD_SUITE(name, ...) test_add_suite(name, NULL, #__VA_ARGS__, (CU_TestFunc[]){ __VA_ARGS__, NULL })
/* The same with a teardown run after each test, also after a failed _FATAL
 * assertion ended it: what the tests build is freed in one place. */
#define ADD_SUITE_TEARDOWN(name, teardown, ...) \
	test_add_suite(name, teardown, #__VA_ARGS__, (CU_TestFunc[]){ __VA_ARGS__, NULL })
void test_add_suite(const char *name, CU_TearDownFunc teardown, const char *test_names, CU_TestFunc *tests);

/* Mark the running test as skipped (counted visibly by tests/check.sh). */
void test_skip(const char *why);

/* ../shared/snapshots (or $SHARED_SNAPSHOTS); NULL when it does not exist. */
const char *test_shared_snapshots(void);

/* Path of tests/fixtures/NAME (absolute). */
const char *test_fixture(const char *name);

/* A fresh temporary directory, removed at exit. */
const char *test_tmpdir(void);

#endif
