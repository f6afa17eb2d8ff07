#!/bin/sh
# Tables for tools: each CSV table (designs, --per-process, --per-file) read
# back with Python's csv module against figures worked by hand; two hosts'
# per-process tables loaded into sqlite3 as they are and summed per host by
# one query; the JSON report and callgraph JSON validated against the schemas
# in docs/ (python3-jsonschema); XML carries schema and version.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
python3 -c 'import jsonschema' 2>/dev/null || { echo "skip: python3-jsonschema not installed"; exit 77; }
command -v sqlite3 >/dev/null || { echo "skip: sqlite3 not installed"; exit 77; }
docs="$PTSCOPE_TESTS/../docs"
kit="$PTSCOPE_TESTS/kit/tiny-snapshot.py"

# alpha: 1 process, beta: 3 processes of the tiny snapshot (12288 bytes of
# page tables each, by hand: 1 PTE + 1 PMD + 1 PUD page)
python3 "$kit" "$tmp/alpha" --host alpha --at 2026-12-01T08:00:00Z || fail "kit alpha"
python3 "$kit" "$tmp/beta" --host beta --at 2026-12-01T09:00:00Z --processes 3 || fail "kit beta"
for h in alpha beta; do
	"$PTSCOPE" report "$tmp/$h" --format csv > "$tmp/$h-designs.csv" || fail "csv designs $h"
	"$PTSCOPE" report "$tmp/$h" --format csv --per-process > "$tmp/$h-processes.csv" || fail "csv processes $h"
done
designs=$(cat "$PTSCOPE_TESTS"/../model/profiles/*.xml | grep -c '<rmap-profile ')
python3 - "$tmp" "$designs" <<'PY' || fail "csv tables"
import csv, sys
t = sys.argv[1]
rows = list(csv.DictReader(open(t + "/alpha-designs.csv", newline="")))
assert len(rows) == int(sys.argv[2]) + 1, len(rows)  # one row per built-in design, then the host's totals
totals = rows.pop()
assert totals["id"] == "(host totals)" and totals["host"] == "alpha" and totals["pagetable_bytes"] == "12288", totals
assert totals["processes"] == "1" and totals["pte_pages"] == "1", totals
d = {r["id"]: r for r in rows}
assert d["6.1-x86_64"]["rmap_bytes"] == "40" and d["6.1-x86_64"]["saves_bytes"] == "24"
assert d["6.1-x86_64"]["baseline"] == "2.4-rmap-x86_64" and d["2.4-rmap-i386"]["page_field_bytes"] == "4194304"
assert all(r["host"] == "alpha" and r["kernel"] == "6.1.0-tiny" and r["captured_at"] == "2026-12-01T08:00:00Z" for r in rows)
p = list(csv.DictReader(open(t + "/beta-processes.csv", newline="")))
assert [r["pid"] for r in p] == ["100", "101", "102"], [r["pid"] for r in p]
assert all(r["pagetable_bytes"] == "12288" and r["host"] == "beta" for r in p)
assert p[0]["pte_chain_bytes.2.4-rmap-x86_64"] == "64"
PY
# one query over both hosts' tables, loaded as they are
sqlite3 "$tmp/fleet.db" ".import --csv $tmp/alpha-processes.csv processes" \
	".import --csv --skip 1 $tmp/beta-processes.csv processes" || fail "sqlite import"
got=$(sqlite3 "$tmp/fleet.db" "SELECT host, COUNT(*), SUM(pagetable_bytes) FROM processes GROUP BY host ORDER BY host")
[ "$got" = "alpha|1|12288
beta|3|36864" ] || fail "sqlite per-host sums: $got"

# JSON report and callgraph JSON against their schemas; a broken document fails
"$PTSCOPE" report "$tmp/beta" --format json --per-process --per-file > "$tmp/beta.json" || fail "json beta"
"$PTSCOPE" callgraph --cache-dir "$tmp/cache" -q "$PTSCOPE_TESTS/fixtures/kernel-2.4" --format json -o "$tmp/cg.json" \
	|| fail "callgraph json"
validate() {
	python3 - "$@" <<'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
for path in sys.argv[2:]:
    jsonschema.validate(json.load(open(path)), schema, cls=jsonschema.Draft7Validator)
PY
}
validate "$docs/report.schema.json" "$tmp/beta.json" || fail "report JSON against docs/report.schema.json"
validate "$docs/callgraph.schema.json" "$tmp/cg.json" || fail "callgraph JSON against docs/callgraph.schema.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["designs"][0]["saves_bytes"]="24"; json.dump(d,open(sys.argv[2],"w"))' \
	"$tmp/beta.json" "$tmp/broken.json"
validate "$docs/report.schema.json" "$tmp/broken.json" 2>/dev/null && fail "schema accepts a string saves_bytes"
"$PTSCOPE" report "$tmp/beta" --format xml > "$tmp/beta.xml" || fail "xml"
python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); sys.exit(not (r.findtext("schema") == "1" and r.findtext("version")))' \
	"$tmp/beta.xml" || fail "xml lacks schema and version"
# CSV is one table
"$PTSCOPE" report "$tmp/beta" --format csv --per-process --per-file >/dev/null 2>&1 && fail "two CSV tables accepted"

[ -f "${SHARED_SNAPSHOTS:-/nonexistent}/pg32.tar.gz" ] || { echo "skip: no reference snapshots"; exit 77; }
for name in pg32 desktop; do
	"$PTSCOPE" report "$SHARED_SNAPSHOTS/$name.tar.gz" --format json --per-process > "$tmp/$name.json" || fail "json $name"
	validate "$docs/report.schema.json" "$tmp/$name.json" || fail "$name against the schema"
	"$PTSCOPE" report "$SHARED_SNAPSHOTS/$name.tar.gz" --format csv --per-process > "$tmp/$name-p.csv" || fail "csv $name"
done
# pg32 per file: shpt-2006's files sum to its 1773 pages (pg32.expected)
"$PTSCOPE" report "$SHARED_SNAPSHOTS/pg32.tar.gz" --format csv --per-file > "$tmp/files.csv" || fail "csv per file"
python3 - "$tmp/files.csv" <<'PY' || fail "pg32 per-file table"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1], newline="")) if r["rule"] == "shpt-2006"]
assert sum(int(r["pages"]) for r in rows) == 1773, sum(int(r["pages"]) for r in rows)
assert rows[0]["path"] == "/dev/zero (deleted)" and rows[0]["pages"] == "1699"
PY
# pg32 and desktop (both host "vm") with the tiny hosts: page tables per host
sqlite3 "$tmp/fleet.db" ".import --csv --skip 1 $tmp/pg32-p.csv processes" ".import --csv --skip 1 $tmp/desktop-p.csv processes" \
	|| fail "sqlite import pg32/desktop"
got=$(sqlite3 "$tmp/fleet.db" "SELECT host, SUM(pagetable_bytes) FROM processes GROUP BY host ORDER BY host")
# 11894784 (pg32.expected) + 2945024 (desktop.expected) = 14839808
[ "$got" = "alpha|12288
beta|36864
vm|14839808" ] || fail "sqlite with pg32 and desktop: $got"
exit 0
