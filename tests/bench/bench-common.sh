# Sourced by the bench scripts (tests/bench/bench-*.sh, which run.sh calls
# with PTSCOPE CACHE_DIR), as tests/cli-common.sh is by the CLI tests: the
# arguments as $ptscope and $cache, $here (this folder), $bench (the script's
# name), $quick (BENCH_QUICK: fewer pairs, smaller sizes), $runs (BENCH_RUNS,
# default 3), a scratch folder $tmp removed at exit, need and skip,
# generated_snapshot (its tar settled in the page cache) and ratio.  Figures
# are printed by each script, never asserted.
set -u
bench=$(basename "$0" .sh)
ptscope=${1:?usage: $bench.sh PTSCOPE CACHE_DIR}
cache=${2:?usage: $bench.sh PTSCOPE CACHE_DIR}
here=$(cd "$(dirname "$0")" && pwd)
quick=${BENCH_QUICK:-}
runs=${BENCH_RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# skip REASON: the bench cannot run here; run.sh fails a whole run for it
# (exit 77, as automake's tests say skipped)
skip() {
	echo "$bench: skipped: $*"
	exit 77
}

# need COMMAND PACKAGE: COMMAND (a name or a path) there, or the bench is
# skipped saying which package (`make deps-bench` installs them all first;
# a bench never installs anything itself).
need() {
	command -v "$1" > /dev/null || skip "needs $1 (package $2: make deps-bench)"
}

# generated_snapshot N [text]: the folder of a snapshot of N generated
# processes (gen-snapshot.sh: snapshot.tar and the fake /proc it came from,
# root/), made once into $cache and kept while the generator is unchanged;
# with "text", without pagemap records (smaps, status, stat and cmdline
# alone).  Says on standard error its size and checksum, the same on every run.
generated_snapshot() {
	g_key=$(cksum < "$here/gen-snapshot.py" | cut -d' ' -f1)
	g_kind=bench-snapshot${2:+-$2}-$1
	g_dir=$cache/$g_kind-$g_key
	if [ ! -f "$g_dir/snapshot.tar" ]; then
		rm -rf "$cache/$g_kind"-*
		mkdir -p "$g_dir"
		echo "$bench: generating $1 processes${2:+ ($2 only)} into $g_dir (once)" >&2
		/usr/bin/python3 "$here/gen-snapshot.py" "$g_dir" "$1" ${2:+--no-pagemap} > /dev/null || return 1
	fi
	[ -f "$g_dir/cksum" ] || cksum < "$g_dir/snapshot.tar" > "$g_dir/cksum"
	settle_page_cache "$g_dir/snapshot.tar"
	echo "$bench: generated input: $1 processes${2:+ ($2 only)} (seed 1), snapshot.tar of $(cut -d' ' -f2 "$g_dir/cksum") bytes, cksum $(cut -d' ' -f1 "$g_dir/cksum")" >&2
	echo "$g_dir"
}

# settle_page_cache FILE: FILE dropped from the page cache and read back
# once, so the kernel holds it as its readahead makes it, whatever wrote or
# read it before.  The anchors need it more than ptscope does: `cat` of the
# text-only tar took 0.038 s in one bench and 0.023 s in the next (page
# cache folios of another size), while info took the same time in both.
# GNU dd's iflag=nocache with count=0 drops a whole file's clean pages
# (posix_fadvise, no root needed); without it the file stays as it is.
settle_page_cache() {
	dd if="$1" iflag=nocache count=0 status=none 2> /dev/null || true
	cat "$1" > /dev/null
}

# One run of a command, its output thrown away: run_cpu (user + system
# seconds, every thread and child, to the microsecond: cputime.py), run_wall
# (seconds) and run_kb (peak RSS, kB).  On a shared machine CPU seconds are
# the steadier figure.  Debian's own python3: one earlier in PATH (pyenv's
# shim) may start helpers of its own, which getrusage would count.
timed_run() {
	/usr/bin/python3 "$here/cputime.py" "$tmp/timed" "$@" 2> "$tmp/timed.err" ||
		{ echo "$bench: failed: $*" >&2; tail -n 3 "$tmp/timed.err" >&2; return 1; }
	read -r run_wall run_user run_system run_kb < "$tmp/timed"
	run_cpu=$(echo "$run_user $run_system" | awk '{ printf "%.4f", $1 + $2 }')
}

# ratio WORK ANCHOR WORK_COMMAND ANCHOR_COMMAND: WORK's CPU time over
# ANCHOR's, each command a line for sh -c (its CPU seconds include
# every child's, so a pipeline counts whole).  One warm-up run of each (page
# cache, dynamic loader; none when the caller sets warmup=0, having warmed
# them itself), then pairs run alternately (work first in odd pairs, anchor
# first in even ones, so a load that comes and goes hits both alike): $pairs
# of them, or fewer, but at least two, once the pairs have taken $budget CPU
# seconds (BENCH_BUDGET, default 60: a long command is paired twice, a short
# one $pairs times).  The ratio is the median of the pairs' ratios.  Prints a
# row and appends it to $BENCH_RATIOS (run.sh gathers them into
# docs/measurements.md).  Sets ratio_value, ratio_work_cpu and
# ratio_anchor_cpu (the medians), ratio_work_kb and ratio_anchor_kb (the
# largest peak RSS).
pairs=${BENCH_PAIRS:-$([ -n "$quick" ] && echo 3 || echo 5)}
budget=${BENCH_BUDGET:-60}
warmup=1
ratio() {
	r_work=$1 r_anchor=$2 r_work_command=$3 r_anchor_command=$4
	need /usr/bin/python3 python3
	if [ "$warmup" != 0 ]; then
		timed_run sh -c "$r_work_command" || return 1
		timed_run sh -c "$r_anchor_command" || return 1
	fi
	: > "$tmp/pairs"
	r_i=0 r_work_kb=0 r_anchor_kb=0 r_spent=0
	while [ $r_i -lt "$pairs" ] && { [ $r_i -lt 2 ] || awk -v s="$r_spent" -v b="$budget" 'BEGIN { exit !(s < b) }'; }; do
		r_i=$((r_i + 1))
		for r_which in $( [ $((r_i % 2)) -eq 1 ] && echo "work anchor" || echo "anchor work"); do
			eval "timed_run sh -c \"\$r_${r_which}_command\"" || return 1
			eval "r_${r_which}_cpu=\$run_cpu"
			eval "[ \"\$run_kb\" -gt \"\$r_${r_which}_kb\" ] && r_${r_which}_kb=\$run_kb"
		done
		echo "$r_work_cpu $r_anchor_cpu" >> "$tmp/pairs"
		r_spent=$(awk -v s="$r_spent" -v w="$r_work_cpu" -v a="$r_anchor_cpu" 'BEGIN { print s + w + a }')
	done
	set -- $(awk '{ w[NR] = $1; a[NR] = $2; r[NR] = ($2 > 0 ? $1 / $2 : 0) }
		function median(x, n,   i, j, t) {
			for (i = 2; i <= n; i++) for (j = i; j > 1 && x[j - 1] > x[j]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
			return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
		}
		END { printf "%.3f %.3f %.2f", median(w, NR), median(a, NR), median(r, NR) }' "$tmp/pairs")
	ratio_value=$3 ratio_work_cpu=$1 ratio_anchor_cpu=$2 ratio_work_kb=$r_work_kb ratio_anchor_kb=$r_anchor_kb
	r_row=$(printf '| %s | %s | %s s, %s MiB | %s s, %s MiB | %s× (%s pair%s%s) |' "$r_work" "$r_anchor" "$1" \
		$((r_work_kb / 1024)) "$2" $((r_anchor_kb / 1024)) "$3" "$r_i" "$([ "$r_i" -ne 1 ] && echo s)" \
		"$([ "$warmup" = 0 ] && echo ", the bench's own warm-up")")
	echo "$r_row"
	[ -n "${BENCH_RATIOS:-}" ] && echo "$r_row" >> "$BENCH_RATIOS"
	return 0
}
