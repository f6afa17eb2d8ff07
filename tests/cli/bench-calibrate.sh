#!/bin/sh
# bench --calibrate --quick: the machinery, never the machine's speed. The
# file holds the five terms in order with their errors, 13 fitted layouts,
# 3 held-out checks whose predictions are the file's own coefficients times
# the layouts' counts (worked out here), and this kernel; it finishes
# within a minute (the issue's bound, even on a loaded machine). Then
# report --calibration prices a snapshot's forks with those coefficients,
# recomputed here from the report's own JSON counts.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
start=$(date +%s)
"$PTSCOPE" bench --calibrate --quick -o "$tmp/cal.json" > "$tmp/cal.txt" || fail "--calibrate --quick"
took=$(($(date +%s) - start))
[ $took -lt 60 ] || fail "--calibrate --quick took $took s"
grep -q '^fit of 13 layouts (least squares): residual ' "$tmp/cal.txt" || fail "printed: $(cat "$tmp/cal.txt")"
python3 - "$tmp/cal.json" "$(uname -r)" <<'PY' || fail "calibration file: $(cat "$tmp/cal.json")"
import json, math, sys
c = json.load(open(sys.argv[1]))
assert c["ptscope_calibration"] == 1 and c["kernel"] == sys.argv[2], c
assert [t["name"] for t in c["terms"]] == ["fork", "vma", "pte_page", "pte", "anon_vma"], c["terms"]
assert all(t["error_us"] >= 0 and math.isfinite(t["us"]) for t in c["terms"]), c["terms"]
assert c["measurements"] == 13 and c["runs"] == 15, c
coefficient = [t["us"] for t in c["terms"]]
# the held-out layouts: empty VMAs, anonymous VMAs x windows x pages
shapes = [(150, 20, 8, 64), (50, 60, 2, 300), (300, 5, 40, 16)]
assert len(c["held_out"]) == 3
for (empty, anon, windows, pages), h in zip(shapes, c["held_out"]):
    counts = [1, empty + anon, anon * windows, anon * windows * pages, anon]
    want = sum(a * b for a, b in zip(coefficient, counts))
    assert abs(h["predicted_us"] - want) < 1e-6 * max(1, abs(want)), (h, want)
    assert h["measured_us"] > 0
    assert abs(h["error_percent"] - (h["predicted_us"] - h["measured_us"]) / h["measured_us"] * 100) < 1e-6
assert abs(c["base_us"] - (coefficient[0] - coefficient[1] * c["own_vmas"])) < 1e-6 * max(1, abs(c["base_us"]))
assert all(v > 0 for v in c["fault_us"].values()), c["fault_us"]
PY

# report --calibration: today = base x processes + vma x VMAs + pte_page x PTE pages
# + pte x PTEs + anon_vma x anon_vmas, the counts from the report's JSON
server_snapshot "$tmp/snap" x86_64 0x400000
"$PTSCOPE" report "$tmp/snap" --calibration "$tmp/cal.json" > "$tmp/report.txt" || fail "report --calibration"
"$PTSCOPE" report "$tmp/snap" --format json > "$tmp/report.json" || fail "report json"
python3 - "$tmp/cal.json" "$tmp/report.json" "$tmp/report.txt" <<'PY' || fail "time section: $(tail -n 12 "$tmp/report.txt")"
import json, re, sys
c = json.load(open(sys.argv[1]))
r = json.load(open(sys.argv[2]))
text = open(sys.argv[3]).read()
k = {t["name"]: t["us"] for t in c["terms"]}
t = r["totals"]
# one process, 2 VMAs; the anonymous page's VMA has an anon_vma and one PTE
# (its page is in the PTE page the file pages share: one PTE page copied)
counts = {"processes": 1, "vmas": 2, "pte_pages": 1, "ptes": 1, "anon_vmas": 1}
want = c["base_us"] + k["vma"] * 2 + k["pte_page"] * 1 + k["pte"] * 1 + k["anon_vma"] * 1
m = re.search(r"^  today \((\S+)\)\s+(-?[0-9.]+) us", text, re.M)
assert m, text
assert abs(float(m.group(2)) - want) < 0.06, (m.group(2), want)
PY
# refusals: a file that is not a calibration names itself; --calibration is text only
printf '{"ptscope_calibration": 1}' > "$tmp/bad.json"
"$PTSCOPE" report "$tmp/snap" --calibration "$tmp/bad.json" > "$tmp/out" 2> "$tmp/err"; rc=$?
[ $rc -eq 1 ] && [ ! -s "$tmp/out" ] || fail "bad calibration: exit $rc"
grep -q "bad.json: not a ptscope calibration: no number 'base_us'" "$tmp/err" || fail "bad calibration: $(cat "$tmp/err")"
"$PTSCOPE" report "$tmp/snap" --calibration "$tmp/cal.json" --format json > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] && grep -q "text report" "$tmp/err" || fail "--calibration with json: $(cat "$tmp/err")"
"$PTSCOPE" bench --calibrate > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] && grep -q -- "-o CALIBRATION" "$tmp/err" || fail "--calibrate without -o: $(cat "$tmp/err")"
exit 0
