/*
 * outputs/report_run.c - a report from its snapshots to what its writer
 * takes (outputs/report_run.h): read, modelled, diagrams drawn.  Nothing is
 * printed here but progress; failures come back in a struct error.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/alloc.h"
#include "base/output.h"
#include "outputs/report_run.h"

int report_select_profile(struct profile_set *set, struct report_selection *chosen, const char *argument,
			  struct error *error)
{
	size_t n = strlen(argument);
	bool is_file = strchr(argument, '/') || (n > 4 && !strcmp(argument + n - 4, ".xml"));
	if (!is_file) {
		const struct rmap_profile *p = profiles_find_rmap(set, argument);
		const struct sharing_rule *r = profiles_find_rule(set, argument);
		if (!p && !r)
			return error_set(error, NULL, 0, "report: unknown profile '%s' (see `ptscope profiles`)", argument);
		if (chosen->count == REPORT_MOST_SELECTED)
			return error_set(error, NULL, 0, "report: at most %d profiles", REPORT_MOST_SELECTED);
		chosen->kind[chosen->count] = p ? 'r' : 's';
		chosen->index[chosen->count++] = p ? (size_t)(p - set->rmaps) : (size_t)(r - set->rules);
		return 0;
	}
	size_t rmaps = set->rmap_count, rules = set->rule_count;
	if (profiles_load_file(set, argument, error))
		return -1;
	for (size_t i = rmaps; i < set->rmap_count && chosen->count < REPORT_MOST_SELECTED; i++) {
		chosen->kind[chosen->count] = 'r';
		chosen->index[chosen->count++] = i;
	}
	for (size_t i = rules; i < set->rule_count && chosen->count < REPORT_MOST_SELECTED; i++) {
		chosen->kind[chosen->count] = 's';
		chosen->index[chosen->count++] = i;
	}
	return 0;
}

/* The model's options: pointers into the set only once every file is loaded. */
struct model_choice {
	const struct rmap_profile *designs[REPORT_MOST_SELECTED];
	const struct sharing_rule *rules[REPORT_MOST_SELECTED];
	struct model_options options;
};

static void resolve(const struct report_job *job, size_t top_files, struct model_choice *choice)
{
	struct model_options *options = &choice->options;
	*options = (struct model_options){ .profiles = (struct profile_set *)&job->set, .top_files = top_files };
	for (size_t i = 0; i < job->chosen.count; i++) {
		if (job->chosen.kind[i] == 'r')
			choice->designs[options->design_count++] = &job->set.rmaps[job->chosen.index[i]];
		else
			choice->rules[options->rule_count++] = &job->set.rules[job->chosen.index[i]];
	}
	options->designs = options->design_count ? choice->designs : NULL;
	options->rules = options->rule_count ? choice->rules : NULL;
}

/* error, a callee's, said of WHAT ("SOURCE: its message"), its status kept. */
static int error_about(struct error *error, const char *what, const char *also)
{
	struct error inner = *error;
	error_set(error, what, 0, "%s%s", also, inner.message);
	error->status = inner.status;
	return -1;
}

/* --filter: the model of the matching processes alone, for the headlines
 * (made->filtered stays NULL when none match). */
static int filtered_model(const struct snapshot *snapshot, const struct model_options *options, const char *filter,
			  struct report_made *made, struct error *error)
{
	bool *keep = xcalloc(snapshot->process_count + 1, sizeof(*keep));
	made->subset = report_filter_keep(snapshot, filter, keep) ? snapshot_subset(snapshot, keep) : NULL;
	free(keep);
	if (made->subset && model_run(made->subset, options, &made->filtered, error))
		return error_about(error, snapshot->source, "--filter: ");
	return 0;
}

/* Said before the work starts, not found out after minutes. */
static int refuse_unfitting(const struct snapshot *snapshot, const struct snapshot *baseline,
			    const struct model_options *options, struct error *error)
{
	uint64_t need = model_memory_bytes(snapshot, options) + (baseline ? model_memory_bytes(baseline, options) : 0);
	uint64_t available = memory_available_bytes();
	if (need <= available)
		return 0;
	return error_set(error, snapshot->source, 0, "does not fit in memory: the cost model needs up to %" PRIu64
			 " MiB beyond the snapshot, %" PRIu64 " MiB are available", need >> 20, available >> 20);
}

/* The model of the snapshot (and of --versus's and --filter's), the diagrams. */
static int model_and_draw(struct report_job *job, struct report_made *made, struct error *error)
{
	struct report_options *report = &job->report;
	struct model_choice choice;
	resolve(job, report->per_file ? SIZE_MAX : 10, &choice);
	/* designs named on the command line are shown whatever their architecture */
	report->all_designs |= choice.options.design_count > 0;
	if (refuse_unfitting(made->snapshot, made->baseline, &choice.options, error))
		return -1;
	if (model_run(made->snapshot, &choice.options, &made->result, error))
		return error_about(error, made->snapshot->source, "");   /* model/model.c says whose failure */
	if (made->baseline && model_run(made->baseline, &choice.options, &made->before, error))
		return error_about(error, made->baseline->source, "");
	if (report->filter && !made->baseline &&
	    filtered_model(made->snapshot, &choice.options, report->filter, made, error))
		return -1;
	if (job->callgraph && report_callgraph_draw(job->callgraph, job->diagrams, job->diagram_count, made->result,
						    job->read.progress, error))
		return -1;
	report->versus = made->before;
	report->filtered = made->filtered;
	report->headline_filtered = report->filter && !made->baseline;
	report->diagrams = job->diagrams;
	report->diagram_count = job->callgraph ? job->diagram_count : 0;
	report->calibration = job->calibration;
	return 0;
}

int report_make(struct report_job *job, const char *path, struct report_made *made, struct error *error)
{
	memset(made, 0, sizeof(*made));
	uint64_t available = memory_available_bytes();
	job->read.memory_budget_bytes = available == UINT64_MAX ? 0 : available;
	if (snapshot_read(path, &job->read, &made->snapshot, error) ||
	    (job->versus && snapshot_read(job->versus, &job->read, &made->baseline, error)))
		return -1;
	return model_and_draw(job, made, error);
}

void report_made_free(struct report_job *job, struct report_made *made)
{
	for (size_t i = 0; i < job->diagram_count; i++) {
		free(job->diagrams[i].svg);
		job->diagrams[i].svg = NULL;
	}
	model_free(made->result);
	model_free(made->before);
	model_free(made->filtered);
	snapshot_subset_free(made->subset);
	snapshot_free(made->baseline);
	snapshot_free(made->snapshot);
	memset(made, 0, sizeof(*made));
}

/* One snapshot of a series: read, modelled, its point kept, the rest freed. */
static int series_point(const char *path, const struct model_options *options, const struct read_options *read,
			struct json_object **point, struct error *error)
{
	struct snapshot *snapshot = NULL;
	struct model_result *result = NULL;
	int status = 0;
	if (snapshot_read(path, read, &snapshot, error))
		status = -1;
	else if (model_run(snapshot, options, &result, error))
		status = error_about(error, snapshot->source, "");
	else
		*point = report_series_point(result);
	model_free(result);
	snapshot_free(snapshot);
	return status;
}

int report_make_series(struct report_job *job, const char *const *paths, size_t count, struct error *error)
{
	struct model_choice choice;
	resolve(job, 1, &choice);
	struct json_object **points = xcalloc(count + 1, sizeof(*points));
	int status = 0;
	for (size_t i = 0; i < count && !status; i++) {
		if (job->read.progress)
			fprintf(stderr, "\rreport: snapshot %zu of %zu", i + 1, count);
		status = series_point(paths[i], &choice.options, &job->read, &points[i], error);
	}
	if (job->read.progress)
		fputc('\n', stderr);
	if (!status)
		job->report.series = report_build_series(points, count);
	for (size_t i = 0; i < count; i++)
		json_object_put(points[i]);
	free(points);
	return status;
}

void report_series_free(struct report_job *job)
{
	json_object_put(job->report.series);
	job->report.series = NULL;
}

/* The one writer: the file appears whole or not at all (base/output.h);
 * stdout is checked by the front door. */
struct report_output {
	const struct model_result *result;
	const struct report_options *options;
};

static int write_report(FILE *out, const void *context)
{
	const struct report_output *what = context;
	return report_write(out, what->result, what->options);
}

int report_write_path(const char *path, const struct model_result *result, const struct report_options *options)
{
	const struct report_output what = { result, options };
	return output_write_whole(path, write_report, &what);
}
