#!/bin/sh
# Where the kernel has no Landlock (older than 5.13, or it is off) libclang's
# reads cannot be confined (analyzer/confine.c): ptscope says so once on
# stderr, however many files and workers, and the worker's watchdog still
# stops a device once it is open (analyzer/bounded.c), naming it; a good
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

printf '#include "/dev/zero"\n' >> "$tmp/k/include/linux/mm.h"
without timeout 60 "$PTSCOPE" callgraph "$tmp/k" --no-cache -q -j2 --format json -o "$tmp/out.json" 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "without Landlock, /dev/zero: exit $rc, want 1: $(cat "$tmp/err")"
grep -q "mm/[a-z]*.c: libclang was reading /dev/zero, a character device" "$tmp/err" ||
	fail "without Landlock, the watchdog did not name /dev/zero: $(cat "$tmp/err")"
[ "$(grep -c "$warning" "$tmp/err")" -eq 1 ] || fail "without Landlock, /dev/zero: not said once: $(cat "$tmp/err")"
[ ! -e "$tmp/out.json" ] || fail "without Landlock, /dev/zero: output written"
exit 0
