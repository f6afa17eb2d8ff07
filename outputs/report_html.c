/*
 * outputs/report_html.c - the report as one page a person reads: the
 * headline figures, the designs and the sharing rules as tables (one row
 * each, its figures in that row), an SVG bar chart of each design's rmap
 * memory and one of each rule's saving (drawn here, no chart library),
 * sortable process, group and file tables (a small inline script), the
 * legends, and with --callgraph the rmap-path diagram embedded as SVG.
 *
 * Self-contained (no network: nothing is fetched), every name from the
 * snapshot escaped (base/escape.h).  The figures are read from the one
 * report tree (report_tree.c), so they are those of JSON and text; each
 * cell carries its exact value in data-value for sorting and for tools.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/escape.h"
#include "analyzer/analyzer.h"
#include "outputs/report_internal.h"

static void text(FILE *out, const char *s)
{
	escape_fputs(escape_html, s ? s : "", out);
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;
	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);
	return v ? json_object_get_string(v) : "";
}

static int64_t num(struct json_object *o, const char *key)
{
	return json_object_get_int64(get(o, key));
}

static void bytes_cell(FILE *out, int64_t value)
{
	char b[32];
	report_format_bytes((double)value, b, sizeof(b));
	fprintf(out, "<td class=n data-value=\"%lld\">%s</td>", (long long)value, b);
}

static void count_cell(FILE *out, int64_t value)
{
	char b[32];
	report_format_count(value < 0 ? 0 : (uint64_t)value, b, sizeof(b));
	fprintf(out, "<td class=n data-value=\"%lld\">%s</td>", (long long)value, b);
}

/* A pid or uid: a number to sort by, but a name to read ("5970", never "5,970"). */
static void identifier_cell(FILE *out, int64_t value)
{
	fprintf(out, "<td class=n data-value=\"%lld\">%lld</td>", (long long)value, (long long)value);
}

static void text_cell(FILE *out, const char *value)
{
	fputs("<td>", out);
	text(out, value);
	fputs("</td>", out);
}

static void header(FILE *out, const char *id, const char *const *columns, bool sortable)
{
	fprintf(out, "<table id=\"%s\"%s><thead><tr>", id, sortable ? " class=sortable" : "");
	for (const char *const *c = columns; *c; c++)
		fprintf(out, "<th>%s</th>", *c);
	fputs("</tr></thead><tbody>\n", out);
}

/* A column of a table whose rows are objects of the report tree: its
 * heading, the key of its figure and how the figure is shown (a percent
 * keeps the tree's decimal as its data-value). */
enum cell_kind { CELL_TEXT, CELL_COUNT, CELL_BYTES, CELL_PERCENT,
		 /* a figure known only within bounds: KEY is the upper bound (the
		  * sort value), KEY_lower the lower; shown as a range when they differ */
		 CELL_COUNT_RANGE, CELL_BYTES_RANGE };
struct column {
	const char *title, *key;
	enum cell_kind kind;
};
#define COLUMN_COUNT(columns) (sizeof(columns) / sizeof((columns)[0]))

/* The heading (h2; none when NULL) and the header row of such a table. */
static void column_header(FILE *out, const char *heading, const char *id, const struct column *columns,
			  size_t count)
{
	if (heading)
		fprintf(out, "<h2>%s</h2>\n", heading);
	fprintf(out, "<table id=\"%s\" class=sortable><thead><tr>", id);
	for (size_t c = 0; c < count; c++)
		fprintf(out, "<th>%s</th>", columns[c].title);
	fputs("</tr></thead><tbody>\n", out);
}

/* The cells of columns[0 .. count - 1], read from object o. */
/* A count or byte figure that may be a range: the upper bound sorts. */
static void range_cell(FILE *out, struct json_object *o, const char *key, bool is_bytes)
{
	char lower_key[64], text[64], lower_text[32], upper_text[32];
	int64_t upper = num(o, key), lower;
	snprintf(lower_key, sizeof(lower_key), "%s_lower", key);
	lower = json_object_object_get_ex(o, lower_key, NULL) ? num(o, lower_key) : upper;
	if (lower == upper || lower < 0 || lower > upper) {
		(is_bytes ? bytes_cell : count_cell)(out, upper);
		return;
	}
	if (is_bytes) {
		report_format_byte_range((double)lower, (double)upper, text, sizeof(text));
	} else {
		report_format_count((uint64_t)lower, lower_text, sizeof(lower_text));
		report_format_count((uint64_t)upper, upper_text, sizeof(upper_text));
		snprintf(text, sizeof(text), "%s-%s", lower_text, upper_text);
	}
	fprintf(out, "<td class=n data-value=\"%lld\" data-lower=\"%lld\">%s</td>", (long long)upper,
		(long long)lower, text);
}

static void column_cells(FILE *out, struct json_object *o, const struct column *columns, size_t count)
{
	for (const struct column *c = columns; c < columns + count; c++) {
		char percent[32];
		switch (c->kind) {
		case CELL_TEXT: text_cell(out, str(o, c->key)); break;
		case CELL_COUNT: count_cell(out, num(o, c->key)); break;
		case CELL_BYTES: bytes_cell(out, num(o, c->key)); break;
		case CELL_COUNT_RANGE: range_cell(out, o, c->key, false); break;
		case CELL_BYTES_RANGE: range_cell(out, o, c->key, true); break;
		case CELL_PERCENT:
			report_format_percent(json_object_get_double(get(o, c->key)), false, percent, sizeof(percent));
			fprintf(out, "<td class=n data-value=\"%s\">%s</td>", str(o, c->key), percent);
			break;
		}
	}
}

/* A whole row of such a table. */
static void column_row(FILE *out, struct json_object *o, const struct column *columns, size_t count)
{
	fputs("<tr>", out);
	column_cells(out, o, columns, count);
	fputs("</tr>\n", out);
}

/* One headline figure: its label in th, its figure in the td of that row. */
static void headline_row(FILE *out, const char *id, const char *label, int64_t value, bool is_bytes)
{
	fprintf(out, "<tr id=\"%s\"><th>", id);
	text(out, label);
	fputs("</th>", out);
	(is_bytes ? bytes_cell : count_cell)(out, value);
	fputs("</tr>\n", out);
}

static void write_headlines(FILE *out, struct json_object *tree)
{
	struct json_object *h = get(tree, "headlines"), *s = get(h, "sharing"), *r = get(h, "rmap");
	char label[256];
	fputs("<h2>What this would save</h2>\n<table id=headlines><tbody>\n", out);
	if (s) {
		/* bounds (no pagemap): both, so no part reads as more than its whole */
		bool bounds = num(s, "pages_lower") != num(s, "pages");
		bool tables_bounds = num(s, "pagetable_bytes_lower") != num(s, "pagetable_bytes");
		snprintf(label, sizeof(label), "PTE pages shared page tables (%s) would save%s", str(s, "rule"),
			 bounds ? ", at most" : "");
		headline_row(out, "h-sharing-pages", label, num(s, "pages"), false);
		snprintf(label, sizeof(label), "bytes %s would save%s", str(s, "rule"), bounds ? ", at most" : "");
		headline_row(out, "h-sharing-bytes", label, num(s, "bytes"), true);
		if (bounds) {
			snprintf(label, sizeof(label), "bytes %s would save, at least", str(s, "rule"));
			headline_row(out, "h-sharing-bytes-lower", label, num(s, "bytes_lower"), true);
		}
		headline_row(out, "h-pagetables", tables_bounds ? "page tables of these processes, at most"
				: "page tables of these processes", num(s, "pagetable_bytes"), true);
		if (tables_bounds)
			headline_row(out, "h-pagetables-lower", "page tables of these processes, at least",
				     num(s, "pagetable_bytes_lower"), true);
	}
	if (r) {
		snprintf(label, sizeof(label), "rmap today (%s) for these processes", str(r, "design"));
		headline_row(out, "h-rmap", label, num(r, "rmap_bytes"), true);
		snprintf(label, sizeof(label), "rmap under the baseline (%s)", str(r, "baseline"));
		headline_row(out, "h-rmap-baseline", label, num(r, "baseline_rmap_bytes"), true);
	}
	fputs("</tbody></table>\n<p class=sentence>", out);
	text(out, str(s, "text"));
	fputs("<br>", out);
	text(out, str(r, "text"));
	fputs("</p>\n", out);
	struct json_object *scope = get(tree, "headline_scope");
	if (scope) {
		/* --filter: whose these figures are */
		fputs("<p class=legend id=headline-scope>", out);
		if (num(scope, "processes"))
			fprintf(out, "These figures are of the %lld of %lld processes whose command line matches --filter '",
				(long long)num(scope, "processes"), (long long)num(scope, "of"));
		else
			fputs("No process matches --filter '", out);
		text(out, str(scope, "filter"));
		fprintf(out, "'%s; the tables below are of all %lld.</p>\n", num(scope, "processes") ? "" : ": these are of all",
			(long long)num(scope, "of"));
	}
}

/* The bars of one chart, gathered while its table is written. */
struct bars {
	const char **labels;
	int64_t *values;
	size_t count;
};

static struct bars bars_for(size_t most)
{
	return (struct bars){ xcalloc(most + 1, sizeof(const char *)), xcalloc(most + 1, sizeof(int64_t)), 0 };
}

static void bars_add(struct bars *bars, const char *label, int64_t value)
{
	bars->labels[bars->count] = label;
	bars->values[bars->count++] = value;
}

/* A horizontal bar chart: one bar per (label, value), values >= 0 drawn,
 * negative ones as a zero-length bar with their figure.  Frees the bars. */
static void bar_chart(FILE *out, const char *id, const char *title, struct bars *bars)
{
	const char **labels = bars->labels;
	const int64_t *values = bars->values;
	size_t count = bars->count;
	int64_t top = 1;
	for (size_t i = 0; i < count; i++)
		top = values[i] > top ? values[i] : top;
	const int row = 22, label_width = 230, bar_width = 420;
	fprintf(out, "<figure><figcaption>%s</figcaption>\n<svg id=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" "
		"width=\"%d\" height=\"%zu\" role=img>\n", title, id, label_width + bar_width + 90, (size_t)row * count + 4);
	for (size_t i = 0; i < count; i++) {
		char b[32];
		double length = values[i] > 0 ? (double)bar_width * (double)values[i] / (double)top : 0;
		report_format_bytes((double)values[i], b, sizeof(b));
		fprintf(out, "<text x=\"%d\" y=\"%zu\" text-anchor=end>", label_width - 6, (size_t)row * i + 15);
		text(out, labels[i]);
		fprintf(out, "</text><rect x=\"%d\" y=\"%zu\" width=\"%.1f\" height=\"%d\" class=bar><title>",
			label_width, (size_t)row * i + 3, length, row - 6);
		text(out, labels[i]);
		fprintf(out, ": %s</title></rect><text x=\"%.1f\" y=\"%zu\">%s</text>\n", b, label_width + length + 4,
			(size_t)row * i + 15, b);
	}
	fputs("</svg></figure>\n", out);
	free(bars->labels);
	free(bars->values);
}

/* The text report's sections the tables above do not carry, from the same
 * tree: page tables beside VmPTE, the smaps estimate with its bounds, the
 * kernel's counters, rmap work per event, what a fork copies per rule. */
static void write_pagetables(FILE *out, struct json_object *tree)
{
	struct json_object *t = get(tree, "totals"), *e = get(tree, "pagetable_estimate"), *k = get(tree, "kernel_counters");
	fputs("<h2>Page tables</h2>\n<table id=pagetables><tbody>\n", out);
	headline_row(out, "pt-exact", "page tables, exact from pagemap", num(t, "pagetable_bytes"), true);
	headline_row(out, "pt-vmpte", "VmPTE, the kernel's count", num(t, "vmpte_bytes"), true);
	headline_row(out, "pt-pte-pages", "PTE pages", num(t, "pte_pages"), false);
	headline_row(out, "pt-upper-pages", "higher-level pages", num(t, "upper_level_pages"), false);
	headline_row(out, "pt-matching", "processes whose VmPTE matches to the page", num(t, "processes_pagetable_exact"),
		     false);
	headline_row(out, "pt-estimate", "smaps-only estimate", num(e, "point"), true);
	headline_row(out, "pt-estimate-lower", "its lower bound", num(e, "lower"), true);
	headline_row(out, "pt-estimate-upper", "its upper bound", num(e, "upper"), true);
	if (get(k, "meminfo_pagetables_bytes")) {
		headline_row(out, "pt-meminfo", "meminfo PageTables (the kernel's counter)", num(k, "meminfo_pagetables_bytes"),
			     true);
		headline_row(out, "pt-remainder", "of it not these processes' tables", num(k, "pagetables_remainder_bytes"),
			     true);
	}
	fputs("</tbody></table>\n<p class=legend>", out);
	text(out, str(e, "method"));
	fputs("</p>\n", out);
}

static void write_work(FILE *out, struct json_object *tree)
{
	static const struct column columns[] = {
		{ "design", "id", CELL_TEXT }, { "fork rmap", "work_per_event.fork_rmap_calls", CELL_COUNT },
		{ "fork allocations", "work_per_event.fork_chain_allocations", CELL_COUNT },
		{ "fork anon_vma", "work_per_event.fork_anon_vma_calls", CELL_COUNT },
		{ "exit rmap", "work_per_event.exit_rmap_calls", CELL_COUNT },
	};
	struct json_object *designs = get(tree, "designs");
	const char *arch = str(get(tree, "snapshot"), "arch");
	column_header(out, "rmap work if every process forked once and exited once", "work", columns,
		      COLUMN_COUNT(columns));
	for (size_t i = 0; i < json_object_array_length(designs); i++) {
		struct json_object *d = json_object_array_get_idx(designs, i), *w = get(d, "work_per_event");
		if (arch[0] && strcmp(str(d, "arch"), arch))
			continue;
		fputs("<tr>", out);
		text_cell(out, str(d, "id"));
		count_cell(out, num(w, "fork_rmap_calls"));
		count_cell(out, num(w, "fork_chain_allocations"));
		count_cell(out, num(w, "fork_anon_vma_calls"));
		count_cell(out, num(w, "exit_rmap_calls"));
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

/* A time in microseconds with its error (the tree's decimals). */
static void time_cell(FILE *out, struct json_object *o, const char *key)
{
	char error_key[64];
	snprintf(error_key, sizeof(error_key), "%s_error_us", key);
	char us_key[64];
	snprintf(us_key, sizeof(us_key), "%s_us", key);
	fprintf(out, "<td class=n data-value=\"%s\">%s &plusmn; %s</td>", str(o, us_key), str(o, us_key),
		str(o, error_key));
}

/* --calibration: what a fork and the child's exit cost, every process
 * forking once and per process, today and under the headline rule. */
static void write_time(FILE *out, struct json_object *tree)
{
	static const char *const columns[] = { "pid", "command", "fork us (CPU)", "exit us (CPU)",
		"fork+exit+wait us (elapsed)", "shared page tables: rule", "fork us", "exit us", NULL };
	struct json_object *time = get(tree, "time"), *processes = get(time, "processes");
	if (!time)
		return;
	fputs("<h2>Time</h2>\n<p class=legend>", out);
	text(out, str(time, "method"));
	fputs(". Calibration: ", out);
	text(out, str(get(time, "calibration"), "file"));
	fputs(".</p>\n", out);
	header(out, "time", columns, true);
	size_t n = processes ? json_object_array_length(processes) : 0;
	for (size_t i = 0; i <= n; i++) {
		struct json_object *row = i ? json_object_array_get_idx(processes, i - 1) : get(time, "total");
		struct json_object *shared = get(row, "headline_sharing");
		if (!row)
			continue;
		fputs("<tr>", out);
		if (i)
			identifier_cell(out, num(row, "pid"));
		else
			text_cell(out, "");
		text_cell(out, str(row, "command"));
		time_cell(out, row, "fork");
		time_cell(out, row, "exit");
		time_cell(out, row, "fork_exit");
		text_cell(out, str(shared, "id"));
		if (shared) {
			time_cell(out, shared, "fork");
			time_cell(out, shared, "exit");
		} else {
			text_cell(out, "");
			text_cell(out, "");
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

static void write_fork_copies(FILE *out, struct json_object *tree)
{
	static const struct column columns[] = {
		{ "under", NULL, CELL_TEXT }, { "PTE pages copied", NULL, CELL_COUNT },
		{ "PTEs copied", NULL, CELL_COUNT },
	};
	struct json_object *t = get(tree, "totals"), *pages = get(t, "fork_pte_pages_copied"),
			   *ptes = get(t, "fork_ptes_copied");
	column_header(out, "What a fork of every process copies", "forks", columns, COLUMN_COUNT(columns));
	json_object_object_foreach(pages, rule, value) {
		fputs("<tr>", out);
		text_cell(out, !strcmp(rule, "none") ? "today" : rule);
		count_cell(out, json_object_get_int64(value));
		count_cell(out, num(ptes, rule));
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

/* What a user can do today: the segments' huge-page what-if (from the tree). */
static void write_today(FILE *out, struct json_object *tree)
{
	static const struct column columns[] = {
		{ "shared segment", "path", CELL_TEXT }, { "size", "bytes", CELL_BYTES },
		{ "processes", "processes", CELL_COUNT }, { "PTE pages now", "pte_pages", CELL_COUNT },
		{ "saved on PMD-size huge pages", "saved_bytes_on_pmd_size_pages", CELL_BYTES },
		{ "saved on the next size", "saved_bytes_on_next_size_pages", CELL_BYTES },
		{ "PMD pages hugetlb PMD sharing saves", "pmd_pages_saved_by_hugetlb_pmd_sharing", CELL_COUNT },
		{ "a process touching all of it adds", "touch_all_bytes", CELL_BYTES },
	};
	struct json_object *today = get(tree, "today"), *segments = get(today, "segments");
	size_t n = json_object_array_length(segments);
	column_header(out, "What you can do today", "today", columns, COLUMN_COUNT(columns));
	for (size_t i = 0; i < n; i++)
		column_row(out, json_object_array_get_idx(segments, i), columns, COLUMN_COUNT(columns));
	fputs("</tbody></table>\n<p class=sentence>", out);
	text(out, str(today, "text"));
	fputs("</p>\n", out);
}

static void write_designs(FILE *out, struct json_object *tree)
{
	static const struct column columns[] = {
		{ "design", "id", CELL_TEXT }, { "family", "family", CELL_TEXT }, { "arch", "arch", CELL_TEXT },
		{ "pte_chain", "pte_chain_bytes", CELL_BYTES }, { "object rmap", "object_rmap_bytes", CELL_BYTES },
		{ "rmap", "rmap_bytes", CELL_BYTES }, { "baseline", "baseline", CELL_TEXT },
		{ "saves", "saves_bytes", CELL_BYTES }, { "page field", "page_field_bytes", CELL_BYTES },
		{ "priced over", "page_field_ram_bytes", CELL_BYTES },
	};
	struct json_object *designs = get(tree, "designs");
	const char *arch = str(get(tree, "snapshot"), "arch");
	size_t n = json_object_array_length(designs);
	struct bars bars = bars_for(n);
	column_header(out, "Reverse map by design", "designs", columns, COLUMN_COUNT(columns));
	for (size_t i = 0; i < n; i++) {
		struct json_object *d = json_object_array_get_idx(designs, i);
		column_row(out, d, columns, COLUMN_COUNT(columns));
		if (!strcmp(str(d, "arch"), arch[0] ? arch : "x86_64"))
			bars_add(&bars, str(d, "id"), num(d, "rmap_bytes"));
	}
	fputs("</tbody></table>\n<p class=legend>rmap = pte_chain + object rmap (per-VMA fields, anon_vmas, "
	      "anon_vma_chains) of the captured processes; saves = the baseline's rmap minus this design's (the "
	      "baseline: the oldest design of the same architecture and PTE width); page field = the rmap field of "
	      "every struct page, priced over the RAM the architecture can address (i386 without PAE: at most 4 GiB), "
	      "never in saves.</p>\n<ul class=legend>\n", out);
	for (int f = 0; f < RMAP_FAMILY_COUNT; f++) {
		fprintf(out, "<li><b>%s</b> ", rmap_families[f].name);
		text(out, rmap_families[f].summary);
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
	char title[128];
	snprintf(title, sizeof(title), "rmap memory of these processes by design (%s)", arch);
	char escaped[400];
	escape_html(escaped, sizeof(escaped), title);
	bar_chart(out, "chart-designs", escaped, &bars);
}

static void write_sharing(FILE *out, struct json_object *tree, const struct report_options *o,
			  const struct model_result *r)
{
	/* the last column is the rule's description, from the model (the tree has none) */
	static const struct column columns[] = {
		{ "rule", "id", CELL_TEXT }, { "pages saved", "pages", CELL_COUNT_RANGE },
		{ "bytes saved", "bytes", CELL_BYTES_RANGE },
		{ "% of page tables", "percent_of_pagetables", CELL_PERCENT },
		{ "eligible VMAs", "eligible_vmas", CELL_COUNT }, { "partners", "partners", CELL_TEXT },
		{ "in a kernel", "kernel", CELL_TEXT }, { "since", "since", CELL_TEXT },
		{ "why nothing", "why_zero", CELL_TEXT }, { "what it is", NULL, CELL_TEXT },
	};
	struct json_object *sharing = get(tree, "sharing");
	size_t n = json_object_array_length(sharing);
	struct bars bars = bars_for(n);
	column_header(out, "Page-table sharing", "rules", columns, COLUMN_COUNT(columns));
	for (size_t i = 0; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(sharing, i);
		fputs("<tr>", out);
		column_cells(out, s, columns, COLUMN_COUNT(columns) - 1);
		text_cell(out, i < r->sharing_count ? r->sharing[i].rule->description : "");
		fputs("</tr>\n", out);
		bars_add(&bars, str(s, "id"), num(s, "bytes"));
	}
	fputs("</tbody></table>\n", out);
	bar_chart(out, "chart-rules", "page-table bytes each sharing rule would save", &bars);
	/* files: every contributing file with --per-file, else the top ones;
	 * each row the rule's id, then the figures of one of its files */
	static const struct column file_columns[] = {
		{ "rule", "id", CELL_TEXT }, { "file", "path", CELL_TEXT }, { "pages", "pages", CELL_COUNT },
		{ "mappings", "mappings", CELL_COUNT },
	};
	fprintf(out, "<h3>Files whose page tables would be shared%s</h3>\n", o->per_file ? "" : " (top files; --per-file for all)");
	column_header(out, NULL, "files", file_columns, COLUMN_COUNT(file_columns));
	for (size_t i = 0; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(sharing, i), *files = get(s, "files");
		for (size_t f = 0; files && f < json_object_array_length(files); f++) {
			struct json_object *file = json_object_array_get_idx(files, f);
			fputs("<tr>", out);
			column_cells(out, s, file_columns, 1);
			column_cells(out, file, file_columns + 1, COLUMN_COUNT(file_columns) - 1);
			fputs("</tr>\n", out);
		}
	}
	fputs("</tbody></table>\n<p class=legend>/dev/zero (deleted) is shared anonymous memory (mmap MAP_SHARED|"
	      "MAP_ANONYMOUS, e.g. a database's shared buffers); /SYSV... a System V segment; /memfd:... a memfd.</p>\n", out);
}

static void write_processes(FILE *out, const struct model_result *r, const struct report_options *o,
			    const struct report_view *v)
{
	static const char *const columns[] = { "pid", "user", "command", "VmPTE", "page tables", "Rss", "Pss",
		"sharable", NULL };
	size_t limit = o->per_process && !o->top_given ? v->count : report_top(o);
	if (limit > v->count)
		limit = v->count;
	fprintf(out, "<h2>Processes</h2>\n<p>%zu of %zu processes%s, sorted by %s; click a column to sort.</p>\n",
		limit, r->processes, o->filter ? " matching the filter" : "", report_sort_name(o->sort));
	header(out, "processes", columns, true);
	for (size_t i = 0; i < limit; i++) {
		const struct model_process *p = &r->process_figures[v->order[i]];
		char uid[300] = "";
		const char *name = report_user_name(r, p->process);
		if (name)
			snprintf(uid, sizeof(uid), "%s", name);
		else if (p->process->has_status && p->process->status.has_uid)
			snprintf(uid, sizeof(uid), "%u", p->process->status.uid);
		fputs("<tr>", out);
		identifier_cell(out, p->process->pid);
		text_cell(out, uid);
		text_cell(out, report_command(p->process));
		bytes_cell(out, (int64_t)p->vmpte_bytes);
		bytes_cell(out, (int64_t)p->pagetable_bytes);
		bytes_cell(out, (int64_t)p->rss_bytes);
		bytes_cell(out, (int64_t)p->pss_bytes);
		bytes_cell(out, r->headline_rule < r->sharing_count
			   ? (int64_t)llround(p->sharable_pages[r->headline_rule] * MODEL_PAGE_BYTES) : 0);
		fputs("</tr>\n", out);
	}
	fprintf(out, "</tbody></table>\n<p class=legend>sharable = what %s would save of the process's page "
		"tables, each shared page split among its sharers.</p>\n",
		r->headline_rule < r->sharing_count ? r->sharing[r->headline_rule].rule->id : "no rule");
	if (o->group_by == GROUP_NONE)
		return;
	static const char *const group_columns[] = { "group", "processes", "VmPTE", "page tables", "Rss", "Pss",
		"sharable", NULL };
	fprintf(out, "<h2>Processes by %s</h2>\n", report_group_name(o->group_by));
	header(out, "groups", group_columns, true);
	for (size_t g = 0; g < v->group_count; g++) {
		const struct report_group_row *row = &v->groups[g];
		fputs("<tr>", out);
		text_cell(out, row->key);
		count_cell(out, (int64_t)row->processes);
		bytes_cell(out, (int64_t)row->vmpte_bytes);
		bytes_cell(out, (int64_t)row->pagetable_bytes);
		bytes_cell(out, (int64_t)row->rss_bytes);
		bytes_cell(out, (int64_t)row->pss_bytes);
		bytes_cell(out, (int64_t)llround(row->sharable_pages * MODEL_PAGE_BYTES));
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
}

static void write_comparison(FILE *out, struct json_object *tree, const struct report_options *o)
{
	struct json_object *rows = report_comparison_rows(tree, o);
	if (!rows)
		return;
	static const struct column columns[] = {
		{ "figure", "name", CELL_TEXT }, { "before", "before", CELL_TEXT }, { "after", "after", CELL_TEXT },
		{ "delta", "delta", CELL_TEXT },
	};
	column_header(out, "Compared with the snapshot before (--versus)", "versus", columns, COLUMN_COUNT(columns));
	for (size_t i = 0; i < json_object_array_length(rows); i++)
		column_row(out, json_object_array_get_idx(rows, i), columns, COLUMN_COUNT(columns));
	fputs("</tbody></table>\n", out);
	json_object_put(rows);
}

/* The diagrams Graphviz wrote, each from its <svg> element on (no XML
 * prolog or doctype inside HTML), one section per job. */
static void write_callgraphs(FILE *out, const struct report_options *o)
{
	for (size_t i = 0; i < o->diagram_count; i++) {
		const struct report_diagram *d = &o->diagrams[i];
		const char *start = d->svg ? strstr(d->svg, "<svg") : NULL;
		if (!start)
			continue;
		fprintf(out, "<h2 id=\"callgraph-%s\">Which kernel code paths reach the rmap: %s</h2>\n<p class=legend>",
			d->path->name, d->path->name);
		text(out, d->path->job);
		fputs(", in ", out);
		text(out, o->callgraph_tree);
		fputs(" (pruned: ", out);
		text(out, d->path->pruned);
		fprintf(out, "), with this report's counts written on the rmap functions that do the work (untouched "
			"ones grey): what <code>ptscope callgraph TREE --path %s --overlay-events SNAPSHOT</code> "
			"draws.</p>\n<div class=callgraph>", d->path->name);
		fputs(start, out);
		fputs("</div>\n", out);
	}
}

/* Click a column header to sort by it (numbers by data-value). */
static const char sort_script[] =
	"<script>\n"
	"document.querySelectorAll('table.sortable').forEach(function (table) {\n"
	"  table.querySelectorAll('th').forEach(function (th, column) {\n"
	"    th.addEventListener('click', function () {\n"
	"      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);\n"
	"      var down = th.getAttribute('aria-sort') !== 'descending';\n"
	"      rows.sort(function (a, b) {\n"
	"        var x = a.cells[column], y = b.cells[column];\n"
	"        var p = x.dataset.value, q = y.dataset.value;\n"
	"        var c = p !== undefined && q !== undefined ? Number(p) - Number(q)\n"
	"                : x.textContent.localeCompare(y.textContent);\n"
	"        return down ? -c : c;\n"
	"      });\n"
	"      table.querySelectorAll('th').forEach(function (h) { h.removeAttribute('aria-sort'); });\n"
	"      th.setAttribute('aria-sort', down ? 'descending' : 'ascending');\n"
	"      rows.forEach(function (row) { body.appendChild(row); });\n"
	"    });\n"
	"  });\n"
	"});\n"
	"</script>\n";

int report_write_html(FILE *out, struct json_object *tree, const struct model_result *r,
		      const struct report_options *o)
{
	struct json_object *snapshot = get(tree, "snapshot");
	fputs("<!DOCTYPE html>\n<html lang=en><head><meta charset=\"utf-8\">\n"
	      "<meta name=viewport content=\"width=device-width, initial-scale=1\">\n<title>ptscope report: ", out);
	text(out, str(snapshot, "hostname"));
	fputs("</title>\n<style>\n"
	      "body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:70em;padding:0 1em;color:#222}\n"
	      "table{border-collapse:collapse;margin:.5em 0;font-size:90%}\n"
	      "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}td.n{text-align:right;white-space:nowrap}\n"
	      "tbody td:first-child{white-space:nowrap}\n"
	      "thead th{background:#eef;cursor:pointer}#headlines th{font-weight:normal}#headlines td{font-weight:bold}\n"
	      "th[aria-sort=descending]::after{content:' \\25BC'}th[aria-sort=ascending]::after{content:' \\25B2'}\n"
	      ".legend{font-size:85%;color:#555;max-width:60em}figure{margin:1em 0}figcaption{font-weight:bold}\n"
	      "svg text{font-size:12px;font-family:system-ui,sans-serif}rect.bar{fill:#4a7ab5}\n"
	      ".callgraph{overflow:auto;max-width:100%;border:1px solid #ddd}.callgraph svg{max-width:100%;height:auto}\n"
	      "</style></head><body>\n<h1>ptscope report</h1>\n<p>", out);
	text(out, str(snapshot, "hostname"));
	fputs(", kernel ", out);
	text(out, str(snapshot, "kernel"));
	fputs(" (", out);
	text(out, str(snapshot, "arch"));
	fputs("), captured ", out);
	text(out, str(snapshot, "captured_at"));
	fprintf(out, ", %lld processes, pagemap: ", (long long)num(get(tree, "totals"), "processes"));
	text(out, str(snapshot, "pagemap"));
	fputs(". Source: ", out);
	text(out, str(snapshot, "source"));
	fputs(".</p>\n", out);
	write_today(out, tree);     /* what a user can do today first */
	write_headlines(out, tree);
	write_pagetables(out, tree);
	write_designs(out, tree);
	write_work(out, tree);
	write_sharing(out, tree, o, r);
	write_fork_copies(out, tree);
	write_time(out, tree);
	struct report_view view;
	if (report_view_build(&view, r, o))
		return -1;
	write_processes(out, r, o, &view);
	report_view_free(&view);
	write_comparison(out, tree, o);
	write_callgraphs(out, o);
	fprintf(out, "<p class=legend>ptscope %s, report schema %lld; the same figures as --format json.</p>\n",
		str(tree, "version"), (long long)num(tree, "schema"));
	fputs(sort_script, out);
	fputs("</body></html>\n", out);
	return ferror(out) ? -1 : 0;
}
