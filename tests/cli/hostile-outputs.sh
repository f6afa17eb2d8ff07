#!/bin/sh
# Outputs no other user can redirect, and nothing left behind:
#  - callgraph -o OUT with a symbolic link planted at OUT.tmp.PID (the old
#    predictable name) and at base/output's link names: the link's target is
#    untouched, OUT is written;
#  - report -o interrupted by SIGINT at 10 moments leaves no temporary;
#  - capture into a full file system (a 64 KiB tmpfs) says why (the file and
#    the errno, uncompressed and zstd), exit 2, and leaves nothing (skipped, with exit 77, where mounting is not possible).
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
tree=$PTSCOPE_TESTS/fixtures/kernel-2.5
echo "precious" > "$tmp/victim"
mkdir "$tmp/out"
# the pid is known before ptscope starts: exec keeps it
sh -c 'for name in "$1.tmp.$$" "$(dirname "$1")/.$(basename "$1").ptscope-$$-0"; do ln -s "$2" "$name"; done
       exec "$3" callgraph "$4" --no-cache -q --format json -o "$1"' \
	planted "$tmp/out/graph.json" "$tmp/victim" "$PTSCOPE" "$tree" 2> "$tmp/err" || fail "callgraph with planted links: $(cat "$tmp/err")"
[ "$(cat "$tmp/victim")" = precious ] || fail "the planted link's target was overwritten"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/out/graph.json" || fail "graph.json is not the graph"
[ -L "$tmp/out/graph.json" ] && fail "graph.json is a link"
# report -o interrupted: nothing but the finished report, ever
snapshot=$SHARED_SNAPSHOTS/desktop.tar.gz
if [ -f "$snapshot" ]; then
	for delay in 0.01 0.03 0.05 0.08 0.1 0.15 0.2 0.3 0.4 0.6; do
		rm -rf "$tmp/r"; mkdir "$tmp/r"
		"$PTSCOPE" report "$snapshot" --per-process --per-file --format json -o "$tmp/r/r.json" 2>/dev/null &
		job=$!
		sleep $delay
		kill -INT $job 2>/dev/null
		wait $job
		left=$(ls -A "$tmp/r" | grep -vx 'r.json')
		[ -z "$left" ] || fail "report -o interrupted after ${delay}s left: $left"
	done
else
	echo "note: no $snapshot: the interrupted report is not run"
fi
# full disk: a real message
mkdir "$tmp/full"
if mount -t tmpfs -o size=64k tmpfs "$tmp/full" 2>/dev/null; then
	head -c 60k /dev/zero > "$tmp/full/filler" 2>/dev/null   # 4 KiB left: less than any capture
	# the message names the file and the errno, uncompressed and through a codec
	for name in s.tar s.tar.zst; do
		"$PTSCOPE" capture --pid $$ -o "$tmp/full/$name" > /dev/null 2> "$tmp/err"
		rc=$?
		ls -A "$tmp/full" | grep -vx filler > "$tmp/left"
		[ $rc -eq 2 ] || { umount "$tmp/full"; fail "capture to a full disk ($name): exit $rc, want 2 (an output failure): $(cat "$tmp/err")"; }
		grep -q "^ptscope: $tmp/full/$name: .*No space left on device" "$tmp/err" ||
			{ umount "$tmp/full"; fail "full disk ($name): the message lacks the file or the reason: $(cat "$tmp/err")"; }
		[ -s "$tmp/left" ] && { umount "$tmp/full"; fail "full disk ($name): left $(cat "$tmp/left")"; }
	done
	umount "$tmp/full"
else
	echo "skip: cannot mount a tmpfs here (not root?): the full-disk case is not run"
	exit 77
fi
exit 0
