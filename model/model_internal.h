/*
 * model/model_internal.h - what the model's files share among themselves.
 * Private to model/: everything outside reads model/model.h only.
 */
#ifndef PTSCOPE_MODEL_INTERNAL_H
#define PTSCOPE_MODEL_INTERNAL_H

#include "base/alloc.h"
#include "base/array.h"
#include "model/model.h"

/*
 * The model reads pagemap records as the snapshot keeps them: once per
 * distinct chunk content (inputs/snapshot.h).  Whatever depends only on a
 * content's records is worked out once per content; what also depends on
 * the process or the VMA (anon_vma, permissions) is applied per segment: the
 * records of one chunk of one process that fall in one VMA.  A chunk lying
 * inside one VMA is one whole segment (the common case, O(1)); only chunks a
 * VMA boundary cuts have their records walked.
 */

/* How a PTE-level window is mapped: by PTEs, or by a PMD leaf (section 8). */
enum pmd_kind { PMD_UNKNOWN, PMD_NONE, PMD_FILE, PMD_ANON };

/* Figures of a set of records that depend on nothing but the records. */
struct record_figures {
	uint64_t present, swap, zero_page;      /* PTEs by kind */
	uint64_t mapped, mapped_anon;           /* present, not the zero page: rmap work */
	uint64_t with_pfn, shared;              /* ... with a known PFN; of them m >= 2 */
	bool shared_anon;                       /* a shared anonymous PFN (fork families) */
	double *chain_bytes;                    /* per design: PSS-style pte_chain charge */
	double *chain_bytes_anon;               /* ... of it, anonymous pages' */
	uint64_t *chain_allocations;            /* per design: pte_chains a fork allocates */
	uint64_t *chain_frees;                  /* per design: pte_chains an exit frees */
	uint64_t *direct_pages;                 /* per design: PG_direct mappings an exit clears */
};

/* A content's counts, record_figures' without the per-design arrays: 16
 * bytes a content, not 104 (a content holds 512 records at most). */
struct content_totals {
	uint16_t present, swap, zero_page, mapped, mapped_anon, with_pfn, shared;
	bool shared_anon;
};

struct segment {
	size_t process;                 /* index in the snapshot */
	const struct vma *vma;          /* NULL: outside every VMA (hand-built snapshots) */
	uint32_t content;
	uint32_t first, count;          /* records [first, first + count) of the content */
	const struct pagemap_extent *extent; /* the extent holding record first, or NULL
					   (segment_extent finds it) */
	uint64_t base;                  /* the chunk's first address */
	bool whole;                     /* every record of the content */
	uint32_t chunks;                /* 1, or a run of whole chunks of one VMA (contents
					   content ..; model_walk_segment_runs): figures summed */
	struct run_entry *run;          /* a run in a walk of every design's figures: its sums
					   (model_run_add_charges), else NULL */
	const struct record_figures *figures;
};

/* What the model knows about physical pages [pfn, pfn + pages): a run of
 * consecutive PFNs with the same facts (model/pfn_table.c says which pages
 * share a run, and why no rule ever needs to split one). */
struct pfn_run {
	uint64_t pfn;
	uint64_t records;               /* present records in the snapshot, each page */
	uint64_t anon_records;          /* ... with pagemap bit 61 clear */
	uint64_t mapcount;              /* kpagecount (0 without kpages) */
	uint64_t walk_page_offset;      /* the first page's index in its file, through walk_vma
					   (the next page's is one more) */
	uint16_t pages;                 /* 1 .. 512: a run lies in one chunk's records */
	bool kpage_anon, zero_page;     /* kpageflags ANON, ZERO_PAGE */
	uint32_t anon_vma_owner;        /* global VMA index + 1 of a VMA mapping them as shared anon */
	uint32_t walk_vma;              /* global VMA index + 1 reclaim's walk starts from: the
					   mapping VMA of the least fork depth (model/reclaim.c) */
	bool walk_anon;                 /* that mapping is anonymous (section 8) */
	bool pmd_mapped;                /* a PMD maps them somewhere: part of a THP */
	bool pmd_head;                  /* ... the first page at a PMD window's first slot: its THP's walk */
};

struct pfn_table {
	struct pfn_run *runs;           /* by PFN once built; by first record once numbered */
	uint64_t *lasts;                /* each run's last PFN while they are by PFN (NULL after) */
	size_t count, capacity;
	uint64_t pages;                 /* distinct PFNs */
};

/* A record that starts a segment of its own (a VMA edge before it): the
 * table breaks its runs there.  Records of a content are at most 512. */
#define PFN_CUT_KEY(content, record) ((uint64_t)(content) << 10 | (uint64_t)(record))

/* Where each segment of a chunk no VMA holds whole ends and in which VMA,
 * every process's in walk order (model/walk.c next_segment). */
struct cut_segments {
	uint32_t *items;
	size_t count, capacity;
	size_t *first;                  /* per process: its first (NULL: none kept, none to keep) */
	size_t next;                    /* the walk's next */
	bool kept;                      /* complete (the first walk kept them): later walks read them */
	uint32_t *whole_vmas;           /* per chunk of each process, in walk order: the VMA
					   holding it whole (index in the process + 1, 0: none) */
	size_t *whole_first;            /* ... per process: its first chunk's place there */
};

struct model_context {
	const struct snapshot *snapshot;
	const struct model_options *options;
	struct model_result *result;
	const struct geometry *geometry;
	unsigned pte_shift;
	unsigned chunks_per_window_shift; /* pte_shift - PAGEMAP_CHUNK_SHIFT */
	struct pfn_table pfns;
	uint32_t *record_pfns;          /* per content record: its PFN run's index + 1, 0 none */
	struct content_totals *content_totals; /* per content: its counts (walk.c content_figures
					   makes its whole figures from them) */
	double *content_bytes;          /* ... its per-design figures (none read without PFNs) */
	uint64_t *content_counts;
	struct record_figures whole_figures; /* ... a whole content's, made for one visit */
	uint8_t *content_pmd;           /* per content: enum pmd_kind, worked out on demand */
	uint8_t *content_uniform;       /* per content: its records one group, and how (walk.c figure_records) */
	struct cut_entry *cut_parts;    /* cut chunks' segments' figures (walk.c cut_figures) */
	struct record_figures scratch_counts; /* ... a cut part's counts alone (per-design arrays NULL) */
	struct cut_segments cuts;
	struct run_entry *runs;         /* runs of whole chunks summed (walk.c run_figures) */
	struct record_figures run_counts; /* ... a run's counts alone, for a walk of counts */
	/* per m < MAPPING_COSTS_M, anonymous or not, and design: what one
	 * mapping of a page mapped m times gives (walk.c, figure_mappings) */
	struct mapping_cost {
		uint64_t allocations, frees, direct;
		uint64_t now;   /* the page's pte_chain bytes, rmap_page_cost at m */
		double charge;  /* now / m: one mapping's share, divided once */
	} *mapping_costs;
	struct mapping_cost *mapping_costs_high; /* ... m above: the last m of each slot (walk.c) */
	uint64_t *mapping_costs_high_m;   /* ... that m per slot (0: none yet) */
	/* Without PID/pmd_mapped, smaps' count of PMD-mapped windows per VMA
	 * overrides what the records suggest (walk.c resolve_pmd_windows):
	 * per process, ascending windows and the kind each really has */
	struct pmd_override { uint64_t window; uint8_t kind; } *overrides;
	size_t *override_first, *override_count;
	bool *vma_has_anon_vma;         /* per global VMA index */
	bool *process_smaps_pmds;       /* per process: smaps counts a PMD-mapped window in a VMA
					   (model.c sum_vmas, for walk.c resolve_pmd_windows) */
	uint8_t *vma_depths;            /* per global VMA index: fork depth, 64 at most (model/objrmap.c) */
	size_t *vma_family;             /* per global VMA index: its 2.6.7 anon_vma family's
					   root VMA (NULL without PFNs) */
	uint64_t anon_vma_own, anon_vma_chains; /* 2.6.34+: anon_vmas, chains (objrmap.c, per process) */
	struct vma_ref { size_t process; const struct vma *vma; } *shared_segments; /* VMAs that may be
					   a shared segment on huge pages, in process order (sum_processes,
					   for model/hugepages.c) */
	size_t shared_segment_count, shared_segment_capacity;
	struct file_census *census;     /* the files' VMAs, counted process by process
					   (model/estimate.c, model_estimate_process) */
};

/* How far ahead a pass that reads each VMA first (88 bytes, a cache miss
 * each on a large snapshot) asks for the next ones. */
#define MODEL_VMAS_AHEAD 6

/* Ask for vmas[v + ahead] of count, both lines of it; nothing past the
 * end (not even a pointer there). */
static inline void model_prefetch_vma(const struct vma *vmas, size_t count, size_t v, size_t ahead)
{
	if (v + ahead < count) {
		__builtin_prefetch(&vmas[v + ahead]);
		__builtin_prefetch((const char *)&vmas[v + ahead] + 64);
	}
}

typedef void (*segment_visit)(struct model_context *c, const struct segment *segment, void *data);

/* The walk (model/walk.c): the bottom of the model, calling no rule. */
/* The PFN table (model/pfn_table.c): built from the snapshot's referenced
 * contents, broken at the sorted PFN_CUT_KEYs; numbered: each record's run
 * (found by PFN while the runs are sorted) in record_pfns (index + 1, 0: no
 * PFN), the runs put in the order the records first name them. */
void pfn_table_build(struct pfn_table *table, const struct snapshot *s, const uint64_t *cuts, size_t cut_count);
struct pfn_run *pfn_table_find(const struct pfn_table *table, uint64_t pfn);   /* built, not yet numbered */
void pfn_table_number(struct pfn_table *table, const struct snapshot *s, uint32_t *record_pfns);
void pfn_table_free(struct pfn_table *table);
/* The most record runs and PFN runs pfn_table_build can make of s, from its
 * contents' extents, VMAs and kpage runs (model_memory_bytes' bound). */
void pfn_table_runs_most(const struct snapshot *s, uint64_t *record_runs, uint64_t *pfn_runs);

/* The VMA holding the whole of the chunk at address `base`, so every
 * record of it, or NULL; *v a cursor over the process's VMAs that only
 * moves on (the chunks asked for ascend). */
const struct vma *chunk_vma_from(const struct process *p, size_t *v, uint64_t base);

/* m of section 8: max(kpagecount, records in the snapshot) */
uint64_t pfn_mapcount(const struct pfn_run *run);
bool pfn_is_zero_page(const struct pfn_run *run);
/* A record's page is "anonymous" for D4 (section 8). */
bool record_is_anonymous(uint64_t entry_word, const struct pfn_run *pfn);

/* Pass 1 (before any rule) and its end: the PFN table, every content's
 * figures, the PMD windows smaps overrides; `before` is called for each
 * process, in order, just before the first walk of its segments. */
typedef void (*process_visit)(struct model_context *c, size_t process);
void model_walk_begin(struct model_context *context, process_visit before);
void model_walk_end(struct model_context *context);
/* Layout helpers. */
/* The records of a content, and a record's PFN entry (NULL: none known). */
/* The extent holding the segment's first record; that record's vaddr
 * within the chunk; a cursor over the segment's records. */
const struct pagemap_extent *segment_extent(const struct model_context *c, const struct segment *seg);
uint64_t segment_first_offset(const struct model_context *c, const struct segment *seg);
void segment_cursor(const struct model_context *c, const struct segment *seg, struct content_cursor *cursor);
const struct pfn_run *content_record_pfn(const struct model_context *c, uint32_t content, uint32_t k);
/* Visit every segment of a process in address order: a chunk's records in
 * one VMA, or a run of whole chunks of one VMA that no PMD maps as one
 * (seg.chunks > 1: its counts summed, its pte_chain charges, doubles, left
 * to the visit, which adds them by model_run_add_charges); the
 * per-design figures of cut parts only when `designs` (else NULL). */
void model_walk_segment_runs(struct model_context *c, size_t process, bool designs, segment_visit visit, void *data);
/* The same walk giving a cut part no figures (seg.figures NULL): a visit
 * that needs them asks model_segment_counts, which works out its counts
 * (per-design arrays NULL) or returns seg.figures. */
void model_walk_segment_wholes(struct model_context *c, size_t process, segment_visit visit, void *data);
const struct record_figures *model_segment_counts(struct model_context *c, const struct segment *seg);
/* A run segment's pte_chain charges under design d added to *bytes (with
 * anon: the anonymous pages' to *anon, the others' to *bytes) as adding
 * them content by content in order does (model/walk.c). */
void model_run_add_charges(const struct model_context *c, const struct segment *seg, size_t d, double *bytes, double *anon);
/* Each chunk of a run segment (seg.chunks > 1) visited as the walk without
 * runs gives it: a whole content with its own figures. */
void model_segment_chunks(struct model_context *c, const struct segment *run, segment_visit visit, void *data);
/* Does the process say (PID/pmd_mapped) that no PMD maps anything in
 * [start, end)?  Then window_pmd_kind is PMD_NONE for every window there
 * (false: it does not say, or one may). */
bool model_range_pmd_none(const struct model_context *c, const struct process *p, uint64_t start, uint64_t end);
/* Is no PTE window of the process's chunks [chunk, chunk + chunks), holding
 * contents content .. (one pagemap run), PMD-mapped?  false: it may be. */
bool model_walk_chunks_pmd_none(struct model_context *c, const struct process *p, uint32_t content, uint64_t chunk,
				uint64_t chunks);
/* The memory of the walk's tables: runs, mapping costs (model/walk.c). */
uint64_t model_walk_run_bytes(uint64_t designs);
/* The costs of one mapping of a page mapped m times, every design (made
 * between model_walk_begin and model_walk_end; the pointer holds until
 * the next call for the same anon and an m of the same slot). */
const struct mapping_cost *model_mapping_costs(struct model_context *c, uint64_t m, bool anon);
/* How a process's PTE window (vaddr >> pte_shift) is mapped. */
enum pmd_kind window_pmd_kind(struct model_context *c, const struct process *p, uint64_t window);
/* The same for the window of a segment's (first) chunk, its content known
 * (inline below: once or twice a segment in count_work's walk). */
enum pmd_kind model_segment_pmd_kind(struct model_context *c, const struct segment *seg);
static inline enum pmd_kind segment_pmd_kind(struct model_context *c, const struct segment *seg)
{
	/* windows of one chunk, no PID/pmd_mapped, no smaps override for the
	 * process, the content's kind known: it is the window's */
	if (c->chunks_per_window_shift || c->snapshot->processes[seg->process].has_pmd_map || !c->override_count ||
	    c->override_count[seg->process] || c->content_pmd[seg->content] == PMD_UNKNOWN)
		return model_segment_pmd_kind(c, seg);
	return (enum pmd_kind)c->content_pmd[seg->content];
}

/* The per-design counts (chain_allocations, chain_frees, direct_pages) of
 * `mapped` mappings of pages without a PFN, `anon` of them anonymous, added
 * to out's arrays (model/walk.c). */
void model_figure_without_pfns(struct model_context *c, uint64_t mapped, uint64_t anon, struct record_figures *out);

/* pte_chain objects (or blocks) a design allocates when a page mapped m
 * times gains one more mapping (model/walk.c), and the bytes of one. */
uint64_t chain_allocations(const struct rmap_profile *profile, uint64_t m, bool anon);
unsigned chain_unit_bytes(const struct rmap_profile *profile);
/* The last walk is over: what the walks kept is freed (model/walk.c). */
void model_walk_segments_end(struct model_context *context);
/* Visit the ancestors (PPid chain) of process p that hold a VMA with an
 * anon_vma overlapping vma (the first such VMA of each, nearest ancestor
 * first): the VMAs a fork copied it, or the VMA it was split from, from
 * (model/objrmap.c).  Returns how many. */
typedef void (*ancestor_visit)(struct model_context *c, const struct vma *ancestor, void *data);
uint64_t model_vma_ancestors(struct model_context *c, const struct process *p, const struct vma *vma,
			     ancestor_visit visit, void *data);

/* Does fork copy this VMA's PTEs under the design?  Lazy fork (2.6.14+)
 * skips a VMA without an anon_vma, since faults refill it, unless its
 * VmFlags say a fault could not (hugetlb before 6.0, PFN and mixed maps,
 * userfaultfd write-protect): the profile's copies-vmflags.  (Inline: once
 * a segment and design.) */
static inline bool model_fork_copies(const struct rmap_profile *profile, const struct vma *vma, bool has_anon_vma)
{
	return profile->fork_copies_file_ptes || has_anon_vma ||
	       (vma && (vma->vm_flags & profile->fork_copy_flags));
}
/* PTE windows of the VMA smaps counts PMD-mapped (*anon: mostly anonymous ones). */
uint64_t model_smaps_pmd_windows(const struct model_context *context, const struct vma *vma, bool *anon);
/* The address range whose windows a rule would share for a VMA it makes
 * eligible ([start, end), empty when none: model/sharing.c). */
void sharing_vma_windows(const struct sharing_rule *rule, const struct vma *vma, uint64_t *start, uint64_t *end);

/* qsort's order of two keys of COUNT numbers each, compared left to right
 * (files by device and inode, sharing members by file and range). */
static inline int model_compare_keys(const uint64_t *x, const uint64_t *y, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

/* The pieces of model_run. */
/* What a fork copies (model/fork.c), worked out in count_work's walk:
 * begin, then per process: process_begin, visit on each segment of the
 * walk (model_walk_segment_runs), process_end; then end. */
struct fork_walk;
struct fork_walk *model_fork_begin(struct model_context *context);
void model_fork_process_begin(struct model_context *context, struct fork_walk *walk);
/* A segment of count_work's walk, its PMD kind known (segment_pmd_kind). */
void model_fork_visit(struct model_context *context, const struct segment *segment, enum pmd_kind kind,
		      struct fork_walk *walk);
void model_fork_process_end(struct model_context *context, struct fork_walk *walk, size_t process);
void model_fork_end(struct fork_walk *walk);
/* model/estimate.c: each process in order (model_estimate_process, in the
 * first walk), then the whole (model_estimate) */
void model_estimate_process(struct model_context *context, size_t process);
void model_estimate(struct model_context *context);
uint64_t model_estimate_table_bytes(uint64_t designs);       /* ... the memory its table of VMA shapes takes */
void model_sharing(struct model_context *context);            /* model/sharing.c */
void model_object_rmap(struct model_context *context);       /* model/objrmap.c, after count_work */
/* Process `process`'s VMAs' fork depths (vma_depths) and anon_vmas, counted
 * (processes in order, each once), and their work under every design added
 * to the design's sum (designs[d].work), the current design's to *current
 * (model/objrmap.c). */
void model_price_anon_vmas(struct model_context *context, size_t process, struct event_work *current);
void model_counters(struct model_context *context);          /* model/counters.c */
void model_huge_pages(struct model_context *context);        /* model/hugepages.c */
/* A writable MAP_SHARED mapping of shmem of a huge page at least, not hugetlb. */
bool model_shared_segment(const struct vma *vma, uint64_t huge_bytes);
void model_reclaim(struct model_context *context);           /* model/reclaim.c */


#endif
