/*
 * builtin/cmd_report.c - `ptscope report [SNAPSHOT|/proc] [--profile ID|FILE.xml]...
 *   [--per-process] [--per-file] [--format text|xml|json|csv|html] [-o FILE]`
 *
 * No snapshot means the live system.  --profile narrows the comparison to the
 * named designs and sharing rules (each kind separately: naming only rmap
 * designs keeps every sharing rule) or adds a user's XML file, whose profiles
 * are then all selected.  -o writes a temporary file beside FILE and renames
 * it, so a failed report never leaves a partial file.
 */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyzer/analyzer.h"
#include "base/error.h"
#include "builtin/commands.h"
#include "outputs/outputs.h"

#define MAX_SERIES 1024

/* The option table, OPT_NAME of each option without a letter and report_help:
 * made at build time from builtin/help/report.txt. */
#include "builtin/report_options.h"

/* What the command line asked for. */
struct report_request {
	struct report_job job;
	const char *output, *calibration_path;
	const char *versus_list[MAX_SERIES];
	size_t versus_count;
	bool format_given;
};

/* -o r.html writes HTML, as callgraph -o x.svg draws SVG; a name without an
 * extension is text, an extension no format has is refused (a report.svg
 * of text would mislead). */
static int format_from_path(const char *path, enum report_format *format)
{
	if (report_format_from_path(path, format) >= 0)
		return 0;
	fprintf(stderr, "ptscope: report: %s: unknown extension (.txt .json .xml .csv .html .prom, or give --format)\n",
		path);
	return 1;
}

/* COLUMNS, as a shell sets it for its terminal's width: prose of the text
 * report is wrapped there (0: not set or not a width, the default 100). */
static int columns_from_environment(void)
{
	const char *text = getenv("COLUMNS");
	char *end;
	long columns = text ? strtol(text, &end, 10) : 0;
	if (!text || !*text || *end || columns < 40 || columns > 1000)
		return 0;
	return (int)columns;
}

/* --path JOB (repeatable): a --path preset of callgraph; the default is
 * fork and exit, the jobs whose counts the report's fork section gives. */
static int add_path(const char *name, struct report_job *job)
{
	const struct analyzer_path *path = analyzer_path_named(name);
	if (!path)
		return command_unknown_word("report", "--path", name, &analyzer_paths[0].name, sizeof(analyzer_paths[0]));
	for (size_t i = 0; i < job->diagram_count; i++)
		if (job->diagrams[i].path == path)
			return 0;
	job->diagrams[job->diagram_count++] = (struct report_diagram){ .path = path };
	return 0;
}

static int parse_top(const char *text, struct report_options *report)
{
	long long n;
	if (!command_number(text, 1, (long long)(SIZE_MAX / 2), &n))
		return fprintf(stderr, "ptscope: report: --top wants a positive number, not '%s'\n", text), 1;
	report->top = (size_t)n;
	report->top_given = true;
	return 0;
}

static int parse_filter(const char *text, struct report_options *report)
{
	char reason[256];
	report->filter = text;
	if (report_filter_check(text, reason, sizeof(reason))) {
		fprintf(stderr, "ptscope: report: --filter '%s': %s\n", text, reason);
		return 1;
	}
	return 0;
}

static int add_versus(const char *path, struct report_request *r)
{
	r->job.versus = path;
	if (r->versus_count == MAX_SERIES) {
		fprintf(stderr, "ptscope: report: at most %d snapshots in a series\n", MAX_SERIES);
		return 1;
	}
	r->versus_list[r->versus_count++] = path;
	return 0;
}

static int select_profile(struct report_job *job, const char *argument)
{
	struct error error;
	if (!report_select_profile(&job->set, &job->chosen, argument, &error))
		return 0;
	error_print(&error);
	return (int)error.status;
}

/* A value that names one of a few words: 0, or 1 with the refusal said. */
static int parse_word(int option, const char *value, struct report_request *r)
{
	struct report_options *report = &r->job.report;
	if (option == OPT_SORT) {
		report->sort_given = true;
		if (!report_sort_parse(value, &report->sort))
			return 0;
		fprintf(stderr, "ptscope: report: unknown --sort field '%s' (%s)\n", value, report_sort_names());
	} else if (option == OPT_GROUP_BY) {
		if (!report_group_parse(value, &report->group_by))
			return 0;
		fprintf(stderr, "ptscope: report: unknown --group-by '%s' (user, cgroup, command)\n", value);
	} else {
		r->format_given = true;
		if (!report_format_parse(value, &report->format))
			return 0;
		fprintf(stderr, "ptscope: report: unknown format '%s' (text, xml, json, csv, html, openmetrics)\n", value);
	}
	return 1;
}

/* One option of the table (not --help): 0, or the exit status of a refusal. */
static int parse_option(int option, const char *value, void *request)
{
	struct report_request *r = request;
	struct report_job *job = &r->job;
	switch (option) {
	case OPT_PROFILE: return select_profile(job, value);
	case OPT_PER_PROCESS: job->report.per_process = true; return 0;
	case OPT_PER_FILE: job->report.per_file = true; return 0;
	case OPT_ALL_DESIGNS: job->report.all_designs = true; return 0;
	case OPT_BRIEF: job->report.brief = true; return 0;
	case OPT_VERSUS: return add_versus(value, r);
	case OPT_CALLGRAPH: job->callgraph = value; return 0;
	case OPT_PATH: return add_path(value, job);
	case OPT_CALIBRATION: r->calibration_path = value; return 0;
	case OPT_TOP: return parse_top(value, &job->report);
	case OPT_FILTER: return parse_filter(value, &job->report);
	case 'o': r->output = value; return 0;
	case OPT_SKIP_BAD: job->read.skip_bad = true; return 0;
	}
	return parse_word(option, value, r);
}

/* Options that cannot go together, said before anything is read. */
static int refuse_combinations(const struct report_job *job, const char *calibration_path)
{
	const struct report_options *report = &job->report;
	const char *refusal = NULL;
	if (report->format == REPORT_CSV && (report->per_process + report->per_file + (report->group_by != GROUP_NONE)) > 1)
		refusal = "CSV is one table: choose one of --per-process, --per-file, --group-by\n";
	else if (report->brief && (report->format != REPORT_TEXT || job->versus || report->per_process ||
				   report->per_file || report->group_by != GROUP_NONE))
		refusal = "--brief is the text answer alone (no --format, --versus, --per-process,\n"
			  "  --per-file or --group-by)\n";
	else if (job->callgraph && report->format != REPORT_HTML)
		refusal = "--callgraph embeds the diagram in --format html only\n";
	else if (job->diagram_count && !job->callgraph)
		refusal = "--path chooses the --callgraph diagrams: give --callgraph TREE\n";
	else if (calibration_path && (report->format == REPORT_METRICS || job->versus || report->brief))
		refusal = "--calibration adds a time section to the full report (no --versus, --brief or\n"
			  "  --format openmetrics)\n";
	if (refusal)
		fprintf(stderr, "ptscope: report: %s", refusal);
	return refusal ? 1 : 0;
}

/* After the options: the format from -o's name, the refusals, the default
 * diagrams, the calibration file read. */
static int settle_options(struct report_request *r)
{
	static struct calibration calibration;
	struct report_job *job = &r->job;
	struct error error;
	int status = 0;
	if (!r->format_given && r->output && strcmp(r->output, "-"))
		status = format_from_path(r->output, &job->report.format);
	job->report.width = columns_from_environment();
	if (!status)
		status = refuse_combinations(job, r->calibration_path);
	if (!status && job->callgraph && !job->diagram_count) {
		add_path("fork", job);
		add_path("exit", job);
	}
	if (!status && r->calibration_path && calibration_read(r->calibration_path, &calibration, &error)) {
		error_print(&error);
		status = (int)error.status;
	}
	job->calibration = r->calibration_path ? &calibration : NULL;
	job->report.calibration_path = r->calibration_path;   /* a series refuses them */
	job->report.callgraph_tree = job->callgraph;
	return status;
}

/* Two snapshots or more (positional, or --versus repeated): a series,
 * every one of them read, none dropped. */
static int report_series(struct report_request *r, int count, char **paths)
{
	const struct report_options *report = &r->job.report;
	struct error error;
	if (report->per_process || report->per_file || report->group_by != GROUP_NONE || report->brief ||
	    report->format == REPORT_METRICS || report->filter || r->calibration_path || r->job.callgraph) {
		fputs("ptscope: report: a series is one row per snapshot: no --per-process, --per-file, --group-by,\n"
		      "  --filter, --brief, --calibration, --callgraph or --format openmetrics\n", stderr);
		return 1;
	}
	if (r->versus_count + (size_t)count > MAX_SERIES) {
		fprintf(stderr, "ptscope: report: at most %d snapshots in a series\n", MAX_SERIES);
		return 1;
	}
	for (int i = 0; i < count; i++)
		r->versus_list[r->versus_count++] = paths[i];
	if (report_make_series(&r->job, r->versus_list, r->versus_count, &error)) {
		error_print(&error);
		return (int)error.status;
	}
	int status = report_write_path(r->output, NULL, report);
	report_series_free(&r->job);
	return status;
}

/* After the options: a series, or one snapshot (none: the live system)
 * with --versus's beside it. */
static int report(void *request, int count, char **operands)
{
	struct report_request *r = request;
	struct report_made made = { 0 };
	struct error error;
	int status = settle_options(r);
	if (!status && (count > 1 || r->versus_count > 1))
		return report_series(r, count, operands);
	if (!status && report_make(&r->job, count ? operands[0] : NULL, &made, &error)) {
		error_print(&error);
		status = (int)error.status;
	} else if (!status) {
		status = report_write_path(r->output, made.result, &r->job.report);
	}
	report_made_free(&r->job, &made);
	return status;
}

int cmd_report(int argc, char **argv)
{
	struct report_request r = { .job = { .report = { .format = REPORT_TEXT },
					     .read = { .progress = isatty(STDERR_FILENO), .skip_bad_offered = true } } };
	struct error error;
	if (profiles_load_builtin(&r.job.set, &error)) {
		error_print(&error);
		return STATUS_INTERNAL;   /* the built-in profiles are part of the program */
	}
	int status = command_run(&report_help, argc, argv, parse_option, report, &r);
	profiles_free(&r.job.set);
	return status;
}
