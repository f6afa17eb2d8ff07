/*
 * analyzer/entries.c - where mm work starts, by the names each kernel era
 * gave it.  Names that a tree does not define simply match nothing.
 */
#include <stddef.h>

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
