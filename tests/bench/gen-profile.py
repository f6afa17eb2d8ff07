#!/usr/bin/env python3
# A kernel profile of N distinct symbols in perf report --stdio form, each
# under two commands (2 N lines), the real rmap names among them, for
# bench-callgraph.sh: reading must stay linear in lines.
import sys
n = int(sys.argv[1])
real = ["page_remove_rmap", "copy_present_pte", "zap_pte_range", "do_wp_page", "anon_vma_fork"]
print("# Samples: 1M of event 'cycles'\n#\n# Overhead  Command  Shared Object      Symbol\n#")
total = 2 * n
for i in range(n):
    symbol = real[i] if i < len(real) else "sym_%06d.isra.0" % i if i % 7 == 0 else "sym_%06d" % i
    for command in ("make", "cc1"):
        print("    %.6f%%  %-7s  [kernel.kallsyms]  [k] %s" % (100.0 / total, command, symbol))
