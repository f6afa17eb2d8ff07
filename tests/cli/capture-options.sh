#!/bin/sh
# capture's options: --pid list, a pid that does not exist (skipped and
# counted), --no-pagemap, the default output name, -o DIR, every container,
# and the usage errors.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
info_key() { tar -xOf "$1" snapshot.info | awk -v k="$2:" '$1 == k { print $2 }'; }
members() { tar -tf "$1" | grep -v '/$' | sort | tr '\n' ' '; }

sleep 300 & a=$!
sleep 300 & b=$!
sleep 300 & c=$!
pids="$a $b $c"
# No pid is ever above pid_max (at most 2^22), so this one cannot exist.
missing=2147483000

# --pid of one that does not exist: exit 1, nothing written (issue 9).
"$PTSCOPE" capture --pid "$a" --pid "$missing" -o "$tmp/two.tar" > "$tmp/out" 2>"$tmp/err" &&
	fail "capture --pid $missing (no such process) succeeded"
grep -q "no process $missing" "$tmp/err" || fail "missing pid: $(cat "$tmp/err")"
[ -e "$tmp/two.tar" ] && fail "a missing pid left a snapshot"
# --pid, repeated: exactly those, skipped: 0.
"$PTSCOPE" capture --pid "$a" --pid "$c" -o "$tmp/two.tar" > "$tmp/out" 2>"$tmp/err" ||
	fail "capture --pid failed: $(cat "$tmp/err")"
[ "$(cat "$tmp/out")" = "$tmp/two.tar" ] || fail "stdout is not the path written"
got=$(tar -tf "$tmp/two.tar" | sed -n 's,^\([0-9]*\)/smaps$,\1,p' | sort -n | tr '\n' ' ')
want=$(printf '%s\n' "$a" "$c" | sort -n | tr '\n' ' ')
[ "$got" = "$want" ] || fail "--pid $a --pid $c captured '$got'"
[ "$(info_key "$tmp/two.tar" processes)" = 2 ] || fail "processes is not 2"
[ "$(info_key "$tmp/two.tar" skipped)" = 0 ] || fail "skipped is not 0"
grep -q '2 processes (0 skipped)' "$tmp/err" || fail "summary line: $(cat "$tmp/err")"
want="$a/cmdline $a/pagemap_runs $a/smaps $a/stat $a/status $c/cmdline $c/pagemap_runs $c/smaps $c/stat $c/status pagemap_chunks"
# PID/cgroup where the kernel has cgroups (docs/snapshot-format.md)
if [ -r /proc/$a/cgroup ]; then want="$want $a/cgroup $c/cgroup"; fi
if [ "$(id -u)" -eq 0 ]; then want="$want kpage_runs"; fi
# PID/pmd_mapped where the kernel has the PAGEMAP_SCAN ioctl (6.7 and later)
release=$(uname -r | sed 's/[^0-9.].*//')
major=${release%%.*}; minor=${release#*.}; minor=${minor%%.*}
if [ "$major" -gt 6 ] || { [ "$major" -eq 6 ] && [ "$minor" -ge 7 ]; }; then want="$want $a/pmd_mapped $c/pmd_mapped"; fi
# slabinfo (0400) as root; slub beside it, for the real /proc
if [ -r /proc/slabinfo ]; then want="$want slabinfo slub"; fi
# the names of the processes' uids and gids, when this host's NSS names them
if getent passwd "$(awk '/^Uid:/ { print $2 }' /proc/$a/status)" > /dev/null; then want="$want users"; fi
want=$(echo "$want meminfo snapshot.info version" | tr ' ' '\n' | sort | tr '\n' ' ')
[ "$(members "$tmp/two.tar")" = "$want" ] || fail "members '$(members "$tmp/two.tar")', want '$want'"
"$PTSCOPE" info "$tmp/two.tar" > "$tmp/info" || fail "info cannot read the capture"
grep -qx 'processes: 2' "$tmp/info" && grep -qx 'skipped at capture: 0' "$tmp/info" ||
	fail "info disagrees: $(cat "$tmp/info")"

# --no-pagemap: no pagemap members, no kpages, and it says so.
"$PTSCOPE" capture --pid "$b" --no-pagemap -o "$tmp/none.tar" >/dev/null 2>&1 || fail "--no-pagemap failed"
[ "$(info_key "$tmp/none.tar" pagemap)" = none ] || fail "--no-pagemap is not pagemap: none"
tar -tf "$tmp/none.tar" | grep -qE 'pagemap$|pmd_mapped$|^kpage' && fail "--no-pagemap wrote pagemap, pmd_mapped, kpages or kpage_runs"

# Default name in the working directory, and inside -o DIR.
mkdir "$tmp/cwd" "$tmp/dir"
(cd "$tmp/cwd" && "$PTSCOPE" capture --pid "$a" >/dev/null 2>&1) || fail "capture with no -o failed"
host=$(hostname)
set -- "$tmp"/cwd/ptscope-"$host"-*.tar.zst
[ $# -eq 1 ] && [ -f "$1" ] || fail "no ptscope-$host-DATE.tar.zst in the working directory: $(ls "$tmp/cwd")"
if command -v zstd >/dev/null; then zstd -tq "$1" || fail "the default file is not zstd"; fi
"$PTSCOPE" capture --pid "$a" -o "$tmp/dir" >/dev/null 2>&1 || fail "capture -o DIR failed"
set -- "$tmp"/dir/ptscope-"$host"-*.tar.zst
[ $# -eq 1 ] && [ -f "$1" ] || fail "-o DIR did not write the default name inside it"
[ "$(ls -A "$tmp/dir" | wc -l)" -eq 1 ] || fail "-o DIR left other files: $(ls -A "$tmp/dir")"
# -o DIR/ names DIR/NAME (the path printed is the one written, no "//")
rm -f "$tmp"/dir/*
written=$("$PTSCOPE" capture --pid "$a" -o "$tmp/dir/" 2>/dev/null) || fail "capture -o DIR/ failed"
case "$written" in "$tmp/dir/ptscope-$host-"*.tar.zst) ;; *) fail "capture -o DIR/ printed '$written'" ;; esac
[ -f "$written" ] || fail "capture -o DIR/ did not write $written"

# Every container, each read back by tar and by ptscope.
for ext in tar tar.gz tgz tar.xz tar.zst; do
	case $ext in
	tar.xz) command -v xz >/dev/null || continue ;;
	tar.zst) command -v zstd >/dev/null || continue ;;
	esac
	"$PTSCOPE" capture --pid "$b" -o "$tmp/c.$ext" >/dev/null 2>&1 || fail "capture -o c.$ext failed"
	case $ext in
	tar.xz) unpack="xz -dc" ;; tar.zst) unpack="zstd -dc" ;; tar) unpack="cat" ;; *) unpack="gzip -dc" ;;
	esac
	$unpack "$tmp/c.$ext" | tar -tf - | grep -qx "$b/smaps" || fail "c.$ext does not hold $b/smaps"
	"$PTSCOPE" info "$tmp/c.$ext" | grep -qx 'processes: 1' || fail "info cannot read c.$ext"
done

# --compress picks the codec apart from the name: the default name follows
# it, a name without a known suffix is accepted, a name that disagrees is not.
mkdir "$tmp/gz"
"$PTSCOPE" capture --pid "$b" --compress gz -o "$tmp/gz" >/dev/null 2>&1 || fail "--compress gz -o DIR failed"
set -- "$tmp"/gz/ptscope-"$host"-*.tar.gz
[ $# -eq 1 ] && gzip -t "$1" || fail "--compress gz did not write a gzip ptscope-HOST-DATE.tar.gz"
"$PTSCOPE" capture --pid "$b" --compress none -o "$tmp/plain.snapshot" >/dev/null 2>&1 || fail "--compress none -o NAME failed"
tar -tf "$tmp/plain.snapshot" | grep -qx "$b/smaps" || fail "--compress none is not a plain tar"
"$PTSCOPE" info "$tmp/plain.snapshot" | grep -qx 'processes: 1' || fail "info cannot read --compress none"
if command -v xz >/dev/null; then
	"$PTSCOPE" capture --pid "$b" --compress xz -o "$tmp/x.tar.xz" >/dev/null 2>&1 || fail "--compress xz failed"
	xz -t "$tmp/x.tar.xz" || fail "--compress xz is not xz"
fi

# Usage errors: exit 1, a message, and no file.
# expect_status N ARGS: bad usage is 1, an output that cannot be made 2.
expect_status() {
	want=$1; shift
	"$PTSCOPE" capture "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq "$want" ] || fail "capture $* exited $rc, want $want"
	grep -q '^ptscope: ' "$tmp/err" || fail "capture $*: no 'ptscope:' message"
}
expect_error() { expect_status 1 "$@"; }
expect_error --pid abc
expect_error --tree 0
expect_error -o "$tmp/snapshot.zip"
expect_status 2 -o "$tmp/no/such/dir/s.tar"
expect_error --pid "$a" extra-argument
expect_error --pid "$a" --compress lz4 -o "$tmp/bad.tar"
expect_error --pid "$a" --compress gz -o "$tmp/mismatch.tar.zst"
[ -e "$tmp/mismatch.tar.zst" ] && fail "a --compress that disagrees with the name left a file"
[ -e "$tmp/snapshot.zip" ] && fail "a bad -o left a file"
"$PTSCOPE" capture --help | grep -q -- '--tree' || fail "--help does not describe --tree"
echo "capture options behave"
