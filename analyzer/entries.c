/*
 * analyzer/entries.c - where mm work starts, by the names each kernel era
 * gave it.  Names that a tree does not define simply match nothing.
 */
#include <stddef.h>
#include <string.h>

#include "analyzer/analyzer.h"

const char *const analyzer_default_entries[] = {
	/* fork: do_fork until 5.9, kernel_clone since 5.10 */
	"do_fork", "kernel_clone", "copy_process",
	/* page fault: x86 do_page_fault until 5.7, exc_page_fault since 5.8 */
	"do_page_fault", "exc_page_fault", "handle_mm_fault",
	/* exit */
	"do_exit", "exit_mmap", "mmput",
	/* munmap: __do_munmap 4.20-5.19, do_mas_munmap 6.1, do_vmi_munmap 6.2+ */
	"sys_munmap", "__do_sys_munmap", "do_munmap", "__do_munmap", "do_mas_munmap",
	"do_vmi_munmap", "vm_munmap", "__vm_munmap",
	/* mremap */
	"sys_mremap", "__do_sys_mremap", "do_mremap",
	/* exec */
	"do_execve", "do_execveat_common", "setup_arg_pages",
	/* reclaim: 2.4/2.5 shrink_caches, 2.6 shrink_zone(s), 4.8+ shrink_node */
	"kswapd", "balance_pgdat", "try_to_free_pages", "try_to_free_mem_cgroup_pages",
	"shrink_all_memory", "shrink_caches", "shrink_zones", "shrink_zone", "shrink_node",
	"reclaim_pages",
	NULL,
};

/*
 * --path presets: one job's rmap paths, small enough to read (aim: under 60
 * functions on 6.1).  Each names the job's entries and only the rmap
 * functions that job calls (the sinks), under every era's names, and leaves
 * out what any job can fall into on the way: page allocation with its
 * reclaim, compaction and migration, memcg charging, and for reclaim the
 * shrinkers and page-walk callbacks reached through pointers.
 */
#define ALLOCATION_SIDE_PATHS \
	"mm/page_alloc.c", "mm/vmscan.c", "mm/compaction.c", "mm/memcontrol.c", "mm/migrate.c"

static const char *const fork_entries[] = { "kernel_clone", "do_fork", NULL };
static const char *const fork_sinks[] = {
	"anon_vma_fork", "anon_vma_clone", "anon_vma_link",     /* 2.6.34+ / 2.6.7-2.6.33 */
	"page_*dup*rmap*", "__page_dup_rmap", "folio_*dup*rmap*", /* 2.6-6.x, 6.5+ folios */
	"page_add_rmap",                                         /* 2.4/2.5 copy_page_range */
	NULL,
};
/* x86 5.8+: exc_page_fault is written with DEFINE_IDTENTRY_RAW_ERRORCODE, a
 * macro the parse does not see as that name; do_user_addr_fault is the arch
 * handler that calls handle_mm_fault */
static const char *const fault_entries[] = {
	"exc_page_fault", "do_user_addr_fault", "do_page_fault", "handle_mm_fault", NULL,
};
static const char *const fault_sinks[] = {
	"page_add_*rmap", "folio_add_*rmap*", "do_page_add_anon_rmap", "hugepage_add_*rmap",
	"anon_vma_prepare", "__anon_vma_prepare", "page_move_anon_rmap", "folio_move_anon_rmap",
	"page_add_rmap",
	/* a COW fault also removes the old page's rmap: do_wp_page (2.4-5.x),
	 * wp_page_copy (5.x-6.x), and on 2.4/2.5 frees its pte_chain */
	"page_remove_rmap", "folio_remove_rmap*", "pte_chain_free", "__pte_chain_free", NULL,
};
static const char *const exit_entries[] = { "do_exit", NULL };
static const char *const unmap_sinks[] = {
	"page_remove_rmap", "page_remove_*rmap", "folio_remove_rmap*", "unlink_anon_vmas",
	"anon_vma_unlink", "put_anon_vma", NULL,
};
static const char *const munmap_entries[] = {
	"sys_munmap", "__do_sys_munmap", "do_munmap", "__do_munmap", "do_mas_munmap", "do_vmi_munmap",
	"vm_munmap", "__vm_munmap", NULL,
};
static const char *const munmap_sinks[] = {
	"page_remove_rmap", "page_remove_*rmap", "folio_remove_rmap*", "unlink_anon_vmas",
	"anon_vma_unlink", "anon_vma_clone", NULL,   /* a partial munmap splits the VMA */
};
static const char *const reclaim_entries[] = { "kswapd", "try_to_free_pages", "shrink_caches", NULL };
static const char *const reclaim_sinks[] = {
	"try_to_unmap", "try_to_unmap_one", "page_referenced*", "folio_referenced*", "rmap_walk*",
	"page_lock_anon_vma*", "folio_lock_anon_vma*", "page_mkclean", "folio_mkclean", NULL,
};
static const char *const side_paths[] = { ALLOCATION_SIDE_PATHS, NULL };
/* With COW's rmap remove a sink, the fault's other ways into a remove are
 * left out: 2.4's do_page_fault killing the task (do_exit: exit's job),
 * huge-page splits, hugetlb unmapping other tasks' private copies, and
 * shmem/truncation unmapping a file range */
static const char *const fault_side_paths[] = {
	ALLOCATION_SIDE_PATHS, "do_exit", "split_huge_page_to_list", "__split_huge_pmd", "unmap_ref_private",
	"unmap_mapping_pages", "unmap_mapping_range", NULL,
};
static const char *const reclaim_side_paths[] = {
	"mm/page_alloc.c", "mm/compaction.c", "mm/memcontrol.c", "mm/migrate.c",
	"shrink_slab", "walk_page_range", "handle_mm_fault", "split_huge_page_to_list", "shmem_writepage",
	NULL,
};

const struct analyzer_path analyzer_paths[] = {
	{ "fork", "fork copies the address space: anon_vma_fork and the PTE copy's rmap dups",
	  fork_entries, fork_sinks, side_paths,
	  "allocation, reclaim, compaction, migration and memcg charging inside fork" },
	{ "fault", "a page fault maps a new page: anon_vma_prepare, the page's rmap add and COW's remove",
	  fault_entries, fault_sinks, fault_side_paths,
	  "allocation, reclaim, compaction, migration and memcg charging inside the fault, the "
	  "task's own exit when the fault kills it, huge-page splits and file-range unmaps" },
	{ "exit", "exit tears down the address space: the PTE zap's rmap removes, unlink_anon_vmas",
	  exit_entries, unmap_sinks, side_paths,
	  "allocation, reclaim, compaction, migration and memcg charging inside exit" },
	{ "munmap", "munmap zaps a range: rmap removes, unlink_anon_vmas, the split's anon_vma_clone",
	  munmap_entries, munmap_sinks, side_paths,
	  "allocation, reclaim, compaction, migration and memcg charging inside munmap" },
	{ "reclaim", "reclaim unmaps and ages pages: the rmap walks, try_to_unmap, folio_referenced",
	  reclaim_entries, reclaim_sinks, reclaim_side_paths,
	  "allocation, compaction, migration, memcg, the shrinkers, page-table walks through "
	  "callbacks, faults and huge-page splits reached from reclaim" },
	{ NULL, NULL, NULL, NULL, NULL, NULL },
};

const struct analyzer_path *analyzer_path_named(const char *name)
{
	for (const struct analyzer_path *p = analyzer_paths; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}
