/*
 * outputs/cmd_bench.c - `ptscope bench [fork|exec|sh|fault|munmap]...
 *   [--runs N] [--cpu N] [--format text|json] [-o FILE]`, and
 *   `ptscope bench --compare BEFORE AFTER [BASE]` for timings as posted
 *
 * Times what the cost model counts, on the running kernel, as lmbench
 * does (inputs/latency.c): pinned to one CPU, warm-up runs first, then N
 * runs summed up as min / median / p90.  No word means every measurement.
 * The machine is shared and loaded: the figures are what it did, and no
 * test asserts them.
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/output.h"
#include "commands.h"
#include "outputs/bench.h"

#define RUNS_DEFAULT 100
#define RUNS_MOST 1000000

static const char usage_text[] =
	"usage: ptscope bench [fork|exec|sh|fault|munmap]... [--runs N] [--cpu N] [--format text|json]\n"
	"                     [-o FILE]\n"
	"       ptscope bench --compare BEFORE AFTER [BASE] [--format text|json] [-o FILE]\n"
	"\n"
	"Time on the running kernel, as lmbench does: fork + exit, fork + exec, fork + /bin/sh -c,\n"
	"page faults (anonymous first touch, copy on write, cached file read) and munmap; pinned\n"
	"to one CPU, after warm-up runs; min, median and p90 in microseconds.\n"
	"No word: every measurement.\n"
	"--compare reads timings as they were posted (bash, zsh or POSIX time, /usr/bin/time [-v],\n"
	"lmbench lat_proc, perf stat; several runs per file) and prints the change of each.\n"
	"\n";

enum { OPT_RUNS = 256, OPT_CPU, OPT_FORMAT, OPT_COMPARE };
static const struct command_option options_table[] = {
	{ "runs", required_argument, OPT_RUNS, "N", "timed runs of each measurement (default 100), after\n"
						  "N/10 (at least 2) warm-up runs" },
	{ "cpu", required_argument, OPT_CPU, "N", "pin to CPU N, one this process may use (default: the\n"
						 "lowest it may use)" },
	{ "format", required_argument, OPT_FORMAT, "F", "text (default) or json" },
	{ "compare", no_argument, OPT_COMPARE, "BEFORE AFTER [BASE]",
	  "the mean and spread of each of real, user, system and total\n"
	  "(user + system) time, or lmbench's lines, in each file; % win\n"
	  "of AFTER over BEFORE; with BASE (the kernel without the\n"
	  "feature) the overhead ratio (AFTER - BASE) / (BEFORE - BASE)" },
	{ "output", required_argument, 'o', "FILE", "write to FILE (atomically) instead of stdout" },
	{ "help", no_argument, 'h', NULL, "this text" },
	{ NULL, 0, 0, NULL, NULL },
};

static const char *const words[] = { "fork", "exec", "sh", "fault", "munmap" };
#define WORD_COUNT (sizeof(words) / sizeof(words[0]))

/* A count option's value: 1 .. most. */
static int parse_count(const char *option, const char *text, long most, long *value)
{
	char *end;
	errno = 0;
	long n = strtol(text, &end, 10);
	if (!*text || *end || errno || n < 0 || n > most || (n == 0 && strcmp(option, "--cpu"))) {
		fprintf(stderr, "ptscope: bench: %s wants a number from %d to %ld, not '%s'\n", option,
			strcmp(option, "--cpu") ? 1 : 0, most, text);
		return 1;
	}
	*value = n;
	return 0;
}

/* The measurements the words select, in the table's order; none: every one. */
static int select_kinds(int count, char **given, bool *selected)
{
	bool any = false;
	for (int i = 0; i < count; i++) {
		size_t w = 0;
		while (w < WORD_COUNT && strcmp(given[i], words[w]))
			w++;
		if (w == WORD_COUNT) {
			const char *close = closest_name(given[i], words, WORD_COUNT, sizeof(words[0]));
			fprintf(stderr, "ptscope: bench: unknown measurement '%s'", given[i]);
			if (close)
				fprintf(stderr, "; did you mean '%s'?", close);
			fprintf(stderr, " (fork, exec, sh, fault, munmap)\n");
			return 1;
		}
		for (size_t k = 0; k < LATENCY_KIND_COUNT; k++)
			if (!strcmp(latency_kinds[k].group, words[w]))
				selected[k] = any = true;
	}
	for (size_t k = 0; !any && k < LATENCY_KIND_COUNT; k++)
		selected[k] = true;
	return 0;
}

/* VMAs of this process now, as the kernel lists them ([vsyscall] is no VMA). */
static size_t own_vmas(void)
{
	FILE *maps = fopen("/proc/self/maps", "r");
	char line[4096];
	size_t count = 0;
	while (maps && fgets(line, sizeof(line), maps))
		count += !strstr(line, "[vsyscall]");
	if (maps)
		fclose(maps);
	return count;
}

/* The model's fork figures for a capture of this process (the snapshot and
 * the model's memory freed before the fork: below the malloc mmap
 * threshold set in count_fork, freeing them changes no VMA). */
static void predict_fork(struct bench_work *work)
{
	char folder[] = "/tmp/ptscope-bench-XXXXXX", path[64];
	const char *reason = NULL;
	struct error error = { .message = "" };
	if (!mkdtemp(folder)) {
		snprintf(work->why_not_predicted, sizeof(work->why_not_predicted), "scratch folder: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/self.tar", folder);
	int pid = (int)getpid();
	struct capture_options capture = { .output = path, .pids = &pid, .pid_count = 1, .compress = "none" };
	struct capture_result captured;
	struct read_options read = { 0 };
	struct snapshot *snapshot = NULL;
	struct profile_set set = { 0 };
	struct model_result *result = NULL;
	struct model_options options = { .profiles = &set };
	if (snapshot_capture(&capture, &captured, &error) || snapshot_read(path, &read, &snapshot, &error) ||
	    profiles_load_builtin(&set, &error) || model_run(snapshot, &options, &result, &error))
		reason = error.message;
	else if (model_fork_events(result, &work->model))
		reason = "the snapshot has no design of its own";
	if (reason) {
		snprintf(work->why_not_predicted, sizeof(work->why_not_predicted), "%s", reason);
	} else {
		work->predicted = true;
		snprintf(work->design, sizeof(work->design), "%s", work->model.design);
		work->vmas_captured = (size_t)work->model.vmas;
	}
	model_free(result);
	profiles_free(&set);
	snapshot_free(snapshot);
	unlink(path);
	rmdir(folder);
}

/* One fork + exit counted by tracepoints, beside the model's figures. */
static void count_fork(struct bench_run *run)
{
	struct bench_work *work = &run->work;
	struct trace_session session;
	run->has_work = true;
	trace_open(&session, 0);
	if (!session.available) {
		snprintf(work->why_not_counted, sizeof(work->why_not_counted), "%s", session.why);
		return;
	}
	/* the capture and the model allocate from the heap, never a new mapping */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	predict_fork(work);
	work->vmas_at_fork = own_vmas();
	if (trace_fork(&session, run->machine.cpu, work->counts) == 0) {
		work->counted = true;
		memcpy(work->merged, session.merged, sizeof(work->merged));
	} else {
		snprintf(work->why_not_counted, sizeof(work->why_not_counted), "%s", session.why);
	}
	trace_close(&session);
}

static int measure(struct bench_run *run, const bool *selected, struct error *error)
{
	for (size_t k = 0; k < LATENCY_KIND_COUNT; k++) {
		if (!selected[k])
			continue;
		if (latency_measure((enum latency_kind)k, run->runs, run->warmup, &run->results[run->result_count],
				    error))
			return -1;
		run->result_count++;
		if (k == LATENCY_FORK)
			count_fork(run);
	}
	return 0;
}

/* What one output holds: a run's measurements or a comparison. */
struct bench_output {
	const struct bench_run *run;
	const struct timing_comparison *comparison;
};

static int write_output(const char *path, const struct bench_output *what, enum bench_format format)
{
	struct output output;
	struct error error;
	if (output_open(&output, path, &error) != 0) {
		error_print(&error);
		return STATUS_INTERNAL;
	}
	FILE *out = output_stream(&output);
	if (!out || (what->run ? bench_write(out, what->run, format)
			       : bench_write_comparison(out, what->comparison, format)) != 0) {
		int saved = output.write_errno ? output.write_errno : errno;
		output_discard(&output);
		if (path && strcmp(path, "-"))
			fprintf(stderr, "ptscope: %s: cannot write: %s\n", path, strerror(saved ? saved : EIO));
		return STATUS_INTERNAL;
	}
	if (output_publish(&output, &error) != 0) {
		error_print(&error);
		return STATUS_INTERNAL;
	}
	return STATUS_OK;
}

static int compare(int count, char **paths, const char *output, enum bench_format format)
{
	if (count < 2 || count > 3) {
		fprintf(stderr, "ptscope: bench: --compare wants BEFORE AFTER [BASE]: two or three files, not %d\n",
			count);
		return 1;
	}
	struct timing_set sets[3] = { { .measure_count = 0 } };
	struct error error;
	int status = 0;
	for (int i = 0; i < count && !status; i++)
		if (timing_read(paths[i], &sets[i], &error)) {
			error_print(&error);
			status = (int)error.status;
		}
	if (!status) {
		struct timing_comparison comparison = { .paths = { paths[0], paths[1], count > 2 ? paths[2] : NULL } };
		timing_compare(&sets[0], &sets[1], count > 2 ? &sets[2] : NULL, &comparison);
		if (!comparison.change_count) {
			fprintf(stderr, "ptscope: bench: %s and %s%s%s share no measure (%s; %s)\n", paths[0], paths[1],
				count > 2 ? " and " : "", count > 2 ? paths[2] : "", sets[0].shape, sets[1].shape);
			status = 1;
		} else {
			struct bench_output what = { NULL, &comparison };
			status = write_output(output, &what, format);
		}
		timing_compare_free(&comparison);
	}
	for (int i = 0; i < 3; i++)
		timing_set_free(&sets[i]);
	return status;
}

int cmd_bench(int argc, char **argv)
{
	struct option long_options[sizeof(options_table) / sizeof(options_table[0])];
	char short_options[32];
	command_options_getopt(options_table, long_options, sizeof(long_options) / sizeof(long_options[0]),
			       short_options, sizeof(short_options));
	enum bench_format format = BENCH_TEXT;
	const char *output = NULL;
	long runs = RUNS_DEFAULT, cpu = -1;
	bool comparing = false, timing_options = false;
	int c, status = 0;

	optind = 1;
	while (!status && (c = getopt_long(argc, argv, short_options, long_options, NULL)) != -1) {
		switch (c) {
		case OPT_RUNS:
			status = parse_count("--runs", optarg, RUNS_MOST, &runs);
			timing_options = true;
			break;
		case OPT_CPU:
			status = parse_count("--cpu", optarg, CPU_SETSIZE - 1, &cpu);
			timing_options = true;
			break;
		case OPT_COMPARE: comparing = true; break;
		case OPT_FORMAT:
			if (bench_format_parse(optarg, &format)) {
				fprintf(stderr, "ptscope: bench: unknown format '%s' (text, json)\n", optarg);
				status = 1;
			}
			break;
		case 'o': output = optarg; break;
		case 'h':
			fputs(usage_text, stdout);
			command_options_print(stdout, options_table);
			return 0;
		default: return command_option_error("bench", usage_text, short_options, long_options, argv);
		}
	}
	if (!status && comparing && timing_options) {
		fputs("ptscope: bench: --compare reads posted timings; --runs and --cpu time nothing there\n", stderr);
		status = 1;
	}
	if (!status && comparing)
		return compare(argc - optind, argv + optind, output, format);
	bool selected[LATENCY_KIND_COUNT] = { false };
	if (status || select_kinds(argc - optind, argv + optind, selected))
		return 1;

	static struct bench_run run;
	struct error error;
	memset(&run, 0, sizeof(run));
	run.runs = (size_t)runs;
	run.warmup = run.runs / 10 > 2 ? run.runs / 10 : 2;
	run.image = "ptscope itself";
	latency_machine_read(&run.machine);
	if (latency_pin((int)cpu, &run.machine.cpu, &error) || measure(&run, selected, &error)) {
		error_print(&error);
		return (int)error.status;
	}
	struct bench_output what = { &run, NULL };
	return write_output(output, &what, format);
}
