#!/bin/sh
# `ptscope report --format json` on each reference snapshot: every key of
# NAME.expected equals totals.<key> (dotted keys index the keyed objects);
# the other formats carry the same figure; -o writes atomically.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
need_snapshot pg32.tar.gz
need_snapshot desktop.tar.gz
command -v python3 >/dev/null || skip "python3 not installed"
for name in pg32 desktop; do
	"$PTSCOPE" report "$SHARED_SNAPSHOTS/$name.tar.gz" --format json -o "$tmp/$name.json" || { echo "report $name failed"; exit 1; }
	python3 - "$tmp/$name.json" "$SHARED_SNAPSHOTS/$name.expected" <<'PY' || exit 1
import json, sys
totals = json.load(open(sys.argv[1]))["totals"]
bad = 0
for line in open(sys.argv[2]):
    key, value = line.split(":", 1)
    head, _, rest = key.partition(".")
    got = totals[head][rest] if rest else totals[head]
    slack = 1 if head == "pte_chain_bytes" else 0
    if abs(got - int(value)) > slack:
        print(f"{sys.argv[2]}: {key}: expected {value.strip()}, got {got}")
        bad += 1
sys.exit(1 if bad else 0)
PY
done
# the same figures in CSV (pte_chain of 2.4-rmap-i386, pg32.expected) and XML (ids that are not XML names become <value key=...>)
"$PTSCOPE" report "$SHARED_SNAPSHOTS/pg32.tar.gz" --format csv > "$tmp/r.csv" || exit 1
python3 -c 'import csv, sys; d = {r["id"]: r for r in csv.DictReader(open(sys.argv[1]))}; sys.exit(d["2.4-rmap-i386"]["pte_chain_bytes"] != "6896960")' "$tmp/r.csv" || { echo "csv lacks 2.4-rmap-i386 6896960"; exit 1; }
"$PTSCOPE" report "$SHARED_SNAPSHOTS/pg32.tar.gz" --format xml > "$tmp/r.xml" || exit 1
python3 -c 'import sys, xml.etree.ElementTree as E; t = E.parse(sys.argv[1]); v = [e.text for e in t.find("totals/sharable_pte_pages") if "shpt-2006" in (e.tag, e.get("key"))]; sys.exit(v != ["1773"])' "$tmp/r.xml" || { echo "xml lacks shpt-2006 1773"; exit 1; }
# the headline of the 2006 result
"$PTSCOPE" report "$SHARED_SNAPSHOTS/pg32.tar.gz" | grep -q 'would save 1,773 PTE pages = 6.9 MiB of the 11.3 MiB of page tables' || { echo "text headline wrong"; exit 1; }
# a failed report leaves no file behind
"$PTSCOPE" report "$tmp/missing.tar.gz" --format json -o "$tmp/out.json" 2>/dev/null && { echo "missing snapshot accepted"; exit 1; }
[ -e "$tmp/out.json" ] && { echo "partial output left"; exit 1; }
[ -z "$(ls -A "$tmp" | grep '^\.')" ] || fail "temporary file left: $(ls -A "$tmp")"
exit 0
