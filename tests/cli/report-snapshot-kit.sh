#!/bin/sh
# The report suite's committed snapshot (tests/fixtures/report-snapshot) is
# what tests/kit/report-snapshot.py makes from tests/fixtures/proc: regenerated
# here byte for byte, so the script that documents it cannot drift from it.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v python3 >/dev/null || skip "python3 not installed"
python3 "$PTSCOPE_TESTS/kit/report-snapshot.py" "$tmp/made" || fail "report-snapshot.py"
diff -r -x README "$PTSCOPE_TESTS/fixtures/report-snapshot" "$tmp/made" || fail "the committed snapshot differs from what report-snapshot.py makes"
# and ptscope reads it as a whole, checked snapshot
"$PTSCOPE" info "$tmp/made" --verify > "$tmp/info" || fail "info --verify"
grep -q '^processes: 2$' "$tmp/info" || fail "not 2 processes: $(cat "$tmp/info")"
exit 0
