#!/bin/sh
# The house's measures (issue 22): no folder holds a circle (its objects call
# each other round: the walker at the bottom, rules above, the driver on top),
# no header includes itself, no function outside tests/ over 60 lines.
# tests/kit/layers.py measures; each measure is first shown to catch a made-up
# offence, then run on this tree.  One line a measure.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v python3 > /dev/null && command -v nm > /dev/null || skip "python3 or nm missing"
source=$PTSCOPE_TESTS/..
layers="python3 $PTSCOPE_TESTS/kit/layers.py"
# The objects: beside a ptscope built into its build folder (SANITIZE=1),
# else build/ (the default BUILD); PTSCOPE_BUILD names another.
build=${PTSCOPE_BUILD:-$(dirname "$PTSCOPE")}
[ -f "$build/ptscope.o" ] || build=$source/build
[ -f "$build/ptscope.o" ] || skip "no objects beside $PTSCOPE or in $source/build (set PTSCOPE_BUILD)"
CC=${CC:-cc}

# made-up offences: a circle of two objects (a uses b's, b uses a's) beside a
# bottom object c that only is used; two headers including each other; a
# function of 61 lines
mkdir -p "$tmp/build/folder" "$tmp/source/one"
printf 'int b(void); int c(void);\nint a(void) { return b() + c(); }\n' > "$tmp/a.c"
printf 'int a(void);\nint b(void) { return a(); }\n' > "$tmp/b.c"
printf 'int c(void) { return 1; }\n' > "$tmp/c.c"
for o in a b c; do
	$CC -c -o "$tmp/build/folder/$o.o" "$tmp/$o.c" || fail "cannot compile the made-up objects"
done
$layers circles "$tmp/build" > "$tmp/out" && fail "circles: did not see a -> b -> a"
grep -qx 'folder/: a circle of a b: a->b (b), b->a (a)' "$tmp/out" || fail "circles: $(cat "$tmp/out")"
printf '#include "one/y.h"\n' > "$tmp/source/one/x.h"
printf '#include "x.h"\n' > "$tmp/source/one/y.h"
$layers includes "$tmp/source" > "$tmp/out" && fail "includes: did not see x.h -> y.h -> x.h"
grep -qx 'include circle: one/x.h one/y.h' "$tmp/out" || fail "includes: $(cat "$tmp/out")"
{ printf 'int long_one(void)\n{\n'; seq 61 | sed 's/.*/\t;/'; printf '}\n'; } > "$tmp/source/one/f.c"
$layers lengths "$tmp/source" > "$tmp/out" && fail "lengths: did not see 61 lines"
grep -qx 'one/f.c:2: long_one has 61 lines (at most 60)' "$tmp/out" || fail "lengths: $(cat "$tmp/out")"

# Long functions still being cut, FILE:FUNCTION: any other function over
# 60 lines fails; one of these that is cut is said, so that the list only
# shrinks (empty: issue 22's commands were the last).
still_long=""

status=0
for measure in circles includes lengths; do
	where=$source; [ $measure = circles ] && where=$build
	$layers $measure "$where" > "$tmp/out"
	if [ $measure = lengths ]; then
		for known in $still_long; do
			file=${known%%:*} function=${known#*:}
			grep -q "^$file:[0-9]*: $function has" "$tmp/out" || echo "layers lengths: $function ($file) is cut: delete it from still_long"
			grep -v "^$file:[0-9]*: $function has" "$tmp/out" > "$tmp/rest"; mv "$tmp/rest" "$tmp/out"
		done
	fi
	if [ -s "$tmp/out" ]; then
		echo "layers $measure: FAILED"; sed 's/^/    /' "$tmp/out"; status=1
	else
		echo "layers $measure: none"
	fi
done
exit $status
