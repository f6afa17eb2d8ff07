#!/bin/sh
# make bench: run every tests/bench/bench-*.sh with the binary and the cache
# folder, then write what they measured to MEASUREMENTS (docs/measurements.md):
# the machine and the load it saw, every ratio side by side (each from
# alternating pairs after a warm-up, bench-common.sh's `ratio`), then each
# bench's own tables.  Each script prints its tables too; none asserts a time.
#   run.sh PTSCOPE CACHE [MEASUREMENTS]
# BENCH_ONLY="inputs report" runs only those benches (bench-NAME.sh); the
# sections of the others in MEASUREMENTS are kept as an earlier run wrote
# them (each with its own tables, ratio rows among them), said so at the top.
ptscope=$(cd "$(dirname "${1:?usage: run.sh PTSCOPE CACHE [MEASUREMENTS]}")" && pwd)/$(basename "$1")
cache=${2:?usage: run.sh PTSCOPE CACHE [MEASUREMENTS]}
out=${3:-}
mkdir -p "$cache"
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
BENCH_RATIOS=$work/ratios
export BENCH_RATIOS
: > "$BENCH_RATIOS"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
status=0
benches=
for name in ${BENCH_ONLY:-}; do benches="$benches $here/bench-$name.sh"; done
[ -n "$benches" ] || benches=$(echo "$here"/bench-*.sh)
for b in $benches; do
	[ -f "$b" ] || continue
	name=$(basename "$b" .sh)
	echo "== $name"
	sh "$b" "$ptscope" "$cache" > "$work/$name.out" 2>&1 || status=1
	cat "$work/$name.out"
	echo
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
[ -n "$out" ] || exit $status

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
# the sections of benches not run this time, from the file as it was
: > "$work/kept"
if [ -n "${BENCH_ONLY:-}" ] && [ -f "$out" ]; then
	ran=" $(for b in $benches; do basename "$b" .sh; done | tr '\n' ' ')"
	awk -v ran="$ran" '/^## / { keep = ($2 ~ /^bench-/ && index(ran, " " $2 " ") == 0) }
		keep { print }' "$out" > "$work/kept"
	sed -n 's/^- run: \(.*\)$/\1/p' "$out" | head -n 1 > "$work/kept-run"
fi
kept_names=$(sed -n 's/^## \(bench-.*\)$/\1/p' "$work/kept" | tr '\n' ' ')
{
	echo "# Measurements"
	echo
	echo "Written by \`make bench\` (tests/bench/run.sh); do not edit by hand. Figures are measured, never"
	echo "asserted by a test. Generated inputs are the same bytes on every run (tests/bench/gen-snapshot.py:"
	echo "fixed sizes, seed 1)."
	echo
	echo "- run: $started, ptscope $("$ptscope" --version 2>/dev/null | head -n 1)$(git -C "$here" rev-parse --short HEAD 2>/dev/null | sed 's/^/, commit /')"
	echo "- machine: $cpu, $(nproc) CPUs, $(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo), Linux $(uname -r)"
	echo "- load average (1, 5, 15 min): $load_before before, $load_after after"
	echo "- benches: $(for b in $benches; do basename "$b" .sh; done | tr '\n' ' ')"
	[ -z "$kept_names" ] || echo "- kept from an earlier run ($(cat "$work/kept-run")): $kept_names"
	echo "- method: CPU seconds (user + system, /usr/bin/time), median of ${BENCH_PAIRS:-5} alternating pairs after one"
	echo "  warm-up run of each; peak memory is the largest peak RSS of the pairs"
	echo
	echo "## Ratios"
	echo
	echo "| work | floor or anchor | work: CPU, peak RSS | anchor: CPU, peak RSS | ratio |"
	echo "|---|---|---|---|---|"
	cat "$BENCH_RATIOS"
	for b in $benches; do
		name=$(basename "$b" .sh)
		[ -f "$work/$name.out" ] || continue
		echo
		echo "## $name"
		echo
		echo '```'
		cat "$work/$name.out"
		echo '```'
	done
	if [ -s "$work/kept" ]; then
		echo
		cat "$work/kept"
	fi
} > "$out.tmp" && mv "$out.tmp" "$out" && echo "bench: wrote $out"
exit $status
