#!/bin/sh
# Capture a process tree this test starts itself, read it back, and check it
# agrees exactly with the live /proc files it came from.
#
# The tree is a small static C program (so no page of it is shared with any
# other process on the machine) that maps private, shared and read-only
# memory and a sparse 16 GiB reservation, forks three children that dirty
# some of it, and stops.  With every
# process under SIGSTOP nothing of theirs can change, so for each pid:
#   - PID/smaps in the tar equals a second read of /proc/PID/smaps byte for
#     byte, except the Pss lines of [vdso], whose pages every process on the
#     machine shares (their Pss moves whenever any process starts or exits),
#     and the Referenced lines, which page aging changes even in a stopped
#     process (seen here: 256 kB in the capture, 260 kB a moment later);
#   - `ptscope info --per-process` gives the live VMA count, Rss sum, VmPTE,
#     and the live Pss sum (with [vdso]'s Pss taken from the tar, as above);
#   - PID/pagemap equals what python3 reads from /proc/PID/pagemap itself
#     (the capture writes format 2: its chunks and runs are expanded into
#     PID/pagemap by tests/cli/snapshot-format.py, written from the format's
#     document);
#   - each kpages record of the tree's own pages equals /proc/kpagecount and
#     the stable bits of /proc/kpageflags.
command -v cc >/dev/null || { echo "no C compiler"; exit 77; }
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"

cat > "$tmp/tree.c" <<'EOF'
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { PAGE = 4096, PRIVATE_PAGES = 1024, SHARED_PAGES = 256, CHILDREN = 3 };

static char *map(size_t pages, int flags)
{
	char *p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE, flags | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(1);
	madvise(p, pages * PAGE, MADV_NOHUGEPAGE);  /* khugepaged must not move them */
	return p;
}

static void ready(void)
{
	printf("%d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		pause();
}

int main(void)
{
	char *private = map(PRIVATE_PAGES, MAP_PRIVATE);
	char *shared = map(SHARED_PAGES, MAP_SHARED);
	volatile char sink = 0;
	for (int i = 0; i < PRIVATE_PAGES; i += 2)
		private[i * PAGE] = (char)i;             /* every other page present */
	for (int i = 1; i < 64; i += 2)
		sink += private[i * PAGE];              /* read faults: the zero page */
	memset(shared, 1, SHARED_PAGES / 2 * PAGE);
	mprotect(private + 512 * PAGE, 128 * PAGE, PROT_READ);  /* split the VMA */
	/* A 16 GiB sparse reservation: capture reads it through PAGEMAP_SCAN. */
	size_t huge = (size_t)16 << 30;
	char *sparse = mmap(NULL, huge, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (sparse == MAP_FAILED)
		_exit(1);
	madvise(sparse, huge, MADV_NOHUGEPAGE);
	sparse[0] = 1;
	sparse[((size_t)5 << 30) + 3 * PAGE] = 2;
	sink += sparse[(size_t)9 << 30];             /* the zero page */
	sparse[huge - 1] = 3;
	for (int c = 1; c <= CHILDREN; c++) {
		if (fork() == 0) {
			for (int i = 0; i < 64 * c; i += 2)
				private[i * PAGE] = (char)c;    /* copy on write */
			memset(shared + SHARED_PAGES / 2 * PAGE, c, (size_t)c * PAGE);
			char *own = map((size_t)16 * c, MAP_PRIVATE);
			memset(own, c, (size_t)16 * c * PAGE);
			ready();
		}
	}
	ready();
	return sink;
}
EOF
cc -O1 -static -o "$tmp/tree" "$tmp/tree.c" 2>"$tmp/cc.err" ||
	cc -O1 -o "$tmp/tree" "$tmp/tree.c" || fail "cannot build the test program"
start_stopped "$tmp/tree" 4

out=$("$PTSCOPE" capture --tree "$root" -o "$tmp/snap.tar" 2>"$tmp/capture.err") ||
	fail "capture failed: $(cat "$tmp/capture.err")"
[ "$out" = "$tmp/snap.tar" ] || fail "capture printed '$out', not the path"
{ "$PTSCOPE" info "$tmp/snap.tar" && "$PTSCOPE" info --per-process "$tmp/snap.tar"; } > "$tmp/info" || fail "info failed"
python3 "$PTSCOPE_TESTS/cli/snapshot-format.py" to1 "$tmp/snap.tar" "$tmp/snap1.tar" || fail "cannot expand the capture's format 2"
mkdir "$tmp/x" && tar -xf "$tmp/snap1.tar" -C "$tmp/x" || fail "tar cannot unpack the capture"

# The tree and nothing else: the tar holds exactly our four pids.
got=$(ls "$tmp/x" | grep -E '^[0-9]+$' | sort -n | tr '\n' ' ')
want=$(echo $pids | tr ' ' '\n' | sort -n | tr '\n' ' ')
[ "$got" = "$want" ] || fail "captured pids '$got', want '$want'"
grep -qx 'processes: 4' "$tmp/info" || fail "info does not say 4 processes"
grep -qx 'processes: 4' "$tmp/x/snapshot.info" || fail "snapshot.info does not say 4 processes"
grep -qx 'skipped: 0' "$tmp/x/snapshot.info" || fail "snapshot.info: skipped is not 0"
grep -qx 'scope: part' "$tmp/x/snapshot.info" || fail "snapshot.info of a --tree capture does not say scope: part"
[ "$(id -u)" -eq 0 ] && { grep -qx 'pagemap: pfn' "$tmp/info" || fail "root capture is not pagemap: pfn"; }

# Mask the Pss lines of the [vdso] block and every Referenced line (see above).
mask_unstable() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { vdso = ($NF == "[vdso]") }
	     vdso && /^(Swap)?Pss/ || /^Referenced:/ { print $1, "masked"; next } { print }' "$1"
}
sum_field() { awk -v f="$1:" '$1 == f { s += $2 } END { print s + 0 }' "$2"; }
vdso_pss() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { vdso = ($NF == "[vdso]") }
	     vdso && $1 == "Pss:" { s += $2 } END { print s + 0 }' "$1"
}

for p in $pids; do
	cat "/proc/$p/smaps" > "$tmp/live.smaps"
	mask_unstable "$tmp/live.smaps" > "$tmp/live.masked"
	mask_unstable "$tmp/x/$p/smaps" > "$tmp/tar.masked"
	cmp -s "$tmp/live.masked" "$tmp/tar.masked" || {
		diff "$tmp/live.masked" "$tmp/tar.masked" | head
		fail "$p/smaps differs from /proc/$p/smaps"
	}
	# (through cat: /proc files claim size 0, which cmp would trust)
	for f in stat cmdline; do
		cat "/proc/$p/$f" > "$tmp/live.$f"
		cmp -s "$tmp/live.$f" "$tmp/x/$p/$f" || fail "$p/$f differs from /proc/$p/$f"
	done

	vmas=$(grep -cE '^[0-9a-f]+-[0-9a-f]+ ' "$tmp/live.smaps")
	rss=$(sum_field Rss "$tmp/live.smaps")
	pss=$(( $(sum_field Pss "$tmp/live.smaps") - $(vdso_pss "$tmp/live.smaps") + $(vdso_pss "$tmp/x/$p/smaps") ))
	vmpte=$(awk '$1 == "VmPTE:" { print $2 }' "/proc/$p/status")
	line=$(awk -F'\t' -v p="$p" '$1 == p' "$tmp/info")
	want="$p	tree	$vmas	$rss	$pss	$vmpte"
	[ "$line" = "$want" ] || fail "info line '$line', live /proc says '$want'"
done

# pagemap records and kpages against python3's own reading of /proc.
python3 - "$tmp/x" $pids <<'EOF' || fail "pagemap or kpages differ from /proc"
import os, re, struct, sys
root, pids = sys.argv[1], [int(p) for p in sys.argv[2:]]
PAGE = os.sysconf("SC_PAGE_SIZE")
PRESENT, SWAPPED, PFN = 1 << 63, 1 << 62, (1 << 55) - 1
# kpageflags bits that a page keeps while its processes are stopped
STABLE = sum(1 << b for b in (12, 15, 16, 17, 21, 22, 24))
header = re.compile(rb"^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$")
pfn_mode = open(os.path.join(root, "snapshot.info")).read().find("pagemap: pfn") >= 0
own_pfns = set()
total = 0
for pid in pids:
    want = []
    with open("/proc/%d/pagemap" % pid, "rb") as pm:
        for line in open("/proc/%d/smaps" % pid, "rb"):
            m = header.match(line)
            if not m or m.group(3).strip() == b"[vsyscall]":
                continue
            start, end = int(m.group(1), 16), int(m.group(2), 16)
            pm.seek(start // PAGE * 8)
            data = pm.read((end - start) // PAGE * 8)
            for i, (e,) in enumerate(struct.iter_unpack("<Q", data)):
                if e & (PRESENT | SWAPPED):
                    want.append((start + i * PAGE, e))
                    if m.group(3).strip() != b"[vdso]" and e & PRESENT and e & PFN:
                        own_pfns.add(e & PFN)
    raw = open(os.path.join(root, str(pid), "pagemap"), "rb").read()
    got = list(struct.iter_unpack("<QQ", raw))
    total += len(raw)
    if got != want:
        print("pid %d: %d records in the tar, %d in /proc" % (pid, len(got), len(want)))
        for a, b in zip(got, want):
            if a != b:
                print("first difference: tar %x %x, /proc %x %x" % (a + b))
                break
        sys.exit(1)
print("pagemap records agree: %d bytes" % total)
if pfn_mode:
    kp = {}
    raw = open(os.path.join(root, "kpages"), "rb").read()
    records = list(struct.iter_unpack("<QQQ", raw))
    pfns = [r[0] for r in records]
    assert pfns == sorted(set(pfns)), "kpages is not ascending and distinct"
    kp = {r[0]: r for r in records}
    with open("/proc/kpagecount", "rb") as kc, open("/proc/kpageflags", "rb") as kf:
        for pfn in sorted(own_pfns):
            if pfn not in kp:
                print("PFN %x missing from kpages" % pfn); sys.exit(1)
            kc.seek(pfn * 8); kf.seek(pfn * 8)
            count, = struct.unpack("<Q", kc.read(8))
            flags, = struct.unpack("<Q", kf.read(8))
            if kp[pfn][1] != count or (kp[pfn][2] ^ flags) & STABLE:
                print("PFN %x: kpages %s, /proc %d %x" % (pfn, kp[pfn][1:], count, flags)); sys.exit(1)
    print("kpages agree for %d PFNs of the tree" % len(own_pfns))
EOF

# info's totals are the tar's own sizes (format 2's pagemap members).
bytes=$(tar -xOf "$tmp/snap.tar" --wildcards '*/pagemap_runs' pagemap_chunks | wc -c)
grep -qx "pagemap bytes: $bytes" "$tmp/info" || fail "info pagemap bytes differ from the tar ($bytes)"
if [ -f "$tmp/x/kpages" ]; then
	k=$(( $(wc -c < "$tmp/x/kpages") / 24 ))
	grep -qx "kpages: $k" "$tmp/info" || fail "info kpages differ from the tar ($k)"
fi
echo "capture of a live tree agrees with /proc"
