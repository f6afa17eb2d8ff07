/*
 * outputs/report_words.c - the pieces every report writer shares: the
 * headline, the sharing reasons, byte units, counts and percentages, and
 * wrapped text.  A library under the writers: it calls none of them (the
 * choice of writer is outputs/report.c).
 */
#include <math.h>
#include <string.h>

#include "base/escape.h"
#include "outputs/report_internal.h"

size_t report_top(const struct report_options *options)
{
	return options->top ? options->top : 5;
}

void report_format_bytes(double bytes, char *buffer, size_t size)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	size_t u = 0;
	double value = bytes < 0 ? -bytes : bytes;
	while (value >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		value /= 1024;
		u++;
	}
	/* the sign only when the printed magnitude is not zero */
	bool negative = bytes < 0 && (u ? value >= 0.05 : value >= 0.5);
	snprintf(buffer, size, u ? "%s%.1f %s" : "%s%.0f %s", negative ? "-" : "", value, units[u]);
}

void report_format_count(uint64_t count, char *buffer, size_t size)
{
	char digits[32];
	int n = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)count);
	size_t out = 0;
	for (int i = 0; i < n && out + 2 < size; i++) {
		if (i && (n - i) % 3 == 0)
			buffer[out++] = ',';
		buffer[out++] = digits[i];
	}
	buffer[out] = 0;
}

double report_round1(double value)
{
	double rounded = round(value * 10) / 10;
	return rounded == 0 ? 0.0 : rounded;    /* -0.0 becomes 0 */
}

void report_format_percent(double percent, bool sign, char *buffer, size_t size)
{
	double rounded = report_round1(percent);
	if (!isfinite(rounded)) {
		snprintf(buffer, size, "-");   /* no "nan%" in a table */
		return;
	}
	snprintf(buffer, size, sign && rounded != 0 ? "%+.1f%%" : "%.1f%%", rounded);
}

void report_format_byte_range(double lower, double upper, char *buffer, size_t size)
{
	char low[32], high[32];
	report_format_bytes(lower, low, sizeof(low));
	report_format_bytes(upper, high, sizeof(high));
	if (!strcmp(low, high)) {
		snprintf(buffer, size, "%s", high);
		return;
	}
	const char *low_unit = strchr(low, ' '), *high_unit = strchr(high, ' ');
	if (low_unit && high_unit && !strcmp(low_unit, high_unit))
		snprintf(buffer, size, "%.*s-%s", (int)(low_unit - low), low, high);
	else
		snprintf(buffer, size, "%s-%s", low, high);
}

/* The headline's part and whole: each one figure when known, else both
 * bounds, so the part never reads larger than the whole. */
void report_headline(const struct model_result *r, char *buffer, size_t size)
{
	buffer[0] = 0;
	if (r->headline_rule >= r->sharing_count)
		return;
	const struct model_sharing *s = &r->sharing[r->headline_rule];
	char shared[48], total[48], pages[64], low[32];
	bool exact = r->processes && r->processes_with_pagemap == r->processes;
	report_format_count(s->sharable_pages, pages, sizeof(pages));
	if (s->sharable_pages_lower != s->sharable_pages) {
		report_format_count(s->sharable_pages_lower, low, sizeof(low));
		size_t used = strlen(low);
		memmove(pages + used + 1, pages, strlen(pages) + 1);
		memcpy(pages, low, used);
		pages[used] = '-';
	}
	report_format_byte_range((double)s->sharable_bytes_lower, (double)s->sharable_bytes, shared, sizeof(shared));
	const struct estimate *whole = &r->pagetable_whole;
	if (exact)
		report_format_bytes((double)r->pagetable_bytes, total, sizeof(total));
	else
		report_format_byte_range(whole->lower, whole->upper, total, sizeof(total));
	const char *note = exact ? (s->sharable_pages_lower == s->sharable_pages ? ""
				    : " (bounds: which windows PMDs map is not known without PID/pmd_mapped)")
		: r->processes_with_status == r->processes ? " (bounds: no pagemap; page tables: VmPTE)"
		: " (bounds: no pagemap; page tables: VmPTE where known, else smaps bounds)";
	snprintf(buffer, size, "shared page tables (%s) would save %s PTE page%s = %s of the %s of page tables%s",
		 s->rule->id, pages, s->sharable_pages == 1 ? "" : "s", shared, total, note);
}

/* "since 2.6.20" for a merged rule, else what it is: "proposal", "bound", "what-if". */
void report_rule_kernel(const struct sharing_rule *rule, char *buffer, size_t size)
{
	if (rule->kernel == KERNEL_MAINLINE)
		snprintf(buffer, size, "since %s", rule->since);
	else
		snprintf(buffer, size, "%s", sharing_kernel_name(rule->kernel));
}

void report_huge_page_sizes(const struct model_result *r, char *pmd_size, char *next_size, size_t size)
{
	const struct geometry *g = r->geometry;
	report_format_bytes((double)((uint64_t)1 << g->levels[0].shift), pmd_size, size);
	report_format_bytes(g->level_count > 1 ? (double)((uint64_t)1 << g->levels[1].shift) : 0, next_size, size);
}

void report_headline_today(const struct model_result *r, char *buffer, size_t size)
{
	char shared[32], pages[32], total[32], pmd_size[32], next_size[32], segment_size[32], path[300];
	buffer[0] = 0;
	if (!r->segment_count || !r->segments[0].pte_pages_saved_pmd_size)
		return;
	const struct model_segment *seg = &r->segments[0];
	report_huge_page_sizes(r, pmd_size, next_size, sizeof(pmd_size));
	report_format_count(seg->pte_pages_saved_pmd_size, pages, sizeof(pages));
	report_format_bytes((double)(seg->pte_pages_saved_pmd_size * MODEL_PAGE_BYTES), shared, sizeof(shared));
	report_format_bytes((double)r->pagetable_bytes, total, sizeof(total));
	report_format_bytes((double)seg->bytes, segment_size, sizeof(segment_size));
	escape_text(path, sizeof(path), seg->path ? seg->path : "?");
	snprintf(buffer, size, "today: %s (%s, %zu processes) on %s huge pages would free %s PTE page%s = %s of the "
		 "%s of page tables (a database: PostgreSQL huge_pages=on, an Oracle SGA on hugetlbfs)", path, segment_size, seg->mappings,
		 pmd_size, pages, seg->pte_pages_saved_pmd_size == 1 ? "" : "s", shared, total);
}

/* What a rule shares, in words, from its eligibility (never from its id). */
static const char *rule_kind(const struct sharing_rule *rule)
{
	if (rule->hugetlb_only)
		return "hugetlbfs mapping";
	if (rule->require_flags & ((uint64_t)1 << VMF_SH))
		return "shared file mapping";
	return rule->file_backed ? "file-backed, shared or read-only VMA" : "VMA";
}

/* The rule that shares the same windows whatever the address (the aligned
 * what-if), when the comparison has one. */
static const struct model_sharing *address_free_rule(const struct model_result *r, const struct sharing_rule *rule)
{
	for (size_t k = 0; k < r->sharing_count; k++)
		if (r->sharing[k].rule->partners == PARTNERS_LENGTH &&
		    r->sharing[k].rule->window_shift == rule->window_shift && r->sharing[k].available)
			return &r->sharing[k];
	return NULL;
}

void report_sharing_reason(const struct model_result *r, size_t k, char *buffer, size_t size)
{
	const struct model_sharing *s = &r->sharing[k];
	const struct sharing_census *c = &s->census;
	const struct sharing_rule *rule = s->rule;
	char window[32], least[32], pages[32];
	buffer[0] = 0;
	if (!s->available || s->sharable_pages || rule->partners == PARTNERS_CONTENT)
		return;
	report_format_bytes((double)((uint64_t)1 << rule->window_shift), window, sizeof(window));
	report_format_bytes((double)rule->min_bytes, least, sizeof(least));
	if (!c->kind_vmas) {
		snprintf(buffer, size, "no %s in this snapshot", rule_kind(rule));
	} else if (!s->eligible_vmas) {
		report_format_count(c->kind_vmas, pages, sizeof(pages));
		snprintf(buffer, size, "%s %s%s, none of at least %s", pages, rule_kind(rule), c->kind_vmas == 1 ? "" : "s",
			 least);
	} else if (!c->window_vmas) {
		report_format_count(s->eligible_vmas, pages, sizeof(pages));
		snprintf(buffer, size, "%s eligible VMA%s; no %s covers a whole %s window", pages,
			 s->eligible_vmas == 1 ? "" : "s", rule_kind(rule), window);
	} else if (rule->partners == PARTNERS_ADDRESS && c->file_groups && c->file_groups_apart == c->file_groups) {
		const struct model_sharing *aligned = address_free_rule(r, rule);
		int n = snprintf(buffer, size, "%llu eligible VMAs (%llu with a whole %s window) in %llu groups mapped by "
				 "several processes; every group is mapped at a different address in each process "
				 "(address-space randomisation)", (unsigned long long)s->eligible_vmas,
				 (unsigned long long)c->window_vmas, window, (unsigned long long)c->file_groups);
		if (aligned && n > 0 && (size_t)n < size) {
			report_format_count(aligned->sharable_pages, pages, sizeof(pages));
			snprintf(buffer + n, size - (size_t)n, "; the aligned what-if (%s) would share %s page%s",
				 aligned->rule->id, pages, aligned->sharable_pages == 1 ? "" : "s");
		}
	} else if (!c->shared_groups) {
		snprintf(buffer, size, "%llu eligible VMA%s with a whole %s window, each mapped by one process only",
			 (unsigned long long)c->window_vmas, c->window_vmas == 1 ? "" : "s", window);
	} else {
		snprintf(buffer, size, "%llu groups of partners, but no window of theirs is populated in two of them",
			 (unsigned long long)c->shared_groups);
	}
}

/* "object rmap" for designs that find file pages through their object,
 * "pte_chains" for the per-page ones. */
static const char *rmap_kind(const struct rmap_profile *p)
{
	return rmap_families[p->family].file_by_object ? "object rmap" : "pte_chains";
}

void report_headline_rmap(const struct model_result *r, char *buffer, size_t size)
{
	buffer[0] = 0;
	if (r->current_design >= r->design_count)
		return;
	const struct model_design *now = &r->designs[r->current_design];
	const struct model_design *base = &r->designs[now->baseline];
	char now_bytes[32], base_bytes[32];
	report_format_bytes((double)now->rmap_bytes, now_bytes, sizeof(now_bytes));
	report_format_bytes((double)base->rmap_bytes, base_bytes, sizeof(base_bytes));
	int n = snprintf(buffer, size, "%s (%s) costs %s for these processes", rmap_kind(now->profile),
			 now->profile->id, now_bytes);
	if (base != now && n > 0 && (size_t)n < size)
		snprintf(buffer + n, size - (size_t)n, "; %s %s would cost %s", base->profile->id,
			 rmap_kind(base->profile), base_bytes);
}

void report_wrap(FILE *out, const char *prefix, const char *text, int indent, int width)
{
	int column = fprintf(out, "%s", prefix);
	bool separate = prefix[0] && prefix[strlen(prefix) - 1] != ' ';
	while (*text) {
		const char *word_end = text + strcspn(text, " ");
		int length = (int)(word_end - text);
		if (column + 1 + length > width && column > indent) {
			column = fprintf(out, "\n%*s", indent, "") - 1;
		} else if (separate) {
			fputc(' ', out);
			column++;
		}
		separate = true;
		column += fprintf(out, "%.*s", length, text);
		text = word_end + strspn(word_end, " ");
	}
	fputc('\n', out);
}
