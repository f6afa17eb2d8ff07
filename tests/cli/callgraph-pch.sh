#!/bin/sh
# The shared precompiled header (analyzer/pch.c) changes no call graph: each
# tree parsed cold with it and with PTSCOPE_NO_PCH=1 gives the same json,
# xml and dot, byte for byte (--all: every function and call), and the runs
# with it say how many files used one (so the comparison is not of two
# plain parses).  The fixture trees always; ../shared/kernels' three old
# trees where they are (skipped visibly otherwise).  A second cold parse (the
# facts' cache emptied) takes the kept header as it is, and is the same too.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ptscope
n=0
# same TREE NAME MUST-USE: a cold run with and one without (json), then xml
# and dot from each run's cached facts (what the header could change)
same() {
	n=$((n + 1))
	for format in json xml dot; do
		PTSCOPE_NO_PCH=1 "$PTSCOPE" callgraph "$1" --cache-dir "$tmp/plain$n" --all --format $format \
			-o "$tmp/plain$n.$format" 2> "$tmp/plain$n.$format.err" || fail "$2: $format without: exit $?"
		"$PTSCOPE" callgraph "$1" --cache-dir "$tmp/pch$n" --all --format $format -o "$tmp/pch$n.$format" \
			2> "$tmp/pch$n.$format.err" || fail "$2: $format with: exit $?"
		cmp -s "$tmp/plain$n.$format" "$tmp/pch$n.$format" ||
			fail "$2: the $format call graph differs with the precompiled header"
		grep -q 'read their shared headers' "$tmp/plain$n.$format.err" && fail "$2: PTSCOPE_NO_PCH=1 still used one"
	done
	# the first (json) runs were the cold ones
	used=$(sed -n 's/^ptscope: callgraph: \([0-9]*\) of the [0-9]* parsed files read their shared headers.*/\1/p' \
		"$tmp/pch$n.json.err")
	[ "$3" = no ] || [ "${used:-0}" -gt 0 ] || fail "$2: no file used a precompiled header: $(cat "$tmp/pch$n.json.err")"
	echo "$2: identical in json, xml and dot; ${used:-0} files through a precompiled header"
}
same "$PTSCOPE_TESTS/fixtures/kernel-2.4" kernel-2.4 yes
same "$PTSCOPE_TESTS/fixtures/kernel-2.5" kernel-2.5 yes
same "$PTSCOPE_TESTS/fixtures/kernel-2.6" kernel-2.6 yes
ls "$tmp/pch1/pch/"*.pch > /dev/null 2>&1 || fail "kernel-2.4: no precompiled header kept in CACHE/pch"
# the header is kept: a cold parse (the facts' cache emptied) takes it as it is
rm -rf "$tmp/pch1/tu"
before=$(ls -l --time-style=+%s.%N "$tmp/pch1/pch/"*.pch)
"$PTSCOPE" callgraph "$PTSCOPE_TESTS/fixtures/kernel-2.4" --cache-dir "$tmp/pch1" --all --format dot \
	-o "$tmp/again.dot" 2> "$tmp/again.err" || fail "kernel-2.4 again: exit $?"
cmp -s "$tmp/plain1.dot" "$tmp/again.dot" || fail "kernel-2.4: a kept precompiled header gives another graph"
[ "$before" = "$(ls -l --time-style=+%s.%N "$tmp/pch1/pch/"*.pch)" ] || fail "kernel-2.4: the kept header was built again"
grep -q 'read their shared headers' "$tmp/again.err" || fail "kernel-2.4: the kept header was not used"

shared=0
for name in 2.4.18-14rh 2.5.68-tok 2.6.11.12; do
	tree=$(sh "$PTSCOPE_TESTS/shared-kernel.sh" "$cache" "$SHARED_KERNELS" "$name")
	status=$?
	[ $status -eq 77 ] && { echo "skip: no $SHARED_KERNELS/$name.tar.xz"; continue; }
	[ $status -eq 0 ] || fail "$name: could not unpack"
	same "$tree" "$name" no
	shared=$((shared + 1))
done
[ $shared -gt 0 ] || skip "fixtures identical; none of ../shared/kernels' trees is here (SHARED_KERNELS=$SHARED_KERNELS)"
exit 0
