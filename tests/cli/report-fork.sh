#!/bin/sh
# What a fork copies, today and per sharing rule (model/fork.c), on an x86_64
# snapshot written here (2 MiB PTE windows; today = 6.1-x86_64, lazy fork:
# VMAs without an anon_vma are not copied).  One process:
#   A 0x400000-0x600000 r--p libbig.so, one whole 2 MiB window, 3 file pages
#     + 2 private copy-on-write pages (Anonymous 8 kB: it has an anon_vma);
#     read-only, file-backed, 2 MiB: shpt-2006 shares its window;
#   B 0x800000-0x801000 rw-p anonymous, 1 page;
#   C 0xa00000-0xa02000 r-xp app, 2 file pages, no anon_vma: not copied.
# Worked by hand: today A (5 PTEs) + B (1) in two windows = 2 PTE pages,
# 6 PTEs; under shpt-2006 A's window is shared, not copied: 1 page, 1 PTE;
# identical (merged after the fork) copies as today: 2 pages, 6 PTEs.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
python3 - "$tmp/snap" <<'PY'
import os, struct, sys
d = sys.argv[1]
os.makedirs(os.path.join(d, "7"))
w = lambda name, text: open(os.path.join(d, name), "w").write(text)
w("version", "Linux version 6.1.0 (fixture)\n")
w("meminfo", "MemTotal: 262144 kB\n")
w("snapshot.info", "format: ptscope-snapshot 1\npage_size: 4096\narch: x86_64\npagemap: pfn\n")
w("7/stat", "7 (app) S 1 7 7 0 -1\n")
w("7/cmdline", "app\0")
w("7/status", "VmPTE:\t       12 kB\n")
vmas = [(0x400000, 0x600000, "r--p", "/usr/lib/libbig.so", 3, 2),
        (0x800000, 0x801000, "rw-p", "", 0, 1),
        (0xa00000, 0xa02000, "r-xp", "/usr/bin/app", 2, 0)]
smaps, records, pfn = "", [], 100
for start, end, perms, path, files, anon in vmas:
    kb, rss = (end - start) // 1024, 4 * (files + anon)
    smaps += "%016x-%016x %s 00000000 %s %s %s\n" % (start, end, perms, "08:01" if path else "00:00",
                                                    "9" if path else "0", path)
    smaps += "Size: %d kB\nRss: %d kB\nPss: %d kB\nAnonymous: %d kB\n" % (kb, rss, rss, 4 * anon)
    for i in range(files + anon):
        bits = (1 << 63) | ((1 << 61) if i < files else (1 << 56))
        records.append((start + 4096 * i, bits | pfn))
        pfn += 1
w("7/smaps", smaps)
with open(os.path.join(d, "7/pagemap"), "wb") as f:
    for r in records:
        f.write(struct.pack("<QQ", *r))
PY
"$PTSCOPE" report "$tmp/snap" --per-process --format json -o "$tmp/r.json" || fail "json: exit status $?"
python3 - "$tmp/r.json" <<'PY' || fail "fork copies differ from the hand-worked ones"
import json, sys
r = json.load(open(sys.argv[1]))
for where in (r["totals"], r["processes"][0]):
    pages, ptes = where["fork_pte_pages_copied"], where["fork_ptes_copied"]
    assert (pages["none"], ptes["none"]) == (2, 6), (pages, ptes)
    assert (pages["shpt-2006"], ptes["shpt-2006"]) == (1, 1), (pages, ptes)
    assert (pages["identical"], ptes["identical"]) == (2, 6), (pages, ptes)
s = {x["id"]: x for x in r["sharing"]}
assert (s["shpt-2006"]["fork_pte_pages_copied"], s["shpt-2006"]["fork_ptes_copied"]) == (1, 1), s["shpt-2006"]
PY
"$PTSCOPE" report "$tmp/snap" --per-process > "$tmp/r.txt" || fail "text: exit status $?"
grep -Eq '^  today +2 / 6$' "$tmp/r.txt" || fail "text: no 'today 2 / 6' row"
grep -Eq '^  shpt-2006 +1 / 1$' "$tmp/r.txt" || fail "text: no 'shpt-2006 1 / 1' row"
grep -Eq '^ +7 app +2 +1 ' "$tmp/r.txt" || fail "text: no per-process row 'app 2 1'"
echo "fork copies: today 2 PTE pages / 6 PTEs, shpt-2006 1 / 1, as worked by hand"
