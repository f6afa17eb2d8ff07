#!/bin/sh
# make bench's machinery (tests/bench/), never the machine's speed: the
# generated snapshot is the same bytes on every run and changes with the
# seed; `ratio` warms up, then alternates its pairs (work first in odd pairs,
# anchor first in even ones) and takes the median of the pairs' ratios; a
# failed command fails it; run.sh writes the measurements file only when
# every bench ran and added a row, else leaves it as it was and exits 1.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
benchdir=$PTSCOPE_TESTS/bench
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"

# the generated input: fixed by the process count and the seed alone
for run in 1 2; do
	/usr/bin/python3 "$benchdir/gen-snapshot.py" "$tmp/gen$run" 40 > /dev/null || fail "gen-snapshot.py run $run"
done
/usr/bin/python3 "$benchdir/gen-snapshot.py" "$tmp/seed2" 40 --seed 2 > /dev/null || fail "gen-snapshot.py --seed 2"
cmp -s "$tmp/gen1/snapshot.tar" "$tmp/gen2/snapshot.tar" || fail "two runs of gen-snapshot.py 40 differ"
diff -r "$tmp/gen1/root" "$tmp/gen2/root" > /dev/null || fail "two runs' root/proc differ"
cmp -s "$tmp/gen1/snapshot.tar" "$tmp/seed2/snapshot.tar" && fail "seeds 1 and 2 made the same snapshot"
"$PTSCOPE" info "$tmp/gen1/snapshot.tar" > "$tmp/info" || fail "info on the generated snapshot"
grep -qx 'processes: 40' "$tmp/info" || fail "generated snapshot: $(grep processes "$tmp/info")"
libc=$(grep -l 'libc0.so' "$tmp/gen1/root/proc"/*/smaps | wc -l)
[ "$libc" -eq 40 ] || fail "libc mapped by $libc of 40 processes"
echo "ok: gen-snapshot.py: the same bytes twice, others for another seed"

# linefloor.c's three floors count what a parser would: 80,000 counter
# lines in the kernel's columns (1 to 80000 kB, 28 bytes each, so lines
# cross the 2 MiB windows), among them every 1000th a VMA header out of
# columns and one line with 9 digits (longer: not in columns), then a VMA
# header after a tar-like header block (a name, NULs); sums worked out here
command -v "${CC:-cc}" > /dev/null || skip "no C compiler for linefloor.c"
"${CC:-cc}" -O2 -I "$benchdir/../.." -o "$tmp/linefloor" "$benchdir/linefloor.c" || fail "linefloor.c does not build"
awk 'BEGIN { for (i = 1; i <= 80000; i++) { if (i % 1000 == 0) print "7f00-7f01 r--p 0 00:00 0 /lib/x"; printf "Rss:            %8d kB\n", i }
	print "Size:           123456789 kB"; printf "proc/1/smaps" }' > "$tmp/columns.txt"
head -c 600 /dev/zero >> "$tmp/columns.txt"
echo "7f02-7f03 r--p 0 00:00 0" >> "$tmp/columns.txt"
bytes=$(wc -c < "$tmp/columns.txt")
[ "$("$tmp/linefloor" "$tmp/columns.txt")" = "linefloor: 80082 lines in $bytes bytes" ] ||
	fail "line floor: $("$tmp/linefloor" "$tmp/columns.txt")"
[ "$("$tmp/linefloor" --numbers "$tmp/columns.txt")" = "linefloor: 80082 lines in $bytes bytes, counters in columns summing to 3200040000 kB" ] ||
	fail "number floor: $("$tmp/linefloor" --numbers "$tmp/columns.txt")"
"$tmp/linefloor" --vmas "$tmp/columns.txt" | grep -q "^linefloor: 80082 lines in $bytes bytes, counters in columns summing to 3200040000 kB, 81 VMAs kept in " ||
	fail "VMA floor: $("$tmp/linefloor" --vmas "$tmp/columns.txt")"
echo "ok: linefloor.c: every line counted, every counter in columns summed and every VMA kept, across its windows"

# ratio's order and arithmetic, with timed_run replaced by a script: the
# command's name is logged, its CPU seconds and peak kB come from a list
cat > "$tmp/ratio.sh" <<'EOF'
. "$BENCHDIR/bench-common.sh"
: > "$LOG"
timed_run() {
	echo "$3" >> "$LOG"
	n=$(grep -c "^$3\$" "$LOG")
	[ "$3" = fails ] && return 1
	set -- $(sed -n "${n}p" "$FAKE/$3")
	run_cpu=$1 run_kb=$2
}
ratio "the work" "the anchor" work anchor || exit 1
echo "values $ratio_value $ratio_work_cpu $ratio_anchor_cpu $ratio_work_kb $ratio_anchor_kb"
ratio "never" "shown" fails anchor && exit 3
# a budget of 5 CPU seconds: two pairs (4 s, then 8 s), not five; no warm-up
budget=5 pairs=5 warmup=0
ratio "long" "paired twice" long short > /dev/null || exit 1
exit 0
EOF
mkdir "$tmp/fake" "$tmp/cache"
# warm-up, then pairs 1-3: work 2 4 6 (ratios 2 4 3 with the anchor's 1 1 2)
printf '99 1\n2 100\n4 300\n6 200\n' > "$tmp/fake/work"
printf '99 1\n1 50\n1 70\n2 60\n' > "$tmp/fake/anchor"
printf '2 1\n2 1\n2 1\n2 1\n2 1\n' > "$tmp/fake/long"
cp "$tmp/fake/long" "$tmp/fake/short"
BENCHDIR=$benchdir LOG=$tmp/log FAKE=$tmp/fake BENCH_PAIRS=3 BENCH_BUDGET=1000 BENCH_RATIOS=$tmp/rows \
	sh "$tmp/ratio.sh" "$PTSCOPE" "$tmp/cache" > "$tmp/ratio.out" 2>&1 || fail "ratio: $(cat "$tmp/ratio.out")"
order=$(tr '\n' ' ' < "$tmp/log")
[ "$order" = "work anchor work anchor anchor work work anchor fails long short short long " ] || fail "ratio ran: $order"
grep -qx 'values 3.00 4.000 1.000 300 70' "$tmp/ratio.out" || fail "ratio's medians: $(cat "$tmp/ratio.out")"
[ "$(sed -n 1p "$tmp/rows")" = "| the work | the anchor | 4.000 s, 0 MiB | 1.000 s, 0 MiB | 3.00× (3 pairs) |" ] ||
	fail "ratio's row: $(sed -n 1p "$tmp/rows")"
[ "$(sed -n 2p "$tmp/rows")" = "| long | paired twice | 2.000 s, 0 MiB | 2.000 s, 0 MiB | 1.00× (2 pairs, the bench's own warm-up) |" ] ||
	fail "ratio's row within a budget: $(sed -n 2p "$tmp/rows")"
[ "$(wc -l < "$tmp/rows")" -eq 2 ] || fail "ratio wrote a row for a failed command"
echo "ok: ratio: a warm-up, alternating pairs (at least two, fewer than asked past the CPU budget), the median of their ratios, no row for a failed command"

# run.sh with benches of its own making: the file is written only when
# every bench ran and added a row
mkdir "$tmp/bench"
cp "$benchdir/run.sh" "$benchdir/bench-common.sh" "$tmp/bench/"
bench_says() {  # NAME BODY: a bench of one line
	printf '. "$(dirname "$0")/bench-common.sh"\n%s\n' "$2" > "$tmp/bench/bench-$1.sh"
}
row='echo "| w | a | 1 s, 1 MiB | 1 s, 1 MiB | 1.00× |" >> "$BENCH_RATIOS"'
for name in inputs report scale callgraph time; do bench_says $name "$row"; done
echo "as it was" > "$tmp/m.md"
bench_says report 'echo "report: broke"; exit 1'
sh "$tmp/bench/run.sh" "$PTSCOPE" "$tmp/cache" "$tmp/m.md" > "$tmp/run.out" 2>&1 && fail "run.sh: a failed bench passed"
grep -q 'bench-report failed' "$tmp/run.out" || fail "run.sh did not say which bench failed: $(cat "$tmp/run.out")"
[ "$(cat "$tmp/m.md")" = "as it was" ] || fail "run.sh wrote the file after a failed bench"
bench_says report 'echo "no rows"'
sh "$tmp/bench/run.sh" "$PTSCOPE" "$tmp/cache" "$tmp/m.md" > "$tmp/run.out" 2>&1 && fail "run.sh: a bench without rows passed"
[ "$(cat "$tmp/m.md")" = "as it was" ] || fail "run.sh wrote the file after a bench without rows"
bench_says report 'skip "no tool"'
sh "$tmp/bench/run.sh" "$PTSCOPE" "$tmp/cache" "$tmp/m.md" > "$tmp/run.out" 2>&1 && fail "run.sh: a whole run with a skipped bench passed"
[ "$(cat "$tmp/m.md")" = "as it was" ] || fail "run.sh wrote a whole run with a skipped bench"
BENCH_ONLY="report time" sh "$tmp/bench/run.sh" "$PTSCOPE" "$tmp/cache" "$tmp/m.md" > "$tmp/run.out" 2>&1 ||
	fail "run.sh: a partial run with a skipped bench failed: $(cat "$tmp/run.out")"
grep -q '^- \*\*partial run\*\* (BENCH_ONLY="report time")' "$tmp/m.md" || fail "a partial run not said so"
grep -q '^- skipped: report' "$tmp/m.md" || fail "the skipped bench not said"
bench_says report "$row"
sh "$tmp/bench/run.sh" "$PTSCOPE" "$tmp/cache" "$tmp/m.md" > "$tmp/run.out" 2>&1 || fail "run.sh: $(cat "$tmp/run.out")"
[ "$(grep -c '^| w | a |' "$tmp/m.md")" -eq 5 ] || fail "a whole run: $(grep -c '^| w |' "$tmp/m.md") rows, want 5"
grep -q 'partial' "$tmp/m.md" && fail "a whole run said partial"
for name in inputs report scale callgraph time; do
	grep -qx "## bench-$name" "$tmp/m.md" || fail "no section bench-$name"
done
grep -q '^- load average (1, 5, 15 min): .* before, .* after; 1 min: ' "$tmp/m.md" || fail "no load line"
echo "ok: run.sh: a failed, rowless or skipped bench leaves the file as it was; a whole run writes it whole"

# readme-figures.py: the README's figures come from the measurements file,
# between the markers; a row missing is an error and the README stays
grep -v '^| info, 2000' "$PTSCOPE_TESTS/bench/readme-figures.fixture.md" > "$tmp/short.md"
cp "$PTSCOPE_TESTS/../README.md" "$tmp/README.md"
python3 "$benchdir/readme-figures.py" "$tmp/short.md" "$tmp/README.md" 2> "$tmp/err" && fail "readme-figures.py without the info row"
grep -q "no row 'info, 2000 processes'" "$tmp/err" || fail "readme-figures.py: $(cat "$tmp/err")"
cmp -s "$tmp/README.md" "$PTSCOPE_TESTS/../README.md" || fail "readme-figures.py changed the README after an error"
python3 "$benchdir/readme-figures.py" "$PTSCOPE_TESTS/bench/readme-figures.fixture.md" "$tmp/README.md" ||
	fail "readme-figures.py on the fixture"
for figure in "8.36× the" "6.00× without pagemap records" "nothing more takes 0.77×" "info is 7.79× that" "too 1.22×" "too 3.01×" "1.99× that VMA floor" "5.85× ptscope" "33.31×" "27.38× on 4000" "2.11× without pagemap" '2.93× of `info --verify`' "1.24× the kernel" "1.23× with" "0.56× the CPU" \
	"warm one 0.1687 s" "fork() 1593.2 us measured, 1340.6 +- 449.7 predicted (+19 %)" "3225.9 +- 484.7 us today"; do
	tr '\n' ' ' < "$tmp/README.md" | grep -qF "$figure" || fail "README lacks '$figure' from the measurements"
done
tr '\n' ' ' < "$tmp/README.md" | grep -q 'load average 17.12' || fail "README lacks the run's load"
echo "ok: readme-figures.py: the README quotes the measurements file, and refuses one that lacks a row"
