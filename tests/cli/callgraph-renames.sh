#!/bin/sh
# The era rename table: two profiles of two eras compared like with like.
# Listings written by hand, sums and ratios worked by hand:
#  - 2.5 tree against 2.4 tree, a 2.5 listing against a 2.4 one: 2.4 lists
#    its PTE zapping under zap_page_range (3,000; zap_pte_range is inlined),
#    2.5 under zap_pte_range (1,000) and unmap_vmas (600): joined, 1,600
#    against 3,000 = x0.53, -1,400, on zap_pte_range; page_add_rmap has one
#    name in both (800 -> 700, x0.88): not joined.  --no-renames compares name
#    by name: zap_pte_range is then 1,000 against "< 300" (the 2.4 listing's
#    smallest entry).
#  - 2.6 tree, a 2.4 listing against a 2.6 one: page_add_rmap 800 against
#    page_add_anon_rmap 300 + page_add_file_rmap 300 = 600: x0.75, -200, on
#    page_add_anon_rmap; do_fork 40 against kernel_clone 50 (not in the
#    graph): x1.25, +10, on do_fork.
#  - the XML carries the JSON's compare, bound, join and call-sample fields.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
sh "$PTSCOPE_TESTS/deps.sh" jq python3 >/dev/null 2>&1
command -v jq >/dev/null && command -v python3 >/dev/null || skip "jq or python3 is not installed"
fixtures="$PTSCOPE_TESTS/fixtures"
cg() { "$PTSCOPE" callgraph "$@" --cache-dir "$tmp/cache" -q; }
node() {  # FIELD of function NAME in a callgraph JSON
	jq -r --arg n "$2" --arg f "$3" '[.nodes[] | select(.name == $n) | .[$f]][0] // "none"
		| if type == "number" then (. * 100 | round / 100) else . end' "$1"
}

printf '3000 zap_page_range\n 800 page_add_rmap\n 500 do_wp_page\n 300 shrink_cache\n' > "$tmp/old.txt"
printf '1000 zap_pte_range\n 700 page_add_rmap\n 600 unmap_vmas\n 400 do_wp_page\n' > "$tmp/new.txt"
trees() { cg "$fixtures/kernel-2.5" --versus "$fixtures/kernel-2.4" --overlay-profile "$tmp/new.txt" \
	--baseline-profile "$tmp/old.txt" "$@"; }
trees --format json -o "$tmp/trees.json" || fail "two eras: exit status $?"
for case in "samples 1600" "baseline_samples 3000" "change_ratio 0.53" "change_samples -1400" \
	    "change_bound exact" "joined_work zap-ptes" "joined_before zap_page_range" \
	    "joined_after zap_pte_range+unmap_vmas"; do
	set -- $case
	[ "$(node "$tmp/trees.json" zap_pte_range "$1")" = "$2" ] ||
		fail "zap_pte_range $1: $(node "$tmp/trees.json" zap_pte_range "$1"), want $2"
done
# the sums sit on one function: neither name is counted twice
[ "$(node "$tmp/trees.json" zap_page_range baseline_samples)" = none ] ||
	fail "zap_page_range keeps the 2.4 listing's 3,000 beside the join"
[ "$(node "$tmp/trees.json" unmap_vmas samples)" = none ] || fail "unmap_vmas keeps its 600 beside the join"
[ "$(node "$tmp/trees.json" page_add_rmap change_ratio)" = 0.88 ] && [ "$(node "$tmp/trees.json" page_add_rmap joined_work)" = none ] ||
	fail "page_add_rmap (one name in both): $(node "$tmp/trees.json" page_add_rmap change_ratio) $(node "$tmp/trees.json" page_add_rmap joined_work)"
jq -e '.summary.joined == [{"work": "zap-ptes", "before": "zap_page_range", "after": "zap_pte_range+unmap_vmas",
	"on": "zap_pte_range"}]' "$tmp/trees.json" >/dev/null || fail "summary.joined: $(jq -c .summary.joined "$tmp/trees.json")"
"$PTSCOPE" callgraph "$fixtures/kernel-2.5" --versus "$fixtures/kernel-2.4" --overlay-profile "$tmp/new.txt" \
	--baseline-profile "$tmp/old.txt" --cache-dir "$tmp/cache" -o "$tmp/t.json" 2> "$tmp/err" || fail "not quiet: exit status $?"
grep -q 'joined (era rename table, zap-ptes): before zap_page_range, after zap_pte_range+unmap_vmas, summed on zap_pte_range' \
	"$tmp/err" || fail "stderr does not say which names were joined: $(cat "$tmp/err")"
trees -o "$tmp/trees.table" --format table || fail "table: exit status $?"
grep -q '^  zap_pte_range  *3,000  *1,600  *-1,400  *x0.53  yes$' "$tmp/trees.table" ||
	fail "table row: $(grep zap_pte_range "$tmp/trees.table")"
grep -q '^# joined (era rename table, zap-ptes)' "$tmp/trees.table" || fail "the table does not say what it joined"
trees --format dot -o "$tmp/trees.dot" || fail "dot: exit status $?"
grep -q 'joined: was zap_page_range, now zap_pte_range+unmap_vmas' "$tmp/trees.dot" || fail "the picture does not say what it joined"

# name by name when asked
trees --no-renames --format json -o "$tmp/names.json" || fail "--no-renames: exit status $?"
[ "$(node "$tmp/names.json" zap_pte_range samples)" = 1000 ] && [ "$(node "$tmp/names.json" zap_pte_range baseline_samples_below)" = 300 ] &&
	[ "$(node "$tmp/names.json" zap_pte_range change_bound)" = at_least ] ||
	fail "--no-renames: zap_pte_range $(jq -c '.nodes[] | select(.name == "zap_pte_range")' "$tmp/names.json")"
jq -e '.summary.joined == []' "$tmp/names.json" >/dev/null || fail "--no-renames still joined"
cg "$fixtures/kernel-2.4" --overlay-profile "$tmp/new.txt" --no-renames -o "$tmp/x.json" 2> "$tmp/err"
[ $? -eq 1 ] && grep -q -- '--no-renames needs two profiles' "$tmp/err" || fail "--no-renames with one profile not refused"

# the XML: the same fields (one intermediate feeds both)
trees --format xml -o "$tmp/trees.xml" || fail "xml: exit status $?"
x() {  # attribute ATTR of the first element matching ElementTree path PATH
	python3 -c 'import sys, xml.etree.ElementTree as E
e = E.parse(sys.argv[1]).getroot().find(sys.argv[2])
print("none" if e is None else e.get(sys.argv[3], "none"))' "$tmp/trees.xml" "$1" "$2"
}
zap='./node[@name="zap_pte_range"]'
for case in "samples 1600" "baseline_samples 3000" "change_samples -1400" "change_ratio 0.5333" \
	    "change_bound exact" "joined_work zap-ptes"; do
	set -- $case
	[ "$(x "$zap" "$1")" = "$2" ] || fail "xml zap_pte_range $1: $(x "$zap" "$1"), want $2"
done
[ "$(x ./summary compare)" = counts ] && [ "$(x ./summary/joined on)" = zap_pte_range ] ||
	fail "xml summary: compare $(x ./summary compare), joined on $(x ./summary/joined on)"
[ "$(x './node[@name="do_wp_page"]' change_ratio)" = 0.8000 ] || fail "xml do_wp_page ratio: $(x './node[@name="do_wp_page"]' change_ratio)"
[ "$(x './node[@name="shrink_list"]' only_in)" = new ] || fail "xml: shrink_list is not marked new"
[ "$(x './node[@name="shrink_list"]' baseline_samples_below)" = 300 ] || fail "xml: no cut-off on shrink_list"

# a 2.4 listing against a 2.6 one on the 2.6 tree
printf '800 page_add_rmap\n  40 do_fork\n  30 page_remove_rmap\n' > "$tmp/l24.txt"
printf '300 page_add_anon_rmap\n 300 page_add_file_rmap\n  50 kernel_clone\n  30 page_remove_rmap\n' > "$tmp/l26.txt"
cg "$fixtures/kernel-2.6" --all --overlay-profile "$tmp/l26.txt" --baseline-profile "$tmp/l24.txt" --format json \
	-o "$tmp/26.json" || fail "2.4 against 2.6: exit status $?"
for case in "page_add_anon_rmap samples 600" "page_add_anon_rmap baseline_samples 800" \
	    "page_add_anon_rmap change_ratio 0.75" "page_add_anon_rmap change_samples -200" \
	    "page_add_anon_rmap joined_after page_add_anon_rmap+page_add_file_rmap" "page_add_file_rmap samples none" \
	    "do_fork samples 50" "do_fork baseline_samples 40" "do_fork change_ratio 1.25" "do_fork joined_after kernel_clone" \
	    "page_remove_rmap change_ratio 1" "page_remove_rmap joined_work none"; do
	set -- $case
	[ "$(node "$tmp/26.json" "$1" "$2")" = "$3" ] || fail "2.4 against 2.6: $1 $2 $(node "$tmp/26.json" "$1" "$2"), want $3"
done
jq -e '[.summary.joined[].work] == ["rmap-add", "fork"]' "$tmp/26.json" >/dev/null ||
	fail "joined: $(jq -c .summary.joined "$tmp/26.json")"
jq -e '[.unplaced_symbols[].symbol] | index("kernel_clone") == null' "$tmp/26.json" >/dev/null ||
	fail "kernel_clone left unplaced beside its join"

# the table is data: listed and shown by `profiles`
"$PTSCOPE" profiles --show zap-ptes > "$tmp/show.txt" || fail "profiles --show zap-ptes: exit status $?"
grep -q '^  zap_page_range  *2.4' "$tmp/show.txt" || fail "profiles --show zap-ptes: $(cat "$tmp/show.txt")"
"$PTSCOPE" profiles | grep -q '^  rmap-remove ' || fail "profiles does not list the rename table"
# a name in two pieces of work is refused, naming the file and line
cat > "$tmp/twice.xml" <<'XML'
<?xml version="1.0"?>
<profiles>
  <same-work id="a-work"><description>a</description>
    <name function="foo" kernels="1"/><name function="bar" kernels="2"/></same-work>
  <same-work id="b-work"><description>b</description>
    <name function="baz" kernels="1"/>
    <name function="foo" kernels="2"/></same-work>
</profiles>
XML
"$PTSCOPE" profiles --check "$tmp/twice.xml" 2> "$tmp/err"; [ $? -eq 1 ] || fail "a name in two works: want exit 1"
grep -q 'twice.xml:7: same-work b-work: foo is already a name of a-work' "$tmp/err" || fail "message: $(cat "$tmp/err")"
echo "renames: 2.4 zap_page_range 3,000 against 2.5 zap_pte_range+unmap_vmas 1,600 (x0.53); page_add_rmap 800 against anon+file 600 (x0.75)"
