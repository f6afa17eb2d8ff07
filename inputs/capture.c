/*
 * inputs/capture.c - write a live system into a snapshot (format version 2,
 * or 1 on request).
 *
 * The shape of the work:
 *   1. list the numeric entries of /proc and narrow them to --pid / --tree;
 *   2. for each process read smaps, status, stat, cmdline and (unless
 *      --no-pagemap) the present/swapped pagemap words, all into memory,
 *      then write them as tar members.  A process is written whole or not at
 *      all: if any of its files vanishes or refuses, it is skipped and counted;
 *      Format 2 writes a process's pages as PID/pagemap_runs, references to
 *      2 MiB chunks each kept once, hashed as they are read (chunk_writer);
 *   3. pagemap_chunks (format 2: every distinct chunk, encoded), kpages for
 *      every distinct PFN seen (format 2: kpage_runs, runs of PFNs with equal
 *      kpagecount and kpageflags), then snapshot.info, which comes last because
 *      only then are the process and skipped counts known.
 *
 * Tar members need their size up front and /proc files have no size, so each
 * file is read whole into a growing buffer that is reused for every process.
 *
 * The archive is written through base/output.h: an unnamed O_TMPFILE in the
 * target directory linked in only when complete, so a capture that is
 * killed, even by SIGKILL, leaves nothing behind; where the file system
 * lacks O_TMPFILE a temporary created with O_EXCL, removed on error and on
 * SIGINT/SIGTERM/SIGHUP (a signal inherited as ignored stays ignored).
 */
#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/hash.h"
#include "base/output.h"
#include "internal.h"
#include "version.h"

/* One read of /proc/PID/pagemap covers at most this many pages (2 MiB). */
#define PAGEMAP_WINDOW_PAGES 512
#define KPAGE_WINDOW_PAGES   512

/* ---- numbers ---- */

/* The distinct PFNs of every pagemap, for kpages, in time linear in the
 * records: PFNs of RAM (below twice the machine's page count, which covers
 * the holes below 4 GiB) in a bitmap that stays in cache (3 MiB for 48 GiB
 * of RAM), any other (device memory) in an array indexed by a hash table
 * (base/hash.h).  Read out ascending at the end: the bitmap's PFNs all lie
 * below the others. */
struct pfn_set {
	uint64_t *bits;
	size_t bit_words;
	uint64_t bit_limit;             /* PFNs below it go in the bitmap */
	uint64_t *others;               /* the rest, indexed by `table` */
	size_t other_count, other_capacity;
	struct hash_table table;
	size_t count;                   /* distinct PFNs in both */
	uint64_t *sorted;               /* pfn_set_sort's result */
};

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static uint64_t other_pfn_hash(const void *context, size_t index)
{
	return hash_u64(((const struct pfn_set *)context)->others[index]);
}

static void pfn_set_add(struct pfn_set *set, uint64_t pfn)
{
	if (!set->bit_limit) {
		long pages = sysconf(_SC_PHYS_PAGES);
		set->bit_limit = 2 * (uint64_t)(pages > 0 ? pages : 0) + (UINT64_C(1) << 20);
	}
	if (pfn < set->bit_limit) {
		size_t word = (size_t)(pfn >> 6);
		if (word >= set->bit_words) {
			size_t words = set->bit_words;
			ARRAY_RESERVE(set->bits, words, word + 1);
			memset(set->bits + set->bit_words, 0, (words - set->bit_words) * sizeof(*set->bits));
			set->bit_words = words;
		}
		uint64_t bit = UINT64_C(1) << (pfn & 63);
		set->count += !(set->bits[word] & bit);
		set->bits[word] |= bit;
		return;
	}
	struct hash_probe probe;
	uint64_t h = hash_u64(pfn);
	for (size_t i = hash_first(&set->table, h, &probe); i != HASH_NONE; i = hash_next(&set->table, &probe))
		if (set->others[i] == pfn)
			return;
	*ARRAY_PUSH(set->others, set->other_count, set->other_capacity) = pfn;
	hash_add(&set->table, h, set->other_count - 1, other_pfn_hash, set);
	set->count++;
}

/* Every PFN, ascending, in set->sorted. */
static void pfn_set_sort(struct pfn_set *set)
{
	free(set->sorted);
	set->sorted = xreallocarray(NULL, set->count ? set->count : 1, sizeof(*set->sorted));
	size_t n = 0;
	for (size_t word = 0; word < set->bit_words; word++)
		for (uint64_t bits = set->bits[word]; bits; bits &= bits - 1)
			set->sorted[n++] = (uint64_t)word << 6 | (uint64_t)__builtin_ctzll(bits);
	if (set->other_count)
		memcpy(set->sorted + n, set->others, set->other_count * sizeof(*set->others));
	if (set->other_count > 1)
		array_sort(set->sorted + n, set->other_count, sizeof(*set->sorted), compare_u64);
}

static void pfn_set_free(struct pfn_set *set)
{
	free(set->bits);
	free(set->others);
	hash_free(&set->table);
	free(set->sorted);
}

/* ---- choosing the processes ---- */

struct pid_list {
	int *pids;
	size_t count, capacity;
};

static void pid_list_add(struct pid_list *list, int pid)
{
	*ARRAY_PUSH(list->pids, list->count, list->capacity) = pid;
}

static int compare_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

static void pid_list_sort_unique(struct pid_list *list)
{
	if (list->count == 0)
		return;
	array_sort(list->pids, list->count, sizeof(int), compare_int);
	size_t kept = 1;
	for (size_t i = 1; i < list->count; i++)
		if (list->pids[i] != list->pids[kept - 1])
			list->pids[kept++] = list->pids[i];
	list->count = kept;
}

static bool pid_list_has(const struct pid_list *list, int pid)
{
	return bsearch(&pid, list->pids, list->count, sizeof(int), compare_int) != NULL;
}

/* Every numeric entry of the proc root, ascending. */
static int list_processes(int proc_fd, struct pid_list *list)
{
	int fd = dup(proc_fd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	struct dirent *entry;
	while ((entry = readdir(dir))) {
		char *end;
		long pid = strtol(entry->d_name, &end, 10);
		if (!isdigit((unsigned char)entry->d_name[0]) || *end || pid <= 0 || pid > INT_MAX)
			continue;
		pid_list_add(list, (int)pid);
	}
	closedir(dir);
	pid_list_sort_unique(list);
	return 0;
}

/* The parent pid from /proc/PID/stat (the readers' parser), or -1. */
static int read_ppid(int proc_fd, int pid, struct buffer *scratch)
{
	char name[32];
	snprintf(name, sizeof(name), "%d/stat", pid);
	if (file_read_at(proc_fd, name, scratch) != 0)
		return -1;
	struct parse_place place = { "/proc", name, NULL };   /* no error kept: the process is passed over */
	struct stat_line stat;
	return stat_line_parse(scratch->data, scratch->length, &stat, &place) ? -1 : stat.ppid;
}

/* Roots and every process whose parent chain reaches one.  Parents are
 * looked up in a sorted (pid, ppid) table and marked until nothing changes;
 * the number of rounds is the depth of the deepest tree. */
struct parent {
	int pid, ppid;
	bool chosen;
};

static int compare_parent(const void *a, const void *b)
{
	return compare_int(&((const struct parent *)a)->pid, &((const struct parent *)b)->pid);
}

static void add_trees(int proc_fd, const struct pid_list *all, const int *roots, size_t root_count,
		     struct pid_list *chosen, struct buffer *scratch)
{
	struct parent *parents = xcalloc(all->count ? all->count : 1, sizeof(*parents));
	for (size_t i = 0; i < all->count; i++) {
		parents[i].pid = all->pids[i];
		parents[i].ppid = read_ppid(proc_fd, all->pids[i], scratch);
		for (size_t r = 0; r < root_count; r++)
			parents[i].chosen |= parents[i].pid == roots[r];
	}
	bool changed = true;
	while (changed) {
		changed = false;
		for (size_t i = 0; i < all->count; i++) {
			if (parents[i].chosen || parents[i].ppid <= 0)
				continue;
			struct parent key = { .pid = parents[i].ppid };
			struct parent *up = bsearch(&key, parents, all->count, sizeof(*parents), compare_parent);
			if (up && up->chosen)
				parents[i].chosen = changed = true;
		}
	}
	for (size_t i = 0; i < all->count; i++)
		if (parents[i].chosen)
			pid_list_add(chosen, parents[i].pid);
	/* A root that does not exist is still attempted, so it is counted as skipped. */
	for (size_t r = 0; r < root_count; r++)
		if (!pid_list_has(all, roots[r]))
			pid_list_add(chosen, roots[r]);
	free(parents);
}

/* The first --pid or --tree that names no process of the listing, or 0. */
static int first_missing(const struct pid_list *all, const struct capture_options *options)
{
	for (size_t i = 0; i < options->pid_count; i++)
		if (!pid_list_has(all, options->pids[i]))
			return options->pids[i];
	for (size_t i = 0; i < options->tree_count; i++)
		if (!pid_list_has(all, options->trees[i]))
			return options->trees[i];
	return 0;
}

/* *missing (when given) gets a named process that does not exist, or 0. */
static int choose_processes(int proc_fd, const struct capture_options *options,
			    struct pid_list *chosen, struct buffer *scratch, int *missing)
{
	struct pid_list all = { 0 };
	int status = list_processes(proc_fd, &all);
	if (status == 0 && missing)
		*missing = first_missing(&all, options);
	if (status == 0 && options->pid_count == 0 && options->tree_count == 0) {
		*chosen = all;
		return 0;
	}
	for (size_t i = 0; status == 0 && i < options->pid_count; i++)
		pid_list_add(chosen, options->pids[i]);
	if (status == 0 && options->tree_count)
		add_trees(proc_fd, &all, options->trees, options->tree_count, chosen, scratch);
	free(all.pids);
	pid_list_sort_unique(chosen);
	return status;
}

/* ---- pagemap ---- */

/* A VMA of the smaps text, as read_pagemap walks it. */
struct vma_span {
	uint64_t start, end;            /* first: range_outside_spans reads them */
	bool skip;                      /* [vsyscall]: not in the page tables */
	bool pfn_mapped;                /* VmFlags "pf": raw PFNs, no struct page */
};
_Static_assert(offsetof(struct vma_span, start) == 0 && offsetof(struct vma_span, end) == 8,
	       "a span begins {start, end}");

/* A header line (the readers' parser, proc_lines.c): its span. */
static bool parse_vma_header(const char *line, const char *line_end, struct vma_span *vma)
{
	struct smaps_header h;
	if (smaps_header_parse(line, line_end, &h) != SMAPS_HEADER_OK)
		return false;
	static const char vsyscall[] = "[vsyscall]";
	*vma = (struct vma_span){ .start = h.start, .end = h.end,
				  .skip = h.path_length == sizeof(vsyscall) - 1 && !memcmp(h.path, vsyscall, h.path_length) };
	return true;
}

struct pagemap_reader {
	uint64_t page_size;
	struct buffer records;          /* packed little-endian {vaddr, entry} */
	struct pfn_set *pfns;           /* NULL when PFNs are not wanted */
	bool saw_pfn;                   /* some present page had a non-zero PFN */
	struct buffer pmd_ranges;       /* packed little-endian {start, end} mapped by PMDs */
	bool pmd_scanned;               /* PAGEMAP_SCAN answered: pmd_ranges is the truth */
	struct buffer vma_spans;        /* struct vma_span of every VMA smaps listed, ascending */
};

static int append_record(struct pagemap_reader *reader, uint64_t vaddr, uint64_t entry)
{
	uint64_t record[2] = { htole64(vaddr), htole64(entry) };
	buffer_reserve(&reader->records, sizeof(record));
	memcpy(reader->records.data + reader->records.length, record, sizeof(record));
	reader->records.length += sizeof(record);
	uint64_t pfn = entry & PAGEMAP_PFN_MASK;
	if ((entry & PAGEMAP_PRESENT) && pfn) {
		reader->saw_pfn = true;
		if (reader->pfns)
			pfn_set_add(reader->pfns, pfn);
	}
	return 0;
}

/* The pages [first, last) of one VMA, one window of at most 2 MiB per read. */
static int read_page_range(struct pagemap_reader *reader, int fd, uint64_t page, uint64_t last)
{
	uint64_t entries[PAGEMAP_WINDOW_PAGES];
	while (page < last) {
		uint64_t want = last - page < PAGEMAP_WINDOW_PAGES ? last - page : PAGEMAP_WINDOW_PAGES;
		ssize_t n = pread(fd, entries, want * sizeof(uint64_t), (off_t)(page * sizeof(uint64_t)));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n < (ssize_t)sizeof(uint64_t))
			break;          /* past the end of what the kernel reports */
		size_t got = (size_t)n / sizeof(uint64_t);
		/* room for the whole window once, not per record */
		buffer_reserve(&reader->records, got * 2 * sizeof(uint64_t));
		for (size_t i = 0; i < got; i++) {
			uint64_t entry = le64toh(entries[i]);
			if (!(entry & (PAGEMAP_PRESENT | PAGEMAP_SWAPPED)))
				continue;
			int status = append_record(reader, (page + i) * reader->page_size, entry);
			if (status)
				return status;
		}
		page += got;
	}
	return 0;
}

/*
 * A huge sparse reservation (ASan's shadow, a 4 TiB arena) would take
 * millions of 2 MiB reads, most of them empty: 4 TiB took 6.4 s here.
 * The PAGEMAP_SCAN ioctl (Linux 6.7, <linux/fs.h>; spelled out here because
 * Debian 12's headers predate it) finds the next page that is present or
 * swapped.  It is asked only after a window came back empty, and for one
 * page (max_pages = 1), so a fully populated VMA is walked once, by the
 * reads, and an empty stretch is skipped in one call.  It skips VM_PFNMAP
 * areas, so those (VmFlags "pf") always take the plain path, as does every
 * VMA on a kernel without the ioctl.
 */
struct pagemap_scan_region {
	uint64_t start, end, categories;
};

struct pagemap_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};

#define PAGEMAP_SCAN_IOCTL      _IOWR('f', 16, struct pagemap_scan_arg)
#define PAGEMAP_SCAN_PRESENT    (1 << 3)
#define PAGEMAP_SCAN_SWAPPED    (1 << 4)
#define PAGEMAP_SCAN_MIN_BYTES  (UINT64_C(1) << 30)   /* below this, plain reads are cheap */

/* The first populated address in [start, end): 1 with *next set, 0 when
 * none, -1 when the ioctl is not there (or fails). */
static int scan_next_page(int fd, uint64_t start, uint64_t end, uint64_t *next)
{
	struct pagemap_scan_region region;
	for (;;) {
		struct pagemap_scan_arg arg = {
			.size = sizeof(arg), .start = start, .end = end,
			.vec = (uint64_t)(uintptr_t)&region, .vec_len = 1, .max_pages = 1,
			.category_anyof_mask = PAGEMAP_SCAN_PRESENT | PAGEMAP_SCAN_SWAPPED,
			.return_mask = PAGEMAP_SCAN_PRESENT | PAGEMAP_SCAN_SWAPPED,
		};
		long found = ioctl(fd, PAGEMAP_SCAN_IOCTL, &arg);
		if (found < 0 && errno == EINTR)
			continue;
		if (found < 0)
			return -1;
		if (found == 0)
			return 0;
		*next = region.start;
		return 1;
	}
}

/*
 * Which ranges PMD leaves map (PAGE_IS_HUGE, Linux 6.7): pagemap shows a
 * large folio mapped by 512 PTEs exactly like one mapped by a PMD, and
 * page-cache folios of 2 MiB are often mapped by PTEs.  One scan over the
 * process's VMAs, vec_len ranges per call, resumed at walk_end.  An
 * ioctl that is not there leaves pmd_scanned false: no member is written.
 */
#define PAGEMAP_SCAN_HUGE       (1 << 6)
#define PMD_SCAN_VEC            256

static void scan_pmd_ranges(struct pagemap_reader *reader, int fd, uint64_t start, uint64_t end)
{
	struct pagemap_scan_region regions[PMD_SCAN_VEC];
	reader->pmd_ranges.length = 0;
	reader->pmd_scanned = false;
	while (start < end) {
		struct pagemap_scan_arg arg = {
			.size = sizeof(arg), .start = start, .end = end,
			.vec = (uint64_t)(uintptr_t)regions, .vec_len = PMD_SCAN_VEC,
			.category_mask = PAGEMAP_SCAN_HUGE | PAGEMAP_SCAN_PRESENT,
			.return_mask = PAGEMAP_SCAN_HUGE,
		};
		long found = ioctl(fd, PAGEMAP_SCAN_IOCTL, &arg);
		if (found < 0 && errno == EINTR)
			continue;
		if (found < 0)
			return;
		buffer_reserve(&reader->pmd_ranges, (size_t)found * 2 * sizeof(uint64_t));
		for (long i = 0; i < found; i++) {
			uint64_t range[2] = { htole64(regions[i].start), htole64(regions[i].end) };
			memcpy(reader->pmd_ranges.data + reader->pmd_ranges.length, range, sizeof(range));
			reader->pmd_ranges.length += sizeof(range);
		}
		if (arg.walk_end <= start)
			break;
		start = arg.walk_end;
	}
	reader->pmd_scanned = true;
}

/*
 * smaps and the PMD scan are two moments: a mapping made between them (a
 * THP faulted into a new VMA, as a malloc arena does) shows as a PMD range
 * in no VMA that smaps listed, and a reader refuses such a member.  false
 * when a range leaves the VMAs read: the process changed meanwhile.  Both
 * lists ascend; a range may run across neighbouring VMAs.
 */
static bool pmd_ranges_inside(const struct pagemap_reader *reader)
{
	const struct vma_span *spans = (const struct vma_span *)reader->vma_spans.data;
	size_t span_count = reader->vma_spans.length / sizeof(*spans), v = 0;
	for (size_t offset = 0; offset < reader->pmd_ranges.length; offset += 2 * sizeof(uint64_t)) {
		uint64_t range[2];
		memcpy(range, reader->pmd_ranges.data + offset, sizeof(range));
		uint64_t end = le64toh(range[1]);
		if (range_outside_spans(spans, span_count, sizeof(*spans), &v, le64toh(range[0]), end) < end)
			return false;
	}
	return true;
}

static int read_vma_pages(struct pagemap_reader *reader, int fd, const struct vma_span *vma)
{
	uint64_t page = vma->start / reader->page_size;
	uint64_t last = (vma->end + reader->page_size - 1) / reader->page_size;
	if (vma->end - vma->start < PAGEMAP_SCAN_MIN_BYTES || vma->pfn_mapped)
		return read_page_range(reader, fd, page, last);
	bool scan = true;
	while (page < last) {
		uint64_t window_end = last - page < PAGEMAP_WINDOW_PAGES ? last : page + PAGEMAP_WINDOW_PAGES;
		size_t before = reader->records.length;
		int status = read_page_range(reader, fd, page, window_end);
		if (status)
			return status;
		page = window_end;
		if (!scan || reader->records.length != before || page >= last)
			continue;
		/* an empty window of a huge area: jump to its next populated page */
		uint64_t next;
		int found = scan_next_page(fd, page * reader->page_size, last * reader->page_size, &next);
		if (found == 0)
			break;
		if (found < 0)
			scan = false;
		else if (next / reader->page_size > page)
			page = next / reader->page_size;
	}
	return 0;
}

/*
 * The VMAs of a smaps text, kept as spans with their VmFlags' pf bit;
 * EAGAIN when they do not ascend apart.  The kernel prints smaps a
 * page-sized buffer per read(2) and finds its place again by address after
 * each, so a VMA merged or split in between can be printed twice or overlap
 * the one before; readers refuse such a text, and the process is read again
 * instead.  The pagemap read and the PMD check both take these spans.
 */
static int collect_vma_spans(struct buffer *spans, const struct buffer *smaps)
{
	spans->length = 0;
	uint64_t last_end = 0;
	const char *line = smaps->data, *text_end = smaps->data + smaps->length;
	while (line < text_end) {
		const char *line_end = memchr(line, '\n', (size_t)(text_end - line));
		if (!line_end)
			line_end = text_end;
		struct vma_span vma;
		if (parse_vma_header(line, line_end, &vma)) {
			if (vma.start < last_end)
				return EAGAIN;
			last_end = vma.end;
			buffer_add(spans, &vma, sizeof(vma));
		} else if (spans->length && line_end - line > 8 && !memcmp(line, "VmFlags:", 8)) {
			struct vma_span *last = (struct vma_span *)(spans->data + spans->length) - 1;
			last->pfn_mapped = smaps_vm_flags(line + 8, line_end) >> VMF_PF & 1;
		}
		line = line_end + 1;
	}
	return 0;
}

/* Collect the pages of the VMAs smaps listed (collect_vma_spans), then
 * which ranges PMDs map, checked against the same VMAs. */
static int read_pagemap(struct pagemap_reader *reader, int process_fd)
{
	reader->records.length = 0;
	const struct vma_span *spans = (const struct vma_span *)reader->vma_spans.data;
	size_t span_count = reader->vma_spans.length / sizeof(*spans);
	if (span_count == 0)
		return 0;
	int fd = openat(process_fd, "pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	int status = 0;
	uint64_t lowest = UINT64_MAX, highest = 0;   /* the VMAs' span, for the PMD scan */
	for (size_t i = 0; i < span_count && status == 0; i++) {
		if (spans[i].skip || spans[i].end <= spans[i].start)
			continue;
		status = read_vma_pages(reader, fd, &spans[i]);
		lowest = spans[i].start < lowest ? spans[i].start : lowest;
		highest = spans[i].end > highest ? spans[i].end : highest;
	}
	if (status == 0)
		scan_pmd_ranges(reader, fd, lowest, highest);
	if (status == 0 && reader->pmd_scanned && !pmd_ranges_inside(reader))
		status = EAGAIN;
	close(fd);
	return status;
}

/* ---- format 2: each distinct chunk once ---- */

/*
 * The pagemap_chunks member as it grows: per chunk a 4-byte length and the
 * encoding (pagemap_codec.c), found again by a hash of its bytes, so a chunk
 * that 1000 processes hold (one shared segment) is written once and each
 * process writes 24 bytes per run of chunks.  Memory: the distinct chunks,
 * encoded.
 */
struct chunk_writer {
	struct buffer chunks;           /* the member */
	size_t *offsets;                /* per chunk: where its length starts in chunks */
	uint64_t *hashes;
	size_t count, capacity, hash_capacity;
	struct hash_table table;
	struct buffer runs;             /* the process's PID/pagemap_runs */
};

static uint64_t chunk_hash(const void *context, size_t index)
{
	return ((const struct chunk_writer *)context)->hashes[index];
}

/* The position of the chunk with this encoding, added if new. */
static uint32_t chunk_position(struct chunk_writer *w, const unsigned char *bytes, uint32_t length)
{
	uint64_t h = hash_bytes(bytes, length);
	struct hash_probe probe;
	for (size_t i = hash_first(&w->table, h, &probe); i != HASH_NONE; i = hash_next(&w->table, &probe)) {
		const unsigned char *held = (const unsigned char *)w->chunks.data + w->offsets[i];
		uint32_t held_length;
		memcpy(&held_length, held, 4);
		if (w->hashes[i] == h && le32toh(held_length) == length && !memcmp(held + 4, bytes, length))
			return (uint32_t)i;
	}
	if (w->count >= UINT32_MAX)
		out_of_memory();        /* chunk positions are 32 bits */
	ARRAY_RESERVE(w->offsets, w->capacity, w->count + 1);
	ARRAY_RESERVE(w->hashes, w->hash_capacity, w->count + 1);
	w->offsets[w->count] = w->chunks.length;
	w->hashes[w->count] = h;
	buffer_reserve(&w->chunks, 4 + length);
	uint32_t le_length = htole32(length);
	memcpy(w->chunks.data + w->chunks.length, &le_length, 4);
	memcpy(w->chunks.data + w->chunks.length + 4, bytes, length);
	w->chunks.length += 4 + length;
	hash_add(&w->table, h, w->count, chunk_hash, w);
	return (uint32_t)w->count++;
}

/* The chunk at vaddr holds chunk `position`: one run more, or the last one longer. */
static void add_run(struct chunk_writer *w, uint64_t vaddr, uint32_t position)
{
	struct pagemap_run_record run;
	if (w->runs.length) {
		memcpy(&run, w->runs.data + w->runs.length - sizeof(run), sizeof(run));
		uint64_t length = le64toh(run.length);
		if (le64toh(run.vaddr) + length * PAGEMAP_CHUNK_BYTES == vaddr && le64toh(run.chunk) + length == position) {
			run.length = htole64(length + 1);
			memcpy(w->runs.data + w->runs.length - sizeof(run), &run, sizeof(run));
			return;
		}
	}
	run = (struct pagemap_run_record){ htole64(vaddr), htole64(1), htole64(position) };
	buffer_reserve(&w->runs, sizeof(run));
	memcpy(w->runs.data + w->runs.length, &run, sizeof(run));
	w->runs.length += sizeof(run);
}

static void finish_chunk(struct chunk_writer *w, uint64_t chunk, const struct pagemap_record *records, uint32_t count)
{
	unsigned char encoded[PAGEMAP_CHUNK_MAX_ENCODED_BYTES];
	if (!count)
		return;
	size_t length = pagemap_chunk_encode(records, count, encoded);
	add_run(w, chunk << PAGEMAP_CHUNK_SHIFT, chunk_position(w, encoded, (uint32_t)length));
}

/* A process's records (packed little-endian {vaddr, entry}, ascending) as runs of chunks. */
static void chunk_process(struct chunk_writer *w, const struct buffer *records)
{
	struct pagemap_record pending[PAGEMAP_CODEC_PAGES];
	uint32_t count = 0;
	uint64_t chunk = 0;
	w->runs.length = 0;
	for (size_t at = 0; at + 16 <= records->length; at += 16) {
		uint64_t word[2];
		memcpy(word, records->data + at, sizeof(word));
		uint64_t vaddr = le64toh(word[0]);
		if (count && (vaddr >> PAGEMAP_CHUNK_SHIFT != chunk || count == PAGEMAP_CODEC_PAGES)) {
			finish_chunk(w, chunk, pending, count);
			count = 0;
		}
		chunk = vaddr >> PAGEMAP_CHUNK_SHIFT;
		pending[count++] = (struct pagemap_record){ vaddr & (PAGEMAP_CHUNK_BYTES - 1), le64toh(word[1]) };
	}
	finish_chunk(w, chunk, pending, count);
}

static void chunk_writer_free(struct chunk_writer *w)
{
	free(w->chunks.data);
	free(w->offsets);
	free(w->hashes);
	hash_free(&w->table);
	free(w->runs.data);
}

/* ---- the archive ---- */

/* How the tar is compressed: --compress NAME, or the file name's suffix,
 * else zstd (fast enough not to dominate a capture, and multi-threaded). */
struct codec {
	const char *name;               /* --compress NAME */
	const char *filter;             /* libarchive's filter name for options, or NULL */
	int (*add_filter)(struct archive *);
	bool threads;                   /* takes libarchive's "threads" option */
	const char *level;              /* its "compression-level" for format 2, or NULL: libarchive's default */
	const char *level_format1;      /* the same for format 1, whose tar is ten times larger */
};

/* zstd, measured on a 1 GiB x 16 capture with `zstd -T2`.  Format 2's tar
 * is 7.5 MB (kpages 6.3 MB, the distinct chunks 0.7 MB): level 3 takes
 * 0.09 s of CPU for 1.07 MB, against -1's 0.07 s and 1.20 MB, --fast=1's
 * 0.08 s and 1.44 MB, 6's 0.18 s and 0.91 MB.  Format 1's tar is 78 MB,
 * mostly pagemap records: there -1 (--fast=1 in libarchive) takes 0.43 s
 * and 16.0 MB, level 3 0.84 s and 15.8 MB, --fast=5 0.38 s but 27.6 MB. */
static const struct codec codecs[] = {
	{ "none", NULL,   archive_write_add_filter_none, false, NULL, NULL },
	{ "gz",   "gzip", archive_write_add_filter_gzip, false, NULL, NULL },
	{ "xz",   "xz",   archive_write_add_filter_xz,   true,  NULL, NULL },
	{ "zst",  "zstd", archive_write_add_filter_zstd, true,  "3", "-1" },
};
#define DEFAULT_CODEC (&codecs[3])

/* File name suffixes and the codec each means; the first of a codec is its default. */
static const struct container {
	const char *suffix;
	const struct codec *codec;
} containers[] = {
	{ ".tar.gz",  &codecs[1] },
	{ ".tgz",     &codecs[1] },
	{ ".tar.xz",  &codecs[2] },
	{ ".tar.zst", &codecs[3] },
	{ ".tar",     &codecs[0] },
};

static const struct container *container_for(const char *path)
{
	size_t length = strlen(path);
	for (size_t i = 0; i < sizeof(containers) / sizeof(containers[0]); i++) {
		size_t n = strlen(containers[i].suffix);
		if (length > n && !strcmp(path + length - n, containers[i].suffix))
			return &containers[i];
	}
	return NULL;
}

static const char *codec_suffix(const struct codec *codec)
{
	for (size_t i = 0; i < sizeof(containers) / sizeof(containers[0]); i++)
		if (containers[i].codec == codec)
			return containers[i].suffix;
	return ".tar";
}

const char *capture_codec_names(void)
{
	return "gz, xz, zst or none";
}

bool capture_codec_known(const char *name)
{
	for (size_t i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++)
		if (!strcmp(codecs[i].name, name))
			return true;
	return false;
}

static const struct codec *codec_named(const char *name)
{
	for (size_t i = 0; name && i < sizeof(codecs) / sizeof(codecs[0]); i++)
		if (!strcmp(codecs[i].name, name))
			return &codecs[i];
	return NULL;
}

/* Members go to a tar (capture) or straight to a sink (the live read's
 * snapshot builder, inputs/live.c): capture itself never links the builder. */
struct writer {
	struct archive *archive;
	struct archive_entry *entry;
	capture_sink *sink;
	void *sink_data;
	time_t mtime;
	const char *path;
	struct error *error;
	bool output_failed;             /* the failure was writing (status 2), not the input */
};


/* libarchive says "Write error" for a full disk: add what the system said. */
static const char *archive_problem(struct archive *archive, char *buffer, size_t size)
{
	int number = archive_errno(archive);
	const char *text = archive_error_string(archive);
	if (number > 0 && (!text || !strstr(text, strerror(number))))
		snprintf(buffer, size, "%s (%s)", text ? text : "error", strerror(number));
	else
		snprintf(buffer, size, "%s", text ? text : "error");
	return buffer;
}

static int write_header(struct writer *w, const char *name, mode_t type_and_mode, size_t size,
			uid_t uid, gid_t gid)
{
	char why[512];
	if (w->sink)
		return 0; /* a sink needs no folder entries */
	archive_entry_clear(w->entry);
	archive_entry_set_pathname(w->entry, name);
	archive_entry_set_mode(w->entry, type_and_mode);
	archive_entry_set_size(w->entry, (la_int64_t)size);
	archive_entry_set_mtime(w->entry, w->mtime, 0);
	archive_entry_set_uid(w->entry, uid);
	archive_entry_set_gid(w->entry, gid);
	if (archive_write_header(w->archive, w->entry) != ARCHIVE_OK) {
		w->output_failed = true;
		return error_set(w->error, w->path, 0, "%s: %s", name,
				 archive_problem(w->archive, why, sizeof(why)));
	}
	return 0;
}

static int write_member(struct writer *w, const char *name, const void *data, size_t size)
{
	char why[512];
	if (w->sink)
		return w->sink(w->sink_data, name, data, size, w->error);
	if (write_header(w, name, AE_IFREG | 0444, size, 0, 0) < 0)
		return -1;
	if (size && archive_write_data(w->archive, data, size) != (la_ssize_t)size) {
		w->output_failed = true;
		return error_set(w->error, w->path, 0, "%s: %s", name,
				 archive_problem(w->archive, why, sizeof(why)));
	}
	return 0;
}

/* ---- one process ---- */

/* The files of one process, in the order they are read: smaps first. */
static const char *const process_files[] = { "smaps", "status", "stat", "cmdline" };
#define PROCESS_FILE_COUNT (sizeof(process_files) / sizeof(process_files[0]))

struct capture_state {
	const struct capture_options *options;
	int proc_fd;
	struct writer writer;
	struct buffer files[PROCESS_FILE_COUNT];
	struct buffer stat_before, stat_after;  /* the identity check's two reads of stat */
	struct buffer cgroup;           /* optional: a kernel without cgroups has none */
	bool has_cgroup;
	struct pagemap_reader pagemap;
	struct pfn_set pfns;
	int format;                     /* written: 1 or 2 (a builder reads format 1) */
	struct chunk_writer chunks;     /* format 2 */
	long processes, kernel_threads, zombies, skipped, changed;
	long unreadable;                /* of skipped: EACCES/EPERM (without root: other users') */
	int first_unreadable_pid;       /* the first of them, and its comm if /proc gives it */
	char first_unreadable_comm[64];
	bool has_slabinfo;              /* slabinfo could be read (root) */
	struct id_set uids, gids;       /* of the processes written: named in the users member */
};

/* A refused process is counted, and the first one named (its comm read
 * apart: the refusal may be of another file than comm). */
static void note_unreadable(struct capture_state *state, int pid)
{
	if (state->unreadable++)
		return;
	char name[32];
	struct buffer comm = { 0 };
	state->first_unreadable_pid = pid;
	snprintf(name, sizeof(name), "%d/comm", pid);
	if (file_read_at(state->proc_fd, name, &comm) == 0 && comm.data) {
		snprintf(state->first_unreadable_comm, sizeof(state->first_unreadable_comm), "%.*s",
			 (int)strcspn(comm.data, "\n"), comm.data);
	}
	free(comm.data);
}

/* Errors that mean "this process is gone or not ours to read". */
static bool process_went_away(int error)
{
	return error == ENOENT || error == ESRCH || error == EACCES || error == EPERM;
}

/*
 * One process, one moment.  A process's files are read through one
 * /proc/PID directory descriptor: if the process ends and its pid is reused
 * meanwhile, the descriptor still names the old one and its files fail with
 * ESRCH, so a newcomer can never lend it a file.  An exec keeps the pid and
 * the directory but brings another program and another mm, so stat is read
 * before the other files and again after the pagemap, and what only a new
 * program changes must agree across the three reads of stat: comm, the start
 * time, and the mm's code, stack, data, brk, argument and environment
 * addresses (proc(5) stat fields 2, 22, 26-28, 45-51; ASLR moves them on
 * every exec, mmap and munmap never do); smaps' VMAs must ascend apart
 * (collect_vma_spans) and a PMD range the scan found must lie in them
 * (pmd_ranges_inside).  A process that changed is read
 * again, CAPTURE_ATTEMPTS times at most, then skipped and counted as changed
 * during capture.  Exited but unreaped processes (state Z or X: no mm, an
 * empty smaps) are zombies, not kernel threads (stat flags PF_KTHREAD).
 */
#define CAPTURE_ATTEMPTS 3
#define STAT_PF_KTHREAD  UINT64_C(0x00200000)

struct stat_identity {
	char key[512];                  /* comm and the fields above, joined */
	char state;
	uint64_t flags;
};

/* 0, or EINVAL when the text is no stat line. */
static int read_identity(const struct buffer *stat, struct stat_identity *id)
{
	static const unsigned char fields[] = { 22, 26, 27, 28, 45, 46, 47, 48, 49, 50, 51 };
	const char *text = stat->data, *end = text + stat->length;
	const char *open = text ? memchr(text, '(', stat->length) : NULL, *close = NULL;
	for (const char *p = end; text && p > text && !close; p--)
		if (p[-1] == ')')
			close = p - 1;
	if (!open || !close || close < open || end - close < 4)
		return EINVAL;
	int used = snprintf(id->key, sizeof(id->key), "%.*s", (int)(close - open + 1), open);
	id->state = close[2];
	id->flags = 0;
	size_t next = 0;
	const char *p = close + 2;
	for (unsigned field = 3; p < end && next < sizeof(fields) && used < (int)sizeof(id->key); field++) {
		const char *stop = memchr(p, ' ', (size_t)(end - p));
		if (!stop)
			stop = end;
		if (field == 9)
			id->flags = strtoull(p, NULL, 10);
		if (field == fields[next]) {
			used += snprintf(id->key + used, sizeof(id->key) - (size_t)used, " %.*s", (int)(stop - p), p);
			next++;
		}
		p = stop + 1;
	}
	return 0;
}

/* Read every file of a process once, through its directory descriptor.
 * 0, an errno (gone, refused, ENOMEM), or EAGAIN when it changed meanwhile. */
static int read_process_once(struct capture_state *state, int pid, struct stat *owner,
			     struct stat_identity *identity)
{
	char name[32];
	snprintf(name, sizeof(name), "%d", pid);
	int process_fd = openat(state->proc_fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (process_fd < 0)
		return errno;
	int status = fstat(process_fd, owner) < 0 ? errno : 0;
	if (!status)
		status = file_read_at(process_fd, "stat", &state->stat_before);
	if (!status)
		status = read_identity(&state->stat_before, identity);
	for (size_t i = 0; i < PROCESS_FILE_COUNT && status == 0; i++)
		status = file_read_at(process_fd, process_files[i], &state->files[i]);
	state->pagemap.records.length = 0;
	state->pagemap.pmd_scanned = false;
	bool no_mm = status == 0 && state->files[0].length == 0;
	/* PID/cgroup is optional (docs/snapshot-format.md): its absence skips nothing */
	state->has_cgroup = status == 0 && !no_mm && file_read_at(process_fd, "cgroup", &state->cgroup) == 0;
	if (status == 0 && !no_mm)
		status = collect_vma_spans(&state->pagemap.vma_spans, &state->files[0]);
	if (status == 0 && !state->options->no_pagemap && !no_mm)
		status = read_pagemap(&state->pagemap, process_fd);
	if (status == 0)
		status = file_read_at(process_fd, "stat", &state->stat_after);
	close(process_fd);
	struct stat_identity middle, after;
	if (status == 0 && (read_identity(&state->files[2], &middle) || read_identity(&state->stat_after, &after) ||
			    strcmp(identity->key, middle.key) || strcmp(identity->key, after.key) ||
			    (identity->state == 'Z') != (after.state == 'Z')))
		status = EAGAIN;
	return status;
}

/* The members of one process read whole (read_process_once). */
static int write_process(struct capture_state *state, int pid, const struct stat *owner, bool no_mm)
{
	char name[64];
	/* A directory entry per process carries its owner, as smemcap's does. */
	snprintf(name, sizeof(name), "%d/", pid);
	if (write_header(&state->writer, name, AE_IFDIR | 0555, 0, owner->st_uid, owner->st_gid) < 0)
		return -1;
	for (size_t i = 0; i < PROCESS_FILE_COUNT; i++) {
		snprintf(name, sizeof(name), "%d/%s", pid, process_files[i]);
		if (write_member(&state->writer, name, state->files[i].data, state->files[i].length) < 0)
			return -1;
	}
	snprintf(name, sizeof(name), "%d/cgroup", pid);
	if (state->has_cgroup && write_member(&state->writer, name, state->cgroup.data, state->cgroup.length) < 0)
		return -1;
	if (!state->options->no_pagemap && !no_mm && state->format >= 2) {
		chunk_process(&state->chunks, &state->pagemap.records);
		snprintf(name, sizeof(name), "%d/pagemap_runs", pid);
		if (write_member(&state->writer, name, state->chunks.runs.data, state->chunks.runs.length) < 0)
			return -1;
	}
	if (!state->options->no_pagemap && !no_mm) {
		snprintf(name, sizeof(name), "%d/pagemap", pid);
		if (state->format < 2 && write_member(&state->writer, name, state->pagemap.records.data,
						      state->pagemap.records.length) < 0)
			return -1;
		snprintf(name, sizeof(name), "%d/pmd_mapped", pid);
		if (state->pagemap.pmd_scanned &&
		    write_member(&state->writer, name, state->pagemap.pmd_ranges.data, state->pagemap.pmd_ranges.length) < 0)
			return -1;
	}
	return 0;
}

/* Read then write one process.  Returns -1 only when the output fails. */
static int capture_process(struct capture_state *state, int pid)
{
	struct stat owner = { 0 };
	struct stat_identity identity;
	int status = EAGAIN;
	for (int attempt = 0; attempt < CAPTURE_ATTEMPTS && status == EAGAIN; attempt++)
		status = read_process_once(state, pid, &owner, &identity);
	if (status == ENOMEM) {
		/* out of memory is an internal failure, wherever it is met (base/alloc.h) */
		error_set(state->writer.error, state->writer.path, 0, "out of memory reading process %d", pid);
		return error_mark_internal(state->writer.error);
	}
	if (status == EAGAIN) {
		state->changed++;
		state->skipped++;
		return 0;
	}
	if (status) {
		if (!process_went_away(status))
			fprintf(stderr, "ptscope: capture: process %d: %s; skipped\n", pid, strerror(status));
		state->skipped++;
		if (status == EACCES || status == EPERM)
			note_unreadable(state, pid);
		return 0;
	}
	bool no_mm = state->files[0].length == 0;
	bool zombie = no_mm && (identity.state == 'Z' || identity.state == 'X') && !(identity.flags & STAT_PF_KTHREAD);
	bool kernel_thread = no_mm && !zombie;

	if (write_process(state, pid, &owner, no_mm) < 0)
		return -1;
	id_set_add_status(&state->uids, state->files[1].data, state->files[1].length, "Uid:");
	id_set_add_status(&state->gids, state->files[1].data, state->files[1].length, "Gid:");
	if (zombie)
		state->zombies++;
	else if (kernel_thread)
		state->kernel_threads++;
	else
		state->processes++;
	return 0;
}

/* ---- kpages ---- */

/* Read count[first..first+n) from a kpage file into out (zero past its end,
 * where PFNs of device memory have no struct page). */
static int read_kpage_words(int fd, uint64_t first, size_t n, uint64_t *out)
{
	memset(out, 0, n * sizeof(*out));
	size_t done = 0;
	while (done < n) {
		ssize_t got = pread(fd, (char *)out + done * 8, (n - done) * 8, (off_t)((first + done) * 8));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return errno == EINVAL ? 0 : -1;
		if (got == 0)
			break;
		done += (size_t)got / 8;
	}
	for (size_t i = 0; i < n; i++)
		out[i] = le64toh(out[i]);
	return 0;
}

/*
 * kpages as written: format 1, a 24-byte record a PFN (member kpages);
 * format 2, runs of consecutive PFNs with equal kpagecount and kpageflags,
 * in blocks of at most KPAGE_BLOCK_RUNS (member kpage_runs, pagemap_codec.c).
 */
struct kpage_sink {
	int format;
	struct buffer out;
	struct kpage_run runs[KPAGE_BLOCK_RUNS];
	size_t run_count;
	struct kpage_codec codec;
};

static void kpage_sink_flush(struct kpage_sink *sink)
{
	if (sink->run_count == 0)
		return;
	buffer_reserve(&sink->out, 4 + KPAGE_BLOCK_MAX_ENCODED_BYTES);
	unsigned char *at = (unsigned char *)sink->out.data + sink->out.length;
	uint32_t length = (uint32_t)kpage_block_encode(sink->runs, sink->run_count, &sink->codec, at + 4);
	uint32_t little = htole32(length);
	memcpy(at, &little, 4);
	sink->out.length += 4 + length;
	sink->run_count = 0;
}

static void kpage_sink_add(struct kpage_sink *sink, uint64_t pfn, uint64_t mapcount, uint64_t flags)
{
	if (sink->format < 2) {
		uint64_t record[3] = { htole64(pfn), htole64(mapcount), htole64(flags) };
		buffer_add(&sink->out, record, sizeof(record));
		return;
	}
	struct kpage_run *last = sink->run_count ? &sink->runs[sink->run_count - 1] : NULL;
	if (last && last->pfn + last->pages == pfn && last->mapcount == mapcount && last->flags == flags) {
		last->pages++;
		return;
	}
	/* the block's last run is whole once a page starts another */
	if (sink->run_count == KPAGE_BLOCK_RUNS)
		kpage_sink_flush(sink);
	sink->runs[sink->run_count++] = (struct kpage_run){ pfn, 1, mapcount, flags };
}

/* kpagecount and kpageflags of every distinct PFN, read a window at a time. */
static int read_kpages(struct capture_state *state, int count_fd, int flags_fd, struct kpage_sink *sink)
{
	const uint64_t *pfns = state->pfns.sorted;
	size_t total = state->pfns.count;
	uint64_t counts[KPAGE_WINDOW_PAGES], flags[KPAGE_WINDOW_PAGES];
	for (size_t i = 0; i < total;) {
		/* one window from this PFN covers every later PFN within 512 pages */
		uint64_t first = pfns[i];
		size_t j = i;
		while (j < total && pfns[j] - first < KPAGE_WINDOW_PAGES)
			j++;
		size_t span = (size_t)(pfns[j - 1] - first + 1);
		if (read_kpage_words(count_fd, first, span, counts) < 0 ||
		    read_kpage_words(flags_fd, first, span, flags) < 0)
			return error_set(state->writer.error, state->writer.path, 0, "kpagecount/kpageflags: %s",
					 strerror(errno));
		for (; i < j; i++)
			kpage_sink_add(sink, pfns[i], counts[pfns[i] - first], flags[pfns[i] - first]);
	}
	kpage_sink_flush(sink);
	return 0;
}

static int write_kpages(struct capture_state *state)
{
	if (state->pfns.count == 0)
		return 0;
	pfn_set_sort(&state->pfns);
	int count_fd = openat(state->proc_fd, "kpagecount", O_RDONLY | O_CLOEXEC);
	int flags_fd = openat(state->proc_fd, "kpageflags", O_RDONLY | O_CLOEXEC);
	if (count_fd < 0 || flags_fd < 0) {
		fprintf(stderr, "ptscope: capture: kpagecount/kpageflags: %s; no kpages\n", strerror(errno));
		if (count_fd >= 0)
			close(count_fd);
		if (flags_fd >= 0)
			close(flags_fd);
		return 0;
	}
	struct kpage_sink *sink = xcalloc(1, sizeof(*sink));
	sink->format = state->format;
	int status = read_kpages(state, count_fd, flags_fd, sink);
	close(count_fd);
	close(flags_fd);
	if (status == 0)
		status = write_member(&state->writer, state->format < 2 ? "kpages" : "kpage_runs", sink->out.data,
				      sink->out.length);
	free(sink->out.data);
	free(sink);
	return status;
}

/* ---- snapshot.info, version, meminfo ---- */


static int write_info(struct capture_state *state, enum pagemap_mode mode)
{
	struct utsname uts;
	char hostname[256] = "", captured_at[40] = "", text[1024];
	struct tm tm;
	if (uname(&uts) < 0)
		memset(&uts, 0, sizeof(uts));
	gethostname(hostname, sizeof(hostname) - 1);
	if (gmtime_r(&state->writer.mtime, &tm))
		strftime(captured_at, sizeof(captured_at), "%Y-%m-%dT%H:%M:%SZ", &tm);
	int n = snprintf(text, sizeof(text),
			 "format: ptscope-snapshot %d\npage_size: %llu\narch: %s\nkernel: %s\n"
			 "hostname: %s\ncaptured_at: %s\npagemap: %s\nprocesses: %ld\nskipped: %ld\n"
			 "kernel_threads: %ld\nzombies: %ld\nchanged_during_capture: %ld\nunreadable: %ld\n"
			 "scope: %s\nptscope_version: %s\n",
			 state->format, (unsigned long long)state->pagemap.page_size, uts.machine, uts.release, hostname,
			 captured_at, pagemap_mode_names[mode], state->processes, state->skipped,
			 state->kernel_threads, state->zombies, state->changed, state->unreadable,
			 state->options->pid_count || state->options->tree_count ? "part" : "all", PTSCOPE_VERSION);
	return write_member(&state->writer, "snapshot.info", text, (size_t)n);
}

static int copy_system_file(struct capture_state *state, const char *name)
{
	struct buffer *b = &state->files[0];
	int status = file_read_at(state->proc_fd, name, b);
	if (status)
		return error_set(state->writer.error, NULL, 0, "%s/%s: %s", state->options->proc_root, name,
				 strerror(status));
	return write_member(&state->writer, name, b->data, b->length);
}

/* ---- slabinfo and the slab allocator's per-CPU state ---- */

/*
 * /proc/slabinfo is root's only (0400): without it the member is left out.
 * It is read just before the processes; after them the capture reads the
 * active objects of the caches the cost model counts once more, with what
 * /sys/kernel/slab says of their per-CPU slabs (the objects SLUB counts
 * active although they sit free in a CPU's slab or sheaf), into the slub
 * member, so that the report can bound the comparison.
 */
static const char *const model_caches[] = { "anon_vma", "anon_vma_chain", "vm_area_struct" };

static int copy_slabinfo(struct capture_state *state)
{
	struct buffer *b = &state->files[0];
	int status = file_read_at(state->proc_fd, "slabinfo", b);
	if (status == EACCES || status == EPERM || status == ENOENT)
		return 0;
	if (status)
		return error_set(state->writer.error, NULL, 0, "%s/slabinfo: %s", state->options->proc_root,
				 strerror(status));
	state->has_slabinfo = true;
	return write_member(&state->writer, "slabinfo", b->data, b->length);
}

/* The active_objs column of one cache in slabinfo text; false if absent. */
static bool slabinfo_active(const struct buffer *b, const char *name, unsigned long long *active)
{
	size_t length = strlen(name);
	for (const char *p = b->data, *end = b->data + b->length; p && p < end; ) {
		const char *newline = memchr(p, '\n', (size_t)(end - p));
		if ((size_t)(end - p) > length && !memcmp(p, name, length) && p[length] == ' ')
			return sscanf(p + length, "%llu", active) == 1;
		p = newline ? newline + 1 : NULL;
	}
	return false;
}

/* A number from /sys/kernel/slab/NAME/FILE ("10 N0=10" gives 10). */
static bool slab_sys_number(const char *name, const char *file, unsigned long long *value)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/%s", name, file);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool ok = fscanf(f, "%llu", value) == 1;
	fclose(f);
	return ok;
}

static unsigned online_nodes(void)
{
	DIR *dir = opendir("/sys/devices/system/node");
	unsigned nodes = 0;
	for (struct dirent *e; dir && (e = readdir(dir)); )
		nodes += !strncmp(e->d_name, "node", 4) && isdigit((unsigned char)e->d_name[4]);
	if (dir)
		closedir(dir);
	return nodes ? nodes : 1;
}

static int write_slub(struct capture_state *state)
{
	/* per-CPU state is the running kernel's: only for the real /proc */
	if (!state->has_slabinfo || strcmp(state->options->proc_root, "/proc"))
		return 0;
	struct buffer *b = &state->files[0];
	if (file_read_at(state->proc_fd, "slabinfo", b))
		b->length = 0;
	char text[2048];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int n = snprintf(text, sizeof(text), "cpus: %ld\nnodes: %u\n", cpus > 0 ? cpus : 1, online_nodes());
	for (size_t i = 0; i < sizeof(model_caches) / sizeof(model_caches[0]); i++) {
		unsigned long long cpu_slabs, sheaf = 0, aliases = 0, active;
		if (!slab_sys_number(model_caches[i], "cpu_slabs", &cpu_slabs))
			continue;
		slab_sys_number(model_caches[i], "sheaf_capacity", &sheaf);
		slab_sys_number(model_caches[i], "aliases", &aliases);
		n += snprintf(text + n, sizeof(text) - (size_t)n, "cache: %s cpu_slabs=%llu sheaf_capacity=%llu aliases=%llu",
			      model_caches[i], cpu_slabs, sheaf, aliases);
		if (slabinfo_active(b, model_caches[i], &active))
			n += snprintf(text + n, sizeof(text) - (size_t)n, " active_after=%llu", active);
		n += snprintf(text + n, sizeof(text) - (size_t)n, "\n");
	}
	return write_member(&state->writer, "slub", text, (size_t)n);
}

/* The names of the uids and gids seen, from this host's NSS (inputs/users.c). */
static int write_users(struct capture_state *state)
{
	struct buffer *b = &state->files[0];
	users_member_text(&state->uids, &state->gids, b);
	if (!b->length)
		return 0;
	return write_member(&state->writer, "users", b->data, b->length);
}

/* ---- the output file: whole or not at all (base/output.h) ---- */

struct capture_target {
	char final[PATH_MAX];           /* where the snapshot goes ("stdout" for -o -) */
	const struct codec *codec;
	struct output file;             /* unnamed until complete */
	int fd;
	bool to_stdout;                 /* -o -: a stream that cannot be taken back */
};

static int resolve_output(const char *requested, const char *compress, time_t now, struct capture_target *out,
			  struct error *error)
{
	char default_name[512], hostname[256] = "host";
	struct tm tm;
	const struct codec *asked = codec_named(compress);
	if (compress && !asked)
		return error_set(error, NULL, 0, "capture: --compress %s: not a codec (%s)", compress,
				 capture_codec_names());
	gethostname(hostname, sizeof(hostname) - 1);
	hostname[sizeof(hostname) - 1] = '\0';
	gmtime_r(&now, &tm);
	char date[32];
	strftime(date, sizeof(date), "%Y%m%dT%H%M%SZ", &tm);
	struct stat st;
	bool directory = requested && *requested && stat(requested, &st) == 0 && S_ISDIR(st.st_mode);
	const struct container *named = requested && *requested && !directory ? container_for(requested) : NULL;
	if (named && asked && named->codec != asked)
		return error_set(error, requested, 0, "the name says %s, --compress says %s", named->codec->name,
				 asked->name);
	out->codec = asked ? asked : named ? named->codec : DEFAULT_CODEC;
	if (requested && !strcmp(requested, "-")) {
		snprintf(out->final, sizeof(out->final), "stdout");
		out->to_stdout = true;
		return 0;
	}
	snprintf(default_name, sizeof(default_name), "ptscope-%s-%s%s", hostname, date, codec_suffix(out->codec));

	if (!requested || !*requested)
		snprintf(out->final, sizeof(out->final), "%s", default_name);
	else if (directory)     /* "-o /tmp/" names /tmp/NAME, not /tmp//NAME */
		snprintf(out->final, sizeof(out->final), "%s%s%s", requested,
			 requested[strlen(requested) - 1] == '/' ? "" : "/", default_name);
	else if (!named && !asked)
		return error_set(error, requested, 0, "unknown container: name it .tar, .tar.gz, .tgz, .tar.xz or "
				 ".tar.zst, give --compress, or give a directory");
	else if (snprintf(out->final, sizeof(out->final), "%s", requested) >= (int)sizeof(out->final))
		return error_set(error, requested, 0, "path too long");
	return 0;
}

static int open_output(struct capture_target *out, struct error *error)
{
	if (out->to_stdout) {
		/* a tar, compressed or not, is not for a terminal to print */
		if (isatty(STDOUT_FILENO))
			return error_set(error, NULL, 0, "capture: -o -: stdout is a terminal; redirect it to a file "
					 "or pipe it (ptscope capture -o - | ptscope report -)");
		return 0;
	}
	struct error opened;
	if (output_open(&out->file, out->final, &opened) != 0)
		return error_set(error, out->final, 0, "cannot write a snapshot here: %s", strerror(errno));
	out->fd = output_fd(&out->file);
	return 0;
}

static int publish_output(struct capture_target *out, struct error *error)
{
	if (out->to_stdout)
		return 0;
	out->fd = -1;  /* closed by publish, either way */
	return output_publish(&out->file, error);
}

static void discard_output(struct capture_target *out)
{
	if (!out->to_stdout)
		output_discard(&out->file);
	out->fd = -1;
}

/* ---- the whole capture ---- */

static void show_progress(const struct capture_state *state, size_t done, size_t total, bool last)
{
	if (!state->options->progress || (!last && done % 32 != 0))
		return;
	fprintf(stderr, "\rcapture: %zu/%zu processes, %ld skipped%s", done, total, state->skipped,
		last ? "\n" : "");
}

/* Compression runs on every core (libarchive hands zstd and xz their
 * "threads" option) while this thread keeps reading /proc. */
static void set_threads(struct archive *archive, const struct codec *codec)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	char threads[24];
	if (!codec->threads || cores < 2)
		return;
	snprintf(threads, sizeof(threads), "%ld", cores);
	/* a libarchive without the option compresses on one thread: slower, same bytes */
	archive_write_set_filter_option(archive, codec->filter, "threads", threads);
}

static int open_archive(struct capture_state *state, const struct capture_target *out)
{
	struct writer *w = &state->writer;
	w->archive = archive_write_new();
	w->entry = archive_entry_new();
	if (!w->archive || !w->entry)
		out_of_memory();   /* libarchive's only reason for NULL */
	/* pax only where ustar cannot say it: plain ustar for smem and old tars. */
	if (archive_write_set_format_pax_restricted(w->archive) != ARCHIVE_OK ||
	    out->codec->add_filter(w->archive) != ARCHIVE_OK)
		return error_set(w->error, out->final, 0, "%s", archive_error_string(w->archive));
	set_threads(w->archive, out->codec);
	/* a libarchive that refuses the level compresses at its default: same format */
	const char *level = state->format >= 2 ? out->codec->level : out->codec->level_format1;
	if (level)
		archive_write_set_filter_option(w->archive, out->codec->filter, "compression-level", level);
	/* a pipe would get the last block padded with zeros after the
	 * compressed stream, which zstd and xz readers refuse */
	if (out->to_stdout)
		archive_write_set_bytes_in_last_block(w->archive, 1);
	if (archive_write_open_fd(w->archive, out->to_stdout ? STDOUT_FILENO : output_fd(&out->file)) != ARCHIVE_OK)
		return error_set(w->error, out->final, 0, "%s", archive_error_string(w->archive));
	return 0;
}

static int close_archive(struct capture_state *state)
{
	char why[512];
	if (archive_write_close(state->writer.archive) == ARCHIVE_OK)
		return 0;
	state->writer.output_failed = true;
	return error_set(state->writer.error, state->writer.path, 0, "%s",
			 archive_problem(state->writer.archive, why, sizeof(why)));
}

static int capture_all(struct capture_state *state, const struct pid_list *pids)
{
	if (copy_system_file(state, "version") < 0 || copy_system_file(state, "meminfo") < 0 ||
	    copy_slabinfo(state) < 0)
		return -1;
	for (size_t i = 0; i < pids->count; i++) {
		if (capture_process(state, pids->pids[i]) < 0)
			return -1;
		show_progress(state, i + 1, pids->count, false);
	}
	show_progress(state, pids->count, pids->count, true);
	/* A snapshot without a process would only be refused when read. */
	if (state->processes == 0)
		return error_set(state->writer.error, state->writer.path, 0,
				 "no process could be read: skipped %ld (refused, "
				 "permission denied: %ld; changed during capture: %ld), zombies %ld, "
				 "kernel threads %ld", state->skipped, state->unreadable,
				 state->changed, state->zombies, state->kernel_threads);
	enum pagemap_mode mode = state->options->no_pagemap ? PAGEMAP_NONE
				 : state->pagemap.saw_pfn ? PAGEMAP_PFN : PAGEMAP_PRESENT_ONLY;
	if (mode != PAGEMAP_NONE && state->format >= 2 &&
	    write_member(&state->writer, "pagemap_chunks", state->chunks.chunks.data, state->chunks.chunks.length) < 0)
		return -1;
	if (mode == PAGEMAP_PFN && write_kpages(state) < 0)
		return -1;
	if (write_slub(state) < 0 || write_users(state) < 0)
		return -1;
	if (write_info(state, mode) < 0)
		return -1;
	return (int)mode;
}

static void capture_state_init(struct capture_state *state, const struct capture_options *options,
			       struct error *error)
{
	*state = (struct capture_state){
		.options = options,
		.pagemap = { .page_size = (uint64_t)sysconf(_SC_PAGESIZE) },
		.writer = { .mtime = time(NULL), .error = error },
		.proc_fd = -1,
		.format = options->format ? options->format : SNAPSHOT_FORMAT_NEWEST,
	};
	state->pagemap.pfns = &state->pfns;
}

static void capture_state_release(struct capture_state *state)
{
	if (state->proc_fd >= 0)
		close(state->proc_fd);
	for (size_t i = 0; i < PROCESS_FILE_COUNT; i++)
		free(state->files[i].data);
	free(state->cgroup.data);
	free(state->stat_before.data);
	free(state->stat_after.data);
	free(state->pagemap.records.data);
	free(state->pagemap.pmd_ranges.data);
	free(state->pagemap.vma_spans.data);
	pfn_set_free(&state->pfns);
	chunk_writer_free(&state->chunks);
	free(state->uids.ids);
	free(state->gids.ids);
}

/* The live system: the same walk as a capture, members handed to sink. */
int capture_to_sink(const char *proc_root, capture_sink *sink, void *sink_data, struct error *error)
{
	/* the sink takes records as read (format 1): a builder keeps each chunk once itself */
	struct capture_options options = { .proc_root = proc_root, .format = 1 };
	struct capture_state state;
	struct pid_list pids = { 0 };
	int mode = -1;

	capture_state_init(&state, &options, error);
	state.writer.sink = sink;
	state.writer.sink_data = sink_data;
	state.writer.path = proc_root;
	state.proc_fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (state.proc_fd < 0)
		error_set(error, proc_root, 0, "%s", strerror(errno));
	else if (choose_processes(state.proc_fd, &options, &pids, &state.files[0], NULL) < 0)
		error_set(error, proc_root, 0, "cannot list processes: %s", strerror(errno));
	else
		mode = capture_all(&state, &pids);
	capture_state_release(&state);
	free(pids.pids);
	return mode < 0 ? -1 : 0;
}

static void tell_result(const struct capture_state *state, const char *path, int mode,
			struct capture_result *result)
{
	snprintf(result->path, sizeof(result->path), "%s", path);
	result->processes = state->processes;
	result->skipped = state->skipped;
	result->changed = state->changed;
	result->unreadable = state->unreadable;
	result->first_unreadable_pid = state->first_unreadable_pid;
	memcpy(result->first_unreadable_comm, state->first_unreadable_comm, sizeof(result->first_unreadable_comm));
	result->pagemap = (enum pagemap_mode)mode;
}

int snapshot_capture(const struct capture_options *options, struct capture_result *result,
		     struct error *error)
{
	const char *proc_root = options->proc_root ? options->proc_root : "/proc";
	struct capture_options resolved = *options;
	resolved.proc_root = proc_root;
	struct capture_state state;
	capture_state_init(&state, &resolved, error);
	struct capture_target out = { .fd = -1, .file = { .fd = -1 } };
	struct pid_list pids = { 0 };
	int mode = -1;

	memset(result, 0, sizeof(*result));
	state.proc_fd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (state.proc_fd < 0) {
		error_set(error, proc_root, 0, "%s", strerror(errno));
		goto done;
	}
	if (resolve_output(options->output, options->compress, state.writer.mtime, &out, error) < 0)
		goto done;
	int missing = 0;
	if (choose_processes(state.proc_fd, &resolved, &pids, &state.files[0], &missing) < 0) {
		error_set(error, proc_root, 0, "cannot list processes: %s", strerror(errno));
		goto done;
	}
	if (missing) {
		error_set(error, NULL, 0, "capture: no process %d in %s (--pid/--tree): nothing written", missing,
			  proc_root);
		goto done;
	}
	if (open_output(&out, error) < 0) {
		/* a file that cannot be made is an output failure (status 2,
		 * docs/architecture.md); a terminal for stdout is a usage error */
		if (!out.to_stdout)
			error_mark_internal(error);
		goto done;
	}
	state.writer.path = out.final;
	if (open_archive(&state, &out) < 0 || (mode = capture_all(&state, &pids)) < 0 ||
	    close_archive(&state) < 0 || publish_output(&out, error) < 0) {
		/* the output failed unless the input said why (no process, /proc refused) */
		if (state.writer.output_failed || mode >= 0)
			error_mark_internal(error);
		mode = -1;
		goto done;
	}
	tell_result(&state, out.final, mode, result);
done:
	if (mode < 0)
		discard_output(&out);
	if (state.writer.archive)
		archive_write_free(state.writer.archive);
	if (state.writer.entry)
		archive_entry_free(state.writer.entry);
	capture_state_release(&state);
	free(pids.pids);
	return mode < 0 ? -1 : 0;
}
