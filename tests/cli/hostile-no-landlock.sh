#!/bin/sh
# Where the kernel has no Landlock (older than 5.13, or it is off) libclang's
# reads cannot be confined (analyzer/confine.c): ptscope says so once on
# stderr, however many files and workers, and the worker's watchdog still
# stops a device once it is open (analyzer/bounded.c), naming it, and a
# FIFO inside the tree (with Landlock never opened, confine.c); a good
# tree's call graph is the one made with Landlock.  The kernel without
# Landlock is played by an LD_PRELOAD library (tests/hostile/no-landlock.c)
# whose syscall(2) answers ENOSYS for Landlock's calls.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
CC=${CC:-cc}
$CC -shared -fPIC -o "$tmp/no-landlock.so" "$PTSCOPE_TESTS/hostile/no-landlock.c" -ldl ||
	fail "cannot build the LD_PRELOAD library"
# a sanitizer's runtime wants to come first; it is not checking the preload
without() {
	LD_PRELOAD="$tmp/no-landlock.so" ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 "$@"
}
warning="libclang's reads are watched, not confined to the tree and the system headers"

cp -r "$PTSCOPE_TESTS/fixtures/kernel-2.5" "$tmp/k"
"$PTSCOPE" callgraph "$tmp/k" --no-cache -q -j2 --all --format json -o "$tmp/with.json" 2> "$tmp/err" ||
	fail "with Landlock: $(cat "$tmp/err")"
! grep -q "$warning" "$tmp/err" || fail "with Landlock it said: $(cat "$tmp/err")"
without "$PTSCOPE" callgraph "$tmp/k" --no-cache -q -j2 --all --format json -o "$tmp/without.json" 2> "$tmp/err" ||
	fail "without Landlock: $(cat "$tmp/err")"
[ "$(grep -c "ptscope: this kernel has no Landlock (or it is off): $warning" "$tmp/err")" -eq 1 ] ||
	fail "without Landlock, not said once: $(cat "$tmp/err")"
cmp -s "$tmp/with.json" "$tmp/without.json" || fail "the call graph differs without Landlock"

# stopped WHAT PATTERN WARNINGS TREE [without]: a cold call graph of TREE
# (without Landlock when asked) exits 1, says PATTERN and the warning
# WARNINGS times, writes nothing
stopped() {
	what=$1 pattern=$2 warnings=$3 tree=$4
	rm -f "$tmp/out.json"
	${5:-} timeout 60 "$PTSCOPE" callgraph "$tree" --no-cache -q -j2 --format json -o "$tmp/out.json" 2> "$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$what: exit $rc, want 1: $(cat "$tmp/err")"
	grep -q -- "$pattern" "$tmp/err" || fail "$what: message lacks '$pattern': $(cat "$tmp/err")"
	[ "$(grep -c "$warning" "$tmp/err")" -eq "$warnings" ] || fail "$what: warning not said $warnings times: $(cat "$tmp/err")"
	[ ! -e "$tmp/out.json" ] || fail "$what: output written"
}

# a FIFO inside the tree: with Landlock never opened, without it the watchdog names it
cp -r "$tmp/k" "$tmp/f"
mkfifo "$tmp/f/include/linux/nobody.h"
printf '#include <linux/nobody.h>\n' >> "$tmp/f/include/linux/mm.h"
stopped "with Landlock, a FIFO in the tree" \
	"include/linux/mm.h:[0-9]*: includes $tmp/f/include/linux/nobody.h, a FIFO: .*refused before it was opened" 0 "$tmp/f"
stopped "without Landlock, a FIFO in the tree" "mm/[a-z]*.c: libclang was reading $tmp/f/include/linux/nobody.h, a FIFO" \
	1 "$tmp/f" without

printf '#include "/dev/zero"\n' >> "$tmp/k/include/linux/mm.h"
stopped "without Landlock, /dev/zero" "mm/[a-z]*.c: libclang was reading /dev/zero, a character device" 1 "$tmp/k" without
exit 0
