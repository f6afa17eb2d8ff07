/*
 * outputs/bench.c - `ptscope bench` results: a table of min / median / p90
 * microseconds per measurement, headed by the machine and the CPU it was
 * pinned to, or the same figures as one JSON object.
 */
#include <errno.h>
#include <string.h>

#include <json-c/json.h>

#include "outputs/bench.h"

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

static void write_text(FILE *out, const struct bench_run *run)
{
	const struct latency_machine *m = &run->machine;
	fprintf(out, "kernel %s, %s\n", m->kernel, m->cpu_model);
	fprintf(out, "pinned to CPU %d (allowed: %s); %zu runs each after %zu warm-up runs\n", m->cpu,
		m->allowed_cpus, run->runs, run->warmup);
	fprintf(out, "process forked: %s, %zu VMAs, %llu kB resident\n\n", run->image, m->image_vmas,
		(unsigned long long)m->image_rss_kb);
	fprintf(out, "%-12s %10s %10s %10s  %s\n", "measure", "min us", "median us", "p90 us", "what one run times");
	for (size_t i = 0; i < run->result_count; i++) {
		const struct latency_result *r = &run->results[i];
		fprintf(out, "%-12s %10.2f %10.2f %10.2f  %s", latency_kinds[r->kind].name, r->stats.min_us,
			r->stats.median_us, r->stats.p90_us, latency_kinds[r->kind].what);
		if (r->pages_per_run)
			fprintf(out, " (%.1f faults for %u pages)", r->faults_per_run, r->pages_per_run);
		fputc('\n', out);
	}
}

static struct json_object *build_json(const struct bench_run *run)
{
	const struct latency_machine *m = &run->machine;
	struct json_object *root = json_object_new_object(), *list = json_object_new_array();
	json_object_object_add(root, "kernel", json_object_new_string(m->kernel));
	json_object_object_add(root, "cpu_model", json_object_new_string(m->cpu_model));
	json_object_object_add(root, "cpu", json_object_new_int(m->cpu));
	json_object_object_add(root, "allowed_cpus", json_object_new_string(m->allowed_cpus));
	json_object_object_add(root, "runs", json_object_new_int64((int64_t)run->runs));
	json_object_object_add(root, "warmup_runs", json_object_new_int64((int64_t)run->warmup));
	struct json_object *image = json_object_new_object();
	json_object_object_add(image, "what", json_object_new_string(run->image));
	json_object_object_add(image, "vmas", json_object_new_int64((int64_t)m->image_vmas));
	json_object_object_add(image, "rss_kb", json_object_new_int64((int64_t)m->image_rss_kb));
	json_object_object_add(root, "forked", image);
	for (size_t i = 0; i < run->result_count; i++) {
		const struct latency_result *r = &run->results[i];
		struct json_object *item = json_object_new_object();
		json_object_object_add(item, "name", json_object_new_string(latency_kinds[r->kind].name));
		json_object_object_add(item, "what", json_object_new_string(latency_kinds[r->kind].what));
		json_object_object_add(item, "runs", json_object_new_int64((int64_t)r->stats.runs));
		json_object_object_add(item, "min_us", json_object_new_double(r->stats.min_us));
		json_object_object_add(item, "median_us", json_object_new_double(r->stats.median_us));
		json_object_object_add(item, "p90_us", json_object_new_double(r->stats.p90_us));
		json_object_object_add(item, "mean_us", json_object_new_double(r->stats.mean_us));
		if (r->pages_per_run) {
			json_object_object_add(item, "faults_per_run", json_object_new_double(r->faults_per_run));
			json_object_object_add(item, "pages_per_run", json_object_new_int(r->pages_per_run));
		}
		json_object_array_add(list, item);
	}
	json_object_object_add(root, "measurements", list);
	return root;
}

int bench_write(FILE *out, const struct bench_run *run, enum bench_format format)
{
	if (format == BENCH_TEXT) {
		write_text(out, run);
		return ferror(out) ? -1 : 0;
	}
	struct json_object *root = build_json(run);
	if (!root) {
		errno = ENOMEM;
		return -1;
	}
	const char *text = json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	int status = fputs(text, out) == EOF || fputc('\n', out) == EOF ? -1 : 0;
	json_object_put(root);
	return status || ferror(out) ? -1 : 0;
}
