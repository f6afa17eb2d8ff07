/*
 * model/counters.c - the kernel's own counters beside the model: meminfo
 * PageTables against the captured processes' page tables, and the slab
 * caches of the objects the model counts (anon_vma, anon_vma_chain,
 * vm_area_struct) against its counts, with the bounds model.h describes.
 */
#include <string.h>

#include "model/model_internal.h"

/* SLUB keeps up to three sheaves per CPU (main, spare, rcu_free) and about
 * MAX_FULL_SHEAVES = 10 full ones in each node's barn (mm/slub.c, 6.18). */
enum { SHEAVES_PER_CPU = 3, SHEAVES_PER_NODE = 10 };

static void page_tables(struct model_context *c)
{
	const struct snapshot *s = c->snapshot;
	struct model_result *r = c->result;
	struct model_counters *k = &r->counters;
	for (size_t i = 0; i < s->meminfo_count; i++)
		if (!strcmp(s->meminfo[i].name, "PageTables")) {
			k->has_meminfo_pagetables = true;
			k->meminfo_pagetables_bytes = s->meminfo[i].kb * 1024;
		}
	/* processes without pagemap count with what their VmPTE says */
	k->model_pagetables_bytes = r->pagetable_bytes + (r->vmpte_bytes - r->vmpte_bytes_of_exact);
	k->remainder_bytes = (int64_t)k->meminfo_pagetables_bytes - (int64_t)k->model_pagetables_bytes;
}

/* VMAs the slab holds: [vsyscall] is the kernel's one static gate VMA.
 * A pass over every VMA: made only when the snapshot has the cache to
 * hold the count against (0 otherwise, never shown). */
static uint64_t slab_vmas(const struct snapshot *s, const char *cache)
{
	if (!snapshot_find_slab(s, cache))
		return 0;
	uint64_t count = s->vma_count;
	for (size_t g = 0; g < s->vma_count; g++) {
		const char *path = s->vmas[g].path;
		count -= path[0] == '[' && !strcmp(path, "[vsyscall]");
	}
	return count;
}

/* Is the snapshot a part of the machine?  The capture says so (scope); an
 * older snapshot without pid 1 cannot be the whole machine; a capture
 * refused other users' processes lacks them. */
static const char *partial_reason(const struct snapshot *s)
{
	if (s->info.scope == SCOPE_PART)
		return "the capture chose its processes (--pid or --tree)";
	if (s->info.unreadable > 0)
		return "some processes refused the capture: permission denied";
	if (s->info.scope == SCOPE_UNSTATED && !snapshot_find_process(s, 1))
		return "pid 1 is not in it";
	return NULL;
}

static void check_slab(const struct snapshot *s, struct model_slab_check *check, uint64_t model, bool partial)
{
	const struct slab_cache *cache = snapshot_find_slab(s, check->cache);
	check->model = model;
	if (!cache)
		return;
	check->available = true;
	check->objects = cache->active_objects;
	check->objects_after = cache->has_active_after ? cache->active_objects_after : cache->active_objects;
	uint64_t least = check->objects < check->objects_after ? check->objects : check->objects_after;
	check->upper = check->objects > check->objects_after ? check->objects : check->objects_after;
	check->aliases = cache->aliases;
	check->slack_known = cache->has_cpu_state && s->slab_cpus > 0;
	if (check->slack_known) {
		uint64_t nodes = s->slab_nodes ? s->slab_nodes : 1;
		check->slack = cache->cpu_slabs * cache->objects_per_slab +
			       cache->sheaf_capacity * (SHEAVES_PER_CPU * (uint64_t)s->slab_cpus +
							SHEAVES_PER_NODE * nodes);
	}
	/* processes not captured hold objects of their own: no lower bound */
	check->lower_known = check->slack_known && !check->aliases && !partial;
	check->lower = check->lower_known && least > check->slack ? least - check->slack : 0;
	check->within = check->lower <= model && model <= check->upper;
}

void model_counters(struct model_context *c)
{
	const struct snapshot *s = c->snapshot;
	struct model_result *r = c->result;
	struct model_counters *k = &r->counters;
	k->partial_reason = partial_reason(s);
	k->partial = k->partial_reason != NULL;
	page_tables(c);
	k->has_slabinfo = s->slab_count > 0;
	const struct model_design *design = r->current_design < r->design_count
					    ? &r->designs[r->current_design] : NULL;
	const char *const names[MODEL_SLAB_CACHES] = { "anon_vma", "anon_vma_chain", "vm_area_struct" };
	const uint64_t models[MODEL_SLAB_CACHES] = {
		design ? design->anon_vma_count : 0, design ? design->anon_vma_chain_count : 0, slab_vmas(s, names[2]),
	};
	for (size_t i = 0; i < MODEL_SLAB_CACHES; i++) {
		k->slabs[i].cache = names[i];
		check_slab(s, &k->slabs[i], models[i], k->partial);
	}
}
