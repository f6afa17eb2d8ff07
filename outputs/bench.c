/*
 * outputs/bench.c - `ptscope bench` results: a table of min / median / p90
 * microseconds per measurement, headed by the machine and the CPU it was
 * pinned to, or the same figures as one JSON object.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/alloc.h"
#include "base/output.h"
#include "outputs/bench.h"

static int write_json_tree(FILE *out, struct json_object *root);
static void write_work_text(FILE *out, const struct bench_work *work);

static bool placed_there(const struct layout *layout, const struct vma *v)
{
	for (size_t i = 0; i < layout->count; i++)
		if (layout->vmas[i].placed == v->start && layout->vmas[i].placed + layout->vmas[i].bytes == v->end)
			return true;
	return false;
}

/* One VMA that is not the layout's, counted under its name. */
static void other_named(struct bench_like *like, const char *path)
{
	const char *name = path[0] ? path : "[anon]";
	for (size_t i = 0; i < like->other_names; i++)
		if (!strcmp(like->others[i].name, name)) {
			like->others[i].count++;
			return;
		}
	if (like->other_names == BENCH_MOST_OTHERS)
		return;
	snprintf(like->others[like->other_names].name, sizeof(like->others[0].name), "%s", name);
	like->others[like->other_names++].count = 1;
}

void bench_like_found(const struct snapshot *again, const struct layout *layout, struct bench_like *like)
{
	const struct process *p = again->process_count ? &again->processes[0] : NULL;
	for (size_t i = 0; p && i < layout->count; i++) {
		const struct layout_vma *v = &layout->vmas[i];
		const struct vma *found = process_find_vma(p, v->placed);
		if (found && found->start == v->placed && found->end == v->placed + v->bytes)
			like->vmas_found++;
		struct pagemap_record record;
		uint64_t at = v->placed, end = v->placed + v->bytes;
		while (at < end && process_next_record(again, p, at, end, &record)) {
			at = record.vaddr + 4096;
			like->pages_found += (record.entry & PAGEMAP_PRESENT) != 0;
		}
	}
	size_t vmas = 0;
	for (size_t i = 0; p && i < p->vma_count; i++) {
		if (!strcmp(p->vmas[i].path, "[vsyscall]"))
			continue;   /* not a VMA of the process: fork copies nothing of it */
		vmas++;
		if (!placed_there(layout, &p->vmas[i]))
			other_named(like, p->vmas[i].path);
	}
	like->other_vmas = vmas > like->vmas_found ? vmas - like->vmas_found : 0;
}

int bench_format_parse(const char *name, enum bench_format *format)
{
	if (!strcmp(name, "text"))
		*format = BENCH_TEXT;
	else if (!strcmp(name, "json"))
		*format = BENCH_JSON;
	else
		return -1;
	return 0;
}

static const char *const placement_names[HUGETLB_PLACEMENTS] = { "shared", "apart" };
static const char *const placement_meaning[HUGETLB_PLACEMENTS] = {
	"at a window boundary: its PMD page can be shared",
	"one huge page past it: two windows, neither whole, no sharing",
};
static const char *const hugetlb_mode_names[HUGETLB_MODES] = { "fork", "fork-read" };
static const char *const hugetlb_mode_meaning[HUGETLB_MODES] = {
	"fork + exit + wait",
	"fork, the child reads a byte of every huge page, exit, wait",
};

static void write_hugetlb_text(FILE *out, const struct hugetlb_result *h)
{
	fputs("\nhugetlbfs PMD sharing (a shared hugetlb mapping over a whole PMD page's window):\n", out);
	if (!h->measured) {
		fprintf(out, "  skipped: %s\n", h->why_skipped);
	} else {
		fprintf(out, "  %zu MiB of %zu kB huge pages, mapped once at each place, every page written first\n",
			h->window_bytes >> 20, h->page_bytes >> 10);
		for (size_t p = 0; p < HUGETLB_PLACEMENTS; p++)
			fprintf(out, "  %-7s %s\n", placement_names[p], placement_meaning[p]);
		fprintf(out, "  %-18s %10s %10s %10s %14s  %s\n", "measure", "min us", "median us", "p90 us",
			"child faults", "what one run times");
		for (size_t p = 0; p < HUGETLB_PLACEMENTS; p++)
			for (size_t m = 0; m < HUGETLB_MODES; m++) {
				char name[32];
				const struct latency_stats *st = &h->stats[p][m];
				snprintf(name, sizeof(name), "%s %s", hugetlb_mode_names[m], placement_names[p]);
				fprintf(out, "  %-18s %10.2f %10.2f %10.2f %14.1f  %s\n", name, st->min_us, st->median_us,
					st->p90_us, h->child_faults[p][m], hugetlb_mode_meaning[m]);
			}
		fputs("  (this kernel copies no page table of a shared hugetlb mapping at fork: what sharing saves\n"
		      "  shows in the child's faults, the kernel's count from wait4)\n", out);
	}
	if (h->changed)
		fprintf(out, "  vm.nr_hugepages %ld -> %ld for the run, put back: %ld%s%s\n", h->nr_hugepages_before,
			h->raised_to, h->nr_hugepages_after, h->why_not_restored[0] ? "; " : "", h->why_not_restored);
}

static struct json_object *hugetlb_json(const struct hugetlb_result *h)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "measured", json_object_new_boolean(h->measured));
	if (!h->measured)
		json_object_object_add(o, "skipped", json_object_new_string(h->why_skipped));
	json_object_object_add(o, "huge_page_bytes", json_object_new_int64((int64_t)h->page_bytes));
	json_object_object_add(o, "window_bytes", json_object_new_int64((int64_t)h->window_bytes));
	json_object_object_add(o, "nr_hugepages_before", json_object_new_int64(h->nr_hugepages_before));
	json_object_object_add(o, "nr_hugepages_raised_to", h->changed ? json_object_new_int64(h->raised_to) : NULL);
	json_object_object_add(o, "nr_hugepages_after", json_object_new_int64(h->nr_hugepages_after));
	struct json_object *list = json_object_new_array();
	for (size_t p = 0; h->measured && p < HUGETLB_PLACEMENTS; p++)
		for (size_t m = 0; m < HUGETLB_MODES; m++) {
			const struct latency_stats *st = &h->stats[p][m];
			struct json_object *item = json_object_new_object();
			json_object_object_add(item, "placement", json_object_new_string(placement_names[p]));
			json_object_object_add(item, "name", json_object_new_string(hugetlb_mode_names[m]));
			json_object_object_add(item, "what", json_object_new_string(hugetlb_mode_meaning[m]));
			json_object_object_add(item, "runs", json_object_new_int64((int64_t)st->runs));
			json_object_object_add(item, "min_us", json_object_new_double(st->min_us));
			json_object_object_add(item, "median_us", json_object_new_double(st->median_us));
			json_object_object_add(item, "p90_us", json_object_new_double(st->p90_us));
			json_object_object_add(item, "child_minor_faults", json_object_new_double(h->child_faults[p][m]));
			json_object_array_add(list, item);
		}
	json_object_object_add(o, "measurements", list);
	return o;
}

/* --like --calibration: the measured fastest run beside the prediction. */
static void write_price_text(FILE *out, const struct bench_run *run)
{
	const struct latency_result *r = &run->results[0];
	const struct time_prediction *p = &run->price;
	const double measured[3] = { r->stats.min_us, r->fork_part.min_us, r->exit_part.min_us };
	static const char *const names[3] = { "fork+exit+wait", "fork part", "exit part" };
	fprintf(out, "\nmeasured (fastest run) beside predicted from %s (%s):\n", run->calibration_path, p->what);
	for (size_t k = 0; k < 3; k++)
		fprintf(out, "  %-16s %10.1f us measured %10.1f +- %.1f us predicted (%+.1f%%)\n", names[k], measured[k],
			p->us[k], p->error_us[k], measured[k] > 0 ? (p->us[k] - measured[k]) / measured[k] * 100 : 0);
}

static struct json_object *price_json(const struct time_prediction *p, const double *measured)
{
	static const char *const names[3] = { "whole", "fork", "exit" };
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "what", json_object_new_string(p->what));
	for (size_t k = 0; k < 3; k++) {
		struct json_object *part = json_object_new_object();
		json_object_object_add(part, "predicted_us", json_object_new_double(p->us[k]));
		json_object_object_add(part, "error_us", json_object_new_double(p->error_us[k]));
		if (measured)
			json_object_object_add(part, "measured_us", json_object_new_double(measured[k]));
		json_object_object_add(o, names[k], part);
	}
	json_object_object_add(o, "pte_chains_not_priced", json_object_new_uint64(p->pte_chains_not_priced));
	return o;
}

static void write_text(FILE *out, const struct bench_run *run)
{
	const struct latency_machine *m = &run->machine;
	fprintf(out, "kernel %s, %s\n", m->kernel, m->cpu_model);
	fprintf(out, "pinned to CPU %d (allowed: %s); %zu runs each after %zu warm-up runs\n", m->cpu,
		m->allowed_cpus, run->runs, run->warmup);
	if (run->has_like) {
		const struct bench_like *l = &run->like;
		fprintf(out, "process forked: pid %d (%s) of %s rebuilt in %s: %zu of %zu VMAs and "
			"%llu of %llu present pages found again in it (%zu kernel mappings not rebuilt), beside "
			"its own %zu VMAs:", l->pid, l->comm, l->source,
			l->subject[0] ? l->subject : "a child of ptscope (no ptscope-subject installed)", l->vmas_found,
			l->vmas, (unsigned long long)l->pages_found, (unsigned long long)l->pages, l->skipped,
			l->other_vmas);
		for (size_t i = 0; i < l->other_names; i++)
			fprintf(out, "%s %s x %zu", i ? "," : "", l->others[i].name, l->others[i].count);
		fputs("\n\n", out);
	} else {
		fprintf(out, "process forked: %s, %zu VMAs, %llu kB resident\n\n", run->image, m->image_vmas,
			(unsigned long long)m->image_rss_kb);
	}
	if (run->result_count)
		fprintf(out, "%-12s %10s %10s %10s  %s\n", "measure", "min us", "median us", "p90 us",
			"what one run times");
	for (size_t i = 0; i < run->result_count; i++) {
		const struct latency_result *r = &run->results[i];
		fprintf(out, "%-12s %10.2f %10.2f %10.2f  %s", latency_kinds[r->kind].name, r->stats.min_us,
			r->stats.median_us, r->stats.p90_us, latency_kinds[r->kind].what);
		if (r->pages_per_run)
			fprintf(out, " (%.1f faults for %u pages)", r->faults_per_run, r->pages_per_run);
		fputc('\n', out);
		if (r->kind == LATENCY_FORK)
			fprintf(out, "  %-10s %10.2f %10.2f %10.2f  CPU time of the parent in fork()\n"
				"  %-10s %10.2f %10.2f %10.2f  CPU time of the child, fork's return to exit\n", "fork part",
				r->fork_part.min_us, r->fork_part.median_us, r->fork_part.p90_us, "exit part",
				r->exit_part.min_us, r->exit_part.median_us, r->exit_part.p90_us);
	}
	if (run->has_price)
		write_price_text(out, run);
	if (run->has_work)
		write_work_text(out, &run->work);
	if (run->has_hugetlb)
		write_hugetlb_text(out, &run->hugetlb);
}

/* The model's figure for a counter, or -1 where it has none. */
static int64_t predicted(const struct bench_work *work, enum trace_counter counter)
{
	const struct fork_events *m = &work->model;
	switch (counter) {
	case TRACE_VMA_ALLOC: case TRACE_VMA_FREE: return (int64_t)m->vmas;
	case TRACE_ANON_VMA_ALLOC: case TRACE_ANON_VMA_FREE: return (int64_t)m->anon_vmas;
	case TRACE_CHAIN_ALLOC: case TRACE_CHAIN_FREE: return (int64_t)m->chains;
	case TRACE_FORK: return (int64_t)m->forks;
	default: return -1;
	}
}

static void write_work_text(FILE *out, const struct bench_work *work)
{
	fputs("\nkernel work of one fork + exit (tracepoints), beside the model", out);
	if (work->predicted)
		fprintf(out, " (%s, on a capture of this process)", work->design);
	fputs(":\n", out);
	if (!work->counted) {
		fprintf(out, "  not counted: %s\n", work->why_not_counted);
		return;
	}
	if (!work->predicted)
		fprintf(out, "  no prediction: %s\n", work->why_not_predicted);
	fprintf(out, "  %-26s %10s %10s\n", "event", "counted", "model");
	for (size_t i = 0; i < TRACE_COUNTER_COUNT; i++) {
		int64_t model = work->predicted ? predicted(work, (enum trace_counter)i) : -1;
		fprintf(out, "  %-26s %10llu ", trace_counters[i].name, (unsigned long long)work->counts[i]);
		if (model >= 0)
			fprintf(out, "%10lld", (long long)model);
		else
			fprintf(out, "%10s", "-");
		if (work->merged[i])
			fputs("  (slab cache merged with others: may count theirs)", out);
		if (i == TRACE_FAULT_USER)
			fputs("  (faults are not modelled per fork)", out);
		fputc('\n', out);
	}
	if (work->predicted && work->vmas_captured != work->vmas_at_fork)
		fprintf(out, "  the layout changed between the capture (%zu VMAs) and the fork (%zu)\n",
			work->vmas_captured, work->vmas_at_fork);
}

static struct json_object *work_json(const struct bench_work *work)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "counted", json_object_new_boolean(work->counted));
	if (!work->counted) {
		json_object_object_add(o, "why_not_counted", json_object_new_string(work->why_not_counted));
		return o;
	}
	if (work->predicted)
		json_object_object_add(o, "design", json_object_new_string(work->design));
	else
		json_object_object_add(o, "why_not_predicted", json_object_new_string(work->why_not_predicted));
	json_object_object_add(o, "vmas_captured", json_object_new_int64((int64_t)work->vmas_captured));
	json_object_object_add(o, "vmas_at_fork", json_object_new_int64((int64_t)work->vmas_at_fork));
	struct json_object *events = json_object_new_array();
	for (size_t i = 0; i < TRACE_COUNTER_COUNT; i++) {
		struct json_object *e = json_object_new_object();
		int64_t model = work->predicted ? predicted(work, (enum trace_counter)i) : -1;
		json_object_object_add(e, "event", json_object_new_string(trace_counters[i].name));
		json_object_object_add(e, "tracepoint", json_object_new_string(trace_counters[i].event));
		json_object_object_add(e, "counted", json_object_new_int64((int64_t)work->counts[i]));
		json_object_object_add(e, "model", model >= 0 ? json_object_new_int64(model) : NULL);
		json_object_object_add(e, "cache_merged", json_object_new_boolean(work->merged[i]));
		json_object_array_add(events, e);
	}
	json_object_object_add(o, "events", events);
	return o;
}

/* min_us, median_us, p90_us: a measurement's, or its fork's or exit's part. */
static void put_spread(struct json_object *o, const struct latency_stats *stats)
{
	json_object_object_add(o, "min_us", json_object_new_double(stats->min_us));
	json_object_object_add(o, "median_us", json_object_new_double(stats->median_us));
	json_object_object_add(o, "p90_us", json_object_new_double(stats->p90_us));
}

static struct json_object *part_json(const struct latency_stats *part)
{
	struct json_object *o = json_object_new_object();
	put_spread(o, part);
	return o;
}

/* Counts as KEY: N members, in the list's order. */
struct json_count {
	const char *key;
	uint64_t count;
};

static void put_counts(struct json_object *o, const struct json_count *counts, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_object_object_add(o, counts[i].key, json_object_new_int64((int64_t)counts[i].count));
}
#define PUT_COUNTS(o, counts) put_counts(o, counts, sizeof(counts) / sizeof((counts)[0]))

/* The snapshot process bench --like built its subject after, and how near. */
static struct json_object *like_json(const struct bench_like *l)
{
	struct json_object *like = json_object_new_object();
	json_object_object_add(like, "snapshot", json_object_new_string(l->source));
	json_object_object_add(like, "pid", json_object_new_int(l->pid));
	json_object_object_add(like, "comm", json_object_new_string(l->comm));
	const struct json_count counts[] = {
		{ "vmas", l->vmas }, { "vmas_found", l->vmas_found }, { "kernel_mappings_skipped", l->skipped },
		{ "present_pages", l->pages }, { "present_pages_found", l->pages_found }, { "other_vmas", l->other_vmas },
	};
	PUT_COUNTS(like, counts);
	json_object_object_add(like, "subject", json_object_new_string(l->subject));
	struct json_object *others = json_object_new_object();
	for (size_t i = 0; i < l->other_names; i++)
		json_object_object_add(others, l->others[i].name, json_object_new_int64((int64_t)l->others[i].count));
	json_object_object_add(like, "other_vmas_by_name", others);
	return like;
}

static struct json_object *measurement_json(const struct latency_result *r)
{
	struct json_object *item = json_object_new_object();
	json_object_object_add(item, "name", json_object_new_string(latency_kinds[r->kind].name));
	json_object_object_add(item, "what", json_object_new_string(latency_kinds[r->kind].what));
	json_object_object_add(item, "runs", json_object_new_int64((int64_t)r->stats.runs));
	put_spread(item, &r->stats);
	json_object_object_add(item, "mean_us", json_object_new_double(r->stats.mean_us));
	if (r->kind == LATENCY_FORK) {
		json_object_object_add(item, "fork_part", part_json(&r->fork_part));
		json_object_object_add(item, "exit_part", part_json(&r->exit_part));
	}
	if (r->pages_per_run) {
		json_object_object_add(item, "faults_per_run", json_object_new_double(r->faults_per_run));
		json_object_object_add(item, "pages_per_run", json_object_new_int(r->pages_per_run));
	}
	return item;
}

static struct json_object *build_json(const struct bench_run *run)
{
	const struct latency_machine *m = &run->machine;
	struct json_object *root = json_object_new_object(), *list = json_object_new_array();
	json_object_object_add(root, "kernel", json_object_new_string(m->kernel));
	json_object_object_add(root, "cpu_model", json_object_new_string(m->cpu_model));
	json_object_object_add(root, "cpu", json_object_new_int(m->cpu));
	json_object_object_add(root, "allowed_cpus", json_object_new_string(m->allowed_cpus));
	const struct json_count runs[] = { { "runs", run->runs }, { "warmup_runs", run->warmup } };
	PUT_COUNTS(root, runs);
	struct json_object *image = json_object_new_object();
	json_object_object_add(image, "what", json_object_new_string(run->image));
	const struct json_count sizes[] = { { "vmas", m->image_vmas }, { "rss_kb", m->image_rss_kb } };
	PUT_COUNTS(image, sizes);
	json_object_object_add(root, "forked", image);
	if (run->has_like)
		json_object_object_add(root, "like", like_json(&run->like));
	for (size_t i = 0; i < run->result_count; i++)
		json_object_array_add(list, measurement_json(&run->results[i]));
	json_object_object_add(root, "measurements", list);
	if (run->has_work)
		json_object_object_add(root, "kernel_work", work_json(&run->work));
	if (run->has_hugetlb)
		json_object_object_add(root, "hugetlb_pmd_sharing", hugetlb_json(&run->hugetlb));
	if (run->has_price) {
		const struct latency_result *r = &run->results[0];
		const double measured[3] = { r->stats.min_us, r->fork_part.min_us, r->exit_part.min_us };
		struct json_object *price = price_json(&run->price, measured);
		json_object_object_add(price, "calibration", json_object_new_string(run->calibration_path));
		json_object_object_add(root, "predicted", price);
	}
	return root;
}

int bench_write(FILE *out, const struct bench_run *run, enum bench_format format)
{
	if (format == BENCH_TEXT) {
		write_text(out, run);
		return ferror(out) ? -1 : 0;
	}
	return write_json_tree(out, build_json(run));
}

/* What one output holds: a run's measurements or a comparison. */
struct bench_output {
	const struct bench_run *run;
	const struct timing_comparison *comparison;
	enum bench_format format;
};

static int write_output(FILE *out, const void *context)
{
	const struct bench_output *what = context;
	return what->run ? bench_write(out, what->run, what->format)
			 : bench_write_comparison(out, what->comparison, what->format);
}

int bench_write_path(const char *path, const struct bench_run *run, const struct timing_comparison *comparison,
		     enum bench_format format)
{
	const struct bench_output what = { run, comparison, format };
	return output_write_whole(path, write_output, &what);
}

/* ---- bench --compare ---- */

static void change_of(const struct timing_measure *before, const struct timing_measure *after,
		      const struct timing_measure *base, struct timing_change *change)
{
	memset(change, 0, sizeof(*change));
	change->name = before->name;
	change->unit = before->unit;
	timing_summary(before, &change->before);
	timing_summary(after, &change->after);
	if (change->before.mean > 0)
		change->win_percent = (change->before.mean - change->after.mean) / change->before.mean * 100;
	if (!base)
		return;
	change->has_base = true;
	timing_summary(base, &change->base);
	double overhead = change->before.mean - change->base.mean;
	if (overhead != 0) {
		change->has_ratio = true;
		change->overhead_ratio = (change->after.mean - change->base.mean) / overhead;
	}
	if (change->base.mean > 0)
		change->after_over_base = change->after.mean / change->base.mean;
}

static void note_unmatched(struct timing_comparison *comparison, const char *name)
{
	for (size_t i = 0; i < comparison->unmatched_count; i++)
		if (!strcmp(comparison->unmatched[i], name))
			return;
	if (comparison->unmatched_count < sizeof(comparison->unmatched) / sizeof(comparison->unmatched[0]))
		comparison->unmatched[comparison->unmatched_count++] = name;
}

void timing_compare(const struct timing_set *before, const struct timing_set *after, const struct timing_set *base,
		    struct timing_comparison *comparison)
{
	comparison->sets[0] = before;
	comparison->sets[1] = after;
	comparison->sets[2] = base;
	comparison->changes = xcalloc(before->measure_count ? before->measure_count : 1, sizeof(struct timing_change));
	comparison->change_count = 0;
	comparison->unmatched_count = 0;
	for (size_t i = 0; i < before->measure_count; i++) {
		const struct timing_measure *b = &before->measures[i];
		const struct timing_measure *a = timing_find(after, b->name);
		const struct timing_measure *z = base ? timing_find(base, b->name) : NULL;
		if (!a || (base && !z) || strcmp(a->unit, b->unit) || (z && strcmp(z->unit, b->unit)))
			note_unmatched(comparison, b->name);
		else
			change_of(b, a, z, &comparison->changes[comparison->change_count++]);
	}
	for (size_t s = 1; s < 3; s++)
		for (size_t i = 0; comparison->sets[s] && i < comparison->sets[s]->measure_count; i++)
			if (!timing_find(before, comparison->sets[s]->measures[i].name))
				note_unmatched(comparison, comparison->sets[s]->measures[i].name);
}

void timing_compare_free(struct timing_comparison *comparison)
{
	free(comparison->changes);
	comparison->changes = NULL;
	comparison->change_count = 0;
}

static void write_summary_text(FILE *out, const struct timing_summary *s, const char *unit)
{
	char cell[64], runs[32];
	/* "≥": the least the runs can be, a posted mean's runs not counted */
	snprintf(runs, sizeof(runs), "%s%zu", s->runs_at_least ? "≥" : "", s->runs);
	/* not known: a total of posted means (its runs' pairs were not posted),
	 * or a pool with a mean whose runs were not counted */
	if (isnan(s->deviation))
		snprintf(cell, sizeof(cell), "%.3f ± ? %s (%s)", s->mean, unit, runs);
	else
		snprintf(cell, sizeof(cell), "%.3f ± %.3f %s (%s)", s->mean, s->deviation, unit, runs);
	/* the width in bytes: "≥" takes three for its one column */
	fprintf(out, "  %-*s", s->runs_at_least ? 30 : 28, cell);
}

/* The model's change: win and overhead ratio of its predicted times, as
 * the posted ones are worked out. */
static void prediction_change(const struct compare_prediction *p, size_t part, double *win, double *ratio, bool *has_ratio)
{
	double before = p->sets[0].us[part], after = p->sets[1].us[part], base = p->sets[2].us[part];
	*win = before != 0 ? (before - after) / before * 100 : 0;
	*has_ratio = p->ids[2][0] && before != base;
	*ratio = *has_ratio ? (after - base) / (before - base) : 0;
}

static void write_prediction_text(FILE *out, const struct compare_prediction *p)
{
	static const char *const roles[3] = { "BEFORE", "AFTER", "BASE" };
	static const char *const names[3] = { "fork+exit+wait", "fork (CPU)", "exit (CPU)" };
	fprintf(out, "\nthe model's change, for every process of %s forking once and its child exiting, at the\n"
		"costs of %s (not the posted workload's time: the fork it prices):\n", p->snapshot, p->calibration);
	for (size_t s = 0; s < 3 && p->ids[s][0]; s++)
		fprintf(out, "  %-6s %s%s\n", roles[s], p->sets[s].what,
			p->sets[s].pte_chains_not_priced ? " (pte_chain allocations not priced: a lower bound)" : "");
	for (size_t k = 0; k < 3; k++) {
		double win, ratio;
		bool has_ratio;
		prediction_change(p, k, &win, &ratio, &has_ratio);
		fprintf(out, "  %-16s %12.1f us %12.1f us", names[k], p->sets[0].us[k], p->sets[1].us[k]);
		if (p->ids[2][0])
			fprintf(out, " %12.1f us", p->sets[2].us[k]);
		fprintf(out, "  win %+.1f%%", fabs(win) < 0.05 ? 0.0 : win);
		if (has_ratio)
			fprintf(out, "  overhead ratio %.2f", ratio);
		fputc('\n', out);
	}
}

static void write_comparison_text(FILE *out, const struct timing_comparison *c)
{
	static const char *const roles[3] = { "BEFORE", "AFTER", "BASE" };
	for (size_t s = 0; s < 3; s++)
		if (c->sets[s])
			fprintf(out, "%-6s %s: %s\n", roles[s], c->paths[s] ? c->paths[s] : "-", c->sets[s]->shape);
	/* as wide as the longest name: a table of kernels names its measures for its title */
	int width = 18;
	for (size_t i = 0; i < c->change_count; i++)
		width = (int)strlen(c->changes[i].name) > width ? (int)strlen(c->changes[i].name) : width;
	fprintf(out, "\n%-*s  %-28s  %-28s", width, "measure", "BEFORE mean ± sd (runs)", "AFTER mean ± sd (runs)");
	if (c->sets[2])
		fprintf(out, "  %-28s", "BASE mean ± sd (runs)");
	fprintf(out, "  %8s", "win");
	if (c->sets[2])
		fprintf(out, "  %14s  %10s", "overhead ratio", "AFTER/BASE");
	fputc('\n', out);
	for (size_t i = 0; i < c->change_count; i++) {
		const struct timing_change *t = &c->changes[i];
		fprintf(out, "%-*s", width, t->name);
		write_summary_text(out, &t->before, t->unit);
		write_summary_text(out, &t->after, t->unit);
		if (t->has_base)
			write_summary_text(out, &t->base, t->unit);
		/* never "-0.0%": a change that rounds to nothing is no change */
		fprintf(out, "  %+7.1f%%", fabs(t->win_percent) < 0.05 ? 0.0 : t->win_percent);
		if (t->has_base && t->has_ratio)
			fprintf(out, "  %14.2f  %10.2f", fabs(t->overhead_ratio) < 0.005 ? 0.0 : t->overhead_ratio,
				t->after_over_base);
		else if (t->has_base)
			fprintf(out, "  %14s  %10.2f", "-", t->after_over_base);
		fputc('\n', out);
	}
	if (c->sets[2])
		fputs("\noverhead ratio = (AFTER - BASE) / (BEFORE - BASE): the part of BEFORE's overhead over BASE "
		      "that AFTER keeps\n", out);
	fputs("win = (BEFORE - AFTER) / BEFORE of the means; total = user + system of each run\n", out);
	for (size_t i = 0; i < c->unmatched_count; i++)
		fprintf(out, "not compared (not in every file): %s\n", c->unmatched[i]);
	if (c->prediction)
		write_prediction_text(out, c->prediction);
}

static struct json_object *summary_json(const struct timing_summary *s)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "runs", json_object_new_int64((int64_t)s->runs));
	/* runs the least they can be: a posted mean's runs were not counted */
	if (s->runs_at_least)
		json_object_object_add(o, "runs_at_least", json_object_new_boolean(1));
	json_object_object_add(o, "mean", json_object_new_double(s->mean));
	/* null: not known (as in write_summary_text); no lowest and highest
	 * where a posted mean stands for its runs */
	json_object_object_add(o, "deviation", isnan(s->deviation) ? NULL : json_object_new_double(s->deviation));
	if (s->extremes_known) {
		json_object_object_add(o, "lowest", json_object_new_double(s->lowest));
		json_object_object_add(o, "highest", json_object_new_double(s->highest));
	}
	return o;
}

static struct json_object *comparison_json(const struct timing_comparison *c)
{
	static const char *const roles[3] = { "before", "after", "base" };
	struct json_object *root = json_object_new_object(), *list = json_object_new_array();
	for (size_t s = 0; s < 3; s++) {
		if (!c->sets[s])
			continue;
		struct json_object *file = json_object_new_object();
		json_object_object_add(file, "path", json_object_new_string(c->paths[s] ? c->paths[s] : "-"));
		json_object_object_add(file, "shape", json_object_new_string(c->sets[s]->shape));
		json_object_object_add(root, roles[s], file);
	}
	for (size_t i = 0; i < c->change_count; i++) {
		const struct timing_change *t = &c->changes[i];
		struct json_object *item = json_object_new_object();
		json_object_object_add(item, "name", json_object_new_string(t->name));
		json_object_object_add(item, "unit", json_object_new_string(t->unit));
		json_object_object_add(item, "before", summary_json(&t->before));
		json_object_object_add(item, "after", summary_json(&t->after));
		json_object_object_add(item, "win_percent", json_object_new_double(t->win_percent));
		if (t->has_base) {
			json_object_object_add(item, "base", summary_json(&t->base));
			json_object_object_add(item, "overhead_ratio",
					       t->has_ratio ? json_object_new_double(t->overhead_ratio) : NULL);
			json_object_object_add(item, "after_over_base", json_object_new_double(t->after_over_base));
		}
		json_object_array_add(list, item);
	}
	json_object_object_add(root, "changes", list);
	struct json_object *unmatched = json_object_new_array();
	for (size_t i = 0; i < c->unmatched_count; i++)
		json_object_array_add(unmatched, json_object_new_string(c->unmatched[i]));
	json_object_object_add(root, "not_compared", unmatched);
	if (c->prediction) {
		static const char *const roles[3] = { "before", "after", "base" };
		static const char *const parts[3] = { "whole", "fork", "exit" };
		const struct compare_prediction *p = c->prediction;
		struct json_object *o = json_object_new_object(), *changes = json_object_new_object();
		json_object_object_add(o, "snapshot", json_object_new_string(p->snapshot));
		json_object_object_add(o, "calibration", json_object_new_string(p->calibration));
		for (size_t s = 0; s < 3 && p->ids[s][0]; s++) {
			struct json_object *set = price_json(&p->sets[s], NULL);
			json_object_object_add(set, "id", json_object_new_string(p->ids[s]));
			json_object_object_add(o, roles[s], set);
		}
		for (size_t k = 0; k < 3; k++) {
			double win, ratio;
			bool has_ratio;
			struct json_object *change = json_object_new_object();
			prediction_change(p, k, &win, &ratio, &has_ratio);
			json_object_object_add(change, "win_percent", json_object_new_double(win));
			if (p->ids[2][0])
				json_object_object_add(change, "overhead_ratio", has_ratio ? json_object_new_double(ratio) : NULL);
			json_object_object_add(changes, parts[k], change);
		}
		json_object_object_add(o, "changes", changes);
		json_object_object_add(root, "predicted", o);
	}
	return root;
}

static int write_json_tree(FILE *out, struct json_object *root)
{
	if (!root) {
		errno = ENOMEM;
		return -1;
	}
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	int status = fputs(text, out) == EOF || fputc('\n', out) == EOF ? -1 : 0;
	json_object_put(root);
	return status || ferror(out) ? -1 : 0;
}

int bench_write_comparison(FILE *out, const struct timing_comparison *comparison, enum bench_format format)
{
	if (format == BENCH_TEXT) {
		write_comparison_text(out, comparison);
		return ferror(out) ? -1 : 0;
	}
	return write_json_tree(out, comparison_json(comparison));
}
