#!/bin/sh
# Page-cache large folios mapped by PTEs beside the same folios mapped by a
# PMD.  A tmpfs mounted huge=always keeps an 8 MiB file in 2 MiB folios; two
# processes map it at a 2 MiB-aligned address and read every page: one lets
# the kernel map it by PMDs (smaps ShmemPmdMapped 8192 kB: 4 windows, no PTE
# page), the other asks for none (MADV_NOHUGEPAGE), so the same folios are
# mapped by 512 PTEs each (4 PTE pages) - in pagemap and kpageflags the two
# look alike.  Checked against the kernel's own VmPTE:
#  - with the capture's PID/pmd_mapped (PAGEMAP_SCAN, Linux 6.7+): every
#    process's page tables equal its VmPTE; PMD-mapped windows 4 and 0;
#  - the same snapshot without those members (as older captures): smaps'
#    per-VMA count decides, and again every process equals its VmPTE.
# Skipped, visibly, where no tmpfs with huge pages can be mounted or the
# file gets no 2 MiB folios.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (mount, pagemap PFNs)"
command -v cc >/dev/null || skip "no C compiler"
command -v jq >/dev/null || skip "needs jq"
mnt=$(mktemp -d)
finish() {
	for p in $pids; do kill -KILL "$p" 2>/dev/null; done
	for p in $pids; do while kill -0 "$p" 2>/dev/null; do sleep 0.05; done; done
	pids=""
	umount "$mnt" 2>/dev/null
	rmdir "$mnt"
	cleanup
}
trap finish EXIT
mount -t tmpfs -o huge=always,size=32M none "$mnt" 2>/dev/null || skip "cannot mount a tmpfs with huge=always"

cat > "$tmp/folio.c" <<'C'
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#define MIB (1024UL * 1024)
int main(int argc, char **argv)
{
	int fd = argc == 3 ? open(argv[1], O_RDONLY) : -1;
	if (fd < 0)
		return 2;
	char *reserve = mmap(NULL, 10 * MIB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (reserve == MAP_FAILED)
		return 1;
	char *at = (char *)(((uintptr_t)reserve + 2 * MIB - 1) & ~(2 * MIB - 1));
	char *map = mmap(at, 8 * MIB, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
	if (map == MAP_FAILED)
		return 1;
	if (!strcmp(argv[2], "pte"))
		madvise(map, 8 * MIB, MADV_NOHUGEPAGE);
	volatile char sum = 0;
	for (size_t off = 0; off < 8 * MIB; off += 4096)
		sum += map[off];
	printf("%d\n", getpid());
	fflush(stdout);
	pause();
	return sum == 1;
}
C
cc -O1 -o "$tmp/folio" "$tmp/folio.c" || fail "cannot build the mapper"
dd if=/dev/urandom of="$mnt/data" bs=1M count=8 status=none || fail "cannot write the file"
"$tmp/folio" "$mnt/data" pmd > "$tmp/pmd.pid" &
pids=$!
"$tmp/folio" "$mnt/data" pte > "$tmp/pte.pid" &
pids="$pids $!"
for _ in $(seq 100); do [ -s "$tmp/pmd.pid" ] && [ -s "$tmp/pte.pid" ] && break; sleep 0.05; done
a=$(cat "$tmp/pmd.pid"); b=$(cat "$tmp/pte.pid")
[ -n "$a" ] && [ -n "$b" ] || fail "the mappers did not start"
pmd_kb=$(awk '$1 == "ShmemPmdMapped:" { s += $2 } END { print s + 0 }' "/proc/$a/smaps")
[ "$pmd_kb" -eq 8192 ] || skip "the file got no 2 MiB folios mapped by PMDs (ShmemPmdMapped $pmd_kb kB)"
"$PTSCOPE" capture --pid "$a" --pid "$b" -o "$tmp/folio.tar" >/dev/null 2>&1 || fail "capture"
tar tf "$tmp/folio.tar" | grep -q "^$a/pmd_mapped$" || skip "this kernel has no PAGEMAP_SCAN (Linux 6.7+): no PID/pmd_mapped"

check() {   # report, what it is
	"$PTSCOPE" report "$1" --format json --per-process > "$tmp/r.json" || fail "report of $2"
	echo "$2: $(jq -c '[.processes[] | {pid, pagetable_bytes, vmpte_bytes, pmd_mapped_windows}]' "$tmp/r.json")"
	jq -e '[.processes[] | .pagetable_bytes == .vmpte_bytes] | all' "$tmp/r.json" >/dev/null ||
		fail "$2: page tables differ from VmPTE"
	[ "$(jq --argjson p "$a" '.processes[] | select(.pid == $p) | .pmd_mapped_windows' "$tmp/r.json")" -eq 4 ] ||
		fail "$2: the PMD-mapped process does not have 4 PMD-mapped windows"
	[ "$(jq --argjson p "$b" '.processes[] | select(.pid == $p) | .pmd_mapped_windows' "$tmp/r.json")" -eq 0 ] ||
		fail "$2: the PTE-mapped process has PMD-mapped windows"
}
check "$tmp/folio.tar" "with PID/pmd_mapped"
mkdir "$tmp/old"
tar xf "$tmp/folio.tar" -C "$tmp/old" || fail "unpack"
rm -f "$tmp/old/$a/pmd_mapped" "$tmp/old/$b/pmd_mapped"
check "$tmp/old" "without it (smaps counts)"
echo "large-folios: ok"
