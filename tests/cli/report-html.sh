#!/bin/sh
# The HTML page in a real browser: headless Chromium (Debian's chromium)
# loads it from a file with no network, no console message may appear, and
# in the DOM it built each headline figure sits in the row of its label, each
# design's and rule's figures in that design's or rule's row, equal to the
# JSON report's; the sort script reorders the process table; the page
# fetches nothing; --callgraph embeds the rmap-path diagrams as SVG, drawn
# from the report's own model result (stdin works), the fork and exit jobs
# by default (--path chooses), each the picture `callgraph --path JOB
# --overlay-events` draws, never the whole unpruned graph.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
browser=$(command -v chromium || command -v chromium-browser) || { echo "skip: chromium not installed"; exit 77; }
# DOM after the page's scripts ran; console messages (errors included) on stderr
dom() {
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$tmp/profile" \
		--disable-background-networking --enable-logging=stderr --v=0 --dump-dom "file://$1" > "$2" 2> "$2.log" ||
		fail "chromium could not load $1: $(tail -3 "$2.log")"
	grep -a 'CONSOLE' "$2.log" && fail "console messages loading $1"
	[ -s "$2" ] || fail "empty DOM for $1"
}
check() {   # check PAGE.dom REPORT.json
	python3 - "$1" "$2" <<'PY'
import json, sys
from html.parser import HTMLParser

class Rows(HTMLParser):
    """Every table row: (table id, row id, [(text, data-value)] of its th/td cells)."""
    def __init__(self):
        super().__init__()
        self.rows, self.table, self.row, self.cell, self.first = [], [], None, None, None
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.table.append(a.get("id", ""))
        elif tag == "tr":
            self.row = (self.table[-1] if self.table else "", a.get("id", ""), [])
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ["", a.get("data-value")]
        elif tag == "body":
            self.first = a.get("data-first")
    def handle_data(self, data):
        if self.cell is not None:
            self.cell[0] += data
    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None and self.row is not None:
            self.row[2].append((self.cell[0].strip(), self.cell[1]))
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.rows.append(self.row)
            self.row = None
        elif tag == "table" and self.table:
            self.table.pop()

p = Rows()
p.feed(open(sys.argv[1], encoding="utf-8").read())
r = json.load(open(sys.argv[2]))
rows = {(t, i): c for t, i, c in p.rows if i}
h = r["headlines"]
want = {
    "h-sharing-pages": ("PTE pages shared page tables (%s) would save" % h["sharing"]["rule"], h["sharing"]["pages"]),
    "h-sharing-bytes": ("bytes %s would save" % h["sharing"]["rule"], h["sharing"]["bytes"]),
    "h-pagetables": ("page tables of these processes", h["sharing"]["pagetable_bytes"]),
    "h-rmap": ("rmap today (%s) for these processes" % h["rmap"]["design"], h["rmap"]["rmap_bytes"]),
    "h-rmap-baseline": ("rmap under the baseline (%s)" % h["rmap"]["baseline"], h["rmap"]["baseline_rmap_bytes"]),
}
for row_id, (label, value) in want.items():
    cells = rows[("headlines", row_id)]
    assert cells[0][0] == label and int(cells[1][1]) == value, (row_id, cells, label, value)
by_first = lambda table: {c[0][0]: c for t, _, c in p.rows if t == table and c and c[0][1] is None and len(c) > 1}
designs = by_first("designs")
for d in r["designs"]:
    c = designs[d["id"]]
    assert (int(c[5][1]), c[6][0], int(c[7][1]), int(c[8][1])) == (d["rmap_bytes"], d["baseline"], d["saves_bytes"],
                                                                   d["page_field_bytes"]), (d["id"], c)
rules = by_first("rules")
for s in r["sharing"]:
    assert (int(rules[s["id"]][1][1]), int(rules[s["id"]][2][1])) == (s["pages"], s["bytes"]), s["id"]
print(p.first or "")
PY
}
python3 "$PTSCOPE_TESTS/kit/tiny-snapshot.py" "$tmp/t" --processes 3 --cgroup || fail "kit"
"$PTSCOPE" report "$tmp/t" --format html --per-process --group-by cgroup -o "$tmp/t.html" || fail "html tiny"
"$PTSCOPE" report "$tmp/t" --format json -o "$tmp/t.json" || fail "json tiny"
grep -Eiq '<(script|img|link|iframe)[^>]* (src|href)=' "$tmp/t.html" && fail "the page fetches something"
# the sort script: a click on the pid header orders the processes by pid, descending first
sed 's#</body>#<script>document.querySelector("\#processes thead th").click(); document.body.dataset.first = document.querySelector("\#processes tbody tr").cells[0].dataset.value;</script></body>#' \
	"$tmp/t.html" > "$tmp/sorted.html"
dom "$tmp/t.html" "$tmp/t.dom"
check "$tmp/t.dom" "$tmp/t.json" > /dev/null || fail "tiny: a figure is not in its row"
# by hand: 3 processes * 1 VMA * 40 bytes of 6.1-x86_64 rmap fields, no anon_vma = 120
grep -q '<tr id="h-rmap"><th>rmap today (6.1-x86_64) for these processes</th><td class="n" data-value="120">120 B</td>' "$tmp/t.dom" \
	|| fail "tiny: the rmap headline row is not 120 B"
dom "$tmp/sorted.html" "$tmp/sorted.dom"
[ "$(check "$tmp/sorted.dom" "$tmp/t.json")" = 102 ] || fail "sorting by pid (descending) does not put 102 first"

[ -f "${SHARED_SNAPSHOTS:-/nonexistent}/pg32.tar.gz" ] || { echo "skip: no reference snapshots"; exit 77; }
pg="$SHARED_SNAPSHOTS/pg32.tar.gz"
"$PTSCOPE" report "$pg" --format html --per-process --group-by user --callgraph "$PTSCOPE_TESTS/fixtures/kernel-2.4" \
	-o "$tmp/pg.html" || fail "html pg32"
"$PTSCOPE" report "$pg" --format json -o "$tmp/pg.json" || fail "json pg32"
dom "$tmp/pg.html" "$tmp/pg.dom"
check "$tmp/pg.dom" "$tmp/pg.json" > /dev/null || fail "pg32: a figure is not in its row"
# pg32.expected: shpt-2006 saves 1773 PTE pages
grep -q '<tr id="h-sharing-pages"><th>PTE pages shared page tables (shpt-2006) would save</th><td class="n" data-value="1773">1,773</td>' \
	"$tmp/pg.dom" || fail "pg32: 1773 is not in the row of its label"
python3 -c 'import sys; d = open(sys.argv[1]).read(); sys.exit(not (d.count("<svg") >= 3 and "do_fork" in d and "chart-designs" in d))' \
	"$tmp/pg.dom" || fail "pg32: charts or the embedded call graph missing"

# the embedded diagrams: fork then exit by default, each with the lines of
# callgraph's own picture (Graphviz may order the clusters differently)
svg_of() {   # svg_of PAGE JOB: the JOB diagram's <svg> element, lines sorted
	python3 - "$1" "$2" <<'PY' | sort
import sys
h = open(sys.argv[1]).read()
i = h.find('id="callgraph-%s"' % sys.argv[2])
if i < 0:
    sys.exit(1)
j = h.index('<svg', i)
print(h[j:h.index('</svg>', j) + 6])
PY
}
kernel="$PTSCOPE_TESTS/fixtures/kernel-2.4"
[ "$(grep -o 'id="callgraph-[a-z]*"' "$tmp/pg.html" | tr '\n' ' ')" = 'id="callgraph-fork" id="callgraph-exit" ' ] ||
	fail "pg32: the default diagrams are not fork then exit: $(grep -o 'id="callgraph-[a-z]*"' "$tmp/pg.html")"
for job in fork exit; do
	"$PTSCOPE" callgraph "$kernel" --path $job --overlay-events "$pg" --format svg -q -o "$tmp/$job.svg" ||
		fail "callgraph --path $job"
	sed -n '/<svg/,$p' "$tmp/$job.svg" | sort > "$tmp/$job.want"
	svg_of "$tmp/pg.html" $job > "$tmp/$job.got" || fail "pg32: no $job diagram"
	cmp -s "$tmp/$job.want" "$tmp/$job.got" || fail "pg32: the $job diagram is not callgraph's: $(diff "$tmp/$job.want" "$tmp/$job.got" | head -5)"
done
# by hand (pg32.expected): 862,120 present PTEs, each removed once at exit
grep -q 'exit: 862,120 PTEs' "$tmp/exit.got" || fail "pg32: the exit diagram lacks 862,120 PTEs"
# the whole graph of the tree has 42 functions; no diagram holds one off the job's paths
grep -q '7 functions, 6 calls' "$tmp/exit.got" || fail "pg32: the exit diagram is not the pruned one"
# stdin: nothing is read twice
"$PTSCOPE" report - --callgraph "$kernel" --path fault -o "$tmp/in.html" < "$pg" || fail "report - --callgraph"
[ "$(grep -o 'id="callgraph-[a-z]*"' "$tmp/in.html")" = 'id="callgraph-fault"' ] || fail "stdin: --path fault is not the one diagram"
"$PTSCOPE" callgraph "$kernel" --path fault --overlay-events - --format svg -q -o "$tmp/fault.svg" < "$pg" ||
	fail "callgraph --path fault --overlay-events -"
sed -n '/<svg/,$p' "$tmp/fault.svg" | sort > "$tmp/fault.want"
svg_of "$tmp/in.html" fault > "$tmp/fault.got"
cmp -s "$tmp/fault.want" "$tmp/fault.got" || fail "stdin: the fault diagram is not callgraph's: $(diff "$tmp/fault.want" "$tmp/fault.got" | head -5)"
# refusals: exit 1, nothing written
"$PTSCOPE" report "$pg" --callgraph "$kernel" --path frk -o "$tmp/no.html" 2> "$tmp/err" && fail "--path frk accepted"
grep -q "did you mean 'fork'" "$tmp/err" || fail "--path frk: $(cat "$tmp/err")"
"$PTSCOPE" report "$pg" --format html --path fork -o "$tmp/no.html" 2> "$tmp/err" && fail "--path without --callgraph accepted"
[ -e "$tmp/no.html" ] && fail "a refused report wrote its file"
exit 0
