#!/bin/sh
# bench-report.sh PTSCOPE CACHE_DIR
#
# How long `ptscope report` takes against `ptscope info` (reading alone) on
# the same snapshot, CPU seconds in alternating pairs after a warm-up
# (bench-common.sh's ratio; BENCH_REPORT_PAIRS pairs, default 7, 3 with
# BENCH_QUICK: one run's pairs on the 4000 spread over 0.2, 2.93 to 3.19,
# on a loaded machine, so a median of 3 moves): on the
# reference snapshots (real captures with PFNs and kpages: every exact figure
# is computed), and on generated
# snapshots of 2000 and 4000 processes (gen-snapshot.py, seed 1, the same
# bytes on every run), where every process maps libc (4 VMAs each): one file
# with 4 x N mappers, the shape of a database host, where a step quadratic in
# a file's mappers shows first.  The report's time per thousand page records
# should stay put from 2000 to 4000 processes.  Printed, never asserted.
. "$(dirname "$0")/bench-common.sh"
shared=${SHARED_SNAPSHOTS:-$here/../../../shared/snapshots}
pairs=${BENCH_REPORT_PAIRS:-${BENCH_PAIRS:-$([ -n "$quick" ] && echo 3 || echo 7)}}

# row LABEL FILE: report against info on FILE, a line of the table
row() {
	"$ptscope" info "$2" > "$tmp/info" 2>&1 || { cat "$tmp/info"; return 1; }
	procs=$(sed -n 's/^processes: //p' "$tmp/info" | cut -d' ' -f1)
	vmas=$(sed -n 's/^VMAs: //p' "$tmp/info" | cut -d' ' -f1)
	bytes=$(sed -n 's/^pagemap bytes: //p' "$tmp/info" | cut -d' ' -f1)
	records=$(( ${bytes:-0} / 16 ))
	ratio "report, $1 ($procs processes, $vmas VMAs)" "info on it" \
		"'$ptscope' report '$2'" "'$ptscope' info '$2'" > /dev/null || return 1
	printf '%-40s %9s %9s %11s %9s %9s %8s %7s %12s\n' "$1" "$procs" "$vmas" "$records" "$ratio_anchor_cpu" \
		"$ratio_work_cpu" "$((ratio_work_kb / 1024))" "$ratio_value" \
		"$(echo "$ratio_work_cpu $records" | awk '$2 > 0 { printf "%.2f", $1 * 1e6 / ($2 / 1000) } $2 == 0 { print "-" }')"
}

echo "CPU seconds, median of alternating pairs (bench-common.sh's ratio)"
printf '%-40s %9s %9s %11s %9s %9s %8s %7s %12s\n' snapshot processes VMAs records "info s" "report s" \
	"RSS MiB" ratio "report us/krec"
for n in pg32 desktop; do
	[ -f "$shared/$n.tar.gz" ] || skip "no $shared/$n.tar.gz (SHARED_SNAPSHOTS)"
	row "$n.tar.gz (PFNs, kpages)" "$shared/$n.tar.gz" || exit 1
done
for n in 2000 4000; do
	snap=$(generated_snapshot "$n") || exit 1
	row "generated, $n processes (libc in every one)" "$snap/snapshot.tar" || exit 1
done
# info steps over the pagemap records report reads (37 M at 4000): the same
# processes without records show the passes over VMAs, files and processes
# alone, and info --verify, which reads every record, is the reading anchor.
text=$(generated_snapshot 4000 text) || exit 1
row "generated, no pagemap records, 4000 processes (libc in every one)" "$text/snapshot.tar" || exit 1
ratio "report, generated, 4000 processes, against reading its records" "info --verify on it (reads every record)" \
	"'$ptscope' report '$snap/snapshot.tar'" "'$ptscope' info --verify '$snap/snapshot.tar'" > /dev/null || exit 1
echo "generated, 4000 processes: report $ratio_work_cpu s, info --verify (every record read and checked) $ratio_anchor_cpu s: $ratio_value"
