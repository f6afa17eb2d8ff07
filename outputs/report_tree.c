/*
 * outputs/report_tree.c - the report as one json-c tree, which the JSON, XML,
 * CSV and HTML writers all print.  Keys of `totals` are those of
 * docs/cost-model.md section 8 (`pte_chain_bytes.ID` is totals.pte_chain_bytes[ID]).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "base/escape.h"
#include "outputs/report_internal.h"
#include "version.h"

static void put(struct json_object *object, const char *key, struct json_object *value)
{
	json_object_object_add(object, key, value);
}

static void put_u64(struct json_object *object, const char *key, uint64_t value)
{
	put(object, key, json_object_new_uint64(value));
}

/* Several KEY: N members, in order: PUT_U64S(o, { "pte_pages", r->pte_pages }, ...). */
struct named_u64 {
	const char *key;
	uint64_t value;
};

static void put_u64_list(struct json_object *object, const struct named_u64 *list, size_t count)
{
	for (size_t i = 0; i < count; i++)
		put_u64(object, list[i].key, list[i].value);
}
#define PUT_U64S(object, ...)                                                              \
	put_u64_list(object, (const struct named_u64[]){ __VA_ARGS__ },                      \
		     sizeof((const struct named_u64[]){ __VA_ARGS__ }) / sizeof(struct named_u64))

/* Names come from input: the tree holds them as valid UTF-8 (base/escape.h),
 * so every format written from it starts from text its reader accepts. */
static void put_string(struct json_object *object, const char *key, const char *value)
{
	char small[256], *spill;
	put(object, key, json_object_new_string(escape_into(escape_utf8, value, small, sizeof(small), &spill)));
	free(spill);
}

/* A figure the snapshot may lack: null when it is not known. */
static void put_known_u64(struct json_object *object, const char *key, bool known, uint64_t value)
{
	put(object, key, known ? json_object_new_uint64(value) : NULL);
}

static void put_bool(struct json_object *object, const char *key, bool value)
{
	put(object, key, json_object_new_boolean(value));
}

/* A decimal figure rounded to one place, printed as such (no 17-digit
 * doubles, no -0.0). */
static struct json_object *decimal(double value)
{
	if (!isfinite(value))
		return NULL;    /* JSON has no NaN or Infinity: null, never "nan" */
	char text[48];
	double rounded = report_round1(value);
	snprintf(text, sizeof(text), "%.1f", rounded);
	return json_object_new_double_s(rounded, text);
}

/* Estimates are reported in whole units: a fraction of a byte means nothing. */
static struct json_object *estimate_object(const struct estimate *e, double exact, bool has_exact)
{
	struct json_object *o = json_object_new_object();
	put_string(o, "method", e->method);
	PUT_U64S(o, { "point", (uint64_t)llround(e->point) }, { "lower", (uint64_t)floor(e->lower) },
	            { "upper", (uint64_t)ceil(e->upper) });
	if (has_exact) {
		put_u64(o, "exact", (uint64_t)llround(exact));
		put(o, "error_percent", decimal(exact > 0 ? (e->point - exact) / exact * 100 : 0));
		put_bool(o, "exact_within_bounds", exact >= floor(e->lower) && exact <= ceil(e->upper));
	}
	return o;
}

static struct json_object *snapshot_object(const struct model_result *r)
{
	const struct snapshot *s = r->snapshot;
	struct json_object *o = json_object_new_object();
	put_string(o, "source", s->source);
	put_string(o, "kernel", s->info.kernel);
	put_string(o, "arch", s->info.arch);
	put_string(o, "hostname", s->info.hostname);
	put_string(o, "captured_at", s->info.captured_at);
	put_string(o, "pagemap", pagemap_mode_names[s->info.pagemap < PAGEMAP_MODE_COUNT ? s->info.pagemap : 0]);
	put_bool(o, "kpages", r->has_kpages);
	put_string(o, "geometry", r->geometry->name);
	/* what the capture could not see; absent when the snapshot does not say */
	if (s->info.skipped >= 0)
		put_u64(o, "skipped_at_capture", (uint64_t)s->info.skipped);
	if (s->info.unreadable >= 0)
		put_u64(o, "refused_at_capture", (uint64_t)s->info.unreadable);
	/* dropped when read (--skip-bad); absent when none was */
	if (s->skipped_bad) {
		put_u64(o, "skipped_broken", s->skipped_bad);
		put_string(o, "first_broken", s->first_bad);
	}
	if (s->info.ptscope_version[0])
		put_string(o, "captured_by", s->info.ptscope_version);
	return o;
}

static struct json_object *keyed_totals(const struct model_result *r, int which)
{
	struct json_object *o = json_object_new_object();
	if (which != 3) {
		for (size_t d = 0; d < r->design_count; d++) {
			const struct model_design *m = &r->designs[d];
			uint64_t values[5] = { m->pte_chain_bytes, m->object_rmap_bytes, m->total_bytes, 0, m->rmap_bytes };
			put_u64(o, m->profile->id, values[which]);
		}
	} else {
		for (size_t k = 0; k < r->sharing_count; k++)
			if (r->sharing[k].available)
				put_u64(o, r->sharing[k].rule->id, r->sharing[k].sharable_pages);
	}
	return o;
}

/* {"none": what a fork copies today, "RULE": what it copies under the rule}:
 * PTE pages (which == 0) or PTEs. */
static struct json_object *fork_copies_object(const struct model_result *r, const struct fork_copy *none,
					      const struct fork_copy *per_rule, size_t stride, int which)
{
	struct json_object *o = json_object_new_object();
	put_u64(o, "none", which ? none->ptes : none->pte_pages);
	for (size_t k = 0; k < r->sharing_count; k++) {
		const struct fork_copy *copy = (const struct fork_copy *)((const char *)per_rule + k * stride);
		put_u64(o, r->sharing[k].rule->id, which ? copy->ptes : copy->pte_pages);
	}
	return o;
}

static void put_fork_copies(struct json_object *o, const struct model_result *r, const struct fork_copy *none,
			    const struct fork_copy *per_rule, size_t stride)
{
	put(o, "fork_pte_pages_copied", fork_copies_object(r, none, per_rule, stride, 0));
	put(o, "fork_ptes_copied", fork_copies_object(r, none, per_rule, stride, 1));
}

static struct json_object *totals_object(const struct model_result *r)
{
	struct json_object *o = json_object_new_object();
	PUT_U64S(o, { "processes", r->processes }, { "vmpte_bytes", r->vmpte_bytes },
	            { "pagetable_bytes", r->pagetable_bytes },
	            { "processes_pagetable_exact", r->processes_pagetable_exact },
	            { "processes_with_pagemap", r->processes_with_pagemap }, { "pte_pages", r->pte_pages },
	            { "upper_level_pages", r->upper_pages }, { "pmd_mapped_windows", r->pmd_mapped_windows },
	            { "pmd_ambiguous_windows", r->pmd_ambiguous_windows },
	            { "pmd_mapped_anon_windows", r->pmd_mapped_anon_windows },
	            { "vmpte_above_model_bytes", r->vmpte_above_model_bytes },
	            { "vmpte_below_model_bytes", r->vmpte_below_model_bytes },
	            { "present_ptes", r->present_ptes }, { "swap_ptes", r->swap_ptes },
	            { "zero_page_ptes", r->zero_page_ptes }, { "vmas", r->vma_count },
	            { "vmas_with_anon_vma", r->anon_vmas });
	put(o, "pte_chain_bytes", keyed_totals(r, 0));
	put(o, "object_rmap_bytes", keyed_totals(r, 1));
	put(o, "rmap_total_bytes", keyed_totals(r, 2));
	put(o, "rmap_bytes", keyed_totals(r, 4));   /* the designs table's rmap column */
	put(o, "sharable_pte_pages", keyed_totals(r, 3));
	put_fork_copies(o, r, &r->fork_copy, &r->sharing[0].fork_copies, sizeof(*r->sharing));
	return o;
}

/* One kind of fault: the snapshot's totals and what one fault does. */
static struct json_object *fault_object(const struct fault_work *f)
{
	struct json_object *o = json_object_new_object();
	PUT_U64S(o, { "faults", f->faults }, { "pmd_faults", f->pmd_faults }, { "rmap_calls", f->rmap_calls },
	            { "chain_allocations", f->chain_allocations },
	            { "anon_vma_prepare_calls", f->anon_vma_prepares }, { "chain_frees", f->chain_frees });
	struct json_object *one = json_object_new_object();
	double n = f->faults ? (double)f->faults : 1;
	put(one, "rmap_calls", decimal((double)f->rmap_calls / n));
	put(one, "chain_allocations", decimal((double)f->chain_allocations / n));
	put(one, "anon_vma_prepare_calls", decimal((double)f->anon_vma_prepares / n));
	put(o, "per_fault", one);
	return o;
}

static struct json_object *faults_object(const struct model_design *m)
{
	struct json_object *o = json_object_new_object();
	struct fault_work all = { 0 };
	put_bool(o, "exact", m->faults_exact);
	put_bool(o, "cow_chain_frees_known", m->cow_frees_known);
	for (int k = 0; k < FAULT_KIND_COUNT; k++) {
		const struct fault_work *f = &m->work.faults[k];
		put(o, fault_kind_names[k], fault_object(f));
		all.faults += f->faults;
		all.pmd_faults += f->pmd_faults;
		all.rmap_calls += f->rmap_calls;
		all.chain_allocations += f->chain_allocations;
		all.anon_vma_prepares += f->anon_vma_prepares;
		all.chain_frees += f->chain_frees;
	}
	put(o, "all", fault_object(&all));
	return o;
}

static struct json_object *munmap_object(const struct model_result *r, const struct model_design *m)
{
	const struct munmap_work *u = &m->munmap;
	struct json_object *o = json_object_new_object();
	PUT_U64S(o, { "vmas", u->vmas }, { "rmap_calls", m->work.exit_rmap_calls },
	            { "chain_frees", m->work.exit_chain_frees },
	            { "anon_vma_unlinks", m->work.exit_anon_vma_unlinks },
	            { "anon_vma_chain_frees", m->work.exit_anon_vma_chain_frees },
	            { "median_rmap_calls_per_vma", u->median_calls }, { "max_rmap_calls_per_vma", u->max_calls });
	if (u->largest) {
		struct json_object *v = json_object_new_object();
		put(v, "pid", json_object_new_int64(r->snapshot->processes[u->largest_process].pid));
		put_u64(v, "start", u->largest->start);
		put_u64(v, "end", u->largest->end);
		put_string(v, "path", u->largest->path ? u->largest->path : "");
		put(o, "largest_vma", v);
	}
	return o;
}

static struct json_object *walk_owners(const struct model_result *r, const struct reclaim_walk_owner *owners,
				       size_t count, bool file)
{
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; i < count; i++) {
		const struct reclaim_walk_owner *w = &owners[i];
		struct json_object *o = json_object_new_object();
		put_string(o, "path", w->vma->path ? w->vma->path : "");
		if (file) {
			put_u64(o, "inode", w->vma->inode);
		} else {
			put(o, "pid", json_object_new_int64(r->snapshot->processes[w->process].pid));
			put_u64(o, "start", w->vma->start);
			put_u64(o, "end", w->vma->end);
		}
		PUT_U64S(o, { "pages", w->pages }, { "visited", w->visited },
		            { "visited_not_mapping", w->not_mapping });
		json_object_array_add(a, o);
	}
	return a;
}

static struct json_object *reclaim_object(const struct model_result *r, const struct reclaim_work *w)
{
	struct json_object *o = json_object_new_object();
	put_bool(o, "available", w->available);
	PUT_U64S(o, { "pages", w->pages }, { "anon_pages", w->anon_pages }, { "walks", w->walks },
	            { "anon_walks", w->anon_walks }, { "visited", w->visited },
	            { "anon_visited", w->anon_visited }, { "found", w->found }, { "removes", w->removes },
	            { "visited_not_mapping", w->not_mapping });
	struct json_object *walk = json_object_new_object();
	PUT_U64S(walk, { "median", w->walk_median }, { "p99", w->walk_p99 }, { "max", w->walk_max });
	put(o, "walk", walk);
	put(o, "worst_files", walk_owners(r, w->worst_files, w->worst_file_count, true));
	put(o, "worst_anon_vmas", walk_owners(r, w->worst_anon_vmas, w->worst_anon_vma_count, false));
	return o;
}

/* docs/cost-model.md section 7: every process forking and exiting once,
 * every page faulted in once, every VMA unmapped, every page reclaimed. */
static struct json_object *work_object(const struct model_result *r, const struct model_design *m)
{
	const struct event_work *w = &m->work;
	struct json_object *o = json_object_new_object();
	PUT_U64S(o, { "fork_rmap_calls", w->fork_rmap_calls },
	            { "fork_rmap_anon_calls", w->fork_rmap_anon_calls },
	            { "fork_rmap_pages", w->fork_rmap_pages }, { "fork_rmap_pmd_calls", w->fork_rmap_pmd_calls },
	            { "fork_chain_allocations", w->fork_chain_allocations },
	            { "fork_anon_vma_calls", w->fork_anon_vma_calls }, { "exit_rmap_calls", w->exit_rmap_calls },
	            { "exit_rmap_anon_calls", w->exit_rmap_anon_calls },
	            { "exit_rmap_pages", w->exit_rmap_pages }, { "exit_rmap_pmd_calls", w->exit_rmap_pmd_calls },
	            { "exit_rmap_anon_pmd_calls", w->exit_rmap_anon_pmd_calls },
	            { "exit_chain_frees", w->exit_chain_frees }, { "exit_direct_pages", w->exit_direct_pages },
	            { "exit_anon_vma_unlinks", w->exit_anon_vma_unlinks },
	            { "exit_anon_vma_chain_frees", w->exit_anon_vma_chain_frees });
	put(o, "faults", faults_object(m));
	put(o, "munmap", munmap_object(r, m));
	put(o, "reclaim", reclaim_object(r, &m->reclaim));
	return o;
}

static struct json_object *design_object(const struct model_result *r, const struct model_design *m)
{
	const struct rmap_profile *p = m->profile;
	struct json_object *o = json_object_new_object();
	put_string(o, "id", p->id);
	put_string(o, "family", rmap_family_name(p->family));
	put_string(o, "arch", p->arch);
	put_string(o, "kernels", p->kernels);
	put_bool(o, "pte_chain_exact", m->pte_chain_exact);
	put_u64(o, "pte_chain_bytes", m->pte_chain_bytes);
	put(o, "pte_chain_estimate", estimate_object(&m->pte_chain_estimate, m->pte_chain_value, m->pte_chain_exact));
	put_bool(o, "selected", m->selected);
	put_u64(o, "pte_bytes", geometry_pte_bytes(&p->geometry));
	put_u64(o, "rmap_bytes", m->rmap_bytes);
	put_string(o, "baseline", r->designs[m->baseline].profile->id);
	put(o, "saves_bytes", json_object_new_int64(m->saves_bytes));
	put_u64(o, "page_field_bytes", m->page_field_bytes);
	put_u64(o, "page_field_ram_bytes", m->priced_ram_bytes);
	put_bool(o, "page_field_ram_capped", m->ram_capped);
	put_u64(o, "vma_field_bytes", m->vma_field_bytes);
	put_u64(o, "anon_vmas", m->anon_vma_count);
	put_bool(o, "anon_vmas_exact", m->anon_vma_exact);
	PUT_U64S(o, { "anon_vma_chains", m->anon_vma_chain_count }, { "object_rmap_bytes", m->object_rmap_bytes },
	            { "total_bytes", m->total_bytes });
	put(o, "work_per_event", work_object(r, m));
	return o;
}

/* A headline's object, its sentence first; the caller adds the figures in it. */
static struct json_object *headline_object(const struct model_result *r,
					   void (*sentence)(const struct model_result *, char *, size_t))
{
	char text[512];
	struct json_object *h = json_object_new_object();
	sentence(r, text, sizeof(text));
	put_string(h, "text", text);
	return h;
}

/* What a user can do today: huge pages per shared segment
 * (model/hugepages.c), and its sentence when it frees something. */
static struct json_object *today_object(const struct model_result *r)
{
	struct json_object *o = json_object_new_object(), *segments = json_object_new_array();
	char text[1024];
	report_headline_today(r, text, sizeof(text));
	if (text[0])
		put_string(o, "text", text);
	const struct geometry *g = r->geometry;
	put_u64(o, "pmd_huge_page_bytes", (uint64_t)1 << g->levels[0].shift);
	put_u64(o, "next_huge_page_bytes", g->level_count > 1 ? (uint64_t)1 << g->levels[1].shift : 0);
	for (size_t i = 0; i < r->segment_count; i++) {
		const struct model_segment *seg = &r->segments[i];
		struct json_object *x = json_object_new_object();
		put_string(x, "path", seg->path);
		PUT_U64S(x, { "inode", seg->inode }, { "bytes", seg->bytes }, { "processes", seg->mappings },
		            { "pte_pages", seg->pte_pages },
		            { "pte_pages_saved_on_pmd_size_pages", seg->pte_pages_saved_pmd_size },
		            { "pmd_pages_saved_on_next_size_pages", seg->pmd_pages_saved_next_size },
		            { "pmd_pages_saved_by_hugetlb_pmd_sharing", seg->pmd_pages_shared },
		            { "saved_bytes_on_pmd_size_pages", seg->pte_pages_saved_pmd_size * MODEL_PAGE_BYTES });
		put_u64(x, "saved_bytes_on_next_size_pages",
			(seg->pte_pages_saved_pmd_size + seg->pmd_pages_saved_next_size) * MODEL_PAGE_BYTES);
		put_u64(x, "touch_all_pte_pages", seg->touch_all_pte_pages);
		put_u64(x, "touch_all_bytes", seg->touch_all_pte_pages * MODEL_PAGE_BYTES);
		json_object_array_add(segments, x);
	}
	put(o, "segments", segments);
	return o;
}

/* The two headlines: their sentence and the figures in it. */
static struct json_object *headlines_object(const struct model_result *r)
{
	struct json_object *o = json_object_new_object();
	if (r->headline_rule < r->sharing_count) {
		const struct model_sharing *s = &r->sharing[r->headline_rule];
		struct json_object *h = headline_object(r, report_headline);
		put_string(h, "rule", s->rule->id);
		bool exact = r->processes_with_pagemap == r->processes && r->processes;
		PUT_U64S(h, { "pages", s->sharable_pages }, { "bytes", s->sharable_bytes },
		            { "pages_lower", s->sharable_pages_lower },
		            { "bytes_lower", s->sharable_bytes_lower });
		/* the whole the part is of: exact, else its bounds (VmPTE where known) */
		put_u64(h, "pagetable_bytes", exact ? r->pagetable_bytes : (uint64_t)llround(r->pagetable_whole.upper));
		put_u64(h, "pagetable_bytes_lower", exact ? r->pagetable_bytes : (uint64_t)llround(r->pagetable_whole.lower));
		put(o, "sharing", h);
	}
	if (r->current_design < r->design_count) {
		const struct model_design *now = &r->designs[r->current_design];
		struct json_object *h = headline_object(r, report_headline_rmap);
		put_string(h, "design", now->profile->id);
		put_u64(h, "rmap_bytes", now->rmap_bytes);
		put_string(h, "baseline", r->designs[now->baseline].profile->id);
		put_u64(h, "baseline_rmap_bytes", r->designs[now->baseline].rmap_bytes);
		put(o, "rmap", h);
	}
	return o;
}

/* The stages behind the figure, and in words why it is zero (report_words.c). */
static void put_census(struct json_object *o, const struct model_result *r, const struct model_sharing *s)
{
	if (s->rule->partners == PARTNERS_CONTENT)
		return;
	struct json_object *c = json_object_new_object();
	PUT_U64S(c, { "kind_vmas", s->census.kind_vmas }, { "eligible_vmas", s->eligible_vmas },
	            { "window_vmas", s->census.window_vmas }, { "groups", s->census.groups },
	            { "shared_groups", s->census.shared_groups }, { "file_groups", s->census.file_groups },
	            { "file_groups_apart", s->census.file_groups_apart });
	put(o, "census", c);
	char reason[1024];
	report_sharing_reason(r, (size_t)(s - r->sharing), reason, sizeof(reason));
	if (reason[0])
		put_string(o, "why_zero", reason);
}

static struct json_object *sharing_object(const struct model_result *r, const struct model_sharing *s,
					  const struct report_options *options)
{
	struct json_object *o = json_object_new_object();
	put_string(o, "id", s->rule->id);
	put_string(o, "partners", sharing_partners_name(s->rule->partners));
	put_string(o, "kernel", sharing_kernel_name(s->rule->kernel));
	if (s->rule->since[0])
		put_string(o, "since", s->rule->since);
	put_u64(o, "window_bytes", (uint64_t)1 << s->rule->window_shift);
	put_bool(o, "available", s->available);
	put_bool(o, "exact", s->exact);
	PUT_U64S(o, { "pages", s->sharable_pages }, { "bytes", s->sharable_bytes },
	            { "pages_lower", s->sharable_pages_lower }, { "bytes_lower", s->sharable_bytes_lower });
	put(o, "percent_of_pagetables", decimal(r->sharing_base_bytes > 0 ? 100.0 * (double)s->sharable_bytes / r->sharing_base_bytes : 0));
	put_u64(o, "eligible_vmas", s->eligible_vmas);
	put_census(o, r, s);
	PUT_U64S(o, { "pages_in_vmas_with_private_copies", s->pages_in_cow_vmas },
	            { "fork_pte_pages_copied", s->fork_copies.pte_pages },
	            { "fork_ptes_copied", s->fork_copies.ptes });
	struct json_object *files = json_object_new_array();
	size_t limit = options->per_file ? s->file_count : report_top(options);
	for (size_t i = 0; i < s->file_count && i < limit; i++) {
		struct json_object *f = json_object_new_object();
		put_string(f, "path", s->files[i].path);
		PUT_U64S(f, { "inode", s->files[i].inode }, { "pages", s->files[i].sharable_pages },
		            { "mappings", s->files[i].mappings });
		json_object_array_add(files, f);
	}
	put(o, "files", files);
	return o;
}

static struct json_object *process_object(const struct model_result *r, const struct model_process *p)
{
	struct json_object *o = json_object_new_object();
	put(o, "pid", json_object_new_int(p->process->pid));
	put_string(o, "comm", p->process->comm);
	put_string(o, "cmdline", p->process->cmdline);
	if (p->process->has_status && p->process->status.has_uid)
		put(o, "uid", json_object_new_int64(p->process->status.uid));
	if (report_user_name(r, p->process))
		put_string(o, "user", report_user_name(r, p->process));
	if (p->process->cgroup)
		put_string(o, "cgroup", p->process->cgroup);
	put_bool(o, "exact", p->exact);
	PUT_U64S(o, { "rss_bytes", p->rss_bytes }, { "pss_bytes", p->pss_bytes },
	            { "vmpte_bytes", p->vmpte_bytes }, { "pagetable_bytes", p->pagetable_bytes },
	            { "pte_pages", p->pte_pages }, { "pmd_mapped_windows", p->pmd_mapped_windows });
	put(o, "pagetable_estimate", estimate_object(&p->pagetable_estimate, (double)p->pagetable_bytes, p->exact));
	put_u64(o, "present_ptes", p->present_ptes);
	put_u64(o, "swap_ptes", p->swap_ptes);
	struct json_object *chains = json_object_new_object();
	for (size_t d = 0; d < r->design_count; d++)
		put_u64(chains, r->designs[d].profile->id, (uint64_t)llround(p->pte_chain_bytes[d]));
	put(o, "pte_chain_bytes", chains);
	struct json_object *sharable = json_object_new_object();
	for (size_t k = 0; k < r->sharing_count; k++)
		put(sharable, r->sharing[k].rule->id, decimal(p->sharable_pages[k]));
	put(o, "sharable_pte_pages", sharable);
	put_fork_copies(o, r, &p->fork_copy, p->fork_copies, sizeof(*p->fork_copies));
	return o;
}

/* kernel_counters: the kernel's own counters beside the model's figures. */
static struct json_object *counters_object(const struct model_result *r)
{
	const struct model_counters *k = &r->counters;
	struct json_object *o = json_object_new_object();
	put_known_u64(o, "meminfo_pagetables_bytes", k->has_meminfo_pagetables, k->meminfo_pagetables_bytes);
	put_u64(o, "model_pagetables_bytes", k->model_pagetables_bytes);
	put(o, "pagetables_remainder_bytes", json_object_new_int64(k->remainder_bytes));
	put_bool(o, "partial_capture", k->partial);
	put(o, "partial_reason", k->partial_reason ? json_object_new_string(k->partial_reason) : NULL);
	if (!k->has_slabinfo) {
		put(o, "slab", NULL);
		return o;
	}
	struct json_object *slab = json_object_new_object();
	for (size_t i = 0; i < MODEL_SLAB_CACHES; i++) {
		const struct model_slab_check *c = &k->slabs[i];
		if (!c->available)
			continue;
		struct json_object *cache = json_object_new_object();
		PUT_U64S(cache, { "objects", c->objects }, { "objects_after", c->objects_after },
		                { "model", c->model }, { "lower", c->lower }, { "upper", c->upper });
		put_bool(cache, "lower_known", c->lower_known);
		put_bool(cache, "within", c->within);
		put_known_u64(cache, "slack", c->slack_known, c->slack);
		put_u64(cache, "aliases", c->aliases);
		put(slab, c->cache, cache);
	}
	put(o, "slab", slab);
	return o;
}

static struct json_object *group_object(const struct report_options *options, const struct report_group_row *g)
{
	struct json_object *o = json_object_new_object();
	put_string(o, "by", report_group_name(options->group_by));
	put_string(o, "key", g->key);
	PUT_U64S(o, { "processes", g->processes }, { "vmpte_bytes", g->vmpte_bytes },
	            { "pagetable_bytes", g->pagetable_bytes }, { "rss_bytes", g->rss_bytes },
	            { "pss_bytes", g->pss_bytes });
	put(o, "sharable_pte_pages", decimal(g->sharable_pages));
	return o;
}

/* How the processes were chosen and ordered, and which rule "sharable" is. */
static struct json_object *view_object(const struct model_result *r, const struct report_options *options,
				       const struct report_view *view)
{
	struct json_object *o = json_object_new_object();
	put_string(o, "sort", report_sort_name(options->sort));
	if (options->filter)
		put_string(o, "filter", options->filter);
	put_u64(o, "processes_matching", view->count);
	if (options->group_by != GROUP_NONE)
		put_string(o, "group_by", report_group_name(options->group_by));
	if (r->headline_rule < r->sharing_count)
		put_string(o, "sharable_rule", r->sharing[r->headline_rule].rule->id);
	return o;
}

struct json_object *report_build(const struct model_result *r, const struct report_options *options)
{
	struct json_object *root = json_object_new_object();
	char headline[512];
	put(root, "schema", json_object_new_int(PTSCOPE_REPORT_SCHEMA));
	put_string(root, "version", PTSCOPE_VERSION);
	/* --filter: the headlines are the matching processes' own */
	const struct model_result *h = options->filtered ? options->filtered : r;
	report_headline(h, headline, sizeof(headline));
	put_string(root, "headline", headline);
	put(root, "headlines", headlines_object(h));
	put(root, "today", today_object(h));
	if (options->headline_filtered) {
		/* none matched: 0, and the headlines stay the snapshot's */
		struct json_object *scope = json_object_new_object();
		put_string(scope, "filter", options->filter);
		put_u64(scope, "processes", options->filtered ? options->filtered->processes : 0);
		put_u64(scope, "of", r->processes);
		put(root, "headline_scope", scope);
	}
	put(root, "snapshot", snapshot_object(r));
	put(root, "totals", totals_object(r));
	put(root, "pagetable_estimate", estimate_object(&r->pagetable_estimate, (double)r->pagetable_bytes,
						      r->processes_with_pagemap == r->processes && r->processes));
	put_u64(root, "smaps_pagemap_drift_pages", r->smaps_drift_pages);
	put(root, "kernel_counters", counters_object(r));
	struct json_object *designs = json_object_new_array();
	for (size_t d = 0; d < r->design_count; d++)
		json_object_array_add(designs, design_object(r, &r->designs[d]));
	put(root, "designs", designs);
	struct json_object *sharing = json_object_new_array();
	for (size_t k = 0; k < r->sharing_count; k++)
		json_object_array_add(sharing, sharing_object(r, &r->sharing[k], options));
	put(root, "sharing", sharing);
	struct report_view view;
	if (report_view_build(&view, r, options)) {
		json_object_put(root);
		return NULL;
	}
	put(root, "view", view_object(r, options, &view));
	if (options->calibration)
		put(root, "time", report_time_tree(r, options->calibration, options->calibration_path));
	if (options->per_process) {
		/* pid order, a table for tools, unless the reader asked for a view
		 * (--versus matches processes by that order) */
		bool viewed = !options->versus && (options->filter || options->sort_given || options->top_given);
		size_t count = viewed ? view.count : r->processes;
		if (viewed && options->top_given && options->top < count)
			count = options->top;
		struct json_object *processes = json_object_new_array();
		for (size_t i = 0; i < count; i++)
			json_object_array_add(processes, process_object(r, &r->process_figures[viewed ? view.order[i] : i]));
		put(root, "processes", processes);
	}
	if (options->group_by != GROUP_NONE) {
		struct json_object *groups = json_object_new_array();
		for (size_t g = 0; g < view.group_count; g++)
			json_object_array_add(groups, group_object(options, &view.groups[g]));
		put(root, "groups", groups);
	}
	report_view_free(&view);
	return root;
}
