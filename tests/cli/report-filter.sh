#!/bin/sh
# report --filter REGEX scopes the headlines to the matching processes (a
# model run over them alone) and says so: on pg32 (the PostgreSQL backends)
# and desktop (the xfce processes), the headline's page tables are the sum of
# the matching processes' exact page tables in the unfiltered per-process
# JSON, worked out here in python; a filter every process matches leaves
# the headlines as they are; the text says whose the lines are.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v python3 >/dev/null || skip "python3 not installed"
need_snapshot pg32.tar.gz
need_snapshot desktop.tar.gz
check() {   # check SNAPSHOT NAME REGEX
	"$PTSCOPE" report "$1" --per-process --format json -o "$tmp/$2.all.json" || fail "$2: report"
	"$PTSCOPE" report "$1" --filter "$3" --format json -o "$tmp/$2.json" || fail "$2: --filter json"
	"$PTSCOPE" report "$1" --filter "$3" > "$tmp/$2.txt" || fail "$2: --filter text"
	python3 - "$tmp/$2.all.json" "$tmp/$2.json" "$3" <<'PY' || fail "$2: the filtered headline is not the matching processes' own"
import json, re, sys
every, scoped, pattern = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
# the view's test: the command line, else comm
matching = [p for p in every["processes"] if re.search(pattern, p["cmdline"] or p["comm"])]
assert 0 < len(matching) < len(every["processes"]), len(matching)
assert scoped["headline_scope"] == {"filter": pattern, "processes": len(matching), "of": len(every["processes"])}, \
    scoped["headline_scope"]
h = scoped["headlines"]["sharing"]
assert all(p["exact"] for p in matching)
want = sum(p["pagetable_bytes"] for p in matching)
assert h["pagetable_bytes"] == h["pagetable_bytes_lower"] == want, (h["pagetable_bytes"], want)
assert h["pages"] <= sum(p["pte_pages"] for p in matching), h   # a part never exceeds its whole
assert scoped["totals"]["processes"] == len(every["processes"])  # the tables stay the snapshot's
assert scoped["headline"] != every["headline"], scoped["headline"]
print(len(matching), len(every["processes"]))
PY
	counts=$(python3 -c 'import json, sys; s = json.load(open(sys.argv[1]))["headline_scope"]; print(s["processes"], s["of"])' "$tmp/$2.json")
	set -- "$@" $counts
	tr '\n' ' ' < "$tmp/$2.txt" | sed 's/  */ /g' | grep -qF "(the lines above are of the $4 of $5 processes whose command line matches --filter '$3';" ||
		fail "$2: the text does not say whose the headlines are: $(head -12 "$tmp/$2.txt")"
}
check "$SHARED_SNAPSHOTS/pg32.tar.gz" pg32 'postgres: 15/main: postgres'
check "$SHARED_SNAPSHOTS/desktop.tar.gz" desktop 'xfce'
"$PTSCOPE" report "$SHARED_SNAPSHOTS/pg32.tar.gz" --filter 'postgres: 15/main: postgres' -o "$tmp/pg32.html" || fail "--filter html"
grep -qF "These figures are of the 32 of 38 processes whose command line matches --filter 'postgres: 15/main: postgres'" \
	"$tmp/pg32.html" || fail "html: whose the headlines are is not said"
# a filter every process matches: the snapshot's own headlines
"$PTSCOPE" report "$SHARED_SNAPSHOTS/pg32.tar.gz" --filter '.' --format json -o "$tmp/dot.json" || fail "--filter ."
python3 -c 'import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); sys.exit(a["headlines"] != b["headlines"] or a["today"] != b["today"])' \
	"$tmp/dot.json" "$tmp/pg32.all.json" || fail "--filter . changed the headlines"
# nothing matches: no headline of nobody, and it says none match
"$PTSCOPE" report "$SHARED_SNAPSHOTS/pg32.tar.gz" --filter 'no such command xyz' > "$tmp/none.txt" || fail "--filter matching nothing"
grep -q 'no process matches --filter' "$tmp/none.txt" || fail "--filter matching nothing: not said: $(head -8 "$tmp/none.txt")"
exit 0
