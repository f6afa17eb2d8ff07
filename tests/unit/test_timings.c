/*
 * Timings as they were posted (inputs/timings.c) and the change bench
 * --compare prints (outputs/bench.c), on text written here in the shape of
 * the posts.  Every figure is worked by hand from the text.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outputs/bench.h"
#include "test.h"

#define CLOSE(a, b) CU_ASSERT(fabs((a) - (b)) < 1e-6)

static struct timing_set set;
static struct error error;

static int read_text(const char *text)
{
	timing_set_free(&set);
	return timing_read_text("posted.txt", text, strlen(text), NULL, &set, &error);
}

/* The values of a measure, as given (NAN past the end). */
static double value(const char *name, size_t run)
{
	const struct timing_measure *m = timing_find(&set, name);
	return m && run < m->count ? m->values[run].mean : NAN;
}

static size_t runs(const char *name)
{
	const struct timing_measure *m = timing_find(&set, name);
	return m ? m->count : 0;
}

static void test_bash(void)
{
	CU_ASSERT_EQUAL_FATAL(read_text("$ time make\n...\nreal\t0m27.814s\nuser\t0m35.120s\nsys\t1m5.960s\n\n"
					"real\t0m28.000s\nuser\t0m35.000s\nsys\t1m6.000s\n"), 0);
	CU_ASSERT_STRING_EQUAL(set.shape, "bash time");
	CU_ASSERT_EQUAL(runs("real"), 2);
	CLOSE(value("real", 0), 27.814);
	CLOSE(value("system", 0), 65.96);   /* 1m5.960s */
	CLOSE(value("system", 1), 66.0);
	/* total = user + system of each run: 35.12 + 65.96, 35 + 66 */
	CU_ASSERT_EQUAL(runs("total"), 2);
	CLOSE(value("total", 0), 101.08);
	CLOSE(value("total", 1), 101.0);
	struct timing_summary s;
	timing_summary(timing_find(&set, "real"), &s);
	CLOSE(s.mean, 27.907);
	CLOSE(s.deviation, 0.186 / sqrt(2));   /* two runs: |a - b| / sqrt(2) */
	CLOSE(s.lowest, 27.814);
	CLOSE(s.highest, 28.0);
}

/* A post, the shape it is read as and figures worked from it by hand:
 * a measure's value in a run (the list ends with a NULL measure). */
struct post {
	const char *text, *shape;
	struct figure {
		const char *measure;
		size_t run;
		double value;
	} figures[5];
};

static void check_post(const struct post *post)
{
	CU_ASSERT_EQUAL_FATAL(read_text(post->text), 0);
	CU_ASSERT_STRING_EQUAL(set.shape, post->shape);
	for (const struct figure *f = post->figures; f->measure; f++) {
		double got = value(f->measure, f->run);
		CU_ASSERT(fabs(got - f->value) < 1e-6);
		if (!(fabs(got - f->value) < 1e-6))
			fprintf(stderr, "\n%s: %s run %zu is %g, not %g", post->shape, f->measure, f->run, got, f->value);
	}
}

static void test_posix_and_zsh(void)
{
	static const struct post posix = { "real 27.81\nuser 35.12\nsys 65.96\n", "time -p", { { "user", 0, 35.12 } } };
	/* zsh, older (seconds) and newer (m:ss.ss) totals; the command before them */
	static const struct post zsh = {
		"make -j4 bzImage  35.12s user 65.96s system 363% cpu 27.814 total\n"
		"make -j4 bzImage  35.00s user 66.00s system 365% cpu 1:27.81 total\n", "zsh time",
		{ { "real", 0, 27.814 }, { "real", 1, 87.81 }, { "system", 1, 66.0 }, { "total", 0, 101.08 } }
	};
	check_post(&posix);
	check_post(&zsh);
}

static void test_gnu_time(void)
{
	/* -v: 1 h 2 min 3.5 s elapsed */
	static const struct post verbose = {
		"\tCommand being timed: \"make\"\n\tUser time (seconds): 35.12\n\tSystem time (seconds): 65.96\n"
		"\tPercent of CPU this job got: 363%\n\tElapsed (wall clock) time (h:mm:ss or m:ss): 1:02:03.5\n"
		"\tMaximum resident set size (kbytes): 1234\n", "/usr/bin/time -v",
		{ { "real", 0, 3723.5 }, { "system", 0, 65.96 } }
	};
	static const struct post plain = {
		"35.12user 65.96system 0:27.81elapsed 363%CPU (0avgtext+0avgdata 1234maxresident)k\n"
		"0inputs+0outputs (0major+123minor)pagefaults 0swaps\n", "/usr/bin/time",
		{ { "real", 0, 27.81 }, { "user", 0, 35.12 } }
	};
	check_post(&verbose);
	CU_ASSERT_EQUAL(set.measure_count, 4);   /* real, user, system, total */
	check_post(&plain);
}

static void test_lmbench_and_perf(void)
{
	static const struct post lmbench = {
		"Process fork+exit: 179.0000 microseconds\nProcess fork+execve: 364.0000 microseconds\n"
		"Process fork+/bin/sh -c: 949.0000 microseconds\nProcess fork+exit: 181.0000 microseconds\n", "lmbench",
		{ { "Process fork+exit", 1, 181 }, { "Process fork+/bin/sh -c", 0, 949 } }
	};
	static const struct post perf = {
		" Performance counter stats for 'make' (5 runs):\n\n"
		"         27,814.12 msec task-clock                #    3.630 CPUs utilized\n"
		"       27.814 +- 0.120 seconds time elapsed  ( +-  0.43% )\n\n"
		"      35.120000000 seconds user\n      65.960000000 seconds sys\n", "perf stat",
		{ { "real", 0, 27.814 }, { "system", 0, 65.96 } }
	};
	check_post(&lmbench);
	CU_ASSERT_EQUAL(runs("Process fork+exit"), 2);
	CU_ASSERT_STRING_EQUAL(timing_find(&set, "Process fork+execve")->unit, "us");
	CU_ASSERT_PTR_NULL(timing_find(&set, "total"));
	check_post(&perf);
	CU_ASSERT_EQUAL(runs("real"), 1);   /* the task-clock line is no time */
}

/* kernbench: a block per load, each time named for the load's first word;
 * the deviation in brackets and the counts that are not times skipped; the
 * log of two invocations, two runs of each measure; total = user + system
 * within a load (800.25 + 112.76 = 913.01). */
static void test_kernbench(void)
{
	static const struct post current = {
		"4 cpus found\nAverage Half load -j 3 Run (std deviation):\nElapsed Time 141.562 (0.612)\n"
		"User Time 901.482 (1.94)\nSystem Time 120.5 (0.35)\nPercent CPU 716.2 (2.1)\n"
		"Context Switches 61252.6 (311.2)\nSleeps 35466.2 (120.9)\n\n"
		"Average Optimal load -j 16 Run (std deviation):\nElapsed Time 128.07 (0.59)\n"
		"User Time 800.25 (1.2)\nSystem Time 112.76 (0.8)\nPercent CPU 712.4 (3.1)\n", "kernbench",
		{ { "real (half)", 0, 141.562 }, { "system (half)", 0, 120.5 }, { "system (optimal)", 0, 112.76 },
		  { "total (optimal)", 0, 913.01 } }
	};
	check_post(&current);
	CU_ASSERT_EQUAL(set.measure_count, 8);   /* real, user, system and total of two loads */
	CU_ASSERT_PTR_NULL(timing_find(&set, "system"));
	/* an older kernbench ("-j 16 Load"), two invocations appended to its log */
	static const struct post older = {
		"Average Optimal -j 16 Load Run:\r\nElapsed Time 47.776\r\nUser Time 434.104\r\nSystem Time 112.76\r\n"
		"Average Optimal -j 16 Load Run:\nElapsed Time 47.5\nUser Time 433.9\nSystem Time 98.29\n", "kernbench",
		{ { "system (optimal)", 0, 112.76 }, { "system (optimal)", 1, 98.29 }, { "real (optimal)", 1, 47.5 } }
	};
	check_post(&older);
	CU_ASSERT_EQUAL(runs("user (optimal)"), 2);
	/* times pasted without their block: the plain names; a header of another
	 * shape ("Average ... Run" without the colon) is no block */
	static const struct post bare = {
		"Average Optimal load -j 16 Run\nSystem Time 98.29\nUser Time 433.9\n", "kernbench",
		{ { "system", 0, 98.29 }, { "total", 0, 532.19 } }
	};
	check_post(&bare);
	CU_ASSERT_EQUAL(read_text("Average Optimal load -j 16 Run:\nSystem Time No data\nElapsed Time 1.5 (x)\n"), -1);
}

/* Posted means with their spread, pooled as the runs themselves would be.
 * perf stat -r 5: 27.814 +- 0.120, the standard error of the mean, so the
 * runs' deviation is 0.120 x sqrt(5).  Kernbench's 3 runs of mean 2 and
 * deviation 1 beside runs of 4 and 6 s: the five runs 1, 2, 3, 4, 6 (any
 * with that mean and deviation) have mean 3.2 and deviation
 * sqrt(14.8 / 4); a total of means has no deviation to give. */
static void test_posted_spread(void)
{
	struct timing_summary s;
	CU_ASSERT_EQUAL_FATAL(read_text(" Performance counter stats for 'make -j8' (5 runs):\n\n"
					"       27.814 +- 0.120 seconds time elapsed  ( +-  0.43% )\n"), 0);
	timing_summary(timing_find(&set, "real"), &s);
	CU_ASSERT_EQUAL(s.runs, 5);
	CLOSE(s.mean, 27.814);
	CLOSE(s.deviation, 0.120 * sqrt(5));
	CU_ASSERT_FALSE(s.extremes_known);
	/* a header without "(N runs)" after it: one run again */
	CU_ASSERT_EQUAL_FATAL(read_text(" Performance counter stats for 'a' (5 runs):\n 1.0 +- 0.1 seconds time elapsed\n"
					" Performance counter stats for 'b':\n 3.0 +- 0.1 seconds time elapsed\n"), 0);
	timing_summary(timing_find(&set, "real"), &s);
	CU_ASSERT_EQUAL(s.runs, 6);
	CLOSE(s.mean, 8.0 / 6);
	CU_ASSERT_EQUAL_FATAL(read_text("Performing 3 runs of\nmake -j 16\nElapsed Time 2 (1)\nUser Time 5 (1)\n"
					"System Time 1 (0.5)\nreal\t0m4.000s\nreal\t0m6.000s\n"), 0);
	CU_ASSERT_STRING_EQUAL(set.shape, "kernbench and bash time");
	timing_summary(timing_find(&set, "real"), &s);
	CU_ASSERT_EQUAL(s.runs, 5);
	CLOSE(s.mean, 3.2);
	CLOSE(s.deviation, sqrt(14.8 / 4));
	timing_summary(timing_find(&set, "total"), &s);
	CU_ASSERT_EQUAL(s.runs, 3);
	CLOSE(s.mean, 6.0);
	CU_ASSERT(isnan(s.deviation));
	/* an older kernbench's block, no deviation printed: 3 runs of mean 4, their
	 * deviation not known */
	CU_ASSERT_EQUAL_FATAL(read_text("Performing 3 runs of\nAverage Optimal -j 16 Load Run:\nSystem Time 4\n"), 0);
	timing_summary(timing_find(&set, "system (optimal)"), &s);
	CU_ASSERT_EQUAL(s.runs, 3);
	CLOSE(s.mean, 4.0);
	CU_ASSERT(isnan(s.deviation));
	/* perf stat -r's line pasted without its header: a mean of 2 or more
	 * runs, how many not said; two such means taken alike, (1 + 3) / 2 */
	CU_ASSERT_EQUAL_FATAL(read_text("       27.814 +- 0.120 seconds time elapsed  ( +-  0.43% )\n"), 0);
	timing_summary(timing_find(&set, "real"), &s);
	CU_ASSERT_EQUAL(s.runs, 2);
	CU_ASSERT(s.runs_at_least);
	CLOSE(s.mean, 27.814);
	CU_ASSERT(isnan(s.deviation));
	CU_ASSERT_FALSE(s.extremes_known);
	CU_ASSERT_EQUAL_FATAL(read_text(" 1.0 +- 0.1 seconds time elapsed\n 3.0 +- 0.2 seconds time elapsed\n"), 0);
	timing_summary(timing_find(&set, "real"), &s);
	CU_ASSERT_EQUAL(s.runs, 4);
	CU_ASSERT(s.runs_at_least);
	CLOSE(s.mean, 2.0);
	/* without "Performing N runs" (kernbench's log) a deviation above 0 is
	 * of two or more runs, and the lone value keeps it; a deviation of 0,
	 * or none, is one value */
	CU_ASSERT_EQUAL_FATAL(read_text("Elapsed Time 2 (1)\n"), 0);
	timing_summary(timing_find(&set, "real"), &s);
	CU_ASSERT_EQUAL(s.runs, 2);
	CU_ASSERT(s.runs_at_least);
	CLOSE(s.mean, 2.0);
	CLOSE(s.deviation, 1.0);
	CU_ASSERT_FALSE(s.extremes_known);
	CU_ASSERT_EQUAL_FATAL(read_text("Elapsed Time 2 (0)\nElapsed Time 3\n"), 0);
	timing_summary(timing_find(&set, "real"), &s);
	CU_ASSERT_EQUAL(s.runs, 2);
	CU_ASSERT_FALSE(s.runs_at_least);
	CLOSE(s.deviation, sqrt(0.5));
	CU_ASSERT(s.extremes_known);
}

static void test_refused_and_skipped(void)
{
	CU_ASSERT_EQUAL(read_text("hello\nreal soon now\n"), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "posted.txt: no timing found"));
	CU_ASSERT_EQUAL(read_text(""), -1);
	static const char nul[] = "real 1.0\nus\0er 2.0\n";
	timing_set_free(&set);
	CU_ASSERT_EQUAL(timing_read_text("posted.txt", nul, sizeof(nul) - 1, NULL, &set, &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "posted.txt:2: a NUL byte"));
	/* what only looks like a time is skipped: exponents, signs, a lone clock colon */
	CU_ASSERT_EQUAL_FATAL(read_text("real 1e5\nuser -3\nsys 0x10\nreal 0m\nreal 2.5\n"), 0);
	CU_ASSERT_EQUAL(runs("real"), 1);
	CLOSE(value("real", 0), 2.5);
	CU_ASSERT_EQUAL(runs("user"), 0);
	/* a line longer than any timing is skipped whole */
	char *longer = malloc(10000);
	memset(longer, 'x', 9000);
	strcpy(longer + 9000, "  35.12s user 65.96s system 363% cpu 27.814 total\nreal 1.5\n");
	CU_ASSERT_EQUAL(read_text(longer), 0);
	CU_ASSERT_EQUAL(runs("real"), 1);
	CLOSE(value("real", 0), 1.5);
	free(longer);
	char path[4096];
	snprintf(path, sizeof(path), "%s/timings-never-written.txt", test_tmpdir());
	CU_ASSERT_EQUAL(timing_read(path, &set, &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "No such file"));
}

/* Daniel Phillips' figures: system time 65.96 s without rmap (BASE),
 * 106.80 with it (BEFORE), 95.66 with the patch (AFTER):
 * win = (106.80 - 95.66) / 106.80 = 10.4307 %;
 * overhead ratio = (95.66 - 65.96) / (106.80 - 65.96) = 29.70 / 40.84. */
static void test_compare(void)
{
	struct timing_set before, after, base;
	CU_ASSERT_EQUAL_FATAL(timing_read_text("b", "sys 106.80\nsys 106.80\n", 22, NULL, &before, &error), 0);
	CU_ASSERT_EQUAL_FATAL(timing_read_text("a", "sys 95.66\n", 10, NULL, &after, &error), 0);
	CU_ASSERT_EQUAL_FATAL(timing_read_text("z", "sys 65.96\nreal 1\n", 17, NULL, &base, &error), 0);
	struct timing_comparison c = { .paths = { "b", "a", "z" } };
	timing_compare(&before, &after, &base, &c);
	CU_ASSERT_EQUAL_FATAL(c.change_count, 1);
	CU_ASSERT_STRING_EQUAL(c.changes[0].name, "system");
	CLOSE(c.changes[0].win_percent, (106.80 - 95.66) / 106.80 * 100);
	CU_ASSERT(fabs(c.changes[0].win_percent - 10.4307) < 1e-4);
	CU_ASSERT(c.changes[0].has_ratio);
	CLOSE(c.changes[0].overhead_ratio, 29.70 / 40.84);
	CLOSE(c.changes[0].after_over_base, 95.66 / 65.96);
	CU_ASSERT_EQUAL(c.unmatched_count, 1);   /* real: only in BASE */
	CU_ASSERT_STRING_EQUAL(c.unmatched[0], "real");
	timing_compare_free(&c);
	/* kernbench's system time, 112.76 -> 98.29 s (object rmap, 2003): 12.83 %,
	 * compared load with load */
	timing_set_free(&after);
	timing_set_free(&before);
	static const char kernbench_before[] = "Average Optimal load -j 16 Run:\nSystem Time 112.76\n";
	static const char kernbench_after[] = "Average Optimal load -j 32 Run (std deviation):\nSystem Time 98.29 (0.4)\n";
	CU_ASSERT_EQUAL_FATAL(timing_read_text("b", kernbench_before, sizeof(kernbench_before) - 1, NULL, &before, &error), 0);
	CU_ASSERT_EQUAL_FATAL(timing_read_text("a", kernbench_after, sizeof(kernbench_after) - 1, NULL, &after, &error), 0);
	timing_compare(&before, &after, NULL, &c);
	CU_ASSERT_EQUAL_FATAL(c.change_count, 1);
	CU_ASSERT_STRING_EQUAL(c.changes[0].name, "system (optimal)");
	CU_ASSERT(fabs(c.changes[0].win_percent - 12.8326) < 1e-4);
	timing_compare_free(&c);
	/* two sets: the 2006 lmbench fork, 179 -> 136 us: 24.02 % */
	timing_set_free(&after);
	timing_set_free(&before);
	CU_ASSERT_EQUAL_FATAL(timing_read_text("b", "Process fork+exit: 179.0 microseconds\n", 38, NULL, &before, &error), 0);
	CU_ASSERT_EQUAL_FATAL(timing_read_text("a", "Process fork+exit: 136.0 microseconds\n", 38, NULL, &after, &error), 0);
	timing_compare(&before, &after, NULL, &c);
	CU_ASSERT_EQUAL_FATAL(c.change_count, 1);
	CLOSE(c.changes[0].win_percent, 43.0 / 179.0 * 100);
	CU_ASSERT(!c.changes[0].has_base);
	timing_compare_free(&c);
	timing_set_free(&before);
	timing_set_free(&after);
	timing_set_free(&base);
	timing_set_free(&set);
}

/* Martin Bligh's tables of kernels (2003): the row named read, its times
 * named for their table's title; CPU is no time; totals 563.59 + 84.14 =
 * 647.73 and 562.35 + 80.93 = 643.28; without a title, "table N". */
static const char bligh[] =
	"real 9.0\n"
	"Kernbench: (make -j N vmlinux, where N = 2 x num_cpus)\n"
	"                              Elapsed      System        User         CPU\n"
	"                   2.5.62       44.49       95.09      563.54     1480.00\n"
	"              2.5.62-objrmap       44.14       80.93      562.35     1457.67%\n"
	"\n"
	"Kernbench: (make -j vmlinux, maximal tasks)\n"
	"                              Elapsed      System        User         CPU\n"
	"                   2.5.62       45.06       98.92      564.35     1471.67\n"
	"              2.5.62-objrmap       44.77       84.14      563.59     1447.67\n"
	"\n"
	"SDET 32  (see disclaimer)\n"
	"                           Throughput    Std. Dev\n"
	"                   2.5.62       100.0%         0.3%\n"
	"\n"
	"                              System        User\n"
	"              2.5.62-objrmap       1.5       2.5\n"
	"                   2.5.63       1.0\n"
	"                   2.5.64       1.0       2.0\n";

static int read_row(const char *text, const char *row)
{
	timing_set_free(&set);
	return timing_read_text("posted.txt", text, strlen(text), row, &set, &error);
}

static void test_kernel_tables(void)
{
	CU_ASSERT_EQUAL_FATAL(read_row(bligh, "2.5.62-objrmap"), 0);
	CU_ASSERT_STRING_EQUAL(set.shape, "kernbench table");
	CLOSE(value("system (make -j vmlinux, maximal tasks)", 0), 84.14);
	CLOSE(value("real (make -j N vmlinux, where N = 2 x num_cpus)", 0), 44.14);
	CLOSE(value("total (make -j vmlinux, maximal tasks)", 0), 647.73);
	CLOSE(value("total (make -j N vmlinux, where N = 2 x num_cpus)", 0), 643.28);
	CLOSE(value("system (table 3)", 0), 1.5);   /* the third: SDET's header is no table */
	CU_ASSERT_EQUAL(set.measure_count, 2 * 4 + 3);   /* two tables' real, user, system, total; the third's */
	CU_ASSERT_PTR_NULL(timing_find(&set, "real"));   /* with a row named, only the tables count */
	/* a line that is no row ends its table: 2.5.64 is after one */
	CU_ASSERT_EQUAL(read_row(bligh, "2.5.64"), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "posted.txt: no row '2.5.64' in its tables of kernels "
					      "(rows: 2.5.62, 2.5.62-objrmap)"));
	CU_ASSERT_EQUAL(read_row(bligh, NULL), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "posted.txt:3: a table of kernels, a row each (2.5.62, "
					      "2.5.62-objrmap): name one, as posted.txt@2.5.62"));
	CU_ASSERT_EQUAL(read_row("real 1.0\n", "2.5.62"), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "no table of kernels"));
	/* FILE@ROW where no file is named so whole; a file named with an '@' read whole */
	char path[4096];
	snprintf(path, sizeof(path), "%s/bligh@2003.txt", test_tmpdir());
	FILE *f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(bligh, f);
	fclose(f);
	timing_set_free(&set);
	CU_ASSERT_EQUAL(timing_read(path, &set, &error), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(error.message, "name one, as "));
	strcat(path, "@2.5.62");
	CU_ASSERT_EQUAL_FATAL(timing_read(path, &set, &error), 0);
	CLOSE(value("system (make -j vmlinux, maximal tasks)", 0), 98.92);
	timing_set_free(&set);
}

void suite_timings(void)
{
	ADD_SUITE("timings", test_bash, test_posix_and_zsh, test_gnu_time, test_lmbench_and_perf, test_kernbench,
		  test_posted_spread, test_refused_and_skipped,
		  test_compare, test_kernel_tables);
}
