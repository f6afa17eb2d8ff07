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
		char pte[32], upper[32];
		report_format_count(r->pte_pages, pte, sizeof(pte));
		report_format_count(r->upper_pages, upper, sizeof(upper));
		fprintf(out, "Page tables: %s exact from pagemap (%s PTE + %s higher-level pages, %s)\n"
			"  of %zu processes; their VmPTE says %s\n",
			bytes((double)r->pagetable_bytes, a), pte, upper, r->geometry->name, r->processes_with_pagemap,
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
	if (r->processes_with_pagemap == r->processes && r->pagetable_bytes) {
		report_format_percent(100.0 * (e->point - (double)r->pagetable_bytes) / (double)r->pagetable_bytes, true, c,
				      sizeof(c));
		fprintf(out, " (%s vs exact %s)", c, bytes((double)r->pagetable_bytes, d));
	}
	fputs("\n\n", out);
}

/* The columns prose is wrapped at: COLUMNS when it is set (report_options
 * width), else 100; the tables are as wide as their columns. */
static int text_width = 100;
#define TEXT_WIDTH text_width

/* Compact bytes for bounds: "4.1M", "812K", "96B". */
static const char *short_bytes(double value, char *buffer)
{
	report_format_bytes(value, buffer, 32);
	char *space = strchr(buffer, ' ');
	if (space) {
		space[0] = space[1];
		space[1] = 0;
	}
	return buffer;
}

static void wrapped(FILE *out, const char *prefix, const char *text, int indent)
{
	report_wrap(out, prefix, text, indent, TEXT_WIDTH);
}

static const char *snapshot_arch(const struct model_result *r)
{
	return r->snapshot->info.arch[0] ? r->snapshot->info.arch : "x86_64";
}

/* The default view shows the designs of the snapshot's architecture. */
static bool design_shown(const struct model_result *r, const struct model_design *m, const struct report_options *o)
{
	return o->all_designs || !strcmp(m->profile->arch, snapshot_arch(r));
}

/*
 * The estimate column says how the smaps-only estimate did when the exact
 * figure is there (its error, '!' when the exact figure fell outside its
 * bounds), and gives the bounds themselves when the estimate is all there is.
 */
static void estimate_cell(const struct model_design *m, char *cell, size_t size)
{
	const struct estimate *est = &m->pte_chain_estimate;
	char lower[32], upper[32], percent[40];
	double exact = (double)m->pte_chain_bytes;
	if (!m->pte_chain_exact) {
		snprintf(cell, size, "[%s, %s]", short_bytes(est->lower, lower), short_bytes(est->upper, upper));
		return;
	}
	bool inside = exact >= floor(est->lower) && exact <= ceil(est->upper);
	if (exact > 0)
		report_format_percent(100.0 * (est->point - exact) / exact, true, percent, sizeof(percent));
	else if (est->point < 0.5)
		snprintf(percent, sizeof(percent), "-");       /* nothing, and nothing estimated */
	else
		snprintf(percent, sizeof(percent), "+%s", short_bytes(est->point, lower));
	snprintf(cell, size, "%s%s", percent, inside ? "" : " !");
}

static void write_design_legend(FILE *out, const struct model_result *r, const struct report_options *o,
				size_t hidden)
{
	char a[32], b[32];
	bool exact = r->design_count && r->designs[0].pte_chain_exact, added = false;
	wrapped(out, "  ", exact
		? "= exact from pagemap + kpages; estimate = the smaps-only estimate's error against it (! when the "
		  "exact figure falls outside the estimate's bounds; method and bounds in --format json)."
		: "~ smaps-only estimate (no PFNs in this snapshot); estimate = its bounds (method in --format json).", 4);
	char line[512];
	snprintf(line, sizeof(line), "rmap = pte_chain + object (per-VMA fields, anon_vmas, anon_vma_chains) of these %zu "
		 "process%s; saves = the baseline's rmap minus this design's; page field = the rmap field of every "
		 "struct page of RAM, priced apart and never in saves.", r->processes,
		 r->processes == 1 ? "" : "es");
	wrapped(out, "  ", line, 4);
	/* one line per architecture and PTE width shown: its baseline and its RAM */
	for (size_t d = 0; d < r->design_count; d++) {
		const struct model_design *m = &r->designs[d];
		if (!design_shown(r, m, o))
			continue;
		added |= !m->selected;
		bool first = true;
		for (size_t e = 0; e < d && first; e++)
			if (design_shown(r, &r->designs[e], o) && r->designs[e].baseline == m->baseline)
				first = false;
		if (!first)
			continue;
		const struct model_design *base = &r->designs[m->baseline];
		bytes((double)base->priced_ram_bytes, a);
		if (base->ram_capped)
			snprintf(line, sizeof(line), "%s, %u-byte PTEs: baseline %s; page field over %s, the most %s "
				 "addresses (MemTotal %s)", base->profile->arch, geometry_pte_bytes(&base->profile->geometry),
				 base->profile->id, a, base->profile->geometry.name,
				 bytes((double)r->ram_pages * MODEL_PAGE_BYTES, b));
		else
			snprintf(line, sizeof(line), "%s, %u-byte PTEs: baseline %s; page field over %s of RAM (MemTotal)",
				 base->profile->arch, geometry_pte_bytes(&base->profile->geometry), base->profile->id, a);
		wrapped(out, "  ", line, 4);
	}
	if (added)
		wrapped(out, "  ", "* not named by --profile: computed as a baseline or as the snapshot's own design.", 4);
	for (int f = 0; f < RMAP_FAMILY_COUNT; f++) {
		bool present = false;
		for (size_t d = 0; d < r->design_count && !present; d++)
			present = design_shown(r, &r->designs[d], o) && r->designs[d].profile->family == (enum rmap_family)f;
		if (present) {
			snprintf(line, sizeof(line), "  %s ", rmap_families[f].name);
			wrapped(out, line, rmap_families[f].summary, 5);
		}
	}
	if (hidden) {
		snprintf(line, sizeof(line), "%zu designs of other architectures are in --format json; --all-designs shows them here.",
			 hidden);
		wrapped(out, "  ", line, 4);
	}
}

static void write_designs(FILE *out, const struct model_result *r, const struct report_options *o)
{
	char a[32], b[32], c[32], d[32], e[32], cell[80];
	int width = 6;
	size_t hidden = 0;
	for (size_t i = 0; i < r->design_count; i++) {
		if (!design_shown(r, &r->designs[i], o)) {
			hidden++;
			continue;
		}
		int n = (int)strlen(r->designs[i].profile->id) + !r->designs[i].selected;
		width = n > width ? n : width;
	}
	fprintf(out, "Reverse map by design (%s%s)\n", o->all_designs ? "every architecture" : snapshot_arch(r),
		r->design_count && !r->designs[0].pte_chain_exact ? "; pte_chains estimated from smaps" : "");
	fprintf(out, "%-*s %-3s %11s %9s %9s %9s %10s %13s\n", width, "design", "fam", "pte_chain", "object", "rmap",
		"saves", "page field", "estimate");
	for (size_t i = 0; i < r->design_count; i++) {
		const struct model_design *m = &r->designs[i];
		if (!design_shown(r, m, o))
			continue;
		char id[80], saves[32];
		snprintf(id, sizeof(id), "%s%s", m->profile->id, m->selected ? "" : "*");
		estimate_cell(m, cell, sizeof(cell));
		if (m->baseline == i)
			snprintf(saves, sizeof(saves), "baseline");
		else
			bytes((double)m->saves_bytes, saves);
		fprintf(out, "%-*s %-3s %s%10s %9s %9s %9s %10s %13s\n", width, id, rmap_family_name(m->profile->family),
			m->pte_chain_exact ? "=" : "~", bytes((double)m->pte_chain_bytes, a),
			bytes((double)m->object_rmap_bytes, b), bytes((double)m->rmap_bytes, c), saves,
			bytes((double)m->page_field_bytes, d), cell);
		(void)e;
	}
	write_design_legend(out, r, o, hidden);
	fputc('\n', out);
}

/* Where PMD-mapped THPs make one rmap call for 512 pages, both units. */
static void write_work_pages(FILE *out, const struct model_result *r)
{
	if (r->current_design >= r->design_count)
		return;
	const struct event_work *m = &r->designs[r->current_design].work;
	if (m->fork_rmap_pages == m->fork_rmap_calls && m->exit_rmap_pages == m->exit_rmap_calls)
		return;
	char a[32], b[32], c[32], d[32], line[400];
	report_format_count(m->fork_rmap_calls, a, sizeof(a));
	report_format_count(m->fork_rmap_pages, b, sizeof(b));
	report_format_count(m->exit_rmap_calls, c, sizeof(c));
	report_format_count(m->exit_rmap_pages, d, sizeof(d));
	snprintf(line, sizeof(line), "%s: a PMD-mapped THP is one rmap call for its 512 pages: fork %s calls change "
		 "the mapcount of %s pages, exit %s calls of %s pages.", r->designs[r->current_design].profile->id, a, b, c, d);
	wrapped(out, "  ", line, 4);
}

/* rmap calls if every process forked and exited once (docs/cost-model.md section 7). */
static void write_work(FILE *out, const struct model_result *r, const struct report_options *o)
{
	char a[32], b[32], c[32], d[32];
	int width = 6;
	for (size_t i = 0; i < r->design_count; i++)
		if (design_shown(r, &r->designs[i], o) && (int)strlen(r->designs[i].profile->id) > width)
			width = (int)strlen(r->designs[i].profile->id);
	fputs("rmap work if every process forked once and exited once\n", out);
	fprintf(out, "%-*s %14s %16s %15s %14s\n", width, "design", "fork rmap", "fork allocations", "fork anon_vma",
		"exit rmap");
	for (size_t i = 0; i < r->design_count; i++) {
		const struct model_design *m = &r->designs[i];
		if (!design_shown(r, m, o))
			continue;
		report_format_count(m->work.fork_rmap_calls, a, sizeof(a));
		report_format_count(m->work.fork_chain_allocations, b, sizeof(b));
		report_format_count(m->work.fork_anon_vma_calls, c, sizeof(c));
		report_format_count(m->work.exit_rmap_calls, d, sizeof(d));
		fprintf(out, "%-*s %14s %16s %15s %14s\n", width, m->profile->id, a, b, c, d);
	}
	wrapped(out, "  ", "fork rmap = page_add_rmap or _mapcount updates; allocations = pte_chain objects, blocks or "
		"anon_vma_chains; anon_vma = anon_vma_link/anon_vma_fork calls; exit rmap = page_remove_rmap calls.", 4);
	write_work_pages(out, r);
	fputc('\n', out);
}

/* The trade the designs were argued over: rmap memory beside the work of
 * every process forking and exiting once, every page faulted in once and
 * every mapped page reclaimed once (docs/cost-model.md section 7). */
static void write_tradeoff(FILE *out, const struct model_result *r, const struct report_options *o)
{
	char cell[6][40], line[600];
	int width = 6;
	uint64_t fewest_fault_calls = UINT64_MAX, most_fault_calls = 0;
	for (size_t i = 0; i < r->design_count; i++)
		if (design_shown(r, &r->designs[i], o) && (int)strlen(r->designs[i].profile->id) > width)
			width = (int)strlen(r->designs[i].profile->id);
	fputs("Trade-off: rmap memory beside the work of every process forking and exiting once, every present\n"
	      "page faulted in once, every mapped page reclaimed once\n", out);
	fprintf(out, "%-*s %10s %11s %11s %11s %11s %11s\n", width, "", "", "fork+exit", "fork+exit", "fault-in",
		"reclaim", "reclaim");
	fprintf(out, "%-*s %10s %11s %11s %11s %11s %11s\n", width, "design", "rmap", "rmap calls", "chains", "chains",
		"visits", "not mapping");
	for (size_t i = 0; i < r->design_count; i++) {
		const struct model_design *m = &r->designs[i];
		const struct event_work *w = &m->work;
		if (!design_shown(r, m, o))
			continue;
		uint64_t fault_allocations = 0;
		uint64_t fault_calls = 0;
		for (int k = 0; k < FAULT_KIND_COUNT; k++) {
			fault_calls += w->faults[k].rmap_calls;
			fault_allocations += w->faults[k].chain_allocations;
		}
		fewest_fault_calls = fault_calls < fewest_fault_calls ? fault_calls : fewest_fault_calls;
		most_fault_calls = fault_calls > most_fault_calls ? fault_calls : most_fault_calls;
		bytes((double)m->rmap_bytes, cell[0]);
		report_format_count(w->fork_rmap_calls + w->exit_rmap_calls, cell[1], 32);
		report_format_count(w->fork_chain_allocations + w->exit_chain_frees + w->exit_anon_vma_chain_frees, cell[2], 32);
		char allocations[32];
		report_format_count(fault_allocations, allocations, sizeof(allocations));
		snprintf(cell[3], sizeof(cell[3]), "%s%s", m->faults_exact ? "" : "~", allocations);
		report_format_count(m->reclaim.visited, cell[4], 32);
		report_format_count(m->reclaim.not_mapping, cell[5], 32);
		if (!m->reclaim.available) {
			snprintf(cell[4], 32, "-");
			snprintf(cell[5], 32, "-");
		}
		fprintf(out, "%-*s %10s %11s %11s %11s %11s %11s\n", width, m->profile->id, cell[0], cell[1], cell[2],
			cell[3], cell[4], cell[5]);
	}
	/* one add a fault, two for COW (the copy's and the file page's
	 * remove): the same in every design but where a PMD-mapped THP is
	 * one fault (<huge-pmd rmap="whole">) */
	report_format_count(most_fault_calls, cell[0], 32);
	report_format_count(fewest_fault_calls, cell[1], 32);
	char calls[128];
	if (fewest_fault_calls < most_fault_calls)
		snprintf(calls, sizeof(calls), "%s rmap calls (%s where a PMD-mapped THP is one)", cell[0], cell[1]);
	else
		snprintf(calls, sizeof(calls), "%s rmap calls in every design", cell[0]);
	snprintf(line, sizeof(line), "chains = pte_chains or blocks allocated and freed, and anon_vma_chains; faulting "
		 "every present PTE in (first touch, COW, file read, swap-in) makes %s; reclaim "
		 "visits = pte_chain entries or VMAs of the file's i_mmap or the anon_vma's list walked to unmap each page "
		 "once, of which 'not mapping' map nothing there.", calls);
	wrapped(out, "  ", line, 4);
	if (r->designs && r->design_count && !r->designs[0].reclaim.available)
		wrapped(out, "  ", "reclaim: -, the snapshot lacks PFNs for some process (which page a PTE maps).", 4);
	fputc('\n', out);
}

/* What the kernel's names for special mappings mean, for the legend. */
static const struct { const char *prefix, *meaning; } special_paths[] = {
	{ "/dev/zero (deleted)", "shared anonymous memory (mmap MAP_SHARED|MAP_ANONYMOUS, e.g. a database's shared buffers)" },
	{ "/SYSV", "a System V shared memory segment (shmget)" },
	{ "/memfd:", "a memfd_create file" },
	{ "/dev/shm/", "a POSIX shared memory object (shm_open)" },
	{ "[anon:", "anonymous memory named with prctl(PR_SET_VMA_ANON_NAME)" },
};
#define SPECIAL_PATH_COUNT (sizeof(special_paths) / sizeof(special_paths[0]))

static void note_special(const char *path, bool *seen)
{
	for (size_t i = 0; i < SPECIAL_PATH_COUNT; i++)
		if (!strncmp(path, special_paths[i].prefix, strlen(special_paths[i].prefix)))
			seen[i] = true;
}

/* The rule's top files, cut to the room left on the line. */
static void files_cell(const struct model_sharing *s, size_t room, char *cell, size_t size, bool *seen)
{
	size_t used = 0;
	cell[0] = 0;
	for (size_t i = 0; i < s->file_count && used < size; i++) {
		char pages[32], item[600];
		report_format_count(s->files[i].sharable_pages, pages, sizeof(pages));
		char path[400];
		escape_text(path, sizeof(path), s->files[i].path);
		snprintf(item, sizeof(item), "%s%s %s", i ? "; " : "", path, pages);
		const char *base = strrchr(path, '/');
		if (used + strlen(item) > room && base && base != path && !strchr(base, ' '))
			snprintf(item, sizeof(item), "%s...%s %s", i ? "; " : "", base, pages);
		if (used + strlen(item) > room) {
			if (used + 4 <= room)
				used += (size_t)snprintf(cell + used, size - used, i ? "; ..." : "...");
			break;
		}
		note_special(s->files[i].path, seen);
		used += (size_t)snprintf(cell + used, size - used, "%s", item);
	}
}

static void write_sharing(FILE *out, const struct model_result *r, const struct report_options *o)
{
	char a[32], b[32], c[32], d[32], cell[1024];
	bool seen[SPECIAL_PATH_COUNT] = { false };
	double tables = r->sharing_base_bytes;
	fprintf(out, "Page-table sharing: the page-table pages each rule would save%s\n",
		r->processes_with_pagemap == r->processes ? "" : " (no pagemap: upper bounds, ranges below)");
	fprintf(out, "%-16s %8s %9s %8s %8s  %s\n", "rule", "pages", "bytes", "% tables", "eligible", "top files (pages)");
	for (size_t k = 0; k < r->sharing_count; k++) {
		const struct model_sharing *s = &r->sharing[k];
		if (!s->available) {
			fprintf(out, "%-16s %8s  (needs pagemap)\n", s->rule->id, "-");
			continue;
		}
		report_format_count(s->sharable_pages, a, sizeof(a));
		report_format_count(s->eligible_vmas, d, sizeof(d));
		report_format_percent(tables > 0 ? 100.0 * (double)s->sharable_bytes / tables : 0, false, c, sizeof(c));
		int column = fprintf(out, "%-16s %8s %9s %8s %8s  ", s->rule->id, a, bytes((double)s->sharable_bytes, b), c, d);
		if (s->rule->partners == PARTNERS_CONTENT)
			fputs(s->exact ? "identical PTE pages: slots, PFNs, permissions" : "slot pattern only, no PFNs: upper bound", out);
		else if (o->per_file)
			for (size_t i = 0; i < s->file_count; i++) {
				note_special(s->files[i].path, seen);
				report_format_count(s->files[i].sharable_pages, a, sizeof(a));
				fputs(i ? "\n      " : "", out);
				escape_fputs(escape_text, s->files[i].path, out);
				fprintf(out, " %s", a);
			}
		else {
			files_cell(s, TEXT_WIDTH > column ? (size_t)(TEXT_WIDTH - column) : 10, cell, sizeof(cell), seen);
			fputs(cell, out);
		}
		fputc('\n', out);
		if (s->sharable_pages_lower != s->sharable_pages) {
			char range[48];
			report_format_count(s->sharable_pages_lower, a, sizeof(a));
			report_format_count(s->sharable_pages, d, sizeof(d));
			report_format_byte_range((double)s->sharable_bytes_lower, (double)s->sharable_bytes, range, sizeof(range));
			fprintf(out, "%16s   (bounds: %s-%s pages = %s)\n", "", a, d, range);
		}
		report_sharing_reason(r, k, cell, sizeof(cell));
		if (cell[0])
			wrapped(out, "      why 0:", cell, 8);
		if (s->pages_in_cow_vmas) {
			report_format_count(s->pages_in_cow_vmas, a, sizeof(a));
			fprintf(out, "%16s   (%s of them in VMAs that hold private copy-on-write pages)\n", "", a);
		}
	}
	for (size_t k = 0; k < r->sharing_count; k++) {
		char prefix[80];
		snprintf(prefix, sizeof(prefix), "  %s:", r->sharing[k].rule->id);
		wrapped(out, prefix, r->sharing[k].rule->description, 4);
	}
	for (size_t i = 0; i < SPECIAL_PATH_COUNT; i++)
		if (seen[i]) {
			char prefix[80];
			snprintf(prefix, sizeof(prefix), "  %s%s =", special_paths[i].prefix,
				 special_paths[i].prefix[strlen(special_paths[i].prefix) - 1] == ':' ||
				 special_paths[i].prefix[strlen(special_paths[i].prefix) - 1] == '/' ? "..." : "");
			wrapped(out, prefix, special_paths[i].meaning, 4);
		}
	fputc('\n', out);
}

static void fork_cell(const struct fork_copy *copy, char *cell, size_t size)
{
	char pages[32], ptes[32];
	report_format_count(copy->pte_pages, pages, sizeof(pages));
	report_format_count(copy->ptes, ptes, sizeof(ptes));
	snprintf(cell, size, "%s / %s", pages, ptes);
}

static void write_fork_copies(FILE *out, const struct model_result *r, const struct report_options *o)
{
	char cell[80];
	fork_cell(&r->fork_copy, cell, sizeof(cell));
	fprintf(out, "What a fork of every process copies (PTE pages / PTEs; a shared window is not copied)\n");
	fprintf(out, "  %-16s %24s\n", "today", cell);
	for (size_t k = 0; k < r->sharing_count; k++) {
		fork_cell(&r->sharing[k].fork_copies, cell, sizeof(cell));
		fprintf(out, "  %-16s %24s%s\n", r->sharing[k].rule->id, cell,
			r->sharing[k].rule->partners == PARTNERS_CONTENT ? "  (merged after the fork: copied as today)" : "");
	}
	if (o->per_process) {
		fprintf(out, "  %8s %-16s %10s", "pid", "comm", "today");
		for (size_t k = 0; k < r->sharing_count; k++)
			fprintf(out, " %14.14s", r->sharing[k].rule->id);
		fputs("   (PTE pages)\n", out);
		for (size_t i = 0; i < r->processes; i++) {
			const struct model_process *p = &r->process_figures[i];
			char comm[17];  /* escaped (base/escape.h): a comm is any process's to choose */
			escape_text(comm, sizeof(comm), p->process->comm);
			fprintf(out, "  %8d %-16.16s %10llu", p->process->pid, comm,
				(unsigned long long)p->fork_copy.pte_pages);
			for (size_t k = 0; k < r->sharing_count; k++)
				fprintf(out, " %14llu", (unsigned long long)p->fork_copies[k].pte_pages);
			fputc('\n', out);
		}
	}
	fputc('\n', out);
}

/* Bytes of the unit at p of escape_text's output: an escape (\e, \xHH,
 * \uXXXX) or one UTF-8 character, never to be cut. */
static size_t unit_length(const char *p)
{
	if (p[0] == '\\')
		return p[1] == 'x' ? 4 : p[1] == 'u' ? 6 : 2;
	unsigned char c = (unsigned char)p[0];
	return c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
}

/* The command line, escaped, cut to width in the middle: its start names
 * the program, its end what this instance does ("[local] SELECT"). */
static void command_cell(const struct process *p, int width, char *cell, size_t size)
{
	char whole[4096];
	escape_text(whole, sizeof(whole), report_command(p));
	size_t length = strlen(whole), room = (size_t)width;
	if (length <= room || room < 12 || room >= size) {
		size_t kept = length < size - 1 ? length : size - 1;   /* the cell's size, as ever */
		memcpy(cell, whole, kept);
		cell[kept] = '\0';
		return;
	}
	size_t head_target = (room - 3) / 2, tail_from = length - (room - 3 - head_target);
	size_t head = 0, tail = length;
	for (size_t i = 0; i < length; i += unit_length(whole + i)) {
		if (i <= head_target)
			head = i;
		if (i >= tail_from && tail == length)
			tail = i;
	}
	snprintf(cell, size, "%.*s...%s", (int)head, whole, whole + tail);
}

static const char *sharable_rule(const struct model_result *r)
{
	return r->headline_rule < r->sharing_count ? r->sharing[r->headline_rule].rule->id : "no rule";
}

static double sharable_bytes(const struct model_result *r, const struct model_process *p)
{
	return r->headline_rule < r->sharing_count ? p->sharable_pages[r->headline_rule] * MODEL_PAGE_BYTES : 0;
}

static void write_processes(FILE *out, const struct model_result *r, const struct report_options *o,
			    const struct report_view *v)
{
	char a[32], b[32], c[32], d[32], e[32], line[600], cell[400];
	size_t limit = o->per_process && !o->top_given ? v->count : report_top(o);
	if (limit > v->count)
		limit = v->count;
	int n = snprintf(line, sizeof(line), "Processes by %s: %s%zu of %zu", report_sort_name(o->sort),
			 limit < v->count ? "top " : "", limit, v->count);
	if (o->filter && n > 0 && (size_t)n < sizeof(line)) {
		char pattern[200];
		escape_text(pattern, sizeof(pattern), o->filter);
		snprintf(line + n, sizeof(line) - (size_t)n, " matching /%s/ (of %zu)", pattern, r->processes);
	}
	fprintf(out, "%s\n", line);
	/* pid 7 wide (pid_max is at most 4,194,304), user 8 as ps(1) */
	fprintf(out, "%7s %-8s %9s %9s  %9s %9s %9s  %s\n", "pid", "user", "VmPTE", "model", "Rss", "Pss", "sharable",
		"command");
	for (size_t i = 0; i < limit; i++) {
		const struct model_process *p = &r->process_figures[v->order[i]];
		const struct process *q = p->process;
		char user[16] = "-";
		const char *name = report_user_name(r, q);
		if (name)
			snprintf(user, sizeof(user), "%.8s", name);   /* ps(1)'s 8 columns */
		else if (q->has_status && q->status.has_uid)
			snprintf(user, sizeof(user), "%u", q->status.uid);
		command_cell(q, TEXT_WIDTH - 69, cell, sizeof(cell));
		fprintf(out, "%7d %-8s %9s %9s%c %9s %9s %9s  %s\n", q->pid, user,
			p->has_vmpte ? bytes((double)p->vmpte_bytes, a) : "-", p->exact ? bytes((double)p->pagetable_bytes, b) : "-",
			p->exact && p->has_vmpte && p->vmpte_bytes != p->pagetable_bytes ? '!' : ' ',
			bytes((double)p->rss_bytes, c), bytes((double)p->pss_bytes, d), bytes(sharable_bytes(r, p), e), cell);
	}
	snprintf(line, sizeof(line), "model = page tables from pagemap (! where VmPTE differs); sharable = what %s "
		 "would save of them, each shared page split among its sharers; --sort FIELD (%s), --top N, "
		 "--filter REGEX, --group-by user|cgroup|command.", sharable_rule(r), report_sort_names());
	wrapped(out, "  ", line, 4);
	fputc('\n', out);
}

static void write_groups(FILE *out, const struct model_result *r, const struct report_options *o,
			 const struct report_view *v)
{
	char a[32], b[32], c[32], d[32], e[32], key[200], count[32], line[400];
	if (o->group_by == GROUP_NONE)
		return;
	size_t limit = o->top_given && o->top < v->group_count ? o->top : v->group_count;
	fprintf(out, "Processes by %s, sorted by %s: %zu group%s\n", report_group_name(o->group_by),
		report_sort_name(o->sort), v->group_count, v->group_count == 1 ? "" : "s");
	fprintf(out, "%-32s %9s %9s %9s %9s %9s %9s\n", report_group_name(o->group_by), "processes", "VmPTE", "model",
		"Rss", "Pss", "sharable");
	for (size_t i = 0; i < limit; i++) {
		const struct report_group_row *g = &v->groups[i];
		size_t needed = escape_text(key, 33, g->key);
		if (needed > 32)
			snprintf(key + 29, 4, "...");
		report_format_count(g->processes, count, sizeof(count));
		fprintf(out, "%-32s %9s %9s %9s %9s %9s %9s\n", key, count, bytes((double)g->vmpte_bytes, a),
			bytes((double)g->pagetable_bytes, b), bytes((double)g->rss_bytes, c), bytes((double)g->pss_bytes, d),
			bytes(g->sharable_pages * MODEL_PAGE_BYTES, e));
	}
	snprintf(line, sizeof(line), "%s", o->group_by == GROUP_USER ? "user = the real uid of each process's status, named as the "
		 "captured host named it (the snapshot's users member) where it did." : o->group_by == GROUP_CGROUP
		 ? "cgroup = the process's control group from PID/cgroup (v2 path, else its first v1 path below the root)."
		 : "command = the process's comm.");
	wrapped(out, "  ", line, 4);
	snprintf(line, sizeof(line), "sharable = what %s would save; Pss sums to the memory the group holds.", sharable_rule(r));
	wrapped(out, "  ", line, 4);
	fputc('\n', out);
}

/* meminfo PageTables beside the captured processes' tables: for the whole
 * machine the remainder is the kernel's and the PGDs; for a part it also
 * holds every process not captured, so it is not divided among these. */
static void write_pagetables_counter(FILE *out, const struct model_result *r)
{
	const struct model_counters *k = &r->counters;
	char a[32], b[32], c[32], line[600];
	if (!k->has_meminfo_pagetables) {
		fputs("  meminfo has no PageTables line\n", out);
		return;
	}
	double remainder = (double)k->remainder_bytes;
	bytes((double)k->meminfo_pagetables_bytes, a);
	bytes((double)k->model_pagetables_bytes, b);
	bytes(fabs(remainder), c);
	if (k->partial) {
		snprintf(line, sizeof(line), "meminfo PageTables %s is the whole machine's; these processes' tables are "
			 "%s of it. A part of the machine was captured (%s): the other %s%s belong to processes not "
			 "captured, the kernel and PGDs, and cannot be divided among these processes.",
			 a, b, k->partial_reason, remainder < 0 ? "-" : "", c);
		wrapped(out, "  ", line, 4);
		return;
	}
	fprintf(out, "  meminfo PageTables %s = these processes' tables %s + %s%s", a, b, remainder < 0 ? "-" : "", c);
	if (r->processes)
		fprintf(out, " (%s a process)", bytes(fabs(remainder) / (double)r->processes, a));
	fputs("\n  of the kernel's own page tables, PGD pages (not in VmPTE) and processes not captured\n", out);
}

/* What the kernel itself counts, beside the model's figures, and why they
 * differ (model/model.h: struct model_counters). */
static void write_counters(FILE *out, const struct model_result *r)
{
	const struct model_counters *k = &r->counters;
	char lower[32];
	fputs("Kernel counters beside the model\n", out);
	write_pagetables_counter(out, r);
	if (!k->has_slabinfo) {
		fputs("  slabinfo: not in this snapshot (it is captured as root only)\n\n", out);
		return;
	}
	fprintf(out, "  %-15s %10s %10s %10s %10s  %s\n", "slab cache", "objects", "model", "lower", "upper", "within");
	for (size_t i = 0; i < MODEL_SLAB_CACHES; i++) {
		const struct model_slab_check *s = &k->slabs[i];
		if (!s->available) {
			fprintf(out, "  %-15s (no slabinfo line)\n", s->cache);
			continue;
		}
		if (k->partial)
			snprintf(lower, sizeof(lower), "-");
		else
			snprintf(lower, sizeof(lower), "%llu", (unsigned long long)s->lower);
		fprintf(out, "  %-15s %10llu %10llu %10s %10llu  %s", s->cache, (unsigned long long)s->objects,
			(unsigned long long)s->model, lower, (unsigned long long)s->upper,
			s->within ? "yes" : "NO");
		if (!k->partial && s->aliases)
			fprintf(out, " (%llu caches share it: no lower)",
				(unsigned long long)s->aliases);
		else if (!k->partial && !s->slack_known)
			fputs(" (per-CPU state not captured: no lower)", out);
		if (!s->within && s->model < s->lower)
			fprintf(out, "\n  %-15s the kernel holds at least %llu more than the model explains: %s", "",
				(unsigned long long)(s->lower - s->model),
				i < 2 ? "exited ancestors'\n  anon_vmas (an orphaned fork tree), processes not captured"
				      : "processes not captured");
		fputc('\n', out);
	}
	if (k->partial) {
		char line[400];
		snprintf(line, sizeof(line), "A part of the machine was captured (%s): the slab counts hold the objects of "
			 "processes not captured, so no lower bound can be made; only model <= upper is checked "
			 "(within).", k->partial_reason);
		wrapped(out, "  ", line, 4);
	}
	if (r->snapshot->info.skipped > 0)
		fprintf(out, "  %ld processes vanished or refused during the capture: their objects are not modelled\n",
			r->snapshot->info.skipped);
	fputs("  objects = the model's + exited ancestors' anon_vmas and chains + processes not captured\n"
	      "  + free objects SLUB counts active in per-CPU slabs and sheaves (the slack); read before and\n"
	      "  after the processes: upper = the larger, lower = the smaller - slack\n\n", out);
}

/* ---- what a user can do today: huge pages per shared segment, the cost
 * of one more process, the rules a kernel one can run has ---- */

static void write_segments(FILE *out, const struct model_result *r)
{
	char pmd_size[32], next_size[32], a[32], b[32], c[32], d[32], e[32], path[300], line[1024];
	report_huge_page_sizes(r, pmd_size, next_size, sizeof(pmd_size));
	fprintf(out, "  %-22s %9s %5s %9s  %s\n", "shared segment", "size", "procs", "PTE pages",
		"saved on huge pages of");
	fprintf(out, "  %-22s %9s %5s %9s %10s %10s %13s\n", "", "", "", "now", pmd_size, next_size, "+PMD sharing");
	for (size_t i = 0; i < r->segment_count && i < 5; i++) {
		const struct model_segment *seg = &r->segments[i];
		escape_text(path, sizeof(path), seg->path ? seg->path : "?");
		report_format_count(seg->pte_pages, a, sizeof(a));
		fprintf(out, "  %-22.22s %9s %5zu %9s %10s %10s %13s\n", path, bytes((double)seg->bytes, b), seg->mappings, a,
			bytes((double)(seg->pte_pages_saved_pmd_size * MODEL_PAGE_BYTES), c),
			bytes((double)((seg->pte_pages_saved_pmd_size + seg->pmd_pages_saved_next_size) * MODEL_PAGE_BYTES), d),
			bytes((double)((seg->pte_pages_saved_pmd_size + seg->pmd_pages_shared) * MODEL_PAGE_BYTES), e));
	}
	if (!r->segment_count)
		return;
	const struct model_segment *seg = &r->segments[0];
	escape_text(path, sizeof(path), seg->path ? seg->path : "?");
	report_format_count(seg->touch_all_pte_pages, a, sizeof(a));
	snprintf(line, sizeof(line), "each process that touches all of %s adds %s PTE pages = %s of page tables "
		 "(one per %s it spans); on %s huge pages none", path, a,
		 bytes((double)(seg->touch_all_pte_pages * MODEL_PAGE_BYTES), b), pmd_size, pmd_size);
	wrapped(out, "  ", line, 4);
	snprintf(line, sizeof(line), "saved = the PTE pages that map nothing but the segment (on %s pages also "
		 "such PMD pages); +PMD sharing = on %s pages with hugetlb PMD sharing of each whole %s window "
		 "inside it among its processes (docs/cost-model.md section 5).", next_size, pmd_size, next_size);
	wrapped(out, "  ", line, 4);
}

static void write_rule_kernels(FILE *out, const struct model_result *r)
{
	char line[2048], kernel[64], pages[32], why[1024];
	for (int pass = 0; pass < 2; pass++) {
		size_t n = (size_t)snprintf(line, sizeof(line), "%s", pass == 0 ? "sharing rules in kernels you can run:"
									   : "not in any kernel:");
		size_t listed = 0;
		for (size_t k = 0; k < r->sharing_count && n < sizeof(line); k++) {
			const struct model_sharing *s = &r->sharing[k];
			if ((s->rule->kernel == KERNEL_MAINLINE) != (pass == 0))
				continue;
			report_rule_kernel(s->rule, kernel, sizeof(kernel));
			report_format_count(s->sharable_pages, pages, sizeof(pages));
			report_sharing_reason(r, k, why, sizeof(why));
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s %s (%s) %s pages%s%s%s", listed++ ? ";" : "",
					      s->rule->id, kernel, s->available ? pages : "-", pass == 0 && why[0] ? " (" : "",
					      pass == 0 ? why : "", pass == 0 && why[0] ? ")" : "");
		}
		if (!listed && n < sizeof(line))
			snprintf(line + n, sizeof(line) - n, " none in this comparison");
		wrapped(out, "  ", line, 4);
	}
}

static void write_today(FILE *out, const struct model_result *r)
{
	fputs("What you can do today\n", out);
	if (r->segment_count)
		write_segments(out, r);
	else
		fputs(r->has_pagemap ? "  no shared memory segment of a huge page or more (MAP_SHARED shmem, System V, "
				       "memfd, /dev/shm)\n" : "  huge pages per shared segment: needs pagemap\n", out);
	write_rule_kernels(out, r);
	fputc('\n', out);
}

/* ---- --brief: the answer for a mail, at most 80 columns and about 20 lines ---- */

#define BRIEF_WIDTH 80

static void brief_designs(FILE *out, const struct model_result *r)
{
	char a[32];
	fprintf(out, "rmap memory, one design per family (%s):\n", snapshot_arch(r));
	for (int family = 0; family < RMAP_FAMILY_COUNT; family++) {
		const struct model_design *best = NULL;
		/* the running kernel's design speaks for its family */
		if (r->current_design < r->design_count && (int)r->designs[r->current_design].profile->family == family)
			best = &r->designs[r->current_design];
		for (size_t d = 0; d < r->design_count && !best; d++)
			if ((int)r->designs[d].profile->family == family && !strcmp(r->designs[d].profile->arch, snapshot_arch(r)))
				best = &r->designs[d];
		if (best)
			fprintf(out, "  %-3s %-30.30s %10s%s\n", rmap_family_name(best->profile->family), best->profile->id,
				bytes((double)best->rmap_bytes, a), best->pte_chain_exact ? "" : " (estimate)");
	}
}

static void brief_rules(FILE *out, const struct model_result *r)
{
	char a[32], b[32], c[32], kernel[32];
	fputs("page-table pages each sharing rule would save:\n", out);
	for (size_t k = 0; k < r->sharing_count; k++) {
		const struct model_sharing *sh = &r->sharing[k];
		if (!sh->available) {
			fprintf(out, "  %-16.16s needs pagemap\n", sh->rule->id);
			continue;
		}
		report_format_count(sh->sharable_pages, a, sizeof(a));
		double tables = r->sharing_base_bytes;
		report_format_percent(tables > 0 ? 100.0 * (double)sh->sharable_bytes / tables : 0, false, c, sizeof(c));
		report_rule_kernel(sh->rule, kernel, sizeof(kernel));
		fprintf(out, "  %-16.16s %9s pages %10s %7s  %s\n", sh->rule->id, a, bytes((double)sh->sharable_bytes, b), c,
			kernel);
	}
}

/* --filter: whose the headlines are, said once under them. */
static void filter_scope(const struct model_result *r, const struct report_options *o, char *line, size_t size)
{
	char filter[256];
	escape_text(filter, sizeof(filter), o->filter);
	if (!o->filtered) {
		snprintf(line, size, "(no process matches --filter '%s': the lines above are of all %zu processes)", filter,
			 r->processes);
		return;
	}
	snprintf(line, size, "(the lines above are of the %zu of %zu processes whose command line matches --filter '%s'; "
		 "the tables are of all %zu, the process list of the matching ones)", o->filtered->processes, r->processes,
		 filter, r->processes);
}

static int write_brief(FILE *out, const struct model_result *r, const struct report_options *o)
{
	const struct model_result *h = o->filtered ? o->filtered : r;
	const struct snapshot *s = r->snapshot;
	char line[1024], a[32], b[32], pte[32], ptes[32];
	char kernel[sizeof(s->info.kernel) * 4], source[256];
	escape_text(kernel, sizeof(kernel), s->info.kernel[0] ? s->info.kernel : "?");
	const char *base = s->source ? strrchr(s->source, '/') : NULL;
	escape_text(source, sizeof(source), base ? base + 1 : s->source ? s->source : "/proc");
	snprintf(line, sizeof(line), "ptscope: %s: kernel %s, %s, %zu processes", source, kernel, snapshot_arch(r),
		 r->processes);
	report_wrap(out, "", line, 2, BRIEF_WIDTH);
	report_headline_today(h, line, sizeof(line));
	if (line[0])
		report_wrap(out, "", line, 2, BRIEF_WIDTH);
	report_headline(h, line, sizeof(line));
	if (line[0])
		report_wrap(out, "", line, 2, BRIEF_WIDTH);
	if (o->headline_filtered) {
		filter_scope(r, o, line, sizeof(line));
		report_wrap(out, "", line, 2, BRIEF_WIDTH);
	}
	if (r->processes_with_pagemap) {
		report_format_count(r->pte_pages, pte, sizeof(pte));
		snprintf(line, sizeof(line), "page tables %s exact (%s PTE pages); VmPTE says %s", bytes((double)r->pagetable_bytes, a),
			 pte, bytes((double)r->vmpte_bytes_of_exact, b));
	} else {
		snprintf(line, sizeof(line), "page tables: no pagemap; VmPTE says %s", bytes((double)r->vmpte_bytes, a));
	}
	report_wrap(out, "", line, 2, BRIEF_WIDTH);
	brief_designs(out, r);
	brief_rules(out, r);
	report_format_count(r->fork_copy.pte_pages, pte, sizeof(pte));
	report_format_count(r->fork_copy.ptes, ptes, sizeof(ptes));
	snprintf(line, sizeof(line), "a fork of every process copies %s PTE pages (%s PTEs) today", pte, ptes);
	report_wrap(out, "", line, 2, BRIEF_WIDTH);
	return ferror(out) ? -1 : 0;
}

int report_write_text(FILE *out, const struct model_result *r, const struct report_options *o)
{
	const struct snapshot *s = r->snapshot;
	text_width = o->width ? o->width : 100;
	if (o->brief)
		return write_brief(out, r, o);
	static const char *const modes[] = { "none", "present bits only", "pfn" };
	char headline[1024], kernel[sizeof(s->info.kernel) * 4], arch[sizeof(s->info.arch) * 4];
	escape_text(kernel, sizeof(kernel), s->info.kernel[0] ? s->info.kernel : "?");
	escape_text(arch, sizeof(arch), s->info.arch[0] ? s->info.arch : "?");
	fputs("ptscope report: ", out);
	escape_fputs(escape_text, s->source ? s->source : "?", out);
	fprintf(out, "\n  kernel %s, %s, %zu processes, pagemap: %s, kpages: %s\n",
		kernel, arch, r->processes, modes[s->info.pagemap <= PAGEMAP_PFN ? s->info.pagemap : 0],
		r->has_kpages ? "yes" : "no");
	if (s->info.skipped > 0)
		fprintf(out, "  %ld process%s skipped at capture (%ld refused: permission denied%s)\n",
			s->info.skipped, s->info.skipped == 1 ? "" : "es", s->info.unreadable > 0 ? s->info.unreadable : 0,
			s->info.unreadable > 0 && s->info.pagemap != PAGEMAP_PFN ? "; capture as root to see them" : "");
	if (s->skipped_bad) {
		fprintf(out, "  %zu broken process%s skipped (--skip-bad), not in these figures; the first: ",
			s->skipped_bad, s->skipped_bad == 1 ? "" : "es");
		escape_fputs(escape_text, s->first_bad ? s->first_bad : "?", out);
		fputc('\n', out);
	}
	const struct model_result *h = o->filtered ? o->filtered : r;
	report_headline_today(h, headline, sizeof(headline));
	if (headline[0])
		wrapped(out, "", headline, 2);
	report_headline(h, headline, sizeof(headline));
	if (headline[0])
		wrapped(out, "", headline, 2);
	report_headline_rmap(h, headline, sizeof(headline));
	if (headline[0])
		wrapped(out, "", headline, 2);
	if (o->headline_filtered) {
		filter_scope(r, o, headline, sizeof(headline));
		wrapped(out, "", headline, 2);
	}
	fputc('\n', out);
	write_today(out, r);
	write_pagetables(out, r);
	write_counters(out, r);
	write_designs(out, r, o);
	write_work(out, r, o);
	write_tradeoff(out, r, o);
	write_sharing(out, r, o);
	write_fork_copies(out, r, o);
	struct report_view view;
	if (report_view_build(&view, r, o))
		return -1;
	write_groups(out, r, o, &view);
	write_processes(out, r, o, &view);
	report_view_free(&view);
	return ferror(out) ? -1 : 0;
}
