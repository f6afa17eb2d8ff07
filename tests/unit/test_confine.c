/*
 * tests/unit/test_confine.c - Landlock confines the thread that asks, and
 * the threads it starts, to reading beneath the roots (analyzer/confine.c);
 * every other thread, started before, stays free.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/internal.h"
#include "test.h"

struct place {
	char tree[512], inside[600], outside[600], created[600];
};

/* 0 when path opens with flags (closed again), else errno. */
static int open_error(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0600);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

static void *outside_from_child(void *data)
{
	const struct place *place = data;
	return (void *)(intptr_t)open_error(place->outside, O_RDONLY);
}

struct confined_result {
	int confined, inside, outside, device, created, written, system, child;
};

static void *confined_thread(void *data)
{
	const struct place *place = data;
	static struct confined_result result;
	struct read_roots roots = { .tree = (char *)place->tree };
	result.confined = confine_reads(&roots) == 0 ? 0 : errno;
	result.inside = open_error(place->inside, O_RDONLY);
	result.outside = open_error(place->outside, O_RDONLY);
	result.device = open_error("/dev/zero", O_RDONLY);
	result.created = open_error(place->created, O_WRONLY | O_CREAT);
	result.written = open_error(place->inside, O_WRONLY);
	result.system = access("/usr/include/stdio.h", F_OK) == 0 ? open_error("/usr/include/stdio.h", O_RDONLY) : 0;
	pthread_t child;
	void *child_result = (void *)(intptr_t)-1;
	if (pthread_create(&child, NULL, outside_from_child, data) == 0)
		pthread_join(child, &child_result);
	result.child = (int)(intptr_t)child_result;
	return &result;
}

static void write_file(const char *path, const char *text)
{
	FILE *file = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(file);
	fputs(text, file);
	fclose(file);
}

static void test_confine_thread(void)
{
	if (confine_abi() < 1) {
		test_skip("this kernel has no Landlock");
		return;
	}
	struct place place;
	snprintf(place.tree, sizeof(place.tree), "%s/confine-tree", test_tmpdir());
	snprintf(place.inside, sizeof(place.inside), "%s/inside.h", place.tree);
	snprintf(place.outside, sizeof(place.outside), "%s/confine-outside.h", test_tmpdir());
	snprintf(place.created, sizeof(place.created), "%s/created", place.tree);
	CU_ASSERT_EQUAL_FATAL(mkdir(place.tree, 0700), 0);
	write_file(place.inside, "int inside;\n");
	write_file(place.outside, "int outside;\n");
	pthread_t thread;
	struct confined_result *result = NULL;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, confined_thread, &place), 0);
	pthread_join(thread, (void **)&result);
	CU_ASSERT_EQUAL(result->confined, 0);
	CU_ASSERT_EQUAL(result->inside, 0);        /* beneath the tree: read */
	CU_ASSERT_EQUAL(result->outside, EACCES);  /* a file elsewhere, a device: never opened */
	CU_ASSERT_EQUAL(result->device, EACCES);
	CU_ASSERT_EQUAL(result->created, EACCES);  /* nothing written, even in the tree */
	CU_ASSERT_EQUAL(result->written, EACCES);
	CU_ASSERT_EQUAL(result->system, 0);        /* the system headers */
	CU_ASSERT_EQUAL(result->child, EACCES);    /* a thread it starts is confined too */
	CU_ASSERT_EQUAL(access(place.created, F_OK), -1);
	/* this thread (started before) is not */
	CU_ASSERT_EQUAL(open_error(place.outside, O_RDONLY), 0);
	CU_ASSERT_EQUAL(open_error(place.created, O_WRONLY | O_CREAT), 0);
	CU_ASSERT_EQUAL(open_error("/dev/zero", O_RDONLY), 0);
}

/* A tree holding a FIFO beside regular files (analyzer/confine.c's walk):
 * the FIFO, and a link in the tree to it, are refused; the regular file
 * beside it, a link to that, and a file in a clean folder beside, are read. */
enum { SPECIAL_PATHS = 5 };
static const char *const special_names[SPECIAL_PATHS] = {
	"dev/fifo", "include/fifo.h", "dev/regular.h", "include/regular.h", "dev/clean/a.h",
};
static const int special_wanted[SPECIAL_PATHS] = { EACCES, EACCES, 0, 0, 0 };

struct special_tree {
	char tree[512], paths[SPECIAL_PATHS][600];
	int results[SPECIAL_PATHS];
};

static void *special_thread(void *data)
{
	struct special_tree *place = data;
	struct read_roots roots = { .tree = place->tree };
	if (confine_reads(&roots) != 0)
		return NULL;
	for (int i = 0; i < SPECIAL_PATHS; i++)   /* O_NONBLOCK: a FIFO with no writer opens at once */
		place->results[i] = open_error(place->paths[i], O_RDONLY | O_NONBLOCK);
	return place;
}

static void test_confine_special_in_tree(void)
{
	struct special_tree place;
	snprintf(place.tree, sizeof(place.tree), "%s/special-tree", test_tmpdir());
	for (int i = 0; i < SPECIAL_PATHS; i++)
		snprintf(place.paths[i], sizeof(place.paths[i]), "%s/%s", place.tree, special_names[i]);
	static const char *const folders[] = { "", "/dev", "/dev/clean", "/include" };
	for (size_t i = 0; i < sizeof(folders) / sizeof(folders[0]); i++) {
		char folder[600];
		snprintf(folder, sizeof(folder), "%s%s", place.tree, folders[i]);
		CU_ASSERT_EQUAL_FATAL(mkdir(folder, 0700), 0);
	}
	CU_ASSERT_EQUAL_FATAL(mkfifo(place.paths[0], 0600), 0);
	CU_ASSERT_EQUAL_FATAL(symlink("../dev/fifo", place.paths[1]), 0);
	write_file(place.paths[2], "int regular;\n");
	CU_ASSERT_EQUAL_FATAL(symlink("../dev/regular.h", place.paths[3]), 0);
	write_file(place.paths[4], "int clean;\n");
	if (confine_abi() < 1) {
		test_skip("this kernel has no Landlock");
		return;
	}
	pthread_t thread;
	struct special_tree *result = NULL;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, special_thread, &place), 0);
	pthread_join(thread, (void **)&result);
	CU_ASSERT_PTR_NOT_NULL_FATAL(result);
	for (int i = 0; i < SPECIAL_PATHS; i++) {
		if (place.results[i] != special_wanted[i])
			fprintf(stderr, "\n%s: open gave %d, want %d\n", special_names[i], place.results[i], special_wanted[i]);
		CU_ASSERT_EQUAL(place.results[i], special_wanted[i]);
	}
}

void suite_confine(void)
{
	ADD_SUITE("confine", test_confine_thread, test_confine_special_in_tree);
}
