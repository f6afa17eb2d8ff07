#!/bin/sh
# bench-report.sh PTSCOPE CACHE_DIR
#
# How long `ptscope report` takes, side by side: on the reference snapshots
# (real captures with PFNs and kpages: every exact figure is computed), and on
# generated snapshots of two sizes (gen-snapshot.sh, BENCH_REPORT_SMALL and
# BENCH_REPORT_LARGE processes, default 1000 and 4000) to show the model is
# linear in records and VMAs: the time per million records should stay put.
# `ptscope info` (reading alone) is shown beside each, so the model's own
# share is visible.  Best of BENCH_RUNS (default 3); printed, never asserted.
. "$(dirname "$0")/bench-common.sh"
small=${BENCH_REPORT_SMALL:-1000}
large=${BENCH_REPORT_LARGE:-4000}
shared=${SHARED_SNAPSHOTS:-$here/../../../shared/snapshots}
need /usr/bin/time time

# best wall seconds and its peak RSS (kB) of a command, over $runs runs
best() {
	b_wall= b_rss=
	i=0
	while [ $i -lt "$runs" ]; do
		/usr/bin/time -f '%e %M' -o "$tmp/t" "$@" > /dev/null 2> "$tmp/err" || { echo "failed: $*" >&2; cat "$tmp/err" >&2; return 1; }
		set -- "$@"
		read -r w r < "$tmp/t"
		if [ -z "$b_wall" ] || [ "$(echo "$w < $b_wall" | bc)" = 1 ]; then b_wall=$w b_rss=$r; fi
		i=$((i + 1))
	done
}

need bc bc
printf '%-34s %9s %9s %11s %9s %9s %9s %12s\n' snapshot processes VMAs records "info s" "report s" "RSS MB" "report us/krec"
row() {
	name=$1 file=$2
	info=$("$ptscope" info "$file" 2>/dev/null)
	procs=$(echo "$info" | sed -n 's/^processes: //p' | cut -d' ' -f1)
	vmas=$(echo "$info" | sed -n 's/^VMAs: //p' | cut -d' ' -f1)
	bytes=$(echo "$info" | sed -n 's/^pagemap bytes: //p' | cut -d' ' -f1)
	records=$(( ${bytes:-0} / 16 ))
	best "$ptscope" info "$file" || return 1
	info_s=$b_wall
	best "$ptscope" report "$file" --format json || return 1
	per=$(echo "scale=1; $b_wall * 1000000 / ($records / 1000 + 1)" | bc)
	printf '%-34s %9s %9s %11s %9s %9s %9s %12s\n' "$name" "$procs" "$vmas" "$records" "$info_s" "$b_wall" "$((b_rss / 1024))" "$per"
}
for n in pg32 desktop; do
	[ -f "$shared/$n.tar.gz" ] && row "$n.tar.gz (pfn, kpages)" "$shared/$n.tar.gz"
done
for n in "$small" "$large"; do
	snap=$(generated_snapshot "$n") || exit 1
	row "generated $n (present bits)" "$snap/snapshot.tar"
done

# the issue-24 shape: every process maps libc (4 VMAs each), so one file has
# 4 x N mappers; a step quadratic in a file's mappers shows here first
echo
echo "CPU seconds, alternating pairs:"
snap=$(generated_snapshot "$large") || exit 1
ratio "report, $large generated processes (libc mapped by every one)" "info on the same tar" \
	"'$ptscope' report '$snap/snapshot.tar'" "'$ptscope' info '$snap/snapshot.tar'" || exit 1
