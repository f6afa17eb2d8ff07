/*
 * inputs/snapshot.h - the input side's one door.
 *
 * A snapshot is everything the cost model needs about one moment of one
 * machine (see docs/snapshot-format.md).  Readers load a snapshot
 * from a directory, a tar or compressed tar, an smemcap capture, or the live
 * /proc into one in-memory struct snapshot; the writer (capture) produces the
 * portable form.  Everything downstream reads only this header.
 *
 * Memory: all processes' VMAs sit in one array (struct vma, 88 bytes each),
 * their counters and all strings in one arena, interned, pagemap records
 * kept once per distinct content.  Nothing is allocated per smaps line.
 */
#ifndef PTSCOPE_INPUTS_SNAPSHOT_H
#define PTSCOPE_INPUTS_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "base/array.h"
#include "base/error.h"

/* pagemap entry bits (Documentation/admin-guide/mm/pagemap.rst) */
#define PAGEMAP_PFN_MASK        ((UINT64_C(1) << 55) - 1)
#define PAGEMAP_SOFT_DIRTY      (UINT64_C(1) << 55)
#define PAGEMAP_EXCLUSIVE       (UINT64_C(1) << 56)
#define PAGEMAP_FILE_OR_SHARED  (UINT64_C(1) << 61)
#define PAGEMAP_SWAPPED         (UINT64_C(1) << 62)
#define PAGEMAP_PRESENT         (UINT64_C(1) << 63)

/* /proc/kpageflags bits used by the model */
#define KPF_ANON            12
#define KPF_COMPOUND_HEAD   15
#define KPF_COMPOUND_TAIL   16
#define KPF_HUGE            17
#define KPF_KSM             21
#define KPF_THP             22
#define KPF_ZERO_PAGE       24

/* VmFlags two-letter codes, one bit each (fs/proc/task_mmu.c show_smap_vma_flags) */
enum vma_flag {
	VMF_RD, VMF_WR, VMF_EX, VMF_SH, VMF_MR, VMF_MW, VMF_ME, VMF_MS,
	VMF_GD, VMF_PF, VMF_DW, VMF_LO, VMF_IO, VMF_SR, VMF_RR, VMF_DC,
	VMF_DE, VMF_AC, VMF_NR, VMF_HT, VMF_SF, VMF_NL, VMF_AR, VMF_WF,
	VMF_DD, VMF_MM, VMF_HG, VMF_NH, VMF_MG, VMF_UM, VMF_UW, VMF_SS,
	VMF_SL, VMF_BT, VMF_MT, VMF_LF, VMF_OTHER, VMF_COUNT
};
/* The two-letter VmFlags code of each flag, in enum order (fs/proc/task_mmu.c);
 * one table for the smaps parser and the profiles' copies-vmflags
 * (inputs/parse_smaps.c). */
extern const char vma_flag_codes[VMF_OTHER][3];
#define VMA_HAS_FLAG(v, f) (((v)->vm_flags >> (f)) & 1)

/* smaps counters in kB, in the order the model uses them */
enum smaps_field {
	SMAPS_SIZE, SMAPS_KERNEL_PAGE_SIZE, SMAPS_MMU_PAGE_SIZE, SMAPS_RSS,
	SMAPS_PSS, SMAPS_PSS_DIRTY, SMAPS_PSS_ANON, SMAPS_PSS_FILE, SMAPS_PSS_SHMEM,
	SMAPS_SHARED_CLEAN, SMAPS_SHARED_DIRTY, SMAPS_PRIVATE_CLEAN,
	SMAPS_PRIVATE_DIRTY, SMAPS_REFERENCED, SMAPS_ANONYMOUS, SMAPS_KSM,
	SMAPS_LAZY_FREE, SMAPS_ANON_HUGE_PAGES, SMAPS_SHMEM_PMD_MAPPED,
	SMAPS_FILE_PMD_MAPPED, SMAPS_SHARED_HUGETLB, SMAPS_PRIVATE_HUGETLB,
	SMAPS_SWAP, SMAPS_SWAP_PSS, SMAPS_LOCKED, SMAPS_THP_ELIGIBLE,
	SMAPS_FIELD_COUNT
};

/* The smaps key of each field ("Rss", "Pss_Dirty", ...). */
extern const char *const smaps_field_names[SMAPS_FIELD_COUNT];

/*
 * A VMA costs 88 bytes and its counters: a VMA keeps only its nonzero smaps
 * counters, in field order, in words shared by every VMA with the same
 * values (interned in the snapshot's arena: a library mapped alike by every
 * process holds one copy).  Read them with vma_kb.
 */
struct vma {
	uint64_t start, end;            /* [start, end) virtual addresses */
	uint64_t offset;                /* file offset in bytes */
	uint64_t inode;
	const char *path;               /* "" for anonymous; arena-owned */
	uint64_t vm_flags;              /* bit per enum vma_flag */
	const uint64_t *counters;       /* the held counters in field order (vma_kb) */
	uint32_t counter_fields;        /* bit per enum smaps_field held in counters; a field
					 * not held is 0 (readers hold only nonzero ones) */
	uint32_t present_fields;        /* bit per enum smaps_field seen (0 or not) */
	uint32_t dev_major, dev_minor;
	uint32_t extra_first, extra_count; /* unknown fields, in snapshot->extras */
	char perms[5];                  /* "r-xp", NUL-terminated */
};

/* The bits set in x.  Not __builtin_popcount: without -mpopcnt (Debian's
 * x86-64 baseline has no POPCNT) that is a call into libgcc, and the model
 * reads counters hundreds of millions of times. */
static inline unsigned bits_set(uint32_t x)
{
	x = x - ((x >> 1) & UINT32_C(0x55555555));
	x = (x & UINT32_C(0x33333333)) + ((x >> 2) & UINT32_C(0x33333333));
	x = (x + (x >> 4)) & UINT32_C(0x0f0f0f0f);
	return (x * UINT32_C(0x01010101)) >> 24;
}

/* A counter of v in kB; 0 when absent (present_fields tells absent from 0). */
static inline uint64_t vma_kb(const struct vma *v, enum smaps_field field)
{
	uint32_t bit = UINT32_C(1) << field;
	return (v->counter_fields & bit) ? v->counters[bits_set(v->counter_fields & (bit - 1))] : 0;
}

/* An smaps line this parser does not know, kept by name. */
struct smaps_extra {
	const char *name;               /* arena-owned */
	uint64_t value;                 /* in kB when the line had a kB unit */
};

struct pagemap_record {
	uint64_t vaddr;
	uint64_t entry;                 /* raw /proc/PID/pagemap word */
};

/* kpagecount and kpageflags of consecutive PFNs that share both: the member
 * kpages (a record per PFN) and format 2's kpage_runs are kept alike, as
 * runs, so memory follows what is distinct, not the PFNs. */
struct kpage_run {
	uint64_t pfn, pages, mapcount, flags;
};

/* [start, end) of a process's address space mapped by PMD (or larger)
 * leaves: member PID/pmd_mapped, from PAGEMAP_SCAN's PAGE_IS_HUGE. */
struct address_range {
	uint64_t start, end;
};

/*
 * Pagemap records are kept once per distinct content, not once per mapping
 * (docs: README "Reading snapshots").  A chunk is the 2 MiB of address space
 * one x86_64 PTE page maps; the records of one process in one chunk are its
 * content.  Processes that map the same pages at the same places (a database
 * and its backends over one segment) hold the same contents, so a snapshot
 * keeps one copy of each with a count of its holders, and each process keeps
 * runs of chunks whose contents were numbered consecutively.
 */
#define PAGEMAP_CHUNK_SHIFT 21
#define PAGEMAP_CHUNK_BYTES (UINT64_C(1) << PAGEMAP_CHUNK_SHIFT)

/* A content is kept as extents: runs of records at consecutive pages whose
 * entries are equal (step 0) or ascend by one (step 1: the PFN's next page),
 * a lone record an extent of one; 16 bytes, so never more than its records.
 * Encoded greedily from the first record (one encoding a content). */
struct pagemap_extent {
	uint64_t entry;                 /* the first record's */
	uint32_t offset;                /* the first record's vaddr within the chunk */
	uint16_t length;                /* records, 1 .. 512 */
	uint16_t step : 1;              /* 0 or 1: added to the entry from one record to the next */
	uint16_t rank : 15;             /* the content's records before the first */
};

struct pagemap_content {
	size_t first;                   /* its records' place among all contents' (record_pfns) */
	size_t first_extent;            /* extents: snapshot->content_extents[first_extent ..] */
	uint32_t count;                 /* 1 .. 512 (records are page-aligned, ascending) */
	uint32_t extent_count;          /* 1 .. count */
	bool without_pfns;              /* no present record with a PFN other than 0, as the
					   store found (false: look at the records) */
	uint64_t references;            /* (process, chunk) pairs holding it */
};

struct pagemap_run {
	uint64_t chunk;                 /* vaddr >> PAGEMAP_CHUNK_SHIFT of the first chunk */
	uint64_t length;                /* chunks chunk .. chunk + length - 1, all populated */
	uint32_t content;               /* chunk + i holds content + i */
};

/* /proc/PID/status values in kB; has_status says whether the member existed. */
struct process_status {
	uint64_t vm_pte_kb, vm_rss_kb, rss_anon_kb, rss_file_kb, rss_shmem_kb;
	uint64_t vm_swap_kb;
	bool has_vm_pte;
	bool has_uid;
	uint32_t uid;                   /* real uid, the first of "Uid:" */
};

struct process {
	int pid, ppid;
	const char *comm;               /* from stat, without parentheses */
	const char *cmdline;            /* NULs turned into spaces */
	char state;                     /* stat's state letter (R, S, Z, ...) */
	uint64_t start_code, end_code, start_stack; /* stat fields 26-28 (0: not shown) */
	const char *cgroup;             /* PID/cgroup: the v2 path ("0::PATH"), else the
					 * first hierarchy's; NULL when not captured */
	bool has_status;
	struct process_status status;
	struct vma *vmas;               /* points into snapshot->vmas */
	size_t vma_count;
	struct pagemap_run *runs;       /* ascending chunks; NULL when absent */
	size_t run_count;
	size_t pagemap_count;           /* records, summed over its chunks */
	bool has_pagemap;
	bool has_pmd_map;               /* the capture asked which ranges PMDs map */
	size_t pmd_first, pmd_count;    /* its ranges: snapshot->pmd_ranges[pmd_first ..] */
};

enum pagemap_mode { PAGEMAP_NONE, PAGEMAP_PRESENT_ONLY, PAGEMAP_PFN, PAGEMAP_MODE_COUNT };
/* The names snapshot.info uses for them (docs/snapshot-format.md), one table
 * for the reader, the capture, `info` and the reports (inputs/parse_proc.c). */
extern const char *const pagemap_mode_names[PAGEMAP_MODE_COUNT];

/* What a capture set out to read: every process of the machine, or a part
 * (--pid, --tree).  Older snapshots and smemcap do not say. */
enum capture_scope { SCOPE_UNSTATED, SCOPE_ALL, SCOPE_PART };

/* The snapshot formats this ptscope reads: 1 (PID/pagemap records) and 2
 * (pagemap_chunks and PID/pagemap_runs); captures write the newest. */
#define SNAPSHOT_FORMAT_NEWEST 2

struct snapshot_info {
	int format_version;             /* 0 for smemcap captures */
	uint64_t page_size;
	char arch[32], kernel[128], hostname[128], captured_at[40];
	enum pagemap_mode pagemap;
	long processes, skipped;        /* -1 when not stated */
	long changed;                   /* of the skipped, changed during capture; -1: not stated */
	long unreadable;                /* of skipped: refused to a non-root capture; -1 not stated */
	char ptscope_version[32];       /* the ptscope that captured it; "" when not stated */
	enum capture_scope scope;       /* every process, or those --pid/--tree chose */
};

struct meminfo_entry {
	const char *name;
	uint64_t kb;
};

/* One cache of /proc/slabinfo (member "slabinfo", read as root), with the
 * per-CPU state the capture read from /sys/kernel/slab/NAME (member "slub")
 * for the caches the model counts. */
struct slab_cache {
	const char *name;               /* arena-owned */
	uint64_t active_objects, objects, object_bytes, objects_per_slab, pages_per_slab;
	uint64_t active_slabs, slabs;
	bool has_cpu_state;             /* the slub member names this cache */
	uint64_t cpu_slabs;             /* slabs held by CPUs: current and per-CPU partial */
	uint64_t sheaf_capacity;        /* objects per per-CPU sheaf (6.18+; 0: none) */
	uint64_t aliases;               /* other caches merged into this one (slab merging) */
	bool has_active_after;
	uint64_t active_objects_after;  /* active objects read again after the processes */
};

/* A uid or gid and its name on the captured host. */
struct id_name {
	uint32_t id;
	const char *name;
};

struct snapshot {
	char *source;                   /* the path it was read from, for messages */
	struct snapshot_info info;
	char *version;                  /* /proc/version text */
	struct meminfo_entry *meminfo;
	size_t meminfo_count;
	struct process *processes;      /* ascending pid; only non-empty smaps */
	size_t process_count;
	size_t kernel_threads;          /* empty smaps, skipped */
	size_t zombies;                 /* empty smaps and stat state Z or X: exited, unreaped */
	size_t skipped_bad;             /* broken processes dropped by skip_bad */
	const char *first_bad;          /* with skipped_bad: why the first was dropped, else NULL */
	struct vma *vmas;
	size_t vma_count;
	struct smaps_extra *extras;
	size_t extra_count;
	struct slab_cache *slabs;       /* /proc/slabinfo order; NULL when absent */
	size_t slab_count;
	unsigned slab_cpus, slab_nodes; /* from the slub member; 0: not stated */
	struct kpage_run *kpage_runs;   /* ascending, apart; NULL when absent */
	size_t kpage_run_count;
	uint64_t kpage_count;           /* PFNs the runs hold */
	struct address_range *pmd_ranges; /* every process's PMD-mapped ranges, ascending per process */
	size_t pmd_range_count, pmd_range_capacity;
	uint64_t pagemap_bytes;         /* total size of the page-record members (PID/pagemap;
					 * format 2: PID/pagemap_runs and pagemap_chunks) */
	/* distinct chunk contents; a record's vaddr here is its offset in the chunk */
	struct pagemap_content *contents;
	size_t content_count;
	struct pagemap_extent *content_extents;
	size_t content_extent_count;
	size_t content_record_count;    /* records the contents hold (their extents decoded) */
	struct pagemap_index *pagemap_index; /* private: finds equal contents */
	/* the users member: names of the ids the capture saw, ascending id;
	 * NULL when absent (older captures, smemcap) */
	struct id_name *user_names, *group_names;
	size_t user_name_count, group_name_count;
	struct arena *arena;            /* private: owns every string */
};

/* Errors are base's (base/error.h): file "SOURCE: MEMBER", the member's
 * line, "SOURCE: MEMBER:LINE: problem" ready to print after "ptscope: ". */
struct read_options {
	bool skip_bad;                  /* drop a broken process instead of failing */
	bool skip_bad_offered;          /* the command has --skip-bad: a broken process's
					   error says it reads the rest */
	bool progress;                  /* progress on stderr */
	bool pagemap_sizes_only;        /* count pagemap bytes, load no records (info) */
	uint64_t memory_budget_bytes;   /* refuse, saying what it needs, past this (0: no limit) */
};

/* Memory this process may still take: the smaller of MemAvailable and what
 * RLIMIT_AS leaves above its current size (UINT64_MAX when neither says). */
uint64_t memory_available_bytes(void);

/* Load a snapshot: a directory, tar(.gz/.xz/.zst), smemcap capture, or
 * "/proc" / NULL for the live system.  Returns 0, or -1 with *error filled. */
int snapshot_read(const char *path, const struct read_options *options,
		  struct snapshot **result, struct error *error);
void snapshot_free(struct snapshot *snapshot);
/* The processes of S that keep[i] marks, as a snapshot the model reads like
 * any other (report --filter's headline): their VMAs in an array of its own,
 * every other member shared with S, which must outlive it. */
struct snapshot *snapshot_subset(const struct snapshot *snapshot, const bool *keep);
void snapshot_subset_free(struct snapshot *subset);

/* Binary search of snapshot->kpage_runs: the run holding the PFN, or NULL. */
const struct kpage_run *snapshot_find_kpage(const struct snapshot *snapshot, uint64_t pfn);

/* Is vaddr inside one of p's PMD-mapped ranges (has_pmd_map)? */
bool process_pmd_mapped(const struct snapshot *snapshot, const struct process *p, uint64_t vaddr);

/* The VMA of process p that contains vaddr, or NULL. */
const struct vma *process_find_vma(const struct process *p, uint64_t vaddr);

/* Add a process's records (ascending, page-aligned) to the snapshot's
 * distinct contents: what the readers do, for snapshots built in memory
 * (tests).  0, or -1 when out of memory. */
int snapshot_add_pagemap(struct snapshot *snapshot, struct process *p,
			 const struct pagemap_record *records, size_t count);
/* Free the contents, the index and every process's runs. */
void snapshot_release_pagemaps(struct snapshot *snapshot);

/* The first record of p at or above vaddr and below limit: 1 with *record
 * filled (its vaddr absolute), else 0.  O(log runs + log 512). */
int process_next_record(const struct snapshot *snapshot, const struct process *p, uint64_t vaddr,
			uint64_t limit, struct pagemap_record *record);
/* Write the content's records to out (its count of them). */
void pagemap_content_decode(const struct snapshot *snapshot, uint32_t content, struct pagemap_record *out);
/* Reading a content's records from its extents, none decoded (inline: the
 * model's passes call these for every segment). */
static inline uint64_t pagemap_extent_last(const void *extent)   /* its last record's offset */
{
	const struct pagemap_extent *e = extent;
	return e->offset + (uint64_t)(e->length - 1) * 4096;
}
static inline uint64_t pagemap_extent_last_rank(const void *extent)   /* its last record's place */
{
	const struct pagemap_extent *e = extent;
	return e->rank + (uint64_t)e->length - 1;
}
/* The extent holding the content's record k (k below its count): no search
 * for the first record or when every extent is one record, else
 * O(log extents). */
static inline const struct pagemap_extent *pagemap_content_extent(const struct snapshot *snapshot, uint32_t content,
								  uint32_t k)
{
	const struct pagemap_content *c = &snapshot->contents[content];
	const struct pagemap_extent *e = snapshot->content_extents + c->first_extent;
	if (k == 0 || c->extent_count == c->count)
		return &e[k];
	return &e[array_lower_bound(e, c->extent_count, sizeof(*e), pagemap_extent_last_rank, k)];
}
/* The content's record k (its vaddr within the chunk; k below its count). */
static inline struct pagemap_record pagemap_content_record(const struct snapshot *snapshot, uint32_t content,
							   uint32_t k)
{
	const struct pagemap_extent *e = pagemap_content_extent(snapshot, content, k);
	k -= e->rank;
	return (struct pagemap_record){ e->offset + (uint64_t)k * 4096, e->entry + k * e->step };
}
/* How many of extent e's records lie below offset (its last at or above offset). */
static inline uint32_t pagemap_extent_records_below(const struct pagemap_extent *e, uint64_t offset)
{
	return offset > e->offset ? (uint32_t)((offset - e->offset + 4095) / 4096) : 0;
}
/* How many of a content's `count` records lie below offset (within the
 * chunk), from e on: the content's first extent, or one whose first record
 * lies below offset.  The extents are walked, not searched: a content has
 * a few, and the callers' offsets mostly lie in e or the next. */
static inline uint32_t pagemap_content_rank_from(const struct pagemap_extent *e, uint32_t count, uint64_t offset)
{
	while (pagemap_extent_last(e) < offset) {
		if (e->rank + e->length == count)
			return count;
		e++;
	}
	return e->rank + pagemap_extent_records_below(e, offset);
}
/* The content's first record at or above offset in the chunk: 1 with
 * *record filled (its vaddr within the chunk), else 0.  O(log extents). */
int pagemap_content_record_from(const struct snapshot *snapshot, uint32_t content, uint64_t offset,
				struct pagemap_record *record);

/* Records [first, end) of a content read one at a time: content_cursor_start
 * (or _from, the extent holding record first known), then
 * content_cursor_next while it gives one (its vaddr within the chunk). */
struct content_cursor {
	const struct pagemap_extent *extent;
	uint32_t at;                    /* the next record's place in the extent */
	uint32_t left;                  /* records still to give */
};
static inline void content_cursor_from(struct content_cursor *cursor, const struct pagemap_extent *extent,
				       uint32_t first, uint32_t end)
{
	cursor->left = end > first ? end - first : 0;
	cursor->extent = extent;
	cursor->at = cursor->left ? first - extent->rank : 0;
}
static inline void content_cursor_start(struct content_cursor *cursor, const struct snapshot *snapshot,
					uint32_t content, uint32_t first, uint32_t end)
{
	content_cursor_from(cursor, end > first ? pagemap_content_extent(snapshot, content, first) : NULL, first, end);
}
static inline bool content_cursor_next(struct content_cursor *cursor, struct pagemap_record *record)
{
	if (!cursor->left)
		return false;
	if (cursor->at == cursor->extent->length) {
		cursor->extent++;
		cursor->at = 0;
	}
	record->vaddr = cursor->extent->offset + (uint64_t)cursor->at * 4096;
	record->entry = cursor->extent->entry + (uint64_t)cursor->at * cursor->extent->step;
	cursor->at++;
	cursor->left--;
	return true;
}

/* The content of p's chunk (vaddr >> PAGEMAP_CHUNK_SHIFT), or -1 if unpopulated. */
long process_chunk_content(const struct process *p, uint64_t chunk);

/*
 * What a reader can check of one process's members against each other (info
 * --verify), beyond the builder's rule that pagemap records lie in VMAs:
 * stat's code range and stack start lie in smaps' VMAs (a capture mixing
 * two programs' files fails this under ASLR), and stat's comm is the
 * program cmdline names.  A broken process: -1 with *error filled; comm
 * and cmdline can differ legitimately (prctl names, scripts), so those are
 * only counted, with the first such pid.
 */
struct verify_result {
	size_t stat_checked;            /* processes whose stat shows code and stack */
	size_t comm_differs;            /* comm is not cmdline's program */
	int first_comm_differs;
};
int snapshot_verify(const struct snapshot *snapshot, struct verify_result *result,
		    struct error *error);

/* The process with this pid, or NULL. */
const struct process *snapshot_find_process(const struct snapshot *snapshot, int pid);

/* The captured host's name for UID, or NULL (not recorded). */
const char *snapshot_user_name(const struct snapshot *snapshot, uint32_t uid);

/* The slabinfo line of a cache, or NULL (no slabinfo, or no such cache). */
const struct slab_cache *snapshot_find_slab(const struct snapshot *snapshot, const char *name);

/* A meminfo value in kB, or 0 when absent. */
uint64_t snapshot_meminfo_kb(const struct snapshot *snapshot, const char *name);

/* ---- perf samples: a kernel profile's text (callgraph --overlay-profile) ---- */

/* One symbol's share of the samples, summed over the lines that name it. */
struct perf_sample {
	char *symbol;                   /* without .isra.N / .constprop.N / .part.N suffixes */
	uint64_t samples;               /* the raw count, when the text gives one */
	bool has_samples;
	double percent;                 /* of what: perf_samples.share_of */
};
/* A call seen in call chains (perf script -g, perf report -g): caller ->
 * callee, in how many samples (perf script: a recursion counts once per
 * sample) and in what share of all samples (perf report gives only that). */
struct perf_call {
	char *caller, *callee;
	uint64_t samples;
	bool has_samples;
	double percent;
};
struct perf_samples {
	struct perf_sample *items;      /* largest share first */
	size_t count;
	struct perf_call *calls;        /* from call chains, else none */
	size_t call_count;
	const char *format;             /* "perf report", "opreport -l", "readprofile", ... */
	const char *share_of;           /* "all samples", "the listed samples", "the total line", ... */
	uint64_t total_samples;         /* counts' denominator (counting shapes), else 0 */
	bool has_total;                 /* shares are of all samples (perf, oprofile, a total
					   line), not only of the listed ones */
	bool has_counts;                /* every line gave a raw count */
	double floor_percent;           /* the smallest share listed: a symbol not listed
					   had less (a cut-off listing says nothing more) */
	uint64_t floor_samples;         /* the smallest count listed (has_counts) */
	size_t sections_ignored;        /* perf event sections after the first */
	bool chains_ignored;            /* perf report --children call graphs: each
					   sample's chain repeats under every function
					   on it, so they are not read */
};

/* Read the text of a kernel profile in any shape it was posted in (perf
 * report --stdio with or without --children, opreport -l, oprofile with an
 * address column, readprofile, "samples symbol" lists: inputs/perf_samples.c).
 * `perf script` output with call chains gives each sample's leaf as its
 * symbol's count and every caller/callee pair of its chain as a call;
 * `perf report --no-children -g` (graph or fractal, caller or callee order)
 * gives each call's share of all samples.
 * Linear in lines.  0, or -1 with *error filled. */
int perf_samples_read(const char *path, struct perf_samples *samples, struct error *error);
void perf_samples_free(struct perf_samples *samples);

/* ---- capture (writer) ---- */
struct capture_options {
	const char *output;             /* file or directory; NULL: default name */
	const int *pids;                /* --pid list */
	size_t pid_count;
	const int *trees;               /* --tree roots */
	size_t tree_count;
	bool no_pagemap;
	bool progress;
	int format;                     /* 1 or 2 (docs/snapshot-format.md); 0: the newest */
	const char *compress;           /* "gz", "xz", "zst", "none"; NULL: from the name, else zst */
	const char *proc_root;          /* "/proc" unless a test says otherwise */
};

struct capture_result {
	char path[4096];                /* where the snapshot was written */
	long processes, skipped;
	long changed;                   /* of the skipped: changed program (exec) while read */
	long unreadable;                /* of skipped: not readable without root */
	int first_unreadable_pid;       /* the first refused process (0: none), named in */
	char first_unreadable_comm[64]; /* messages: as root a refusal is a surprise */
	enum pagemap_mode pagemap;
};

/* The codecs --compress takes, for messages, and whether NAME is one. */
const char *capture_codec_names(void);
bool capture_codec_known(const char *name);

int snapshot_capture(const struct capture_options *options,
		     struct capture_result *result, struct error *error);

/* ---- latencies of the running kernel (bench: inputs/latency.c) ---- */

enum latency_kind {
	LATENCY_FORK, LATENCY_EXEC, LATENCY_SH, LATENCY_FAULT_ANON, LATENCY_FAULT_COW,
	LATENCY_FAULT_FILE, LATENCY_MUNMAP, LATENCY_KIND_COUNT
};
struct latency_kind_info {
	const char *name;               /* "fault-cow": the name in every output */
	const char *group;              /* "fault": the word `ptscope bench WORD` selects it by */
	const char *what;               /* what one run times */
};
extern const struct latency_kind_info latency_kinds[LATENCY_KIND_COUNT];

struct latency_stats {
	size_t runs;
	double min_us, median_us, p90_us, mean_us;   /* p90: nearest rank */
};
struct latency_run {
	double elapsed_us;              /* per fault for the fault kinds */
	double fork_us;                 /* fork: the parent's CPU time in fork() */
	double exit_us;                 /* fork: the child's CPU time, return from fork to exit */
	uint64_t faults;                /* minor faults getrusage counted (fault kinds) */
};
struct latency_result {
	enum latency_kind kind;
	struct latency_stats stats;
	double faults_per_run;          /* fault kinds: minor faults per timed region */
	unsigned pages_per_run;         /* fault kinds: pages the region touches */
	/* fork: its two parts in CPU time, each over the runs (a part's fastest
	 * run need not be the whole's): the parent's in fork(), the child's from
	 * its return from fork to its exit */
	struct latency_stats fork_part, exit_part;
};

/* The machine a measurement ran on, and the process it forked. */
struct latency_machine {
	char kernel[128];               /* uname release */
	char cpu_model[128];            /* /proc/cpuinfo "model name" ("unknown") */
	char allowed_cpus[64];          /* "0-1" */
	int cpu;                        /* pinned to */
	size_t image_vmas;              /* the forked process: its VMAs ... */
	uint64_t image_rss_kb;          /* ... and resident kB (VmRSS) when measured */
};
/* Fill everything but cpu from the running system (and this process). */
void latency_machine_read(struct latency_machine *machine);

/* Pin this process (and the children it forks) to one CPU it may use; cpu
 * -1: the lowest allowed.  A CPU outside the allowed set is bad input. */
int latency_pin(int cpu, int *pinned, struct error *error);
/* The allowed CPUs as a list ("0-1,4"). */
void latency_allowed_cpus(char *buffer, size_t size);
/* warmup runs thrown away, then runs timed. 0, or -1 with *error. */
int latency_measure(enum latency_kind kind, size_t runs, size_t warmup, struct latency_result *result,
		    struct error *error);
/* min / median / p90 / mean of samples (sorted in place). */
void latency_stats_of(double *samples_us, size_t count, struct latency_stats *stats);

/* ---- bench hugetlb: fork with and without hugetlb PMD sharing
 * (inputs/hugetlb_share.c) ---- */
enum hugetlb_placement { HUGETLB_SHARED, HUGETLB_APART, HUGETLB_PLACEMENTS };
enum hugetlb_mode { HUGETLB_FORK, HUGETLB_FORK_READ, HUGETLB_MODES };
struct hugetlb_result {
	bool measured;                  /* false: why_skipped */
	char why_skipped[256];
	size_t page_bytes, window_bytes;    /* a huge page (2 MiB); what a PMD page maps (1 GiB) */
	long nr_hugepages_before, raised_to, nr_hugepages_after;
	bool changed;                   /* vm.nr_hugepages was raised, then put back */
	char why_not_restored[160];     /* empty: after == before */
	/* [placement][mode]: the window at a 1 GiB boundary (shared) or 2 MiB
	 * past it (apart); fork + exit + wait, or the child reading every huge
	 * page first */
	struct latency_stats stats[HUGETLB_PLACEMENTS][HUGETLB_MODES];
	double child_faults[HUGETLB_PLACEMENTS][HUGETLB_MODES];   /* minor faults per child (wait4) */
};
/* 0 (measured, or skipped with why), or -1 with *error. */
int hugetlb_measure(size_t runs, size_t warmup, struct hugetlb_result *result, struct error *error);

/* ---- timings as they were posted (bench --compare: inputs/timings.c) ---- */

/* What a file gives of a measure at one place: a run's time, or the mean
 * of several runs as posted (perf stat -r N, kernbench) with their count
 * and sample standard deviation, worked back from what the post says. */
struct timing_value {
	double mean;
	double deviation;               /* 0 for one run; NAN: not known (a total of means) */
	size_t runs;                    /* 1 ..; 0: a mean of runs not counted, two or more
					 * (perf stat -r's "+-" line pasted without its header,
					 * kernbench's log with a deviation above 0) */
};
/* One measure of a file: "real", "user", "system", "total" (user + system
 * of each run) in seconds, lmbench's "Process fork+exit" in microseconds. */
struct timing_measure {
	char name[64];
	char unit[4];                   /* "s", "us" */
	struct timing_value *values;
	size_t count, capacity;
};
struct timing_set {
	char shape[64];                 /* "bash time", "zsh time", "perf stat", ... */
	struct timing_measure *measures;/* in the order first seen; total last */
	size_t measure_count, measure_capacity;
};
/* Every run of a measure pooled, as if each run's time were given: the
 * runs, their mean and sample standard deviation (NAN where a value's is
 * not known); lowest and highest only when every value is one run.  Where
 * a mean's runs were not counted, runs is the least they can be (two for
 * such a mean, runs_at_least), the mean that of the values' means alike
 * (their weights are not known) and the deviation only that of a lone
 * value. */
struct timing_summary {
	size_t runs;
	double mean, deviation, lowest, highest;
	bool extremes_known, runs_at_least;
};
/* Read the timings of a file (at most 16 MiB) / of a text (name for
 * messages).  No timing in it is bad input.  PATH may be FILE@ROW, where
 * no file is named PATH whole: the row of FILE's tables of kernels (row
 * for a text; NULL: none, and a text with tables is refused).  0, or -1
 * with *error. */
int timing_read(const char *path, struct timing_set *set, struct error *error);
int timing_read_text(const char *name, const char *text, size_t length, const char *row,
		     struct timing_set *set, struct error *error);
void timing_set_free(struct timing_set *set);
const struct timing_measure *timing_find(const struct timing_set *set, const char *name);
void timing_summary(const struct timing_measure *measure, struct timing_summary *summary);

/* ---- kernel work counted by tracepoints (inputs/tracepoints.c) ---- */

enum trace_counter {
	TRACE_VMA_ALLOC, TRACE_VMA_FREE, TRACE_ANON_VMA_ALLOC, TRACE_ANON_VMA_FREE,
	TRACE_CHAIN_ALLOC, TRACE_CHAIN_FREE, TRACE_FAULT_USER, TRACE_FORK, TRACE_COUNTER_COUNT
};
struct trace_counter_info {
	const char *name;               /* "anon_vma_chain allocated" */
	const char *event;              /* "kmem/kmem_cache_alloc" under tracefs events/ */
	const char *cache;              /* the filter's slab cache, or NULL */
};
extern const struct trace_counter_info trace_counters[TRACE_COUNTER_COUNT];
struct trace_session {
	bool available;                 /* false: why says why nothing is counted */
	char why[300];
	int fds[TRACE_COUNTER_COUNT];
	long ids[TRACE_COUNTER_COUNT];  /* tracefs event ids */
	bool merged[TRACE_COUNTER_COUNT]; /* the cache is merged with others (slab merging) */
};
/* Counters on process pid (0: this one), stopped.  Never fails: an
 * unavailable session says why. */
void trace_open(struct trace_session *session, pid_t pid);
void trace_close(struct trace_session *session);
/* One counted fork of this process, pinned to cpu: the child exits at once
 * and is reaped; counts are this process's and the child's (counted on
 * cpu, by its pid).  0, or -1 (session->why). */
int trace_fork(struct trace_session *session, int cpu, uint64_t *counts);
/* A child held on hold[0] until the parent writes to or closes hold[1]
 * (inputs/tracepoints.c); the parent's hold[0] is closed. */
pid_t fork_held(int hold[2]);
/* The same in one call: a session opened, one fork counted, closed. */
struct trace_result {
	bool counted;                   /* false: why */
	char why[300];
	uint64_t counts[TRACE_COUNTER_COUNT];
	bool merged[TRACE_COUNTER_COUNT];
};
void trace_count_fork(int cpu, struct trace_result *result);

/* ---- a captured process's address space rebuilt (bench --like: inputs/layout.c) ---- */

struct layout_vma {
	uint64_t start, bytes, offset;  /* where it was, its size, its file offset */
	int prot;                       /* PROT_READ | PROT_WRITE | PROT_EXEC */
	bool shared, anonymous, huge;   /* huge: AnonHugePages shown (MADV_HUGEPAGE) */
	const char *path;               /* the snapshot's */
	uint64_t *pages;                /* page index in the VMA; bit 63: written (anonymous) */
	size_t page_count;
	uint64_t placed;                /* where the subject mapped it */
};
struct layout {
	struct layout_vma *vmas;
	size_t count;
	size_t skipped;                 /* the kernel's own mappings ([vdso], [vvar], ...) */
	uint64_t present_pages;
};
/* The layout of a snapshot's process.  0, or -1 with *error. */
int layout_from_snapshot(const struct snapshot *snapshot, const struct process *process, struct layout *layout,
			 struct error *error);
/* A made-up layout for calibration: empty_vmas one-page anonymous VMAs with
 * nothing present, then anon_vmas anonymous VMAs of `windows` 2 MiB windows
 * each, `pages` pages written at the start of each window. */
void layout_generate(struct layout *layout, size_t empty_vmas, size_t anon_vmas, size_t windows, size_t pages);
void layout_free(struct layout *layout);
/* Map and touch it in this process (fills each VMA's placed). */
int layout_build(struct layout *layout, struct error *error);
/* The process that builds the layout and waits (placed filled in the
 * parent): ptscope-subject exec'd (helper: its path), else a child of
 * ptscope (helper ""), whose own VMAs are then forked too. */
struct layout_subject {
	pid_t pid;
	int to_child, from_child;
	char helper[4096];
};
int layout_subject_start(struct layout *layout, struct layout_subject *subject, struct error *error);
/* The subject times its own forks (runs after warmup) and, with trace,
 * counts one. */
int layout_subject_fork(struct layout_subject *subject, size_t runs, size_t warmup, int cpu,
			struct latency_result *result, struct trace_result *trace, struct error *error);
/* Let it go (killed and reaped). */
void layout_subject_end(struct layout_subject *subject);

#endif
