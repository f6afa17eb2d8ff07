#!/bin/sh
# ptscope bench: the machinery, never the machine's speed (it is shared and
# loaded): every measurement is there once, in order, with the runs asked
# for and min <= median <= p90; faults are counted as the region's pages
# say; --cpu is checked against the allowed set, not the CPU count.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
"$PTSCOPE" bench --runs 3 --format json -o "$tmp/all.json" || fail "bench --runs 3"
python3 - "$tmp/all.json" <<'PY' || fail "bench json: $(cat "$tmp/all.json")"
import json, os, sys
d = json.load(open(sys.argv[1]))
names = [m["name"] for m in d["measurements"]]
assert names == ["fork", "exec", "sh", "fault-anon", "fault-cow", "fault-file", "munmap"], names
assert d["runs"] == 3 and d["warmup_runs"] == 2, d
assert d["cpu"] in os.sched_getaffinity(0), d["cpu"]
assert d["cpu"] == min(os.sched_getaffinity(0)), "default: the lowest allowed CPU"
for m in d["measurements"]:
    assert m["runs"] == 3, m
    assert 0 < m["min_us"] <= m["median_us"] <= m["p90_us"], m
    assert m["min_us"] <= m["mean_us"] <= m["p90_us"] or m["mean_us"] > m["p90_us"], m
faults = {m["name"]: m for m in d["measurements"] if "faults_per_run" in m}
# THP is off for the region: one fault per anonymous page touched
assert faults["fault-anon"]["faults_per_run"] == faults["fault-anon"]["pages_per_run"] == 64, faults
# a copy-on-write fault per page, at least; fault-around maps several file pages per fault
assert faults["fault-cow"]["faults_per_run"] >= 64, faults
assert 1 <= faults["fault-file"]["faults_per_run"] <= 64, faults
assert d["forked"]["vmas"] > 0 and d["forked"]["rss_kb"] > 0, d["forked"]
PY

# one word, text: the header and one line
"$PTSCOPE" bench fork --runs 2 > "$tmp/fork.txt" || fail "bench fork"
grep -q '^pinned to CPU [0-9]* (allowed: ' "$tmp/fork.txt" || fail "no pinning line: $(cat "$tmp/fork.txt")"
[ "$(grep -c '^fork ' "$tmp/fork.txt")" -eq 1 ] || fail "fork line: $(cat "$tmp/fork.txt")"
grep -q '^exec ' "$tmp/fork.txt" && fail "exec measured when only fork was asked for"

# --cpu: one of the allowed CPUs, whatever the count of CPUs
last=$(python3 -c 'import os; print(max(os.sched_getaffinity(0)))')
"$PTSCOPE" bench munmap --runs 2 --cpu "$last" --format json | python3 -c '
import json, sys; sys.exit(json.load(sys.stdin)["cpu"] != int(sys.argv[1]))' "$last" || fail "--cpu $last not kept"
if command -v taskset > /dev/null && [ "$last" -gt 0 ]; then
	out=$(taskset -c 0 "$PTSCOPE" bench fork --runs 2 --cpu "$last" 2>&1); rc=$?
	[ $rc -eq 1 ] || fail "--cpu outside the allowed set: exit $rc"
	echo "$out" | grep -q "is not one of the CPUs this process may use (0)" || fail "--cpu refusal: $out"
	taskset -c "$last" "$PTSCOPE" bench fork --runs 2 --format json | python3 -c '
import json, sys; sys.exit(json.load(sys.stdin)["cpu"] != int(sys.argv[1]))' "$last" || fail "default CPU under taskset"
fi

# refusals: exit 1, nothing on stdout, the problem said
refused() { # WANT ARGS...
	want=$1; shift
	"$PTSCOPE" bench "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?
	[ $rc -eq 1 ] || fail "bench $*: exit $rc, not 1"
	[ -s "$tmp/out" ] && fail "bench $*: wrote to stdout"
	grep -qF -- "$want" "$tmp/err" || fail "bench $*: expected '$want' in: $(cat "$tmp/err")"
	[ "$(wc -l < "$tmp/err")" -le 6 ] || fail "bench $*: usage is not short: $(cat "$tmp/err")"
}
refused "--cpu 1023 is not one of the CPUs" --cpu 1023 fork
refused "--cpu wants a number from 0 to 1023, not '-1'" --cpu -1
refused "--runs wants a number from 1 to 1000000, not '0'" --runs 0
refused "--runs wants a number from 1 to 1000000, not '5x'" --runs 5x
refused "unknown measurement 'frok'; did you mean 'fork'?" frok
refused "unknown format 'xml' (text, json)" --format xml
refused "unknown option '--rnus'; did you mean '--runs'?" --rnus 3
# a failed write leaves no file
"$PTSCOPE" bench fork --runs 2 -o "$tmp/missing/out.json" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] || fail "-o into a missing folder: exit $rc"
[ -e "$tmp/missing/out.json" ] && fail "-o wrote a file"
# --compare: posted timings, worked by hand. System time 106.80 with rmap
# (BEFORE), 95.66 patched (AFTER), 65.96 without rmap (BASE): win
# 11.14 / 106.80 = 10.4 %, overhead ratio 29.70 / 40.84 = 0.73.
printf 'real\t0m27.814s\nuser\t0m35.120s\nsys\t1m46.800s\n' > "$tmp/rmap.txt"
printf 'make  35.12s user 95.66s system 363%% cpu 27.1 total\n' > "$tmp/patched.txt"
printf '      65.96 seconds sys\n      35.12 seconds user\n   27.0 seconds time elapsed\n' > "$tmp/base.txt"
"$PTSCOPE" bench --compare "$tmp/rmap.txt" "$tmp/patched.txt" "$tmp/base.txt" > "$tmp/cmp.txt" || fail "--compare"
grep -q '^system .* +10.4%  *0.73  *1.45$' "$tmp/cmp.txt" || fail "--compare system line: $(cat "$tmp/cmp.txt")"
grep -q "^BEFORE $tmp/rmap.txt: bash time$" "$tmp/cmp.txt" || fail "--compare names the shapes: $(cat "$tmp/cmp.txt")"
"$PTSCOPE" bench --compare "$tmp/rmap.txt" "$tmp/patched.txt" --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
c = {x["name"]: x for x in d["changes"]}
assert sorted(c) == ["real", "system", "total", "user"], c
assert abs(c["system"]["win_percent"] - 11.14 / 106.80 * 100) < 1e-9, c["system"]
assert "overhead_ratio" not in c["system"]
assert d["after"]["shape"] == "zsh time"' || fail "--compare json"
# kernbench, as its log keeps it: system time 112.76 -> 98.29 s at the
# optimal load (14.47 / 112.76 = 12.8 %), compared whatever the -j; the half
# load only BEFORE ran is named, not compared
printf 'Average Half load -j 8 Run (std deviation):\nElapsed Time 141.56 (0.61)\nUser Time 901.48 (1.9)\nSystem Time 120.5 (0.3)\n\nAverage Optimal load -j 32 Run (std deviation):\nElapsed Time 128.07 (0.59)\nUser Time 800.25 (1.2)\nSystem Time 112.76 (0.8)\nPercent CPU 712.4 (3.1)\n' > "$tmp/kb-before.txt"
printf 'Average Optimal load -j 64 Run (std deviation):\nElapsed Time 125.5 (0.4)\nUser Time 798.71 (1.1)\nSystem Time 98.29 (0.5)\n' > "$tmp/kb-after.txt"
"$PTSCOPE" bench --compare "$tmp/kb-before.txt" "$tmp/kb-after.txt" > "$tmp/kb.txt" || fail "--compare kernbench"
grep -q '^system (optimal)    112.760 ± 0.800 s (≥2)  *98.290 ± 0.500 s (≥2)  *+12.8%$' "$tmp/kb.txt" ||
	fail "--compare kernbench system (its log: deviations, so two or more runs, not counted): $(cat "$tmp/kb.txt")"
grep -q "^BEFORE $tmp/kb-before.txt: kernbench$" "$tmp/kb.txt" || fail "--compare kernbench shape: $(cat "$tmp/kb.txt")"
grep -q '^not compared (not in every file): system (half)$' "$tmp/kb.txt" || fail "--compare kernbench half load: $(cat "$tmp/kb.txt")"
# perf stat -r 5: the spread is the mean's standard error, so the runs'
# deviation is 0.120 x sqrt(5) = 0.268 and 0.100 x sqrt(5) = 0.224; win
# 1.814 / 27.814 = 6.5 %
printf " Performance counter stats for 'make' (5 runs):\n\n   27.814 +- 0.120 seconds time elapsed  ( +-  0.43%% )\n" > "$tmp/perf-before.txt"
printf " Performance counter stats for 'make' (5 runs):\n\n   26.000 +- 0.100 seconds time elapsed  ( +-  0.38%% )\n" > "$tmp/perf-after.txt"
"$PTSCOPE" bench --compare "$tmp/perf-before.txt" "$tmp/perf-after.txt" > "$tmp/perf.txt" || fail "--compare perf stat -r"
grep -q '^real  *27.814 ± 0.268 s (5)  *26.000 ± 0.224 s (5)  *+6.5%$' "$tmp/perf.txt" ||
	fail "--compare perf stat -r: $(cat "$tmp/perf.txt")"
# the same line pasted without its header: a mean of two or more runs, how
# many not said, so no deviation; the columns stay aligned after the "≥"
printf '   27.814 +- 0.120 seconds time elapsed  ( +-  0.43%% )\n' > "$tmp/perf-excerpt.txt"
"$PTSCOPE" bench --compare "$tmp/perf-excerpt.txt" "$tmp/perf-after.txt" > "$tmp/perf.txt" || fail "--compare perf stat excerpt"
grep -q '^real  *27.814 ± ? s (≥2)            26.000 ± 0.224 s (5)  *+6.5%$' "$tmp/perf.txt" ||
	fail "--compare perf stat excerpt: $(cat "$tmp/perf.txt")"
"$PTSCOPE" bench --compare "$tmp/perf-excerpt.txt" "$tmp/perf-after.txt" --format json | python3 -c '
import json, sys
b = json.load(sys.stdin)["changes"][0]["before"]
assert b["runs"] == 2 and b["runs_at_least"] is True and b["deviation"] is None, b' || fail "--compare perf stat excerpt json"
# Martin Bligh's table of kernels (objrmap, 2003): FILE@ROW reads a row;
# system time 98.92 -> 84.14 s at maximal tasks, (98.92 - 84.14) / 98.92 =
# 14.9 %; the file alone is refused, naming its rows
printf 'Kernbench: (make -j vmlinux, maximal tasks)\n                              Elapsed      System        User         CPU\n                   2.5.62       45.06       98.92      564.35     1471.67\n              2.5.62-objrmap       44.77       84.14      563.59     1447.67\n' > "$tmp/bligh.txt"
"$PTSCOPE" bench --compare "$tmp/bligh.txt@2.5.62" "$tmp/bligh.txt@2.5.62-objrmap" > "$tmp/bligh.out" ||
	fail "--compare a table's rows: $(cat "$tmp/bligh.out")"
grep -q '^system (make -j vmlinux, maximal tasks)  *98.920 ± 0.000 s (1)  *84.140 ± 0.000 s (1)  *+14.9%$' "$tmp/bligh.out" ||
	fail "--compare a table's system row: $(cat "$tmp/bligh.out")"
grep -q "^BEFORE $tmp/bligh.txt@2.5.62: kernbench table$" "$tmp/bligh.out" || fail "--compare a table: $(cat "$tmp/bligh.out")"
refused "bligh.txt:2: a table of kernels, a row each (2.5.62, 2.5.62-objrmap): name one, as $tmp/bligh.txt@2.5.62" \
	--compare "$tmp/bligh.txt" "$tmp/bligh.txt@2.5.62"
refused "bligh.txt: no row '2.6.0' in its tables of kernels (rows: 2.5.62, 2.5.62-objrmap)" \
	--compare "$tmp/bligh.txt@2.5.62" "$tmp/bligh.txt@2.6.0"
printf 'nothing here\n' > "$tmp/empty.txt"
refused "empty.txt: no timing found" --compare "$tmp/rmap.txt" "$tmp/empty.txt"
refused "no-such.txt: No such file" --compare "$tmp/rmap.txt" "$tmp/no-such.txt"
refused "--compare wants BEFORE AFTER [BASE]: two or three files, not 1" --compare "$tmp/rmap.txt"
refused "--compare reads posted timings" --compare --runs 3 "$tmp/rmap.txt" "$tmp/patched.txt"
printf 'Process fork+exit: 179.0 microseconds\n' > "$tmp/lmbench.txt"
refused "share no measure" --compare "$tmp/rmap.txt" "$tmp/lmbench.txt"

# every option of --help is in the manual page
"$PTSCOPE" bench --help | grep -o -- '--[a-z][a-z-]*' | sort -u | while read -r option; do
	grep -q -- "$(echo "$option" | sed 's/-/\\\\-/g')" "$PTSCOPE_TESTS/../man/ptscope-bench.1" ||
		fail "$option is not in man/ptscope-bench.1"
done || exit 1
exit 0
