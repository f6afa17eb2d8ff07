#!/bin/sh
# Run the CUnit suites and the CLI tests; print one closing line
#   check: N passed, N failed, N skipped
# and exit non-zero when anything failed.
#   check.sh [--cli-only] [--suite NAME] UNIT_RUNNER PTSCOPE
# --suite NAME runs one suite: the CUnit suite NAME (tests/unit/test_*.c
# registers it with ADD_SUITE("NAME", ...)) or the CLI script
# tests/cli/NAME.sh (`make check SUITE=NAME`); --suite NAME:TEST runs one
# test of a CUnit suite.  A CLI test also runs alone, `sh tests/cli/NAME.sh`
# in a built tree (tests/cli-common.sh gives it these same defaults).
cli_only=0 suite=
while :; do
	case "$1" in
	--cli-only) cli_only=1; shift ;;
	--suite) suite=$2; shift 2 ;;
	*) break ;;
	esac
done
unit=${1:?usage: check.sh [--cli-only] [--suite NAME] UNIT_RUNNER PTSCOPE}
PTSCOPE=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
export PTSCOPE
here=$(cd "$(dirname "$0")" && pwd)
export PTSCOPE_TESTS="$here"
PTSCOPE_UNIT=$(cd "$(dirname "$unit")" && pwd)/$(basename "$unit")
export PTSCOPE_UNIT
: "${SHARED_SNAPSHOTS:=$here/../../shared/snapshots}"
export SHARED_SNAPSHOTS
: "${SHARED_KERNELS:=$here/../../shared/kernels}"
export SHARED_KERNELS
log=$(mktemp)
trap 'rm -f "$log" "$log.status"' EXIT

run_unit=1 cli_scripts="$here"/cli/*.sh
[ $cli_only -eq 1 ] && run_unit=0
if [ -n "$suite" ]; then
	if [ -f "$here/cli/$suite.sh" ]; then
		run_unit=0 cli_scripts="$here/cli/$suite.sh"
	else
		cli_scripts=
	fi
fi

passed=0 failed=0 skipped=0
if [ $run_unit -eq 1 ]; then
	# The runner's own status, not tee's: a runner that prints a clean
	# summary and then exits non-zero (LeakSanitizer at exit) has failed.
	{ "$unit" $suite; echo $? > "$log.status"; } | tee "$log"
	status=$(cat "$log.status")
	# CUnit: "asserts  N  N  N  N  n/a" and "tests  N  N  N  N  N" (total ran passed failed inactive)
	set -- $(awk '$1 == "tests" && NF >= 5 { print $3, $4, $5 }' "$log")
	passed=${2:-0}; failed=${3:-1}
	s=$(grep -c '^SKIP:' "$log")
	skipped=$s
	passed=$((passed - skipped))
	[ "$status" -ne 0 ] && [ "$failed" -eq 0 ] && failed=1
fi

for t in $cli_scripts; do
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
