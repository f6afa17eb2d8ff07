#!/bin/sh
# callgraph --overlay-profile: a function's share of a kernel profile, in the
# three forms profiles were posted in, on the 2.4-shaped fixture tree.  The
# profiles are written here (made-up numbers); the shares worked by hand:
#  - readprofile ticks 4541 + 3020 + 1500 + 939 = 10000 ("total" line not
#    counted): do_wp_page 45.41 %, page_add_rmap 9.39 %;
#  - perf report: page_remove_rmap 30 % + 20 % (two commands) = 50 %;
#  - opreport -l: page_add_rmap 13 %.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
tree="$PTSCOPE_TESTS/fixtures/kernel-2.4"
cat > "$tmp/readprofile.txt" <<'TXT'
  4541 do_wp_page                                12.0983
  3020 copy_page_range                            8.1234
  1500 zap_pte_range                              4.0000
   939 page_add_rmap                              2.0000
 10000 total                                      0.0100
TXT
cat > "$tmp/perf.txt" <<'TXT'
# Samples: 10K of event 'cycles'
# Overhead  Command  Shared Object      Symbol
    30.00%  make     [kernel.kallsyms]  [k] page_remove_rmap
    20.00%  sh       [kernel.kallsyms]  [k] page_remove_rmap
    10.50%  make     [kernel.kallsyms]  [k] copy_page_range.isra.0
TXT
cat > "$tmp/opreport.txt" <<'TXT'
CPU: P4 / Xeon, speed 2000 MHz (estimated)
samples  %        symbol name
5200     52.0000  do_wp_page
1300     13.0000  page_add_rmap
TXT
share() {  # samples_percent of a function in a callgraph JSON, 2 decimals
	python3 -c '
import json, sys
nodes = json.load(open(sys.argv[1]))["nodes"]
p = [n["samples_percent"] for n in nodes if n["name"] == sys.argv[2] and "samples_percent" in n]
print("%.2f" % p[0] if p else "none")' "$1" "$2"
}
run() { "$PTSCOPE" callgraph "$tree" --cache-dir "$tmp/cache" -q --all --overlay-profile "$1" --format json -o "$2"; }

run "$tmp/readprofile.txt" "$tmp/r.json" || fail "readprofile: exit status $?"
[ "$(share "$tmp/r.json" do_wp_page)" = 45.41 ] || fail "readprofile do_wp_page $(share "$tmp/r.json" do_wp_page)"
[ "$(share "$tmp/r.json" page_add_rmap)" = 9.39 ] || fail "readprofile page_add_rmap $(share "$tmp/r.json" page_add_rmap)"
run "$tmp/perf.txt" "$tmp/p.json" || fail "perf: exit status $?"
[ "$(share "$tmp/p.json" page_remove_rmap)" = 50.00 ] || fail "perf page_remove_rmap $(share "$tmp/p.json" page_remove_rmap)"
[ "$(share "$tmp/p.json" copy_page_range)" = 10.50 ] || fail "perf copy_page_range (.isra.0) $(share "$tmp/p.json" copy_page_range)"
[ "$(share "$tmp/p.json" do_wp_page)" = none ] || fail "perf: do_wp_page has no samples"
run "$tmp/opreport.txt" "$tmp/o.json" || fail "opreport: exit status $?"
[ "$(share "$tmp/o.json" page_add_rmap)" = 13.00 ] || fail "opreport page_add_rmap $(share "$tmp/o.json" page_add_rmap)"
# the picture names the profile
"$PTSCOPE" callgraph "$tree" --cache-dir "$tmp/cache" -q --overlay-profile "$tmp/perf.txt" -o "$tmp/p.svg" ||
	fail "svg: exit status $?"
grep -q '50.0% of samples' "$tmp/p.svg" || fail "the SVG has no '50.0% of samples'"
# --versus: the AFTER perf profile against a BEFORE 'samples symbol' list of
# 15525 + 4475 + 1983 + 17 = 22000 samples: page_remove_rmap 15525 / 22000 =
# 70.568 % before, 50 % after (-20.568 points); default_idle is in no graph.
cat > "$tmp/before.txt" <<'TXT'
15525 page_remove_rmap
 4475 page_add_rmap
 1983 do_wp_page
   17 copy_page_range.isra.0
TXT
cat >> "$tmp/perf.txt" <<'TXT'
     8.00%  swapper  [kernel]           [k] default_idle
TXT
"$PTSCOPE" callgraph "$tree" --cache-dir "$tmp/cache" -q --all --overlay-profile "$tmp/perf.txt" \
	--versus "$tmp/before.txt" --format json -o "$tmp/v.json" || fail "versus: exit status $?"
python3 - "$tmp/v.json" <<'PY' || fail "versus: JSON figures"
import json, sys
g = json.load(open(sys.argv[1]))
n = {x["name"]: x for x in g["nodes"]}
r = n["page_remove_rmap"]
assert abs(r["samples_percent"] - 50.0) < 1e-9, r
assert abs(r["baseline_samples_percent"] - 100 * 15525 / 22000) < 1e-9, r
assert r["baseline_samples"] == 15525 and "samples" not in r, r
assert abs(n["do_wp_page"]["baseline_samples_percent"] - 100 * 1983 / 22000) < 1e-9
assert "samples_percent" not in n["do_wp_page"]
u = {x["symbol"]: x for x in g["unplaced_symbols"]}
assert abs(u["default_idle"]["samples_percent"] - 8.0) < 1e-9 and "page_remove_rmap" not in u, u
PY
"$PTSCOPE" callgraph "$tree" --cache-dir "$tmp/cache" --overlay-profile "$tmp/perf.txt" \
	--versus "$tmp/before.txt" -o "$tmp/v.svg" 2> "$tmp/v.err" || fail "versus svg: exit status $?"
grep -q '50.0% (was 70.6%, &#45;20.6)' "$tmp/v.svg" || fail "the SVG has no '50.0% (was 70.6%, -20.6)'"
grep -q 'change in share of samples' "$tmp/v.svg" || fail "the SVG has no legend"
grep -q "the listed samples" "$tmp/v.svg" || fail "the SVG does not say the BEFORE shares are of the listed samples"
grep -q "profile symbols are not in the graph.*default_idle 8.0%" "$tmp/v.err" || fail "no unplaced summary: $(cat "$tmp/v.err")"
# a file that is no profile: one message naming it, exit 1, no output
printf 'hello\nworld\n' > "$tmp/not-a-profile.txt"
"$PTSCOPE" callgraph "$tree" --cache-dir "$tmp/cache" -q --overlay-profile "$tmp/not-a-profile.txt" \
	-o "$tmp/x.json" 2> "$tmp/err"; [ $? -eq 1 ] || fail "not a profile: want exit 1"
grep -q "not-a-profile.txt: no profile lines" "$tmp/err" || fail "message: $(cat "$tmp/err")"
[ ! -e "$tmp/x.json" ] || fail "a refused profile left an output file"
echo "profile overlay: readprofile, perf report and opreport shares as worked by hand"
