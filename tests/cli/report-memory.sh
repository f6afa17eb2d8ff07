#!/bin/sh
# Bounded and explained: under shrinking address-space limits (ulimit -v),
# `ptscope report` on pg32 either succeeds with the full output or stops
# with one "ptscope:" line and no output file (exit 1 when it says it does
# not fit, 2 when memory ran out, while reading too), never a
# crash or a signal; and at some limit between success and the shared
# libraries not loading at all, the cost model's own check speaks before any
# work ("the cost model needs up to N MiB beyond the snapshot").
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
pg=${SHARED_SNAPSHOTS:-/nonexistent}/pg32.tar.gz
[ -f "$pg" ] || { echo "skip: no reference snapshots"; exit 77; }
# AddressSanitizer reserves terabytes of shadow: address-space limits mean nothing to it
ldd "$PTSCOPE" 2>/dev/null | grep -q asan && { echo "skip: sanitizer build"; exit 77; }

"$PTSCOPE" report "$pg" -o "$tmp/full.txt" || fail "report without a limit failed"
spoke=0 succeeded=0
limit=160000
while [ $limit -ge 32000 ]; do
	rm -f "$tmp/out.txt"
	(ulimit -v $limit; exec "$PTSCOPE" report "$pg" -o "$tmp/out.txt") 2> "$tmp/err"
	rc=$?
	case $rc in
	0) succeeded=$((succeeded + 1)); cmp -s "$tmp/out.txt" "$tmp/full.txt" || fail "limit $limit: output differs" ;;
	1|2) [ -e "$tmp/out.txt" ] && fail "limit $limit: exit $rc left $tmp/out.txt"
	   [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q '^ptscope: ' "$tmp/err" ||
		fail "limit $limit: not one 'ptscope:' line: $(cat "$tmp/err")"
	   # out of memory is an internal failure wherever it strikes (base/alloc.h)
	   if grep -q 'out of memory' "$tmp/err" && [ $rc -ne 2 ]; then
		fail "limit $limit: out of memory exit $rc, not 2: $(cat "$tmp/err")"
	   fi
	   # libxml2 short of memory is out of memory, not a built-in profile's "invalid XML"
	   grep -q 'invalid XML' "$tmp/err" && fail "limit $limit: $(cat "$tmp/err")"
	   grep -q 'does not fit in memory: the cost model needs up to [0-9]* MiB beyond the snapshot, [0-9]* MiB are available' "$tmp/err" && spoke=$((spoke + 1)) ;;
	127) break ;;  # the loader itself cannot map the libraries: below any useful limit
	*) fail "limit $limit: exit $rc: $(cat "$tmp/err")" ;;
	esac
	limit=$((limit - 4000))
done
[ $succeeded -gt 0 ] || fail "no limit let the report run"
[ $spoke -gt 0 ] || fail "the cost model never said it would not fit"
echo "report under address-space limits: $succeeded ran, $spoke refused with the model's need"
