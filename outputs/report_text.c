/*
 * outputs/report_text.c - the report a person reads in one screen: the
 * headline, page tables beside VmPTE, the design table, the sharing rules
 * and the top contributors.  Every figure that is estimated says so.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/escape.h"
#include "outputs/report_internal.h"

static const char *bytes(double value, char *buffer)
{
	report_format_bytes(value, buffer, 32);
	return buffer;
}

static void write_pagetables(FILE *out, const struct model_result *r)
{
	char a[32], b[32], c[32], d[32];
	const struct estimate *e = &r->pagetable_estimate;
	if (r->processes_with_pagemap) {
		fprintf(out, "Page tables: %s exact from pagemap (%llu PTE + %llu higher-level pages, %s geometry)\n"
			"  of %zu processes; their VmPTE says %s\n",
			bytes((double)r->pagetable_bytes, a), (unsigned long long)r->pte_pages,
			(unsigned long long)r->upper_pages, r->geometry->name, r->processes_with_pagemap,
			bytes((double)r->vmpte_bytes_of_exact, b));
		fprintf(out, "  %zu of %zu processes match VmPTE to the page", r->processes_pagetable_exact, r->processes);
		if (r->vmpte_above_model_bytes)
			fprintf(out, ";\n  VmPTE is %s above the model (tables that outlived their pages: MADV_DONTNEED, munmap)",
				bytes((double)r->vmpte_above_model_bytes, a));
		if (r->vmpte_below_model_bytes)
			fprintf(out, "; %s below (pages faulted in during the capture)", bytes((double)r->vmpte_below_model_bytes, a));
		if (r->pmd_mapped_windows)
			fprintf(out, "; %llu windows PMD-mapped (THP/hugetlb)", (unsigned long long)r->pmd_mapped_windows);
		fputs("\n", out);
	} else {
		if (r->processes_with_status)
			fprintf(out, "Page tables: no pagemap in this snapshot; VmPTE says %s\n", bytes((double)r->vmpte_bytes, a));
		else
			fputs("Page tables: no pagemap and no status in this snapshot (smemcap?): VmPTE unknown\n", out);
	}
	fprintf(out, "  smaps-only estimate %s, bounds [%s, %s]", bytes(e->point, a), bytes(e->lower, b), bytes(e->upper, c));
	if (r->processes_with_pagemap == r->processes && r->pagetable_bytes)
		fprintf(out, " (%+.1f%% vs exact %s)", 100.0 * (e->point - (double)r->pagetable_bytes) / (double)r->pagetable_bytes,
			bytes((double)r->pagetable_bytes, d));
	fputs("\n\n", out);
}

/* Total of the oldest list design of the same architecture, the baseline the
 * table's "saves" column is measured against. */
static const struct model_design *baseline(const struct model_result *r, const struct model_design *m)
{
	for (size_t d = 0; d < r->design_count; d++)
		if (!strcmp(r->designs[d].profile->arch, m->profile->arch) &&
		    rmap_families[r->designs[d].profile->family].layout == CHAIN_LIST &&
		    !rmap_families[r->designs[d].profile->family].direct)
			return &r->designs[d];
	return NULL;
}

/*
 * The estimate column says how the smaps-only estimate did when the exact
 * figure is there (its error, and whether the exact figure fell inside its
 * bounds), and gives the bounds themselves when the estimate is all there is.
 */
static void estimate_cell(const struct model_design *m, char *cell, size_t size)
{
	const struct estimate *est = &m->pte_chain_estimate;
	char lower[32], upper[32];
	double exact = (double)m->pte_chain_bytes;
	if (!m->pte_chain_exact) {
		snprintf(cell, size, "[%s, %s]", bytes(est->lower, lower), bytes(est->upper, upper));
		return;
	}
	const char *inside = exact >= est->lower && exact <= est->upper ? "in bounds" : "OUT of bounds";
	if (exact > 0)
		snprintf(cell, size, "%+.1f%%, %s", 100.0 * (est->point - exact) / exact, inside);
	else
		snprintf(cell, size, "%s, %s", bytes(est->point, lower), inside);
}

static void write_designs(FILE *out, const struct model_result *r)
{
	char a[32], b[32], c[32], d[32], cell[80];
	fprintf(out, "Reverse map by design (pte_chains charged PSS-style; total adds the struct page field over %s of RAM)\n",
		bytes((double)r->ram_pages * MODEL_PAGE_BYTES, a));
	fprintf(out, "%-27s %-3s %11s %-22s %9s %9s %10s %9s\n", "design", "fam", "pte_chain", "smaps estimate",
		"object", "total", "saves", "fork rmap");
	for (size_t i = 0; i < r->design_count; i++) {
		const struct model_design *m = &r->designs[i];
		const struct model_design *base = baseline(r, m);
		estimate_cell(m, cell, sizeof(cell));
		fprintf(out, "%-27s %-3s %s%10s %-22s %9s %9s %10s %9llu\n", m->profile->id,
			rmap_family_name(m->profile->family), m->pte_chain_exact ? "=" : "~",
			bytes(m->pte_chain_exact ? (double)m->pte_chain_bytes : m->pte_chain_estimate.point, a), cell,
			bytes((double)m->object_rmap_bytes, b), bytes((double)m->total_bytes, c),
			base ? bytes((double)base->total_bytes - (double)m->total_bytes, d) : "-",
			(unsigned long long)(m->fork_rmap_calls));
	}
	fputs("  '=' exact from pagemap + kpages; '~' smaps-only estimate, its bounds beside it (method: README, JSON)\n"
	      "  object = per-VMA fields + anon_vmas + chains; saves = against the D1 design of the same architecture\n"
	      "  fork rmap = page_add_rmap/_mapcount updates if every process forked once (JSON: exit, allocations)\n\n", out);
}

static void write_sharing(FILE *out, const struct model_result *r, const struct report_options *o)
{
	char a[32];
	fprintf(out, "Page-table sharing%s\n", r->processes_with_pagemap == r->processes ? "" : " (without pagemap: upper bounds)");
	fprintf(out, "%-16s %8s %10s %8s %8s  %s\n", "rule", "pages", "bytes", "% tables", "eligible", "top files (pages)");
	for (size_t k = 0; k < r->sharing_count; k++) {
		const struct model_sharing *s = &r->sharing[k];
		if (!s->available) {
			fprintf(out, "%-16s %8s  (needs pagemap)\n", s->rule->id, "-");
			continue;
		}
		double tables = r->pagetable_bytes ? (double)r->pagetable_bytes : r->pagetable_estimate.point;
		fprintf(out, "%-16s %8llu %10s %7.1f%% %8llu  ", s->rule->id, (unsigned long long)s->sharable_pages,
			bytes((double)s->sharable_bytes, a), tables > 0 ? 100.0 * (double)s->sharable_bytes / tables : 0.0,
			(unsigned long long)s->eligible_vmas);
		size_t limit = o->per_file ? s->file_count : 2;
		for (size_t i = 0; i < s->file_count && i < limit; i++) {
			fputs(i ? (o->per_file ? "\n                                                        " : ", ") : "", out);
			escape_fputs(escape_text, s->files[i].path, out);
			fprintf(out, " (%llu)", (unsigned long long)s->files[i].sharable_pages);
		}
		if (s->rule->partners == PARTNERS_CONTENT)
			fputs(s->exact ? "identical PTE pages (slots, PFNs, permissions)" : "slot pattern only, no PFNs: upper bound", out);
		if (s->pages_in_cow_vmas)
			fprintf(out, "  [%llu in VMAs with private COW pages]", (unsigned long long)s->pages_in_cow_vmas);
		fputc('\n', out);
	}
	fputc('\n', out);
}

static const struct model_result *sort_result;

static int by_pagetables(const void *x, const void *y)
{
	const struct model_process *a = &sort_result->process_figures[*(const size_t *)x];
	const struct model_process *b = &sort_result->process_figures[*(const size_t *)y];
	uint64_t pa = a->exact ? a->pagetable_bytes : a->vmpte_bytes, pb = b->exact ? b->pagetable_bytes : b->vmpte_bytes;
	if (pa != pb)
		return pa > pb ? -1 : 1;
	return a->process->pid - b->process->pid;
}

static void write_processes(FILE *out, const struct model_result *r, const struct report_options *o)
{
	char a[32], b[32], c[32], d[32];
	size_t *order = malloc((r->processes + 1) * sizeof(*order));
	if (!order)
		return;
	for (size_t i = 0; i < r->processes; i++)
		order[i] = i;
	sort_result = r;
	qsort(order, r->processes, sizeof(*order), by_pagetables);
	size_t limit = o->per_process ? r->processes : report_top(o);
	fprintf(out, "%s processes by page tables\n", o->per_process ? "All" : "Top");
	fprintf(out, "%8s %-16s %10s %10s %10s %10s %s\n", "pid", "comm", "VmPTE", "model", "estimate", "sharable",
		"");
	for (size_t n = 0; n < r->processes && n < limit; n++) {
		const struct model_process *p = &r->process_figures[order[n]];
		double sharable = r->sharing_count ? p->sharable_pages[0] * MODEL_PAGE_BYTES : 0;
		char comm[17];  /* a comm's 16 columns, escaped (base/escape.h) */
		escape_text(comm, sizeof(comm), p->process->comm);
		fprintf(out, "%8d %-16.16s %10s %10s %10s %10s %s\n", p->process->pid, comm,
			p->has_vmpte ? bytes((double)p->vmpte_bytes, a) : "-",
			p->exact ? bytes((double)p->pagetable_bytes, b) : "-",
			bytes(p->pagetable_estimate.point, c), bytes(sharable, d),
			p->exact && p->has_vmpte && p->vmpte_bytes != p->pagetable_bytes ? "VmPTE differs" : "");
	}
	free(order);
}

int report_write_text(FILE *out, const struct model_result *r, const struct report_options *o)
{
	const struct snapshot *s = r->snapshot;
	static const char *const modes[] = { "none", "present bits only", "pfn" };
	char headline[256], kernel[sizeof(s->info.kernel) * 4], arch[sizeof(s->info.arch) * 4];
	escape_text(kernel, sizeof(kernel), s->info.kernel[0] ? s->info.kernel : "?");
	escape_text(arch, sizeof(arch), s->info.arch[0] ? s->info.arch : "?");
	fputs("ptscope report: ", out);
	escape_fputs(escape_text, s->source ? s->source : "?", out);
	fprintf(out, "\n  kernel %s, %s, %zu processes, pagemap: %s, kpages: %s\n",
		kernel, arch, r->processes, modes[s->info.pagemap <= PAGEMAP_PFN ? s->info.pagemap : 0],
		r->has_kpages ? "yes" : "no");
	report_headline(r, headline, sizeof(headline));
	if (headline[0])
		fprintf(out, "%s\n", headline);
	fputc('\n', out);
	write_pagetables(out, r);
	write_designs(out, r);
	write_sharing(out, r, o);
	write_processes(out, r, o);
	return ferror(out) ? -1 : 0;
}
