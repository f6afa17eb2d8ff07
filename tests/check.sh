#!/bin/sh
# Run the CUnit suites and the CLI tests; print one closing line
#   check: N passed, N failed, N skipped
# and exit non-zero when anything failed.
cli_only=0
[ "$1" = "--cli-only" ] && { cli_only=1; shift; }
unit=${1:?usage: check.sh [--cli-only] UNIT_RUNNER PTSCOPE}
PTSCOPE=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
export PTSCOPE
here=$(cd "$(dirname "$0")" && pwd)
export PTSCOPE_TESTS="$here"
: "${SHARED_SNAPSHOTS:=$here/../../shared/snapshots}"
export SHARED_SNAPSHOTS
log=$(mktemp)
trap 'rm -f "$log" "$log.status"' EXIT

passed=0 failed=0 skipped=0
if [ $cli_only -eq 0 ]; then
	# The runner's own status, not tee's: a runner that prints a clean
	# summary and then exits non-zero (LeakSanitizer at exit) has failed.
	{ "$unit"; echo $? > "$log.status"; } | tee "$log"
	status=$(cat "$log.status")
	# CUnit: "asserts  N  N  N  N  n/a" and "tests  N  N  N  N  N" (total ran passed failed inactive)
	set -- $(awk '$1 == "tests" && NF >= 5 { print $3, $4, $5 }' "$log")
	passed=${2:-0}; failed=${3:-1}
	s=$(grep -c '^SKIP:' "$log")
	skipped=$s
	passed=$((passed - skipped))
	[ $status -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
fi

for t in "$here"/cli/*.sh; do
	[ -f "$t" ] || continue
	name=$(basename "$t" .sh)
	out=$(sh "$t" 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		passed=$((passed + 1)); echo "cli $name: passed"
	elif [ $rc -eq 77 ]; then
		skipped=$((skipped + 1)); echo "cli $name: SKIPPED: $(echo "$out" | tail -n 1)"
	else
		failed=$((failed + 1)); echo "cli $name: FAILED"; echo "$out" | tail -n 20 | sed 's/^/    /'
	fi
done
echo "check: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
