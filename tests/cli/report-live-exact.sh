#!/bin/sh
# The model against the kernel's own counters, on a forked server this test
# starts itself: a parent with a 64 MiB shared anonymous region (shmem), a
# 4 MiB transparent-huge-page region and a sparse private region, and four
# children that touch the whole shared region and write some private pages.
# With the tree stopped and captured:
#  - every process's exact page-table figure equals its VmPTE (status);
#  - pmd_mapped_windows equals the live smaps AnonHugePages / 2 MiB, summed;
#  - shpt-2006 shares (whole 2 MiB windows of the shared region) x (5 - 1)
#    PTE pages: the binary is static, so the shared region is the only
#    eligible VMA of 2 MiB or more (31 or 32 windows, as mmap aligned it);
#  - identical PTE pages are at least those windows x 4 (more where the
#    binary's pages line up);
#  - the snapshot keeps each distinct 2 MiB chunk content once: the four
#    children's whole shared windows repeat the parent's, so info --verify
#    counts at least windows x 4 fewer distinct contents than chunks.
# The capture uses the default codec (zstd, -o DIR names it).
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v cc >/dev/null || { echo "no C compiler"; exit 77; }
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "needs root for pagemap PFNs"; exit 77; }

cat > "$tmp/server.c" <<'C'
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#define MIB (1024UL * 1024)
int main(void)
{
	char *shared = mmap(NULL, 64 * MIB, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	char *area = mmap(NULL, 8 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *sparse = mmap(NULL, 256 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED || area == MAP_FAILED || sparse == MAP_FAILED)
		return 1;
	char *huge = (char *)(((uintptr_t)area + 2 * MIB - 1) & ~(2 * MIB - 1));
	madvise(huge, 4 * MIB, MADV_HUGEPAGE);
	memset(huge, 1, 4 * MIB);
	memset(shared, 2, 64 * MIB);
	for (size_t off = 0; off < 256 * MIB; off += 3 * MIB + 4096)
		sparse[off] = 3;
	printf("%d\n", getpid());
	fflush(stdout);
	for (int i = 0; i < 4; i++) {
		if (fork() == 0) {
			volatile char sum = 0;
			for (size_t off = 0; off < 64 * MIB; off += 4096)
				sum += shared[off];
			for (size_t off = (size_t)i * 5 * MIB; off < 256 * MIB; off += 7 * MIB)
				sparse[off] = (char)i;
			printf("%d\n", getpid());
			fflush(stdout);
			pause();
			return sum == 0;
		}
	}
	pause();
	return 0;
}
C
cc -O1 -static -o "$tmp/server" "$tmp/server.c" 2>/dev/null || fail "cannot build the static test server"
start_stopped "$tmp/server" 5

# The kernel's own counters, read while the tree is stopped.
thp_windows=0
for p in $pids; do
	kb=$(awk '$1 == "AnonHugePages:" { s += $2 } END { print s + 0 }' "/proc/$p/smaps")
	thp_windows=$((thp_windows + kb / 2048))
done

shared=$(awk '$2 == "rw-s" && /\/dev\/zero/ { print $1 }' "/proc/$root/maps")
[ -n "$shared" ] || fail "no shared region in /proc/$root/maps"

mkdir "$tmp/out"
snap=$("$PTSCOPE" capture --tree "$root" -o "$tmp/out" 2> /dev/null) || fail "capture failed"
case $snap in *.tar.zst) ;; *) fail "default capture name $snap is not .tar.zst" ;; esac
"$PTSCOPE" report "$snap" --per-process --format json -o "$tmp/report.json" || fail "report failed"
chunks=$("$PTSCOPE" info --verify "$snap" | sed -n 's/^pagemap chunks: //p')
[ -n "$chunks" ] || fail "info --verify does not count pagemap chunks"

python3 - "$tmp/report.json" "$thp_windows" "$shared" "$chunks" <<'PY' || exit 1
import json, sys
report = json.load(open(sys.argv[1]))
thp_windows = int(sys.argv[2])
start, end = (int(x, 16) for x in sys.argv[3].split("-"))
windows = end // (2 << 20) - (start + (2 << 20) - 1) // (2 << 20)
sharable = windows * 4
t = report["totals"]
problems = []
if t["processes"] != 5:
    problems.append("processes %d, want 5" % t["processes"])
for p in report["processes"]:
    if p["pagetable_bytes"] != p["vmpte_bytes"]:
        problems.append("pid %d: model %d bytes, VmPTE %d" % (p["pid"], p["pagetable_bytes"], p["vmpte_bytes"]))
if t["processes_pagetable_exact"] != 5:
    problems.append("processes_pagetable_exact %d, want 5" % t["processes_pagetable_exact"])
if t["pmd_mapped_windows"] != thp_windows:
    problems.append("pmd_mapped_windows %d, live AnonHugePages says %d" % (t["pmd_mapped_windows"], thp_windows))
if t["sharable_pte_pages"]["shpt-2006"] != sharable:
    problems.append("shpt-2006 %d, want %d windows x 4 partners = %d" % (t["sharable_pte_pages"]["shpt-2006"], windows, sharable))
if t["sharable_pte_pages"]["identical"] < sharable:
    problems.append("identical %d, want at least %d" % (t["sharable_pte_pages"]["identical"], sharable))
chunks, distinct = (int(x) for x in sys.argv[4].replace("(", "").split()[:2])
if chunks - distinct < sharable:
    problems.append("%d chunks kept as %d distinct contents, want at least %d fewer" % (chunks, distinct, sharable))
for line in problems:
    print("FAIL:", line)
print("5 processes exact; %d THP windows; shpt-2006 %d; %d chunks, %d distinct" % (thp_windows, t["sharable_pte_pages"]["shpt-2006"], chunks, distinct))
sys.exit(1 if problems else 0)
PY
