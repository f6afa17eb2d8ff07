#!/bin/sh
# callgraph --overlay-profile AFTER --baseline-profile BEFORE: two listings
# compared the way they were posted.  Worked by hand:
#  - two 'samples symbol' lists (no total line): counts are compared.
#    page_remove_rmap 15525 -> 1983: x0.13 (1983/15525 = 0.1277), -13,542;
#    page_add_rmap 6415 -> 2055: x0.32 (0.3203), -4,360 - it fell, so blue,
#    where shares of the listed samples would say +21.65 points
#    (2055/4038 = 50.89 % against 6415/21940 = 29.24 %);
#  - perf listings (shares of all samples) cut off at 0.82 % and 2.00 %:
#    do_wp_page 2.00 % -> 12.00 %: +10.0 exact; zap_pte_range 5.00 % -> not
#    listed: "< 0.82%", a change of at most 0.82 - 5.00 = -4.18;
#  - two trees, two profiles: each listing only on its own tree's functions.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
sh "$PTSCOPE_TESTS/deps.sh" jq >/dev/null 2>&1
command -v jq >/dev/null || skip "jq is not installed"
tree="$PTSCOPE_TESTS/fixtures/kernel-2.4"
printf '15525 page_remove_rmap\n 6415 page_add_rmap\n' > "$tmp/before.txt"
printf ' 1983 page_remove_rmap\n 2055 page_add_rmap\n' > "$tmp/after.txt"
run() { "$PTSCOPE" callgraph "$1" --cache-dir "$tmp/cache" -q --all "$@"; }
node() {  # FIELD of function NAME in a callgraph JSON
	jq -r --arg n "$2" --arg f "$3" '[.nodes[] | select(.name == $n) | .[$f]][0] // "none"
		| if type == "number" then (. * 100 | round / 100) else . end' "$1"
}

cg() { "$PTSCOPE" callgraph "$tree" --cache-dir "$tmp/cache" -q --all "$@"; }
cg --overlay-profile "$tmp/after.txt" --baseline-profile "$tmp/before.txt" --format json -o "$tmp/counts.json" ||
	fail "counts: exit status $?"
jq -e '.summary.compare == "counts" and (.summary.compare_why | test("total")) and .summary.joined == []' "$tmp/counts.json" >/dev/null ||
	fail "two lists without a total are not compared as counts: $(jq -c '.summary | {compare, compare_why}' "$tmp/counts.json")"
[ "$(node "$tmp/counts.json" page_add_rmap change_ratio)" = 0.32 ] ||
	fail "page_add_rmap ratio $(node "$tmp/counts.json" page_add_rmap change_ratio), want 0.32"
[ "$(node "$tmp/counts.json" page_add_rmap change_samples)" = -4360 ] ||
	fail "page_add_rmap change $(node "$tmp/counts.json" page_add_rmap change_samples), want -4360"
[ "$(node "$tmp/counts.json" page_remove_rmap change_ratio)" = 0.13 ] ||
	fail "page_remove_rmap ratio $(node "$tmp/counts.json" page_remove_rmap change_ratio)"
[ "$(node "$tmp/counts.json" page_remove_rmap change_samples)" = -13542 ] ||
	fail "page_remove_rmap change $(node "$tmp/counts.json" page_remove_rmap change_samples)"
# the picture: the label, blue (hue 0.6) for the fall, and a legend that says counts
cg --overlay-profile "$tmp/after.txt" --baseline-profile "$tmp/before.txt" --format dot -o "$tmp/counts.dot" ||
	fail "counts dot: exit status $?"
grep -q '2,055 (was 6,415, x0.32 -4,360)' "$tmp/counts.dot" || fail "no counts label on page_add_rmap"
grep -A3 'page_add_rmap' "$tmp/counts.dot" | grep -q 'fillcolor="0.600' || fail "page_add_rmap fell but is not blue"
grep -q 'ratio of samples, after / before (counts compared)' "$tmp/counts.dot" || fail "the legend does not say counts"
# asked for shares: the posted confusion, +21.65 points
cg --overlay-profile "$tmp/after.txt" --baseline-profile "$tmp/before.txt" --compare shares --format json \
	-o "$tmp/shares.json" || fail "shares: exit status $?"
[ "$(node "$tmp/shares.json" page_add_rmap change_points)" = 21.65 ] ||
	fail "page_add_rmap points $(node "$tmp/shares.json" page_add_rmap change_points), want 21.65"
jq -e '.summary.compare == "shares"' "$tmp/shares.json" >/dev/null || fail "--compare shares not said"

# cut-off perf listings
cat > "$tmp/perf-after.txt" <<'TXT'
# Overhead  Command  Shared Object      Symbol
    12.00%  make     [kernel.kallsyms]  [k] do_wp_page
     0.82%  make     [kernel.kallsyms]  [k] page_add_rmap
TXT
cat > "$tmp/perf-before.txt" <<'TXT'
# Overhead  Command  Shared Object      Symbol
     5.00%  make     [kernel.kallsyms]  [k] zap_pte_range
     2.00%  make     [kernel.kallsyms]  [k] do_wp_page
TXT
cg --overlay-profile "$tmp/perf-after.txt" --versus "$tmp/perf-before.txt" --format json -o "$tmp/cut.json" ||
	fail "cut-off: exit status $?"
jq -e '.summary.compare == "shares"' "$tmp/cut.json" >/dev/null || fail "perf listings not compared as shares"
[ "$(node "$tmp/cut.json" do_wp_page change_points)" = 10 ] && [ "$(node "$tmp/cut.json" do_wp_page change_bound)" = exact ] ||
	fail "do_wp_page: $(node "$tmp/cut.json" do_wp_page change_points) $(node "$tmp/cut.json" do_wp_page change_bound)"
[ "$(node "$tmp/cut.json" zap_pte_range samples_below_percent)" = 0.82 ] ||
	fail "zap_pte_range is not 'below 0.82 %': $(node "$tmp/cut.json" zap_pte_range samples_below_percent)"
[ "$(node "$tmp/cut.json" zap_pte_range change_points)" = -4.18 ] && [ "$(node "$tmp/cut.json" zap_pte_range change_bound)" = at_most ] ||
	fail "zap_pte_range: $(node "$tmp/cut.json" zap_pte_range change_points) $(node "$tmp/cut.json" zap_pte_range change_bound)"
cg --overlay-profile "$tmp/perf-after.txt" --versus "$tmp/perf-before.txt" --format dot -o "$tmp/cut.dot" ||
	fail "cut-off dot: exit status $?"
grep -q '< 0.82% (was 5.0%, <-4.2)' "$tmp/cut.dot" || fail "zap_pte_range's label does not say < 0.82%"
grep -q '(was 0.0%' "$tmp/cut.dot" && fail "a function not listed is shown as 0 %"
# counts asked of a listing that has none: refused, naming the file
cg --overlay-profile "$tmp/perf-after.txt" --baseline-profile "$tmp/perf-before.txt" --compare counts \
	--format json -o "$tmp/no.json" 2> "$tmp/err"; [ $? -eq 1 ] || fail "--compare counts of perf shares: want exit 1"
grep -q 'perf-after.txt.*raw sample counts' "$tmp/err" || fail "the refusal does not name the listing: $(cat "$tmp/err")"
[ -e "$tmp/no.json" ] && fail "a refused run wrote its output"
cg --compare nonsense --overlay-profile "$tmp/after.txt" --baseline-profile "$tmp/before.txt" 2> "$tmp/err" >/dev/null
[ $? -eq 1 ] && grep -q "did you mean\|not one of" "$tmp/err" || fail "--compare nonsense not refused"

# the table for mail (perf diff's columns) and the tree's column; a listing
# cut off at 900 (the after list's smallest) says do_wp_page fell below it:
# 900 - 3,000 = -2,100 at most, x0.30; memcpy, not in the before list (its
# smallest: 3,000), rose from below 3,000: > -2,100, > x0.30
printf '15525 page_remove_rmap\n 6415 page_add_rmap\n 3000 do_wp_page\n' > "$tmp/b2.txt"
printf ' 1983 page_remove_rmap\n 2055 page_add_rmap\n  900 memcpy\n' > "$tmp/a2.txt"
cg --overlay-profile "$tmp/a2.txt" --baseline-profile "$tmp/b2.txt" --format table -o "$tmp/table.txt" ||
	fail "--format table: exit status $?"
cat > "$tmp/want-table.txt" <<'TXT'
  page_remove_rmap                     15,525        1,983            -13,542    x0.13  yes
  page_add_rmap                         6,415        2,055             -4,360    x0.32  yes
  do_wp_page                            3,000        < 900            <-2,100   <x0.30  yes
  memcpy                              < 3,000          900            >-2,100   >x0.30  no
TXT
grep -v '^#' "$tmp/table.txt" | diff -u "$tmp/want-table.txt" - || fail "--format table"
grep -q '^# function  *before  *after  *change  *ratio  *graph$' "$tmp/table.txt" || fail "table header"
cg --overlay-profile "$tmp/a2.txt" --baseline-profile "$tmp/b2.txt" --format tree -o "$tmp/tree.txt" ||
	fail "--format tree with profiles: exit status $?"
grep -q 'page_add_rmap() <mm/rmap.c:34>: *2,055 (was 6,415, x0.32 -4,360)$' "$tmp/tree.txt" ||
	fail "the tree has no figures column: $(grep page_add_rmap "$tmp/tree.txt")"
grep -q '^# colour: ratio of samples' "$tmp/tree.txt" || fail "the tree does not say what its column is"
cg --format table -o "$tmp/t.txt" 2> /dev/null; [ $? -eq 1 ] || fail "--format table without profiles: want exit 1"

# perf script call chains weight the calls: four samples, worked by hand -
# leaves page_remove_rmap 3 (75 %), zap_pte_range 1; zap_page_range ->
# zap_pte_range in samples 1, 3, 4 (3); zap_pte_range -> page_remove_rmap in
# 1 and 3 (2); do_munmap -> zap_page_range 2; do_wp_page.isra.0 is do_wp_page
# one perf script sample: "COMM PID [CPU] TIME", then its frames, innermost first
sample() {
	printf '%s:     250000 cycles:\n' "$1"
	shift
	for frame; do printf '\tffffffff8123abcd %s ([kernel.kallsyms])\n' "$frame"; done
	echo
}
{
	printf '# ========\n# captured on: a fixture\n# ========\n'
	sample "bash  1234 [000] 12345.678901" page_remove_rmap+0x1d zap_pte_range+0x2a1 zap_page_range+0x10 exit_mmap+0x10
	sample "bash  1234 [000] 12345.679901" page_remove_rmap+0x1d do_wp_page.isra.0+0x2a1 handle_pte_fault+0x10
	sample "make  99 [001] 12345.680901" page_remove_rmap+0x1d zap_pte_range+0x2a1 zap_page_range+0x10 do_munmap+0x10
	sample "make  99 [001] 12345.690901" zap_pte_range+0x2a1 zap_page_range+0x10 do_munmap+0x10
} > "$tmp/script.txt"
cg --overlay-profile "$tmp/script.txt" --format json -o "$tmp/script.json" || fail "perf script: exit status $?"
call() {  # samples on the call FROM -> TO
	jq -r --arg f "$1" --arg t "$2" '(.nodes | map({(.id): .name}) | add) as $n
		| [.edges[] | select($n[.from] == $f and $n[.to] == $t) | .samples // "none"][0]' "$tmp/script.json"
}
for case in "zap_page_range zap_pte_range 3" "zap_pte_range page_remove_rmap 2" "do_munmap zap_page_range 2" \
	    "exit_mmap zap_page_range 1" "do_wp_page page_remove_rmap 1" "handle_pte_fault do_wp_page 1" \
	    "copy_page_range page_add_rmap none"; do
	set -- $case
	[ "$(call "$1" "$2")" = "$3" ] || fail "perf script: $1 -> $2 carries $(call "$1" "$2"), want $3"
done
[ "$(node "$tmp/script.json" page_remove_rmap samples_percent)" = 75 ] ||
	fail "perf script: page_remove_rmap $(node "$tmp/script.json" page_remove_rmap samples_percent) %, want 75"

# perf report -g call graphs weight the calls too, as shares of all samples.
# Caller order, graph (percent of all samples), today's layout: worked by
# hand - zap_page_range -> zap_pte_range 30 + 10 (page_remove_rmap's two
# branches) + 12 (zap_pte_range's own entry) = 52; zap_pte_range ->
# page_remove_rmap 30 + 10 = 40; do_munmap -> zap_page_range 10 + 12 = 22;
# exit_mmap -> zap_page_range 30; handle_pte_fault -> do_wp_page 8.
cat > "$tmp/report-caller.txt" <<'TXT'
# Samples: 1K of event 'cycles'
# Overhead  Command  Shared Object      Symbol
# ........  .......  .................  ......................
#
    40.00%  make  [kernel.kallsyms]  [k] page_remove_rmap
            |
            |--30.00%--do_exit
            |          mmput
            |          exit_mmap
            |          zap_page_range
            |          zap_pte_range
            |          page_remove_rmap
            |
             --10.00%--do_munmap
                       zap_page_range
                       zap_pte_range
                       page_remove_rmap

    12.00%  make  [kernel.kallsyms]  [k] zap_pte_range
            |
            ---do_munmap
               zap_page_range
               zap_pte_range

     8.00%  make  [kernel.kallsyms]  [k] do_wp_page
            |
            ---handle_mm_fault
               handle_pte_fault
               do_wp_page
TXT
# Callee order, fractal (percent of the parent), 2.6.3x's layout: the
# branches under zap_page_range are 75 % and 25 % of page_remove_rmap's 40:
# exit_mmap -> zap_page_range 30, do_munmap -> zap_page_range 10 + the
# second entry's 10 = 20; zap_page_range -> zap_pte_range 40 + 10 = 50.
cat > "$tmp/report-callee.txt" <<'TXT'
# Overhead  Command  Shared Object      Symbol
    40.00%  make  [kernel.kallsyms]  [k] page_remove_rmap
            |
            --- page_remove_rmap
                zap_pte_range
                zap_page_range
                |
                |--75.00%-- exit_mmap
                |           mmput
                |
                 --25.00%-- do_munmap

    10.00%  make  [kernel.kallsyms]  [k] zap_pte_range
            |
            --- zap_pte_range
                zap_page_range
                do_munmap
TXT
share() {  # the share of all samples on the call FROM -> TO in JSON FILE
	jq -r --arg f "$2" --arg t "$3" '(.nodes | map({(.id): .name}) | add) as $n
		| [.edges[] | select($n[.from] == $f and $n[.to] == $t) | .samples_percent // "none"][0]
		| if type == "number" then (. * 100 | round / 100) else . end' "$1"
}
cg --overlay-profile "$tmp/report-caller.txt" --format json -o "$tmp/caller.json" || fail "perf report -g caller: exit status $?"
cg --overlay-profile "$tmp/report-callee.txt" --format json -o "$tmp/callee.json" || fail "perf report -g callee: exit status $?"
for case in "caller zap_page_range zap_pte_range 52" "caller zap_pte_range page_remove_rmap 40" \
	    "caller do_munmap zap_page_range 22" "caller exit_mmap zap_page_range 30" "caller mmput exit_mmap 30" \
	    "caller handle_pte_fault do_wp_page 8" "caller handle_mm_fault handle_pte_fault 8" \
	    "caller copy_page_range page_add_rmap none" \
	    "callee zap_page_range zap_pte_range 50" "callee zap_pte_range page_remove_rmap 40" \
	    "callee exit_mmap zap_page_range 30" "callee do_munmap zap_page_range 20" "callee mmput exit_mmap 30"; do
	set -- $case
	[ "$(share "$tmp/$1.json" "$2" "$3")" = "$4" ] ||
		fail "perf report -g $1: $2 -> $3 carries $(share "$tmp/$1.json" "$2" "$3") %, want $4"
done
jq -e '[.edges[] | select(.samples_percent) | has("samples")] | all | not' "$tmp/caller.json" >/dev/null ||
	fail "perf report's calls claim sample counts it does not give"
cg --overlay-profile "$tmp/report-caller.txt" --format dot -o "$tmp/caller.dot" || fail "perf report -g dot: exit status $?"
grep -q 'xlabel="52.00% of samples"' "$tmp/caller.dot" || fail "the picture does not label zap_page_range -> zap_pte_range"
# --children repeats a sample's chain under every function on it: not read, and said
sed -e 's/^# Overhead /# Children      Self /' -e 's/^\(    [0-9.]*%\)/\1    1.00%/' "$tmp/report-caller.txt" > "$tmp/children.txt"
cg --overlay-profile "$tmp/children.txt" --format json -o "$tmp/children.json" || fail "--children: exit status $?"
jq -e '[.edges[] | select(.samples_percent)] == [] and (.summary.overlay | test("call chains of .* not read: under --children"))' \
	"$tmp/children.json" >/dev/null || fail "--children call chains read or not said: $(jq -c .summary.overlay "$tmp/children.json")"

# two trees, two profiles: the 2.5 listing on the 2.5 tree, the 2.4 one on the 2.4 tree
printf '1000 zap_pte_range\n 700 handle_pte_fault\n 400 shrink_list\n' > "$tmp/new.txt"
printf '3000 zap_page_range\n 500 handle_pte_fault\n 300 shrink_list\n 900 zap_pte_range\n' > "$tmp/old.txt"
# (name by name here; the era rename table's join is callgraph-renames' case)
"$PTSCOPE" callgraph "$PTSCOPE_TESTS/fixtures/kernel-2.5" --versus "$tree" --cache-dir "$tmp/cache" -q --no-renames \
	--overlay-profile "$tmp/new.txt" --baseline-profile "$tmp/old.txt" --format json -o "$tmp/trees.json" ||
	fail "two trees, two profiles: exit status $?"
# handle_pte_fault is only in 2.4: the 2.5 listing's 700 is not placed on it
[ "$(node "$tmp/trees.json" handle_pte_fault samples)" = none ] && [ "$(node "$tmp/trees.json" handle_pte_fault baseline_samples)" = 500 ] ||
	fail "handle_pte_fault (2.4 only): $(node "$tmp/trees.json" handle_pte_fault samples) / $(node "$tmp/trees.json" handle_pte_fault baseline_samples)"
# shrink_list is only in 2.5: the 2.4 listing's 300 is not placed on it
[ "$(node "$tmp/trees.json" shrink_list samples)" = 400 ] && [ "$(node "$tmp/trees.json" shrink_list baseline_samples)" = none ] ||
	fail "shrink_list (2.5 only): $(node "$tmp/trees.json" shrink_list samples) / $(node "$tmp/trees.json" shrink_list baseline_samples)"
# zap_pte_range, in both: 900 -> 1000, x1.11
[ "$(node "$tmp/trees.json" zap_pte_range change_ratio)" = 1.11 ] ||
	fail "zap_pte_range ratio $(node "$tmp/trees.json" zap_pte_range change_ratio), want 1.11"
jq -e '[.nodes[] | select(.only_in == "old")] | length > 0' "$tmp/trees.json" >/dev/null || fail "no old-only functions: not two trees"
echo "compare: counts x0.32 / -4,360 where shares said +21.65; cut-off < 0.82 %; two trees, two profiles"
