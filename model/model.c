/*
 * model/model.c - model_run: page-table pages and pte_chain memory, exact
 * from pagemap and kpages (docs/cost-model.md sections 2, 4, 7 and 8), then the
 * estimates, object rmap and sharing rules (estimate.c, objrmap.c, sharing.c).
 *
 * Records are read once per distinct chunk content, never once per mapping
 * (model_internal.h): a snapshot of a thousand processes over one segment
 * costs what one of them costs, plus a few words per process and chunk.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model_internal.h"

/* ---- the PFN table: the base hash table over the entries (base/hash.h) ---- */

static uint64_t rehash_pfn(const void *context, size_t index)
{
	const struct pfn_table *table = context;
	return hash_u64(table->entries[index].pfn);
}

struct pfn_entry *pfn_table_find(const struct pfn_table *table, uint64_t pfn)
{
	struct hash_probe probe;
	for (size_t i = hash_first(&table->index, hash_u64(pfn), &probe); i != HASH_NONE;
	     i = hash_next(&table->index, &probe))
		if (table->entries[i].pfn == pfn)
			return &table->entries[i];
	return NULL;
}

struct pfn_entry *pfn_table_add(struct pfn_table *table, uint64_t pfn)
{
	struct pfn_entry *found = pfn_table_find(table, pfn);
	if (found)
		return found;
	struct pfn_entry *e = ARRAY_PUSH(table->entries, table->count, table->capacity);
	memset(e, 0, sizeof(*e));
	e->pfn = pfn;
	hash_add(&table->index, hash_u64(pfn), table->count - 1, rehash_pfn, table);
	return e;
}

void pfn_table_free(struct pfn_table *table)
{
	free(table->entries);
	hash_free(&table->index);
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

/* ---- contents and segments ---- */

const struct pagemap_record *content_records(const struct model_context *c, uint32_t content)
{
	return c->snapshot->content_records + c->snapshot->contents[content].first;
}

const struct pfn_entry *content_record_pfn(const struct model_context *c, uint32_t content, uint32_t k)
{
	uint32_t index = c->record_pfns[c->snapshot->contents[content].first + k];
	return index ? &c->pfns.entries[index - 1] : NULL;
}

unsigned chain_unit_bytes(const struct rmap_profile *profile)
{
	switch (rmap_families[profile->family].layout) {
	case CHAIN_LIST: return profile->pte_chain_bytes;
	case CHAIN_ARRAY: return profile->cache_line_bytes;
	case CHAIN_NONE: break;
	}
	return 0;
}

uint64_t chain_allocations(const struct rmap_profile *profile, uint64_t m, bool anon)
{
	uint64_t before = rmap_page_cost(profile, m, anon), after = rmap_page_cost(profile, m + 1, anon);
	uint64_t unit = chain_unit_bytes(profile);
	return after > before && unit ? (after - before) / unit : 0;
}

/* A mapping of a page mapped m times that PG_direct holds: m = 1 in a
 * design with PG_direct, for a page its design keeps a per-page map of. */
static bool direct_mapping(const struct rmap_profile *profile, uint64_t m, bool anon)
{
	const struct rmap_family_rule *rule = &rmap_families[profile->family];
	return m == 1 && rule->direct && !(anon ? rule->anon_by_object : rule->file_by_object);
}

/* Everything records [first, first + count) of a content give, every design at once. */
static void figure_records(const struct model_context *c, uint32_t content, uint32_t first,
			   uint32_t count, struct record_figures *out)
{
	const struct model_result *r = c->result;
	const struct pagemap_record *records = content_records(c, content);
	double *chain_bytes = out->chain_bytes, *chain_bytes_anon = out->chain_bytes_anon;
	uint64_t *allocations = out->chain_allocations, *frees = out->chain_frees, *direct = out->direct_pages;
	*out = (struct record_figures){ .chain_bytes = chain_bytes, .chain_bytes_anon = chain_bytes_anon,
					.chain_allocations = allocations, .chain_frees = frees,
					.direct_pages = direct };
	memset(chain_bytes, 0, r->design_count * sizeof(*chain_bytes));
	memset(chain_bytes_anon, 0, r->design_count * sizeof(*chain_bytes_anon));
	memset(allocations, 0, r->design_count * sizeof(*allocations));
	memset(frees, 0, r->design_count * sizeof(*frees));
	memset(direct, 0, r->design_count * sizeof(*direct));
	for (uint32_t k = first; k < first + count; k++) {
		const struct pagemap_record *rec = &records[k];
		const struct pfn_entry *e = content_record_pfn(c, content, k);
		bool zero = e && pfn_is_zero_page(e);
		if (!record_present(rec)) {
			out->swap++;
			continue;
		}
		if (!(rec->entry & PAGEMAP_FILE_OR_SHARED))
			out->exclusive_anon |= (rec->entry & PAGEMAP_EXCLUSIVE) != 0;
		if (zero) {
			out->zero_page++;
			continue;
		}
		out->present++;
		bool anon = record_is_anonymous(rec->entry, e);
		uint64_t m = e ? pfn_mapcount(e) : 1;
		out->mapped++;
		out->mapped_anon += anon;
		if (!(rec->entry & PAGEMAP_FILE_OR_SHARED))
			out->shared_anon |= e && !(rec->entry & PAGEMAP_EXCLUSIVE);
		out->with_pfn += e != NULL;
		out->shared += e && m >= 2;
		for (size_t d = 0; d < r->design_count; d++) {
			const struct rmap_profile *profile = r->designs[d].profile;
			/* C(m - 1), C(m), C(m + 1): a fork takes the page to m + 1
			 * mappings, an exit to m - 1 (chain_allocations, in one go) */
			uint64_t before = rmap_page_cost(profile, m - 1, anon), now = rmap_page_cost(profile, m, anon);
			uint64_t after = rmap_page_cost(profile, m + 1, anon), unit = chain_unit_bytes(profile);
			allocations[d] += after > now && unit ? (after - now) / unit : 0;
			frees[d] += now > before && unit ? (now - before) / unit : 0;
			direct[d] += direct_mapping(profile, m, anon);
			if (!e)
				continue;
			double charge = (double)now / (double)m;
			chain_bytes[d] += charge;
			chain_bytes_anon[d] += anon ? charge : 0;
		}
	}
}

/* A chunk's records that fall in one VMA: the whole content (figures worked
 * out once per content) or, where a VMA boundary cuts the chunk, a part. */
void model_walk_segments(struct model_context *c, size_t index, segment_visit visit, void *data)
{
	const struct snapshot *s = c->snapshot;
	const struct process *p = &s->processes[index];
	size_t v = 0;
	for (size_t r = 0; r < p->run_count; r++) {
		for (uint64_t i = 0; i < p->runs[r].length; i++) {
			uint32_t content = p->runs[r].content + (uint32_t)i;
			const struct pagemap_content *pc = &s->contents[content];
			const struct pagemap_record *records = content_records(c, content);
			struct segment seg = { .process = index, .content = content,
					       .base = (p->runs[r].chunk + i) << PAGEMAP_CHUNK_SHIFT };
			for (uint32_t k = 0; k < pc->count;) {
				uint64_t vaddr = seg.base + records[k].vaddr;
				while (v < p->vma_count && p->vmas[v].end <= vaddr)
					v++;
				const struct vma *vma = v < p->vma_count && p->vmas[v].start <= vaddr ? &p->vmas[v] : NULL;
				/* records up to the next VMA's start (or this one's end) belong here */
				uint64_t limit = vma ? vma->end : v < p->vma_count ? p->vmas[v].start : UINT64_MAX;
				uint32_t end = k + 1;
				while (end < pc->count && seg.base + records[end].vaddr < limit)
					end++;
				seg.vma = vma;
				seg.first = k;
				seg.count = end - k;
				seg.whole = k == 0 && end == pc->count;
				if (seg.whole) {
					seg.figures = &c->content_figures[content];
				} else {
					figure_records(c, content, k, end - k, &c->scratch);
					seg.figures = &c->scratch;
				}
				visit(c, &seg, data);
				k = end;
			}
		}
	}
}

/* ---- pass 1: the PFN table, once per distinct content ---- */

static void count_pfns(struct model_context *c)
{
	const struct snapshot *s = c->snapshot;
	c->record_pfns = xcalloc(s->content_record_count + 1, sizeof(*c->record_pfns));
	for (size_t id = 0; id < s->content_count; id++) {
		const struct pagemap_content *pc = &s->contents[id];
		const struct pagemap_record *records = s->content_records + pc->first;
		for (uint32_t k = 0; pc->references && k < pc->count; k++) {
			if (!record_present(&records[k]) || record_pfn(&records[k]) == 0)
				continue;
			struct pfn_entry *e = pfn_table_add(&c->pfns, record_pfn(&records[k]));
			e->records += pc->references;
			if (!(records[k].entry & PAGEMAP_FILE_OR_SHARED))
				e->anon_records += pc->references;
			c->record_pfns[pc->first + k] = (uint32_t)(e - c->pfns.entries) + 1;
		}
	}
	for (size_t i = 0; i < c->pfns.count; i++)
		c->pfns.entries[i].kpage = s->kpage_runs ? snapshot_find_kpage(s, c->pfns.entries[i].pfn) : NULL;
	c->result->distinct_pfns = c->pfns.count;
}

/* Per content, every figure of its records; two arrays hold the per-design parts. */
static void figure_contents(struct model_context *c)
{
	const struct snapshot *s = c->snapshot;
	size_t designs = c->result->design_count + 1, contents = s->content_count + 1;
	c->content_figures = xcalloc(contents, sizeof(*c->content_figures));
	c->content_pmd = xcalloc(contents, sizeof(*c->content_pmd));
	/* per content and design: two doubles, then three counts */
	double *bytes = xcalloc(2 * (contents * designs + designs), sizeof(*bytes));
	uint64_t *counts = xcalloc(3 * (contents * designs + designs), sizeof(*counts));
	size_t stride = contents * designs + designs;
	for (size_t id = 0; id < contents; id++) {
		struct record_figures *f = &c->content_figures[id];
		f->chain_bytes = bytes + id * designs;
		f->chain_bytes_anon = bytes + stride + id * designs;
		f->chain_allocations = counts + id * designs;
		f->chain_frees = counts + stride + id * designs;
		f->direct_pages = counts + 2 * stride + id * designs;
		if (id < s->content_count && s->contents[id].references)
			figure_records(c, (uint32_t)id, 0, s->contents[id].count, &c->content_figures[id]);
	}
	/* the last slot is the scratch of cut chunks */
	c->scratch = c->content_figures[s->content_count];
}

static void free_contents(struct model_context *c)
{
	if (c->content_figures) {
		free(c->content_figures[0].chain_bytes);
		free(c->content_figures[0].chain_allocations);
	}
	free(c->content_figures);
	free(c->content_pmd);
	free(c->record_pfns);
	free(c->overrides);
	free(c->override_first);
	free(c->override_count);
}

/* ---- PTE windows mapped by PMD leaves ---- */

/* A window is PMD-mapped when its 2^(shift-12) records are present and map
 * consecutive PFNs from an aligned compound head that is a THP or hugetlb
 * page (section 8).  The records may span several chunks (PTE pages of
 * 4 MiB): they are checked in order, as one list. */
struct pmd_check {
	uint64_t slots, seen, first_pfn;
	bool broken;
};

static void pmd_check_records(const struct model_context *c, uint32_t content, struct pmd_check *check)
{
	const struct pagemap_record *records = content_records(c, content);
	uint32_t count = c->snapshot->contents[content].count;
	for (uint32_t k = 0; k < count && !check->broken; k++) {
		uint64_t pfn = record_pfn(&records[k]);
		if (check->seen == 0)
			check->first_pfn = pfn;
		if (!record_present(&records[k]) || pfn != check->first_pfn + check->seen)
			check->broken = true;
		check->seen++;
	}
}

static enum pmd_kind pmd_check_result(const struct model_context *c, const struct pmd_check *check)
{
	if (check->broken || check->seen != check->slots || check->first_pfn == 0 ||
	    check->first_pfn % check->slots || !c->snapshot->kpage_runs)
		return PMD_NONE;
	const struct kpage_run *head = snapshot_find_kpage(c->snapshot, check->first_pfn);
	if (!head || !(head->flags >> KPF_COMPOUND_HEAD & 1) ||
	    !((head->flags >> KPF_THP & 1) || (head->flags >> KPF_HUGE & 1)))
		return PMD_NONE;
	return head->flags >> KPF_ANON & 1 ? PMD_ANON : PMD_FILE;
}

static enum pmd_kind content_pmd_kind(struct model_context *c, uint32_t content)
{
	if (c->content_pmd[content] == PMD_UNKNOWN) {
		struct pmd_check check = { .slots = (uint64_t)1 << (c->pte_shift - 12) };
		if (c->snapshot->contents[content].count == check.slots && c->snapshot->kpage_runs)
			pmd_check_records(c, content, &check);
		c->content_pmd[content] = (uint8_t)pmd_check_result(c, &check);
	}
	return (enum pmd_kind)c->content_pmd[content];
}

/* With the capture's PMD-mapped ranges (PID/pmd_mapped) a window is
 * PMD-mapped exactly when a range covers it, whatever its PFNs look like;
 * anonymous when its first page is (kpageflags ANON, else pagemap bit 61
 * clear), as only an anonymous huge PMD has a deposited PTE page; a
 * hugetlb PMD never has one. */
static enum pmd_kind member_pmd_kind(struct model_context *c, const struct process *p, uint64_t window)
{
	const struct snapshot *s = c->snapshot;
	uint64_t base = window << c->pte_shift;
	if (!process_pmd_mapped(s, p, base))
		return PMD_NONE;
	const struct vma *vma = process_find_vma(p, base);
	if (vma && VMA_HAS_FLAG(vma, VMF_HT))
		return PMD_FILE;
	struct pagemap_record record;
	if (!process_next_record(s, p, base, base + ((uint64_t)1 << c->pte_shift), &record))
		return PMD_FILE;
	const struct kpage_run *head = s->kpage_runs ? snapshot_find_kpage(s, record.entry & PAGEMAP_PFN_MASK) : NULL;
	bool anon = head ? (head->flags >> KPF_ANON & 1) : !(record.entry & PAGEMAP_FILE_OR_SHARED);
	return anon ? PMD_ANON : PMD_FILE;
}

static enum pmd_kind records_pmd_kind(struct model_context *c, const struct process *p, uint64_t window);

/* An override of smaps' count for the window, or PMD_UNKNOWN. */
static enum pmd_kind override_kind(const struct model_context *c, const struct process *p, uint64_t window)
{
	if (!c->overrides)
		return PMD_UNKNOWN;
	size_t index = (size_t)(p - c->snapshot->processes);
	const struct pmd_override *o = c->overrides + c->override_first[index];
	size_t low = 0, high = c->override_count[index];
	while (low < high) {
		size_t middle = low + (high - low) / 2;
		if (o[middle].window < window)
			low = middle + 1;
		else
			high = middle;
	}
	return low < c->override_count[index] && o[low].window == window ? (enum pmd_kind)o[low].kind : PMD_UNKNOWN;
}

enum pmd_kind window_pmd_kind(struct model_context *c, const struct process *p, uint64_t window)
{
	if (p->has_pmd_map)
		return member_pmd_kind(c, p, window);
	enum pmd_kind kind = override_kind(c, p, window);
	return kind != PMD_UNKNOWN ? kind : records_pmd_kind(c, p, window);
}

/* What the records alone suggest (section 8's rule). */
static enum pmd_kind records_pmd_kind(struct model_context *c, const struct process *p, uint64_t window)
{
	unsigned k = c->chunks_per_window_shift;
	if (k == 0) {
		long content = process_chunk_content(p, window);
		return content < 0 ? PMD_NONE : content_pmd_kind(c, (uint32_t)content);
	}
	struct pmd_check check = { .slots = (uint64_t)1 << (c->pte_shift - 12) };
	uint64_t total = 0;
	for (uint64_t chunk = window << k; chunk < (window + 1) << k; chunk++) {
		long content = process_chunk_content(p, chunk);
		total += content < 0 ? 0 : c->snapshot->contents[content].count;
	}
	if (total != check.slots || !c->snapshot->kpage_runs)
		return PMD_NONE;
	for (uint64_t chunk = window << k; chunk < (window + 1) << k; chunk++) {
		long content = process_chunk_content(p, chunk);
		if (content >= 0)
			pmd_check_records(c, (uint32_t)content, &check);
	}
	return pmd_check_result(c, &check);
}

/* ---- PMD-mapped windows without PID/pmd_mapped: smaps' count ---- */

/* Windows of a VMA mapped by PMD leaves, as smaps counts them. */
static uint64_t smaps_pmd_windows(const struct model_context *c, const struct vma *v, bool *anon)
{
	uint64_t window_kb = ((uint64_t)1 << c->pte_shift) / 1024;
	uint64_t anon_kb = v->kb[SMAPS_ANON_HUGE_PAGES], file_kb = v->kb[SMAPS_SHMEM_PMD_MAPPED] + v->kb[SMAPS_FILE_PMD_MAPPED];
	*anon = anon_kb >= file_kb;
	return (anon_kb + file_kb) / window_kb;
}

/* Does smaps count PMD mappings for this VMA?  (AnonHugePages since 2.6.38;
 * a hand-built or foreign smaps may lack every such line.) */
static bool smaps_counts_pmds(const struct vma *v)
{
	const uint32_t fields = 1u << SMAPS_ANON_HUGE_PAGES | 1u << SMAPS_SHMEM_PMD_MAPPED | 1u << SMAPS_FILE_PMD_MAPPED;
	return (v->present_fields & fields) != 0;
}

/* A whole window of present records: without kpages the only sign of a
 * PMD mapping the records give (PFNs, where known, consecutive from an
 * aligned one); its kind from pagemap bit 61. */
static enum pmd_kind full_window_kind(struct model_context *c, const struct process *p, uint64_t window)
{
	uint64_t base = window << c->pte_shift, slots = (uint64_t)1 << (c->pte_shift - 12), seen = 0, first = 0;
	struct pagemap_record record;
	bool anon = false;
	for (uint64_t at = base; seen < slots && process_next_record(c->snapshot, p, at, base + (slots << 12), &record);
	     at = record.vaddr + 4096, seen++) {
		uint64_t pfn = record.entry & PAGEMAP_PFN_MASK;
		if (record.vaddr != base + (seen << 12) || !(record.entry & PAGEMAP_PRESENT))
			return PMD_NONE;
		if (seen == 0) {
			first = pfn;
			anon = !(record.entry & PAGEMAP_FILE_OR_SHARED);
		}
		if (first && (first % slots || pfn != first + seen))
			return PMD_NONE;
	}
	return seen == slots ? (anon ? PMD_ANON : PMD_FILE) : PMD_NONE;
}

struct override_list {
	struct pmd_override *items;
	size_t count, capacity;
};

static void add_override(struct override_list *list, uint64_t window, enum pmd_kind kind)
{
	struct pmd_override *o = ARRAY_PUSH(list->items, list->count, list->capacity);
	o->window = window;
	o->kind = (uint8_t)kind;
}

/* One VMA: the windows that look PMD-mapped (candidates), against smaps'
 * count k.  Up to k candidates are taken as PMD-mapped, in address order,
 * the rest as mapped by PTEs (a 2 MiB page-cache folio mapped by 512 PTEs
 * looks like a PMD mapping); page tables are then exact, which windows
 * they are is not, so each one that may be wrong is counted twice in
 * pmd_ambiguous_windows. */
static void resolve_vma(struct model_context *c, const struct process *p, const struct vma *v,
			struct override_list *list)
{
	bool anon;
	uint64_t allowed = smaps_pmd_windows(c, v, &anon), candidates = 0, size = (uint64_t)1 << c->pte_shift;
	uint64_t at = (v->start + size - 1) & ~(size - 1);
	struct pagemap_record record;
	while (at < v->end && v->end - at >= size && process_next_record(c->snapshot, p, at, v->end, &record)) {
		uint64_t window = record.vaddr >> c->pte_shift;
		at = (window + 1) << c->pte_shift;
		if (at == 0 || at > v->end)
			break;
		enum pmd_kind kind = records_pmd_kind(c, p, window);
		if (kind == PMD_NONE && !c->snapshot->kpage_runs && allowed)
			kind = full_window_kind(c, p, window);
		if (kind == PMD_NONE || kind == PMD_UNKNOWN)
			continue;
		candidates++;
		if (candidates > allowed)
			add_override(list, window, PMD_NONE);
		else if (!c->snapshot->kpage_runs)
			add_override(list, window, kind);
	}
	if (candidates > allowed) {
		uint64_t extra = candidates - allowed;
		c->result->pmd_ambiguous_windows += 2 * (allowed < extra ? allowed : extra);
	}
}

static void resolve_pmd_windows(struct model_context *c)
{
	const struct snapshot *s = c->snapshot;
	struct override_list list = { 0 };
	c->override_first = xcalloc(s->process_count + 1, sizeof(*c->override_first));
	c->override_count = xcalloc(s->process_count + 1, sizeof(*c->override_count));
	for (size_t i = 0; i < s->process_count; i++) {
		const struct process *p = &s->processes[i];
		c->override_first[i] = list.count;
		if (p->has_pmd_map || !p->has_pagemap)
			continue;
		for (size_t v = 0; v < p->vma_count; v++)
			if (smaps_counts_pmds(&p->vmas[v]))
				resolve_vma(c, p, &p->vmas[v], &list);
		c->override_count[i] = list.count - c->override_first[i];
	}
	c->overrides = list.items ? list.items : xcalloc(1, sizeof(*c->overrides));
}

/* ---- pass 2: page-table pages per process ---- */

/* Populated windows at every counted level from the chunks (each chunk
 * holds records), and which PTE windows PMD leaves map. */
static void count_page_tables(struct model_context *c, size_t index)
{
	const struct process *p = &c->snapshot->processes[index];
	struct model_process *mp = &c->result->process_figures[index];
	const struct geometry *g = c->geometry;
	uint64_t last[MODEL_MAX_LEVELS] = { 0 };
	bool any = false;
	for (size_t r = 0; r < p->run_count; r++) {
		for (uint64_t i = 0; i < p->runs[r].length; i++) {
			uint64_t chunk = p->runs[r].chunk + i;
			for (unsigned l = 0; l < g->level_count; l++) {
				unsigned shift = g->levels[l].shift - PAGEMAP_CHUNK_SHIFT;
				uint64_t w = chunk >> shift;
				if (any && w == last[l])
					continue;
				last[l] = w;
				if (l > 0) {
					mp->upper_pages += g->levels[l].counted;
					continue;
				}
				enum pmd_kind kind = window_pmd_kind(c, p, w);
				mp->pte_pages += kind != PMD_FILE;
				mp->pmd_mapped_windows += kind == PMD_FILE || kind == PMD_ANON;
				mp->pmd_mapped_anon_windows += kind == PMD_ANON;
			}
			any = true;
		}
	}
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
}

/* ---- per process: PTEs by kind, pte_chain charges (display) ---- */

static void visit_process_figures(struct model_context *c, const struct segment *seg, void *data)
{
	(void)data;
	struct model_result *r = c->result;
	struct model_process *mp = &r->process_figures[seg->process];
	const struct record_figures *f = seg->figures;
	mp->present_ptes += f->present;
	mp->swap_ptes += f->swap;
	mp->zero_page_ptes += f->zero_page;
	if (r->has_pfns)
		for (size_t d = 0; d < r->design_count; d++)
			mp->pte_chain_bytes[d] += f->chain_bytes[d];
}

/* ---- rmap work per event (section 7) ---- */

const char *const fault_kind_names[FAULT_KIND_COUNT] = { "anon", "cow", "file", "swap" };

/* Does fork copy this VMA's PTEs under the design?  Lazy fork (2.6.14+)
 * skips a VMA without an anon_vma, since faults refill it, unless its
 * VmFlags say a fault could not (hugetlb before 6.0, PFN and mixed maps,
 * userfaultfd write-protect): the profile's copies-vmflags. */
bool model_fork_copies(const struct rmap_profile *profile, const struct vma *vma, bool has_anon_vma)
{
	return profile->fork_copies_file_ptes || has_anon_vma ||
	       (vma && (vma->vm_flags & profile->fork_copy_flags));
}

/* Per process and design, the unrounded pte_chain share of the pages each
 * kind of fault maps (anon, cow, file), rounded once per process. */
struct work_walk {
	double *fault_chain_bytes;      /* [design * 3 + kind] */
};

/* pte_chains (or blocks) a COW fault's removal of the old file page frees:
 * (C(m + 1) - C(m)) / unit for the m mappings it keeps, which no snapshot
 * shows (the page was replaced).  Known only where the step is the same
 * for every m: D1 one a removal (2.4 mm/rmap.c page_remove_rmap ->
 * pte_chain_free), none where file pages have no chains.  -1: it depends
 * on m (PG_direct, blocks of NRPTE). */
static int64_t cow_chain_frees(const struct rmap_profile *profile)
{
	unsigned unit = chain_unit_bytes(profile);
	uint64_t step = rmap_page_cost(profile, 1, false);
	uint64_t limit = 2 * (uint64_t)(profile->nrpte ? profile->nrpte : 1) + 2;
	for (uint64_t m = 1; m <= limit; m++)
		if (rmap_page_cost(profile, m + 1, false) - rmap_page_cost(profile, m, false) != step)
			return -1;
	return unit ? (int64_t)(step / unit) : 0;
}

/* A PMD-mapped THP on a whole design: one fault maps it, counted on the
 * segment holding the window's first slot (calls: 1 there, else 0):
 * do_huge_pmd_anonymous_page (one add, one anon_vma_prepare; anonymous VMAs
 * only, and a COW of a huge PMD splits it and copies by PTE since 5.8) or
 * do_set_pmd (one file add). */
static void count_pmd_fault(const struct model_context *c, const struct segment *seg, size_t d,
			    enum pmd_kind kind, uint64_t calls, struct event_work *w, double *chain_bytes)
{
	const struct rmap_profile *profile = c->result->designs[d].profile;
	enum fault_kind k = kind == PMD_ANON ? FAULT_ANON : FAULT_FILE;
	struct fault_work *fault = &w->faults[k];
	fault->faults += calls;
	fault->pmd_faults += calls;
	fault->rmap_calls += calls;
	fault->anon_vma_prepares += k == FAULT_ANON && profile->anon_vma_fork != ANON_VMA_NONE ? calls : 0;
	chain_bytes[k] += seg->figures->chain_bytes[d];
}

/* The faults that would map the segment's pages (section 7): an anonymous
 * page of a file VMA is that file page's COW copy. */
static void count_faults(const struct model_context *c, const struct segment *seg, size_t d,
			 struct event_work *w, double *chain_bytes)
{
	const struct record_figures *f = seg->figures;
	const struct rmap_profile *profile = c->result->designs[d].profile;
	bool file_vma = seg->vma && seg->vma->inode != 0;
	bool prepares = profile->anon_vma_fork != ANON_VMA_NONE;   /* anon_vma_prepare exists */
	enum fault_kind anon_kind = file_vma ? FAULT_COW : FAULT_ANON;
	struct fault_work *anon = &w->faults[anon_kind], *file = &w->faults[FAULT_FILE];
	struct fault_work *swap = &w->faults[FAULT_SWAP];
	anon->faults += f->mapped_anon;
	anon->rmap_calls += (anon_kind == FAULT_COW ? 2 : 1) * f->mapped_anon;
	int64_t frees = anon_kind == FAULT_COW ? cow_chain_frees(profile) : 0;
	anon->chain_frees += frees > 0 ? (uint64_t)frees * f->mapped_anon : 0;
	anon->anon_vma_prepares += prepares ? f->mapped_anon : 0;
	chain_bytes[anon_kind] += f->chain_bytes_anon[d];
	file->faults += f->mapped - f->mapped_anon;
	file->rmap_calls += f->mapped - f->mapped_anon;
	chain_bytes[FAULT_FILE] += f->chain_bytes[d] - f->chain_bytes_anon[d];
	/* do_swap_page maps the page once: a page of one mapping */
	unsigned unit = chain_unit_bytes(profile);
	swap->faults += f->swap;
	swap->rmap_calls += f->swap;
	swap->chain_allocations += unit ? f->swap * (rmap_page_cost(profile, 1, true) / unit) : 0;
}

static bool is_pmd_mapped(enum pmd_kind kind)
{
	return kind == PMD_FILE || kind == PMD_ANON;
}

/* rmap calls of a segment: one per mapped PTE, but on a whole design
 * (<huge-pmd rmap="whole">) one per PMD-mapped THP (copy_huge_pmd ->
 * folio_try_dup_anon_rmap_pmd at fork, zap_huge_pmd -> folio_remove_rmap_pmd
 * at exit and munmap), counted on the segment holding the window's first
 * slot. */
static uint64_t segment_calls(struct model_context *c, const struct segment *seg, enum pmd_kind kind)
{
	if (!is_pmd_mapped(kind))
		return seg->figures->mapped;
	uint64_t window_mask = ((uint64_t)1 << c->pte_shift) - 1;
	return seg->first == 0 && (seg->base & window_mask) == 0 && seg->figures->mapped;
}

/* The calls of one segment under one design. */
struct segment_calls {
	uint64_t calls, anon_calls, pmd_calls;
	bool pmd;                       /* the design maps the window by one PMD */
};

static struct segment_calls design_calls(const struct rmap_profile *profile, const struct segment *seg,
					 enum pmd_kind kind, uint64_t pmd_calls)
{
	struct segment_calls s = { seg->figures->mapped, seg->figures->mapped_anon, 0, false };
	if (!profile->huge_pmd_whole || !is_pmd_mapped(kind))
		return s;
	return (struct segment_calls){ pmd_calls, kind == PMD_ANON ? pmd_calls : 0, pmd_calls, true };
}

static void count_exit(const struct segment *seg, size_t d, const struct segment_calls *s, struct event_work *w)
{
	const struct record_figures *f = seg->figures;
	w->exit_rmap_calls += s->calls;
	w->exit_rmap_pages += f->mapped;
	w->exit_rmap_anon_calls += s->anon_calls;
	w->exit_rmap_pmd_calls += s->pmd_calls;
	w->exit_rmap_anon_pmd_calls += s->pmd ? s->anon_calls : 0;
	w->exit_chain_frees += f->chain_frees[d];
	w->exit_direct_pages += f->direct_pages[d];
}

static void visit_work(struct model_context *c, const struct segment *seg, void *data)
{
	struct work_walk *walk = data;
	struct model_result *r = c->result;
	struct model_process *mp = &r->process_figures[seg->process];
	const struct record_figures *f = seg->figures;
	/* a PFN map's PTEs are copied and zapped, but it holds no struct
	 * page: vm_normal_page() gives none, so no rmap call is made */
	if (seg->vma && VMA_HAS_FLAG(seg->vma, VMF_PF))
		return;
	bool has_anon_vma = seg->vma && c->vma_has_anon_vma[seg->vma - c->snapshot->vmas];
	const struct process *p = &c->snapshot->processes[seg->process];
	enum pmd_kind kind = window_pmd_kind(c, p, seg->base >> c->pte_shift);
	uint64_t pmd_calls = segment_calls(c, seg, kind);
	if (seg->vma) {
		c->vma_mapped[seg->vma - c->snapshot->vmas] += f->mapped;
		c->vma_pmd_calls[seg->vma - c->snapshot->vmas] += pmd_calls;
	}
	for (size_t d = 0; d < r->design_count; d++) {
		struct event_work *w = &mp->work[d];
		struct segment_calls s = design_calls(r->designs[d].profile, seg, kind, pmd_calls);
		count_exit(seg, d, &s, w);
		if (s.pmd)
			count_pmd_fault(c, seg, d, kind, pmd_calls, w, &walk->fault_chain_bytes[d * 3]);
		else
			count_faults(c, seg, d, w, &walk->fault_chain_bytes[d * 3]);
		/* copy_huge_pmd leaves a file or shmem PMD to be faulted again */
		if (!model_fork_copies(r->designs[d].profile, seg->vma, has_anon_vma) || (s.pmd && kind == PMD_FILE))
			continue;
		w->fork_rmap_calls += s.calls;
		w->fork_rmap_anon_calls += s.anon_calls;
		w->fork_rmap_pmd_calls += s.pmd_calls;
		w->fork_rmap_pages += f->mapped;
		w->fork_chain_allocations += f->chain_allocations[d];
	}
}

static void add_work(struct event_work *sum, const struct event_work *w)
{
	sum->fork_rmap_calls += w->fork_rmap_calls;
	sum->fork_rmap_anon_calls += w->fork_rmap_anon_calls;
	sum->fork_rmap_pages += w->fork_rmap_pages;
	sum->fork_rmap_pmd_calls += w->fork_rmap_pmd_calls;
	sum->fork_chain_allocations += w->fork_chain_allocations;
	sum->fork_anon_vma_calls += w->fork_anon_vma_calls;
	sum->exit_rmap_calls += w->exit_rmap_calls;
	sum->exit_rmap_pages += w->exit_rmap_pages;
	sum->exit_rmap_anon_calls += w->exit_rmap_anon_calls;
	sum->exit_rmap_pmd_calls += w->exit_rmap_pmd_calls;
	sum->exit_rmap_anon_pmd_calls += w->exit_rmap_anon_pmd_calls;
	sum->exit_chain_frees += w->exit_chain_frees;
	sum->exit_direct_pages += w->exit_direct_pages;
	sum->exit_anon_vma_unlinks += w->exit_anon_vma_unlinks;
	sum->exit_anon_vma_chain_frees += w->exit_anon_vma_chain_frees;
	for (int k = 0; k < FAULT_KIND_COUNT; k++) {
		sum->faults[k].faults += w->faults[k].faults;
		sum->faults[k].pmd_faults += w->faults[k].pmd_faults;
		sum->faults[k].rmap_calls += w->faults[k].rmap_calls;
		sum->faults[k].chain_allocations += w->faults[k].chain_allocations;
		sum->faults[k].anon_vma_prepares += w->faults[k].anon_vma_prepares;
		sum->faults[k].chain_frees += w->faults[k].chain_frees;
	}
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* munmap VMA by VMA under one design: the median and largest count of
 * rmap removals (a whole design's PMD-mapped THP is one, as at exit). */
static void count_munmap(struct model_context *c, struct model_design *design)
{
	const struct snapshot *s = c->snapshot;
	struct munmap_work *m = &design->munmap;
	const uint64_t *per_vma = design->profile->huge_pmd_whole ? c->vma_pmd_calls : c->vma_mapped;
	uint64_t *calls = xcalloc(s->vma_count + 1, sizeof(*calls));
	m->vmas = s->vma_count;
	for (size_t i = 0; i < s->process_count; i++)
		for (size_t v = 0; v < s->processes[i].vma_count; v++) {
			size_t g = (size_t)(&s->processes[i].vmas[v] - s->vmas);
			calls[g] = per_vma[g];
			if (calls[g] > m->max_calls) {
				m->max_calls = calls[g];
				m->largest = &s->vmas[g];
				m->largest_process = i;
			}
		}
	array_sort(calls, s->vma_count, sizeof(*calls), by_value);
	m->median_calls = s->vma_count ? calls[(s->vma_count - 1) / 2] : 0;
	free(calls);
}

/* Fork, exit and fault work per process and design, then their sums.  The
 * anon_vma parts were set by model_object_rmap. */
static void count_work(struct model_context *c)
{
	struct model_result *r = c->result;
	struct work_walk walk = { xcalloc(r->design_count * 3 + 1, sizeof(double)) };
	double *total_bytes = xcalloc(r->design_count * 3 + 1, sizeof(double));
	for (size_t i = 0; i < c->snapshot->process_count; i++) {
		memset(walk.fault_chain_bytes, 0, r->design_count * 3 * sizeof(double));
		model_walk_segments(c, i, visit_work, &walk);
		struct model_process *mp = &r->process_figures[i];
		for (size_t d = 0; d < r->design_count; d++) {
			unsigned unit = chain_unit_bytes(r->designs[d].profile);
			for (int k = 0; unit && k < 3; k++) {
				mp->work[d].faults[k].chain_allocations += (uint64_t)llround(walk.fault_chain_bytes[d * 3 + k] / unit);
				total_bytes[d * 3 + k] += walk.fault_chain_bytes[d * 3 + k];
			}
			add_work(&r->designs[d].work, &mp->work[d]);
		}
	}
	/* a page's chains are shared PSS-style among its mappings: the total
	 * is rounded once (a process's share alone may round to 0) */
	for (size_t d = 0; d < r->design_count; d++) {
		struct model_design *design = &r->designs[d];
		unsigned unit = chain_unit_bytes(design->profile);
		for (int k = 0; unit && k < 3; k++)
			design->work.faults[k].chain_allocations = (uint64_t)llround(total_bytes[d * 3 + k] / unit);
		design->faults_exact = r->has_pfns && r->processes_with_pagemap == r->processes;
		design->cow_frees_known = cow_chain_frees(design->profile) >= 0;
		count_munmap(c, design);
	}
	free(total_bytes);
	free(walk.fault_chain_bytes);
}

const struct event_work *model_process_work(const struct model_result *r, size_t process, size_t design)
{
	if (!r || process >= r->processes || design >= r->design_count)
		return NULL;
	return &r->process_figures[process].work[design];
}

/* ---- orchestration ---- */

/* Index of a profile among the designs, appending it (not selected) when
 * it is missing: a baseline or the snapshot's design outside --profile. */
static size_t design_index(struct model_result *r, size_t *capacity, const struct rmap_profile *profile)
{
	for (size_t d = 0; d < r->design_count; d++)
		if (r->designs[d].profile == profile)
			return d;
	array_reserve(&r->designs, capacity, r->design_count + 1, sizeof(*r->designs));
	r->designs[r->design_count] = (struct model_design){ .profile = profile };
	return r->design_count++;
}

/*
 * What the snapshot says it is must be what the model can model: the page
 * size it counts in (an aarch64 snapshot of 64 KiB pages was modelled as
 * x86_64's 4 KiB ones; an architecture without profiles of its own and
 * 4 KiB pages is priced like x86_64, as profiles_fit says), and addresses a
 * 32-bit profile's space can hold (an i386 snapshot with VMAs above 4 GiB).
 */
static int check_snapshot_fits(const struct snapshot *s, const struct rmap_profile *current,
			       bool own_geometry, struct error *error)
{
	const char *arch = s->info.arch;
	if (s->info.page_size && s->info.page_size != MODEL_PAGE_BYTES)   /* 0: a snapshot built in memory */
		return error_set(error, s->source, 0, "snapshot.info: pages of %" PRIu64 " bytes: the model "
				 "counts %u-byte pages only", (uint64_t)s->info.page_size, MODEL_PAGE_BYTES);
	if (own_geometry || !current || current->pointer_bytes != 4)
		return 0;
	for (size_t i = 0; i < s->vma_count; i++)
		if (s->vmas[i].end > (UINT64_C(1) << 32))
			return error_set(error, s->source, 0, "a VMA ends at %#" PRIx64 ", above the 4 GiB a "
					 "%s address space holds", s->vmas[i].end, arch);
	return 0;
}

static int choose_profiles(struct model_context *c, struct error *error)
{
	const struct model_options *o = c->options;
	struct model_result *r = c->result;
	const struct profile_set *set = o->profiles;
	size_t selected = o->designs ? o->design_count : set->rmap_count, capacity = 0;
	r->sharing_count = o->rules ? o->rule_count : set->rule_count;
	r->designs = NULL;
	array_reserve(&r->designs, &capacity, selected + 1, sizeof(*r->designs));
	r->sharing = xcalloc(r->sharing_count + 1, sizeof(*r->sharing));
	for (size_t d = 0; d < selected; d++)
		r->designs[r->design_count++] = (struct model_design){
			.profile = o->designs ? o->designs[d] : &set->rmaps[d], .selected = true };
	const struct rmap_profile *current = profiles_fit(set, c->snapshot->info.arch, NULL);
	if (check_snapshot_fits(c->snapshot, current, o->geometry != NULL, error))
		return -1;
	r->current_design = current ? design_index(r, &capacity, current) : SIZE_MAX;
	/* every design's baseline is computed too, so its savings always exist */
	for (size_t d = 0; d < r->design_count; d++)
		r->designs[d].baseline = design_index(r, &capacity, profiles_baseline(set, r->designs[d].profile));
	for (size_t k = 0; k < r->sharing_count; k++)
		r->sharing[k].rule = o->rules ? o->rules[k] : &set->rules[k];
	c->geometry = o->geometry;
	if (!c->geometry) {
		if (!current)
			/* profiles_fit falls back to x86_64's: only a built-in set
			 * without one gets here, the program's failure */
			return error_internal(error, NULL, 0,
					      "no kernel profile describes this snapshot's architecture");
		c->geometry = &current->geometry;
	}
	r->geometry = c->geometry;
	c->pte_shift = c->geometry->levels[0].shift;
	/* the snapshot keeps records by 2 MiB chunk (inputs/snapshot.h): a PTE
	 * page must map one chunk or several.  The geometry is a built-in
	 * profile's (profiles_fit): failing here is the program's failure. */
	if (c->pte_shift < PAGEMAP_CHUNK_SHIFT)
		return error_internal(error, NULL, 0,
				      "geometry %s: PTE pages mapping %llu KiB are not supported (2 MiB or more)",
				      c->geometry->name, (1ull << c->pte_shift) / 1024);
	c->chunks_per_window_shift = c->pte_shift - PAGEMAP_CHUNK_SHIFT;
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
		for (size_t v = 0; v < p->vma_count; v++) {
			mp->rss_bytes += p->vmas[v].kb[SMAPS_RSS] * 1024;
			mp->pss_bytes += p->vmas[v].kb[SMAPS_PSS] * 1024;
		}
		model_walk_segments(c, i, visit_process_figures, NULL);
		r->present_ptes += mp->present_ptes;
		r->swap_ptes += mp->swap_ptes;
		r->zero_page_ptes += mp->zero_page_ptes;
		if (!mp->exact)
			continue;
		r->processes_with_pagemap++;
		r->pte_pages += mp->pte_pages;
		r->upper_pages += mp->upper_pages;
		r->pmd_mapped_windows += mp->pmd_mapped_windows;
		r->pmd_mapped_anon_windows += mp->pmd_mapped_anon_windows;
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

uint64_t model_memory_bytes(const struct snapshot *s, const struct model_options *o)
{
	uint64_t designs = o->designs ? o->design_count : o->profiles->rmap_count;
	uint64_t rules = o->rules ? o->rule_count : o->profiles->rule_count;
	uint64_t records = s->content_record_count, contents = s->content_count;
	/* per record kept: its PFN entry index, and at most one PFN entry (the
	 * table at half load, doubled while it grows) */
	uint64_t bytes = records * (sizeof(uint32_t) + 2 * (sizeof(struct pfn_entry) + 2 * sizeof(uint32_t)));
	/* per content: figures for every design, PMD kind, identical-rule sums and classes */
	bytes += contents * (sizeof(struct record_figures) + 1 + designs * (2 * sizeof(double) + 3 * sizeof(uint64_t)) +
			     2 * sizeof(uint64_t) + 2 * 64);
	/* per record kept: at most one page's walk lengths and histogram slot (model/reclaim.c) */
	bytes += records * (11 * sizeof(uint32_t) + sizeof(uint64_t));
	/* per VMA: anon_vma flag, drift, union-find, sharing members, estimate keys;
	 * depth, family, mapped PTEs and THP calls, reclaim's file order, descendants and owners */
	bytes += (uint64_t)s->vma_count * (1 + sizeof(double) + 2 * sizeof(double) + 2 * sizeof(size_t) + 128 +
					   9 * sizeof(uint64_t));
	/* per process: its figures for every design and rule */
	bytes += (uint64_t)s->process_count * (sizeof(struct model_process) + (designs + rules + 2) * sizeof(double) +
					       designs * sizeof(struct event_work));
	return bytes;
}

int model_run(const struct snapshot *snapshot, const struct model_options *options,
	      struct model_result **result, struct error *error)
{
	struct model_context c = { .snapshot = snapshot, .options = options };
	struct model_result *r = xcalloc(1, sizeof(*r));
	*result = NULL;
	c.result = r;
	r->snapshot = snapshot;
	r->processes = snapshot->process_count;
	r->has_kpages = snapshot->kpage_runs != NULL;
	r->has_pfns = snapshot->info.pagemap == PAGEMAP_PFN;
	for (size_t i = 0; i < snapshot->process_count; i++)
		r->has_pagemap |= snapshot->processes[i].has_pagemap;
	r->ram_pages = snapshot_meminfo_kb(snapshot, "MemTotal") / (MODEL_PAGE_BYTES / 1024);
	if (choose_profiles(&c, error)) {
		model_free(r);
		return -1;
	}
	r->process_figures = xcalloc(snapshot->process_count + 1, sizeof(*r->process_figures));
	c.vma_has_anon_vma = xcalloc(snapshot->vma_count + 1, sizeof(*c.vma_has_anon_vma));
	struct fraction_sum *sums = xcalloc(r->design_count + 1, sizeof(*sums));
	for (size_t i = 0; i < snapshot->process_count; i++) {
		struct model_process *mp = &r->process_figures[i];
		mp->pte_chain_bytes = xcalloc(r->design_count + 1, sizeof(double));
		mp->sharable_pages = xcalloc(r->sharing_count + 1, sizeof(double));
		mp->fork_copies = xcalloc(r->sharing_count + 1, sizeof(*mp->fork_copies));
		mp->work = xcalloc(r->design_count + 1, sizeof(*mp->work));
	}
	c.vma_mapped = xcalloc(snapshot->vma_count + 1, sizeof(*c.vma_mapped));
	c.vma_pmd_calls = xcalloc(snapshot->vma_count + 1, sizeof(*c.vma_pmd_calls));

	count_pfns(&c);
	figure_contents(&c);
	resolve_pmd_windows(&c);
	for (size_t i = 0; i < snapshot->process_count; i++)
		count_page_tables(&c, i);
	sum_processes(&c);
	if (r->has_pfns)
		charge_pte_chains(&c, sums);
	model_estimate(&c);
	model_object_rmap(&c);
	count_work(&c);
	model_reclaim(&c);
	model_fork_tables(&c);
	model_counters(&c);
	finish_designs(&c, sums);
	model_sharing(&c);
	model_huge_pages(&c);
	choose_headline_rule(r);

	free_contents(&c);
	free(c.vma_has_anon_vma);
	free(c.vma_depths);
	free(c.vma_family);
	free(c.vma_mapped);
	free(c.vma_pmd_calls);
	free(sums);
	pfn_table_free(&c.pfns);
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
		free(r->process_figures[i].fork_copies);
		free(r->process_figures[i].work);
	}
	for (size_t k = 0; r->sharing && k < r->sharing_count; k++)
		free(r->sharing[k].files);
	free(r->process_figures);
	free(r->designs);
	free(r->sharing);
	free(r->segments);
	free(r);
}
