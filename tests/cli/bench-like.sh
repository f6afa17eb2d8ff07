#!/bin/sh
# bench fork --like: the captured process is rebuilt in ptscope-subject
# (a small static program ptscope execs) and captured again; its VMAs and
# present pages must all be there again, and besides them only the
# subject's own few VMAs (its text and data, heap, stack, vdso).  The
# figures are worked out here from the snapshot's own smaps and pagemap, and
# from a capture of the running subject, not from ptscope's own account.
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
# the subject is ptscope-subject beside this ptscope, with a handful of its own
assert l["subject"].endswith("/ptscope-subject"), l
assert 0 < l["other_vmas"] <= 12 and sum(l["other_vmas_by_name"].values()) == l["other_vmas"], l
assert l["other_vmas_by_name"].get(l["subject"], 0) >= 2, l   # its text and data
assert set(l["other_vmas_by_name"]) <= {l["subject"], "[anon]", "[heap]", "[stack]", "[vdso]", "[vvar]",
                                        "[vvar_vclock]"}, l
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

# the desktop process rebuilt, caught while its subject forks and captured
# again by ptscope capture: VMA by VMA (size, permissions, anonymous or a
# file) every one of the snapshot's is there, and what else there is is
# the subject's own: its program, [heap], [stack], the vdso, one anonymous
# VMA (its bss)
"$PTSCOPE" bench fork --like "$SHARED_SNAPSHOTS/desktop.tar.gz" --runs 1000000 > /dev/null 2> "$tmp/long.err" &
bench=$!
subject= forking=
for _ in $(seq 3000); do
	subject=$(pgrep -P $bench | head -n 1)
	# built once it forks: its children appear.  Each lives a few hundred
	# microseconds, less than pgrep takes to scan /proc (it finds none), so
	# ask the kernel's own list of the subject's children
	[ -n "$subject" ] && forking=$(cat "/proc/$subject/task/$subject/children" 2>/dev/null)
	[ -n "$forking" ] && break
	sleep 0.01
done
[ -n "$forking" ] || { kill $bench; fail "the subject never forked: $(cat "$tmp/long.err")"; }
"$PTSCOPE" capture --pid "$subject" --format 1 --compress none --no-pagemap -o "$tmp/again.tar" > /dev/null 2>&1
captured=$?
exe=$(readlink "/proc/$subject/exe")
kill -KILL "$subject"
wait $bench
[ $captured -eq 0 ] || fail "capture of the subject"
mkdir "$tmp/again" && tar -xf "$tmp/again.tar" -C "$tmp/again" || fail "tar of the capture"
python3 - "$tmp/desktop" "$tmp/again" "$exe" <<'PY' || fail "the subject against the snapshot"
import glob, os, re, sys
header = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$")
kernel = ("[vdso]", "[vvar]", "[vvar_vclock]", "[vsyscall]", "[uprobes]")
def root(folder):
    return folder + "/" if os.path.exists(folder + "/snapshot.info") else glob.glob(folder + "/*/")[0]
def vmas(folder, pid):
    out = []
    for line in open("%s%d/smaps" % (folder, pid)):
        m = header.match(line)
        if m:
            out.append((int(m.group(2), 16) - int(m.group(1), 16), m.group(3), m.group(4).strip(), int(m.group(1), 16)))
    return out
def pids(folder):
    return [int(p) for p in os.listdir(folder) if p.isdigit() and os.path.getsize(folder + p + "/smaps")]
snap, again = root(sys.argv[1]), root(sys.argv[2])
most = max(pids(snap), key=lambda p: (len(vmas(snap, p)), -p))
anonymous = lambda path: path == "" or path.startswith("[")
want = [(size, perms, anonymous(path), start) for size, perms, path, start in vmas(snap, most) if path not in kernel]
(subject,) = pids(again)
left = [v for v in vmas(again, subject) if v[2] != "[vsyscall]"]
# most are mapped again at their own address: those first; then by size,
# permissions and kind, rebuilt ones before the subject's own (an unnamed
# anonymous VMA, where the kernel cannot name them, before [stack])
rank = {"": 1, "[heap]": 2, "[stack]": 2, sys.argv[3]: 2}
left.sort(key=lambda v: rank.get(v[2], 0))
unplaced = []
for size, perms, anon, start in want:
    match = next((v for v in left if (v[3], v[0], v[1]) == (start, size, perms) and anonymous(v[2]) == anon), None)
    if match:
        left.remove(match)
    else:
        unplaced.append((size, perms, anon))
for size, perms, anon in unplaced:
    match = next((v for v in left if (v[0], v[1], anonymous(v[2])) == (size, perms, anon)), None)
    assert match, "not found again: %d bytes %s %s" % (size, perms, "anonymous" if anon else "file")
    left.remove(match)
names = sorted(set(v[2] or "[anon]" for v in left))
print("bench-like: %d of %d VMAs found again VMA by VMA; %d others, the subject's own: %s"
      % (len(want), len(want), len(left), ", ".join(names)))
assert set(names) <= {sys.argv[3], "[anon]", "[heap]", "[stack]", "[vdso]", "[vvar]", "[vvar_vclock]"}, names
assert sum(v[2] == sys.argv[3] for v in left) >= 2 and len(left) <= 12, left
assert {"[stack]", "[heap]"} <= set(names), names
# every VMA that held anonymous pages (smaps' Anonymous, a library's
# relocated read-only data among them) holds them again: written while the
# VMA was writable, before it was given its own permissions
def with_anonymous(folder, pid):
    return sum(1 for line in open("%s%d/smaps" % (folder, pid)) if line.startswith("Anonymous:") and int(line.split()[1]) > 0)
assert with_anonymous(again, subject) >= with_anonymous(snap, most), (with_anonymous(again, subject), with_anonymous(snap, most))
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
