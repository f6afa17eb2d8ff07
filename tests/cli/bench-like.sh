#!/bin/sh
# bench fork --like: the captured process is rebuilt in a child of ptscope
# and captured again; its VMAs and present pages must all be there again.
# The figures are worked out here from the snapshot's own smaps and pagemap,
# not from ptscope.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
# one process: 3 present file pages of /usr/sbin/server (absent here: a
# scratch file of the same size) in r-xp, one written anonymous page in rw-p
server_snapshot "$tmp/snap" x86_64 0x400000
"$PTSCOPE" bench fork --like "$tmp/snap:7" --runs 2 --format json > "$tmp/like.json" || fail "--like"
python3 - "$tmp/like.json" <<'PY' || fail "--like: $(cat "$tmp/like.json")"
import json, sys
d = json.load(open(sys.argv[1]))
l = d["like"]
assert (l["pid"], l["comm"], l["vmas"], l["kernel_mappings_skipped"]) == (7, "server", 2, 0), l
assert l["vmas_found"] == 2, l
# 3 file pages read (fault-around stays inside the 3-page VMA) + 1 anonymous page written
assert l["present_pages"] == 4 and l["present_pages_found"] == 4, l
assert [m["name"] for m in d["measurements"]] == ["fork"] and d["measurements"][0]["runs"] == 2, d["measurements"]
assert l["other_vmas"] > 0   # ptscope's own mappings, forked with it
PY

# the scratch file of the absent /usr/sbin/server has no name: nothing is
# left in TMPDIR after a run (and when the subject is killed: below)
mkdir "$tmp/scratch"
TMPDIR="$tmp/scratch" "$PTSCOPE" bench fork --like "$tmp/snap:7" --runs 2 > /dev/null || fail "--like in TMPDIR"
[ -z "$(ls -A "$tmp/scratch")" ] || fail "left in TMPDIR: $(ls -A "$tmp/scratch")"

# refusals
"$PTSCOPE" bench --like "$tmp/snap:8" > /dev/null 2> "$tmp/err"; [ $? -eq 1 ] || fail "--like of a missing pid: not 1"
grep -q "no process 8 in it" "$tmp/err" || fail "missing pid: $(cat "$tmp/err")"
"$PTSCOPE" bench --like "$tmp/none.tar" > /dev/null 2> "$tmp/err"; [ $? -eq 1 ] || fail "--like of a missing file: not 1"
grep -q "none.tar" "$tmp/err" || fail "missing file: $(cat "$tmp/err")"
"$PTSCOPE" bench exec --like "$tmp/snap" > /dev/null 2> "$tmp/err"; [ $? -eq 1 ] || fail "--like exec: not 1"
grep -q "\-\-like times fork only, not exec" "$tmp/err" || fail "--like exec: $(cat "$tmp/err")"

# a desktop session (ptscope picks its process with most VMAs): every VMA
# found again; every present page too (reading a file page may map its
# neighbours as well: fault-around)
need_snapshot desktop.tar.gz
"$PTSCOPE" bench --like "$SHARED_SNAPSHOTS/desktop.tar.gz" --runs 1 --format json > "$tmp/desktop.json" ||
	fail "--like desktop"
mkdir "$tmp/desktop" && tar -xzf "$SHARED_SNAPSHOTS/desktop.tar.gz" -C "$tmp/desktop" || fail "tar"
python3 - "$tmp/desktop.json" "$tmp/desktop" <<'PY' || fail "--like desktop: $(cat "$tmp/desktop.json")"
import glob, json, os, re, struct, sys
d = json.load(open(sys.argv[1]))["like"]
root = glob.glob(sys.argv[2] + "/*/")[0] if not os.path.exists(sys.argv[2] + "/snapshot.info") else sys.argv[2] + "/"
header = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$")
def vmas(pid):
    out = []
    for line in open("%s%d/smaps" % (root, pid)):
        m = header.match(line)
        if m:
            out.append((int(m.group(1), 16), int(m.group(2), 16), m.group(4).strip()))
    return out
pids = [int(p) for p in os.listdir(root) if p.isdigit() and os.path.getsize(root + p + "/smaps")]
most = max(pids, key=lambda p: (len(vmas(p)), -p))
assert d["pid"] == most, (d["pid"], most)
kernel = [v for v in vmas(most) if v[2] in ("[vdso]", "[vvar]", "[vvar_vclock]", "[vsyscall]", "[uprobes]")]
assert d["vmas"] == len(vmas(most)) - len(kernel) and d["kernel_mappings_skipped"] == len(kernel), d
assert d["vmas_found"] == d["vmas"], d
present = 0
ranges = [(a, b) for a, b, path in vmas(most) if path not in ("[vdso]", "[vvar]", "[vvar_vclock]", "[vsyscall]", "[uprobes]")]
data = open("%s%d/pagemap" % (root, most), "rb").read()
for i in range(0, len(data), 16):
    vaddr, entry = struct.unpack_from("<QQ", data, i)
    if entry >> 63 and any(a <= vaddr < b for a, b in ranges):
        present += 1
assert d["present_pages"] == present, (d["present_pages"], present)
assert d["present_pages_found"] >= present, d
PY

# a subject killed while it rebuilds the desktop process's files (most are
# absent here: files with no name) leaves nothing in TMPDIR, three times over
for _ in 1 2 3; do
	TMPDIR="$tmp/scratch" "$PTSCOPE" bench fork --like "$SHARED_SNAPSHOTS/desktop.tar.gz" --runs 100000 > /dev/null 2>&1 &
	bench=$!
	subject=
	for _ in $(seq 1000); do
		subject=$(pgrep -P $bench | head -n 1)
		[ -n "$subject" ] && break
		sleep 0.01
	done
	sleep 0.05
	[ -n "$subject" ] && kill -KILL "$subject"
	wait $bench
done
[ -z "$(ls -A "$tmp/scratch")" ] || fail "left in TMPDIR by killed subjects: $(ls -A "$tmp/scratch")"
exit 0
