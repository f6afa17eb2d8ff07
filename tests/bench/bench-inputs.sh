#!/bin/sh
# bench-inputs.sh PTSCOPE CACHE_DIR
#
# Reading one large snapshot, side by side: `ptscope info` on the tar and on
# the same snapshot as a directory, `smem -S` on the directory (and on the
# tar, where Debian 12's smem crashes: it is a Python 2 program ported to
# Python 3 that matches str patterns against the bytes tarfile returns), and
# the floor: `cat TAR > /dev/null`, just reading the bytes.  `ptscope --help`
# shows what start-up alone costs (loading the shared libraries it links).
#
# The snapshot is generated once into CACHE_DIR by gen-snapshot.sh (BENCH_NPROC
# processes, default 2000, the same bytes on every run) and kept.  The table
# shows each command's best wall time of BENCH_RUNS (default 3) after one
# warm-up read, so the page cache holds the files; the ratios to cat are CPU
# seconds from alternating pairs (bench-common.sh's ratio).  Figures are
# printed, never asserted.
. "$(dirname "$0")/bench-common.sh"
nproc=${BENCH_NPROC:-2000}

need /usr/bin/time time
command -v smem >/dev/null || sh "$here/../deps.sh" smem
need python3 python3

snap=$(generated_snapshot "$nproc") || exit 1
tar=$snap/snapshot.tar
dir=$snap/root

vmas=$("$ptscope" info "$tar" 2>/dev/null | sed -n 's/^VMAs: //p')
processes=$("$ptscope" info "$tar" 2>/dev/null | sed -n 's/^processes: //p')
pagemap=$("$ptscope" info "$tar" 2>/dev/null | sed -n 's/^pagemap bytes: //p')
smaps_bytes=$(cat "$dir"/proc/*/smaps | wc -c)
tar_bytes=$(wc -c < "$tar")
cat "$tar" > /dev/null
cat "$dir"/proc/*/* > /dev/null 2>&1

# measure NAME COMMAND...: best of $runs; sets seconds, peak_kb, status, note.
measure() {
	name=$1; shift
	best=""; peak_kb=""; status=0; note=""
	i=0
	while [ $i -lt "$runs" ]; do
		i=$((i + 1))
		start=$(date +%s%N)
		/usr/bin/time -f '%M' -o "$tmp/time" "$@" > /dev/null 2> "$tmp/err"
		status=$?
		end=$(date +%s%N)
		ns=$((end - start))
		if [ -z "$best" ] || [ $ns -lt "$best" ]; then
			best=$ns
			peak_kb=$(tail -n 1 "$tmp/time")
		fi
		[ $status -ne 0 ] && break
	done
	seconds=$(awk -v ns="$best" 'BEGIN { printf "%.3f", ns / 1e9 }')
	if [ $status -ne 0 ]; then
		note="crashed (exit $status): $(grep -v '^Command exited' "$tmp/err" | tail -n 1)"
	fi
	printf '%-28s %9s %10s   %s\n' "$name" "$seconds" "$((peak_kb / 1024))" "$note"
}

echo "bench-inputs: $processes processes, $vmas VMAs, smaps text $smaps_bytes bytes, pagemap $pagemap bytes, tar $tar_bytes bytes"
printf '%-28s %9s %10s\n' "reader" "seconds" "peak MiB"
measure "cat TAR > /dev/null" cat "$tar"
measure "ptscope --help (start-up)" "$ptscope" --help
measure "ptscope info TAR" "$ptscope" info "$tar"
ours=$seconds
ours_kb=$peak_kb
measure "ptscope info DIR/proc" "$ptscope" info "$dir/proc"
measure "smem -S DIR" smem -S "$dir"
theirs=$seconds
measure "smem -S TAR" smem -S "$tar"

awk -v ours="$ours" -v theirs="$theirs" -v kb="$ours_kb" -v vmas="$vmas" 'BEGIN {
	printf "ptscope info TAR is %.1fx faster than smem -S DIR (wall, best of runs)\n", theirs / ours
	if (vmas > 0)
		printf "ptscope peak memory per VMA: %.0f bytes (peak RSS / VMAs, pagemap records included)\n", kb * 1024 / vmas
}'
echo
echo "CPU seconds, alternating pairs:"
ratio "info, $processes processes, $vmas VMAs (tar)" "cat of the same tar" \
	"'$ptscope' info '$tar'" "cat '$tar'" || exit 1
ratio "info, the same as a directory" "cat of its members" \
	"'$ptscope' info '$dir/proc'" "cat '$dir'/proc/*/*" || exit 1
pairs=${BENCH_SMEM_PAIRS:-3}
ratio "smem -S DIR (the tool a user would reach for)" "ptscope info DIR/proc" \
	"smem -S '$dir'" "'$ptscope' info '$dir/proc'" || exit 1
