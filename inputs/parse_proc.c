/*
 * parse_proc.c - the small text members: status, stat, cmdline, meminfo,
 * snapshot.info (the number and error helpers every parser shares are
 * inputs/numbers.c).
 *
 * Numbers are checked for overflow: a snapshot is input from another
 * machine, and a wrapped counter would silently poison every figure.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/array.h"
#include "base/escape.h"
#include "internal.h"

/*
 * "Key:<spaces>value<rest>" line walker shared by status, meminfo and
 * snapshot.info.  The callback gets the key and the value text.
 */
typedef int (*key_value_fn)(void *context, const char *key, size_t key_length,
			    const char *value, const char *limit, unsigned long line);

static int walk_key_values(const char *text, size_t size, const struct parse_place *place,
			   key_value_fn fn, void *context)
{
	const char *p = text, *end = text + size;
	unsigned long line = 0;
	while (p < end) {
		const char *newline = memchr(p, '\n', (size_t)(end - p));
		const char *limit = newline ? newline : end;
		line++;
		if (memchr(p, '\0', (size_t)(limit - p)))
			return parse_fail(place, line, "binary data in a text file");
		const char *colon = memchr(p, ':', (size_t)(limit - p));
		if (limit > p && !colon)
			return parse_fail(place, line, "line has no 'key:' part");
		if (colon) {
			const char *value = colon + 1;
			while (value < limit && (*value == ' ' || *value == '\t'))
				value++;
			if (fn(context, p, (size_t)(colon - p), value, limit, line))
				return -1;
		}
		p = limit + 1;
	}
	return 0;
}

/* A "1234 kB" value. */
static int kb_value(const struct parse_place *place, const char *value, const char *limit,
		    unsigned long line, uint64_t *kb)
{
	const char *q;
	if (!parse_u64(value, limit, kb, &q))
		return parse_fail(place, line, "bad or overflowing number");
	while (q < limit && *q == ' ')
		q++;
	if (q < limit && !(limit - q == 2 && (*q == 'k' || *q == 'K') && q[1] == 'B'))
		return parse_fail(place, line, "unexpected text after number");
	if (*kb > KERNEL_MAX_KB)
		return parse_fail(place, line, "%" PRIu64 " kB is more than any address space holds (2^57 bytes)", *kb);
	return 0;
}

/* ---- status ---- */
struct status_context {
	struct process_status *status;
	const struct parse_place *place;
};

static int status_line(void *context, const char *key, size_t length, const char *value,
		       const char *limit, unsigned long line)
{
	static const struct { const char *key; size_t offset; } keys[] = {
		{ "VmPTE", offsetof(struct process_status, vm_pte_kb) },
		{ "VmRSS", offsetof(struct process_status, vm_rss_kb) },
		{ "RssAnon", offsetof(struct process_status, rss_anon_kb) },
		{ "RssFile", offsetof(struct process_status, rss_file_kb) },
		{ "RssShmem", offsetof(struct process_status, rss_shmem_kb) },
		{ "VmSwap", offsetof(struct process_status, vm_swap_kb) },
	};
	struct status_context *c = context;
	if (length == 3 && !memcmp(key, "Uid", 3)) {
		/* "Uid:\treal\teffective\tsaved\tfs": the real uid owns the process */
		uint64_t uid;
		const char *q;
		if (!parse_u64(value, limit, &uid, &q) || uid > UINT32_MAX)
			return parse_fail(c->place, line, "bad Uid");
		c->status->uid = (uint32_t)uid;
		c->status->has_uid = true;
		return 0;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strlen(keys[i].key) != length || memcmp(keys[i].key, key, length))
			continue;
		uint64_t *field = (uint64_t *)((char *)c->status + keys[i].offset);
		if (kb_value(c->place, value, limit, line, field))
			return -1;
		if (i == 0)
			c->status->has_vm_pte = true;
	}
	return 0;
}

int parse_status(const char *text, size_t size, struct process_status *status,
		 const struct parse_place *place)
{
	struct status_context context = { status, place };
	memset(status, 0, sizeof(*status));
	return walk_key_values(text, size, place, status_line, &context);
}

/* ---- stat: "pid (comm) state ppid ..." (proc_lines.c) ---- */
int parse_stat(const char *text, size_t size, struct arena *arena, int *pid, int *ppid,
	       const char **comm, const struct parse_place *place)
{
	struct stat_line s;
	if (stat_line_parse(text, size, &s, place))
		return -1;
	*pid = s.pid;
	*ppid = s.ppid;
	*comm = arena_intern(arena, s.comm, s.comm_length);
	return 0;
}

void parse_stat_extra(const char *text, size_t size, struct process *process)
{
	const char *end = text + size, *close = NULL;
	for (const char *p = end; p > text && !close; p--)
		if (p[-1] == ')')
			close = p - 1;
	if (!close || end - close < 3)
		return;
	process->state = close[2];
	uint64_t *targets[] = { &process->start_code, &process->end_code, &process->start_stack };
	const char *p = close + 2, *q;
	for (unsigned field = 3; p < end && field <= 28; field++) {
		if (field >= 26 && !parse_u64(p, end, targets[field - 26], &q))
			*targets[field - 26] = 0;
		const char *space = memchr(p, ' ', (size_t)(end - p));
		if (!space)
			break;
		p = space + 1;
	}
}

/* /proc/PID/cgroup: "hierarchy-ID:controllers:path" lines.  The unified
 * (v2) hierarchy is "0::PATH".  Chosen, best first: the v2 path when it is
 * not the root; the first v1 path that is not the root (hybrid systems keep
 * processes in v2's root); the v2 root; the first line's path. */
const char *parse_cgroup(const char *text, size_t size, struct arena *arena)
{
	const char *end = text + size, *chosen = NULL, *chosen_end = NULL;
	int best = 0;
	for (const char *line = text; line < end;) {
		const char *limit = memchr(line, '\n', (size_t)(end - line));
		if (!limit)
			limit = end;
		const char *first = memchr(line, ':', (size_t)(limit - line));
		const char *second = first ? memchr(first + 1, ':', (size_t)(limit - first - 1)) : NULL;
		if (second) {
			bool unified = first - line == 1 && line[0] == '0' && second == first + 1;
			bool root = limit - second == 2 && second[1] == '/';
			int score = unified ? (root ? 2 : 4) : (root ? 1 : 3);
			if (score > best) {
				best = score;
				chosen = second + 1;
				chosen_end = limit;
			}
		}
		line = limit + 1;
	}
	return chosen ? arena_intern(arena, chosen, (size_t)(chosen_end - chosen)) : NULL;
}

/* NUL-separated arguments become one space-separated line. */
const char *parse_cmdline(const char *text, size_t size, struct arena *arena)
{
	char buffer[4096];
	size_t length = size < sizeof(buffer) ? size : sizeof(buffer) - 1;
	memcpy(buffer, text, length);
	while (length && buffer[length - 1] == '\0')
		length--;
	for (size_t i = 0; i < length; i++)
		if (buffer[i] == '\0' || buffer[i] == '\n')
			buffer[i] = ' ';
	return arena_intern(arena, buffer, length);
}

/* ---- meminfo ---- */
struct meminfo_context {
	struct arena *arena;
	struct meminfo_entry *entries;
	size_t count, capacity;
	const struct parse_place *place;
};

static int meminfo_line(void *context, const char *key, size_t length, const char *value,
			const char *limit, unsigned long line)
{
	struct meminfo_context *c = context;
	ARRAY_RESERVE(c->entries, c->capacity, c->count + 1);
	struct meminfo_entry *e = &c->entries[c->count];
	if (kb_value(c->place, value, limit, line, &e->kb))
		return -1;
	e->name = arena_intern(c->arena, key, length);
	c->count++;
	return 0;
}

int parse_meminfo(const char *text, size_t size, struct arena *arena,
		  struct meminfo_entry **entries, size_t *count, const struct parse_place *place)
{
	struct meminfo_context c = { arena, NULL, 0, 0, place };
	if (walk_key_values(text, size, place, meminfo_line, &c)) {
		free(c.entries);
		return -1;
	}
	*entries = c.entries;
	*count = c.count;
	return 0;
}

/* ---- snapshot.info ---- */
struct info_context {
	struct snapshot_info *info;
	const struct parse_place *place;
};

static bool key_is(const char *key, size_t length, const char *name)
{
	return strlen(name) == length && !memcmp(key, name, length);
}

static int info_number(const struct info_context *c, const char *value, const char *limit,
		       unsigned long line, uint64_t *number)
{
	const char *q;
	if (!parse_u64(value, limit, number, &q) || q != limit)
		return parse_fail(c->place, line, "bad number");
	return 0;
}

/* format: ptscope-snapshot N, N one this ptscope reads */
static int info_format(struct info_context *c, const char *value, const char *limit, unsigned long line)
{
	static const char prefix[] = "ptscope-snapshot ";
	uint64_t number;
	if ((size_t)(limit - value) <= sizeof(prefix) - 1 || memcmp(value, prefix, sizeof(prefix) - 1))
		return parse_fail(c->place, line, "not a ptscope snapshot format line");
	if (info_number(c, value + sizeof(prefix) - 1, limit, line, &number))
		return -1;
	if (number < 1 || number > SNAPSHOT_FORMAT_NEWEST)
		return parse_fail(c->place, line, "snapshot format %" PRIu64 " is %s than this ptscope reads (1 to %d)",
				  number, number ? "newer" : "older", SNAPSHOT_FORMAT_NEWEST);
	c->info->format_version = (int)number;
	return 0;
}

static int info_page_size(struct info_context *c, const char *value, const char *limit, unsigned long line)
{
	uint64_t number;
	if (info_number(c, value, limit, line, &number))
		return -1;
	if (number & (number - 1))
		return parse_fail(c->place, line, "page size %" PRIu64 " is not a power of two", number);
	if (number < KERNEL_MIN_PAGE_BYTES || number > KERNEL_MAX_PAGE_BYTES)
		return parse_fail(c->place, line, "page size %" PRIu64 " is outside what Linux has used (4 KiB to 1 MiB)", number);
	c->info->page_size = number;
	return 0;
}

static int info_line(void *context, const char *key, size_t length, const char *value,
		     const char *limit, unsigned long line)
{
	static const struct { const char *key; size_t offset, size; } strings[] = {
		{ "arch", offsetof(struct snapshot_info, arch), sizeof(((struct snapshot_info *)0)->arch) },
		{ "kernel", offsetof(struct snapshot_info, kernel), sizeof(((struct snapshot_info *)0)->kernel) },
		{ "hostname", offsetof(struct snapshot_info, hostname), sizeof(((struct snapshot_info *)0)->hostname) },
		{ "captured_at", offsetof(struct snapshot_info, captured_at), sizeof(((struct snapshot_info *)0)->captured_at) },
	};
	struct info_context *c = context;
	struct snapshot_info *info = c->info;
	uint64_t number = 0;

	for (size_t i = 0; i < sizeof(strings) / sizeof(strings[0]); i++)
		if (key_is(key, length, strings[i].key)) {
			snprintf((char *)info + strings[i].offset, strings[i].size, "%.*s",
				 (int)(limit - value), value);
			return 0;
		}
	if (key_is(key, length, "format")) {
		return info_format(c, value, limit, line);
	} else if (key_is(key, length, "page_size")) {
		return info_page_size(c, value, limit, line);
	} else if (key_is(key, length, "pagemap")) {
		for (int i = 0; i < PAGEMAP_MODE_COUNT; i++)
			if (key_is(value, (size_t)(limit - value), pagemap_mode_names[i])) {
				info->pagemap = (enum pagemap_mode)i;
				return 0;
			}
		return parse_fail(c->place, line, "pagemap must be pfn, present or none");
	} else if (key_is(key, length, "processes") || key_is(key, length, "skipped") ||
		   key_is(key, length, "changed_during_capture") || key_is(key, length, "unreadable")) {
		if (info_number(c, value, limit, line, &number))
			return -1;
		if (number > INT32_MAX)
			return parse_fail(c->place, line, "number too large");
		*(key_is(key, length, "processes") ? &info->processes
		  : key_is(key, length, "skipped") ? &info->skipped
		  : key_is(key, length, "unreadable") ? &info->unreadable : &info->changed) = (long)number;
	} else if (key_is(key, length, "scope")) {
		if (key_is(value, (size_t)(limit - value), "all"))
			info->scope = SCOPE_ALL;
		else if (key_is(value, (size_t)(limit - value), "part"))
			info->scope = SCOPE_PART;
		else
			return parse_fail(c->place, line, "scope must be all or part");
	} else if (key_is(key, length, "ptscope_version")) {
		snprintf(info->ptscope_version, sizeof(info->ptscope_version), "%.*s",
			 (int)(limit - value), value);
	}
	return 0; /* unknown keys are ignored, as the format says */
}

int parse_info(const char *text, size_t size, struct snapshot_info *info,
	       const struct parse_place *place)
{
	struct info_context c = { info, place };
	return walk_key_values(text, size, place, info_line, &c);
}

/* ---- binary members ---- */
int check_pagemap_record(const struct pagemap_record *r, const struct pagemap_record *previous,
			 size_t index, const struct parse_place *place)
{
	if (previous && r->vaddr <= previous->vaddr)
		return parse_fail(place, 0, "record %zu: address %#" PRIx64 " not above the previous one", index, r->vaddr);
	if (r->vaddr & 0xfff)
		return parse_fail(place, 0, "record %zu: address %#" PRIx64 " is not page-aligned", index, r->vaddr);
	if (!(r->entry & (PAGEMAP_PRESENT | PAGEMAP_SWAPPED)))
		return parse_fail(place, 0, "record %zu: entry is neither present nor swapped", index);
	return 0;
}

int check_kpage_record(const struct kpage_record *k, const struct kpage_record *previous, size_t index,
		       const struct parse_place *place)
{
	if (previous && k->pfn <= previous->pfn)
		return parse_fail(place, 0, "record %zu: PFN %#" PRIx64 " not above the previous one", index, k->pfn);
	if (k->pfn > PAGEMAP_PFN_MASK)
		return parse_fail(place, 0, "record %zu: PFN %#" PRIx64 " does not fit pagemap's 55 bits", index, k->pfn);
	if (k->mapcount > KERNEL_MAX_MAPCOUNT)
		return parse_fail(place, 0, "record %zu: mapcount %" PRIu64 " is more than a kernel counts (2^31 - 1)",
				  index, k->mapcount);
	return 0;
}

int parse_pagemap(const struct pagemap_record *records, size_t size,
		  const struct parse_place *place)
{
	if (size % sizeof(*records))
		return parse_fail(place, 0, "length %zu is not a multiple of %zu bytes (truncated?)",
				  size, sizeof(*records));
	for (size_t i = 0; i < size / sizeof(*records); i++)
		if (check_pagemap_record(&records[i], i ? &records[i - 1] : NULL, i, place))
			return -1;
	return 0;
}

int parse_pmd_ranges(const void *data, size_t size, struct snapshot *s, size_t *first,
		     size_t *count, const struct parse_place *place)
{
	const size_t record_bytes = sizeof(struct address_range);
	if (size % record_bytes)
		return parse_fail(place, 0, "length %zu is not a multiple of %zu bytes (truncated?)", size, record_bytes);
	*first = s->pmd_range_count;
	*count = size / record_bytes;
	array_reserve(&s->pmd_ranges, &s->pmd_range_capacity, s->pmd_range_count + *count + 1, record_bytes);
	struct address_range *ranges = s->pmd_ranges + *first;
	/* little-endian on disk, as pagemap (hosts are little-endian) */
	memcpy(ranges, data, size);
	for (size_t i = 0; i < *count; i++) {
		const struct address_range *r = &ranges[i];
		if ((r->start | r->end) & 0xfff || r->start >= r->end)
			return parse_fail(place, 0, "range %zu: [%#" PRIx64 ", %#" PRIx64 ") is not a page-aligned range",
					  i, r->start, r->end);
		if (i && r->start < r[-1].end)
			return parse_fail(place, 0, "range %zu: %#" PRIx64 " not above the previous range", i, r->start);
	}
	s->pmd_range_count += *count;
	return 0;
}

void kpage_push_run(struct snapshot *s, const struct kpage_run *run, size_t *capacity)
{
	struct kpage_run *last = s->kpage_run_count ? &s->kpage_runs[s->kpage_run_count - 1] : NULL;
	s->kpage_count += run->pages;
	if (last && last->pfn + last->pages == run->pfn && last->mapcount == run->mapcount &&
	    last->flags == run->flags) {
		last->pages += run->pages;
		return;
	}
	array_reserve(&s->kpage_runs, capacity, s->kpage_run_count + 1, sizeof(*s->kpage_runs));
	s->kpage_runs[s->kpage_run_count++] = *run;
}

/* ---- slabinfo and the capture's slub member ---- */

/* Split [p, limit) at blanks into at most max words. */
static size_t split_words(const char *p, const char *limit, const char **starts, size_t *lengths,
			  size_t max)
{
	size_t count = 0;
	while (p < limit && count < max) {
		while (p < limit && (*p == ' ' || *p == '\t'))
			p++;
		const char *start = p;
		while (p < limit && *p != ' ' && *p != '\t')
			p++;
		if (p > start) {
			starts[count] = start;
			lengths[count++] = (size_t)(p - start);
		}
	}
	return count;
}

static bool word_number(const char *start, size_t length, uint64_t *value)
{
	const char *end;
	return parse_u64(start, start + length, value, &end) && end == start + length;
}

/*
 * One cache: "name <active_objs> <num_objs> <objsize> <objperslab>
 * <pagesperslab> : tunables <limit> <batchcount> <sharedfactor> : slabdata
 * <active_slabs> <num_slabs> <sharedavail>" (mm/slab_common.c).
 */
static int slabinfo_line(const char *p, const char *limit, unsigned long line, struct arena *arena,
			 struct slab_cache *cache, const struct parse_place *place)
{
	const char *starts[24];
	size_t lengths[24];
	size_t count = split_words(p, limit, starts, lengths, 24);
	uint64_t *fields[] = { &cache->active_objects, &cache->objects, &cache->object_bytes,
			       &cache->objects_per_slab, &cache->pages_per_slab };
	memset(cache, 0, sizeof(*cache));
	if (count < 6)
		return parse_fail(place, line, "a cache line needs a name and five numbers");
	for (size_t i = 0; i < 5; i++)
		if (!word_number(starts[i + 1], lengths[i + 1], fields[i]))
			return parse_fail(place, line, "bad or overflowing number in column %zu", i + 2);
	for (size_t i = 6; i < count; i++)
		if (lengths[i] == 8 && !memcmp(starts[i], "slabdata", 8)) {
			if (i + 2 >= count || !word_number(starts[i + 1], lengths[i + 1], &cache->active_slabs) ||
			    !word_number(starts[i + 2], lengths[i + 2], &cache->slabs))
				return parse_fail(place, line, "bad slabdata numbers");
			break;
		}
	if (cache->active_objects > cache->objects)
		return parse_fail(place, line, "more active objects than objects");
	cache->name = arena_intern(arena, starts[0], lengths[0]);
	return 0;
}

int parse_slabinfo(const char *text, size_t size, struct arena *arena,
		   struct slab_cache **caches, size_t *count, const struct parse_place *place)
{
	static const char header[] = "slabinfo - version: 2.";
	struct slab_cache *items = NULL;
	size_t used = 0, capacity = 0;
	const char *p = text, *end = text + size;
	unsigned long line = 0;
	if (size < sizeof(header) - 1 || memcmp(text, header, sizeof(header) - 1))
		return parse_fail(place, 1, "not /proc/slabinfo (\"slabinfo - version: 2.x\")");
	while (p < end) {
		const char *newline = memchr(p, '\n', (size_t)(end - p));
		const char *limit = newline ? newline : end;
		line++;
		if (memchr(p, '\0', (size_t)(limit - p))) {
			free(items);
			return parse_fail(place, line, "binary data in a text file");
		}
		if (line > 1 && limit > p && *p != '#') {
			struct slab_cache *cache = ARRAY_PUSH(items, used, capacity);
			if (slabinfo_line(p, limit, line, arena, cache, place)) {
				free(items);
				return -1;
			}
		}
		p = limit + 1;
	}
	*caches = items;
	*count = used;
	return 0;
}

struct slub_context {
	struct snapshot *snapshot;
	const struct parse_place *place;
};

/* "cache: NAME key=value ...": unknown keys are skipped (later captures may
 * say more), a cache slabinfo does not list is ignored. */
static int slub_cache(struct slub_context *c, const char *value, const char *limit, unsigned long line)
{
	const char *starts[16];
	size_t lengths[16];
	size_t count = split_words(value, limit, starts, lengths, 16);
	if (count == 0)
		return parse_fail(c->place, line, "cache: needs a name");
	struct slab_cache *cache = NULL;
	for (size_t i = 0; i < c->snapshot->slab_count; i++)
		if (strlen(c->snapshot->slabs[i].name) == lengths[0] &&
		    !memcmp(c->snapshot->slabs[i].name, starts[0], lengths[0]))
			cache = &c->snapshot->slabs[i];
	struct slab_cache scratch;
	if (!cache)
		cache = &scratch;
	static const struct { const char *key; size_t offset; } keys[] = {
		{ "cpu_slabs", offsetof(struct slab_cache, cpu_slabs) },
		{ "sheaf_capacity", offsetof(struct slab_cache, sheaf_capacity) },
		{ "aliases", offsetof(struct slab_cache, aliases) },
		{ "active_after", offsetof(struct slab_cache, active_objects_after) },
	};
	for (size_t w = 1; w < count; w++) {
		const char *equals = memchr(starts[w], '=', lengths[w]);
		if (!equals)
			return parse_fail(c->place, line, "expected key=value after the cache name");
		size_t key_length = (size_t)(equals - starts[w]);
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			if (strlen(keys[k].key) != key_length || memcmp(keys[k].key, starts[w], key_length))
				continue;
			if (!word_number(equals + 1, lengths[w] - key_length - 1,
					 (uint64_t *)((char *)cache + keys[k].offset)))
				return parse_fail(c->place, line, "bad or overflowing number for %s", keys[k].key);
			if (!strcmp(keys[k].key, "active_after"))
				cache->has_active_after = true;
		}
	}
	cache->has_cpu_state = true;
	return 0;
}

static int slub_line(void *context, const char *key, size_t length, const char *value,
		     const char *limit, unsigned long line)
{
	struct slub_context *c = context;
	uint64_t number;
	const char *end;
	if (length == 5 && !memcmp(key, "cache", 5))
		return slub_cache(c, value, limit, line);
	bool cpus = length == 4 && !memcmp(key, "cpus", 4), nodes = length == 5 && !memcmp(key, "nodes", 5);
	if (!cpus && !nodes)
		return 0;
	if (!parse_u64(value, limit, &number, &end) || end != limit || number > 1u << 20)
		return parse_fail(c->place, line, "bad number");
	if (cpus)
		c->snapshot->slab_cpus = (unsigned)number;
	else
		c->snapshot->slab_nodes = (unsigned)number;
	return 0;
}

int parse_slub(const char *text, size_t size, struct snapshot *snapshot, const struct parse_place *place)
{
	struct slub_context c = { snapshot, place };
	return walk_key_values(text, size, place, slub_line, &c);
}
