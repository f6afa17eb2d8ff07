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
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyzer/analyzer.h"
#include "base/alloc.h"
#include "base/names.h"
#include "base/output.h"
#include "builtin/commands.h"
#include "inputs/snapshot.h"
#include "model/model.h"
#include "outputs/bench.h"
#include "outputs/report.h"

#include <json-c/json.h>

#define MAX_SELECTED 256
#define MAX_SERIES 1024

enum { OPT_PROFILE = 256, OPT_PER_PROCESS, OPT_PER_FILE, OPT_FORMAT, OPT_SKIP_BAD, OPT_ALL_DESIGNS, OPT_VERSUS,
       OPT_SORT, OPT_TOP, OPT_FILTER, OPT_GROUP_BY, OPT_CALLGRAPH, OPT_CALIBRATION, OPT_BRIEF, OPT_PATH };
static const struct command_option options_table[] = {
	{ "profile", required_argument, OPT_PROFILE, "ID|FILE.xml",
	  "compare only these designs / sharing rules (repeatable);\n"
	  "a file adds its profiles (see `ptscope profiles --schema`)" },
	{ "brief", no_argument, OPT_BRIEF, NULL,
	  "the answer alone for a mail: at most 80 columns, about 20 lines\n"
	  "(headline, page tables beside VmPTE, a design per family, the\n"
	  "sharing rules, the fork copies); the full text wraps at COLUMNS" },
	{ "per-process", no_argument, OPT_PER_PROCESS, NULL, "a row per process" },
	{ "per-file", no_argument, OPT_PER_FILE, NULL, "every file that contributes sharable pages" },
	{ "all-designs", no_argument, OPT_ALL_DESIGNS, NULL,
	  "text: the designs of every architecture, not only the snapshot's" },
	{ "format", required_argument, OPT_FORMAT, "F",
	  "text (default), xml, json, csv, html or openmetrics (Prometheus\n"
	  "text exposition, node_exporter's textfile collector)" },
	{ "output", required_argument, 'o', "FILE",
	  "write to FILE (atomically) instead of stdout; its extension\n"
	  "(.txt .json .xml .csv .html .prom) is the format unless --format is given" },
	{ "skip-bad", no_argument, OPT_SKIP_BAD, NULL, "drop a broken process of the snapshot instead of failing" },
	{ "sort", required_argument, OPT_SORT, "FIELD",
	  "process and group order: pagetables (default), vmpte, rss, pss,\n"
	  "sharable, pte_chain (largest first), pid, command" },
	{ "top", required_argument, OPT_TOP, "N", "N processes (text default 5; with it, every format keeps N)" },
	{ "filter", required_argument, OPT_FILTER, "REGEX",
	  "only processes whose command line matches (POSIX extended)" },
	{ "group-by", required_argument, OPT_GROUP_BY, "KEY",
	  "sums per user (captured uid), cgroup (PID/cgroup) or command" },
	{ "callgraph", required_argument, OPT_CALLGRAPH, "TREE",
	  "html: embed the rmap-path diagrams of kernel TREE with this report's\n"
	  "counts on them (ptscope callgraph --path JOB --overlay-events)" },
	{ "path", required_argument, OPT_PATH, "JOB",
	  "with --callgraph: the jobs drawn, fork, fault, exit, munmap or\n"
	  "reclaim (repeatable; default fork and exit)" },
	{ "calibration", required_argument, OPT_CALIBRATION, "FILE",
	  "a time section (every format): fork and exit, per process and in\n"
	  "total, today, under each rule and design, at `bench --calibrate` prices" },
	{ "versus", required_argument, OPT_VERSUS, "BEFORE",
	  "compare with the snapshot BEFORE: every total side by side with\n"
	  "the change; with --per-process / --per-file, processes matched\n"
	  "by command line then comm, files by path; repeated, a series" },
	{ "help", no_argument, 'h', NULL, "this text" },
	{ NULL, 0, 0, NULL, NULL },
};

const struct command_help report_help = {
	.command = "report",
	.usage = "usage: ptscope report [SNAPSHOT|/proc] [--profile ID|FILE.xml]... [--per-process] [--per-file]\n"
		 "                      [--format text|xml|json|csv|html|openmetrics] [-o FILE] [--all-designs]\n"
		 "                      [--versus BEFORE] [--sort FIELD] [--top N] [--filter REGEX] [--group-by KEY]\n"
		 "                      [--skip-bad] [--brief] [--calibration FILE] [--callgraph TREE [--path JOB]]\n"
		 "\n"
		 "Page-table and reverse-map cost of a snapshot (or of the live system when none is\n"
		 "given): page tables beside VmPTE, pte_chain and object-rmap memory under each kernel\n"
		 "design, and the page-table pages each sharing rule would share.\n"
		 "\n",
	.options = options_table,
	.epilogue = "\n"
		    "SNAP1 SNAP2 ... (two snapshots or more): a series, a row per snapshot in capture\n"
		    "order (page tables, VmPTE, rmap, huge pages, each rule); CSV in long form, HTML a chart.\n",
};

struct selection {
	char kind[MAX_SELECTED];        /* 'r' rmap design, 's' sharing rule */
	size_t index[MAX_SELECTED];
	size_t count;
};

static int select_profile(struct profile_set *set, struct selection *chosen, const char *argument)
{
	struct error error;
	size_t n = strlen(argument);
	bool is_file = strchr(argument, '/') || (n > 4 && !strcmp(argument + n - 4, ".xml"));
	if (!is_file) {
		const struct rmap_profile *p = profiles_find_rmap(set, argument);
		const struct sharing_rule *r = profiles_find_rule(set, argument);
		if (!p && !r) {
			fprintf(stderr, "ptscope: report: unknown profile '%s' (see `ptscope profiles`)\n", argument);
			return 1;
		}
		if (chosen->count == MAX_SELECTED)
			return 1;
		chosen->kind[chosen->count] = p ? 'r' : 's';
		chosen->index[chosen->count++] = p ? (size_t)(p - set->rmaps) : (size_t)(r - set->rules);
		return 0;
	}
	size_t rmaps = set->rmap_count, rules = set->rule_count;
	if (profiles_load_file(set, argument, &error)) {
		error_print(&error);
		return (int)error.status;
	}
	for (size_t i = rmaps; i < set->rmap_count && chosen->count < MAX_SELECTED; i++) {
		chosen->kind[chosen->count] = 'r';
		chosen->index[chosen->count++] = i;
	}
	for (size_t i = rules; i < set->rule_count && chosen->count < MAX_SELECTED; i++) {
		chosen->kind[chosen->count] = 's';
		chosen->index[chosen->count++] = i;
	}
	return 0;
}

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

/* Pointers into the set only once every file is loaded (loading moves it). */
static void resolve(const struct profile_set *set, const struct selection *chosen,
		    const struct rmap_profile **designs, const struct sharing_rule **rules,
		    struct model_options *options)
{
	for (size_t i = 0; i < chosen->count; i++) {
		if (chosen->kind[i] == 'r')
			designs[options->design_count++] = &set->rmaps[chosen->index[i]];
		else
			rules[options->rule_count++] = &set->rules[chosen->index[i]];
	}
	options->designs = options->design_count ? designs : NULL;
	options->rules = options->rule_count ? rules : NULL;
}

/* The file appears whole or not at all (base/output.h); stdout is checked
 * by the front door.  A file that cannot be written is an output failure. */
struct report_output {
	const struct model_result *result;
	const struct report_options *options;
};

static int write_report(FILE *out, const void *context)
{
	const struct report_output *what = context;
	return report_write(out, what->result, what->options);
}

static int write_output(const char *path, const struct model_result *result, const struct report_options *options)
{
	const struct report_output what = { result, options };
	return output_write_whole(path, write_report, &what);
}

/* --path JOB (repeatable): a --path preset of callgraph; the default is
 * fork and exit, the jobs whose counts the report's fork section gives. */
static int add_path(const char *name, struct report_diagram *diagrams, size_t *count)
{
	const struct analyzer_path *path = analyzer_path_named(name);
	if (!path)
		return command_unknown_word("report", "--path", name, &analyzer_paths[0].name, sizeof(analyzer_paths[0]));
	for (size_t i = 0; i < *count; i++)
		if (diagrams[i].path == path)
			return 0;
	diagrams[(*count)++] = (struct report_diagram){ .path = path };
	return 0;
}

/* --filter: the model of the matching processes alone, for the headlines
 * (*filtered stays NULL when none match); *subset is what it reads, freed
 * after it. */
static int filtered_model(const struct snapshot *snapshot, const struct model_options *options, const char *filter,
			  struct snapshot **subset, struct model_result **filtered)
{
	struct error error;
	bool *keep = xcalloc(snapshot->process_count + 1, sizeof(*keep));
	*subset = report_filter_keep(snapshot, filter, keep) ? snapshot_subset(snapshot, keep) : NULL;
	free(keep);
	if (*subset && model_run(*subset, options, filtered, &error)) {
		fprintf(stderr, "ptscope: %s: --filter: %s\n", snapshot->source, error.message);
		return (int)error.status;
	}
	return 0;
}

/* One snapshot of a series: read, modelled, its point kept, the rest freed. */
static int series_point(const char *path, const struct model_options *options, const struct read_options *read,
			struct json_object **point)
{
	struct snapshot *snapshot = NULL;
	struct model_result *result = NULL;
	struct error error;
	int status = 0;
	if (snapshot_read(path, read, &snapshot, &error)) {
		error_print(&error);
		status = (int)error.status;
	} else if (model_run(snapshot, options, &result, &error)) {
		fprintf(stderr, "ptscope: %s: %s\n", snapshot->source, error.message);
		status = (int)error.status;
	} else {
		*point = report_series_point(result);
	}
	model_free(result);
	snapshot_free(snapshot);
	return status;
}

static int run_series(const char **paths, size_t count, struct profile_set *set, struct selection *chosen,
		      struct report_options *report, const struct read_options *read, const char *output)
{
	if (report->per_process || report->per_file || report->group_by != GROUP_NONE || report->brief ||
	    report->format == REPORT_METRICS || report->filter || report->calibration_path || report->callgraph_tree) {
		fputs("ptscope: report: a series is one row per snapshot: no --per-process, --per-file, --group-by,\n"
		      "  --filter, --brief, --calibration, --callgraph or --format openmetrics\n", stderr);
		return 1;
	}
	const struct rmap_profile *designs[MAX_SELECTED];
	const struct sharing_rule *rules[MAX_SELECTED];
	struct model_options options = { .profiles = set, .top_files = 1 };
	resolve(set, chosen, designs, rules, &options);
	struct json_object *points[MAX_SERIES] = { NULL };
	int status = 0;
	for (size_t i = 0; i < count && !status; i++) {
		if (read->progress)
			fprintf(stderr, "\rreport: snapshot %zu of %zu", i + 1, count);
		status = series_point(paths[i], &options, read, &points[i]);
	}
	if (read->progress)
		fputc('\n', stderr);
	if (!status) {
		report->series = report_build_series(points, count);
		status = write_output(output, NULL, report);
		json_object_put(report->series);
	}
	for (size_t i = 0; i < count; i++)
		json_object_put(points[i]);
	return status;
}

/* What the command line asked for. */
struct report_request {
	struct report_options report;
	struct read_options read;
	struct profile_set set;
	struct selection chosen;
	const char *output, *versus, *callgraph, *calibration_path;
	const char *versus_list[MAX_SERIES];
	size_t versus_count;
	struct report_diagram diagrams[8];
	size_t diagram_count;
	bool format_given;
};

static int parse_top(const char *text, struct report_options *report)
{
	char *end;
	unsigned long long n = strtoull(text, &end, 10);
	int status = 0;
	if (!*text || *end || n == 0 || n > SIZE_MAX / 2 || text[0] == '-') {
		fprintf(stderr, "ptscope: report: --top wants a positive number, not '%s'\n", text);
		status = 1;
	}
	report->top = (size_t)n;
	report->top_given = true;
	return status;
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
	r->versus = path;
	if (r->versus_count == MAX_SERIES) {
		fprintf(stderr, "ptscope: report: at most %d snapshots in a series\n", MAX_SERIES);
		return 1;
	}
	r->versus_list[r->versus_count++] = path;
	return 0;
}

/* One option of the table (not --help): 0, or the exit status of a refusal. */
static int parse_option(int option, const char *value, void *request)
{
	struct report_request *r = request;
	struct report_options *report = &r->report;
	switch (option) {
	case OPT_PROFILE: return select_profile(&r->set, &r->chosen, value);
	case OPT_PER_PROCESS: report->per_process = true; return 0;
	case OPT_PER_FILE: report->per_file = true; return 0;
	case OPT_ALL_DESIGNS: report->all_designs = true; return 0;
	case OPT_BRIEF: report->brief = true; return 0;
	case OPT_VERSUS: return add_versus(value, r);
	case OPT_CALLGRAPH: r->callgraph = value; return 0;
	case OPT_PATH: return add_path(value, r->diagrams, &r->diagram_count);
	case OPT_CALIBRATION: r->calibration_path = value; return 0;
	case OPT_TOP: return parse_top(value, report);
	case OPT_FILTER: return parse_filter(value, report);
	case 'o': r->output = value; return 0;
	case OPT_SKIP_BAD: r->read.skip_bad = true; return 0;
	case OPT_SORT:
		report->sort_given = true;
		if (!report_sort_parse(value, &report->sort))
			return 0;
		fprintf(stderr, "ptscope: report: unknown --sort field '%s' (%s)\n", value, report_sort_names());
		return 1;
	case OPT_GROUP_BY:
		if (!report_group_parse(value, &report->group_by))
			return 0;
		fprintf(stderr, "ptscope: report: unknown --group-by '%s' (user, cgroup, command)\n", value);
		return 1;
	case OPT_FORMAT:
		r->format_given = true;
		if (!report_format_parse(value, &report->format))
			return 0;
		fprintf(stderr, "ptscope: report: unknown format '%s' (text, xml, json, csv, html, openmetrics)\n", value);
		return 1;
	}
	return 1;
}

/* Options that cannot go together, said before anything is read. */
static int refuse_combinations(const struct report_request *r)
{
	const struct report_options *report = &r->report;
	const char *refusal = NULL;
	if (report->format == REPORT_CSV && (report->per_process + report->per_file + (report->group_by != GROUP_NONE)) > 1)
		refusal = "CSV is one table: choose one of --per-process, --per-file, --group-by\n";
	else if (report->brief && (report->format != REPORT_TEXT || r->versus || report->per_process ||
				   report->per_file || report->group_by != GROUP_NONE))
		refusal = "--brief is the text answer alone (no --format, --versus, --per-process,\n"
			  "  --per-file or --group-by)\n";
	else if (r->callgraph && report->format != REPORT_HTML)
		refusal = "--callgraph embeds the diagram in --format html only\n";
	else if (r->diagram_count && !r->callgraph)
		refusal = "--path chooses the --callgraph diagrams: give --callgraph TREE\n";
	else if (r->calibration_path && (report->format == REPORT_METRICS || r->versus || report->brief))
		refusal = "--calibration adds a time section to the full report (no --versus, --brief or\n"
			  "  --format openmetrics)\n";
	if (refusal)
		fprintf(stderr, "ptscope: report: %s", refusal);
	return refusal ? 1 : 0;
}

/* After the options: the format from -o's name, the refusals, the default
 * diagrams, the calibration file read. */
static int settle_options(struct report_request *r, struct calibration *calibration)
{
	struct error error;
	int status = 0;
	if (!r->format_given && r->output && strcmp(r->output, "-"))
		status = format_from_path(r->output, &r->report.format);
	r->report.width = columns_from_environment();
	if (!status)
		status = refuse_combinations(r);
	if (!status && r->callgraph && !r->diagram_count) {
		add_path("fork", r->diagrams, &r->diagram_count);
		add_path("exit", r->diagrams, &r->diagram_count);
	}
	if (!status && r->calibration_path && calibration_read(r->calibration_path, calibration, &error)) {
		error_print(&error);
		status = (int)error.status;
	}
	r->report.calibration_path = r->calibration_path;   /* a series refuses them */
	r->report.callgraph_tree = r->callgraph;
	return status;
}

/* Two snapshots or more (positional, or --versus repeated): a series,
 * every one of them read, none dropped. */
static int report_series(struct report_request *r, int count, char **paths)
{
	if (r->versus_count + (size_t)count > MAX_SERIES) {
		fprintf(stderr, "ptscope: report: at most %d snapshots in a series\n", MAX_SERIES);
		return 1;
	}
	for (int i = 0; i < count; i++)
		r->versus_list[r->versus_count++] = paths[i];
	return run_series(r->versus_list, r->versus_count, &r->set, &r->chosen, &r->report, &r->read, r->output);
}

/* Said before the work starts, not found out after minutes. */
static int refuse_unfitting(const struct snapshot *snapshot, const struct snapshot *baseline,
			    const struct model_options *options)
{
	uint64_t need = model_memory_bytes(snapshot, options) + (baseline ? model_memory_bytes(baseline, options) : 0);
	uint64_t available = memory_available_bytes();
	if (need <= available)
		return 0;
	fprintf(stderr, "ptscope: %s: does not fit in memory: the cost model needs up to %" PRIu64
		" MiB beyond the snapshot, %" PRIu64 " MiB are available\n", snapshot->source, need >> 20,
		available >> 20);
	return 1;
}

/* The model of the snapshot (and of --versus's), the diagrams, the one writer. */
static int model_and_write(struct report_request *r, const struct snapshot *snapshot, const struct snapshot *baseline,
			   const struct calibration *calibration)
{
	const struct rmap_profile *designs[MAX_SELECTED];
	const struct sharing_rule *rules[MAX_SELECTED];
	struct model_options options = { .profiles = &r->set, .top_files = r->report.per_file ? SIZE_MAX : 10 };
	struct model_result *result = NULL, *before = NULL, *filtered = NULL;
	struct snapshot *subset = NULL;
	struct report_options *report = &r->report;
	struct error error;
	int status = 0;
	resolve(&r->set, &r->chosen, designs, rules, &options);
	/* designs named on the command line are shown whatever their architecture */
	report->all_designs |= options.design_count > 0;
	if (refuse_unfitting(snapshot, baseline, &options)) {
		status = 1;
	} else if (model_run(snapshot, &options, &result, &error) ||
		   (baseline && model_run(baseline, &options, &before, &error))) {
		fprintf(stderr, "ptscope: %s: %s\n", (result ? baseline : snapshot)->source, error.message);
		status = (int)error.status;   /* model/model.c says whose failure it is */
	} else if (report->filter && !baseline &&
		   (status = filtered_model(snapshot, &options, report->filter, &subset, &filtered))) {
		/* said */
	} else if (r->callgraph && report_callgraph_draw(r->callgraph, r->diagrams, r->diagram_count, result,
							 r->read.progress, &error)) {
		error_print(&error);
		status = (int)error.status;
	} else {
		report->versus = before;
		report->filtered = filtered;
		report->headline_filtered = report->filter && !baseline;
		report->diagrams = r->diagrams;
		report->diagram_count = r->callgraph ? r->diagram_count : 0;
		report->calibration = r->calibration_path ? calibration : NULL;
		status = write_output(r->output, result, report);
	}
	for (size_t i = 0; i < r->diagram_count; i++)
		free(r->diagrams[i].svg);
	model_free(result);
	model_free(before);
	model_free(filtered);
	snapshot_subset_free(subset);
	return status;
}

/* One snapshot (NULL: the live system), with --versus's beside it. */
static int report_one(struct report_request *r, const char *path, const struct calibration *calibration)
{
	struct snapshot *snapshot = NULL, *baseline = NULL;
	struct error error;
	int status = 0;
	uint64_t available = memory_available_bytes();
	r->read.memory_budget_bytes = available == UINT64_MAX ? 0 : available;
	if (snapshot_read(path, &r->read, &snapshot, &error) ||
	    (r->versus && snapshot_read(r->versus, &r->read, &baseline, &error))) {
		error_print(&error);
		status = (int)error.status;
	} else {
		status = model_and_write(r, snapshot, baseline, calibration);
	}
	snapshot_free(baseline);
	snapshot_free(snapshot);
	return status;
}

/* After the options: a series, or one snapshot (none: the live system). */
static int report(void *request, int count, char **operands)
{
	struct report_request *r = request;
	static struct calibration calibration;
	int status = settle_options(r, &calibration);
	if (!status && (count > 1 || r->versus_count > 1))
		status = report_series(r, count, operands);
	else if (!status)
		status = report_one(r, count ? operands[0] : NULL, &calibration);
	return status;
}

int cmd_report(int argc, char **argv)
{
	struct report_request r = { .report = { .format = REPORT_TEXT }, .read = { .progress = isatty(STDERR_FILENO) } };
	struct error error;
	if (profiles_load_builtin(&r.set, &error)) {
		error_print(&error);
		return STATUS_INTERNAL;   /* the built-in profiles are part of the program */
	}
	int status = command_run(&report_help, argc, argv, parse_option, report, &r);
	profiles_free(&r.set);
	return status;
}
