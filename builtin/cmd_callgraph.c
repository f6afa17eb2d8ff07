/*
 * builtin/cmd_callgraph.c - `ptscope callgraph`: which mm code paths reach
 * the rmap, from real kernel source (analyzer/), drawn or written as data
 * (outputs/graph*.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/alloc.h"
#include "builtin/commands.h"
#include "outputs/outputs.h"

/* What the command line asked for: the job and the writer's choices. */
struct arguments {
	struct callgraph_job job;
	const char **entries, **sinks, **files, **excludes;
	const char *output;
	const char *format_name;
	enum graph_page page;
	bool unresolved;            /* list the unresolved pointer calls instead of the graph */
	const char *reverse;        /* --reverse: print this function's callers instead */
};

static void push(const char ***list, size_t *count, const char *value)
{
	*list = xreallocarray(*list, *count + 1, sizeof(char *));
	(*list)[(*count)++] = value;
}

/* The option table, OPT_NAME of each option without a letter and callgraph_help:
 * made at build time from builtin/help/callgraph.txt. */
#include "builtin/callgraph_options.h"

/* A value option that names a word of a table: 0, or 1 with the refusal said. */
static int parse_word(int option, const char *value, struct arguments *a)
{
	switch (option) {
	case OPT_COMPARE:
		for (a->job.overlay.compare = OVERLAY_COMPARE_SHARES; overlay_compare_names[a->job.overlay.compare] &&
		     strcmp(overlay_compare_names[a->job.overlay.compare], value); a->job.overlay.compare++)
			;
		if (!overlay_compare_names[a->job.overlay.compare])
			return command_unknown_word("callgraph", "--compare", value, &overlay_compare_names[1], sizeof(char *));
		return 0;
	case OPT_PATH:
		if (!(a->job.path = analyzer_path_named(value)))
			return command_unknown_word("callgraph", "--path", value, &analyzer_paths[0].name, sizeof(analyzer_paths[0]));
		return 0;
	case OPT_PAGE:
		if ((a->page = graph_page_from_name(value)) == GRAPH_PAGE_DEFAULT)
			return command_unknown_word("callgraph", "--page", value, &graph_pages[0].name, sizeof(graph_pages[0]));
		return 0;
	}
	/* --depth, --jobs */
	long long n;
	if (command_number(value, 1, 1000000, &n)) {
		*(option == 'j' ? &a->job.options.jobs : &a->job.options.depth) = (int)n;
		return 0;
	}
	fprintf(stderr, "ptscope: callgraph: %s: '%s' is not a positive number\n", option == 'j' ? "--jobs" : "--depth",
		value);
	return 1;
}

/* One option of the table (not --help): 0, or 1 with the refusal said. */
static int parse_option(int option, const char *value, void *request)
{
	struct arguments *a = request;
	struct analyzer_options *o = &a->job.options;
	switch (option) {
	case OPT_ENTRY: push(&a->entries, &o->entry_count, value); break;
	case OPT_SINK: push(&a->sinks, &o->sink_count, value); break;
	case OPT_FILE: push(&a->files, &o->file_count, value); break;
	case OPT_ALL: o->all = true; break;
	case OPT_SHORTEST: o->shortest = true; break;
	case OPT_EXCLUDE: push(&a->excludes, &o->exclude_count, value); break;
	case OPT_ONLY_GIVEN: o->no_default_entries = o->no_default_sinks = true; break;
	case OPT_NO_CACHE: o->use_cache = false; break;
	case OPT_CACHE_DIR: o->cache_dir = value; break;
	case OPT_CONFIG: o->config = value; break;
	case OPT_LIBCLANG: o->libclang = value; break;
	case OPT_FORMAT: a->format_name = value; break;
	case OPT_WRITE_COMMANDS: o->commands_out = value; break;
	case 'o': a->output = value; break;
	case OPT_OVERLAY_EVENTS: a->job.overlay.snapshot = value; break;
	case OPT_DESIGN: a->job.overlay.design = value; break;
	case OPT_OVERLAY_PROFILE: a->job.overlay.profile = value; break;
	case OPT_VERSUS: a->job.versus = value; break;
	case OPT_BASELINE_PROFILE: a->job.overlay.baseline_profile = value; break;
	case OPT_NO_RENAMES: a->job.overlay.by_name = true; break;
	case OPT_UNRESOLVED: a->unresolved = true; break;
	case 'q': a->job.quiet = true; break;
	case OPT_REVERSE:
		/* the one sink, in the whole graph: every caller, not only
		 * those an entry reaches */
		a->reverse = value;
		push(&a->sinks, &o->sink_count, value);
		o->no_default_sinks = o->all = true;
		break;
	default: return parse_word(option, value, a);
	}
	return 0;
}

/* Options that cannot go together: 0, or 1 with the refusal said. */
static int refuse_combinations(const struct arguments *a)
{
	if (a->reverse && (a->unresolved || a->job.path || (a->format_name && strcmp(a->format_name, "tree")) ||
			   a->job.overlay.snapshot || a->job.overlay.profile || a->job.versus)) {
		fprintf(stderr, "ptscope: callgraph: --reverse writes callers as text: not with --format other "
			"than tree, --path, --unresolved, --versus or an overlay\n");
		return 1;
	}
	if (a->format_name && !strcmp(a->format_name, "table") && !a->job.overlay.profile) {
		fprintf(stderr, "ptscope: callgraph: --format table lists profiles: give --overlay-profile "
			"(and --baseline-profile)\n");
		return 1;
	}
	if (a->job.overlay.baseline_profile && !a->job.overlay.profile) {
		fprintf(stderr, "ptscope: callgraph: --baseline-profile needs --overlay-profile (the AFTER profile)\n");
		return 1;
	}
	if ((a->job.overlay.compare != OVERLAY_COMPARE_AUTO || a->job.overlay.by_name) && !a->job.overlay.baseline_profile) {
		fprintf(stderr, "ptscope: callgraph: %s needs two profiles: --overlay-profile and "
			"--baseline-profile\n", a->job.overlay.by_name ? "--no-renames" : "--compare");
		return 1;
	}
	return 0;
}

/* After the options: what the analyzer is given. */
static void settle_options(struct arguments *a)
{
	struct analyzer_options *o = &a->job.options;
	/* the names typed, before a preset's own: those must name something */
	o->checked_entries = o->entry_count;
	o->checked_sinks = o->sink_count;
	o->checked_excludes = o->exclude_count;
	if (a->job.path) {
		/* the preset's entries, sinks and side paths, beside any given */
		o->no_default_entries = o->no_default_sinks = true;
		for (const char *const *e = a->job.path->entries; *e; e++)
			push(&a->entries, &o->entry_count, *e);
		for (const char *const *e = a->job.path->sinks; *e; e++)
			push(&a->sinks, &o->sink_count, *e);
		for (const char *const *e = a->job.path->excludes; *e; e++)
			push(&a->excludes, &o->exclude_count, *e);
	}
	o->entries = a->entries;
	o->sinks = a->sinks;
	o->files = a->files;
	o->excludes = a->excludes;
}

/* After the options: the one SOURCE, what --versus is, the refusals. */
static int settle_source(struct arguments *a, int count, char **operands)
{
	if (count != 1) {
		fprintf(stderr, "ptscope: callgraph: %s\n", count < 1 ? "no SOURCE given" : "more than one SOURCE given");
		command_help_print(stderr, &callgraph_help);
		return 1;
	}
	a->job.options.source = operands[0];
	/* --versus is the old tree when it is a folder; a file with
	 * --overlay-profile is the BEFORE profile, as it always was */
	struct stat st;
	if (a->job.versus && a->job.overlay.profile && !a->job.overlay.baseline_profile &&
	    !(stat(a->job.versus, &st) == 0 && S_ISDIR(st.st_mode))) {
		a->job.overlay.baseline_profile = a->job.versus;
		a->job.versus = NULL;
	}
	if (refuse_combinations(a))
		return 1;
	settle_options(a);
	return 0;
}

static enum graph_format choose_format(const struct arguments *a)
{
	if (a->format_name) {
		enum graph_format format = graph_format_from_name(a->format_name);
		if (format == GRAPH_FORMAT_NONE)
			fprintf(stderr, "ptscope: callgraph: --format: unknown format '%s' "
				"(tree, table, json, xml, dot, svg, png, pdf)\n", a->format_name);
		return format;
	}
	if (!a->output || !strcmp(a->output, "-"))
		return GRAPH_FORMAT_DOT;
	enum graph_format format = graph_format_from_path(a->output);
	if (format == GRAPH_FORMAT_NONE)
		fprintf(stderr, "ptscope: callgraph: %s: unknown extension "
			"(.svg .png .pdf .dot .json .xml .txt, or give --format)\n", a->output);
	return format;
}

/* The analysis, then the one writer: the graph, or the callers or the
 * unresolved calls as text. */
static int run(struct arguments *a, enum graph_format format)
{
	struct callgraph_made made;
	struct error error;
	a->job.options.progress = a->job.overlay.progress = !a->job.quiet && isatty(STDERR_FILENO);
	int status = callgraph_make(&a->job, &made, &error);
	if (!status && a->unresolved)
		status = callgraph_write_unresolved(made.graph, a->output, &error);
	else if (!status && a->reverse)
		status = callgraph_write_callers(made.graph, a->output, &error);
	else if (!status)
		status = graph_write(made.drawn, made.overlaid ? &made.overlay : NULL, format, a->page, a->output, &error);
	if (status) {
		error_print(&error);
		status = (int)error.status;
	}
	callgraph_made_free(&made);
	return status;
}

static int callgraph(void *request, int count, char **operands)
{
	struct arguments *a = request;
	int status = settle_source(a, count, operands);
	enum graph_format format = GRAPH_FORMAT_NONE;
	if (status == 0 && !a->unresolved && !a->reverse && (format = choose_format(a)) == GRAPH_FORMAT_NONE)
		status = 1;
	/* PNG and PDF bytes would garble a terminal: refused before any parsing */
	if (status == 0 && (format == GRAPH_FORMAT_PNG || format == GRAPH_FORMAT_PDF) &&
	    (!a->output || !strcmp(a->output, "-")) && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "ptscope: callgraph: --format %s is binary: give -o FILE or redirect stdout\n",
			format == GRAPH_FORMAT_PNG ? "png" : "pdf");
		status = 1;
	}
	return status ? status : run(a, format);
}

int cmd_callgraph(int argc, char **argv)
{
	struct arguments a = { .job = { .options = { .use_cache = true } } };
	int status = command_run(&callgraph_help, argc, argv, parse_option, callgraph, &a);
	free(a.entries);
	free(a.sinks);
	free(a.files);
	free(a.excludes);
	return status;
}
