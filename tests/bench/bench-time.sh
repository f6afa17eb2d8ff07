#!/bin/sh
# bench-time.sh PTSCOPE CACHE_DIR
#
# The cost of each step of a fork on this machine: `ptscope bench
# --calibrate` (13 made-up layouts rebuilt in ptscope-subject, 100 runs
# each, robust least squares, a step that comes out negative dropped and
# said so; the whole
# fork + exit + wait elapsed, the parent's CPU time in fork(), the child's
# CPU time to its exit) prints the coefficients with their errors, each
# fit's residual and three held-out layouts predicted beside measured, with
# the error in percent.  Then the seed-004 shape on the reference desktop
# snapshot (../shared) when there: a fork of its process with most VMAs
# rebuilt here (`bench fork --like --calibration`: measured beside
# predicted), the report's time section for every process (`report
# --calibration`: today and under shpt-2006), and hugetlbfs PMD sharing
# (`bench hugetlb`: the one sharing the kernel does, measured both ways).
# The measured beside the predicted of the fork --like are the rows of the
# ratios table (measured / predicted).  Figures are printed, never asserted:
# the machine is shared.
. "$(dirname "$0")/bench-common.sh"
"$ptscope" bench --calibrate -o "$tmp/here.cal" || exit 1
echo
"$ptscope" bench hugetlb --runs 20 | sed -n '/^hugetlbfs/,$p'
desktop=${SHARED_SNAPSHOTS:-$here/../../../shared/snapshots}/desktop.tar.gz
[ -f "$desktop" ] || skip "no $desktop (SHARED_SNAPSHOTS): no fork --like to set beside the calibration"
echo
"$ptscope" bench fork --like "$desktop" --runs 200 --calibration "$tmp/here.cal" > "$tmp/like" || exit 1
sed -n '/^process forked/p; /^fork /p; /^measured (fastest/,/^  exit part/p' "$tmp/like"
# "  fork part   760.6 us measured   979.6 +- 355.1 us predicted (+28.8%)"
sed -n '/^measured (fastest/,/^  exit part/{ s/^  \([a-z]*\) part /  \1-part /; p; }' "$tmp/like" | awk '/ us measured / {
	what = $1; sub(/-part$/, " part", what)
	printf "| %s of desktop.tar.gz\x27s xfce4-session rebuilt here (bench fork --like, fastest of 200) | the calibration\x27s prediction (bench --calibrate) | %s us | %s +- %s us | %.2f× |\n",
		what, $2, $5, $7, $2 / $5 }' > "$tmp/rows"
[ -s "$tmp/rows" ] || { echo "bench-time: no measured beside predicted in bench fork --like's output"; exit 1; }
cat "$tmp/rows"
[ -n "${BENCH_RATIOS:-}" ] && cat "$tmp/rows" >> "$BENCH_RATIOS"
echo
"$ptscope" report "$desktop" --calibration "$tmp/here.cal" | sed -n '/^Time,/,/^  each design/p'
