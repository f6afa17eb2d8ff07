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
	for (size_t i = 0; i < s->process_count; i++)
		free(s->processes[i].pagemap);
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

const struct kpage *snapshot_find_kpage(const struct snapshot *s, uint64_t pfn)
{
	size_t low = 0, high = s->kpage_count;
	while (low < high) {
		size_t middle = low + (high - low) / 2;
		if (s->kpages[middle].pfn < pfn)
			low = middle + 1;
		else
			high = middle;
	}
	return low < s->kpage_count && s->kpages[low].pfn == pfn ? &s->kpages[low] : NULL;
}

const struct vma *process_find_vma(const struct process *p, uint64_t vaddr)
{
	size_t low = 0, high = p->vma_count;
	while (low < high) {
		size_t middle = low + (high - low) / 2;
		if (p->vmas[middle].end <= vaddr)
			low = middle + 1;
		else
			high = middle;
	}
	return low < p->vma_count && p->vmas[low].start <= vaddr ? &p->vmas[low] : NULL;
}

uint64_t snapshot_meminfo_kb(const struct snapshot *s, const char *name)
{
	for (size_t i = 0; i < s->meminfo_count; i++)
		if (!strcmp(s->meminfo[i].name, name))
			return s->meminfo[i].kb;
	return 0;
}
