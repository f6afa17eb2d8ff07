/*
 * model/time.c - what the kernel does, in objects it allocates and frees,
 * when each process of a snapshot forks once and the child exits at once:
 * the figures the tracepoints of `ptscope bench` count, predicted from the
 * model's own fork counts (model/objrmap.c) under the snapshot's design.
 *
 *   vm_area_struct: fork duplicates every VMA but those marked VM_DONTCOPY
 *     ("dc"); [vsyscall] is the kernel's static gate, not a VMA;
 *   anon_vma: anon_vma_fork gives the child's copy of each VMA that holds
 *     one its own (the design's fork_anon_vma_calls);
 *   anon_vma_chain: anon_vma_clone copies each of the parent's chains, then
 *     one more links the new anon_vma (the design's fork_chain_allocations);
 *   the child's exit frees what its fork made, one fork per process.
 */
#include <string.h>

#include "model/model_internal.h"

static uint64_t copied_vmas(const struct snapshot *snapshot)
{
	uint64_t count = 0;
	for (size_t i = 0; i < snapshot->vma_count; i++) {
		const struct vma *vma = &snapshot->vmas[i];
		count += !VMA_HAS_FLAG(vma, VMF_DC) && strcmp(vma->path, "[vsyscall]");
	}
	return count;
}

int model_fork_events(const struct model_result *result, struct fork_events *events)
{
	memset(events, 0, sizeof(*events));
	if (result->current_design >= result->design_count)
		return -1;
	const struct model_design *design = &result->designs[result->current_design];
	events->design = design->profile->id;
	events->forks = result->processes;
	events->vmas = copied_vmas(result->snapshot);
	events->copy = result->fork_copy;
	if (design->profile->anon_vma_fork != ANON_VMA_NONE)
		events->anon_vmas = design->work.fork_anon_vma_calls;
	if (design->profile->anon_vma_fork == ANON_VMA_CHAIN)
		events->chains = design->work.fork_chain_allocations;
	return 0;
}
