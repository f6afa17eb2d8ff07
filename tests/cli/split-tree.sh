#!/bin/sh
# anon_vma_chains of a fork tree with mprotect splits at three depths,
# against the kernel.  The root maps K = 8 anonymous regions of 4 pages and
# forks a chain of three descendants; the child splits each inherited region
# once (2 pieces), the grandchild again (3), the great-grandchild again (4),
# each piece holding a page the root wrote.  By hand (anon_vma_fork clones the parent VMA's chains
# and adds one, __split_vma gives each piece every chain): the regions hold
# K x (1 + 2x2 + 3x3 + 4x4) = 240 chains and K x (1 + 1 + 2 + 3) = 56
# anon_vmas, beside those of each process's own program and libraries.
# The kernel's count: every chain is freed by unlink_anon_vmas when its
# process exits, so the kmem:kmem_cache_free events of anon_vma_chain (from
# rmap's call sites; other caches share its slab) made by the tree's
# processes as they are killed are the chains they held; anon_vmas likewise
# (freed by whichever of them drops the last reference).  Both must equal
# the model's counts (6.1-x86_64) of a --tree capture taken just before.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root for tracefs and pagemap PFNs"
command -v cc >/dev/null || skip "no C compiler"
command -v jq >/dev/null || skip "needs jq"
trace_instance kmem_cache_free split

cat > "$tmp/tree.c" <<'C'
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
#define K 8
#define PAGE 4096
int main(void)
{
	char *region[K];
	for (int k = 0; k < K; k++) {
		/* a gap page between regions keeps them apart (no merging) */
		char *gap = mmap(NULL, 5 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (gap == MAP_FAILED)
			return 1;
		region[k] = mmap(gap, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		for (int p = 0; p < 4; p++)
			region[k][p * PAGE] = 1;
	}
	for (int depth = 1; depth <= 3; depth++) {
		if (fork() != 0)
			break;
		/* depth d cuts page d - 1 off: pieces [0, 1) [1, 2) ... [d - 1, 4);
		 * neighbours differ in protection, so no two pieces merge; each
		 * still maps the page the root wrote */
		for (int k = 0; k < K; k++)
			mprotect(region[k] + (depth - 1) * PAGE, PAGE, depth == 2 ? PROT_READ | PROT_EXEC : PROT_READ);
	}
	/* no stdio buffer: a heap made after the fork would be a new VMA at
	 * the parent's heap's address, which no snapshot tells from a copy */
	char line[16];
	int n = snprintf(line, sizeof(line), "%d\n", (int)getpid());
	if (write(1, line, (size_t)n) != n)
		return 1;
	pause();
	return 0;
}
C
cc -O1 -o "$tmp/tree" "$tmp/tree.c" || fail "cannot build the tree"
"$tmp/tree" > "$tmp/pids" &
root=$!
pids=$root
for _ in $(seq 100); do [ "$(wc -l < "$tmp/pids")" -ge 4 ] && break; sleep 0.05; done
[ "$(wc -l < "$tmp/pids")" -eq 4 ] || fail "the tree did not come up"
pids=$(cat "$tmp/pids")
"$PTSCOPE" capture --tree "$root" -o "$tmp/tree.tar" >/dev/null 2>&1 || fail "capture --tree"
"$PTSCOPE" report "$tmp/tree.tar" --format json > "$tmp/tree.json" || fail "report"
design='.designs[] | select(.id == "6.1-x86_64")'
model_chains=$(jq "$design.anon_vma_chains" "$tmp/tree.json")
model_anon_vmas=$(jq "$design.anon_vmas" "$tmp/tree.json")
[ "$(jq '.totals.processes' "$tmp/tree.json")" -eq 4 ] || fail "the capture does not hold the 4 processes"

filter=""
for p in $pids; do filter="$filter${filter:+ || }common_pid == $p"; done
echo "($filter) && (name == \"anon_vma_chain\" || name == \"anon_vma\")" > "$event/filter" || fail "cannot set the filter"
echo 1 > "$event/enable"
for p in $pids; do kill -KILL "$p"; done
for p in $pids; do while kill -0 "$p" 2>/dev/null; do sleep 0.05; done; done
wait "$root" 2>/dev/null
sleep 0.2
echo 0 > "$event/enable"
cat "$instance/trace" > "$tmp/trace"
pids=""
chains=$(grep -E "name=anon_vma_chain( |$)" "$tmp/trace" | grep -c "call_site=unlink_anon_vmas")
anon_vmas=$(grep -cE "name=anon_vma( |$)" "$tmp/trace")
echo "kernel: $chains anon_vma_chains and $anon_vmas anon_vmas freed as the tree exited; model: $model_chains and $model_anon_vmas"
[ "$model_chains" -ge 240 ] || fail "the model counts $model_chains chains, the split regions alone hold 240"
[ "$chains" -eq "$model_chains" ] || fail "anon_vma_chain: the kernel held $chains, the model says $model_chains"
[ "$anon_vmas" -eq "$model_anon_vmas" ] || fail "anon_vma: the kernel held $anon_vmas, the model says $model_anon_vmas"
echo "split-tree: ok"
