#!/bin/sh
# pg32 without its pagemap members (and kpages): every headline figure lies
# within the report's own totals, and the bounds hold the exact answer of the
# full snapshot (pg32.expected: sharable_pte_pages.shpt-2006 = 1773).
#   - the sharing headline's saving (its upper bound) <= its page tables'
#     lower bound, and every rule's saving <= the page tables;
#   - every process's sharable share <= its VmPTE;
#   - the exact figures of the full snapshot lie in [pages_lower, pages];
#   - the text headline gives both bounds ("N-M PTE pages = A-B MiB").
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
need_snapshot pg32.tar.gz
command -v jq >/dev/null || skip "needs jq"
mkdir "$tmp/pg32"
tar xzf "$SHARED_SNAPSHOTS/pg32.tar.gz" -C "$tmp/pg32" || fail "cannot unpack pg32"
find "$tmp/pg32" -name pagemap -delete
rm -f "$tmp/pg32/kpages"
"$PTSCOPE" report "$SHARED_SNAPSHOTS/pg32.tar.gz" --format json > "$tmp/full.json" || fail "report pg32"
"$PTSCOPE" report "$tmp/pg32" --format json --per-process > "$tmp/bare.json" || fail "report pg32 without pagemap"
"$PTSCOPE" report "$tmp/pg32" > "$tmp/bare.txt" || fail "text report pg32 without pagemap"
jq -e '.headlines.sharing | .bytes <= .pagetable_bytes_lower and .bytes_lower <= .bytes' "$tmp/bare.json" >/dev/null ||
	fail "headline part above its whole: $(jq -c '.headlines.sharing' "$tmp/bare.json")"
jq -e '.headlines.sharing.pages_lower < .headlines.sharing.pages' "$tmp/bare.json" >/dev/null ||
	fail "without pagemap the saving is not given as a range"
jq -e '[.sharing[] | select(.available) | .bytes <= $t[0].headlines.sharing.pagetable_bytes] | all' \
	--slurpfile t "$tmp/bare.json" "$tmp/bare.json" >/dev/null || fail "a rule saves more than the page tables"
jq -e '[.processes[] | .sharable_pte_pages["shpt-2006"] * 4096 <= .vmpte_bytes] | all' "$tmp/bare.json" >/dev/null ||
	fail "a process is credited more than its VmPTE"
for rule in shpt-2006 aligned-what-if; do
	exact=$(jq --arg r "$rule" '.sharing[] | select(.id == $r) | .pages' "$tmp/full.json")
	jq -e --arg r "$rule" --argjson x "$exact" '.sharing[] | select(.id == $r) | .pages_lower <= $x and $x <= .pages' \
		"$tmp/bare.json" >/dev/null ||
		fail "$rule: exact $exact outside $(jq -c --arg r "$rule" '.sharing[] | select(.id == $r) | [.pages_lower, .pages]' "$tmp/bare.json")"
	echo "$rule: exact $exact in $(jq -c --arg r "$rule" '.sharing[] | select(.id == $r) | [.pages_lower, .pages]' "$tmp/bare.json")"
done
[ "$(jq '.headlines.sharing.pages' "$tmp/full.json")" = 1773 ] || fail "pg32's exact saving is not 1773"
grep -q "would save [0-9,]*-[0-9,]* PTE pages = [0-9.]*-[0-9.]* MiB of the 11.3 MiB" "$tmp/bare.txt" ||
	fail "the text headline does not give both bounds: $(head -4 "$tmp/bare.txt")"
# the HTML sharing table gives the same range (the upper bound sorts)
"$PTSCOPE" report "$tmp/pg32" --format html > "$tmp/bare.html" || fail "html report pg32 without pagemap"
lower=$(jq '.sharing[] | select(.id == "shpt-2006") | .pages_lower' "$tmp/bare.json")
upper=$(jq '.sharing[] | select(.id == "shpt-2006") | .pages' "$tmp/bare.json")
cell=$(python3 -c 'import sys; print("{:,}-{:,}".format(int(sys.argv[1]), int(sys.argv[2])))' "$lower" "$upper")
grep -q "<td class=n data-value=\"$upper\" data-lower=\"$lower\">$cell</td>" "$tmp/bare.html" ||
	fail "the HTML sharing table does not give shpt-2006's range $cell"
echo "report-bounds: ok"
