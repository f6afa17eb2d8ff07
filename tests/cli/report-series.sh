#!/bin/sh
# A series (issue 21, item 5): `report SNAP1 SNAP2 SNAP3` and the same with
# repeated --versus (none dropped) give one row per snapshot in capture
# order, whatever order they were named in; every figure is the snapshot's
# own (its JSON report); CSV is the long form (host, kernel, captured_at,
# source, metric, value); HTML has a line chart with a point per snapshot.
# Three snapshots: desktop, pg32, and pg32 again captured a day later.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
need_snapshot pg32.tar.gz
need_snapshot desktop.tar.gz
pg="$SHARED_SNAPSHOTS/pg32.tar.gz" desktop="$SHARED_SNAPSHOTS/desktop.tar.gz"
mkdir "$tmp/later" && tar -xzf "$pg" -C "$tmp/later" || fail "unpack pg32"
info=$(find "$tmp/later" -name snapshot.info | head -n 1)
sed -i 's/^captured_at: .*/captured_at: 2026-12-01T00:00:00Z/' "$info"
later=$(dirname "$info")
"$PTSCOPE" report "$later" "$pg" "$desktop" --format json -o "$tmp/series.json" || fail "series json"
"$PTSCOPE" report "$later" --versus "$desktop" --versus "$pg" --format json -o "$tmp/versus.json" || fail "--versus x2"
"$PTSCOPE" report "$desktop" "$later" "$pg" -o "$tmp/series.csv" || fail "series csv"
"$PTSCOPE" report "$pg" "$desktop" "$later" -o "$tmp/series.html" || fail "series html"
"$PTSCOPE" report "$later" "$pg" "$desktop" > "$tmp/series.txt" || fail "series text"
for s in "$pg" "$desktop" "$later"; do
	"$PTSCOPE" report "$s" --format json -o "$tmp/one-$(basename "$s").json" || fail "json of $s"
done
python3 - "$tmp" "$pg" "$desktop" "$later" <<'PY' || fail "the series"
import csv, json, os, re, sys
t, pg, desktop, later = sys.argv[1:]
def own(path):
    r = json.load(open(f"{t}/one-{os.path.basename(path)}.json"))
    return dict(processes=r["totals"]["processes"], pagetable_bytes=r["totals"]["pagetable_bytes"],
                vmpte_bytes=r["totals"]["vmpte_bytes"], captured_at=r["snapshot"]["captured_at"],
                sharable=r["totals"]["sharable_pte_pages"])
want = [own(p) for p in (pg, desktop, later)]        # capture order: 11-30 12:34:06, 12:34:45, 12-01
assert [w["captured_at"] for w in want] == sorted(w["captured_at"] for w in want)
for name in ("series", "versus"):
    s = json.load(open(f"{t}/{name}.json"))["series"]
    assert len(s) == 3, (name, len(s))
    for got, w in zip(s, want):
        assert got["captured_at"] == w["captured_at"] and got["processes"] == w["processes"]
        assert got["pagetable_bytes"] == w["pagetable_bytes"] and got["vmpte_bytes"] == w["vmpte_bytes"]
        assert all(got["sharable_bytes"][k] == 4096 * v for k, v in w["sharable"].items()), got
assert json.load(open(f"{t}/series.json"))["series"][0]["pagetable_bytes"] == 11894784   # pg32.expected
rows = list(csv.DictReader(open(f"{t}/series.csv", newline="")))
assert list(rows[0].keys()) == ["host", "kernel", "captured_at", "source", "metric", "value"]
times = [r["captured_at"] for r in rows]
assert times == sorted(times) and len(set(times)) == 3
pt = [int(r["value"]) for r in rows if r["metric"] == "pagetable_bytes"]
assert pt == [w["pagetable_bytes"] for w in want], pt
assert len(rows) == 3 * (5 + len(want[0]["sharable"])), len(rows)
page = open(f"{t}/series.html").read()
lines = re.findall(r'<polyline class=series data-figure="(\w+)"[^>]* points="([^"]*)"', page)
assert [f for f, _ in lines] == ["pagetable_bytes", "vmpte_bytes", "today_saved_bytes"], lines
assert all(len(p.split()) == 3 for _, p in lines)
ys = [float(p.split(",")[1]) for p in lines[0][1].split()]
assert ys[0] == ys[2] < ys[1]          # pg32's tables twice, desktop's smaller ones between (SVG y grows down)
rows = [l for l in open(f"{t}/series.txt").read().split("\n") if re.match(r"\d{4}-", l)]
assert [l.split()[0] for l in rows] == [w["captured_at"] for w in want], rows
PY
# a series is one row per snapshot; a bad snapshot fails it whole
"$PTSCOPE" report "$pg" "$desktop" --per-process > /dev/null 2> "$tmp/err"; [ $? -eq 1 ] || fail "series --per-process accepted"
"$PTSCOPE" report "$pg" "$tmp/none" -o "$tmp/bad.csv" 2> "$tmp/err"; [ $? -eq 1 ] || fail "a missing snapshot: not exit 1"
[ ! -e "$tmp/bad.csv" ] || fail "a failed series wrote its file"
exit 0
