#!/bin/sh
# The HTML page carries every section of the text report (issue 21, item 6),
# checked against the JSON report with python3's html.parser (the DOM as a
# browser builds it from this markup): today's segments, page tables beside
# VmPTE and the smaps estimate with its bounds, meminfo's PageTables, the
# designs, rmap work per event (the snapshot's architecture), the sharing
# rules with whether a kernel has them and why one saves nothing, and what a
# fork copies per rule; on pg32 and desktop.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
need_snapshot pg32.tar.gz
need_snapshot desktop.tar.gz
for name in pg32 desktop; do
	"$PTSCOPE" report "$SHARED_SNAPSHOTS/$name.tar.gz" -o "$tmp/$name.html" || fail "$name html"
	"$PTSCOPE" report "$SHARED_SNAPSHOTS/$name.tar.gz" -o "$tmp/$name.json" || fail "$name json"
	python3 - "$tmp/$name.html" "$tmp/$name.json" <<'PY' || fail "$name: the HTML sections"
import json, sys
from html.parser import HTMLParser
class Tables(HTMLParser):
    def __init__(self):
        super().__init__(); self.tables, self.table, self.row, self.cell, self.rows = {}, None, None, None, {}
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table": self.table = a.get("id"); self.tables[self.table] = []
        elif tag == "tr" and self.table: self.row = []; self.tables[self.table].append(self.row); self.rowid = a.get("id")
        elif tag in ("td", "th") and self.row is not None:
            self.cell = [a.get("data-value"), ""]; self.row.append(self.cell)
            if self.rowid and tag == "td": self.rows[self.rowid] = self.cell
    def handle_endtag(self, tag):
        if tag == "table": self.table = None
        if tag in ("td", "th"): self.cell = None
    def handle_data(self, data):
        if self.cell is not None: self.cell[1] += data
p = Tables(); p.feed(open(sys.argv[1]).read())
r = json.load(open(sys.argv[2]))
t, e, k = r["totals"], r["pagetable_estimate"], r["kernel_counters"]
v = lambda rid: int(p.rows[rid][0])
assert (v("pt-exact"), v("pt-vmpte"), v("pt-pte-pages"), v("pt-upper-pages")) == \
       (t["pagetable_bytes"], t["vmpte_bytes"], t["pte_pages"], t["upper_level_pages"])
assert (v("pt-estimate"), v("pt-estimate-lower"), v("pt-estimate-upper")) == (e["point"], e["lower"], e["upper"])
assert v("pt-meminfo") == k["meminfo_pagetables_bytes"] and v("pt-remainder") == k["pagetables_remainder_bytes"]
body = lambda tid: [row for row in p.tables[tid] if row and row[0][0] is None and row[0][1] not in ("design", "under", "rule", "shared segment")]
work = {row[0][1]: [int(c[0]) for c in row[1:]] for row in body("work")}
want = {d["id"]: [d["work_per_event"][x] for x in ("fork_rmap_calls", "fork_chain_allocations", "fork_anon_vma_calls",
        "exit_rmap_calls")] for d in r["designs"] if d["arch"] == r["snapshot"]["arch"]}
assert work == want, (work, want)
forks = {row[0][1]: (int(row[1][0]), int(row[2][0])) for row in body("forks")}
assert forks == {("today" if x == "none" else x): (n, t["fork_ptes_copied"][x]) for x, n in t["fork_pte_pages_copied"].items()}
rules = {row[0][1]: [c[1] for c in row] for row in body("rules")}
for s in r["sharing"]:
    cells = rules[s["id"]]
    assert s["kernel"] in cells and s.get("why_zero", "") in cells and s.get("since", "") in cells, (s["id"], cells)
segments = body("today")
assert [row[0][1] for row in segments] == [x["path"] for x in r["today"]["segments"]]
for row, x in zip(segments, r["today"]["segments"]):
    assert int(row[3][0]) == x["pte_pages"] and int(row[4][0]) == x["saved_bytes_on_pmd_size_pages"]
    assert int(row[7][0]) == x["touch_all_bytes"]
designs = {row[0][1] for row in body("designs")}
assert designs == {d["id"] for d in r["designs"]}
PY
done
exit 0
