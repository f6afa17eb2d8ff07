#!/bin/sh
# One fork of a known process against the kernel's own allocations: the
# kmem:kmem_cache_alloc tracepoint counts, in a private trace instance, what
# the process allocates while it forks once (the child exits at once), by
# cache name.  The model's figures for that process (6.1-x86_64, a --pid
# capture taken just before) must equal them:
#   anon_vma        = fork_anon_vma_calls (anon_vma_fork gives each VMA with
#                     an anon_vma a new one: the process was just exec'd, so
#                     no idle ancestor's is reused)
#   anon_vma_chain  = fork_chain_allocations (each such VMA clones its chain
#                     and adds one)
#   vm_area_struct  = the VMAs dup_mmap copies: smaps' VMAs but [vsyscall]
#                     and VM_DONTCOPY (dc)
# Slab merging: the tracepoint names a cache by the slab it lives in, so an
# fs_struct (copy_fs_struct: fs_cache merged into anon_vma_chain's 64-byte
# slab, /sys/kernel/slab/anon_vma_chain/aliases) counts as an
# "anon_vma_chain": those are told apart by call site and must be only
# allocations outside mm/rmap.c (docs/cost-model.md section 9).
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v cc >/dev/null || skip "no C compiler"
command -v jq >/dev/null || skip "needs jq"
trace_instance kmem_cache_alloc fork

cat > "$tmp/forker.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void)
{
	char *heap = malloc(1 << 16), c;
	memset(heap, 1, 1 << 16);
	char *anon = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (anon == MAP_FAILED)
		return 1;
	memset(anon, 2, 1 << 20);
	/* split it: two VMAs sharing one anon_vma, each with one chain */
	mprotect(anon, 1 << 19, PROT_READ);
	printf("%d\n", (int)getpid());
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		return 1;
	pid_t child = fork();
	if (child == 0)
		_exit(0);
	waitpid(child, NULL, 0);
	printf("done\n");
	fflush(stdout);
	while (read(0, &c, 1) > 0)
		;
	return 0;
}
C
cc -O1 -o "$tmp/forker" "$tmp/forker.c" || fail "cannot build the forker"
mkfifo "$tmp/go"
"$tmp/forker" < "$tmp/go" > "$tmp/out" &
pids="$!"
exec 3> "$tmp/go"
for _ in $(seq 100); do [ -s "$tmp/out" ] && break; sleep 0.05; done
pid=$(head -1 "$tmp/out")
[ -n "$pid" ] || fail "the forker did not start"
"$PTSCOPE" capture --pid "$pid" -o "$tmp/f.tar" >/dev/null 2>&1 || fail "capture --pid $pid"
echo "common_pid == $pid && (name == \"anon_vma\" || name == \"anon_vma_chain\" || name == \"vm_area_struct\")" > "$event/filter" ||
	fail "cannot set the event filter"
echo 1 > "$event/enable"
printf g >&3
for _ in $(seq 100); do grep -q done "$tmp/out" && break; sleep 0.05; done
echo 0 > "$event/enable"
grep -q done "$tmp/out" || fail "the forker did not fork"
cat "$instance/trace" > "$tmp/trace"
exec 3>&-

"$PTSCOPE" report "$tmp/f.tar" --format json > "$tmp/f.json" || fail "report"
design='.designs[] | select(.id == "6.1-x86_64") | .work_per_event'
model_anon_vma=$(jq "$design.fork_anon_vma_calls" "$tmp/f.json")
model_chains=$(jq "$design.fork_chain_allocations" "$tmp/f.json")
tar xf "$tmp/f.tar" -C "$tmp" "$pid/smaps" || fail "no smaps in the capture"
model_vmas=$(awk '/^[0-9a-f]+-[0-9a-f]+ / { n++; if ($0 ~ /\[vsyscall\]/) n-- } /^VmFlags:.* dc( |$)/ { n-- } END { print n }' "$tmp/$pid/smaps")

count() { grep -c "name=$1 " "$tmp/trace"; }
# allocations of anon_vma_chain's slab made by rmap (anon_vma_fork, anon_vma_clone)
rmap_chains=$(grep "name=anon_vma_chain " "$tmp/trace" | grep -c "call_site=anon_vma_")
merged=$(( $(count anon_vma_chain) - rmap_chains ))
echo "fork of pid $pid: kernel anon_vma $(count anon_vma), anon_vma_chain $(count anon_vma_chain) ($rmap_chains by rmap + $merged of caches merged into its slab: $(grep "name=anon_vma_chain " "$tmp/trace" | grep -v "call_site=anon_vma_" | sed 's/.*call_site=\([^+ ]*\).*/\1/' | sort | uniq -c | tr -s ' ' | tr '\n' ';')), vm_area_struct $(count vm_area_struct)"
echo "model: anon_vma $model_anon_vma, anon_vma_chain $model_chains, vm_area_struct $model_vmas"
[ "$(count anon_vma)" -eq "$model_anon_vma" ] || fail "anon_vma: the kernel allocated $(count anon_vma), the model says $model_anon_vma"
[ "$rmap_chains" -eq "$model_chains" ] || fail "anon_vma_chain: the kernel allocated $rmap_chains, the model says $model_chains"
[ "$(count vm_area_struct)" -eq "$model_vmas" ] || fail "vm_area_struct: the kernel allocated $(count vm_area_struct), the model says $model_vmas"
# what else the slab named anon_vma_chain holds comes from outside mm/rmap.c
if [ "$merged" -gt 0 ]; then
	aliases=$(cat /sys/kernel/slab/anon_vma_chain/aliases 2>/dev/null || echo 0)
	[ "$aliases" -gt 0 ] || fail "$merged anon_vma_chain allocations outside rmap, but no cache is merged into its slab"
fi
echo "fork-trace: ok"
