/*
 * inputs/internal.h - private to inputs/: the string arena, error helpers,
 * the per-member parsers and the snapshot builder that containers feed.
 *
 * Every container (directory, tar, live /proc) only has to hand members to
 * a builder through struct member_sink; parsing and validation live in one
 * place whatever the bytes came from.
 */
#ifndef PTSCOPE_INPUTS_INTERNAL_H
#define PTSCOPE_INPUTS_INTERNAL_H

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include "snapshot.h"

/* ---- arena: bump allocator for strings; interned so equal paths share ---- */
struct arena;
struct arena *arena_create(void);
void arena_destroy(struct arena *arena);
/* Copy s[0..length) NUL-terminated; equal strings return the same pointer.
 * Never NULL: the arena allocates through base/alloc.h. */
const char *arena_intern(struct arena *arena, const char *s, size_t length);
/* Copy words[0..count) 8-byte aligned; equal runs of words return the same
 * pointer (a VMA's counters, struct vma).  NULL when count is 0. */
const uint64_t *arena_intern_words(struct arena *arena, const uint64_t *words, size_t count);

/* Growing buffers, whole-file reads and allocation: the base layer. */
#include "base/alloc.h"
#include "base/array.h"
#include "base/file.h"
#include "base/hash.h"

/* ---- errors ---- */
/* Fill error with "SOURCE: MEMBER:LINE: message" (LINE omitted when 0). */
void input_error_set(struct error *error, const char *source, const char *member,
		     unsigned long line, const char *format, ...)
	__attribute__((format(printf, 5, 6)));

/* Where a parser reports a problem. */
struct parse_place {
	const char *source, *member;
	struct error *error;
};
int parse_fail(const struct parse_place *place, unsigned long line, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

/* Decimal or hex number parsing with overflow checks; *end gets the stop. */
bool parse_u64(const char *s, const char *limit, uint64_t *value, const char **end);
bool parse_hex_u64(const char *s, const char *limit, uint64_t *value, const char **end);

/* ---- line parsers (proc_lines.c): the readers and capture's live walk ---- */
static inline bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* Field lines pad their numbers with up to 20 spaces and headers pad the
 * path to column 73: runs of 8 spaces are skipped a word at a time. */
static inline const char *skip_spaces(const char *p, const char *limit)
{
	const uint64_t spaces = UINT64_C(0x2020202020202020);
	uint64_t word;
	while (limit - p >= 8 && (memcpy(&word, p, 8), word == spaces))
		p += 8;
	while (p < limit && is_space(*p))
		p++;
	return p;
}

/* An smaps VMA header line; path points into the line (length 0: anonymous). */
struct smaps_header {
	uint64_t start, end, offset, inode;
	uint32_t dev_major, dev_minor;
	char perms[4];
	const char *path;
	size_t path_length;
};
enum smaps_header_problem {
	SMAPS_HEADER_OK, SMAPS_HEADER_BAD_RANGE, SMAPS_HEADER_BACKWARDS, SMAPS_HEADER_TOO_LARGE,
	SMAPS_HEADER_BAD_PERMS, SMAPS_HEADER_BAD_OFFSET, SMAPS_HEADER_BAD_DEVICE, SMAPS_HEADER_BAD_INODE,
};
/* The line [p, limit) without its newline; the first problem found, in the
 * order of the fields (a field line "Name: ..." is SMAPS_HEADER_BAD_RANGE). */
enum smaps_header_problem smaps_header_parse(const char *p, const char *limit, struct smaps_header *h);
/* The words after "VmFlags:", a bit per enum vma_flag (VMF_OTHER: any unknown). */
uint64_t smaps_vm_flags(const char *p, const char *limit);
/* The same of a line as the kernel prints it (" rd wr ... \n"), read to its
 * newline: the byte after it, or NULL for another shape. */
const char *smaps_vm_flags_line(const char *p, const char *end, uint64_t *flags);
/* /proc/PID/stat's pid, ppid and comm (pointing into the text); 0, or -1
 * with place->error set (line 1). */
struct stat_line {
	int pid, ppid;
	const char *comm;
	size_t comm_length;
};
int stat_line_parse(const char *text, size_t size, struct stat_line *s, const struct parse_place *place);

/* ---- the users member (users.c reads it, users_capture.c writes it) ---- */
/* A name of 1..255 bytes; at most USERS_MAX_IDS ids of a kind, a bound
 * against a hostile or absurd capture, far above any real host's. */
#define USERS_NAME_MAX 255
#define USERS_MAX_IDS 65536
/* Distinct ids, in the order seen (at most USERS_MAX_IDS are kept). */
struct id_set {
	uint32_t *ids;
	size_t count;
};
void id_set_add(struct id_set *set, uint32_t id);
/* The ids of a PID/status line "Uid:" or "Gid:" (KEY with its colon). */
void id_set_add_status(struct id_set *set, const char *status, size_t length, const char *key);
/* The member's text: "user ID NAME" and "group ID NAME" lines, in id order,
 * for the ids this host names (the sets are sorted). */
void users_member_text(struct id_set *uids, struct id_set *gids, struct buffer *out);
/* Into snapshot->user_names / group_names, sorted; a bad line is refused. */
int parse_users(const char *text, size_t size, struct snapshot *snapshot, const struct parse_place *place);

/* ---- parsers: each takes one whole member; 0 or -1 with place->error set ---- */
/* Appends VMAs and unknown fields to the arrays it is given. */
struct vma_array { struct vma *items; size_t count, capacity, populated_bytes; };
struct extra_array { struct smaps_extra *items; size_t count, capacity; };
int parse_smaps(const char *text, size_t size, struct arena *arena, struct vma_array *vmas,
		struct extra_array *extras, const struct parse_place *place);
/*
 * The same parser fed in pieces: every complete line is parsed as it
 * arrives and only a line cut by a piece's end is kept (parser->tail).
 * feed and end return 0 or -1 with place->error set; after -1 from feed
 * the parser is finished (its tail freed) and end is not called.
 * parse_smaps is begin, one feed, end.
 */
struct smaps_parser {
	struct arena *arena;
	struct vma_array *vmas;
	struct extra_array *extras;
	const struct parse_place *place;
	unsigned long line;
	struct vma *current;
	uint64_t kb[SMAPS_FIELD_COUNT]; /* the current VMA's counters, kept on finishing it */
	uint32_t nonzero;               /* a bit per field of kb that is not 0 */
	int last_field;
	/* the field expected after last_field (follows[last_field + 1]):
	 * learned from the lines seen, so a kernel's order is guessed right */
	signed char follows[SMAPS_FIELD_COUNT + 1];
	/* the current VMA's fields in the order read, and the previous VMA's:
	 * a VMA's lines are read against the previous one's (vma_body) */
	signed char order[SMAPS_FIELD_COUNT], expect[SMAPS_FIELD_COUNT];
	int order_count, expect_count;
	bool body;              /* a VMA header was just read: its body is next */
	size_t vma_first;       /* this member's first VMA in vmas */
	struct buffer tail;     /* the incomplete last line so far */
	const char *last_path;  /* the previous VMA's interned path */
	size_t last_path_length;
};
/*
 * The longest line an smaps can hold.  Field lines ("Rss: N kB", VmFlags'
 * at most 64 two-letter codes) are short; the longest is a VMA header:
 * start-end (2 x 16 hex digits and '-'), perms (4), offset (16 hex), dev
 * (3 + 5 hex digits of a 12:20-bit number and ':'), inode (20 decimal
 * digits), their spaces, padding to column 73 (show_map_vma's seq_pad):
 * at most 128 bytes; then the path.  A path is at most PATH_MAX (4096)
 * bytes with its NUL, " (deleted)" included, and seq_file escapes only
 * "\n" in it, as the four bytes "\012": 4 x 4095 = 16380 bytes.  Names of
 * anonymous VMAs ("[anon:NAME]", NAME at most 80 bytes) are shorter.
 * 128 + 16380 = 16508 fits in 16 KiB + 128 bytes.
 */
#define SMAPS_LINE_MAX_BYTES (16 * 1024 + 128)
void smaps_parser_begin(struct smaps_parser *parser, struct arena *arena, struct vma_array *vmas,
			struct extra_array *extras, const struct parse_place *place);
int smaps_parser_feed(struct smaps_parser *parser, const char *text, size_t size);
int smaps_parser_end(struct smaps_parser *parser);
int parse_status(const char *text, size_t size, struct process_status *status,
		 const struct parse_place *place);
int parse_stat(const char *text, size_t size, struct arena *arena, int *pid, int *ppid,
	       const char **comm, const struct parse_place *place);
/* The state letter and the code and stack addresses of a stat line that
 * parse_stat accepted (info --verify checks them against smaps). */
void parse_stat_extra(const char *text, size_t size, struct process *process);
const char *parse_cmdline(const char *text, size_t size, struct arena *arena);
/* The path of /proc/PID/cgroup (v2 "0::PATH" first), interned; NULL if none. */
const char *parse_cgroup(const char *text, size_t size, struct arena *arena);
int parse_meminfo(const char *text, size_t size, struct arena *arena,
		  struct meminfo_entry **entries, size_t *count, const struct parse_place *place);
int parse_info(const char *text, size_t size, struct snapshot_info *info,
	       const struct parse_place *place);
/* /proc/slabinfo (version 2.x) into caches; the slub member onto them. */
int parse_slabinfo(const char *text, size_t size, struct arena *arena,
		   struct slab_cache **caches, size_t *count, const struct parse_place *place);
int parse_slub(const char *text, size_t size, struct snapshot *snapshot,
	       const struct parse_place *place);
/* Binary members: check the shape of records already in an aligned array. */
int parse_pagemap(const struct pagemap_record *records, size_t size,
		  const struct parse_place *place);
/* PID/pmd_mapped: {start, end} records, page-aligned, ascending, apart;
 * appended to snapshot->pmd_ranges, *first and *count say where. */
int parse_pmd_ranges(const void *data, size_t size, struct snapshot *snapshot, size_t *first,
		     size_t *count, const struct parse_place *place);
/* One record of the member kpages, little-endian on disk (format 1's, and
 * format 2's before kpage_runs). */
struct kpage_record {
	uint64_t pfn, mapcount, flags;
};
/* A pagemap record is well formed: at least low (the record before's
 * address + 1, 0 for the first), page-aligned, present or swapped.
 * check_pagemap_record says why not. */
static inline bool pagemap_record_fits(const struct pagemap_record *record, uint64_t low)
{
	return record->vaddr >= low && !(record->vaddr & 0xfff) &&
	       (record->entry & (PAGEMAP_PRESENT | PAGEMAP_SWAPPED));
}
/* One record of each, against the one before it (NULL for the first):
 * what parse_pagemap checks, and the streamed members. */
int check_pagemap_record(const struct pagemap_record *record, const struct pagemap_record *previous,
			 size_t index, const struct parse_place *place);
int check_kpage_record(const struct kpage_record *record, const struct kpage_record *previous, size_t index,
		       const struct parse_place *place);

/* Word `word` (0: start, 1: end) of span `index`. */
static inline uint64_t span_word(const void *spans, size_t span_bytes, size_t index, size_t word)
{
	uint64_t value;
	memcpy(&value, (const char *)spans + index * span_bytes + word * sizeof(value), sizeof(value));
	return value;
}

/* The first address of [start, end) outside every span of an ascending
 * array whose items begin {uint64_t start, end} (struct vma, capture's
 * vma_span), or end when there is none; *v is a cursor over the spans,
 * moved on, so ranges that ascend are checked in one pass.  A range may
 * run across neighbouring spans.  What the builder checks of a member's PMD
 * ranges, and the capture of a process read while it changed. */
static inline uint64_t range_outside_spans(const void *spans, size_t count, size_t span_bytes, size_t *v,
					   uint64_t start, uint64_t end)
{
	for (uint64_t at = start; at < end; at = span_word(spans, span_bytes, *v, 1)) {
		while (*v < count && span_word(spans, span_bytes, *v, 1) <= at)
			++*v;
		if (*v == count || at < span_word(spans, span_bytes, *v, 0))
			return at;
	}
	return end;
}

_Static_assert(offsetof(struct vma, start) == 0 && offsetof(struct vma, end) == 8, "a VMA begins {start, end}");

/* ---- distinct pagemap contents (pagemap_store.c) ---- */
/* Feed one process's records, ascending, in as many calls as convenient. */
int pagemap_feed_begin(struct snapshot *snapshot, struct process *p);
int pagemap_feed(struct snapshot *snapshot, struct process *p, const struct pagemap_record *records,
		 size_t count);
/* The same, checking each record as it is kept: stops at the first that
 * does not fit (pagemap_record_fits against low, then the record before's
 * address + 1) or lies at or above high; *taken says how many were kept. */
int pagemap_feed_fitting(struct snapshot *snapshot, struct process *p, const struct pagemap_record *records,
			 size_t count, uint64_t low, uint64_t high, size_t *taken);
int pagemap_feed_end(struct snapshot *snapshot, struct process *p);
/* Once read: the contents' arrays cut to what they hold (capacities kept true). */
void pagemap_store_trim(struct snapshot *snapshot);
/* Bytes the distinct contents and their index hold (capacities). */
uint64_t pagemap_kept_bytes(const struct snapshot *snapshot);
/* A dropped process gives its contents back. */
void pagemap_release_process(struct snapshot *snapshot, struct process *p);
/* A chunk's count records (ascending) as extents in out (count of them at
 * most): the encoding contents are kept in; how many.  The extents' hash,
 * which finds equal contents (then compared extent by extent). */
uint32_t pagemap_extents_encode(const struct pagemap_record *records, uint32_t count, struct pagemap_extent *out);
uint64_t pagemap_extents_hash(const struct pagemap_extent *extents, uint32_t count);
/* Format 2's pagemap_chunks: one chunk's records (addresses within the
 * chunk, ascending), kept once like a chunk of a pagemap member; its content. */
uint32_t pagemap_add_chunk(struct snapshot *snapshot, const struct pagemap_record *records, uint32_t count);
/* Format 2's PID/pagemap_runs: a run as read, its content a chunk's position
 * in pagemap_chunks until pagemap_resolve_runs. */
void pagemap_push_run(struct process *p, const struct pagemap_run *run);
/* p's runs from chunk positions to contents (content_of_chunk[position]),
 * counting references; -1 with *bad_run set when a run names a position at
 * or past chunk_count (then the runs are left as read). */
int pagemap_resolve_runs(struct snapshot *snapshot, struct process *p, const uint32_t *content_of_chunk,
			 size_t chunk_count, size_t *bad_run);

/* ---- format 2's page records (pagemap_codec.c, docs/snapshot-format.md) ---- */
#define PAGEMAP_CODEC_PAGE_SHIFT 12     /* records are 4 KiB-aligned whatever the page size */
#define PAGEMAP_CODEC_PAGES 512         /* 4 KiB places in a 2 MiB chunk */
/* a run count (2 bytes) and per run four varints: 2 + 2 + 10 + 10 bytes at most */
#define PAGEMAP_CHUNK_MAX_ENCODED_BYTES (2 + PAGEMAP_CODEC_PAGES * 24)
/* One record of PID/pagemap_runs, little-endian: chunks [vaddr, vaddr +
 * length * 2 MiB) hold the chunks chunk .. chunk + length - 1 of pagemap_chunks. */
struct pagemap_run_record {
	uint64_t vaddr, length, chunk;
};
/* count (1..512) records, their vaddr within the chunk and 4 KiB-aligned,
 * ascending: the bytes written to out (at most PAGEMAP_CHUNK_MAX_ENCODED_BYTES). */
size_t pagemap_chunk_encode(const struct pagemap_record *records, uint32_t count, unsigned char *out);
/* The other way, checking everything: 0, or -1 with the problem said. */
int pagemap_chunk_decode(const unsigned char *in, size_t size, struct pagemap_record *records,
			 uint32_t *count, char *problem, size_t problem_size);

/* Format 2's kpage_runs: blocks of at most KPAGE_BLOCK_RUNS runs (a 4-byte
 * length, then varints).  A run is the PFNs skipped since the previous run's
 * end, its length - 1, its kpagecount, and its kpageflags XOR the previous
 * run's; the previous run may be in the block before (state carries over). */
#define KPAGE_BLOCK_RUNS 1024
/* a run count (2 bytes), per run varints of 55, 55, 31 and 64 bits: 8 + 8 + 5 + 10 */
#define KPAGE_BLOCK_MAX_ENCODED_BYTES (2 + KPAGE_BLOCK_RUNS * 31)
struct kpage_codec {
	uint64_t next_pfn;              /* the previous run's end (0 before the first) */
	uint64_t flags;                 /* the previous run's kpageflags */
};
/* count (1..KPAGE_BLOCK_RUNS) runs, ascending and apart: the bytes written. */
size_t kpage_block_encode(const struct kpage_run *runs, size_t count, struct kpage_codec *state, unsigned char *out);
/* The other way, checking every bound: 0, or -1 with the problem said. */
int kpage_block_decode(const unsigned char *in, size_t size, struct kpage_codec *state, struct kpage_run *runs,
		       size_t *count, char *problem, size_t problem_size);
/* Append the PFNs of run to the snapshot's kpage runs (ascending, after the
 * last), joining it to the last run when it continues it with the same
 * kpagecount and kpageflags; *capacity is the array's. */
void kpage_push_run(struct snapshot *snapshot, const struct kpage_run *run, size_t *capacity);

/* ---- builder: members in any order -> struct snapshot ---- */
struct snapshot_builder;
struct snapshot_builder *builder_create(const char *source, const struct read_options *options);
/* name is the member name relative to the snapshot root ("1234/smaps", "meminfo"). */
int builder_add_member(struct snapshot_builder *builder, const char *name,
		       const void *data, size_t size, struct error *error);
/*
 * How a container should hand over a member: pagemaps are most of a
 * snapshot's bytes, so they are read straight into memory the builder then
 * owns (no copy), or only sized when the reader wants no records.
 */
enum member_use { MEMBER_IGNORE, MEMBER_COPY, MEMBER_ADOPT, MEMBER_SIZE_ONLY, MEMBER_STREAM };
enum member_use builder_member_use(const struct snapshot_builder *builder, const char *name);
/* The most bytes such a member can hold (containers refuse more before reading). */
uint64_t builder_member_max_bytes(const char *name);
/* MEMBER_ADOPT: data came from malloc and is the builder's now, even on error. */
int builder_adopt_member(struct snapshot_builder *builder, const char *name, void *data,
			 size_t size, struct error *error);
/*
 * MEMBER_STREAM (smaps, pagemap, kpages): the member in pieces of any size
 * as they are read, parsed as they arrive, so that memory follows its longest
 * line or record and what is kept, not its size (a 100 KB archive can hold a
 * 3 GiB smaps, or 3 GiB of zeros as kpages).  begin and
 * feed return 0 (go on), 1 (the rest is not wanted: skip it) or -1 (the read
 * fails); end returns 0 or -1.  Call end after the last piece unless begin
 * or feed returned nonzero.
 */
int builder_stream_begin(struct snapshot_builder *builder, const char *name, struct error *error);
int builder_stream_feed(struct snapshot_builder *builder, const void *data, size_t size,
			struct error *error);
int builder_stream_end(struct snapshot_builder *builder, struct error *error);
/* MEMBER_SIZE_ONLY: the member's size, its bytes never read. */
int builder_size_member(struct snapshot_builder *builder, const char *name, uint64_t size,
			struct error *error);

/* How far a container has read (bytes of the file), for the memory check's
 * estimate of the whole; total 0 when unknown. */
void builder_set_position(struct snapshot_builder *builder, uint64_t done, uint64_t total);

/* Check cross-member rules and hand over the snapshot (builder is freed either way). */
int builder_finish(struct snapshot_builder *builder, struct snapshot **result,
		   struct error *error);
void builder_abort(struct snapshot_builder *builder);

/*
 * What a kernel can produce: counters beyond these are refused where they are
 * read, with file and line, so that no sum or product downstream can wrap.
 * No address space is larger than 5-level paging's 2^57 bytes, so no VMA and
 * no kB counter (status, meminfo, smaps) is either; the kernel keeps a page's
 * mapcount in an int; page sizes run from 4 KiB to 1 MiB (hexagon's 256 KiB
 * is the largest Linux has had).  Totals over a snapshot are checked against
 * KERNEL_MAX_TOTAL_BYTES in the builder.
 */
#define KERNEL_MAX_SPAN_BYTES   (UINT64_C(1) << 57)
#define KERNEL_MAX_KB           (KERNEL_MAX_SPAN_BYTES >> 10)
#define KERNEL_MAX_MAPCOUNT     UINT64_C(0x7fffffff)
#define KERNEL_MIN_PAGE_BYTES   UINT64_C(4096)
#define KERNEL_MAX_PAGE_BYTES   (UINT64_C(1) << 20)
#define KERNEL_MAX_TOTAL_BYTES  (UINT64_C(1) << 62)

/* Largest member a reader accepts: guards against absurd tar headers. */
#define MEMBER_MAX_BYTES (UINT64_C(4) << 30)

/* ---- containers ---- */
int read_directory(const char *path, struct snapshot_builder *builder, struct error *error);
int read_archive(const char *path, struct snapshot_builder *builder, struct error *error);
/* libarchive's archive_read_open_filename for a regular file, through a
 * mapping instead of read() (mapped_file.c); anything else opened by it. */
struct archive;
int archive_open_mapped(struct archive *archive, const char *path, size_t block_bytes);
int read_live(const char *proc_root, struct snapshot_builder *builder, struct error *error);
/* The walk of a capture with every member handed to sink instead of a tar
 * (inputs/capture.c; read_live, inputs/live.c, hands them to a builder). */
typedef int capture_sink(void *data, const char *name, const void *bytes, size_t size, struct error *error);
int capture_to_sink(const char *proc_root, capture_sink *sink, void *sink_data, struct error *error);


/* ---- bench's subject: inputs/layout.c (ptscope's side), inputs/subject.c
 * (the subject's, in ptscope-subject or a child of ptscope) ---- */
#define LAYOUT_PAGE_BYTES 4096u
#define LAYOUT_WINDOW_BYTES (UINT64_C(2) << 20)
#define LAYOUT_WRITE_BIT (UINT64_C(1) << 63)   /* in a layout_vma's pages: written */
enum { SUBJECT_PATH_BYTES = 4096, SUBJECT_MOST_VMAS = 1 << 20 };
/* The subject's first word: it runs (status 0) or why not. */
struct subject_hello {
	int status;
	char message[1024];
};
/* One VMA as sent to the subject, followed by path_bytes of path and
 * page_count uint64_t pages. */
struct subject_wire_vma {
	uint64_t start, bytes, offset, page_count;
	int32_t prot;
	uint8_t shared, anonymous, huge, unused;
	uint32_t path_bytes;
};
struct subject_request {
	size_t runs, warmup;
	int cpu;
	bool count;                     /* also count one fork by tracepoints */
};
struct subject_reply {
	int status;
	char message[1024];
	struct latency_result result;
	struct trace_result trace;
};
/* In the subject: read the layout (0, or -1: cut short or out of bounds). */
int subject_receive(int from, struct layout *layout);
/* Build it and tell ptscope how it went and where each VMA is: 0, or -1. */
int subject_build_and_tell(struct layout *layout, int to);
/* Time forks on request until ptscope lets go; never returns. */
void subject_serve(int from_parent, int to_parent) __attribute__((noreturn));
/* ptscope-subject's whole work (fds from and to ptscope): its exit status. */
int subject_main(int from, int to);

#endif
