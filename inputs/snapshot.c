/*
 * snapshot.c - snapshot_read() picks the container; lookups and freeing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

static bool is_live_path(const char *path)
{
	return !path || !strcmp(path, "/proc") || !strcmp(path, "/proc/");
}

int snapshot_read(const char *path, const struct read_options *options,
		  struct snapshot **result, struct input_error *error)
{
	const char *source = is_live_path(path) ? "/proc" : path;
	struct snapshot_builder *builder = builder_create(source, options);
	struct stat st;
	int status;

	*result = NULL;
	if (!builder) {
		input_error_set(error, source, NULL, 0, "out of memory");
		return -1;
	}
	if (is_live_path(path)) {
		status = read_live("/proc", builder, error);
	} else if (stat(path, &st) != 0) {
		input_error_set(error, path, NULL, 0, "%s", strerror(errno));
		status = -1;
	} else if (S_ISDIR(st.st_mode)) {
		status = read_directory(path, builder, error);
	} else {
		status = read_archive(path, builder, error);
	}
	if (status) {
		builder_abort(builder);
		return -1;
	}
	return builder_finish(builder, result, error);
}

void snapshot_free(struct snapshot *s)
{
	if (!s)
		return;
	snapshot_release_pagemaps(s);
	free(s->processes);
	free(s->vmas);
	free(s->extras);
	free(s->kpages);
	free(s->meminfo);
	free(s->version);
	free(s->source);
	arena_destroy(s->arena);
	free(s);
}

/*
 * Every array of a snapshot ascends by one key; one lower bound serves
 * them all: the index of the first element whose key is at least `key`.
 */
static size_t lower_bound(const void *base, size_t count, size_t stride,
			  uint64_t (*key_of)(const void *element), uint64_t key)
{
	size_t low = 0, high = count;
	while (low < high) {
		size_t middle = low + (high - low) / 2;
		if (key_of((const char *)base + middle * stride) < key)
			low = middle + 1;
		else
			high = middle;
	}
	return low;
}

static uint64_t kpage_pfn(const void *element)
{
	return ((const struct kpage *)element)->pfn;
}

static uint64_t vma_end(const void *element)
{
	return ((const struct vma *)element)->end;
}

static uint64_t process_pid(const void *element)
{
	return (uint64_t)((const struct process *)element)->pid;
}

const struct kpage *snapshot_find_kpage(const struct snapshot *s, uint64_t pfn)
{
	size_t i = lower_bound(s->kpages, s->kpage_count, sizeof(*s->kpages), kpage_pfn, pfn);
	return i < s->kpage_count && s->kpages[i].pfn == pfn ? &s->kpages[i] : NULL;
}

const struct vma *process_find_vma(const struct process *p, uint64_t vaddr)
{
	/* the first VMA ending above vaddr holds it, if it starts at or below */
	size_t i = lower_bound(p->vmas, p->vma_count, sizeof(*p->vmas), vma_end, vaddr + 1);
	return i < p->vma_count && p->vmas[i].start <= vaddr ? &p->vmas[i] : NULL;
}

const struct process *snapshot_find_process(const struct snapshot *s, int pid)
{
	size_t i = lower_bound(s->processes, s->process_count, sizeof(*s->processes), process_pid,
			       (uint64_t)pid);
	return i < s->process_count && s->processes[i].pid == pid ? &s->processes[i] : NULL;
}

uint64_t snapshot_meminfo_kb(const struct snapshot *s, const char *name)
{
	for (size_t i = 0; i < s->meminfo_count; i++)
		if (!strcmp(s->meminfo[i].name, name))
			return s->meminfo[i].kb;
	return 0;
}
