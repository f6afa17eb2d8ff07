#!/bin/sh
# bench-scale.sh PTSCOPE CACHE_DIR
#
# Issue 10's workload: one shared anonymous segment of S MiB written by a
# parent and read in full by N children (tests/bench/shmtree.c), the shape
# shared page tables were proposed for.  For each size, side by side:
#   - Sum VmPTE of the tree (the kernel's own count) and pagemap records;
#   - `ptscope capture --tree` (default container and codec) against the read
#     floor measured in the same run (tests/bench/readfloor.c: smaps, pagemap
#     over every VMA, kpagecount + kpageflags of the PFNs seen, nothing else);
#   - snapshot bytes;
#   - `ptscope report` and `ptscope info --verify` wall time and peak memory
#     (/usr/bin/time), and report memory per record.
# Sizes: BENCH_SCALE ("MIB:N ...", default "1024:16 2048:32 4096:48"), each
# kept only when MemAvailable holds three times the segment and its page
# tables.  Needs root (PFNs).  Printed, never asserted.  Everything started is
# ended and removed on exit.
. "$(dirname "$0")/bench-common.sh"
sizes=${BENCH_SCALE:-1024:16 2048:32 4096:48}
cc=${CC:-cc}
if [ "$(id -u)" != 0 ]; then
	echo "bench-scale: skipped (needs root for pagemap PFNs)"
	exit 0
fi
need /usr/bin/time time
need bc bc
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

# wall seconds, CPU seconds (user + system, every thread) and peak RSS
# (MiB) of one run of a command.  On a shared machine the CPU seconds are
# the steadier figure: wall time includes waiting for other jobs.
timed() {
	/usr/bin/time -f '%e %M %U %S' -o "$tmp/time" "$@" > "$tmp/out" 2> "$tmp/err" || { echo "failed: $*" >&2; cat "$tmp/err" >&2; return 1; }
	read -r t_wall t_kb t_user t_system < "$tmp/time"
	t_mib=$((t_kb / 1024))
	t_cpu=$(echo "$t_user + $t_system" | bc)
}

echo "times: wall / CPU seconds; ratios of CPU seconds"
printf '%-10s %9s %10s %12s %12s %6s %9s %12s %6s %12s %6s %6s %7s\n' "S, N" "VmPTE MiB" records \
	"capture s" "floor s" ratio "snap MB" "report s" MiB "verify s" MiB ratio "B/rec"
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
	mkdir "$tmp/out.d"
	timed "$ptscope" capture --tree "$tree" -o "$tmp/out.d" || exit 1
	capture_s="$t_wall/$t_cpu" capture_cpu=$t_cpu
	snapshot=$(ls "$tmp"/out.d/*)
	timed "$tmp/readfloor" $pids || exit 1
	floor_s="$t_wall/$t_cpu" floor_cpu=$t_cpu
	kill "$tree"
	wait "$tree" 2>/dev/null
	tree=
	records=$(( $("$ptscope" info "$snapshot" | sed -n 's/^pagemap bytes: //p') / 16 ))
	snapshot_mb=$(( $(stat -c %s "$snapshot") / 1000000 ))
	timed "$ptscope" report "$snapshot" || exit 1
	report_s="$t_wall/$t_cpu" report_cpu=$t_cpu report_mib=$t_mib report_kb=$t_kb
	timed "$ptscope" info --verify "$snapshot" || exit 1
	printf '%-10s %9s %10s %12s %12s %6s %9s %12s %6s %12s %6s %6s %7s\n' "$mib, $children" $((vmpte_kb / 1024)) \
		"$records" "$capture_s" "$floor_s" "$(echo "scale=1; $capture_cpu / $floor_cpu" | bc)" "$snapshot_mb" \
		"$report_s" "$report_mib" "$t_wall/$t_cpu" "$t_mib" "$(echo "scale=1; $report_cpu / $t_cpu" | bc)" \
		"$(echo "scale=1; $report_kb * 1024 / $records" | bc)"
	rm -rf "$tmp/out.d"
done
