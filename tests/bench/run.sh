#!/bin/sh
# make bench: run the benches (tests/bench/bench-NAME.sh, each called with the
# binary and the cache folder) one after the other, then write what they
# measured to MEASUREMENTS whole: the machine and the load it saw, every ratio
# side by side (each from alternating pairs after a warm-up, bench-common.sh's
# `ratio`), then each bench's own tables.  Each bench prints its tables too;
# none asserts a time.
#   run.sh PTSCOPE CACHE [MEASUREMENTS]
# BENCH_ONLY="inputs report" runs only those benches; BENCH_QUICK=1 asks each
# for fewer pairs and smaller sizes.  Either makes a partial run, said so at
# the top (the Makefile writes a partial run to build/, never to
# docs/measurements.md, which is one whole run).
# A bench that fails (exit status not 0), that is skipped (exit 77: a tool,
# root or the kernel source missing) in a whole run, or that adds no row to
# the ratios table fails the run: MEASUREMENTS is then left as it was and the
# exit status is 1.
ptscope=$(cd "$(dirname "${1:?usage: run.sh PTSCOPE CACHE [MEASUREMENTS]}")" && pwd)/$(basename "$1")
cache=${2:?usage: run.sh PTSCOPE CACHE [MEASUREMENTS]}
out=${3:-}
mkdir -p "$cache"
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
sampler=
trap '[ -n "$sampler" ] && kill "$sampler" 2>/dev/null; rm -rf "$work"' EXIT
trap 'exit 1' INT TERM HUP
BENCH_RATIOS=$work/ratios
export BENCH_RATIOS
: > "$BENCH_RATIOS"
# the order of issue 24's table
all="inputs report scale callgraph time"
only=${BENCH_ONLY:-$all}
partial=
[ -n "${BENCH_ONLY:-}" ] && partial="BENCH_ONLY=\"$BENCH_ONLY\""
[ -n "${BENCH_QUICK:-}" ] && partial="${partial:+$partial }BENCH_QUICK=$BENCH_QUICK"
for name in $only; do
	[ -f "$here/bench-$name.sh" ] || { echo "run.sh: no bench $name (benches: $all)" >&2; exit 1; }
done

# the load the run saw: /proc/loadavg every 10 s, and the machine's busy CPU
# time (/proc/stat) beside the benches' own (the shell's `times`)
cpu_jiffies() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat; }
(while :; do cut -d' ' -f1 /proc/loadavg; sleep 10; done) > "$work/load" &
sampler=$!
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
stat_before=$(cpu_jiffies)
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
start_s=$(date +%s)

status=0 failed= skipped= durations=
for name in $only; do
	echo "== bench-$name"
	rows_before=$(wc -l < "$BENCH_RATIOS")
	t0=$(date +%s)
	sh "$here/bench-$name.sh" "$ptscope" "$cache" > "$work/$name.out" 2>&1
	code=$?
	t1=$(date +%s)
	cat "$work/$name.out"
	durations="$durations${durations:+, }$name $(( (t1 - t0) / 60 )) min $(( (t1 - t0) % 60 )) s"
	if [ $code -eq 77 ]; then
		skipped="$skipped $name"
		echo "run.sh: bench-$name skipped: $(tail -n 1 "$work/$name.out")"
	elif [ $code -ne 0 ]; then
		failed="$failed $name"
		echo "run.sh: bench-$name failed (exit $code)"
	elif [ "$(wc -l < "$BENCH_RATIOS")" -eq "$rows_before" ]; then
		failed="$failed $name"
		echo "run.sh: bench-$name added no row to the ratios table"
	fi
	echo
done
[ -n "$failed" ] && status=1
[ -n "$skipped" ] && [ -z "$partial" ] && status=1
elapsed=$(( $(date +%s) - start_s ))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
stat_after=$(cpu_jiffies)
kill "$sampler" 2>/dev/null
sampler=
# the benches' CPU seconds: the second line of `times` (children, user and system)
times > "$work/times"
own_cpu=$(sed -n 2p "$work/times" | awk '{
	for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] }
	printf "%.0f", t }')
echo "bench: took $((elapsed / 60)) min $((elapsed % 60)) s ($durations)"
if [ $status -ne 0 ]; then
	echo "bench: failed:${failed:- none}; skipped:${skipped:- none}; ${out:-no file} left as it was" >&2
	exit 1
fi
[ -n "$out" ] || exit 0

hz=$(getconf CLK_TCK)
load_seen=$(sort -n "$work/load" | awk '{ v[NR] = $1; s += $1 } END {
	if (NR) printf "%s min, %.2f mean, %s max over %d samples (every 10 s)", v[1], s / NR, v[NR], NR }')
busy=$(echo "$stat_before $stat_after" | awk -v hz="$hz" -v own="$own_cpu" -v n="$(nproc)" -v t="$elapsed" '{
	busy = ($3 - $1) / hz; idle = ($4 - $2) / hz
	printf "%.0f of %.0f CPU seconds busy (%.0f %%), %s of them the benches\x27 own, %.0f others\x27", busy, busy + idle,
		100 * busy / (busy + idle + 1e-9), own, busy - own }')
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
commit=$(git -C "$here" rev-parse --short HEAD 2>/dev/null)
dirty=$(git -C "$here" status --porcelain --untracked-files=no 2>/dev/null | head -n 1)
{
	echo "# Measurements"
	echo
	echo "Written whole by \`make bench\` (tests/bench/run.sh) from one run; do not edit by hand. Figures"
	echo "are measured, never asserted by a test. Generated inputs are the same bytes on every run"
	echo "(tests/bench/gen-snapshot.py: fixed sizes, seed 1; tests/bench/shmtree.c: fixed segment sizes"
	echo "and process counts). The machine is shared: read the ratios, each taken in alternating pairs"
	echo "under the same load, rather than the seconds."
	echo
	[ -z "$partial" ] || echo "- **partial run** ($partial): not every bench, or fewer pairs and smaller sizes"
	echo "- run: $started, $((elapsed / 60)) min $((elapsed % 60)) s ($durations)"
	echo "- ptscope: $("$ptscope" --version 2>/dev/null | head -n 1)${commit:+, commit $commit}${dirty:+ (with uncommitted changes)}"
	echo "- machine: $cpu, $(nproc) CPUs, $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo), Linux $(uname -r)"
	echo "- load average (1, 5, 15 min): $load_before before, $load_after after; 1 min: $load_seen"
	echo "- CPU time of the machine during the run: $busy"
	[ -z "$skipped" ] || echo "- skipped:$skipped"
	echo "- method: CPU seconds (user + system of every thread and child, getrusage: tests/bench/cputime.py),"
	echo "  each ratio the median of the ratios of alternating pairs (work first in odd pairs, anchor"
	echo "  first in even ones) after one warm-up run of each; peak memory is the largest peak RSS of"
	echo "  the pairs; the number of pairs is in each row"
	echo
	echo "## Ratios"
	echo
	echo "| work | floor or anchor | work: CPU, peak RSS | anchor: CPU, peak RSS | ratio |"
	echo "|---|---|---|---|---|"
	cat "$BENCH_RATIOS"
	for name in $only; do
		echo
		echo "## bench-$name"
		echo
		echo '```'
		cat "$work/$name.out"
		echo '```'
	done
} > "$out.tmp" && mv "$out.tmp" "$out" && echo "bench: wrote $out"
