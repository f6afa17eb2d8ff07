#!/bin/sh
# report AFTER --versus BEFORE on two small i386 snapshots written here, every
# page mapped once (kpages mapcount 1), 4 MiB PTE windows (i386 2-level).
# Worked by hand:
#   BEFORE: server (pid 7, "server --port 80"): 3 file pages + 1 anonymous in
#           one window; worker (8, "worker"): 1 file page; oldjob (9): 1 anon;
#           servers 10 and 11: 2 pages each of a 4 MiB r-xp mapping of
#           libshared.so at 0x40000000 (a whole window: shpt-2006 shares it,
#           2 partners - 1 distinct = 1 page).
#           10 present PTEs, 5 PTE pages = 20480 B, 6 VMAs, 5 processes.
#   AFTER:  server 20 (7's command line): the same plus 2 anonymous pages at
#           0x40000000, a second window; worker 21 ("worker -v": matched by
#           comm); cron 22 (new); servers 23, 24, 25 with libshared.so (23, 24
#           match 10, 11 by command line in pid order; 25 is new): shpt-2006
#           3 partners - 1 = 2 pages.
#           14 present PTEs, 7 PTE pages = 28672 B, 8 VMAs, 6 processes.
#   delta: processes +1, present_ptes +4, pte_pages +2, pagetable_bytes +8192
#   (+40.0%), vmas +2; 2.4-rmap-i386 pte_chains (one 8-byte pte_chain per
#   mapping) 80 -> 112 B, +32; shpt-2006 1 -> 2 pages, libshared.so +1.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v python3 >/dev/null || { echo "no python3"; exit 77; }

# snapshot DIR PFN_BASE then lines "pid comm cmdline vmpte_kb" + per process
# "start end perms path anon_kb" VMAs, all pages present.
python3 - "$tmp" <<'PY'
import os, struct, sys
root = sys.argv[1]
def snapshot(name, processes):
    d = os.path.join(root, name)
    os.makedirs(d)
    open(os.path.join(d, "version"), "w").write("Linux version 2.6.0 (fixture)\n")
    open(os.path.join(d, "meminfo"), "w").write("MemTotal: 262144 kB\n")
    open(os.path.join(d, "snapshot.info"), "w").write(
        "format: ptscope-snapshot 1\npage_size: 4096\narch: i386\npagemap: pfn\n")
    pfn, kpages = 1000, []
    for pid, comm, cmdline, vmas in processes:
        p = os.path.join(d, str(pid))
        os.makedirs(p)
        open(os.path.join(p, "stat"), "w").write("%d (%s) S 1 %d %d 0 -1\n" % (pid, comm, pid, pid))
        open(os.path.join(p, "cmdline"), "w").write("\0".join(cmdline.split()) + "\0")
        vmas = [v if len(v) == 5 else v + ((v[1] - v[0]) // 4096,) for v in vmas]
        windows = {v[0] >> 22 for v in vmas}
        open(os.path.join(p, "status"), "w").write("VmPTE:\t%8d kB\n" % (4 * len(windows)))
        smaps, records = "", []
        for start, end, perms, path, present in vmas:
            kb = (end - start) // 1024
            rss = present * 4
            anon = rss if not path else 0
            smaps += "%08x-%08x %s 00000000 %s %s %s\n" % (start, end, perms, "08:01" if path else "00:00",
                                                           "5" if path else "0", path)
            smaps += "Size: %d kB\nRss: %d kB\nPss: %d kB\nPrivate_Clean: %d kB\nAnonymous: %d kB\n" % (kb, rss, rss, rss, anon)
            for a in range(start, start + present * 4096, 4096):
                records.append((a, (1 << 63) | ((1 << 61) if path else 0) | pfn))
                kpages.append((pfn, 1, 0 if path else 1 << 12))
                pfn += 1
        open(os.path.join(p, "smaps"), "w").write(smaps)
        with open(os.path.join(p, "pagemap"), "wb") as f:
            for r in records:
                f.write(struct.pack("<QQ", *r))
    with open(os.path.join(d, "kpages"), "wb") as f:
        for k in kpages:
            f.write(struct.pack("<QQQ", *k))
text = (0x08048000, 0x0804b000, "r-xp", "/usr/sbin/server")
data = (0x0804b000, 0x0804c000, "rw-p", "")
shared = (0x40000000, 0x40400000, "r-xp", "/usr/lib/libshared.so", 2)   # 4 MiB, 2 pages present
snapshot("before", [
    (7, "server", "server --port 80", [text, data]),
    (8, "worker", "worker", [(0x08048000, 0x08049000, "r-xp", "/usr/sbin/worker")]),
    (9, "oldjob", "oldjob", [data]),
    (10, "server", "server --port 80", [shared]),
    (11, "server", "server --port 80", [shared]),
])
snapshot("after", [
    (20, "server", "server --port 80", [text, data, (0x40000000, 0x40002000, "rw-p", "")]),
    (21, "worker", "worker -v", [(0x08048000, 0x08049000, "r-xp", "/usr/sbin/worker")]),
    (22, "cron", "cron", [data]),
    (23, "server", "server --port 80", [shared]),
    (24, "server", "server --port 80", [shared]),
    (25, "server", "server --port 80", [shared]),
])
PY

"$PTSCOPE" report "$tmp/after" --versus "$tmp/before" --per-process --format json -o "$tmp/v.json" ||
	fail "json: exit status $?"
python3 - "$tmp/v.json" <<'PY' || fail "JSON figures differ from the hand-worked ones"
import json, sys
r = json.load(open(sys.argv[1]))
t, v, d = r["totals"], r["versus"], r["delta"]
want = {"processes": (6, 5, 1), "present_ptes": (14, 10, 4), "pte_pages": (7, 5, 2),
        "pagetable_bytes": (28672, 20480, 8192), "vmpte_bytes": (28672, 20480, 8192), "vmas": (8, 6, 2)}
for key, (after, before, change) in want.items():
    assert (t[key], v[key], d[key]) == (after, before, change), (key, t[key], v[key], d[key])
chains = "2.4-rmap-i386"
assert (t["pte_chain_bytes"][chains], v["pte_chain_bytes"][chains], d["pte_chain_bytes"][chains]) == (112, 80, 32)
rule = "shpt-2006"
assert (t["sharable_pte_pages"][rule], v["sharable_pte_pages"][rule], d["sharable_pte_pages"][rule]) == (2, 1, 1)
# delta has the keys of totals, plain numbers
def same_keys(a, b):
    assert set(a) >= {k for k in b if not isinstance(b[k], (str, bool))}, (set(a), set(b))
    for k in a:
        if isinstance(a[k], dict):
            same_keys(a[k], b[k])
        else:
            assert isinstance(a[k], (int, float)) and not isinstance(a[k], bool), (k, a[k])
same_keys(d, t)
m = {}
for p in r["versus_processes"]:
    m.setdefault(p["comm"], p)   # the first of each comm
assert m["server"]["pid"] == 20 and m["server"]["baseline_pid"] == 7 and m["server"]["matched_by"] == "cmdline"
assert m["server"]["delta"]["pagetable_bytes"] == 4096 and m["server"]["delta"]["present_ptes"] == 2
assert m["worker"]["baseline_pid"] == 8 and m["worker"]["matched_by"] == "comm"
pairs = [(p["pid"], p["baseline_pid"]) for p in r["versus_processes"]]
assert pairs == [(20, 7), (21, 8), (23, 10), (24, 11)], pairs
assert [(p["pid"], p["pagetable_bytes"]) for p in r["new_processes"]] == [(22, 4096), (25, 4096)], r["new_processes"]
assert [(p["pid"], p["pagetable_bytes"]) for p in r["gone_processes"]] == [(9, 4096)], r["gone_processes"]
assert r["totals"]["rmap_bytes"]["2.4-rmap-i386"] == 112 and r["versus"]["rmap_bytes"]["2.4-rmap-i386"] == 80
PY
"$PTSCOPE" report "$tmp/after" --versus "$tmp/before" --per-process > "$tmp/v.txt" || fail "text: exit status $?"
# the report's words, not JSON keys
grep -Eq '^  page tables \(exact from pagemap\) +20.0 KiB +28.0 KiB +\+8.0 KiB +\+40.0%$' "$tmp/v.txt" ||
	fail "text: no 'page tables (exact from pagemap) 20.0 KiB 28.0 KiB +8.0 KiB +40.0%' row: $(grep 'page tables' "$tmp/v.txt")"
grep -q 'pagetable_bytes\|vmpte_bytes\|present_ptes' "$tmp/v.txt" && fail "text: a JSON key as a label: $(grep '_bytes\|_ptes' "$tmp/v.txt")"
grep -Eq '^  2.4-rmap-i386 +80 B +112 B +\+32 B +\+40.0%$' "$tmp/v.txt" || fail "text: no pte_chain row"
grep -Eq '^  shpt-2006 +1 +2 +\+1 +\+100.0%$' "$tmp/v.txt" || fail "text: no shpt-2006 row"
# rmap as the designs table counts it (pte_chain + object), not with the page field over RAM
sed -n '/^rmap by design/,/^$/p' "$tmp/v.txt" | grep -Eq '^  2.4-rmap-i386 +80 B +112 B ' || fail "text: rmap by design is not 80 B -> 112 B"
# the snapshot's architecture's designs only, unless --all-designs
grep -q '^  6.1-x86_64 ' "$tmp/v.txt" && fail "text: an x86_64 design compared on i386 snapshots"
"$PTSCOPE" report "$tmp/after" --versus "$tmp/before" --all-designs > "$tmp/all.txt" || fail "--all-designs"
grep -q '^  6.1-x86_64 ' "$tmp/all.txt" || fail "--all-designs: no x86_64 design"
# processes: command lines, new and gone ones with their page tables (4 KiB each, one window)
grep -Eq '^ +20 +7 cmdline +4.0 KiB +8.0 KiB +\+4.0 KiB +\+100.0% server --port 80$' "$tmp/v.txt" ||
	fail "text: server not matched by command line: $(grep cmdline "$tmp/v.txt")"
grep -Eq '^ +22 +- new +- +4.0 KiB +\+4.0 KiB +new cron$' "$tmp/v.txt" || fail "text: cron not new with 4.0 KiB"
grep -Eq '^ +- +9 gone +4.0 KiB +- +-4.0 KiB +-100.0% oldjob$' "$tmp/v.txt" || fail "text: oldjob not gone with 4.0 KiB"
# --top 1: the largest change of each list
"$PTSCOPE" report "$tmp/after" --versus "$tmp/before" --per-process --top 1 > "$tmp/t.txt" || fail "--top 1"
[ "$(grep -Ec '^ +[0-9-]+ +[0-9-]+ (cmdline|comm|new|gone) ' "$tmp/t.txt")" = 3 ] || fail "--top 1: not one row per list: $(cat "$tmp/t.txt")"
grep -q '4 matched processes in all' "$tmp/t.txt" || fail "--top 1: the matched count is not said"
"$PTSCOPE" report "$tmp/after" --versus "$tmp/before" --per-process --top 1 --format json -o "$tmp/t.json" || fail "--top 1 json"
python3 - "$tmp/t.json" <<'PY' || fail "--top 1: JSON does not keep the largest change"
import json, sys
r = json.load(open(sys.argv[1]))
assert [(p["pid"], p["baseline_pid"]) for p in r["versus_processes"]] == [(20, 7)], r["versus_processes"]
assert r["versus_process_counts"] == {"matched": 4, "new": 2, "gone": 1}, r["versus_process_counts"]
assert [(p["pid"], p["pagetable_bytes"]) for p in r["gone_processes"]] == [(9, 4096)], r["gone_processes"]
PY
# a command line is the snapshot's text: the terminal gets it escaped
printf 'cr\033]0;x\007on\0' > "$tmp/after/22/cmdline"
"$PTSCOPE" report "$tmp/after" --versus "$tmp/before" --per-process > "$tmp/e.txt" || fail "escaped cmdline: exit status $?"
grep -q ' new .* cr\\e\]0;x\\aon$' "$tmp/e.txt" || fail "cmdline not escaped: $(grep ' new ' "$tmp/e.txt" | cat -v)"
printf 'cron\0' > "$tmp/after/22/cmdline"
# every structured format carries the comparison
for f in xml csv html; do
	"$PTSCOPE" report "$tmp/after" --versus "$tmp/before" --format $f -o "$tmp/v.$f" || fail "$f: exit status $?"
done
# CSV: a table of totals, before and after side by side (outputs/report_csv.c)
python3 -c 'import csv, sys; d = {r["key"]: r for r in csv.DictReader(open(sys.argv[1]))}; r = d["pagetable_bytes"]; sys.exit((r["before"], r["after"], r["delta"]) != ("20480", "28672", "8192"))' "$tmp/v.csv" \
	|| fail "csv: pagetable_bytes not 20480 -> 28672 (+8192)"
grep -q 'delta' "$tmp/v.xml" && grep -q 'delta' "$tmp/v.html" || fail "xml/html: no delta"
# per file: matched by path per rule
"$PTSCOPE" report "$tmp/after" --versus "$tmp/before" --per-file --format json -o "$tmp/f.json" || fail "per-file"
python3 - "$tmp/f.json" <<'PY' || fail "versus_files: libshared.so under shpt-2006 is not 1 -> 2"
import json, sys
f = [x for x in json.load(open(sys.argv[1]))["versus_files"] if x["rule"] == "shpt-2006"]
assert [(x["path"], x["baseline_pages"], x["pages"], x["delta_pages"]) for x in f] == [("/usr/lib/libshared.so", 1, 2, 1)], f
PY
# a BEFORE that is no snapshot: exit 1, no output file
"$PTSCOPE" report "$tmp/after" --versus "$tmp/none" -o "$tmp/x.txt" 2> "$tmp/err"; [ $? -eq 1 ] || fail "bad BEFORE: want exit 1"
[ ! -e "$tmp/x.txt" ] || fail "bad BEFORE left an output file"
echo "report --versus: totals, pte_chains, processes (cmdline, comm, new, gone) as worked by hand"
