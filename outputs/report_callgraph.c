/*
 * outputs/report_callgraph.c - `report --callgraph TREE [--path JOB]...`:
 * each job's rmap paths of the kernel TREE (the analyzer's --path presets,
 * so never the whole unpruned graph) with the report's own model result
 * written on them (outputs/overlay.c), laid out as SVG in memory for the
 * HTML page.  The snapshot is not read again: what the report counted is
 * what the diagram shows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outputs/graph.h"
#include "outputs/report.h"

/* The analyzer's options for one preset: its entries, sinks and side paths
 * alone, as `callgraph TREE --path JOB` sets them. */
static void preset_options(const char *tree, const struct analyzer_path *path, bool progress,
			   struct analyzer_options *options)
{
	memset(options, 0, sizeof(*options));
	options->source = tree;
	options->use_cache = true;
	options->progress = progress;
	options->no_default_entries = options->no_default_sinks = true;
	options->entries = path->entries;
	options->sinks = path->sinks;
	options->excludes = path->excludes;
	for (const char *const *e = path->entries; *e; e++)
		options->entry_count++;
	for (const char *const *e = path->sinks; *e; e++)
		options->sink_count++;
	for (const char *const *e = path->excludes; *e; e++)
		options->exclude_count++;
}

/* One diagram: analysed, overlaid, rendered into *svg (malloc'd). */
static int draw_one(const char *tree, const struct analyzer_path *path, const struct model_result *result,
		    bool progress, char **svg, struct error *error)
{
	struct analyzer_options options;
	struct overlay_request request = { .result = result, .progress = progress };
	struct overlay_inputs *inputs = NULL;
	struct graph_overlay overlay = { .title = "" };
	struct callgraph *graph = NULL;
	preset_options(tree, path, progress, &options);
	int status = overlay_prepare(&request, &inputs, error);
	if (!status)
		status = analyzer_run(&options, &graph, error);
	if (!status && graph->summary.cache_refused)
		fprintf(stderr, "ptscope: %s; caching nothing this run\n", graph->summary.cache_refused);
	if (!status)
		status = overlay_place(inputs, graph, &overlay, error);
	if (!status) {
		size_t length = 0;
		FILE *out = open_memstream(svg, &length);
		error->message[0] = '\0';
		bool ok = out && graph_write_picture(graph, &overlay, "svg", GRAPH_PAGE_DEFAULT, out, error);
		if (out && fclose(out))
			ok = false;
		if (!ok) {
			free(*svg);
			*svg = NULL;
			if (!error->message[0])
				error_internal(error, tree, 0, "cannot render the --path %s diagram", path->name);
			status = -1;
		}
	}
	graph_overlay_free(&overlay);
	overlay_inputs_free(inputs);
	callgraph_free(graph);
	return status;
}

int report_callgraph_draw(const char *tree, struct report_diagram *diagrams, size_t count,
			  const struct model_result *result, bool progress, struct error *error)
{
	for (size_t i = 0; i < count; i++) {
		if (progress)
			fprintf(stderr, "report: --callgraph %s: the %s paths\n", tree, diagrams[i].path->name);
		if (draw_one(tree, diagrams[i].path, result, progress, &diagrams[i].svg, error))
			return -1;
	}
	return 0;
}
