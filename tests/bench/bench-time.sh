#!/bin/sh
# bench-time.sh PTSCOPE CACHE_DIR
#
# The cost of each step of a fork on this machine: `ptscope bench
# --calibrate` (13 made-up layouts, 100 runs each, least squares) prints the
# coefficients with their errors, the fit's residual and three held-out
# layouts predicted beside measured, with the error in percent.  Then the
# seed-004 shape on the reference desktop snapshot (../shared) when there:
# a fork of its process with most VMAs rebuilt here (`bench fork --like`,
# measured) beside what the calibration predicts for a fork of that
# process today and under shpt-2006 (`report --calibration`, predicted).
# Figures are printed, never asserted: the machine is shared.
. "$(dirname "$0")/bench-common.sh"
"$ptscope" bench --calibrate -o "$tmp/here.cal" || exit 1
desktop=${SHARED_SNAPSHOTS:-$here/../../../shared/snapshots}/desktop.tar.gz
[ -f "$desktop" ] || { echo "bench-time: no $desktop: the desktop example skipped"; exit 0; }
echo
"$ptscope" bench fork --like "$desktop" --runs 200 | sed -n '/^process forked/p; /^fork /p'
pid=$("$ptscope" bench fork --like "$desktop" --runs 1 --format json | sed -n 's/^ *"pid":\([0-9]*\),*$/\1/p')
mkdir -p "$tmp/one"
tar -xzf "$desktop" -C "$tmp/one"
root=$(dirname "$(find "$tmp/one" -name snapshot.info | head -n 1)")
# the one process, as its own snapshot: the calibration prices its fork
mkdir -p "$tmp/alone"
cp "$root"/snapshot.info "$root"/version "$root"/meminfo "$tmp/alone/" 2>/dev/null
cp -r "$root/$pid" "$tmp/alone/"
"$ptscope" report "$tmp/alone" --profile shpt-2006 --calibration "$tmp/here.cal" | sed -n '/^Time,/,$p'
