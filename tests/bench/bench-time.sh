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
# Figures are printed, never asserted: the machine is shared.
. "$(dirname "$0")/bench-common.sh"
"$ptscope" bench --calibrate -o "$tmp/here.cal" || exit 1
echo
"$ptscope" bench hugetlb --runs 20 | sed -n '/^hugetlbfs/,$p'
desktop=${SHARED_SNAPSHOTS:-$here/../../../shared/snapshots}/desktop.tar.gz
[ -f "$desktop" ] || { echo "bench-time: no $desktop: the desktop example skipped"; exit 0; }
echo
"$ptscope" bench fork --like "$desktop" --runs 200 --calibration "$tmp/here.cal" |
	sed -n '/^process forked/p; /^fork /p; /^measured (fastest/,/^  exit part/p'
echo
"$ptscope" report "$desktop" --calibration "$tmp/here.cal" | sed -n '/^Time,/,/^  each design/p'
