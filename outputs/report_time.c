/*
 * outputs/report_time.c - `report SNAPSHOT --calibration FILE`: what a fork
 * and the child's exit cost, per process and for every process forking
 * once, today and under each sharing rule, and each design's counted steps
 * at this machine's per-step costs.
 *
 * A price is the calibration's fit (outputs/calibration.c) applied to the
 * model's counts: base + vma x VMAs + pte_page x PTE pages + pte x PTEs +
 * anon_vma x anon_vmas, base being the fitted fork term with the calibrating
 * process's own VMAs taken away.  Three fits price three things: the fork()
 * call, the child's exit (it frees what the fork gave it: the same counts)
 * with the parent's wait, and the whole fork + exit + wait as lmbench's
 * lat_proc times it.  The error of a price takes the terms' errors as
 * independent (the root of the summed squares).
 *
 * A sharing rule changes the PTE pages and PTEs a fork copies (model/fork.c)
 * and nothing else.  A design other than the snapshot's own is priced from
 * its counted steps, at today's costs: the VMAs, PTE pages and PTEs today's
 * fork copies, plus its rmap calls beyond today's (the PTEs of VMAs today's
 * lazy fork skips) at the PTE price, and its own anon_vma count.  Its
 * pte_chain allocations are no step of today's kernel: counted, not priced,
 * so its figure is a lower bound.  munmap is priced from the 1 MiB munmap
 * the calibration timed, per present page.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/alloc.h"
#include "base/array.h"
#include "outputs/bench.h"
#include "outputs/report_internal.h"

/* What a price is of: the calibration's terms in order. */
struct time_counts {
	double of[CALIBRATION_TERMS];   /* forks, VMAs, PTE pages, PTEs, anon_vmas */
};
struct price {
	double us, error_us;
};
/* A fork, the child's exit, and the whole as lmbench times it. */
struct time_prices {
	struct price part[CALIBRATION_PARTS];
};

static const char *const priced_names[CALIBRATION_PARTS] = { "fork_exit", "fork", "exit" };

static struct price price_of(const struct calibration_fit *fit, const struct time_counts *counts)
{
	struct price p = { fit->base_us * counts->of[0], 0 };
	double squares = 0;
	for (size_t j = 0; j < CALIBRATION_TERMS; j++) {
		if (j)
			p.us += fit->fit.coefficients[j] * counts->of[j];
		double e = fit->fit.errors[j] * counts->of[j];
		squares += e * e;
	}
	p.error_us = sqrt(squares);
	return p;
}

static void prices_of(const struct calibration *c, const struct time_counts *counts, struct time_prices *prices)
{
	for (size_t p = 0; p < CALIBRATION_PARTS; p++)
		prices->part[p] = price_of(&c->parts[p], counts);
}

static uint64_t process_vmas(const struct process *p)
{
	uint64_t count = 0;
	for (size_t v = 0; v < p->vma_count; v++)
		count += !VMA_HAS_FLAG(&p->vmas[v], VMF_DC) && strcmp(p->vmas[v].path, "[vsyscall]");
	return count;
}

/* One process's fork under sharing rule `rule` (SIZE_MAX: today). */
static void process_counts(const struct model_result *r, size_t i, size_t rule, struct time_counts *counts)
{
	const struct model_process *mp = &r->process_figures[i];
	const struct model_design *today = &r->designs[r->current_design];
	const struct event_work *work = model_process_work(r, i, r->current_design);
	const struct fork_copy *copy = rule < r->sharing_count ? &mp->fork_copies[rule] : &mp->fork_copy;
	counts->of[0] = 1;
	counts->of[1] = (double)process_vmas(&r->snapshot->processes[i]);
	counts->of[2] = (double)copy->pte_pages;
	counts->of[3] = (double)copy->ptes;
	counts->of[4] = work && today->profile->anon_vma_fork != ANON_VMA_NONE ? (double)work->fork_anon_vma_calls : 0;
}

static void add_counts(struct time_counts *sum, const struct time_counts *more)
{
	for (size_t j = 0; j < CALIBRATION_TERMS; j++)
		sum->of[j] += more->of[j];
}

/* Every process forking once, under rule (SIZE_MAX: today): the processes'
 * counts summed, so no process's figure exceeds the total. */
static void total_counts(const struct model_result *r, size_t rule, struct time_counts *total)
{
	memset(total, 0, sizeof(*total));
	for (size_t i = 0; i < r->processes; i++) {
		struct time_counts one;
		process_counts(r, i, rule, &one);
		add_counts(total, &one);
	}
}

/* Design d's counted steps for every process forking once (file comment). */
static void design_counts(const struct model_result *r, size_t d, struct time_counts *counts, uint64_t *unpriced)
{
	const struct model_design *today = &r->designs[r->current_design], *design = &r->designs[d];
	total_counts(r, SIZE_MAX, counts);
	if (design->work.fork_rmap_calls > today->work.fork_rmap_calls)
		counts->of[3] += (double)(design->work.fork_rmap_calls - today->work.fork_rmap_calls);
	counts->of[4] = design->profile->anon_vma_fork != ANON_VMA_NONE ? (double)design->work.fork_anon_vma_calls : 0;
	*unpriced = design->profile->anon_vma_fork == ANON_VMA_NONE ? design->work.fork_chain_allocations : 0;
}

static double change_percent(double now_us, double then_us)
{
	return then_us > 0 ? (now_us - then_us) / then_us * 100 : 0;
}

/* ---- the tree (JSON, XML, CSV, HTML) ---- */

/* One decimal place, printed as such (no 17-digit doubles). */
static struct json_object *number(double value)
{
	if (!isfinite(value))
		return NULL;
	char text[48];
	double rounded = round(value * 10) / 10;
	snprintf(text, sizeof(text), "%.1f", rounded == 0 ? 0.0 : rounded);
	return json_object_new_double_s(rounded == 0 ? 0.0 : rounded, text);
}

static struct json_object *counts_json(const struct time_counts *counts)
{
	static const char *const keys[CALIBRATION_TERMS] = { "forks", "vmas", "pte_pages", "ptes", "anon_vmas" };
	struct json_object *o = json_object_new_object();
	for (size_t j = 0; j < CALIBRATION_TERMS; j++)
		json_object_object_add(o, keys[j], json_object_new_uint64((uint64_t)counts->of[j]));
	return o;
}

/* Prices as flat keys (fork_us, fork_error_us, ...), with their change
 * from `today` when given. */
static void put_prices(struct json_object *o, const struct time_prices *prices, const struct time_prices *today)
{
	for (size_t p = 0; p < CALIBRATION_PARTS; p++) {
		char key[48];
		snprintf(key, sizeof(key), "%s_us", priced_names[p]);
		json_object_object_add(o, key, number(prices->part[p].us));
		snprintf(key, sizeof(key), "%s_error_us", priced_names[p]);
		json_object_object_add(o, key, number(prices->part[p].error_us));
		if (today) {
			snprintf(key, sizeof(key), "%s_change_percent", priced_names[p]);
			json_object_object_add(o, key, number(change_percent(prices->part[p].us, today->part[p].us)));
		}
	}
}

/* Today's prices and each available rule's, for one process or the total. */
static struct json_object *row_json(const struct model_result *r, const struct calibration *c, size_t process)
{
	struct json_object *o = json_object_new_object(), *rules = json_object_new_array();
	struct time_counts counts;
	struct time_prices today, shared;
	if (process < r->processes)
		process_counts(r, process, SIZE_MAX, &counts);
	else
		total_counts(r, SIZE_MAX, &counts);
	prices_of(c, &counts, &today);
	json_object_object_add(o, "counts", counts_json(&counts));
	put_prices(o, &today, NULL);
	for (size_t k = 0; k < r->sharing_count; k++) {
		if (!r->sharing[k].available)
			continue;
		struct json_object *rule = json_object_new_object();
		if (process < r->processes)
			process_counts(r, process, k, &counts);
		else
			total_counts(r, k, &counts);
		prices_of(c, &counts, &shared);
		json_object_object_add(rule, "id", json_object_new_string(r->sharing[k].rule->id));
		json_object_object_add(rule, "pte_pages", json_object_new_uint64((uint64_t)counts.of[2]));
		json_object_object_add(rule, "ptes", json_object_new_uint64((uint64_t)counts.of[3]));
		put_prices(rule, &shared, &today);
		json_object_array_add(rules, rule);
		if (k == r->headline_rule)   /* the seed-004 line's rule, for tables of one row per process */
			json_object_object_add(o, "headline_sharing", json_object_get(rule));
	}
	json_object_object_add(o, "sharing", rules);
	return o;
}

static struct json_object *calibration_json(const struct calibration *c, const char *path)
{
	struct json_object *o = json_object_new_object(), *residuals = json_object_new_object();
	json_object_object_add(o, "file", json_object_new_string(path ? path : ""));
	json_object_object_add(o, "kernel", json_object_new_string(c->kernel));
	json_object_object_add(o, "cpu_model", json_object_new_string(c->cpu_model));
	json_object_object_add(o, "date", json_object_new_string(c->date));
	for (size_t p = 0; p < CALIBRATION_PARTS; p++)
		json_object_object_add(residuals, priced_names[p], number(c->parts[p].fit.residual));
	json_object_object_add(o, "residual_us", residuals);
	return o;
}

/* The largest mapping's munmap under the snapshot's own design (a THP's
 * PMD one call where that design says so), or NULL when none maps a page. */
static const struct munmap_work *today_munmap(const struct model_result *r)
{
	if (r->current_design >= r->design_count || !r->designs[r->current_design].munmap.largest)
		return NULL;
	return &r->designs[r->current_design].munmap;
}

static const char time_method[] =
	"the model's counts at this machine's fitted cost per step: base + vma x VMAs + pte_page x PTE pages + "
	"pte x PTEs + anon_vma x anon_vmas; fork is the parent's CPU time in fork(), exit the child's CPU time "
	"exiting at once (it frees what the fork made), fork_exit the whole fork + exit + wait, elapsed, as "
	"lmbench's lat_proc fork times it (its own fit); errors take the terms as independent";
static const char design_method[] =
	"the design's counted steps at today's per-step costs: today's VMAs, PTE pages and PTEs copied, its rmap "
	"calls beyond today's at the PTE price, its own anon_vmas; its pte_chain allocations are no step of today's "
	"kernel and are not priced (a lower bound)";

struct json_object *report_time_tree(const struct model_result *r, const struct calibration *c, const char *path)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "calibration", calibration_json(c, path));
	if (r->current_design >= r->design_count) {
		json_object_object_add(o, "why_not_priced",
				       json_object_new_string("no design of its own for this snapshot: its fork steps are not counted"));
		return o;
	}
	json_object_object_add(o, "method", json_object_new_string(time_method));
	json_object_object_add(o, "design", json_object_new_string(r->designs[r->current_design].profile->id));
	struct json_object *total = row_json(r, c, SIZE_MAX);
	json_object_object_add(total, "pid", NULL);
	json_object_object_add(total, "command", json_object_new_string("(every process)"));
	json_object_object_add(o, "total", total);
	struct json_object *processes = json_object_new_array();
	for (size_t i = 0; i < r->processes; i++) {
		const struct process *p = &r->snapshot->processes[i];
		struct json_object *row = row_json(r, c, i);
		json_object_object_add(row, "pid", json_object_new_int(p->pid));
		json_object_object_add(row, "command", json_object_new_string(p->comm ? p->comm : ""));
		json_object_array_add(processes, row);
	}
	json_object_object_add(o, "processes", processes);
	struct json_object *designs = json_object_new_array();
	struct time_counts counts;
	struct time_prices today, prices;
	total_counts(r, SIZE_MAX, &counts);
	prices_of(c, &counts, &today);
	for (size_t d = 0; d < r->design_count; d++) {
		uint64_t unpriced;
		struct json_object *row = json_object_new_object();
		design_counts(r, d, &counts, &unpriced);
		prices_of(c, &counts, &prices);
		json_object_object_add(row, "id", json_object_new_string(r->designs[d].profile->id));
		json_object_object_add(row, "counts", counts_json(&counts));
		json_object_object_add(row, "pte_chains_not_priced", json_object_new_uint64(unpriced));
		put_prices(row, &prices, &today);
		json_object_array_add(designs, row);
	}
	json_object_object_add(o, "designs_method", json_object_new_string(design_method));
	json_object_object_add(o, "designs", designs);
	const struct munmap_work *u = today_munmap(r);
	if (u) {
		struct json_object *m = json_object_new_object();
		json_object_object_add(m, "pid", json_object_new_int(r->snapshot->processes[u->largest_process].pid));
		json_object_object_add(m, "rmap_calls", json_object_new_uint64(u->max_calls));
		json_object_object_add(m, "us", number(c->munmap_us / 256 * (double)u->max_calls));
		json_object_object_add(m, "method", json_object_new_string(
			"the calibration's munmap of 1 MiB holding 256 present pages, per page, times the rmap calls "
			"of the largest mapping's munmap"));
		json_object_object_add(o, "munmap_largest", m);
	}
	return o;
}

int time_predict(const struct model_result *r, const struct calibration *c, const char *id, struct time_prediction *out)
{
	struct time_counts counts;
	struct time_prices prices;
	memset(out, 0, sizeof(*out));
	if (r->current_design >= r->design_count)
		return -1;
	size_t found = SIZE_MAX;
	for (size_t d = 0; d < r->design_count && found == SIZE_MAX; d++)
		if (!strcmp(r->designs[d].profile->id, id)) {
			found = d;
			design_counts(r, d, &counts, &out->pte_chains_not_priced);
			if (d == r->current_design)
				snprintf(out->what, sizeof(out->what), "today (%s)", id);
			else
				snprintf(out->what, sizeof(out->what), "design %s: its counted steps at today's per-step costs", id);
		}
	for (size_t k = 0; k < r->sharing_count && found == SIZE_MAX; k++)
		if (!strcmp(r->sharing[k].rule->id, id) && r->sharing[k].available) {
			found = k;
			total_counts(r, k, &counts);
			snprintf(out->what, sizeof(out->what), "%s with shared page tables (%s)",
				 r->designs[r->current_design].profile->id, id);
		}
	if (found == SIZE_MAX)
		return -1;
	prices_of(c, &counts, &prices);
	for (size_t p = 0; p < CALIBRATION_PARTS; p++) {
		out->us[p] = prices.part[p].us;
		out->error_us[p] = prices.part[p].error_us;
	}
	return 0;
}

/* ---- text ---- */

static void print_price(FILE *out, const struct price *p, const struct price *today)
{
	char text[96];
	int n = snprintf(text, sizeof(text), "%.1f +- %.1f", p->us, p->error_us);
	if (today && today->us > 0 && n > 0 && (size_t)n < sizeof(text))
		snprintf(text + n, sizeof(text) - (size_t)n, " (%+.1f%%)", change_percent(p->us, today->us));
	fprintf(out, " %32s", text);
}

/* fork, exit, then the whole fork + exit */
static void print_row(FILE *out, const char *what, const struct time_prices *prices, const struct time_prices *today)
{
	static const size_t order[CALIBRATION_PARTS] = { CALIBRATION_FORK, CALIBRATION_EXIT, CALIBRATION_WHOLE };
	fprintf(out, "    %-38s", what);
	for (size_t p = 0; p < CALIBRATION_PARTS; p++)
		print_price(out, &prices->part[order[p]], today ? &today->part[order[p]] : NULL);
	fputc('\n', out);
}

/* fork() and the child's exit together, in CPU time (the parts' fits):
 * what the fork costs the machine, without its scheduling. */
static struct price fork_and_exit(const struct calibration *c, const struct time_counts *counts)
{
	struct price fork = price_of(&c->parts[CALIBRATION_FORK], counts), exit = price_of(&c->parts[CALIBRATION_EXIT], counts);
	struct price sum = { fork.us + exit.us, sqrt(fork.error_us * fork.error_us + exit.error_us * exit.error_us) };
	return sum;
}

/* Processes by their priced fork + exit, dearest first. */
struct ranked {
	size_t process;
	double us;
};
static int dearer(const void *a, const void *b)
{
	double x = ((const struct ranked *)a)->us, y = ((const struct ranked *)b)->us;
	return (x < y) - (x > y);
}

/* The seed-004 line: "fork of this process: X us today, Y us with shared
 * page tables (RULE) (-Z %)". */
static void print_processes(FILE *out, const struct model_result *r, const struct calibration *c, size_t top)
{
	size_t rule = r->headline_rule;
	struct ranked *order = xcalloc(r->processes ? r->processes : 1, sizeof(*order));
	for (size_t i = 0; i < r->processes; i++) {
		struct time_counts counts;
		process_counts(r, i, SIZE_MAX, &counts);
		order[i].process = i;
		order[i].us = fork_and_exit(c, &counts).us;
	}
	array_sort(order, r->processes, sizeof(*order), dearer);
	size_t shown = top < r->processes ? top : r->processes;
	fprintf(out, "  per process, fork() and the child's exit in CPU time (%s%zu of %zu, dearest first; --top N):\n",
		shown < r->processes ? "top " : "", shown, r->processes);
	for (size_t n = 0; n < shown; n++) {
		size_t i = order[n].process;
		const struct process *p = &r->snapshot->processes[i];
		struct time_counts counts;
		process_counts(r, i, SIZE_MAX, &counts);
		struct price today = fork_and_exit(c, &counts);
		fprintf(out, "    fork of pid %d (%s): %.1f +- %.1f us today", p->pid, p->comm ? p->comm : "?", today.us,
			today.error_us);
		if (rule < r->sharing_count) {
			process_counts(r, i, rule, &counts);
			struct price shared = fork_and_exit(c, &counts);
			fprintf(out, ", %.1f us with shared page tables (%s) (%+.1f %%)", shared.us, r->sharing[rule].rule->id,
				change_percent(shared.us, today.us));
		}
		fputc('\n', out);
	}
	free(order);
}

int report_write_time(FILE *out, const struct model_result *r, const struct report_options *options)
{
	const struct calibration *c = options->calibration;
	fprintf(out, "\nTime, from the calibration %s (kernel %s, %s, %s; fit residual %.1f us elapsed whole, "
		"%.1f fork, %.1f exit)\n", options->calibration_path, c->kernel, c->cpu_model, c->date,
		c->parts[CALIBRATION_WHOLE].fit.residual, c->parts[CALIBRATION_FORK].fit.residual,
		c->parts[CALIBRATION_EXIT].fit.residual);
	if (r->current_design >= r->design_count) {
		fputs("  no design of its own for this snapshot: its fork steps are not counted\n", out);
		return ferror(out) ? -1 : 0;
	}
	fputs("  predicted: base + vma x VMAs + pte_page x PTE pages + pte x PTEs + anon_vma x anon_vmas, the model's\n"
	      "  counts at this machine's fitted cost per step (errors as if independent); fork is the parent's CPU\n"
	      "  time in fork(), exit the child's CPU time exiting at once (it frees what the fork made), and the\n"
	      "  whole fork + exit + wait as lmbench times it, elapsed, from its own fit\n", out);
	fprintf(out, "  every process forking once, %-27s %32s %32s %32s\n", r->designs[r->current_design].profile->id,
		"fork us (CPU)", "exit us (CPU)", "fork+exit+wait us (elapsed)");
	struct time_counts counts;
	struct time_prices today, prices;
	total_counts(r, SIZE_MAX, &counts);
	prices_of(c, &counts, &today);
	print_row(out, "today", &today, NULL);
	for (size_t k = 0; k < r->sharing_count; k++) {
		char what[128];
		if (!r->sharing[k].available)
			continue;
		total_counts(r, k, &counts);
		prices_of(c, &counts, &prices);
		snprintf(what, sizeof(what), "shared page tables (%s)", r->sharing[k].rule->id);
		print_row(out, what, &prices, &today);
	}
	print_processes(out, r, c, report_top(options));
	fputs("  each design's counted steps at today's per-step costs (not that kernel's time: its steps priced as\n"
	      "  this kernel's; pte_chain allocations are no step here, not priced, so a lower bound):\n", out);
	const char *arch = r->designs[r->current_design].profile->arch;
	for (size_t d = 0; d < r->design_count; d++) {
		uint64_t unpriced;
		char what[160];
		if (!options->all_designs && strcmp(r->designs[d].profile->arch, arch))
			continue;   /* as the text report's designs: --all-designs for every architecture */
		design_counts(r, d, &counts, &unpriced);
		prices_of(c, &counts, &prices);
		snprintf(what, sizeof(what), "%s", r->designs[d].profile->id);
		print_row(out, what, &prices, &today);
		if (unpriced)
			fprintf(out, "      + %llu pte_chain allocations, not priced\n", (unsigned long long)unpriced);
	}
	const struct munmap_work *u = today_munmap(r);
	if (u)
		fprintf(out, "  munmap of the largest mapping (pid %d, %llu rmap calls): %.1f us (the calibration's 1 MiB\n"
			"  munmap per present page, times its rmap calls)\n", r->snapshot->processes[u->largest_process].pid,
			(unsigned long long)u->max_calls, c->munmap_us / 256 * (double)u->max_calls);
	fputs("  measured beside predicted: `ptscope bench fork --like SNAPSHOT:PID --calibration FILE`\n", out);
	return ferror(out) ? -1 : 0;
}
