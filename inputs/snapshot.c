/*
 * snapshot.c - the snapshot's names, lookups and freeing, under every
 * reader (snapshot_read, the driver that picks the container, is read.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

uint64_t memory_available_bytes(void)
{
	uint64_t available = UINT64_MAX, kb, pages, page_bytes = (uint64_t)sysconf(_SC_PAGESIZE);
	char line[256];
	FILE *meminfo = fopen("/proc/meminfo", "r");
	while (meminfo && fgets(line, sizeof(line), meminfo))
		if (sscanf(line, "MemAvailable: %" SCNu64 " kB", &kb) == 1)
			available = kb * 1024;
	if (meminfo)
		fclose(meminfo);
	struct rlimit limit;
	FILE *statm = fopen("/proc/self/statm", "r");
	if (statm && fscanf(statm, "%" SCNu64, &pages) == 1 && getrlimit(RLIMIT_AS, &limit) == 0 &&
	    limit.rlim_cur != RLIM_INFINITY) {
		uint64_t used = pages * page_bytes, cap = (uint64_t)limit.rlim_cur;
		uint64_t left = cap > used ? cap - used : 0;
		if (left < available)
			available = left;
	}
	if (statm)
		fclose(statm);
	return available;
}

void snapshot_free(struct snapshot *s)
{
	if (!s)
		return;
	snapshot_release_pagemaps(s);
	arena_destroy(s->arena);
	FREE_ALL(s->processes, s->vmas, s->extras, s->kpage_runs, s->pmd_ranges, s->meminfo, s->slabs,
		 s->user_names, s->group_names, s->version, s->source, s);
}

struct snapshot *snapshot_subset(const struct snapshot *s, const bool *keep)
{
	struct snapshot *subset = xmalloc(sizeof(*subset));
	*subset = *s;
	subset->processes = xcalloc(s->process_count + 1, sizeof(*subset->processes));
	subset->vmas = xcalloc(s->vma_count + 1, sizeof(*subset->vmas));
	subset->process_count = subset->vma_count = 0;
	for (size_t i = 0; i < s->process_count; i++) {
		if (!keep[i])
			continue;
		struct process *p = &subset->processes[subset->process_count++];
		*p = s->processes[i];
		/* its VMAs, in order, in the subset's own array: the model counts
		 * a snapshot's VMAs through that array */
		if (p->vma_count)
			memcpy(&subset->vmas[subset->vma_count], p->vmas, p->vma_count * sizeof(*p->vmas));
		p->vmas = &subset->vmas[subset->vma_count];
		subset->vma_count += p->vma_count;
	}
	return subset;
}

void snapshot_subset_free(struct snapshot *subset)
{
	if (!subset)
		return;
	free(subset->processes);
	free(subset->vmas);
	free(subset);
}

/* Every array of a snapshot ascends by one key: array_lower_bound (base/array.h) finds in each. */
static uint64_t kpage_run_end(const void *element)
{
	const struct kpage_run *run = element;
	return run->pfn + run->pages;
}

static uint64_t process_pid(const void *element)
{
	return (uint64_t)((const struct process *)element)->pid;
}

const struct kpage_run *snapshot_find_kpage(const struct snapshot *s, uint64_t pfn)
{
	/* the first run ending above pfn holds it, if it starts at or below */
	size_t i = array_lower_bound(s->kpage_runs, s->kpage_run_count, sizeof(*s->kpage_runs), kpage_run_end, pfn + 1);
	return i < s->kpage_run_count && s->kpage_runs[i].pfn <= pfn ? &s->kpage_runs[i] : NULL;
}

static uint64_t vma_end(const void *element)
{
	return ((const struct vma *)element)->end;
}

const struct vma *process_find_vma(const struct process *p, uint64_t vaddr)
{
	/* the first VMA ending above vaddr holds it, if it starts at or below */
	size_t i = array_lower_bound_cold(p->vmas, p->vma_count, sizeof(*p->vmas), vma_end, vaddr + 1);
	return i < p->vma_count && p->vmas[i].start <= vaddr ? &p->vmas[i] : NULL;
}

static uint64_t range_end(const void *element)
{
	return ((const struct address_range *)element)->end;
}

bool process_pmd_mapped(const struct snapshot *s, const struct process *p, uint64_t vaddr)
{
	if (!p->has_pmd_map || !p->pmd_count)
		return false;
	const struct address_range *ranges = s->pmd_ranges + p->pmd_first;
	size_t i = array_lower_bound(ranges, p->pmd_count, sizeof(*ranges), range_end, vaddr + 1);
	return i < p->pmd_count && ranges[i].start <= vaddr;
}

const struct process *snapshot_find_process(const struct snapshot *s, int pid)
{
	size_t i = array_lower_bound(s->processes, s->process_count, sizeof(*s->processes), process_pid,
			       (uint64_t)pid);
	return i < s->process_count && s->processes[i].pid == pid ? &s->processes[i] : NULL;
}

const struct slab_cache *snapshot_find_slab(const struct snapshot *s, const char *name)
{
	for (size_t i = 0; i < s->slab_count; i++)
		if (!strcmp(s->slabs[i].name, name))
			return &s->slabs[i];
	return NULL;
}

uint64_t snapshot_meminfo_kb(const struct snapshot *s, const char *name)
{
	for (size_t i = 0; i < s->meminfo_count; i++)
		if (!strcmp(s->meminfo[i].name, name))
			return s->meminfo[i].kb;
	return 0;
}

/* Is comm (at most 15 bytes of the program's name) the start of the base
 * name of cmdline's first or second word (an interpreter runs a script)? */
static bool comm_matches(const char *comm, const char *cmdline)
{
	size_t comm_length = strlen(comm);
	const char *word = cmdline;
	for (int n = 0; n < 2 && *word; n++) {
		const char *stop = strchr(word, ' ');
		size_t length = stop ? (size_t)(stop - word) : strlen(word);
		const char *base = word;
		for (const char *p = word; p < word + length; p++)
			if (*p == '/')
				base = p + 1;
		size_t base_length = (size_t)(word + length - base);
		size_t compare = comm_length < base_length ? comm_length : base_length;
		if (compare && !strncmp(base, comm, compare) && (compare == comm_length || compare >= 15))
			return true;
		if (!stop)
			break;
		word = stop + 1;
	}
	return !*cmdline;   /* kernel-made or exited: nothing to compare */
}

int snapshot_verify(const struct snapshot *s, struct verify_result *result, struct error *error)
{
	memset(result, 0, sizeof(*result));
	for (size_t i = 0; i < s->process_count; i++) {
		const struct process *p = &s->processes[i];
		if (p->comm && p->cmdline && !comm_matches(p->comm, p->cmdline) && !result->comm_differs++)
			result->first_comm_differs = p->pid;
		if (!p->start_code || p->end_code <= p->start_code || !p->start_stack)
			continue;   /* a kernel that hides them (no ptrace access) */
		const uint64_t addresses[3] = { p->start_code, p->end_code - 1, p->start_stack };
		static const char *const names[3] = { "code start", "code end", "stack start" };
		for (int a = 0; a < 3; a++)
			if (!process_find_vma(p, addresses[a])) {
				char member[64];
				snprintf(member, sizeof(member), "%d/stat", p->pid);
				input_error_set(error, s->source, member, 1,
						"%s %#" PRIx64 " lies in no VMA of %d/smaps: the two come from different programs",
						names[a], addresses[a], p->pid);
				return -1;
			}
		result->stat_checked++;
	}
	return 0;
}
