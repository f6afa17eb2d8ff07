/*
 * outputs/report_series.c - `report SNAP1 SNAP2 SNAP3 ...` (or repeated
 * --versus): the headline figures of each snapshot, one row per snapshot in
 * the order they were captured.
 *
 * Each snapshot is read and modelled in turn and only its point is kept (a
 * json-c object), so a long series needs the memory of one snapshot.  The
 * points form one tree, {"series": [...]}: JSON and XML write it as it is,
 * text is a table, CSV the long form (host, kernel, captured_at, source,
 * metric, value: a warehouse's favourite shape), HTML a table and an SVG line
 * chart of page tables and VmPTE over the snapshots.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/escape.h"
#include "outputs/report_internal.h"
#include "version.h"

static void put(struct json_object *o, const char *key, struct json_object *value)
{
	json_object_object_add(o, key, value);
}

static void put_u64(struct json_object *o, const char *key, uint64_t value)
{
	put(o, key, json_object_new_int64((int64_t)value));
}

static void put_string(struct json_object *o, const char *key, const char *value)
{
	put(o, key, json_object_new_string(value ? value : ""));
}

struct json_object *report_series_point(const struct model_result *r)
{
	const struct snapshot *s = r->snapshot;
	struct json_object *p = json_object_new_object(), *rules = json_object_new_object();
	bool exact = r->processes && r->processes_with_pagemap == r->processes;
	put_string(p, "source", s->source);
	put_string(p, "hostname", s->info.hostname);
	put_string(p, "kernel", s->info.kernel);
	put_string(p, "captured_at", s->info.captured_at);
	put_u64(p, "processes", r->processes);
	put_u64(p, "pagetable_bytes", exact ? r->pagetable_bytes : (uint64_t)(r->pagetable_estimate.point + 0.5));
	put(p, "pagetables_exact", json_object_new_boolean(exact));
	put_u64(p, "vmpte_bytes", r->vmpte_bytes);
	if (r->current_design < r->design_count) {
		put_string(p, "design", r->designs[r->current_design].profile->id);
		put_u64(p, "rmap_bytes", r->designs[r->current_design].rmap_bytes);
	}
	put_u64(p, "today_saved_bytes", r->segment_count ? r->segments[0].pte_pages_saved_pmd_size * MODEL_PAGE_BYTES : 0);
	for (size_t k = 0; k < r->sharing_count; k++)
		if (r->sharing[k].available)
			put_u64(rules, r->sharing[k].rule->id, r->sharing[k].sharable_bytes);
	put(p, "sharable_bytes", rules);
	return p;
}

static const char *text_of(struct json_object *o, const char *key)
{
	struct json_object *v;
	return o && json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "";
}

static int64_t number_of(struct json_object *o, const char *key)
{
	struct json_object *v;
	return o && json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : 0;
}

static int by_capture(const void *a, const void *b)
{
	struct json_object *x = *(struct json_object *const *)a, *y = *(struct json_object *const *)b;
	int c = strcmp(text_of(x, "captured_at"), text_of(y, "captured_at"));
	/* the order given among equal times (qsort is not stable: the index decides) */
	return c ? c : (int)(number_of(x, "given") - number_of(y, "given"));
}

struct json_object *report_build_series(struct json_object **points, size_t count)
{
	for (size_t i = 0; i < count; i++)
		put_u64(points[i], "given", i);
	array_sort(points, count, sizeof(*points), by_capture);
	struct json_object *tree = json_object_new_object(), *series = json_object_new_array();
	put(tree, "schema", json_object_new_int(1));
	put_string(tree, "version", PTSCOPE_VERSION);
	for (size_t i = 0; i < count; i++)
		json_object_array_add(series, json_object_get(points[i]));
	put(tree, "series", series);
	return tree;
}

static const char *bytes(int64_t value, char *buffer)
{
	report_format_bytes((double)value, buffer, 32);
	return buffer;
}

static int write_text(FILE *out, struct json_object *series)
{
	size_t n = json_object_array_length(series);
	char a[32], b[32], c[32], d[32], e[32], host[64];
	struct json_object *first = json_object_array_get_idx(series, 0);
	const char *rule = "";
	json_object_object_foreach(json_object_object_get(first, "sharable_bytes"), id, value) {
		(void)value;
		rule = id;      /* the first rule of the comparison, as the headline's table */
		break;
	}
	fprintf(out, "ptscope report: a series of %zu snapshots, in the order they were captured\n", n);
	fprintf(out, "%-20s %-12s %6s %11s %10s %10s %10s %12.12s\n", "captured at", "host", "procs", "page tables",
		"VmPTE", "rmap now", "huge pages", rule);
	for (size_t i = 0; i < n; i++) {
		struct json_object *p = json_object_array_get_idx(series, i);
		escape_text(host, sizeof(host), text_of(p, "hostname"));
		fprintf(out, "%-20.20s %-12.12s %6lld %10s%c %10s %10s %10s %12s\n", text_of(p, "captured_at"), host,
			(long long)number_of(p, "processes"), bytes(number_of(p, "pagetable_bytes"), a),
			json_object_get_boolean(json_object_object_get(p, "pagetables_exact")) ? ' ' : '~',
			bytes(number_of(p, "vmpte_bytes"), b), bytes(number_of(p, "rmap_bytes"), c),
			bytes(number_of(p, "today_saved_bytes"), d),
			bytes(number_of(json_object_object_get(p, "sharable_bytes"), rule), e));
	}
	report_wrap(out, "  ", "page tables exact from pagemap (~: the smaps estimate); rmap now = the rmap of "
		    "each snapshot's own kernel design; huge pages = what its largest shared segment on huge pages "
		    "would free (what you can do today); the last column what the rule would save. "
		    "--format csv gives every figure in long form, --format html a chart.", 4, 100);
	return 0;
}

static void csv_row(FILE *out, struct json_object *p, const char *metric, int64_t value)
{
	const char *keys[] = { "hostname", "kernel", "captured_at", "source" };
	for (size_t k = 0; k < 4; k++) {
		escape_fputs(escape_csv, text_of(p, keys[k]), out);
		fputc(',', out);
	}
	escape_fputs(escape_csv, metric, out);
	fprintf(out, ",%lld\r\n", (long long)value);
}

static int write_csv(FILE *out, struct json_object *series)
{
	static const char *const metrics[] = { "processes", "pagetable_bytes", "vmpte_bytes", "rmap_bytes",
					       "today_saved_bytes" };
	fputs("host,kernel,captured_at,source,metric,value\r\n", out);
	for (size_t i = 0; i < json_object_array_length(series); i++) {
		struct json_object *p = json_object_array_get_idx(series, i);
		for (size_t m = 0; m < sizeof(metrics) / sizeof(metrics[0]); m++)
			csv_row(out, p, metrics[m], number_of(p, metrics[m]));
		json_object_object_foreach(json_object_object_get(p, "sharable_bytes"), id, value) {
			char metric[128];
			snprintf(metric, sizeof(metric), "sharable_bytes.%s", id);
			csv_row(out, p, metric, json_object_get_int64(value));
		}
	}
	return 0;
}

/* An SVG line chart: one line per figure, a point per snapshot. */
static void line_chart(FILE *out, struct json_object *series)
{
	static const char *const lines[][2] = { { "pagetable_bytes", "page tables" }, { "vmpte_bytes", "VmPTE" },
						{ "today_saved_bytes", "freed by huge pages" } };
	static const char *const colours[] = { "#4a7ab5", "#c0504d", "#6a9a3a" };
	size_t n = json_object_array_length(series);
	const int width = 640, height = 240, left = 70, bottom = 40, top = 20, right = 20;
	int64_t most = 1;
	for (size_t i = 0; i < n; i++)
		for (size_t l = 0; l < 3; l++)
			if (number_of(json_object_array_get_idx(series, i), lines[l][0]) > most)
				most = number_of(json_object_array_get_idx(series, i), lines[l][0]);
	char label[32];
	fprintf(out, "<figure><figcaption>page tables over the series</figcaption>\n<svg id=chart-series "
		"xmlns=\"http://www.w3.org/2000/svg\" width=%d height=%d role=img>\n", width, height);
	fprintf(out, "<line x1=%d y1=%d x2=%d y2=%d stroke=\"#888\"/>\n", left, height - bottom, width - right,
		height - bottom);
	fprintf(out, "<text x=%d y=%d text-anchor=end>%s</text>\n", left - 4, top + 4, bytes(most, label));
	fprintf(out, "<text x=%d y=%d text-anchor=end>0 B</text>\n", left - 4, height - bottom);
	for (size_t l = 0; l < 3; l++) {
		fprintf(out, "<polyline class=series data-figure=\"%s\" fill=none stroke=\"%s\" stroke-width=2 points=\"",
			lines[l][0], colours[l]);
		for (size_t i = 0; i < n; i++) {
			double x = left + (n > 1 ? (double)i * (width - left - right) / (double)(n - 1) : 0);
			double y = height - bottom -
				   (double)number_of(json_object_array_get_idx(series, i), lines[l][0]) *
				   (height - bottom - top) / (double)most;
			fprintf(out, "%s%.1f,%.1f", i ? " " : "", x, y);
		}
		fprintf(out, "\"/>\n<text x=%d y=%d fill=\"%s\">%s</text>\n", left + 8 + (int)l * 150, top - 6,
			colours[l], lines[l][1]);
	}
	for (size_t i = 0; i < n; i++) {
		double x = left + (n > 1 ? (double)i * (width - left - right) / (double)(n - 1) : 0);
		/* the first and last dates inside the picture, not cut at its edges */
		fprintf(out, "<text x=%.1f y=%d text-anchor=%s>", x, height - bottom + 16,
			n > 1 && i == 0 ? "start" : n > 1 && i == n - 1 ? "end" : "middle");
		escape_fputs(escape_html, text_of(json_object_array_get_idx(series, i), "captured_at"), out);
		fputs("</text>\n", out);
	}
	fputs("</svg></figure>\n", out);
}

static int write_html(FILE *out, struct json_object *series)
{
	char a[32];
	fputs("<!DOCTYPE html>\n<html lang=en><head><meta charset=\"utf-8\">\n<title>ptscope report: a series"
	      "</title>\n<style>body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:70em;padding:0 1em}"
	      "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px}td.n{text-align:right}"
	      "svg text{font-size:12px}</style></head><body>\n<h1>ptscope report: a series</h1>\n"
	      "<table id=series><thead><tr><th>captured at</th><th>host</th><th>processes</th><th>page tables</th>"
	      "<th>VmPTE</th><th>rmap now</th><th>freed by huge pages</th></tr></thead><tbody>\n", out);
	for (size_t i = 0; i < json_object_array_length(series); i++) {
		struct json_object *p = json_object_array_get_idx(series, i);
		fputs("<tr><td>", out);
		escape_fputs(escape_html, text_of(p, "captured_at"), out);
		fputs("</td><td>", out);
		escape_fputs(escape_html, text_of(p, "hostname"), out);
		fprintf(out, "</td><td class=n>%lld</td>", (long long)number_of(p, "processes"));
		const char *keys[] = { "pagetable_bytes", "vmpte_bytes", "rmap_bytes", "today_saved_bytes" };
		for (size_t k = 0; k < 4; k++)
			fprintf(out, "<td class=n data-value=\"%lld\">%s</td>", (long long)number_of(p, keys[k]),
				bytes(number_of(p, keys[k]), a));
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
	line_chart(out, series);
	fputs("<p>The same figures as --format json.</p>\n</body></html>\n", out);
	return 0;
}

int report_write_series(FILE *out, struct json_object *tree, enum report_format format)
{
	struct json_object *series = json_object_object_get(tree, "series");
	int status;
	switch (format) {
	case REPORT_TEXT: status = write_text(out, series); break;
	case REPORT_CSV:  status = write_csv(out, series); break;
	case REPORT_HTML: status = write_html(out, series); break;
	case REPORT_XML:  status = report_write_xml(out, tree); break;
	default: {
		const char *text = json_object_to_json_string_ext(tree, JSON_C_TO_STRING_PRETTY |
								  JSON_C_TO_STRING_NOSLASHESCAPE);
		status = fputs(text, out) == EOF || fputc('\n', out) == EOF ? -1 : 0;
		break;
	}
	}
	return status || ferror(out) ? -1 : 0;
}
