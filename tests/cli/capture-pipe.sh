#!/bin/sh
# `capture -o -` writes the snapshot to stdout and SNAPSHOT `-` reads one
# from stdin (smemcap's `ssh host ... > snap.tar` habit), in every codec;
# stdout to /dev/full is status 2; a terminal is refused on both sides;
# --pid/--tree of a process that does not exist is exit 1 with nothing
# written; a capture with no process is refused; a snapshot without a
# process is refused when read, with a message, never "out of memory".
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
sleep 300 & target=$!; pids=$target
for c in zst xz gz none; do
	"$PTSCOPE" capture --compress $c --pid $$ --pid $target -o - 2> "$tmp/err" > "$tmp/snap.$c" ||
		fail "capture -o - --compress $c: $(cat "$tmp/err")"
	grep -q 'to stdout' "$tmp/err" || fail "summary does not say stdout: $(cat "$tmp/err")"
	"$PTSCOPE" capture --compress $c --pid $$ --pid $target -o - 2>/dev/null |
		"$PTSCOPE" info - > "$tmp/info.$c" 2> "$tmp/err" || fail "capture -o - | info - ($c): $(cat "$tmp/err")"
	grep -qx 'processes: 2' "$tmp/info.$c" || fail "capture -o - | info - ($c): $(cat "$tmp/info.$c")"
	grep -qx 'snapshot: stdin' "$tmp/info.$c" || fail "info - does not name stdin"
done
# the bytes are the codec's (magic numbers), so a file made from them is what it says
[ "$(od -An -tx1 -N4 "$tmp/snap.zst" | tr -d ' ')" = 28b52ffd ] || fail "zst stream is not zstd"
[ "$(od -An -tx1 -N2 "$tmp/snap.gz" | tr -d ' ')" = 1f8b ] || fail "gz stream is not gzip"
[ "$(od -An -tx1 -N6 "$tmp/snap.xz" | tr -d ' ')" = fd377a585a00 ] || fail "xz stream is not xz"
tar -tf "$tmp/snap.none" | grep -qx snapshot.info || fail "none: not a tar ending in snapshot.info"
# stdin and a file give the same report
"$PTSCOPE" report "$tmp/snap.none" | sed 1d > "$tmp/file.txt"
"$PTSCOPE" report - < "$tmp/snap.none" | sed 1d > "$tmp/stdin.txt"
cmp -s "$tmp/file.txt" "$tmp/stdin.txt" || fail "report - differs from report FILE"

# a full disk on stdout: a message and status 2
"$PTSCOPE" capture --pid $$ -o - > /dev/full 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "capture -o - > /dev/full: exit $rc: $(cat "$tmp/err")"
for args in "--version" "info $tmp/snap.none" "report $tmp/snap.none" "profiles" "capture --help"; do
	"$PTSCOPE" $args > /dev/full 2> "$tmp/err"; rc=$?
	[ $rc -eq 2 ] || fail "$args > /dev/full: exit $rc"
	grep -q 'ptscope: stdout: No space left on device' "$tmp/err" || fail "$args > /dev/full: $(cat "$tmp/err")"
done

# a terminal: refused on both sides (script(1) gives the command a pty)
if command -v script > /dev/null; then
	script -qec "$PTSCOPE capture --pid $$ -o -" /dev/null > "$tmp/tty" 2>&1; rc=$?
	[ $rc -eq 1 ] || fail "capture -o - on a terminal: exit $rc"
	grep -q 'stdout is a terminal' "$tmp/tty" || fail "capture -o - on a terminal: $(cat "$tmp/tty")"
	script -qec "$PTSCOPE info -" /dev/null < /dev/null > "$tmp/tty" 2>&1
	grep -q 'stdin: is a terminal' "$tmp/tty" || fail "info - on a terminal: $(cat "$tmp/tty")"
fi

# a process that does not exist: exit 1, nothing written
dead=$(sh -c 'echo $$')
while kill -0 "$dead" 2>/dev/null; do dead=$((dead + 100000)); done
mkdir "$tmp/out"
for option in --pid --tree; do
	"$PTSCOPE" capture $option "$dead" -o "$tmp/out/x.tar" > "$tmp/out.txt" 2> "$tmp/err"; rc=$?
	[ $rc -eq 1 ] || fail "capture $option $dead (no such process): exit $rc"
	grep -q "no process $dead" "$tmp/err" || fail "$option $dead: $(cat "$tmp/err")"
	[ -z "$(ls -A "$tmp/out")" ] || fail "$option $dead left: $(ls -A "$tmp/out")"
	[ -s "$tmp/out.txt" ] && fail "$option $dead printed a path"
	"$PTSCOPE" capture $option "$dead" -o - > "$tmp/out.txt" 2>/dev/null
	[ -s "$tmp/out.txt" ] && fail "$option $dead -o - wrote bytes"
done
# named alongside a real one, still an error: the user asked for it
"$PTSCOPE" capture --pid $$ --pid "$dead" -o "$tmp/out/x.tar" > /dev/null 2>&1 && fail "--pid real --pid dead succeeded"
[ -z "$(ls -A "$tmp/out")" ] || fail "left: $(ls -A "$tmp/out")"

# only a kernel thread (kthreadd, pid 2, has no memory map): nothing to write
if [ -r /proc/2/stat ] && [ ! -s /proc/2/smaps ] 2>/dev/null; then
	"$PTSCOPE" capture --pid 2 -o "$tmp/out/k.tar" > /dev/null 2> "$tmp/err"; rc=$?
	[ $rc -eq 1 ] || fail "capture of only a kernel thread: exit $rc"
	grep -q 'no process could be read: skipped 0 (refused, permission denied: 0; changed during capture: 0), zombies 0, kernel threads 1' "$tmp/err" ||
		fail "kernel thread only: $(cat "$tmp/err")"
	[ -z "$(ls -A "$tmp/out")" ] || fail "left: $(ls -A "$tmp/out")"
fi

# a snapshot without a process, as another tool might write it: refused, clearly
mkdir -p "$tmp/empty"
cp /proc/version /proc/meminfo "$tmp/empty/"
printf 'format: ptscope-snapshot 1\npage_size: 4096\narch: x86_64\nkernel: 6.1.0\npagemap: none\nprocesses: 0\nskipped: 3\nunreadable: 2\n' > "$tmp/empty/snapshot.info"
tar -cf "$tmp/empty.tar" -C "$tmp/empty" .
for command in info report; do
	for snap in "$tmp/empty.tar" "$tmp/empty"; do
		"$PTSCOPE" $command "$snap" > "$tmp/out.txt" 2> "$tmp/err"; rc=$?
		[ $rc -eq 1 ] || fail "$command of a snapshot without a process: exit $rc"
		grep -qF "ptscope: $snap: no process in this snapshot: kernel threads 0, zombies 0, broken 0, skipped at capture 3 (refused, permission denied: 2)" "$tmp/err" ||
			fail "$command $snap: $(cat "$tmp/err")"
		grep -q 'out of memory' "$tmp/err" && fail "out of memory for an empty snapshot"
		[ -s "$tmp/out.txt" ] && fail "$command wrote a report of nothing"
	done
done
"$PTSCOPE" report - < "$tmp/empty.tar" > /dev/null 2> "$tmp/err"
grep -qF 'ptscope: stdin: no process in this snapshot' "$tmp/err" || fail "report - of an empty snapshot: $(cat "$tmp/err")"
exit 0
