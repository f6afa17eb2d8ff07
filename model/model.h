/*
 * model/model.h - the cost model's one door (docs/cost-model.md).
 *
 * Two halves:
 *  - kernel profiles: rmap designs and page-table sharing rules, read from
 *    XML validated against model/profiles/profile.xsd (built in, or a user's
 *    file);
 *  - the model: from a struct snapshot, what the page tables and the reverse
 *    map cost today and under every loaded design, and what each sharing rule
 *    would save.  Every figure is either exact (from pagemap and kpages) or an
 *    estimate that carries its method and its bounds.
 *
 * The model code never tests a kernel version: everything a design changes is
 * a field of struct rmap_profile or struct sharing_rule.
 */
#ifndef PTSCOPE_MODEL_MODEL_H
#define PTSCOPE_MODEL_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/hash.h"
#include "inputs/snapshot.h"

#define MODEL_PAGE_BYTES 4096u
#define MODEL_MAX_LEVELS 5

/* Errors are base's (base/error.h, through inputs/snapshot.h). */
/* ---- kernel profiles ---- */

/* rmap families of docs/cost-model.md section 1. */
enum rmap_family { RMAP_D1, RMAP_D2, RMAP_D3, RMAP_D4, RMAP_D5, RMAP_FAMILY_COUNT };

/* How a family keeps its per-page reverse map: the one table that turns a
 * family letter into behaviour (model/profiles.c). */
enum chain_layout { CHAIN_NONE, CHAIN_LIST, CHAIN_ARRAY };
struct rmap_family_rule {
	const char *name;               /* "D1" */
	const char *summary;            /* one sentence for legends */
	enum chain_layout layout;       /* per-mapping list or cache-line arrays */
	bool direct;                    /* PG_direct: a page with m <= 1 costs nothing */
	bool file_by_object;            /* file pages found through address_space */
	bool anon_by_object;            /* anon pages found through anon_vma */
};
extern const struct rmap_family_rule rmap_families[RMAP_FAMILY_COUNT];

struct geometry_level {
	char name[8];                   /* "pte", "pmd", ... */
	unsigned shift;                 /* one page of this level maps 1 << shift bytes */
	bool counted;                   /* counted in VmPTE */
};

struct geometry {
	char name[32];
	unsigned physical_address_bits; /* RAM it can address is 2^bits; 0: no limit stated */
	unsigned level_count;           /* lowest (PTE) level first */
	struct geometry_level levels[MODEL_MAX_LEVELS];
};

enum anon_vma_fork { ANON_VMA_NONE, ANON_VMA_SHARED, ANON_VMA_CHAIN };

/* How an object design's reclaim finds the VMAs that may map a file page:
 * every VMA on the file's i_mmap list (2.5.62), or only those whose file
 * range covers the page's offset (the 2.6.7 prio_tree, the 3.7 interval
 * tree).  Profile: <reclaim file-walk="list|range">. */
enum file_walk { FILE_WALK_LIST, FILE_WALK_RANGE };

struct rmap_profile {
	char id[64], arch[16], kernels[96];
	char default_from[16];          /* "2.6.34": its era's default from this release on; "" never */
	char description[512];
	enum rmap_family family;
	struct geometry geometry;
	unsigned pointer_bytes, pte_chain_bytes, cache_line_bytes, pte_addr_bytes;
	unsigned page_field_bytes, anon_vma_bytes, anon_vma_chain_bytes, vma_rmap_bytes;
	unsigned nrpte;                 /* floor((L1 - sizeof(long)) / pte_addr_t) */
	bool fork_copies_file_ptes;     /* false: 2.6.14+ skip VMAs without anon_vma */
	uint64_t fork_copy_flags;       /* ... unless a VmFlags bit here says a fault could
					   not refill it (bits of enum vma_flag) */
	char fork_copy_vmflags[64];     /* the same as written ("ht nl pf mm") */
	char fork_kernels[96];          /* the kernels the fork behaviour holds for ("" = kernels) */
	enum anon_vma_fork anon_vma_fork;
	enum file_walk file_walk;       /* reclaim's walk of a file's VMAs (object designs) */
	bool huge_pmd_whole;            /* a PMD-mapped THP is one rmap call at fault, fork and
					   exit (<huge-pmd rmap="whole">); false: a call a page */
	bool huge_pmd_reclaim_folio;    /* ... and one reclaim walk (reclaim="folio"); false:
					   split first, a walk a page */
	char origin[300];               /* "FILE:LINE" it was defined at */
	bool builtin;                   /* shipped with ptscope, not a user's file */
};

enum sharing_partners { PARTNERS_ADDRESS, PARTNERS_FILE_INDEX, PARTNERS_LENGTH, PARTNERS_CONTENT };
/* Whether a kernel a user can run has the rule: merged (since a release), a
 * patch that was proposed, or a bound or what-if that no kernel does. */
enum sharing_kernel { KERNEL_PROPOSAL, KERNEL_MAINLINE, KERNEL_BOUND, KERNEL_WHAT_IF };

struct sharing_rule {
	char id[64];
	char description[512];
	unsigned window_shift;
	enum sharing_partners partners;
	enum sharing_kernel kernel;
	char since[16];                 /* mainline: the first release with it ("2.6.20") */
	bool shares_subtree;            /* every page-table page below the window */
	bool skip_pmd_mapped;
	bool has_eligibility;           /* false for content sharing: every window */
	bool file_backed, hugetlb_only, writable_needs_shared;
	uint64_t exclude_flags, require_flags; /* bits of enum vma_flag */
	uint64_t min_bytes;
	char origin[300];
};

/* One piece of kernel work under the names profiles of each era list it by
 * (the era rename table, model/profiles/40-renames.xml): 2.4's zap_page_range
 * did what 2.5's zap_pte_range does. */
#define SAME_WORK_NAMES 24
struct same_work {
	char id[64];
	char description[256];
	char functions[SAME_WORK_NAMES][64];
	char kernels[SAME_WORK_NAMES][96];    /* where each name does the work */
	size_t function_count;
	char origin[300];
};

struct profile_set {
	struct rmap_profile *rmaps;
	size_t rmap_count, rmap_capacity;
	struct sharing_rule *rules;
	size_t rule_count, rule_capacity;
	struct same_work *works;
	size_t work_count, work_capacity;
};

/* Load every built-in profile into an empty (zeroed) set.  0 or -1. */
int profiles_load_builtin(struct profile_set *set, struct error *error);
/* Validate and add the profiles of one XML file / buffer (name for messages). */
int profiles_load_file(struct profile_set *set, const char *path, struct error *error);
int profiles_load_buffer(struct profile_set *set, const char *name, const char *text,
			 size_t length, struct error *error);
void profiles_free(struct profile_set *set);
const struct rmap_profile *profiles_find_rmap(const struct profile_set *set, const char *id);
const struct sharing_rule *profiles_find_rule(const struct profile_set *set, const char *id);
/* The newest built-in profile of an architecture (the last built-in one):
 * its geometry is the one today's page tables are counted with.  Profiles a
 * user adds or selects never change it, so what is measured does not depend
 * on what it is compared with.  NULL when none. */
const struct rmap_profile *profiles_current(const struct profile_set *set, const char *arch);
/*
 * Which design fits a snapshot or a tree: the one rule every command uses.
 * arch: the profiles of that architecture, or x86_64's when there are none
 * (aarch64, riscv64 and the other 64-bit 4-level machines page like it).
 * release ("2.4.20", "6.12.5", NULL or "" when unknown): the design whose
 * default-from is the highest at or below it (a 2.4 tree gets 2.4-rmap, a 6.x
 * one 6.1); no release: the newest of the architecture, whose geometry today's
 * page tables are counted with.  NULL when no profile fits.
 */
const struct rmap_profile *profiles_fit(const struct profile_set *set, const char *arch,
					const char *release);
/* The built-in schema text (for --show and for users writing their own). */
const char *profiles_schema(void);
/* A built-in file's text by name ("30-sharing.xml"), or NULL; and the list. */
const char *profiles_builtin_text(const char *name);
size_t profiles_builtin_count(void);
const char *profiles_builtin_name(size_t index);
/* The design a profile's savings are measured against: among the loaded
 * profiles of the same architecture and PTE width, the oldest family (D1
 * before D2 ...), the first loaded on a tie.  Never NULL (at worst itself). */
const struct rmap_profile *profiles_baseline(const struct profile_set *set, const struct rmap_profile *profile);
/* Bytes of one PTE-level entry: 4096 / (entries of a PTE page). */
unsigned geometry_pte_bytes(const struct geometry *geometry);
/* The most RAM the geometry can address (UINT64_MAX when not stated). */
uint64_t geometry_addressable_bytes(const struct geometry *geometry);
/* Per-page rmap cost C(m) in bytes of a page mapped m times. */
uint64_t rmap_page_cost(const struct rmap_profile *profile, uint64_t m, bool anonymous);
const char *rmap_family_name(enum rmap_family family);
const char *sharing_partners_name(enum sharing_partners partners);
const char *sharing_kernel_name(enum sharing_kernel kernel);   /* "mainline", "proposal", ... */

/* ---- exact sums of fractions (PSS-style charging) ---- */

/* Σ numerator / m over many m, exact.  Numerators are grouped by m so the
 * final sum is one pass over distinct m (model/rational.c). */
struct fraction_sum {
	struct fraction_term { uint64_t denominator; unsigned __int128 numerator; } *terms;
	size_t count, capacity;
	struct hash_table index;        /* terms by denominator (base/hash.h) */
};
void fraction_sum_add(struct fraction_sum *sum, unsigned __int128 numerator, uint64_t denominator);
/* The sum rounded half up, and as a double for display. */
uint64_t fraction_sum_round(const struct fraction_sum *sum);
double fraction_sum_value(const struct fraction_sum *sum);
void fraction_sum_free(struct fraction_sum *sum);

/* ---- the model ---- */

/* An estimated figure: point value, bounds, and how it was obtained. */
struct estimate {
	double point, lower, upper;
	const char *method;             /* static text */
};

/* ---- rmap work per event (docs/cost-model.md section 7) ---- */

/* The faults that map a page, as the snapshot shows it was mapped:
 * an anonymous page of an anonymous VMA (first touch, do_anonymous_page),
 * an anonymous page of a file VMA (COW of the file page, do_wp_page: the
 * new page's add and the old page's remove), a file page (read fault), a
 * swap entry (swap-in, do_swap_page). */
enum fault_kind { FAULT_ANON, FAULT_COW, FAULT_FILE, FAULT_SWAP, FAULT_KIND_COUNT };
extern const char *const fault_kind_names[FAULT_KIND_COUNT];   /* "anon", "cow", "file", "swap" */

struct fault_work {
	uint64_t faults;                /* faults of this kind, every present page faulted in once */
	uint64_t pmd_faults;            /* ... of them a PMD-mapped THP's one fault (whole designs:
					   do_huge_pmd_anonymous_page, do_set_pmd) */
	uint64_t rmap_calls;            /* page_add_*rmap, + the old page's page_remove_rmap for COW */
	uint64_t chain_allocations;     /* pte_chains or blocks the adds allocate (PSS-style share) */
	uint64_t anon_vma_prepares;     /* anon_vma_prepare calls */
	uint64_t chain_frees;           /* COW: pte_chains or blocks the old page's removal frees,
					   where the design says without its mapcount (cow_frees_known) */
};

/* munmap of each VMA on its own: its page_remove_rmap calls under
 * one design (a PMD-mapped THP one call on whole designs; the frees are
 * exit's, VMA by VMA). */
struct munmap_work {
	uint64_t vmas;                  /* VMAs of the captured processes */
	uint64_t median_calls, max_calls;
	const struct vma *largest;      /* the VMA of max_calls (NULL: none maps a page) */
	size_t largest_process;
};

/* One process's (or every process's) rmap work per event under one design:
 * what model_process_work returns. */
struct event_work {
	/* fork: every VMA fork copies (lazy fork: profile) */
	uint64_t fork_rmap_calls;       /* page_add_rmap or _mapcount increments: one per
					   PTE, one per PMD-mapped THP (copy_huge_pmd) */
	uint64_t fork_rmap_anon_calls;  /* ... of them for anonymous pages */
	uint64_t fork_rmap_pages;       /* pages whose mapcount a fork changes (a THP's 512) */
	uint64_t fork_rmap_pmd_calls;   /* ... calls for a PMD-mapped anonymous THP (copy_huge_pmd) */
	uint64_t fork_chain_allocations;/* pte_chain objects / blocks, anon_vma_chains */
	uint64_t fork_anon_vma_calls;   /* anon_vma_link / anon_vma_fork per VMA */
	/* exit (= munmap of every VMA): what each design frees */
	uint64_t exit_rmap_calls;       /* page_remove_rmap: per PTE, or per PMD (zap_huge_pmd) */
	uint64_t exit_rmap_pages;       /* pages whose mapcount an exit changes */
	uint64_t exit_rmap_anon_calls;  /* ... of them for anonymous pages */
	uint64_t exit_rmap_pmd_calls;   /* ... calls for a PMD-mapped THP (zap_huge_pmd) */
	uint64_t exit_rmap_anon_pmd_calls; /* ... of them anonymous */
	uint64_t exit_chain_frees;      /* pte_chain objects (D1, D2) or blocks (D3, D4) freed */
	uint64_t exit_direct_pages;     /* PG_direct mappings cleared (m = 1, D2-D4) */
	uint64_t exit_anon_vma_unlinks; /* anon_vma_unlink / unlink_anon_vmas per VMA */
	uint64_t exit_anon_vma_chain_frees; /* anon_vma_chains freed (2.6.34+) */
	struct fault_work faults[FAULT_KIND_COUNT];
};

/* Reclaim of every mapped page once: the rmap walk that unmaps one page
 * visits pte_chain entries (one per mapping) or VMAs on the file's i_mmap
 * or the anon_vma's list, some of which do not map the page. */
enum { MODEL_WORST_WALKS = 5 };
struct reclaim_walk_owner {
	const struct vma *vma;          /* a file's first VMA, or the anon_vma's owner VMA */
	size_t process;                 /* the process of vma (index in the snapshot) */
	uint64_t pages, visited, not_mapping;
};
struct reclaim_work {
	bool available;                 /* needs PFNs: which page each PTE maps */
	uint64_t pages;                 /* mapped pages (distinct PFNs, not the zero page) */
	uint64_t anon_pages;            /* ... of them anonymous */
	uint64_t walks;                 /* rmap walks to unmap them: one a page, but one a
					   PMD-mapped THP on whole designs (huge_pmd_whole) */
	uint64_t anon_walks;            /* ... of them for anonymous pages */
	uint64_t anon_visited;          /* ... the visits of their walks */
	uint64_t visited;               /* pte_chain entries or VMAs visited, one walk per page */
	uint64_t found;                 /* mappings found (the captured processes' PTEs, or PMDs) */
	uint64_t removes;               /* rmap removals unmapping makes: one a mapping found, but an
					   anonymous THP's PMD is split and its 512 PTEs removed, a
					   file THP's PMD zapped by the split (no removal of its own) */
	uint64_t not_mapping;           /* visited VMAs that do not map the page */
	uint64_t walk_median, walk_p99, walk_max; /* visits of one walk */
	struct reclaim_walk_owner worst_files[MODEL_WORST_WALKS];
	size_t worst_file_count;
	struct reclaim_walk_owner worst_anon_vmas[MODEL_WORST_WALKS];
	size_t worst_anon_vma_count;
};

struct model_design {
	const struct rmap_profile *profile;
	bool selected;                  /* false: added as a baseline or as the snapshot's design */
	bool pte_chain_exact;           /* from pagemap + kpages (else the estimate) */
	uint64_t pte_chain_bytes;       /* exact, rounded once; = round(estimate) if not exact */
	double pte_chain_value;         /* unrounded */
	struct estimate pte_chain_estimate; /* smaps-only (section 6), always computed */
	uint64_t page_field_bytes;      /* one field in every struct page of priced RAM */
	uint64_t priced_ram_bytes;      /* min(MemTotal, what the geometry addresses) */
	bool ram_capped;                /* priced_ram_bytes < MemTotal */
	uint64_t vma_field_bytes;       /* per-VMA rmap fields (object designs) */
	uint64_t anon_vma_count, anon_vma_chain_count;
	bool anon_vma_exact;            /* families from PFNs, else the upper bound */
	uint64_t object_rmap_bytes;     /* VMA fields + anon_vmas + chains */
	uint64_t rmap_bytes;            /* pte_chain + object rmap of the captured processes */
	uint64_t total_bytes;           /* rmap + page field */
	size_t baseline;                /* index in designs of profiles_baseline() */
	int64_t saves_bytes;            /* baseline's rmap_bytes - this one's (page field apart) */
	/* rmap work per event, every process forking / exiting / faulting its
	 * pages in once: the sum of the processes' figures (model_process_work) */
	struct event_work work;
	bool faults_exact;              /* chain allocations from PFNs (else pte_chain designs' m unknown) */
	bool cow_frees_known;           /* the COW's chain frees hold for every mapcount (D1, objects) */
	struct munmap_work munmap;
	struct reclaim_work reclaim;
};

/* What a fork of a process copies: PTEs (present and swap entries of the
 * VMAs fork copies under the snapshot's own design) and the PTE pages that
 * hold them (model/fork.c). */
struct fork_copy {
	uint64_t pte_pages, ptes;
};

struct model_file_share {
	const char *path;               /* arena-owned by the snapshot */
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	uint64_t sharable_pages;
	uint64_t mappings;              /* eligible VMAs that took part */
};

/* Why a rule finds what it finds, stage by stage (the reason behind a zero;
 * docs/cost-model.md): of the VMAs of the kind it shares, those large
 * enough (eligible_vmas), those holding a whole window, their partner
 * groups, and the same mappings grouped without their address. */
struct sharing_census {
	uint64_t kind_vmas;             /* pass every test but the size */
	uint64_t window_vmas;           /* eligible and holding a whole window */
	uint64_t groups, shared_groups; /* partner groups of them; of two or more VMAs */
	uint64_t file_groups;           /* same file, offset, length, permissions in 2+ processes */
	uint64_t file_groups_apart;     /* of them: at a different address in every process */
};

struct model_sharing {
	const struct sharing_rule *rule;
	bool exact;                     /* false: content sharing without PFNs */
	bool available;                 /* false: nothing to compute it from */
	uint64_t sharable_pages;        /* exact, or without pagemap the upper bound */
	uint64_t sharable_bytes;
	uint64_t sharable_pages_lower;  /* = sharable_pages when exact */
	uint64_t sharable_bytes_lower;
	uint64_t pages_in_cow_vmas;     /* share whose VMA holds private COW pages */
	uint64_t eligible_vmas;
	struct sharing_census census;   /* partner rules only */
	struct model_file_share *files; /* sorted by sharable_pages, descending */
	struct fork_copy fork_copies;   /* every process forking once, under the rule */
	size_t file_count;
};

/* A shared memory segment on huge pages (model/hugepages.c): today's lever
 * for a database's shared buffers.  "PMD size" is the huge page a PMD entry
 * maps (2 MiB on x86_64), "next size" the one a PUD entry maps (1 GiB). */
struct model_segment {
	const char *path;               /* "/dev/zero (deleted)", "/SYSV...", ... */
	uint64_t inode;
	uint64_t bytes;                 /* its largest mapping */
	size_t mappings;                /* processes mapping it (one VMA each, as a rule) */
	uint64_t pte_pages;             /* PTE pages that map it now, over its mappings */
	uint64_t pte_pages_saved_pmd_size; /* of them: freed on PMD-size huge pages */
	uint64_t pmd_pages_saved_next_size; /* PMD pages also freed on next-size pages */
	uint64_t pmd_pages_shared;      /* PMD pages hugetlb PMD sharing saves on PMD-size pages */
	uint64_t touch_all_pte_pages;   /* PTE pages a process touching all of it needs */
	uint64_t touch_all_pmd_pages;   /* PMD pages it spans */
};

struct model_process {
	const struct process *process;
	bool has_vmpte, exact;          /* exact: figures from pagemap */
	uint64_t vmpte_bytes;
	uint64_t rss_bytes, pss_bytes;  /* sums of the VMAs' smaps Rss and Pss */
	uint64_t pte_pages, upper_pages;/* PTE pages, counted higher levels */
	uint64_t pagetable_bytes;       /* exact, when exact */
	uint64_t pmd_mapped_windows;
	uint64_t pmd_mapped_anon_windows; /* ... of them anonymous THPs (one rmap call each) */
	struct estimate pagetable_estimate; /* smaps-only, bytes */
	uint64_t upper_pages_at_least;  /* higher-level pages it surely has (smaps: the
					   upper-level windows of VMAs inside one) */
	uint64_t present_ptes, swap_ptes, zero_page_ptes;
	double *pte_chain_bytes;        /* per design, PSS-style, display only */
	double *sharable_pages;         /* per sharing rule, split PSS-style among partners */
	struct fork_copy fork_copy;     /* a fork copies today (no sharing) */
	struct fork_copy *fork_copies;  /* per sharing rule: shared windows are not copied */
	struct event_work work;         /* under the current design: its fork, exit and faults
					   (model_process_work) */
};

struct model_options {
	const struct profile_set *profiles;
	const struct rmap_profile **designs;  /* to compare; NULL: every rmap profile */
	size_t design_count;
	const struct sharing_rule **rules;    /* NULL: every sharing rule */
	size_t rule_count;
	const struct geometry *geometry;      /* NULL: profiles_current(arch) */
	size_t top_files;                     /* files kept per rule (0: 10) */
};

/*
 * The kernel's own counters beside the model's figures (model/counters.c).
 * A slab cache's active objects hold the model's objects plus what /proc
 * does not show (exited ancestors' anon_vmas kept by their descendants'
 * chains, processes not captured, other caches merged into the same slab)
 * plus free objects SLUB counts active because they sit in a CPU's slab or
 * sheaf.  So the model's count should lie in [lower, upper]:
 *   upper = the larger active count (read before and after the processes);
 *   lower = the smaller one minus the per-CPU slack, 0 when the slack is not
 *           known or other caches share the slab (their objects are unknown).
 */
enum { MODEL_SLAB_CACHES = 3 };
struct model_slab_check {
	const char *cache;              /* "anon_vma", "anon_vma_chain", "vm_area_struct" */
	bool available;                 /* the snapshot has this slabinfo line */
	uint64_t objects;               /* active objects before the processes were read */
	uint64_t objects_after;         /* ... after (= objects when not captured) */
	uint64_t model;                 /* the model's count (the snapshot's own design) */
	uint64_t lower, upper;
	bool lower_known;               /* false: no lower bound (slack unknown, merged
					   caches, or a partial capture) */
	bool slack_known;
	uint64_t slack;                 /* bound on free objects counted active: per-CPU
					   slabs x objects per slab + sheaves x capacity */
	uint64_t aliases;               /* other caches merged into this slab */
	bool within;                    /* lower <= model <= upper (model <= upper when
					   the lower bound is not known) */
};

struct model_counters {
	/* A part of the machine (--pid, --tree, a non-root capture that was
	 * refused processes, or no pid 1): the machine-wide counters hold
	 * processes the snapshot lacks, so only "model <= counter" can be
	 * checked; lower bounds and the split of the remainder cannot. */
	bool partial;
	const char *partial_reason;          /* static text, NULL when whole */
	bool has_meminfo_pagetables;
	uint64_t meminfo_pagetables_bytes;   /* meminfo PageTables */
	uint64_t model_pagetables_bytes;     /* the captured processes' page tables: exact
						from pagemap, VmPTE for those without */
	int64_t remainder_bytes;             /* PageTables - model: kernel page tables, PGDs,
						processes not captured */
	bool has_slabinfo;
	struct model_slab_check slabs[MODEL_SLAB_CACHES];
};

struct model_result {
	const struct snapshot *snapshot;
	const struct geometry *geometry;
	bool has_pagemap, has_pfns, has_kpages;
	size_t processes, processes_with_status, processes_with_pagemap;
	size_t processes_pagetable_exact;
	uint64_t vmpte_bytes, pagetable_bytes;       /* pagetable over exact processes */
	uint64_t vmpte_bytes_of_exact;               /* VmPTE of the processes with pagemap */
	uint64_t pte_pages, upper_pages, pmd_mapped_windows, pmd_mapped_anon_windows;
	uint64_t pmd_ambiguous_windows;              /* without PID/pmd_mapped: windows that look
	                                                PMD-mapped beyond smaps' count, times two
	                                                (which ones are is unknown: each may move
	                                                a sharing figure by one page) */
	uint64_t vmpte_above_model_bytes;            /* tables outliving their pages */
	uint64_t vmpte_below_model_bytes;            /* capture raced with faults */
	struct estimate pagetable_estimate;          /* smaps-only, bytes, all processes */
	struct estimate pagetable_whole;             /* the page tables the headline's part is of:
	                                                per process exact from pagemap, else VmPTE
	                                                (the kernel's count), else the smaps-only
	                                                bounds; lower == upper when all are known */
	uint64_t smaps_drift_pages;                  /* pages smaps and pagemap disagree on */
	uint64_t present_ptes, swap_ptes, zero_page_ptes, distinct_pfns;
	uint64_t ram_pages;                          /* MemTotal / 4 KiB */
	size_t current_design;                       /* the snapshot's own design (SIZE_MAX: none) */
	size_t headline_rule;                        /* first available address-partner rule (SIZE_MAX) */
	uint64_t vma_count, anon_vmas;
	struct model_design *designs;
	size_t design_count;
	struct model_sharing *sharing;
	size_t sharing_count;
	double sharing_base_bytes;                   /* what "% of page tables" divides by: the
	                                                exact tables, or without pagemap their
	                                                estimate's upper bound (so <= 100 %) */
	struct model_process *process_figures;       /* one per snapshot process */
	struct model_segment *segments;              /* shared segments, largest saving first */
	size_t segment_count;
	struct fork_copy fork_copy;                  /* every process forking once, no sharing */
	struct model_counters counters;              /* kernel counters beside the model */
};

/* An upper bound on the memory model_run takes for a snapshot, beyond the
 * snapshot itself: it follows distinct contents, VMAs and processes. */
uint64_t model_memory_bytes(const struct snapshot *snapshot, const struct model_options *options);

int model_run(const struct snapshot *snapshot, const struct model_options *options,
	      struct model_result **result, struct error *error);
void model_free(struct model_result *result);

/* The rmap work of one process's fork, exit and faulting its pages in,
 * under the snapshot's own design, index current_design (the figures issue
 * 19's time predictions read); every process's sum is
 * designs[current_design].work, and other designs keep only that sum.  NULL
 * when an index is out of range or another design's. */
const struct event_work *model_process_work(const struct model_result *result, size_t process, size_t design);

/* The kernel objects one fork + exit of every process of the snapshot
 * makes and frees under its own design (model/time.c): what the
 * tracepoints of `ptscope bench` count, predicted. */
struct fork_events {
	const char *design;             /* the design's id */
	uint64_t forks;                 /* one per process */
	uint64_t vmas;                  /* vm_area_struct duplicated, freed at the child's exit */
	uint64_t anon_vmas;             /* anon_vma made by anon_vma_fork (0 before anon_vma designs) */
	uint64_t chains;                /* anon_vma_chain (chain designs only) */
	struct fork_copy copy;          /* PTE pages allocated and PTEs copied (model/fork.c) */
};
/* 0, or -1 when the snapshot has no design of its own. */
int model_fork_events(const struct model_result *result, struct fork_events *events);

/* ---- the cost of each step, fitted (model/fit.c) ---- */

enum { FIT_MOST_TERMS = 8 };
struct fit_result {
	size_t terms, observations;
	double coefficients[FIT_MOST_TERMS];
	double errors[FIT_MOST_TERMS];  /* standard errors */
	double residual;                /* root mean square, n - p degrees of freedom */
	double r_squared;
	bool robust;                    /* fit_robust: bisquare weights */
	size_t outliers;                /* measurements the robust fit gave under half weight */
	bool dropped[FIT_MOST_TERMS];   /* came out negative: fitted as 0 (fit_robust) */
	double dropped_us[FIT_MOST_TERMS]; /* what it came out at before it was dropped */
};
/* Least squares of y (observations) on x (observations x terms, row after
 * row).  Fewer observations than terms + 1 is bad input. 0, or -1. */
int fit_least_squares(const double *x, const double *y, size_t observations, size_t terms, struct fit_result *fit,
		      struct error *error);
/* Robust (bisquare) fit of the same; a term from free_terms on whose
 * coefficient is negative is dropped (fitted as 0, marked) and the rest
 * fitted again.  0, or -1. */
int fit_robust(const double *x, const double *y, size_t observations, size_t terms, size_t free_terms,
	       struct fit_result *fit, struct error *error);
double fit_predict(const struct fit_result *fit, const double *counts);

/* Helpers the report and the tests use. */
/* A VMA's permission test of the 2006 patch etc.: eligible under the rule? */
bool sharing_vma_eligible(const struct sharing_rule *rule, const struct vma *vma);
/* ... the same but for the rule's min-bytes, and that alone (eligible = both) */
bool sharing_vma_eligible_any_size(const struct sharing_rule *rule, const struct vma *vma);
/* All that the kind test reads of a VMA: VMAs with equal keys are of the
 * same rules' kinds (a pass over many VMAs tests each key once). */
struct sharing_kind_key {
	uint64_t vm_flags;
	bool anonymous, writable_private;
};
struct sharing_kind_key sharing_vma_kind_key(const struct vma *vma);
bool sharing_kind_eligible(const struct sharing_rule *rule, struct sharing_kind_key key);
bool sharing_vma_large_enough(const struct sharing_rule *rule, const struct vma *vma);
/* Smallest and largest C(m)/m over 2 <= m <= m_max (section 6 bounds). */
void rmap_share_range(const struct rmap_profile *profile, uint64_t m_max, bool anonymous,
		      double *lowest, double *highest);

#endif
