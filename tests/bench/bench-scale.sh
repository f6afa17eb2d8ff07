#!/bin/sh
# bench-scale.sh PTSCOPE CACHE_DIR
#
# Issue 10's workload: one shared anonymous segment of S MiB written by a
# parent and read in full by N children (tests/bench/shmtree.c), the shape
# shared page tables were proposed for.  For each size, side by side:
#   - Sum VmPTE of the tree (the kernel's own count) and pagemap records;
#   - `ptscope capture --tree` (default container and codec, snapshot format
#     2) against the read floor measured in the same run (tests/bench/readfloor.c:
#     smaps, pagemap over every VMA, kpagecount + kpageflags of the PFNs seen,
#     nothing else), CPU seconds in alternating pairs (BENCH_SCALE_PAIRS,
#     default 3); the same for `capture --compress none`;
#   - snapshot bytes per page record of format 2 (zstd and none) and format 1
#     (zstd, captured once), and of format 2 with the parent alone
#     (`--pid`, zstd and none): what the distinct pages cost; the rest, divided by the
#     children, is what one more process costs;
#   - `ptscope report` against `ptscope info --verify`, CPU seconds in
#     alternating pairs, peak memory (/usr/bin/time), report memory per record;
#   - 64 GiB x 1000 processes extrapolated from the largest size measured:
#     format 1 linear in records; format 2 as the parent alone (distinct
#     pages) x 64 GiB / S plus 1000 x the cost of one more process; report
#     CPU time as a term in distinct pages and one in processes x pages, both
#     measured at one size: `report` on the parent alone against the whole
#     tree (extrapolate_time says how), with its bounds.
# Sizes: BENCH_SCALE ("MIB:N ...", default "1024:16 4096:48": two sizes for
# the growth per GiB, the middle 2048:32 left out for make bench's time; with
# BENCH_QUICK "1024:16"), each
# kept only when MemAvailable holds three times the segment and its page
# tables.  Needs root (PFNs).  Printed, never asserted.  Everything started is
# ended and removed on exit.
. "$(dirname "$0")/bench-common.sh"
sizes=${BENCH_SCALE:-$([ -n "$quick" ] && echo 1024:16 || echo 1024:16 4096:48)}
cc=${CC:-cc}
[ "$(id -u)" = 0 ] || skip "needs root for pagemap PFNs"
tree=
cleanup() {
	[ -n "$tree" ] && kill "$tree" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP
for program in shmtree readfloor; do
	$cc -O2 -o "$tmp/$program" "$here/$program.c" || exit 1
done

echo "CPU seconds (median of alternating pairs, bench-common.sh's ratio); ratios of CPU seconds"
printf '%-10s %9s %10s %12s %12s %6s %9s %12s %6s %12s %6s %6s %7s\n' "S, N" "VmPTE MiB" records \
	"capture s" "floor s" ratio "snap MB" "report s" MiB "verify s" MiB ratio "B/rec"
echo "(capture and snap: format 2 and zstd, the defaults; --compress none on the line below each)"
available_mib=$(( $(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo) / 1024 ))
for size in $sizes; do
	mib=${size%%:*} children=${size##*:}
	need=$(( 3 * (mib + (children + 1) * mib / 512) ))
	if [ "$need" -gt "$available_mib" ]; then
		echo "$mib MiB x $children: skipped ($need MiB needed, $available_mib MiB available)"
		continue
	fi
	rm -f "$tmp/pid"
	"$tmp/shmtree" "$mib" "$children" > "$tmp/pid" &
	tree=$!
	while [ ! -s "$tmp/pid" ] && kill -0 "$tree" 2>/dev/null; do sleep 0.2; done
	[ -s "$tmp/pid" ] || { echo "bench-scale: shmtree $mib $children failed"; exit 1; }
	pids="$tree $(ps -o pid= --ppid "$tree" | tr '\n' ' ')"
	[ "$(echo $pids | wc -w)" -eq $((children + 1)) ] ||
		{ echo "bench-scale: shmtree $mib $children: $(echo $pids | wc -w) processes, want $((children + 1))"; exit 1; }
	vmpte_kb=0
	for p in $pids; do
		kb=$(sed -n 's/^VmPTE:[[:space:]]*\([0-9]*\) kB/\1/p' /proc/$p/status)
		[ -n "$kb" ] || { echo "bench-scale: process $p of the tree is gone"; exit 1; }
		vmpte_kb=$((vmpte_kb + kb))
	done
	# capture and the floor in alternating pairs; the last capture is kept
	pairs=${BENCH_SCALE_PAIRS:-3}
	ratio "capture --tree, $mib MiB shared x $children (default codec)" \
		"kernel read floor (readfloor.c: smaps, pagemap, kpagecount, kpageflags)" \
		"rm -rf '$tmp/out.d' && mkdir '$tmp/out.d' && '$ptscope' capture --tree $tree -o '$tmp/out.d'" \
		"'$tmp/readfloor' $pids" > /dev/null || exit 1
	capture_s=$ratio_work_cpu floor_s=$ratio_anchor_cpu capture_ratio=$ratio_value
	ratio "capture --tree --compress none, $mib MiB shared x $children" \
		"kernel read floor (readfloor.c: smaps, pagemap, kpagecount, kpageflags)" \
		"rm -rf '$tmp/none.d' && mkdir '$tmp/none.d' && '$ptscope' capture --compress none --tree $tree -o '$tmp/none.d'" \
		"'$tmp/readfloor' $pids" > /dev/null || exit 1
	none_s=$ratio_work_cpu floor_none_s=$ratio_anchor_cpu none_ratio=$ratio_value
	# format 1 (every process's records), once: its size and the records
	rm -rf "$tmp/out1.d" && mkdir "$tmp/out1.d" && "$ptscope" capture --format 1 --tree "$tree" -o "$tmp/out1.d" > /dev/null 2>&1 ||
		{ echo "bench-scale: capture --format 1 --tree $tree failed"; exit 1; }
	rm -rf "$tmp/parent.d" && mkdir "$tmp/parent.d" && "$ptscope" capture --pid "$tree" -o "$tmp/parent.d" > /dev/null 2>&1 ||
		{ echo "bench-scale: capture --pid $tree failed"; exit 1; }
	rm -rf "$tmp/parentnone.d" && mkdir "$tmp/parentnone.d" && "$ptscope" capture --compress none --pid "$tree" -o "$tmp/parentnone.d" > /dev/null 2>&1 ||
		{ echo "bench-scale: capture --compress none --pid $tree failed"; exit 1; }
	parent_bytes=$(stat -c %s "$(ls "$tmp"/parent.d/*)")
	parent_none_bytes=$(stat -c %s "$(ls "$tmp"/parentnone.d/*)")
	snapshot=$(ls "$tmp"/out.d/*)
	snapshot1=$(ls "$tmp"/out1.d/*)
	snapshot_none=$(ls "$tmp"/none.d/*)
	kill "$tree"
	wait "$tree" 2>/dev/null
	tree=
	records=$(( $("$ptscope" info "$snapshot1" | sed -n 's/^pagemap bytes: //p') / 16 ))
	snapshot_bytes=$(stat -c %s "$snapshot")
	# MB to a tenth: format 2 of a shared segment is well under 1 MB, which whole MB printed as 0
	snapshot_mb=$(awk -v b="$snapshot_bytes" 'BEGIN { printf "%.1f", b / 1e6 }')
	snapshot1_bytes=$(stat -c %s "$snapshot1")
	none_bytes=$(stat -c %s "$snapshot_none")
	ratio "report, $mib MiB x $children capture ($records records)" "info --verify on it" \
		"'$ptscope' report '$snapshot'" "'$ptscope' info --verify '$snapshot'" > /dev/null || exit 1
	report_kb=$ratio_work_kb report_mib=$((ratio_work_kb / 1024)) verify_mib=$((ratio_anchor_kb / 1024))
	report_s=$ratio_work_cpu verify_s=$ratio_anchor_cpu verify_ratio=$ratio_value
	# the same pages (PFNs, kpages) without the children: what they add
	ratio "report, $mib MiB x $children capture, whole tree" "report on the parent alone (the same pages, captured with it)" \
		"'$ptscope' report '$snapshot'" "'$ptscope' report '$(ls "$tmp"/parent.d/*)'" > /dev/null || exit 1
	tree_s=$ratio_work_cpu parent_s=$ratio_anchor_cpu
	per_record=$(echo "$snapshot_bytes $none_bytes $snapshot1_bytes $records" | awk '{ printf "format 2: %.3f B (zstd), %.3f B (--compress none); format 1: %.2f B (zstd)", $1 / $4, $2 / $4, $3 / $4 }')
	row="| snapshot bytes per page record, $mib MiB x $children ($records records) | — | $per_record | — | — |"
	[ -n "${BENCH_RATIOS:-}" ] && echo "$row" >> "$BENCH_RATIOS"
	printf '%-10s %9s %10s %12s %12s %6s %9s %12s %6s %12s %6s %6s %7s\n' "$mib, $children" $((vmpte_kb / 1024)) \
		"$records" "$capture_s" "$floor_s" "$capture_ratio" "$snapshot_mb" \
		"$report_s" "$report_mib" "$verify_s" "$verify_mib" "$verify_ratio" \
		"$(awk -v k="$report_kb" -v r="$records" 'BEGIN { printf "%.1f", k * 1024 / r }')"
	printf '%-10s %9s %10s %12s %12s %6s %9s   --compress none\n' "" "" "" "$none_s" "$floor_none_s" \
		"$none_ratio" "$(awk -v b="$none_bytes" 'BEGIN { printf "%.1f", b / 1e6 }')"
	echo "  bytes per page record: $per_record; format 1 $((snapshot1_bytes / 1000000)) MB"
	echo "  format 2 with the parent alone: $parent_bytes bytes (zstd), $parent_none_bytes (--compress none); one more process: $(( (snapshot_bytes - parent_bytes) / children )) bytes (zstd), $(( (none_bytes - parent_none_bytes) / children )) (--compress none)"
	echo "  report on the parent alone: $parent_s s; on the whole tree: $tree_s s (medians of pairs)"
	rm -rf "$tmp/out.d" "$tmp/out1.d" "$tmp/none.d" "$tmp/parent.d" "$tmp/parentnone.d"
	[ -n "${first_mib:-}" ] || first_mib=$mib first_report_kb=$report_kb
	last_mib=$mib last_children=$children last_records=$records
	last_snapshot_bytes=$snapshot1_bytes last_report_kb=$report_kb
	last_parent_s=$parent_s last_tree_s=$tree_s
	last_parent_bytes=$parent_bytes last_child_bytes=$(( (snapshot_bytes - parent_bytes) / children ))
	last_parent_none_bytes=$parent_none_bytes last_child_none_bytes=$(( (none_bytes - parent_none_bytes) / children ))
done
[ -n "${last_records:-}" ] || exit 0

# 64 GiB shared by 1000 processes, extrapolated from the largest size
# measured.  A format-1 snapshot holds one 16-byte record per mapped page, so
# its size follows the records (every process maps every page: 64 GiB / 4 KiB
# x 1001 processes).  Format 2 holds the distinct pages once (the parent's
# capture alone: its chunks and kpage runs, linear in the segment) and per
# process its smaps, status and runs of chunk references (one per VMA when
# the chunks are the parent's, so not growing with the segment): parent x
# 64 GiB / S + 1000 x one more process, with zstd (the default) and with
# --compress none.  zstd packs the children's smaps, all alike, so well that
# one more process can measure below 0 (the tree's archive smaller than the
# parent's alone): counted as 0 and said so; --compress none is the bound
# without the codec.  Both depend on how the kernel placed the pages here
# (PFN runs); the worst case, no two pages adjacent and no codec, costs a
# distinct page at most format 1's 40 bytes (a pagemap run of one page is
# at most 13 bytes of varints, a kpage run at most 24), plus the parent's
# other members and 1000 x one more process uncompressed.
# The report keeps each distinct chunk of records once, so its
# memory follows the distinct pages, the segment's size: with two sizes or
# more, the peak of the largest plus the growth per MiB between the smallest
# and the largest (the program, its libraries and profiles do not grow);
# with one size, its peak x 64 GiB / S, which counts the fixed part 64 GiB / S
# times (an upper bound).
extrapolate() {
	awk -v mib="$last_mib" -v n="$last_children" -v records="$last_records" -v bytes="$last_snapshot_bytes" \
		-v parent="$last_parent_bytes" -v child="$last_child_bytes" \
		-v parent_none="$last_parent_none_bytes" -v child_none="$last_child_none_bytes" \
		-v report_kb="$last_report_kb" -v first_mib="$first_mib" -v first_kb="$first_report_kb" \
		-v row="$1" 'BEGIN {
		pages = 64 * 1024 * 1024 / 4
		target = pages * 1001
		snapshot_gb = bytes / records * target / 1e9
		child_counted = child < 0 ? 0 : child
		noise = child < 0 ? sprintf(" (measured %d B with zstd, counted as 0)", child) : ""
		format2_mb = (parent * 65536 / mib + 1000 * child_counted) / 1e6
		none_mb = (parent_none * 65536 / mib + 1000 * child_none) / 1e6
		worst_gb = (40 * pages + parent_none + 1000 * child_none) / 1e9
		if (mib > first_mib) {
			per_gib = (report_kb - first_kb) / 1024 / (mib - first_mib) * 1024
			method = sprintf("growth from %d to %d MiB", first_mib, mib)
		} else {
			per_gib = report_kb / 1024 / mib * 1024
			method = "one size, fixed part included: an upper bound"
		}
		report_gib = (report_kb / 1024 + per_gib * (64 - mib / 1024)) / 1024
		if (row) {
			printf "| 64 GiB shared x 1000 processes, extrapolated from %d MiB x %d (format 1 linear in records; format 2 distinct pages x 64 GiB + 1000 x one process%s, its worst case no two pages adjacent; report memory in distinct pages, their PFN runs as placed here, %s) | — | snapshot format 2 %.1f MB (%.1f MB with --compress none, at most %.2f GB in the worst case; format 1 %.1f GB), report %.1f GiB (%.1f MiB per GiB of distinct pages) | — | — |\n", mib, n, noise, method, format2_mb, none_mb, worst_gb, snapshot_gb, report_gib, per_gib
			exit
		}
		printf "\n64 GiB x 1000 processes, extrapolated from %d MiB x %d (%d records):\n", mib, n, records
		printf "  snapshot, format 1: %.2f B a record x %.0f records = %.1f GB\n", bytes / records, target, snapshot_gb
		printf "  snapshot, format 2: %d B (parent alone) x %d + 1000 x %d B (one more process)%s = %.1f MB\n",
			parent, 65536 / mib, child_counted, noise, format2_mb
		printf "  snapshot, format 2, --compress none: %d B x %d + 1000 x %d B = %.1f MB\n",
			parent_none, 65536 / mib, child_none, none_mb
		printf "  snapshot, format 2, worst case (no two pages adjacent, no codec): 40 B x %d distinct pages + %d B + 1000 x %d B = %.2f GB\n",
			pages, parent_none, child_none, worst_gb
		printf "  report peak memory: %.1f MiB at %d MiB + %.1f MiB per GiB of distinct pages (%s) to 64 GiB = %.2f GiB\n",
			report_kb / 1024, mib, per_gib, method, report_gib
	}'
}

# Report CPU time at 64 GiB x 1000, from the largest size: the model reads
# each distinct chunk and PFN run once (a term a in GiB of distinct pages S)
# and walks every process's chunk references (a term b in processes x GiB),
# so t = a S + b S N.  The parent alone, captured with the tree, holds the
# same pages, PFN runs and kpages, so its report time is a S (with what does
# not grow: start, profiles, so a leans high) and the children add b S N:
#   a = t(parent) / S,  b = (t(tree) - t(parent)) / (S N),
#   t(64 GiB x 1000) = 64 a + 64 x 1000 b.
# (Two captures of different trees cannot separate the terms: their PFN
# runs differ with how the kernel placed the pages, 53,157 runs for 1 GiB x 4
# and 191,551 for 1 GiB x 16 in one measurement.)  b below 0 (noise) counts
# as 0.  Bounds that hold whatever the split, from the tree alone: all of its
# time in distinct pages (t x 64 GiB / S) or all in processes x pages
# (t x 64 GiB / S x 1001 / (N + 1)).
extrapolate_time() {
	awk -v s="$last_mib" -v n="$last_children" -v tp="$last_parent_s" -v tt="$last_tree_s" -v row="$1" 'BEGIN {
		g = s / 1024
		a = tp / g; b = (tt - tp) / (g * n)
		if (b < 0) b = 0
		t = 64 * a + 64 * 1000 * b
		low = tt * 64 / g; high = tt * 64 / g * 1001 / (n + 1)
		method = sprintf("t = a S + b S N from %d MiB x %d: parent alone %.3f s, whole tree %.3f s, a = %.3f s per GiB, b = %.5f s per GiB x process", s, n, tp, tt, a, b)
		if (row) {
			printf "| report CPU time at 64 GiB shared x 1000 processes, extrapolated (%s; bounds: all in distinct pages, all in processes x pages) | — | %.1f s, bounds [%.0f s, %.0f s] | — | — |\n", method, t, low, high
			exit
		}
		printf "  report CPU time: %.1f s (%s); bounds [%.0f s all in distinct pages, %.0f s all in processes x pages]\n",
			t, method, low, high
	}'
}
extrapolate ""
extrapolate_time ""
[ -n "${BENCH_RATIOS:-}" ] && { extrapolate row; extrapolate_time row; } >> "$BENCH_RATIOS"
exit 0
