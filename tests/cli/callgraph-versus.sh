#!/bin/sh
# callgraph NEW_TREE --versus OLD_TREE on the 2.5- and 2.4-shaped fixtures,
# whose every call is written down by hand in EXPECTED-edges: a call is
# "new" when only 2.5's list has it, "old" when only 2.4's does, unmarked
# when both do (comm(1) on the two lists), and likewise every function that
# makes or takes a call.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
sh "$PTSCOPE_TESTS/deps.sh" jq >/dev/null 2>&1
command -v jq >/dev/null || { echo "skip: jq is not installed"; exit 77; }
f24="$PTSCOPE_TESTS/fixtures/kernel-2.4"
f25="$PTSCOPE_TESTS/fixtures/kernel-2.5"
"$PTSCOPE" callgraph "$f25" --versus "$f24" --all --cache-dir "$tmp/cache" -q --format json -o "$tmp/v.json" ||
	fail "exit status $?"
jq -r '(.nodes | map({(.id): "\(.name)@\(.file)"}) | add) as $n
       | .edges[] | "\($n[.from]) -> \($n[.to]) \(.kind) \(.only_in // "both")"' "$tmp/v.json" | sort -u > "$tmp/got"
{ comm -13 "$f24/EXPECTED-edges" "$f25/EXPECTED-edges" | sed 's/$/ new/'
  comm -23 "$f24/EXPECTED-edges" "$f25/EXPECTED-edges" | sed 's/$/ old/'
  comm -12 "$f24/EXPECTED-edges" "$f25/EXPECTED-edges" | sed 's/$/ both/'; } | sort > "$tmp/want"
diff -u "$tmp/want" "$tmp/got" || fail "calls marked differently from the hand-written lists"
functions() { awk '{ print $1; print $3 }' "$1" | sort -u; }
functions "$f24/EXPECTED-edges" > "$tmp/f24"
functions "$f25/EXPECTED-edges" > "$tmp/f25"
{ comm -13 "$tmp/f24" "$tmp/f25" | sed 's/$/ new/'
  comm -23 "$tmp/f24" "$tmp/f25" | sed 's/$/ old/'
  comm -12 "$tmp/f24" "$tmp/f25" | sed 's/$/ both/'; } | sort > "$tmp/want-functions"
jq -r '.nodes[] | "\(.name)@\(.file) \(.only_in // "both")"' "$tmp/v.json" | sort > "$tmp/all-functions"
# functions that make or take no call are in no list: left out of the comparison
awk 'NR == FNR { keep[$1] = 1; next } ($1 in keep)' "$tmp/want-functions" "$tmp/all-functions" > "$tmp/got-functions"
diff -u "$tmp/want-functions" "$tmp/got-functions" || fail "functions marked differently"
[ "$(grep -c ' new$' "$tmp/want")" -gt 0 ] && [ "$(grep -c ' old$' "$tmp/want")" -gt 0 ] || fail "nothing differs: the test proves nothing"
# ids stay unique (an old function's USR is marked)
[ "$(jq '[.nodes[].id] | length' "$tmp/v.json")" -eq "$(jq '[.nodes[].id] | unique | length' "$tmp/v.json")" ] ||
	fail "two functions share an id"
# the picture says which colour is which tree
"$PTSCOPE" callgraph "$f25" --versus "$f24" --cache-dir "$tmp/cache" -q -o "$tmp/v.svg" || fail "svg: exit status $?"
grep -q 'only in the new tree' "$tmp/v.svg" || fail "the SVG has no legend"
# an OLD that is no tree: exit 1
"$PTSCOPE" callgraph "$f25" --versus "$tmp/none" --cache-dir "$tmp/cache" -q --format json > /dev/null 2>&1
[ $? -eq 1 ] || fail "a missing old tree: want exit 1"
echo "callgraph --versus: 2.5 against 2.4, calls and functions marked as the hand-written lists say"
