#!/bin/sh
# A live read of processes that map and unmap huge pages all the time (as
# malloc arenas do) never fails: a process whose mappings change between its
# smaps and its PMD scan (PAGEMAP_SCAN finds a THP in a VMA smaps did not
# list) is read again, then skipped and counted as changed, never written
# with a pmd_mapped range outside its VMAs, which a reader refuses.
# Four churning processes (each: map 8 MiB, fault a 4 MiB THP-advised part,
# unmap, rest 300 us) and 100 live reads: before the check, 7 of 100 reads
# failed here ("PID/pmd_mapped: range 0: address ... is outside every VMA").
# A read that races no change passes either way, so the test can pass on a
# machine too slow or too fast to race; it cannot pass with a refused read.
# Skipped where THP is disabled or PAGEMAP_SCAN (Linux 6.7) is absent.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v cc >/dev/null || skip "no C compiler"
thp=/sys/kernel/mm/transparent_hugepage/enabled
[ -r "$thp" ] && ! grep -q '\[never\]' "$thp" || skip "transparent huge pages are disabled"

cat > "$tmp/churn.c" <<'C'
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#define MIB (1024UL * 1024)
int main(void)
{
	for (;;) {
		char *area = mmap(NULL, 8 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (area == MAP_FAILED)
			return 1;
		char *huge = (char *)(((uintptr_t)area + 2 * MIB - 1) & ~(2 * MIB - 1));
		madvise(huge, 4 * MIB, MADV_HUGEPAGE);
		memset(huge, 1, 4 * MIB);
		munmap(area, 8 * MIB);
		usleep(300);
	}
}
C
cc -O1 -o "$tmp/churn" "$tmp/churn.c" || fail "cannot build the churning program"
for i in 1 2 3 4; do
	"$tmp/churn" & pids="$pids $!"
done
sleep 0.3
for p in $pids; do kill -0 "$p" 2>/dev/null || fail "churning process $p ended"; done
# the scan answers on this kernel (a PMD-mapped range shows), else skip
set -- $pids
"$PTSCOPE" capture --pid "$1" -o "$tmp/one.tar" > /dev/null 2> "$tmp/err" || fail "capture: $(cat "$tmp/err")"
tar -tf "$tmp/one.tar" | grep -q '/pmd_mapped$' || skip "no PAGEMAP_SCAN here (Linux 6.7+): no pmd_mapped member"
reads=0 changed=0
while [ $reads -lt 100 ]; do
	"$PTSCOPE" info > "$tmp/info" 2> "$tmp/err" || fail "live read $reads refused: $(cat "$tmp/err")"
	n=$(sed -n 's/^of them changed during capture: //p' "$tmp/info")
	changed=$((changed + ${n:-0}))
	reads=$((reads + 1))
done
echo "ok: 100 live reads beside 4 processes changing their huge mappings, none refused ($changed processes skipped as changed after 3 reads)"
