#!/bin/sh
# What is measured does not depend on what it is compared with: a user's
# renamed copy of a built-in x86_64 design (2.4-rmap-x86_64, whose geometry
# counts only PTE pages in VmPTE, as 2.4 had no VmPTE) loaded last must not
# change the page-table geometry.  pg32.expected: 11894784 bytes of page
# tables, 38 of 38 processes equal to VmPTE, 2676 PTE pages.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
: "${SHARED_SNAPSHOTS:?}"
pg=$SHARED_SNAPSHOTS/pg32.tar.gz
[ -f "$pg" ] || { echo "skip: no reference snapshots in $SHARED_SNAPSHOTS"; exit 77; }
profiles=$PTSCOPE_TESTS/../model/profiles
for id in 2.4-rmap-x86_64 6.1-x86_64-la57; do
	{
		echo '<?xml version="1.0" encoding="UTF-8"?>'
		echo '<profiles>'
		awk -v id="$id" '$0 ~ "<rmap-profile id=\"" id "\"" { on = 1 } on { print } on && /<\/rmap-profile>/ { exit }' \
			"$profiles"/*.xml | sed "s/id=\"$id\"/id=\"mine-$id\"/"
		echo '</profiles>'
	} > "$tmp/my.xml"
	grep -q "id=\"mine-$id\"" "$tmp/my.xml" || fail "could not copy $id from $profiles"
	"$PTSCOPE" report "$pg" --profile "$tmp/my.xml" --format json > "$tmp/my.json" || fail "report with a copy of $id failed"
	# totals as "totals.KEY,VALUE" lines
	out=$(python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["totals"]; print("\n".join("totals.%s,%s" % (k, v) for k, v in t.items() if not isinstance(v, dict)))' "$tmp/my.json")
	echo "$out" | grep -qx 'totals.pagetable_bytes,11894784' || fail "copy of $id changed the page tables: $(echo "$out" | grep '^totals.pagetable_bytes')"
	echo "$out" | grep -qx 'totals.processes_pagetable_exact,38' || fail "copy of $id: not 38 of 38 equal to VmPTE"
	echo "$out" | grep -qx 'totals.pte_pages,2676' || fail "copy of $id changed the PTE pages"
	text=$("$PTSCOPE" report "$pg" --profile "$tmp/my.xml" --profile "mine-$id") || fail "text report failed"
	echo "$text" | grep -q '^Page tables: 11.3 MiB exact' || fail "copy of $id selected alone: $(echo "$text" | grep '^Page tables')"
	echo "$text" | grep -q '38 of 38 processes match VmPTE' || fail "copy of $id selected alone: not 38 of 38"
done
exit 0
