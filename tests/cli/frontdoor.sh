#!/bin/sh
# The front door: usage, unknown commands and exit codes.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
"$PTSCOPE" >/dev/null 2>&1; [ $? -eq 1 ] || fail "no command should exit 1"
"$PTSCOPE" --help | grep -q '^  capture' || fail "--help lists commands"
out=$("$PTSCOPE" frobnicate 2>&1); [ $? -eq 1 ] || fail "unknown command should exit 1"
echo "$out" | grep -q "unknown command 'frobnicate'" || fail "message names the command: $out"
for c in capture info report profiles callgraph bench; do
	"$PTSCOPE" $c --help >/dev/null 2>&1 || fail "$c --help"
done
# A broken snapshot names the file and exits 1 without a crash.
printf 'not a tar' > "$tmp/bad.tar"
out=$("$PTSCOPE" info "$tmp/bad.tar" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "bad snapshot exit $rc"
echo "$out" | grep -q "bad.tar" || fail "message names the file: $out"

# Output failures are status 2 with one message, whatever command wrote
# (ptscope.c checks stdout after every command; docs/architecture.md).
# a one-process snapshot from the fixture files (a snapshot without a process is refused)
fixture=$PTSCOPE_TESTS/fixtures/proc
mkdir -p "$tmp/snap/5969"
cp "$fixture/version" "$fixture/meminfo" "$tmp/snap/"
for f in smaps stat status cmdline; do cp "$fixture/sleep.$f" "$tmp/snap/5969/$f"; done
# Every command and every format, small writes and large ones (the schema,
# JSON and XML are written in one piece larger than stdio's buffer, which
# glibc's own stdout forgets the errno of: it said "write error"; Graphviz's
# writer ended the process with status 1; libxml2 printed its own lines).
tree=$PTSCOPE_TESTS/fixtures/kernel-2.4
for args in "profiles" "profiles --schema" "profiles --show 2.4-rmap-i386" "info $tmp/snap" \
	    "info $tmp/snap --per-process" "report --help" "--version" \
	    "report $tmp/snap" "report $tmp/snap --format json" "report $tmp/snap --format xml" \
	    "report $tmp/snap --format csv" "report $tmp/snap --format html" \
	    "callgraph $tree -q" "callgraph $tree -q --format json" "callgraph $tree -q --format xml" \
	    "callgraph $tree -q --format svg" "callgraph $tree -q --format png" \
	    "callgraph $tree -q --format pdf" "bench fork --runs 2"; do
	"$PTSCOPE" $args > /dev/full 2> "$tmp/err"; rc=$?
	[ $rc -eq 2 ] || fail "'$args > /dev/full' exit $rc, not 2"
	[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q '^ptscope: stdout: No space left on device$' "$tmp/err" ||
		fail "'$args > /dev/full' said: $(cat "$tmp/err")"
done
# capture writes its archive to descriptor 1 itself (libarchive): its message
# names the errno too.
"$PTSCOPE" capture -o - --pid $$ > /dev/full 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "'capture -o - > /dev/full' exit $rc, not 2"
[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q '^ptscope: stdout: .*No space left on device' "$tmp/err" ||
	fail "'capture -o - > /dev/full' said: $(cat "$tmp/err")"
# -o into a folder that does not exist: an output failure too (2), a message
# naming the file, and nothing left behind.
if command -v python3 >/dev/null; then
	python3 "$PTSCOPE_TESTS/kit/tiny-snapshot.py" "$tmp/tiny" || fail "tiny snapshot"
	"$PTSCOPE" report "$tmp/tiny" -o "$tmp/none/r.txt" 2> "$tmp/err"; rc=$?
	[ $rc -eq 2 ] || fail "report -o into a missing folder: exit $rc, not 2"
	grep -q "^ptscope: $tmp/none/r.txt: cannot write here: " "$tmp/err" || fail "report -o said: $(cat "$tmp/err")"
fi
# -o naming a device is written in place (a file renamed over it would
# replace the node: as root, `-o /dev/null` replaced /dev/null); a full one
# is an output failure naming the errno.  A device node of our own (root).
if command -v python3 >/dev/null && mknod "$tmp/full" c 1 7 2>/dev/null; then
	for args in "report $tmp/tiny" "report $tmp/tiny --format json" "callgraph $tree -q --format svg"; do
		"$PTSCOPE" $args -o "$tmp/full" 2> "$tmp/err"; rc=$?
		[ $rc -eq 2 ] || fail "'$args -o FULL_DEVICE' exit $rc, not 2"
		grep -qx "ptscope: $tmp/full: cannot write: No space left on device" "$tmp/err" ||
			fail "'$args -o FULL_DEVICE' said: $(cat "$tmp/err")"
		[ -c "$tmp/full" ] || fail "'$args -o FULL_DEVICE' replaced the device node"
	done
fi
"$PTSCOPE" callgraph "$PTSCOPE_TESTS/fixtures/kernel-2.4" --no-cache -o "$tmp/none/g.json" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "callgraph -o into a missing folder: exit $rc, not 2"
grep -q "$tmp/none/g.json" "$tmp/err" || fail "callgraph -o said: $(cat "$tmp/err")"

# A pipe whose reader is gone, with SIGPIPE ignored (inherited, as from a
# Python parent): EPIPE, one message, status 2.
if command -v python3 >/dev/null; then
	python3 - "$PTSCOPE" <<'PY' || fail "closed pipe"
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run([sys.argv[1], "profiles"], stdout=w, stderr=subprocess.PIPE,
                   restore_signals=False)
err = p.stderr.decode()
if p.returncode != 2 or err != "ptscope: stdout: Broken pipe\n":
    sys.exit("status %d, said %r" % (p.returncode, err))
PY
fi
exit 0
