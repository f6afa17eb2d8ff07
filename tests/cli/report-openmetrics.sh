#!/bin/sh
# report --format openmetrics (and -o NAME.prom): a Prometheus text
# exposition that `promtool check metrics` (Debian's prometheus) accepts
# without a lint finding, HELP and TYPE for every metric, every sample
# labelled with host and kernel, the figures those of the JSON report (pg32:
# page tables 11,894,784 B = pg32.expected; shpt-2006 1,773 pages * 4096);
# --group-by adds a metric per group; a hostname with a quote, a backslash
# and a newline is escaped.  CSV's designs table ends with the host totals.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
need_snapshot pg32.tar.gz
need_snapshot desktop.tar.gz
command -v promtool > /dev/null || fail "no promtool (make check installs prometheus)"
for name in pg32 desktop; do
	snap="$SHARED_SNAPSHOTS/$name.tar.gz"
	"$PTSCOPE" report "$snap" -o "$tmp/$name.prom" --group-by command || fail "$name -o .prom"
	promtool check metrics < "$tmp/$name.prom" > "$tmp/lint" 2>&1 || fail "$name: promtool: $(cat "$tmp/lint")"
	[ ! -s "$tmp/lint" ] || fail "$name: promtool lint: $(cat "$tmp/lint")"
	"$PTSCOPE" report "$snap" --format json --group-by command -o "$tmp/$name.json" || fail "$name json"
	"$PTSCOPE" report "$snap" --format csv -o "$tmp/$name.csv" || fail "$name csv"
	python3 - "$tmp/$name.prom" "$tmp/$name.json" "$tmp/$name.csv" "$name" <<'PY' || fail "$name: the exposition"
import csv, json, re, sys
prom, report, table, name = sys.argv[1:]
r = json.load(open(report))
lines = open(prom).read().split("\n")
assert lines[-2] == "# EOF" and lines[-1] == "", lines[-3:]
helps = {l.split()[2] for l in lines if l.startswith("# HELP ")}
types = {l.split()[2]: l.split()[3] for l in lines if l.startswith("# TYPE ")}
samples = {}
for l in lines:
    if l and not l.startswith("#"):
        m = re.match(r'(\w+)\{(.*)\} (-?\d+)$', l)
        assert m, l
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m[2]))
        assert labels["host"] == r["snapshot"]["hostname"] and labels["kernel"] == r["snapshot"]["kernel"]
        samples.setdefault(m[1], []).append((labels, int(m[3])))
assert set(samples) <= helps and set(samples) == set(types) and set(types.values()) == {"gauge"}
t = r["totals"]
assert samples["ptscope_pagetable_bytes"][0][1] == t["pagetable_bytes"]
assert samples["ptscope_vmpte_bytes"][0][1] == t["vmpte_bytes"]
rules = {l["rule"]: (v, l["kernel_has"]) for l, v in samples["ptscope_sharable_bytes"]}
assert rules == {s["id"]: (s["bytes"], s["kernel"]) for s in r["sharing"]}, rules
designs = {l["design"]: v for l, v in samples["ptscope_rmap_bytes"]}
assert designs == {d["id"]: d["rmap_bytes"] for d in r["designs"] if d["arch"] == r["snapshot"]["arch"]}
groups = {l["group"]: v for l, v in samples["ptscope_group_pagetable_bytes"]}
assert groups == {g["key"]: g["pagetable_bytes"] for g in r["groups"]}
if name == "pg32":
    assert t["pagetable_bytes"] == 11894784 and rules["shpt-2006"][0] == 1773 * 4096
rows = list(csv.DictReader(open(table, newline="")))
host = rows[-1]
assert host["id"] == "(host totals)" and int(host["pagetable_bytes"]) == t["pagetable_bytes"], host
assert int(host["processes"]) == t["processes"] and int(host["vmpte_bytes"]) == t["vmpte_bytes"]
PY
done
# a hostname a label must escape
mkdir "$tmp/odd" && tar -xzf "$SHARED_SNAPSHOTS/pg32.tar.gz" -C "$tmp/odd" || fail "unpack pg32"
info=$(find "$tmp/odd" -name snapshot.info | head -n 1)
sed -i 's/^hostname: .*/hostname: db"1\\east/' "$info"
"$PTSCOPE" report "$(dirname "$info")" --format openmetrics > "$tmp/odd.prom" || fail "odd hostname"
promtool check metrics < "$tmp/odd.prom" > "$tmp/lint" 2>&1 || fail "odd hostname: promtool: $(cat "$tmp/lint")"
grep -qF 'host="db\"1\\east"' "$tmp/odd.prom" || fail "hostname not escaped: $(grep -m1 pagetable_bytes "$tmp/odd.prom")"
exit 0
