#!/bin/sh
# A hostile corpus, made here from the fixtures: each case is refused in one
# line naming the file (and line or record) with exit 1, or read correctly,
# within 10 s of CPU and 200 MiB each (stated per case where tighter).  The
# budget is CPU time, which other work on the machine does not stretch; wall
# time only guards against a hang (ten times the budget, then killed).  A JSON
# output must parse, with no NaN or Infinity.  Cases are
# built by tests/hostile/make-corpus.py (one line each there says why).
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
[ -x /usr/bin/time ] || { echo "skip: /usr/bin/time not installed (package time)"; exit 77; }
python3 "$PTSCOPE_TESTS/hostile/make-corpus.py" "$PTSCOPE_TESTS/fixtures/proc" "$tmp/corpus" > "$tmp/cases" ||
	fail "could not build the corpus"
# Under AddressSanitizer freed memory sits in its quarantine (256 MiB) and
# every allocation carries shadow and red zones: the budgets are for the
# plain build, so a sanitizer build frees at once and gets three times them.
scale=1
if ldd "$PTSCOPE" 2>/dev/null | grep -q asan; then
	scale=3
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0
	export ASAN_OPTIONS
fi
failures=0
# each line: NAME COMMAND WANT_EXIT SECONDS MIB PATTERN...
while read -r name command want seconds mib pattern; do
	case=$tmp/corpus/$name
	seconds=$((seconds * scale)) mib=$((mib * scale))
	set -- $(echo "$command" | tr , " ")
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/usage" timeout $((seconds * 10)) "$PTSCOPE" "$@" "$case" \
		> "$tmp/out" 2> "$tmp/err"
	rc=$?
	set -- $(tail -n 1 "$tmp/usage")
	elapsed=$1 kib=$4
	cpu=$(echo "$2 $3" | awk '{ printf "%.2f", $1 + $2 }')
	problem=""
	if [ $rc -eq 124 ]; then
		problem="still running after $((seconds * 10)) s (killed)"
	elif awk -v cpu="$cpu" -v budget="$seconds" 'BEGIN { exit !(cpu > budget) }'; then
		problem="${cpu} s of CPU, budget $seconds s"
	elif [ $rc -ne "$want" ]; then
		problem="exit $rc, want $want"
	elif [ "$want" -eq 1 ] && [ "$(wc -l < "$tmp/err")" -ne 1 ]; then
		problem="not one line on stderr"
	elif [ "$want" -eq 1 ] && ! grep -q -- "$pattern" "$tmp/err"; then
		problem="message lacks '$pattern'"
	elif [ "$want" -eq 0 ] && [ -n "$pattern" ] && ! grep -q -- "$pattern" "$tmp/out"; then
		problem="output lacks '$pattern'"
	elif [ "$want" -eq 0 ] && echo "$command" | grep -q json &&
	     ! python3 -c 'import json, sys; json.load(open(sys.argv[1]), parse_constant=lambda c: sys.exit(c))' "$tmp/out"; then
		problem="not JSON, or NaN or Infinity in it (JSON has neither)"
	elif [ "$kib" -gt $((mib * 1024)) ]; then
		problem="used $((kib / 1024)) MiB, budget $mib MiB"
	fi
	if [ -n "$problem" ]; then
		echo "FAIL: $name ($command): $problem; ${elapsed}s wall, ${cpu}s CPU; stderr: $(head -c 300 "$tmp/err")"
		failures=$((failures + 1))
	else
		echo "ok: $name: exit $rc in ${elapsed}s wall, ${cpu}s CPU, $((kib / 1024)) MiB"
	fi
done < "$tmp/cases"
[ $failures -eq 0 ] || fail "$failures hostile case(s) not handled"
exit 0
