#!/bin/sh
# Tests a person can run alone (issue 22): a CLI test run as
# `sh tests/cli/NAME.sh` with nothing set finds the built ptscope and
# ../shared by itself; `unit-tests SUITE:TEST` runs that one CUnit test and
# refuses a test its suite lacks, naming the suite's tests.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
unit=${PTSCOPE_UNIT:-$PTSCOPE_TESTS/../build/unit-tests}

# A test with nothing in its environment but PATH and HOME, from another folder:
# it must run and pass against the ptscope built beside tests/ (the PTSCOPE
# check.sh gave us may be a sanitizer build elsewhere: copy it into a tree
# of our own, so the default path is the one exercised).
mkdir -p "$tmp/tree/tests/cli"
cp "$PTSCOPE" "$tmp/tree/ptscope"
cp "$PTSCOPE_TESTS/cli-common.sh" "$tmp/tree/tests/"
cat > "$tmp/tree/tests/cli/probe.sh" <<'PROBE'
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
echo "PTSCOPE=$PTSCOPE"
echo "SHARED_SNAPSHOTS=$SHARED_SNAPSHOTS"
"$PTSCOPE" --version > /dev/null || fail "ptscope --version"
PROBE
(cd / && env -i PATH="$PATH" HOME="${HOME:-/root}" sh "$tmp/tree/tests/cli/probe.sh") > "$tmp/out" 2>&1 ||
	fail "a test run alone failed: $(cat "$tmp/out")"
grep -qx "PTSCOPE=$tmp/tree/ptscope" "$tmp/out" || fail "alone, PTSCOPE is not the tree's ptscope: $(cat "$tmp/out")"
grep -qx "SHARED_SNAPSHOTS=$tmp/tree/tests/../../shared/snapshots" "$tmp/out" ||
	fail "alone, SHARED_SNAPSHOTS is not ../shared beside the tree: $(cat "$tmp/out")"
# without a built ptscope the test says so and fails, never skips
rm "$tmp/tree/ptscope"
(cd / && env -i PATH="$PATH" sh "$tmp/tree/tests/cli/probe.sh") > "$tmp/out" 2>&1 && fail "ran without a ptscope"
grep -q "no ptscope at $tmp/tree/tests/../ptscope" "$tmp/out" || fail "no ptscope not said: $(cat "$tmp/out")"

# every CLI test sources cli-common.sh the way that works alone
for t in "$PTSCOPE_TESTS"/cli/*.sh; do
	grep -q '^\. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"$' "$t" ||
		fail "$(basename "$t") does not source cli-common.sh so that it runs alone"
done

# one CUnit test: exactly one runs
[ -x "$unit" ] || skip "no unit-tests runner at $unit (make check builds it)"
"$unit" base:test_buffer > "$tmp/one" 2>&1 || fail "unit-tests base:test_buffer failed: $(tail -n 5 "$tmp/one")"
set -- $(awk '$1 == "tests" && NF >= 5 { print $3, $4, $5 }' "$tmp/one")
[ "${1:-}" = 1 ] && [ "${2:-}" = 1 ] && [ "${3:-}" = 0 ] || fail "base:test_buffer ran ${1:-?} tests, ${2:-?} passed: $(grep tests "$tmp/one")"
grep -q 'Test: test_buffer' "$tmp/one" || fail "base:test_buffer did not run test_buffer"
# a test the suite lacks: refused, naming the suite's tests
"$unit" base:test_nothing_here > "$tmp/none" 2>&1 && fail "unit-tests accepted a missing test"
grep -q "suite 'base' has no test 'test_nothing_here'; its tests:.* test_buffer" "$tmp/none" ||
	fail "missing test not named with the suite's tests: $(cat "$tmp/none")"
"$unit" nosuch > "$tmp/none" 2>&1 && fail "unit-tests accepted a missing suite"
grep -q "no suite 'nosuch'" "$tmp/none" || fail "missing suite not named: $(cat "$tmp/none")"
exit 0
