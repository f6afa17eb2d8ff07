/*
 * outputs/profiles_text.c - what `ptscope profiles` prints: the built-in
 * kernel profiles listed (rmap designs, sharing rules, the era rename
 * table), one shown in full with its derived figures (NRPTE, C(m) for small
 * m), and the struct sizes libclang gives a real tree's mm/rmap.c beside
 * what the newest built-in profile for its arch charges.
 */
#include <stdio.h>
#include <string.h>

#include "outputs/profiles_text.h"
#include "outputs/report_internal.h"

void profiles_write_list(FILE *out, const struct profile_set *set)
{
	char prefix[64];
	fprintf(out, "rmap designs (docs/cost-model.md section 1); families:\n");
	for (int f = 0; f < RMAP_FAMILY_COUNT; f++) {
		snprintf(prefix, sizeof(prefix), "  %s ", rmap_families[f].name);
		report_wrap(out, prefix, rmap_families[f].summary, 5, 100);
	}
	fprintf(out, "\n  %-28s %-3s %-7s %-14s %-16s %s\n", "id", "fam", "arch", "geometry", "savings baseline", "kernels");
	for (size_t i = 0; i < set->rmap_count; i++) {
		const struct rmap_profile *p = &set->rmaps[i];
		const struct rmap_profile *base = profiles_baseline(set, p);
		fprintf(out, "  %-28s %-3s %-7s %-14s %-16s %s\n", p->id, rmap_family_name(p->family), p->arch,
			p->geometry.name, base == p ? "(is one)" : base->id, p->kernels);
		report_wrap(out, "      ", p->description, 6, 100);
	}
	fprintf(out, "\nsharing rules (docs/cost-model.md section 5):\n");
	fprintf(out, "  %-28s %-10s %-8s %s\n", "id", "partners", "window", "");
	for (size_t i = 0; i < set->rule_count; i++) {
		const struct sharing_rule *r = &set->rules[i];
		fprintf(out, "  %-28s %-10s %4llu MiB%s\n", r->id, sharing_partners_name(r->partners),
			(unsigned long long)((1ull << r->window_shift) >> 20), r->shares_subtree ? "  (whole subtree)" : "");
		report_wrap(out, "      ", r->description, 6, 100);
	}
	fprintf(out, "\nera rename table: one piece of work under each era's names (callgraph joins them\n"
		"when two profiles list different ones; docs/cost-model.md section 7):\n");
	for (size_t i = 0; i < set->work_count; i++) {
		const struct same_work *w = &set->works[i];
		char names[SAME_WORK_NAMES * 66] = "";
		size_t used = 0;
		for (size_t f = 0; f < w->function_count && used < sizeof(names); f++)
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", f ? ", " : "", w->functions[f]);
		fprintf(out, "  %-28s %s\n", w->id, w->description);
		report_wrap(out, "      ", names, 6, 100);
	}
}

static void show_rmap(FILE *out, const struct rmap_profile *p)
{
	static const char *const fork_names[] = { "none", "shared (2.6.7-2.6.33)", "chain (anon_vma_fork)" };
	fprintf(out, "id:               %s\nfamily:           %s\narch:             %s\nkernels:          %s\n",
		p->id, rmap_family_name(p->family), p->arch, p->kernels);
	fprintf(out, "description:      %s\ndefined at:       %s\n", p->description, p->origin);
	fprintf(out, "geometry:         %s:", p->geometry.name);
	for (unsigned l = 0; l < p->geometry.level_count; l++)
		fprintf(out, " %s %llu MiB%s", p->geometry.levels[l].name,
			(unsigned long long)((1ull << p->geometry.levels[l].shift) >> 20),
			p->geometry.levels[l].counted ? " (VmPTE)" : "");
	fprintf(out, "\nsizes (bytes):    pointer %u, pte_chain s1 %u, cache line L1 %u, pte_addr_t %u, struct page field %u\n",
		p->pointer_bytes, p->pte_chain_bytes, p->cache_line_bytes, p->pte_addr_bytes, p->page_field_bytes);
	fprintf(out, "                  anon_vma %u, anon_vma_chain %u, per-VMA rmap fields %u\n",
		p->anon_vma_bytes, p->anon_vma_chain_bytes, p->vma_rmap_bytes);
	if (p->nrpte)
		fprintf(out, "NRPTE:            %u\n", p->nrpte);
	fprintf(out, "fork:             %s VMAs without anon_vma", p->fork_copies_file_ptes ? "copies PTEs of" : "skips");
	if (!p->fork_copies_file_ptes && p->fork_copy_vmflags[0])
		fprintf(out, " unless VmFlags has one of: %s", p->fork_copy_vmflags);
	fprintf(out, "; anon_vma: %s", fork_names[p->anon_vma_fork]);
	if (p->fork_kernels[0])
		fprintf(out, " (fork as in %s)", p->fork_kernels);
	fprintf(out, "\nPMD-mapped THP:   %s%s\n", p->huge_pmd_whole ? "one rmap call for the PMD" : "none in this design: a call a page",
		!p->huge_pmd_whole ? "" : p->huge_pmd_reclaim_folio ? ", one reclaim walk for the THP" : "; reclaim splits it, a walk a page");
	fprintf(out, "C(m) bytes:       m    anon   file\n");
	const uint64_t ms[] = { 1, 2, 3, p->nrpte ? p->nrpte : 4, p->nrpte ? p->nrpte + 1u : 5, 32, 100 };
	for (size_t i = 0; i < sizeof(ms) / sizeof(ms[0]); i++)
		fprintf(out, "                  %-4llu %-6llu %llu\n", (unsigned long long)ms[i],
			(unsigned long long)rmap_page_cost(p, ms[i], true), (unsigned long long)rmap_page_cost(p, ms[i], false));
}

static void show_rule(FILE *out, const struct sharing_rule *r)
{
	fprintf(out, "id:               %s\ndescription:      %s\ndefined at:       %s\n", r->id, r->description, r->origin);
	fprintf(out, "window:           %llu MiB, partners by %s, shares %s%s\n",
		(unsigned long long)((1ull << r->window_shift) >> 20), sharing_partners_name(r->partners),
		r->shares_subtree ? "the whole subtree" : "one page per window",
		r->skip_pmd_mapped ? ", PMD-mapped windows excluded" : "");
	if (r->has_eligibility)
		fprintf(out, "eligible VMAs:    %s%s%s, at least %llu bytes\n", r->file_backed ? "file-backed" : "any",
			r->hugetlb_only ? ", hugetlbfs only" : "",
			r->writable_needs_shared ? ", writable only when shared" : "", (unsigned long long)r->min_bytes);
}

static void show_work(FILE *out, const struct same_work *w)
{
	fprintf(out, "id:               %s\ndescription:      %s\ndefined at:       %s\nnames:\n", w->id,
		w->description, w->origin);
	for (size_t f = 0; f < w->function_count; f++)
		fprintf(out, "  %-32s %s\n", w->functions[f], w->kernels[f]);
}

static const struct same_work *find_work(const struct profile_set *set, const char *id)
{
	for (size_t i = 0; i < set->work_count; i++)
		if (!strcmp(set->works[i].id, id))
			return &set->works[i];
	return NULL;
}

int profiles_write_one(FILE *out, const struct profile_set *set, const char *id)
{
	const struct rmap_profile *p = profiles_find_rmap(set, id);
	const struct sharing_rule *r = profiles_find_rule(set, id);
	if (p)
		show_rmap(out, p);
	else if (r)
		show_rule(out, r);
	else if (find_work(set, id))
		show_work(out, find_work(set, id));
	else
		return -1;
	return 0;
}

/* The structs a design's rmap cost is made of, and where the profile uses them. */
static const char *const source_structs[] = {
	"page", "pte_chain", "vm_area_struct", "anon_vma", "anon_vma_chain", "address_space",
};
#define SOURCE_STRUCT_COUNT (sizeof(source_structs) / sizeof(source_structs[0]))

int profiles_write_sizes(FILE *out, const struct analyzer_options *options, const struct profile_set *set,
			 struct error *error)
{
	const char *tree = options->source;
	long long bytes[SOURCE_STRUCT_COUNT];
	char arch[32];
	if (analyzer_struct_sizes(options, source_structs, SOURCE_STRUCT_COUNT, bytes, arch, sizeof(arch), error))
		return -1;
	/* kbuild says x86 for both; the Debian and defconfig 6.x trees are 64-bit */
	const char *profile_arch = !strcmp(arch, "x86") ? "x86_64" : arch;
	const struct rmap_profile *current = profiles_current(set, profile_arch);
	fprintf(out, "struct sizes in %s (arch %s, as libclang lays them out for mm/rmap.c):\n", tree, arch);
	for (size_t i = 0; i < SOURCE_STRUCT_COUNT; i++) {
		if (bytes[i] < 0)
			fprintf(out, "  struct %-16s not defined in this tree\n", source_structs[i]);
		else
			fprintf(out, "  struct %-16s %lld bytes\n", source_structs[i], bytes[i]);
	}
	if (current)
		fprintf(out, "newest built-in profile for the arch, %s, charges: anon_vma %u bytes (slab object),\n  anon_vma_chain %u bytes,"
		       " per-VMA rmap fields %u bytes\n", current->id, current->anon_vma_bytes,
		       current->anon_vma_chain_bytes, current->vma_rmap_bytes);
	return 0;
}

