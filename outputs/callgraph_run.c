/*
 * outputs/callgraph_run.c - `callgraph`'s analysis from its options to what
 * its writer takes (outputs/callgraph_run.h): the overlay's inputs read
 * first (bad input fails before the long parse), the tree analysed (and
 * --versus's old one, merged), the overlay placed, the summary said on
 * stderr; and the two text writers instead of the graph (--unresolved,
 * --reverse).
 */
#include <stdio.h>
#include <string.h>

#include "base/escape.h"
#include "base/output.h"
#include "outputs/callgraph_run.h"

/* Said even with -q: the next run will parse everything again. */
static void say_cache_refused(const struct callgraph *graph)
{
	if (graph->summary.cache_refused)
		fprintf(stderr, "ptscope: %s; caching nothing this run\n", graph->summary.cache_refused);
}

void callgraph_summary_write(FILE *out, const struct callgraph *graph)
{
	const struct cg_summary *s = &graph->summary;
	fprintf(out, "ptscope: callgraph: %zu files (%zu parsed, %zu cached, %zu failed); "
		"configuration: %s; %s\n", s->files, s->files_parsed, s->files_cached, s->files_failed,
		s->config, s->libclang ? s->libclang : "libclang");
	if (s->files_pch)
		fprintf(out, "ptscope: callgraph: %zu of the %zu parsed files read their shared headers "
			"from %zu precompiled header%s\n", s->files_pch, s->files_parsed, s->pch_count,
			s->pch_count == 1 ? "" : "s");
	if (s->compat)
		fprintf(out, "ptscope: callgraph: %s\n", s->compat);
	if (s->config_symbols_supplied)
		fprintf(out, "ptscope: callgraph: the tree's configuration does not set %zu "
			"symbols that decide the MMU paths: supplied\n", s->config_symbols_supplied);
	fprintf(out, "ptscope: callgraph: diagnostics counted, not fatal: %zu errors, %zu warnings",
		s->errors, s->warnings);
	if (s->flags_dropped)
		fprintf(out, "; %zu compile-database words dropped (not on the flag allowlist: %s)",
			s->flags_dropped, s->flags_dropped_names ? s->flags_dropped_names : "");
	fprintf(out, "%s%s\n", s->first_error ? "; first: " : "", s->first_error ? s->first_error : "");
	for (size_t i = 0; i < graph->error_file_count; i++) {
		const struct cg_error_file *e = &graph->error_files[i];
		fprintf(out, "ptscope: callgraph: %s: %zu error%s; calls of its %zu functions may be missing:",
			e->file, e->errors, e->errors == 1 ? "" : "s", e->function_count);
		for (size_t f = 0; f < e->function_count && f < 12; f++)
			fprintf(out, " %s", e->functions[f]);
		fprintf(out, "%s\n", e->function_count > 12 ? " ..." : "");
	}
	/* the places that failed, a header once: what to fix or to know */
	size_t shown = graph->error_site_count < 8 ? graph->error_site_count : 8;
	for (size_t i = 0; i < shown; i++) {
		const struct cg_error_site *e = &graph->error_sites[i];
		fprintf(out, "ptscope: callgraph: %s:%u: %s (in %zu file%s)%s%s\n", e->file, e->line, e->message,
			e->units, e->units == 1 ? "" : "s", e->why ? ": " : "", e->why ? e->why : "");
	}
	if (graph->error_site_count > shown)
		fprintf(out, "ptscope: callgraph: %zu more places with errors (--format json lists them all)\n",
			graph->error_site_count - shown);
	fprintf(out, "ptscope: callgraph: %zu functions, %zu calls, %zu call sites through "
		"function-pointer fields (%zu unresolved); kept %zu functions, %zu calls\n",
		s->functions, s->calls, s->indirect_sites, s->indirect_unresolved,
		graph->node_count, graph->edge_count);
}

/* --unresolved: "FILE:LINE: CALLER calls through FIELD", one line per call
 * site no stored function was found for, in file order. */
int callgraph_write_unresolved(const struct callgraph *graph, const char *path, struct error *error)
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
int callgraph_write_callers(const struct callgraph *graph, const char *path, struct error *error)
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
static void say_pruned(const struct callgraph_job *a, const struct callgraph *kept)
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
static int analyse_old_tree(const struct callgraph_job *a, const struct callgraph *graph, struct callgraph **old_graph,
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
		callgraph_summary_write(stderr, *old_graph);
	tree_versus_build(graph, *old_graph, versus);
	return 0;
}

/* The summary on stderr, with what the overlay could not place and the
 * names the era rename table joined. */
static void say_overlaid(const struct callgraph *graph, const struct graph_overlay *overlay)
{
	callgraph_summary_write(stderr, graph);
	char unplaced[1024];
	overlay_unplaced_summary(overlay, unplaced, sizeof(unplaced));
	if (unplaced[0])
		fprintf(stderr, "ptscope: callgraph: %s\n", unplaced);
	for (size_t j = 0; j < overlay->join_count; j++)
		fprintf(stderr, "ptscope: callgraph: joined (era rename table, %s): before %s, after %s, "
			"summed on %s\n", overlay->joins[j].work, overlay->joins[j].before, overlay->joins[j].after,
			overlay->joins[j].on);
}

int callgraph_make(struct callgraph_job *job, struct callgraph_made *made, struct error *error)
{
	memset(made, 0, sizeof(*made));
	bool overlaid = job->overlay.snapshot || job->overlay.profile || job->versus;
	if (overlaid && overlay_prepare(&job->overlay, &made->inputs, error))
		return -1;
	graph_set_progress(job->options.progress);
	if (analyzer_run(&job->options, &made->graph, error))
		return -1;
	say_cache_refused(made->graph);
	if (job->path && !job->quiet)
		say_pruned(job, made->graph);
	if (job->versus && analyse_old_tree(job, made->graph, &made->old_graph, &made->versus, error))
		return -1;
	made->drawn = made->versus.graph ? made->versus.graph : made->graph;
	if (overlaid && overlay_place(made->inputs, made->drawn, &made->overlay, error))
		return -1;
	made->overlaid = overlaid;
	if (made->versus.graph)
		tree_versus_mark(&made->versus, &made->overlay);
	if (made->versus.graph && job->overlay.baseline_profile)
		overlay_profiles_on_trees(made->drawn, &made->overlay);
	if (!job->quiet)
		say_overlaid(made->graph, &made->overlay);
	return 0;
}

void callgraph_made_free(struct callgraph_made *made)
{
	graph_overlay_free(&made->overlay);
	overlay_inputs_free(made->inputs);
	tree_versus_free(&made->versus);
	callgraph_free(made->old_graph);
	callgraph_free(made->graph);
	memset(made, 0, sizeof(*made));
}
