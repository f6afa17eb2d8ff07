#!/bin/sh
# --skip-bad drops broken processes, counts them and says so: on stderr
# ("skipped N broken processes; the first: ..."), and in the report itself
# (text, JSON snapshot.skipped_broken), so the count is not lost with -o.
# The snapshot written here has ten processes:
#   1, 7 good (one VMA of 4 pages, 4 pagemap records each)
#   2 smaps line that is no VMA        3 Size not the VMA's length
#   4 pagemap of 17 bytes              5 a pagemap record outside every VMA
#   6 no stat                          8 (tar only) its stat twice
#   9 kernel thread (empty smaps)      10 zombie (empty smaps, state Z)
# By hand: directory 5 broken (2-6), tar 6 (and 8); 2 processes remain.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v python3 >/dev/null || skip "python3 not installed"
python3 - "$tmp" <<'PY'
import os, struct, sys, tarfile
tmp = sys.argv[1]
start = 0x7f0000000000
smaps = lambda size_kb=16: (f'{start:x}-{start + 0x4000:x} rw-p 00000000 00:00 0\n'
                            f'Size: {size_kb} kB\nRss: 16 kB\n').encode()
pagemap = lambda first=start: b''.join(struct.pack('<QQ', first + i * 4096, (1 << 63) | (0x100 + i)) for i in range(4))
stat = lambda pid, state='S': b'%d (p%d) %s 1 1 1 0 -1\n' % (pid, pid, state.encode())
good = lambda pid: {'stat': stat(pid), 'smaps': smaps(), 'pagemap': pagemap()}
processes = {
    1: good(1), 7: good(7), 8: good(8),
    2: {'stat': stat(2), 'smaps': b'not a VMA\n'},
    3: {'stat': stat(3), 'smaps': smaps(size_kb=8)},
    4: {'stat': stat(4), 'smaps': smaps(), 'pagemap': pagemap()[:17]},
    5: {'stat': stat(5), 'smaps': smaps(), 'pagemap': pagemap(first=0x1000)},
    6: {'smaps': smaps()},
    9: {'stat': stat(9), 'smaps': b''},
    10: {'stat': stat(10, 'Z'), 'smaps': b''},
}
top = {'version': b'Linux version 6.1.0 (fixture)\n', 'meminfo': b'MemTotal: 262144 kB\n',
       'snapshot.info': b'format: ptscope-snapshot 1\npage_size: 4096\narch: x86_64\npagemap: pfn\n'}
def write(folder, skip=()):
    os.makedirs(folder)
    for name, data in top.items():
        open(os.path.join(folder, name), 'wb').write(data)
    for pid, members in processes.items():
        if pid in skip:
            continue
        os.makedirs(os.path.join(folder, str(pid)))
        for name, data in members.items():
            open(os.path.join(folder, str(pid), name), 'wb').write(data)
write(os.path.join(tmp, 'snap'))
write(os.path.join(tmp, 'broken-only'), skip=(1, 7, 8))
with tarfile.open(os.path.join(tmp, 'snap.tar'), 'w') as tar:
    tar.add(os.path.join(tmp, 'snap'), arcname='.')
    tar.add(os.path.join(tmp, 'snap', '8', 'stat'), arcname='./8/stat')
PY
[ $? -eq 0 ] || fail "could not write the snapshots"
rm -rf "$tmp/snap/8"   # process 8 is the tar's; the directory has 1 and 7 good
# without --skip-bad the first broken process fails the read in one line
"$PTSCOPE" report "$tmp/snap" > "$tmp/out" 2> "$tmp/err"
[ $? -eq 1 ] || fail "report of a broken snapshot: want exit 1"
[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "^ptscope: $tmp/snap: [0-9]*/" "$tmp/err" ||
	fail "report of a broken snapshot: $(cat "$tmp/err")"
# ... saying how to read the rest, with the process it names; info alike;
# bench --like has no --skip-bad and does not offer it
pid=$(sed -n "s|^ptscope: $tmp/snap: \([0-9]*\)/.*|\1|p" "$tmp/err")
grep -q " (--skip-bad reads the rest without process $pid)\$" "$tmp/err" ||
	fail "the error does not offer --skip-bad for process $pid: $(cat "$tmp/err")"
"$PTSCOPE" info "$tmp/snap" > /dev/null 2> "$tmp/err" && fail "info of a broken snapshot succeeded"
grep -q "(--skip-bad reads the rest without process [0-9]*)\$" "$tmp/err" || fail "info: $(cat "$tmp/err")"
"$PTSCOPE" bench --like "$tmp/snap" fork --runs 2 > /dev/null 2> "$tmp/err" && fail "bench --like a broken snapshot succeeded"
grep -q "skip-bad" "$tmp/err" && fail "bench --like offers an option it does not have: $(cat "$tmp/err")"
[ -s "$tmp/out" ] && fail "report of a broken snapshot wrote a report"
check() { # SNAPSHOT BROKEN
	"$PTSCOPE" report --skip-bad "$1" > "$tmp/out" 2> "$tmp/err" || fail "report --skip-bad $1: $(cat "$tmp/err")"
	grep -q "^ptscope: warning: skipped $2 broken processes; the first: $1: [0-9]*/" "$tmp/err" ||
		fail "report --skip-bad $1: stderr lacks 'skipped $2 broken processes': $(cat "$tmp/err")"
	grep -q "^  kernel .*, x86_64, 2 processes," "$tmp/out" || fail "report --skip-bad $1: not 2 processes"
	grep -q "^  $2 broken processes skipped (--skip-bad), not in these figures; the first: $1: " "$tmp/out" ||
		fail "report --skip-bad $1: the report does not say $2 were skipped"
	"$PTSCOPE" report --skip-bad --format json -o "$tmp/report.json" "$1" 2> /dev/null || fail "report -o $1"
	python3 - "$tmp/report.json" "$2" <<'PY' || fail "report --skip-bad -o $1: JSON"
import json, sys
report = json.load(open(sys.argv[1]))
assert report['snapshot']['skipped_broken'] == int(sys.argv[2]), report['snapshot']
assert report['snapshot']['first_broken'].startswith(report['snapshot']['source'] + ': ')
assert report['totals']['processes'] == 2
PY
}
check "$tmp/snap" 5
check "$tmp/snap.tar" 6
# info --verify reads and checks pagemaps as report does
"$PTSCOPE" info --skip-bad --verify "$tmp/snap" > "$tmp/out" 2> "$tmp/err" || fail "info --skip-bad --verify"
grep -q "^skipped as bad: 5$" "$tmp/out" || fail "info --skip-bad --verify: $(grep bad "$tmp/out")"
grep -q "skipped 5 broken processes" "$tmp/err" || fail "info --skip-bad --verify: stderr: $(cat "$tmp/err")"
# nothing but broken processes, a kernel thread and a zombie: refused, saying so
"$PTSCOPE" report --skip-bad "$tmp/broken-only" > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] || fail "report --skip-bad of broken processes only: want exit 1"
grep -q "no process in this snapshot: kernel threads 1, zombies 1, broken 5," "$tmp/err" ||
	fail "report --skip-bad of broken processes only: $(cat "$tmp/err")"
exit 0
