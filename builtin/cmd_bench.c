/*
 * builtin/cmd_bench.c - `ptscope bench [fork|exec|sh|fault|munmap]...
 *   [--runs N] [--cpu N] [--format text|json] [-o FILE]`, and
 *   `ptscope bench --compare BEFORE AFTER [BASE]` for timings as posted
 *
 * Times what the cost model counts, on the running kernel, as lmbench
 * does (inputs/latency.c): pinned to one CPU, warm-up runs first, then N
 * runs summed up as min / median / p90.  No word means every measurement.
 * The machine is shared and loaded: the figures are what it did, and no
 * test asserts them.
 */
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin/commands.h"
#include "outputs/outputs.h"

#define RUNS_DEFAULT 100
#define RUNS_MOST 1000000

/* The option table, OPT_NAME of each option without a letter and bench_help:
 * made at build time from builtin/help/bench.txt. */
#include "builtin/bench_options.h"

static const char *const words[] = { "fork", "exec", "sh", "fault", "munmap", "hugetlb" };
#define WORD_COUNT (sizeof(words) / sizeof(words[0]))

/* A count option's value: 1 (--cpu: 0) .. most. */
static int parse_count(const char *option, const char *text, long most, long *value)
{
	long long n, least = strcmp(option, "--cpu") ? 1 : 0;
	if (!command_number(text, least, most, &n)) {
		fprintf(stderr, "ptscope: bench: %s wants a number from %lld to %ld, not '%s'\n", option, least, most, text);
		return 1;
	}
	*value = (long)n;
	return 0;
}

/* The measurements the words select, in the table's order; none: every one
 * but hugetlb (it reserves 1 GiB of huge pages), which *hugetlb says. */
static int select_kinds(int count, char **given, bool *selected, bool *hugetlb)
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
			fprintf(stderr, " (fork, exec, sh, fault, munmap, hugetlb)\n");
			return 1;
		}
		if (!strcmp(words[w], "hugetlb"))
			*hugetlb = any = true;
		for (size_t k = 0; k < LATENCY_KIND_COUNT; k++)
			if (!strcmp(latency_kinds[k].group, words[w]))
				selected[k] = any = true;
	}
	for (size_t k = 0; !any && k < LATENCY_KIND_COUNT; k++)
		selected[k] = true;
	return 0;
}

/* The model's side of --compare: --model's ids, one per file, then every
 * process of --like's snapshot forking once under each, at the
 * calibration's costs.  0, or the exit status of a refusal (said). */
static int predict_change(struct compare_prediction *p, const char *like, const char *calibration_path,
			  const char *ids, int files)
{
	struct error error;
	int pid;
	bench_split_like(like, p->snapshot, sizeof(p->snapshot), &pid);
	snprintf(p->calibration, sizeof(p->calibration), "%s", calibration_path);
	size_t count = 0;
	for (const char *at = ids; *at && count < 3; count++) {
		size_t length = strcspn(at, ",");
		snprintf(p->ids[count], sizeof(p->ids[count]), "%.*s", (int)length, at);
		at += length + (at[length] == ',');
	}
	if ((int)count != files || strchr(ids, ',') == NULL || ids[strlen(ids) - 1] == ',') {
		fprintf(stderr, "ptscope: bench: --model wants one design or sharing rule per file (%d): '%s'\n", files, ids);
		return 1;
	}
	if (!bench_predict_change(p, count, &error))
		return 0;
	error_print(&error);
	return (int)error.status;
}

static int compare(int count, char **paths, const char *output, enum bench_format format,
		   struct compare_prediction *prediction)
{
	if (count < 2 || count > 3) {
		fprintf(stderr, "ptscope: bench: --compare wants BEFORE AFTER [BASE]: two or three files, not %d\n",
			count);
		return 1;
	}
	struct timing_set sets[3] = { { .measure_count = 0 } };
	struct timing_comparison comparison = { .paths = { paths[0], paths[1], count > 2 ? paths[2] : NULL },
						.prediction = prediction->wanted ? prediction : NULL };
	struct error error;
	int status = 0;
	if (bench_compare(count, paths, sets, &comparison, &error)) {
		error_print(&error);
		status = (int)error.status;
	} else {
		status = bench_write_path(output, NULL, &comparison, format);
	}
	timing_compare_free(&comparison);
	for (int i = 0; i < 3; i++)
		timing_set_free(&sets[i]);
	return status;
}

static int calibrate(bool quick, int cpu, const char *output, int words)
{
	if (!output) {
		fputs("ptscope: bench: --calibrate writes a file: -o CALIBRATION\n", stderr);
		return 1;
	}
	if (words) {
		fputs("ptscope: bench: --calibrate times its own layouts: no measurement words\n", stderr);
		return 1;
	}
	struct error error;
	static struct calibration calibration;
	int pinned;
	if (latency_pin(cpu, &pinned, &error) ||
	    calibration_run(&calibration, quick, pinned, isatty(STDERR_FILENO), &error)) {
		error_print(&error);
		return (int)error.status;
	}
	int status = calibration_write_path(output, &calibration);
	if (!status && strcmp(output, "-"))
		calibration_print(stdout, &calibration);
	return status;
}

/* What the command line asked for. */
struct bench_request {
	enum bench_format format;
	const char *output, *like, *calibration_path, *model;
	long runs, cpu;
	bool comparing, timing_options, calibrating, quick;
};

/* One option of the table (not --help): 0, or 1 with the refusal said. */
static int parse_option(int option, const char *value, void *request)
{
	struct bench_request *r = request;
	switch (option) {
	case OPT_RUNS: r->timing_options = true; return parse_count("--runs", value, RUNS_MOST, &r->runs);
	case OPT_CPU: r->timing_options = true; return parse_count("--cpu", value, CPU_SETSIZE - 1, &r->cpu);
	case OPT_COMPARE: r->comparing = true; return 0;
	case OPT_LIKE: r->like = value; return 0;
	case OPT_CALIBRATE: r->calibrating = true; return 0;
	case OPT_QUICK: r->quick = true; return 0;
	case OPT_CALIBRATION: r->calibration_path = value; return 0;
	case OPT_MODEL: r->model = value; return 0;
	case 'o': r->output = value; return 0;
	case OPT_FORMAT:
		if (!bench_format_parse(value, &r->format))
			return 0;
		fprintf(stderr, "ptscope: bench: unknown format '%s' (text, json)\n", value);
		return 1;
	}
	return 1;
}

/* --compare's options apart from the timing ones: 0, or 1 with the refusal said. */
static int refuse_combinations(const struct bench_request *r)
{
	if (r->comparing && r->timing_options)
		return fputs("ptscope: bench: --compare reads posted timings; --runs and --cpu time nothing there\n",
			     stderr), 1;
	if (r->comparing && (r->like || r->calibration_path || r->model) &&
	    !(r->like && r->calibration_path && r->model))
		return fputs("ptscope: bench: --compare's prediction wants --like SNAPSHOT, --calibration FILE and "
			     "--model B,A[,Z] together\n", stderr), 1;
	if (r->model && !r->comparing)
		return fputs("ptscope: bench: --model goes with --compare\n", stderr), 1;
	if (r->calibration_path && !r->comparing && !r->like)
		return fputs("ptscope: bench: --calibration goes with --like or --compare\n", stderr), 1;
	return 0;
}

/* --like times fork alone: 0, or 1 with the refusal said. */
static int refuse_like(const struct bench_request *r, const bool *selected, bool hugetlb, bool words_given)
{
	if (r->like && hugetlb)
		return fputs("ptscope: bench: --like times fork only, not hugetlb\n", stderr), 1;
	for (size_t k = 0; r->like && k < LATENCY_KIND_COUNT; k++)
		if (selected[k] && k != LATENCY_FORK && words_given) {
			fprintf(stderr, "ptscope: bench: --like times fork only, not %s\n", latency_kinds[k].name);
			return 1;
		}
	return 0;
}

/* The timings on this kernel, and the one writer. */
static int time_here(const struct bench_request *r, const bool *selected, bool hugetlb)
{
	static struct bench_run run;
	static struct calibration calibration;
	struct bench_job job = { .runs = (size_t)r->runs, .cpu = (int)r->cpu, .hugetlb = hugetlb, .like = r->like,
				 .calibration_path = r->calibration_path };
	struct error error;
	memcpy(job.selected, selected, sizeof(job.selected));
	if (r->calibration_path && calibration_read(r->calibration_path, &calibration, &error)) {
		error_print(&error);
		return (int)error.status;
	}
	job.calibration = r->calibration_path ? &calibration : NULL;
	if (bench_time(&job, &run, &error)) {
		error_print(&error);
		return (int)error.status;
	}
	return bench_write_path(r->output, &run, NULL, r->format);
}

/* After the options: a comparison, a calibration or timings here. */
static int bench(void *request, int files, char **operands)
{
	struct bench_request *r = request;
	static struct compare_prediction prediction;
	int status = refuse_combinations(r);
	if (!status && r->comparing && r->model && files >= 2 && files <= 3 &&
	    (status = predict_change(&prediction, r->like, r->calibration_path, r->model, files)))
		return status;
	if (!status && r->comparing)
		return compare(files, operands, r->output, r->format, &prediction);
	if (!status && (r->quick && !r->calibrating))
		status = (fputs("ptscope: bench: --quick goes with --calibrate\n", stderr), 1);
	if (!status && r->calibrating)
		return calibrate(r->quick, (int)r->cpu, r->output, files);
	bool selected[LATENCY_KIND_COUNT] = { false }, hugetlb = false;
	if (status || select_kinds(files, operands, selected, &hugetlb) || refuse_like(r, selected, hugetlb, files > 0))
		return 1;
	return time_here(r, selected, hugetlb);
}

int cmd_bench(int argc, char **argv)
{
	struct bench_request r = { .format = BENCH_TEXT, .runs = RUNS_DEFAULT, .cpu = -1 };
	return command_run(&bench_help, argc, argv, parse_option, bench, &r);
}
