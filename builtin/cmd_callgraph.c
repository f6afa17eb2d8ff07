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

#include "base/escape.h"
#include "base/output.h"
#include "base/alloc.h"
#include "builtin/commands.h"
#include "inputs/snapshot.h"
#include "model/model.h"
#include "outputs/outputs.h"

struct arguments {
	struct analyzer_options options;
	const char **entries, **sinks, **files, **excludes;
	const char *output;
	const char *format_name;
	const char *overlay_snapshot, *design, *overlay_profile, *versus, *baseline_profile;
	enum overlay_compare compare;
	bool by_name;               /* --no-renames */
	const struct analyzer_path *path;       /* --path preset */
	enum graph_page page;
	bool quiet;
	bool unresolved;            /* list the unresolved pointer calls instead of the graph */
	const char *reverse;        /* --reverse: print this function's callers instead */
};

static void push(const char ***list, size_t *count, const char *value)
{
	*list = xreallocarray(*list, *count + 1, sizeof(char *));
	(*list)[(*count)++] = value;
}

static bool positive_number(const char *text, int *value)
{
	char *end;
	long number = strtol(text, &end, 10);
	if (end == text || *end || number <= 0 || number > 1000000)
		return false;
	*value = (int)number;
	return true;
}

enum { OPT_ENTRY = 256, OPT_SINK, OPT_FILE, OPT_DEPTH, OPT_ALL, OPT_NO_CACHE,
       OPT_CACHE_DIR, OPT_CONFIG, OPT_FORMAT, OPT_WRITE_COMMANDS, OPT_ONLY_GIVEN, OPT_SHORTEST, OPT_EXCLUDE,
       OPT_OVERLAY_EVENTS, OPT_DESIGN, OPT_OVERLAY_PROFILE, OPT_VERSUS, OPT_PATH, OPT_PAGE, OPT_UNRESOLVED,
       OPT_LIBCLANG, OPT_BASELINE_PROFILE, OPT_COMPARE, OPT_REVERSE, OPT_NO_RENAMES };

static const struct command_option options_table[] = {
	{ "entry", required_argument, OPT_ENTRY, "NAME",
	  "add an entry point (name or fnmatch pattern); repeatable" },
	{ "sink", required_argument, OPT_SINK, "NAME|FILE",
	  "add sinks: a function name/pattern, or every function\n"
	  "defined in a file (contains '/' or ends in .c/.h)" },
	{ "exclude", required_argument, OPT_EXCLUDE, "NAME|FILE",
	  "no path may go through these functions (a name,\n"
	  "pattern or file, e.g. mm/page_alloc.c); repeatable" },
	{ "only-given", no_argument, OPT_ONLY_GIVEN, NULL,
	  "no default entries or sinks: only --entry and --sink" },
	{ "file", required_argument, OPT_FILE, "FILE",
	  "parse this file too (relative to the tree); repeatable" },
	{ "path", required_argument, OPT_PATH, "JOB",
	  "one job's rmap paths, small enough to read: fork, fault,\n"
	  "exit, munmap or reclaim (says on stderr what it pruned)" },
	{ "depth", required_argument, OPT_DEPTH, "N",
	  "keep only entry-to-sink paths of at most N calls" },
	{ "shortest", no_argument, OPT_SHORTEST, NULL,
	  "keep one shortest path from each entry to each sink it\n"
	  "reaches (legible pictures)" },
	{ "all", no_argument, OPT_ALL, NULL,
	  "keep the whole call graph (roles still marked)" },
	{ "jobs", required_argument, 'j', "N",
	  "parser threads (default: online cores)" },
	{ "no-cache", no_argument, OPT_NO_CACHE, NULL,
	  "neither read nor write the per-file cache" },
	{ "cache-dir", required_argument, OPT_CACHE_DIR, "DIR",
	  "cache folder (default $XDG_CACHE_HOME/ptscope)" },
	{ "config", required_argument, OPT_CONFIG, "FILE",
	  "kernel .config (plain or compressed) to parse with" },
	{ "libclang", required_argument, OPT_LIBCLANG, "N|FILE",
	  "the libclang to use: a version (14 to 19) or a library file\n"
	  "(default: $PTSCOPE_LIBCLANG, else the newest installed)" },
	{ "format", required_argument, OPT_FORMAT, "FORMAT",
	  "tree (cflow-style text with file:line, overlay figures as\n"
	  "a column), table (two profiles as perf diff does), json,\n"
	  "xml, dot, svg, png or pdf (default: from -o, else dot);\n"
	  "png and pdf are not written to a terminal" },
	{ "page", required_argument, OPT_PAGE, "SIZE",
	  "lay png/pdf out for an a4 or letter page or a 1920-pixel\n"
	  "screen (default: pdf a4, png screen)" },
	{ "output", required_argument, 'o', "FILE",
	  "write here (.svg .png .pdf .dot .json .xml .txt); default stdout" },
	{ "write-commands", required_argument, OPT_WRITE_COMMANDS, "FILE",
	  "also write the files and flags as compile_commands.json" },
	{ "overlay-events", required_argument, OPT_OVERLAY_EVENTS, "SNAPSHOT",
	  "write on the rmap functions, and on the calls into\n"
	  "them, what every process of SNAPSHOT forking, exiting\n"
	  "and unmapping its VMAs once, faulting every page in once\n"
	  "and reclaiming every page once would cost (the cost\n"
	  "model's counts); untouched rmap functions are grey,\n"
	  "unpriced ones dotted" },
	{ "design", required_argument, OPT_DESIGN, "ID",
	  "with --overlay-events: the kernel profile to count with\n"
	  "(default: the design of the tree's era)" },
	{ "overlay-profile", required_argument, OPT_OVERLAY_PROFILE, "FILE",
	  "shade functions by their share of a kernel profile\n"
	  "(perf report --stdio [--children], opreport -l, oprofile,\n"
	  "readprofile or 'samples symbol' text); call chains of\n"
	  "perf script or perf report --no-children -g weight calls" },
	{ "versus", required_argument, OPT_VERSUS, "BEFORE",
	  "an older kernel tree (a folder): both trees' rmap paths in\n"
	  "one graph, the functions and calls only one of them has\n"
	  "coloured; or, a file with --overlay-profile, the BEFORE\n"
	  "profile (as --baseline-profile)" },
	{ "baseline-profile", required_argument, OPT_BASELINE_PROFILE, "FILE",
	  "with --overlay-profile: colour the change from this\n"
	  "BEFORE profile (placed on the --versus tree when given)" },
	{ "compare", required_argument, OPT_COMPARE, "WHAT",
	  "counts or shares: how the two profiles are compared\n"
	  "(default: counts when neither listing has a total, else\n"
	  "shares of all samples); the legend says which" },
	{ "no-renames", no_argument, OPT_NO_RENAMES, NULL,
	  "with two profiles: compare name by name, never joining the\n"
	  "names the era rename table gives one piece of work\n"
	  "(2.4's zap_page_range, 2.5's zap_pte_range)" },
	{ "reverse", required_argument, OPT_REVERSE, "NAME",
	  "instead of the graph, who calls NAME (a function or\n"
	  "pattern) and who calls those, as indented text (cflow -r)" },
	{ "unresolved", no_argument, OPT_UNRESOLVED, NULL,
	  "instead of the graph, list the calls through function-\n"
	  "pointer fields no parsed file stores a function in\n"
	  "(FILE:LINE: CALLER calls through struct.field)" },
	{ "quiet", no_argument, 'q', NULL,
	  "no summary on stderr" },
	{ "help", no_argument, 'h', NULL,
	  "this text" },
	{ NULL, 0, 0, NULL, NULL },
};

const struct command_help callgraph_help = {
	.command = "callgraph",
	.usage = "usage: ptscope callgraph SOURCE_DIR|compile_commands.json [OPTIONS]\n"
		 "\n"
		 "Call graph of the kernel mm code paths that reach the reverse map (rmap).\n"
		 "A tree is parsed tolerantly with libclang: mm/*.c as kbuild builds them,\n"
		 "kernel/fork.c, kernel/exit.c and the arch page-fault handler.\n"
		 "\n",
	.options = options_table,
	.epilogue = "\n"
		    "Default entries: fork, page-fault, exit, munmap, mremap, exec and reclaim\n"
		    "entry points of every era; default sinks: functions of mm/rmap.c and\n"
		    "include/linux/rmap.h.\n",
};

/* A value option that names a word of a table: 0, or 1 with the refusal said. */
static int parse_word(int option, const char *value, struct arguments *a)
{
	switch (option) {
	case OPT_COMPARE:
		for (a->compare = OVERLAY_COMPARE_SHARES; overlay_compare_names[a->compare] &&
		     strcmp(overlay_compare_names[a->compare], value); a->compare++)
			;
		if (!overlay_compare_names[a->compare])
			return command_unknown_word("callgraph", "--compare", value, &overlay_compare_names[1], sizeof(char *));
		return 0;
	case OPT_PATH:
		if (!(a->path = analyzer_path_named(value)))
			return command_unknown_word("callgraph", "--path", value, &analyzer_paths[0].name, sizeof(analyzer_paths[0]));
		return 0;
	case OPT_PAGE:
		if ((a->page = graph_page_from_name(value)) == GRAPH_PAGE_DEFAULT)
			return command_unknown_word("callgraph", "--page", value, &graph_pages[0].name, sizeof(graph_pages[0]));
		return 0;
	}
	/* --depth, --jobs */
	if (positive_number(value, option == 'j' ? &a->options.jobs : &a->options.depth))
		return 0;
	fprintf(stderr, "ptscope: callgraph: %s: '%s' is not a positive number\n", option == 'j' ? "--jobs" : "--depth",
		value);
	return 1;
}

/* One option of the table (not --help): 0, or 1 with the refusal said. */
static int parse_option(int option, const char *value, void *request)
{
	struct arguments *a = request;
	struct analyzer_options *o = &a->options;
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
	case OPT_OVERLAY_EVENTS: a->overlay_snapshot = value; break;
	case OPT_DESIGN: a->design = value; break;
	case OPT_OVERLAY_PROFILE: a->overlay_profile = value; break;
	case OPT_VERSUS: a->versus = value; break;
	case OPT_BASELINE_PROFILE: a->baseline_profile = value; break;
	case OPT_NO_RENAMES: a->by_name = true; break;
	case OPT_UNRESOLVED: a->unresolved = true; break;
	case 'q': a->quiet = true; break;
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
	if (a->reverse && (a->unresolved || a->path || (a->format_name && strcmp(a->format_name, "tree")) ||
			   a->overlay_snapshot || a->overlay_profile || a->versus)) {
		fprintf(stderr, "ptscope: callgraph: --reverse writes callers as text: not with --format other "
			"than tree, --path, --unresolved, --versus or an overlay\n");
		return 1;
	}
	if (a->format_name && !strcmp(a->format_name, "table") && !a->overlay_profile) {
		fprintf(stderr, "ptscope: callgraph: --format table lists profiles: give --overlay-profile "
			"(and --baseline-profile)\n");
		return 1;
	}
	if (a->baseline_profile && !a->overlay_profile) {
		fprintf(stderr, "ptscope: callgraph: --baseline-profile needs --overlay-profile (the AFTER profile)\n");
		return 1;
	}
	if ((a->compare != OVERLAY_COMPARE_AUTO || a->by_name) && !a->baseline_profile) {
		fprintf(stderr, "ptscope: callgraph: %s needs two profiles: --overlay-profile and "
			"--baseline-profile\n", a->by_name ? "--no-renames" : "--compare");
		return 1;
	}
	return 0;
}

/* After the options: what the analyzer is given. */
static void settle_options(struct arguments *a)
{
	struct analyzer_options *o = &a->options;
	/* the names typed, before a preset's own: those must name something */
	o->checked_entries = o->entry_count;
	o->checked_sinks = o->sink_count;
	o->checked_excludes = o->exclude_count;
	if (a->path) {
		/* the preset's entries, sinks and side paths, beside any given */
		o->no_default_entries = o->no_default_sinks = true;
		for (const char *const *e = a->path->entries; *e; e++)
			push(&a->entries, &o->entry_count, *e);
		for (const char *const *e = a->path->sinks; *e; e++)
			push(&a->sinks, &o->sink_count, *e);
		for (const char *const *e = a->path->excludes; *e; e++)
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
	a->options.source = operands[0];
	/* --versus is the old tree when it is a folder; a file with
	 * --overlay-profile is the BEFORE profile, as it always was */
	struct stat st;
	if (a->versus && a->overlay_profile && !a->baseline_profile &&
	    !(stat(a->versus, &st) == 0 && S_ISDIR(st.st_mode))) {
		a->baseline_profile = a->versus;
		a->versus = NULL;
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

/* Said even with -q: the next run will parse everything again. */
static void say_cache_refused(const struct callgraph *graph)
{
	if (graph->summary.cache_refused)
		fprintf(stderr, "ptscope: %s; caching nothing this run\n", graph->summary.cache_refused);
}

static void print_summary(const struct callgraph *graph)
{
	const struct cg_summary *s = &graph->summary;
	fprintf(stderr, "ptscope: callgraph: %zu files (%zu parsed, %zu cached, %zu failed); "
		"configuration: %s; %s\n", s->files, s->files_parsed, s->files_cached, s->files_failed,
		s->config, s->libclang ? s->libclang : "libclang");
	if (s->files_pch)
		fprintf(stderr, "ptscope: callgraph: %zu of the %zu parsed files read their shared headers "
			"from %zu precompiled header%s\n", s->files_pch, s->files_parsed, s->pch_count,
			s->pch_count == 1 ? "" : "s");
	if (s->compat)
		fprintf(stderr, "ptscope: callgraph: %s\n", s->compat);
	if (s->config_symbols_supplied)
		fprintf(stderr, "ptscope: callgraph: the tree's configuration does not set %zu "
			"symbols that decide the MMU paths: supplied\n", s->config_symbols_supplied);
	fprintf(stderr, "ptscope: callgraph: diagnostics counted, not fatal: %zu errors, %zu warnings",
		s->errors, s->warnings);
	if (s->flags_dropped)
		fprintf(stderr, "; %zu compile-database words dropped (not on the flag allowlist: %s)",
			s->flags_dropped, s->flags_dropped_names ? s->flags_dropped_names : "");
	fprintf(stderr, "%s%s\n", s->first_error ? "; first: " : "", s->first_error ? s->first_error : "");
	for (size_t i = 0; i < graph->error_file_count; i++) {
		const struct cg_error_file *e = &graph->error_files[i];
		fprintf(stderr, "ptscope: callgraph: %s: %zu error%s; calls of its %zu functions may be missing:",
			e->file, e->errors, e->errors == 1 ? "" : "s", e->function_count);
		for (size_t f = 0; f < e->function_count && f < 12; f++)
			fprintf(stderr, " %s", e->functions[f]);
		fprintf(stderr, "%s\n", e->function_count > 12 ? " ..." : "");
	}
	/* the places that failed, a header once: what to fix or to know */
	size_t shown = graph->error_site_count < 8 ? graph->error_site_count : 8;
	for (size_t i = 0; i < shown; i++) {
		const struct cg_error_site *e = &graph->error_sites[i];
		fprintf(stderr, "ptscope: callgraph: %s:%u: %s (in %zu file%s)%s%s\n", e->file, e->line, e->message,
			e->units, e->units == 1 ? "" : "s", e->why ? ": " : "", e->why ? e->why : "");
	}
	if (graph->error_site_count > shown)
		fprintf(stderr, "ptscope: callgraph: %zu more places with errors (--format json lists them all)\n",
			graph->error_site_count - shown);
	fprintf(stderr, "ptscope: callgraph: %zu functions, %zu calls, %zu call sites through "
		"function-pointer fields (%zu unresolved); kept %zu functions, %zu calls\n",
		s->functions, s->calls, s->indirect_sites, s->indirect_unresolved,
		graph->node_count, graph->edge_count);
}

/* --unresolved: "FILE:LINE: CALLER calls through FIELD", one line per call
 * site no stored function was found for, in file order. */
static int write_unresolved(const struct callgraph *graph, const char *path, struct error *error)
{
	struct output output;
	if (output_open(&output, path, error))
		return -1;
	FILE *out = output_stream(&output);
	for (size_t i = 0; out && i < graph->unresolved_count; i++) {
		const struct cg_unresolved *u = &graph->unresolved[i];
		escape_fputs(escape_text, u->file, out);
		fprintf(out, ":%u: ", u->line);
		escape_fputs(escape_text, u->caller, out);
		fputs(" calls through ", out);
		escape_fputs(escape_text, u->field, out);
		fputc('\n', out);
	}
	if (!out) {
		output_discard(&output);
		return error_internal(error, path ? path : "stdout", 0, "cannot write");
	}
	return output_publish(&output, error);
}

/* --reverse: the callers of the sink, as indented text. */
static int write_callers(const struct callgraph *graph, const char *path, struct error *error)
{
	struct output output;
	if (output_open(&output, path, error))
		return -1;
	FILE *out = output_stream(&output);
	if (!out || !graph_write_callers(graph, out)) {
		output_discard(&output);
		return error_internal(error, path ? path : "stdout", 0, "cannot write");
	}
	return output_publish(&output, error);
}

/* What a --path preset left out: the same entries to every rmap function,
 * without the excludes, counted (a second run, from the per-file cache). */
static void say_pruned(const struct arguments *a, const struct callgraph *kept)
{
	struct analyzer_options every = a->options;
	struct callgraph *all = NULL;
	struct error error;   /* the count is a courtesy: without it, nothing is said */
	size_t own_sinks = 0, own_excludes = 0;
	while (a->path->sinks[own_sinks])
		own_sinks++;
	while (a->path->excludes[own_excludes])
		own_excludes++;
	every.no_default_sinks = false;
	every.sinks = every.sink_count > own_sinks ? every.sinks : NULL;
	every.sink_count -= own_sinks;
	every.exclude_count -= own_excludes;
	every.excludes = every.exclude_count ? every.excludes : NULL;
	every.commands_out = NULL;
	every.progress = false;
	fprintf(stderr, "ptscope: callgraph: --path %s: %s\n", a->path->name, a->path->job);
	if (analyzer_run(&every, &all, &error) == 0)
		fprintf(stderr, "ptscope: callgraph: --path %s: kept %zu functions, %zu calls of the %zu "
			"functions, %zu calls on every path from its entries to any rmap function\n",
			a->path->name, kept->node_count, kept->edge_count, all->node_count, all->edge_count);
	fprintf(stderr, "ptscope: callgraph: --path %s: pruned: rmap functions this job does not "
		"call; %s (left out:", a->path->name, a->path->pruned);
	for (size_t i = 0; i < own_excludes; i++)
		fprintf(stderr, " %s", a->path->excludes[i]);
	fputs(")\n", stderr);
	callgraph_free(all);
}

/* --versus OLD_TREE: the old tree with the same entries, sinks and pruning,
 * merged with the new one into *versus. */
static int analyse_old_tree(const struct arguments *a, const struct callgraph *graph, struct callgraph **old_graph,
			    struct tree_versus *versus, struct error *error)
{
	struct analyzer_options old_options = a->options;
	old_options.source = a->versus;
	old_options.commands_out = NULL;
	old_options.config = NULL;
	if (analyzer_run(&old_options, old_graph, error))
		return -1;
	say_cache_refused(*old_graph);
	if (!a->quiet)
		print_summary(*old_graph);
	tree_versus_build(graph, *old_graph, versus);
	return 0;
}

/* The summary on stderr, with what the overlay could not place and the
 * names the era rename table joined. */
static void say_overlaid(const struct callgraph *graph, const struct graph_overlay *overlay)
{
	print_summary(graph);
	char unplaced[1024];
	overlay_unplaced_summary(overlay, unplaced, sizeof(unplaced));
	if (unplaced[0])
		fprintf(stderr, "ptscope: callgraph: %s\n", unplaced);
	for (size_t j = 0; j < overlay->join_count; j++)
		fprintf(stderr, "ptscope: callgraph: joined (era rename table, %s): before %s, after %s, "
			"summed on %s\n", overlay->joins[j].work, overlay->joins[j].before, overlay->joins[j].after,
			overlay->joins[j].on);
}

/* The analysis, with the overlay read first (bad input fails before the
 * long parse) and placed on the graph after it. */
static int run(struct arguments *a, enum graph_format format)
{
	struct overlay_request request = { .snapshot = a->overlay_snapshot, .design = a->design,
					   .profile = a->overlay_profile, .baseline_profile = a->baseline_profile,
					   .progress = !a->quiet && isatty(STDERR_FILENO), .compare = a->compare,
					   .by_name = a->by_name };
	const char *old_tree = a->versus;
	bool overlaid = a->overlay_snapshot || a->overlay_profile || old_tree;
	struct overlay_inputs *inputs = NULL;
	struct graph_overlay overlay = { .title = "" };
	struct callgraph *graph = NULL, *old_graph = NULL;
	struct tree_versus versus = { 0 };
	struct error error;
	int status = overlaid ? overlay_prepare(&request, &inputs, &error) : 0;
	a->options.progress = !a->quiet && isatty(STDERR_FILENO);
	graph_set_progress(a->options.progress);
	if (!status)
		status = analyzer_run(&a->options, &graph, &error);
	if (!status)
		say_cache_refused(graph);
	if (!status && a->path && !a->quiet)
		say_pruned(a, graph);
	if (!status && old_tree)
		status = analyse_old_tree(a, graph, &old_graph, &versus, &error);
	const struct callgraph *drawn = versus.graph ? versus.graph : graph;
	if (!status && overlaid)
		status = overlay_place(inputs, drawn, &overlay, &error);
	if (!status && versus.graph)
		tree_versus_mark(&versus, &overlay);
	if (!status && versus.graph && a->baseline_profile)
		overlay_profiles_on_trees(drawn, &overlay);
	if (!status && !a->quiet)
		say_overlaid(graph, &overlay);
	if (!status && a->unresolved)
		status = write_unresolved(graph, a->output, &error);
	else if (!status && a->reverse)
		status = write_callers(graph, a->output, &error);
	else if (!status)
		status = graph_write(drawn, overlaid ? &overlay : NULL, format, a->page, a->output, &error);
	if (status) {
		error_print(&error);
		status = (int)error.status;
	}
	graph_overlay_free(&overlay);
	overlay_inputs_free(inputs);
	tree_versus_free(&versus);
	callgraph_free(old_graph);
	callgraph_free(graph);
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
	struct arguments a = { .options = { .use_cache = true } };
	int status = command_run(&callgraph_help, argc, argv, parse_option, callgraph, &a);
	free(a.entries);
	free(a.sinks);
	free(a.files);
	free(a.excludes);
	return status;
}
