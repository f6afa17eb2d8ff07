/*
 * model/model.c - model_run: page-table pages and pte_chain memory, exact
 * from pagemap and kpages (cost-model.md sections 2, 4, 7 and 8), then the
 * estimates, object rmap and sharing rules (estimate.c, objrmap.c, sharing.c).
 *
 * Everything is one or two passes over the records plus hash lookups: a
 * snapshot can hold millions of records, so nothing here compares records
 * with records.
 */
#include <stdlib.h>
#include <string.h>

#include "model/model_internal.h"

/* No partial figures: out of memory ends the run with the internal-failure
 * status (2) and says why, rather than a SIGABRT and a core. */
void model_out_of_memory(void)
{
	fputs("ptscope: out of memory in the cost model\n", stderr);
	exit(2);
}

void *model_grow(void *array, size_t *capacity, size_t need, size_t size)
{
	if (need <= *capacity)
		return array;
	size_t next = *capacity ? *capacity * 2 : 16;
	while (next < need)
		next *= 2;
	void *p = realloc(array, next * size);
	if (!p)
		model_out_of_memory();
	*capacity = next;
	return p;
}

/* ---- the PFN table: open addressing, linear probing ---- */

static size_t hash_pfn(uint64_t pfn)
{
	pfn *= UINT64_C(0x9e3779b97f4a7c15);
	return (size_t)(pfn ^ (pfn >> 29));
}

static void pfn_table_rehash(struct pfn_table *table)
{
	size_t slots = table->slot_mask ? (table->slot_mask + 1) * 2 : 1024;
	free(table->slots);
	table->slots = calloc(slots, sizeof(*table->slots));
	if (!table->slots)
		model_out_of_memory();
	table->slot_mask = slots - 1;
	for (size_t i = 0; i < table->count; i++) {
		size_t s = hash_pfn(table->entries[i].pfn) & table->slot_mask;
		while (table->slots[s])
			s = (s + 1) & table->slot_mask;
		table->slots[s] = (uint32_t)(i + 1);
	}
}

struct pfn_entry *pfn_table_find(const struct pfn_table *table, uint64_t pfn)
{
	if (!table->slots)
		return NULL;
	for (size_t s = hash_pfn(pfn) & table->slot_mask; table->slots[s]; s = (s + 1) & table->slot_mask)
		if (table->entries[table->slots[s] - 1].pfn == pfn)
			return &table->entries[table->slots[s] - 1];
	return NULL;
}

struct pfn_entry *pfn_table_add(struct pfn_table *table, uint64_t pfn)
{
	struct pfn_entry *found = pfn_table_find(table, pfn);
	if (found)
		return found;
	if ((table->count + 1) * 2 > table->slot_mask + 1 || !table->slots)
		pfn_table_rehash(table);
	table->entries = model_grow(table->entries, &table->capacity, table->count + 1, sizeof(*table->entries));
	struct pfn_entry *e = &table->entries[table->count];
	memset(e, 0, sizeof(*e));
	e->pfn = pfn;
	size_t s = hash_pfn(pfn) & table->slot_mask;
	while (table->slots[s])
		s = (s + 1) & table->slot_mask;
	table->slots[s] = (uint32_t)++table->count;
	return e;
}

void pfn_table_free(struct pfn_table *table)
{
	free(table->entries);
	free(table->slots);
	memset(table, 0, sizeof(*table));
}

uint64_t pfn_mapcount(const struct pfn_entry *e)
{
	uint64_t m = e->records;
	if (e->kpage && e->kpage->mapcount > m)
		m = e->kpage->mapcount;
	return m;
}

bool pfn_is_zero_page(const struct pfn_entry *e)
{
	return e->kpage && (e->kpage->flags >> KPF_ZERO_PAGE & 1);
}

bool record_is_anonymous(uint64_t entry_word, const struct pfn_entry *pfn)
{
	if (!(entry_word & PAGEMAP_FILE_OR_SHARED))
		return true;
	return pfn && pfn->kpage && (pfn->kpage->flags >> KPF_ANON & 1);
}

static bool record_present(const struct pagemap_record *r)
{
	return r->entry & PAGEMAP_PRESENT;
}

static uint64_t record_pfn(const struct pagemap_record *r)
{
	return r->entry & PAGEMAP_PFN_MASK;
}

/* ---- lookups over ascending arrays ---- */

size_t windows_lower_bound(const struct process_data *data, uint64_t window)
{
	size_t low = 0, high = data->window_count;
	while (low < high) {
		size_t middle = low + (high - low) / 2;
		if (data->windows[middle].window < window)
			low = middle + 1;
		else
			high = middle;
	}
	return low;
}

/* ---- pass 1: the PFN table ---- */

static void count_pfns(struct model_context *c)
{
	const struct snapshot *s = c->snapshot;
	for (size_t i = 0; i < s->process_count; i++) {
		const struct process *p = &s->processes[i];
		for (size_t r = 0; r < p->pagemap_count; r++) {
			const struct pagemap_record *rec = &p->pagemap[r];
			if (!record_present(rec) || record_pfn(rec) == 0)
				continue;
			struct pfn_entry *e = pfn_table_add(&c->pfns, record_pfn(rec));
			e->records++;
			if (!(rec->entry & PAGEMAP_FILE_OR_SHARED))
				e->anon_records++;
		}
	}
	for (size_t i = 0; i < c->pfns.count; i++)
		c->pfns.entries[i].kpage = s->kpages ? snapshot_find_kpage(s, c->pfns.entries[i].pfn) : NULL;
	c->result->distinct_pfns = c->pfns.count;
}

/* ---- pass 2: windows and page-table pages per process ---- */

/* A window is PMD-mapped when its 2^(shift-12) records are present and map
 * consecutive PFNs from an aligned compound head that is a THP or hugetlb
 * page (section 8). */
static void classify_window(const struct model_context *c, const struct process *p,
			    struct process_window *w)
{
	size_t slots = (size_t)1 << (c->pte_shift - 12);
	w->pmd_mapped = w->anon_pmd = false;
	if (w->count != slots || !c->snapshot->kpages)
		return;
	const struct pagemap_record *first = &p->pagemap[w->first];
	uint64_t pfn = record_pfn(first);
	if (pfn == 0 || pfn % slots)
		return;
	for (size_t i = 0; i < slots; i++)
		if (!record_present(&first[i]) || record_pfn(&first[i]) != pfn + i)
			return;
	const struct kpage *head = snapshot_find_kpage(c->snapshot, pfn);
	if (!head || !(head->flags >> KPF_COMPOUND_HEAD & 1) ||
	    !((head->flags >> KPF_THP & 1) || (head->flags >> KPF_HUGE & 1)))
		return;
	w->pmd_mapped = true;
	w->anon_pmd = head->flags >> KPF_ANON & 1;
}

static void build_windows(struct model_context *c, size_t index)
{
	const struct process *p = &c->snapshot->processes[index];
	struct process_data *d = &c->data[index];
	size_t capacity = 0;
	for (size_t r = 0; r < p->pagemap_count; r++) {
		uint64_t window = p->pagemap[r].vaddr >> c->pte_shift;
		if (d->window_count && d->windows[d->window_count - 1].window == window) {
			d->windows[d->window_count - 1].count++;
			continue;
		}
		d->windows = model_grow(d->windows, &capacity, d->window_count + 1, sizeof(*d->windows));
		d->windows[d->window_count++] = (struct process_window){ .window = window, .first = r, .count = 1 };
	}
	for (size_t w = 0; w < d->window_count; w++)
		classify_window(c, p, &d->windows[w]);
}

/* Distinct windows of 1 << shift bytes holding records. */
static uint64_t distinct_windows(const struct process *p, unsigned shift)
{
	uint64_t n = 0, last = 0;
	for (size_t r = 0; r < p->pagemap_count; r++) {
		uint64_t w = p->pagemap[r].vaddr >> shift;
		if (n == 0 || w != last)
			n++;
		last = w;
	}
	return n;
}

static void count_page_tables(struct model_context *c, size_t index)
{
	const struct process *p = &c->snapshot->processes[index];
	const struct process_data *d = &c->data[index];
	struct model_process *mp = &c->result->process_figures[index];
	mp->pte_pages = d->window_count;
	for (size_t w = 0; w < d->window_count; w++) {
		if (!d->windows[w].pmd_mapped)
			continue;
		mp->pmd_mapped_windows++;
		if (!d->windows[w].anon_pmd)
			mp->pte_pages--;
	}
	for (unsigned l = 1; l < c->geometry->level_count; l++)
		if (c->geometry->levels[l].counted)
			mp->upper_pages += distinct_windows(p, c->geometry->levels[l].shift);
	mp->pagetable_bytes = MODEL_PAGE_BYTES * (mp->pte_pages + mp->upper_pages);
}

/* ---- pte_chain bytes, PSS-style (section 8) ---- */

static void charge_pte_chains(struct model_context *c, struct fraction_sum *sums)
{
	struct model_result *r = c->result;
	/* totals: one term per distinct PFN and design, grouped by m */
	for (size_t i = 0; i < c->pfns.count; i++) {
		const struct pfn_entry *e = &c->pfns.entries[i];
		if (pfn_is_zero_page(e))
			continue;
		uint64_t m = pfn_mapcount(e);
		bool all_anon = e->kpage && (e->kpage->flags >> KPF_ANON & 1);
		uint64_t anon = all_anon ? e->records : e->anon_records;
		for (size_t d = 0; d < r->design_count; d++) {
			const struct rmap_profile *profile = r->designs[d].profile;
			unsigned __int128 numerator =
				(unsigned __int128)anon * rmap_page_cost(profile, m, true) +
				(unsigned __int128)(e->records - anon) * rmap_page_cost(profile, m, false);
			fraction_sum_add(&sums[d], numerator, m);
		}
	}
	/* per process, for display: the same charges as doubles */
	for (size_t i = 0; i < c->snapshot->process_count; i++) {
		const struct process *p = &c->snapshot->processes[i];
		struct model_process *mp = &r->process_figures[i];
		for (size_t k = 0; k < p->pagemap_count; k++) {
			const struct pagemap_record *rec = &p->pagemap[k];
			if (!record_present(rec) || record_pfn(rec) == 0)
				continue;
			const struct pfn_entry *e = pfn_table_find(&c->pfns, record_pfn(rec));
			if (!e || pfn_is_zero_page(e))
				continue;
			uint64_t m = pfn_mapcount(e);
			bool anon = record_is_anonymous(rec->entry, e);
			for (size_t d = 0; d < r->design_count; d++)
				mp->pte_chain_bytes[d] += (double)rmap_page_cost(r->designs[d].profile, m, anon) / (double)m;
		}
	}
}

/* ---- rmap work per event (section 7) ---- */

/* pte_chain objects (or blocks) a design allocates when a page mapped m
 * times gains one more mapping. */
static uint64_t chain_allocations(const struct rmap_profile *profile, uint64_t m, bool anon)
{
	uint64_t before = rmap_page_cost(profile, m, anon), after = rmap_page_cost(profile, m + 1, anon);
	const struct rmap_family_rule *rule = &rmap_families[profile->family];
	uint64_t unit = rule->layout == CHAIN_LIST ? profile->pte_chain_bytes : profile->cache_line_bytes;
	return after > before && unit ? (after - before) / unit : 0;
}

static void count_work(struct model_context *c)
{
	struct model_result *r = c->result;
	const struct snapshot *s = c->snapshot;
	for (size_t i = 0; i < s->process_count; i++) {
		const struct process *p = &s->processes[i];
		size_t v = 0;
		for (size_t k = 0; k < p->pagemap_count; k++) {
			const struct pagemap_record *rec = &p->pagemap[k];
			if (!record_present(rec))
				continue;
			const struct pfn_entry *e = record_pfn(rec) ? pfn_table_find(&c->pfns, record_pfn(rec)) : NULL;
			if (e && pfn_is_zero_page(e))
				continue;
			while (v < p->vma_count && p->vmas[v].end <= rec->vaddr)
				v++;
			bool has_anon_vma = v < p->vma_count && c->vma_has_anon_vma[&p->vmas[v] - s->vmas];
			bool anon = record_is_anonymous(rec->entry, e);
			uint64_t m = e ? pfn_mapcount(e) : 1;
			for (size_t d = 0; d < r->design_count; d++) {
				struct model_design *design = &r->designs[d];
				design->exit_rmap_calls++;
				if (!design->profile->fork_copies_file_ptes && !has_anon_vma)
					continue;
				design->fork_rmap_calls++;
				design->fork_rmap_anon_calls += anon;
				design->fork_chain_allocations += chain_allocations(design->profile, m, anon);
			}
		}
	}
}

/* ---- orchestration ---- */

static int fail(struct model_error *error, const char *message)
{
	snprintf(error->message, sizeof(error->message), "%s", message);
	return -1;
}

/* Index of a profile among the designs, appending it (not selected) when
 * it is missing: a baseline or the snapshot's design outside --profile. */
static size_t design_index(struct model_result *r, size_t *capacity, const struct rmap_profile *profile)
{
	for (size_t d = 0; d < r->design_count; d++)
		if (r->designs[d].profile == profile)
			return d;
	r->designs = model_grow(r->designs, capacity, r->design_count + 1, sizeof(*r->designs));
	r->designs[r->design_count] = (struct model_design){ .profile = profile };
	return r->design_count++;
}

static int choose_profiles(struct model_context *c, struct model_error *error)
{
	const struct model_options *o = c->options;
	struct model_result *r = c->result;
	const struct profile_set *set = o->profiles;
	size_t selected = o->designs ? o->design_count : set->rmap_count, capacity = 0;
	r->sharing_count = o->rules ? o->rule_count : set->rule_count;
	r->designs = model_grow(NULL, &capacity, selected + 1, sizeof(*r->designs));
	r->sharing = calloc(r->sharing_count + 1, sizeof(*r->sharing));
	if (!r->sharing)
		model_out_of_memory();
	for (size_t d = 0; d < selected; d++)
		r->designs[r->design_count++] = (struct model_design){
			.profile = o->designs ? o->designs[d] : &set->rmaps[d], .selected = true };
	const struct rmap_profile *current = profiles_fit(set, c->snapshot->info.arch, NULL);
	r->current_design = current ? design_index(r, &capacity, current) : SIZE_MAX;
	/* every design's baseline is computed too, so its savings always exist */
	for (size_t d = 0; d < r->design_count; d++)
		r->designs[d].baseline = design_index(r, &capacity, profiles_baseline(set, r->designs[d].profile));
	for (size_t k = 0; k < r->sharing_count; k++)
		r->sharing[k].rule = o->rules ? o->rules[k] : &set->rules[k];
	c->geometry = o->geometry;
	if (!c->geometry) {
		if (!current)
			return fail(error, "no kernel profile describes this snapshot's architecture");
		c->geometry = &current->geometry;
	}
	r->geometry = c->geometry;
	c->pte_shift = c->geometry->levels[0].shift;
	return 0;
}

static void sum_processes(struct model_context *c)
{
	struct model_result *r = c->result;
	const struct snapshot *s = c->snapshot;
	for (size_t i = 0; i < s->process_count; i++) {
		const struct process *p = &s->processes[i];
		struct model_process *mp = &r->process_figures[i];
		mp->process = p;
		mp->has_vmpte = p->has_status && p->status.has_vm_pte;
		mp->vmpte_bytes = mp->has_vmpte ? p->status.vm_pte_kb * 1024 : 0;
		mp->exact = p->has_pagemap;
		r->vmpte_bytes += mp->vmpte_bytes;
		r->processes_with_status += mp->has_vmpte;
		r->vma_count += p->vma_count;
		for (size_t k = 0; k < p->pagemap_count; k++) {
			const struct pagemap_record *rec = &p->pagemap[k];
			const struct pfn_entry *e = record_present(rec) && record_pfn(rec)
				? pfn_table_find(&c->pfns, record_pfn(rec)) : NULL;
			if (!record_present(rec))
				mp->swap_ptes++;
			else if (e && pfn_is_zero_page(e))
				mp->zero_page_ptes++;
			else
				mp->present_ptes++;
		}
		r->present_ptes += mp->present_ptes;
		r->swap_ptes += mp->swap_ptes;
		r->zero_page_ptes += mp->zero_page_ptes;
		if (!mp->exact)
			continue;
		r->processes_with_pagemap++;
		r->pte_pages += mp->pte_pages;
		r->upper_pages += mp->upper_pages;
		r->pmd_mapped_windows += mp->pmd_mapped_windows;
		r->pagetable_bytes += mp->pagetable_bytes;
		r->vmpte_bytes_of_exact += mp->vmpte_bytes;
		if (mp->has_vmpte && mp->vmpte_bytes == mp->pagetable_bytes)
			r->processes_pagetable_exact++;
		if (mp->has_vmpte && mp->vmpte_bytes > mp->pagetable_bytes)
			r->vmpte_above_model_bytes += mp->vmpte_bytes - mp->pagetable_bytes;
		if (mp->has_vmpte && mp->vmpte_bytes < mp->pagetable_bytes)
			r->vmpte_below_model_bytes += mp->pagetable_bytes - mp->vmpte_bytes;
	}
}

static void finish_designs(struct model_context *c, struct fraction_sum *sums)
{
	struct model_result *r = c->result;
	bool exact = r->has_pfns && r->processes_with_pagemap == r->processes;
	for (size_t d = 0; d < r->design_count; d++) {
		struct model_design *design = &r->designs[d];
		design->pte_chain_exact = exact;
		if (exact) {
			design->pte_chain_bytes = fraction_sum_round(&sums[d]);
			design->pte_chain_value = fraction_sum_value(&sums[d]);
		} else {
			design->pte_chain_value = design->pte_chain_estimate.point;
			design->pte_chain_bytes = (uint64_t)(design->pte_chain_estimate.point + 0.5);
		}
		/* the struct page field is paid on every page of RAM the
		 * architecture can address, not on the captured processes */
		uint64_t ram_bytes = r->ram_pages * MODEL_PAGE_BYTES;
		uint64_t addressable = geometry_addressable_bytes(&design->profile->geometry);
		design->ram_capped = addressable < ram_bytes;
		design->priced_ram_bytes = design->ram_capped ? addressable : ram_bytes;
		design->page_field_bytes = design->priced_ram_bytes / MODEL_PAGE_BYTES * design->profile->page_field_bytes;
		design->rmap_bytes = design->pte_chain_bytes + design->object_rmap_bytes;
		design->total_bytes = design->rmap_bytes + design->page_field_bytes;
		fraction_sum_free(&sums[d]);
	}
	for (size_t d = 0; d < r->design_count; d++) {
		struct model_design *design = &r->designs[d];
		design->saves_bytes = (int64_t)r->designs[design->baseline].rmap_bytes - (int64_t)design->rmap_bytes;
	}
}

/* The rule the headline quotes: the first that shares by address or file
 * (content sharing is an upper bound, not a mechanism). */
static void choose_headline_rule(struct model_result *r)
{
	r->headline_rule = SIZE_MAX;
	for (size_t k = 0; k < r->sharing_count && r->headline_rule == SIZE_MAX; k++)
		if (r->sharing[k].available && r->sharing[k].rule->partners != PARTNERS_CONTENT)
			r->headline_rule = k;
}

int model_run(const struct snapshot *snapshot, const struct model_options *options,
	      struct model_result **result, struct model_error *error)
{
	struct model_context c = { .snapshot = snapshot, .options = options };
	struct model_result *r = calloc(1, sizeof(*r));
	*result = NULL;
	if (!r)
		return fail(error, "out of memory");
	c.result = r;
	r->snapshot = snapshot;
	r->processes = snapshot->process_count;
	r->has_kpages = snapshot->kpages != NULL;
	r->has_pfns = snapshot->info.pagemap == PAGEMAP_PFN;
	for (size_t i = 0; i < snapshot->process_count; i++)
		r->has_pagemap |= snapshot->processes[i].has_pagemap;
	r->ram_pages = snapshot_meminfo_kb(snapshot, "MemTotal") / (MODEL_PAGE_BYTES / 1024);
	if (choose_profiles(&c, error)) {
		model_free(r);
		return -1;
	}
	r->process_figures = calloc(snapshot->process_count + 1, sizeof(*r->process_figures));
	c.data = calloc(snapshot->process_count + 1, sizeof(*c.data));
	c.vma_has_anon_vma = calloc(snapshot->vma_count + 1, sizeof(*c.vma_has_anon_vma));
	struct fraction_sum *sums = calloc(r->design_count + 1, sizeof(*sums));
	if (!r->process_figures || !c.data || !c.vma_has_anon_vma || !sums)
		model_out_of_memory();
	for (size_t i = 0; i < snapshot->process_count; i++) {
		struct model_process *mp = &r->process_figures[i];
		mp->pte_chain_bytes = calloc(r->design_count + 1, sizeof(double));
		mp->sharable_pages = calloc(r->sharing_count + 1, sizeof(double));
		if (!mp->pte_chain_bytes || !mp->sharable_pages)
			model_out_of_memory();
	}

	count_pfns(&c);
	for (size_t i = 0; i < snapshot->process_count; i++) {
		build_windows(&c, i);
		count_page_tables(&c, i);
	}
	sum_processes(&c);
	if (r->has_pfns)
		charge_pte_chains(&c, sums);
	model_estimate(&c);
	model_object_rmap(&c);
	count_work(&c);
	finish_designs(&c, sums);
	int status = model_sharing(&c);
	choose_headline_rule(r);

	for (size_t i = 0; i < snapshot->process_count; i++)
		free(c.data[i].windows);
	free(c.data);
	free(c.vma_has_anon_vma);
	free(sums);
	pfn_table_free(&c.pfns);
	if (status) {
		model_free(r);
		return fail(error, "out of memory");
	}
	*result = r;
	return 0;
}

void model_free(struct model_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; r->process_figures && i < r->processes; i++) {
		free(r->process_figures[i].pte_chain_bytes);
		free(r->process_figures[i].sharable_pages);
	}
	for (size_t k = 0; r->sharing && k < r->sharing_count; k++)
		free(r->sharing[k].files);
	free(r->process_figures);
	free(r->designs);
	free(r->sharing);
	free(r);
}
