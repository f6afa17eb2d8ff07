/*
 * model/model_internal.h - what the model's files share among themselves.
 * Private to model/: everything outside reads model/model.h only.
 */
#ifndef PTSCOPE_MODEL_INTERNAL_H
#define PTSCOPE_MODEL_INTERNAL_H

#include "model/model.h"

/* One populated PTE-level window of one process (records are in vaddr order,
 * so a window is a contiguous run of them). */
struct process_window {
	uint64_t window;                /* vaddr >> pte_shift */
	size_t first, count;            /* run in process->pagemap */
	bool pmd_mapped;                /* mapped by a PMD leaf (THP/hugetlb) */
	bool anon_pmd;                  /* ... anonymous: the kernel deposited a PTE page */
};

struct process_data {
	struct process_window *windows;
	size_t window_count;
};

/* What the model knows about one physical page. */
struct pfn_entry {
	uint64_t pfn;
	uint32_t records;               /* present records in the snapshot */
	uint32_t anon_records;          /* ... with pagemap bit 61 clear */
	const struct kpage *kpage;      /* NULL without kpages */
	uint32_t anon_vma_owner;        /* global VMA index + 1 of a VMA mapping it as shared anon */
};

struct pfn_table {
	struct pfn_entry *entries;
	size_t count, capacity;
	uint32_t *slots;                /* index + 1 into entries; 0 empty */
	size_t slot_mask;
};

struct model_context {
	const struct snapshot *snapshot;
	const struct model_options *options;
	struct model_result *result;
	const struct geometry *geometry;
	unsigned pte_shift;
	struct process_data *data;      /* one per snapshot process */
	struct pfn_table pfns;
	bool *vma_has_anon_vma;         /* per global VMA index */
};

/* pfn table (model/pfns.c) */
struct pfn_entry *pfn_table_find(const struct pfn_table *table, uint64_t pfn);
struct pfn_entry *pfn_table_add(struct pfn_table *table, uint64_t pfn);
void pfn_table_free(struct pfn_table *table);

/* m of section 8: max(kpagecount, records in the snapshot) */
uint64_t pfn_mapcount(const struct pfn_entry *entry);
bool pfn_is_zero_page(const struct pfn_entry *entry);
/* A record's page is "anonymous" for D4 (section 8). */
bool record_is_anonymous(uint64_t entry_word, const struct pfn_entry *pfn);

/* Layout helpers (model/model.c). */
size_t windows_lower_bound(const struct process_data *data, uint64_t window);

/* The pieces of model_run. */
void model_estimate(struct model_context *context);          /* model/estimate.c */
int model_sharing(struct model_context *context);            /* model/sharing.c */
void model_object_rmap(struct model_context *context);       /* model/objrmap.c */

_Noreturn void model_out_of_memory(void);
void *model_grow(void *array, size_t *capacity, size_t need, size_t size);

#endif
