#!/bin/sh
# The report's figures against values worked by hand: the two headlines, each
# design's rmap bytes (pte_chain + object rmap), its struct page field priced
# over the RAM its architecture addresses, its baseline and saves_bytes, the
# same in text and JSON; the text fits 100 columns and prints no -0.0.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }

# One process, one 4-page file VMA, every page mapped twice (kpagecount 2),
# MemTotal 8 GiB (tests/kit/tiny-snapshot.py).  By hand (docs/cost-model.md):
#   page tables: 1 PTE page + PMD + PUD page (6.1-x86_64 counts both) = 12288
#   2.4-rmap-x86_64: C(2) = 2 * 16 = 32 per page, PSS-style /2: 4 * 16 = 64
#   2.5-array-x86_64-l1-64: NRPTE (64-8)/8 = 7, C(2) = 64, /2: 4 * 32 = 128
#   6.1-x86_64: no pte_chain; 1 VMA * 40 bytes of rmap fields, no anon_vma = 40
#   saves of 6.1-x86_64 against 2.4-rmap-x86_64: 64 - 40 = 24
#   page field: 8 GiB / 4 KiB = 2097152 pages; * 8 (2.4 x86_64) = 16777216,
#   * 4 (6.1) = 8388608; i386 addresses at most 4 GiB: 1048576 * 4 = 4194304
python3 "$PTSCOPE_TESTS/kit/tiny-snapshot.py" "$tmp/tiny" || fail "tiny snapshot"
"$PTSCOPE" report "$tmp/tiny" --format json > "$tmp/tiny.json" || fail "report tiny"
python3 - "$tmp/tiny.json" <<'PY' || fail "tiny figures"
import json, sys
r = json.load(open(sys.argv[1]))
d = {x["id"]: x for x in r["designs"]}
want = {
    "2.4-rmap-x86_64": (64, "2.4-rmap-x86_64", 0, 16777216),
    "2.5-array-x86_64-l1-64": (128, "2.4-rmap-x86_64", -64, 16777216),
    "6.1-x86_64": (40, "2.4-rmap-x86_64", 24, 8388608),
    "2.4-rmap-i386": (32, "2.4-rmap-i386", 0, 4194304),
    "2.5-array-i386-pae-l1-128": (256, "2.5-array-i386-pae-l1-32", -192, 16777216),
}
bad = 0
for k, (rmap, base, saves, field) in want.items():
    got = (d[k]["rmap_bytes"], d[k]["baseline"], d[k]["saves_bytes"], d[k]["page_field_bytes"])
    if got != (rmap, base, saves, field):
        print(k, "expected", (rmap, base, saves, field), "got", got); bad += 1
assert r["totals"]["pagetable_bytes"] == 12288
assert d["2.4-rmap-i386"]["page_field_ram_bytes"] == 4 << 30 and d["2.4-rmap-i386"]["page_field_ram_capped"]
assert d["6.1-x86_64"]["page_field_ram_bytes"] == 8 << 30 and not d["6.1-x86_64"]["page_field_ram_capped"]
h = r["headlines"]
assert h["rmap"]["design"] == "6.1-x86_64" and h["rmap"]["rmap_bytes"] == 40 and h["rmap"]["baseline_rmap_bytes"] == 64, h
assert h["sharing"]["rule"] == "shpt-2006" and h["sharing"]["pages"] == 0 and h["sharing"]["pagetable_bytes"] == 12288, h
assert r["schema"] == 1 and r["version"]
sys.exit(bad)
PY
"$PTSCOPE" report "$tmp/tiny" > "$tmp/tiny.txt" || fail "text tiny"
grep -qx 'object rmap (6.1-x86_64) costs 40 B for these processes; 2.4-rmap-x86_64 pte_chains would cost 64 B' "$tmp/tiny.txt" \
	|| fail "tiny rmap headline"
grep -qx 'shared page tables (shpt-2006) would save 0 PTE pages = 0 B of the 12.0 KiB of page tables' "$tmp/tiny.txt" \
	|| fail "tiny sharing headline"
grep -q '^6.1-x86_64  *D5  =  *0 B  *40 B  *40 B  *24 B  *8.0 MiB' "$tmp/tiny.txt" || fail "tiny 6.1 row"
grep -q '^2.4-rmap-x86_64  *D1 .* baseline  *16.0 MiB' "$tmp/tiny.txt" || fail "tiny baseline row"

# --profile narrows the list; the baseline is computed anyway (selected: false)
"$PTSCOPE" report "$tmp/tiny" --profile 6.1-x86_64 --format json > "$tmp/one.json" || fail "profile 6.1"
python3 -c '
import json, sys
d = {x["id"]: x for x in json.load(open(sys.argv[1]))["designs"]}
assert sorted(d) == ["2.4-rmap-x86_64", "6.1-x86_64"], sorted(d)
assert d["6.1-x86_64"]["selected"] and not d["2.4-rmap-x86_64"]["selected"]
assert d["6.1-x86_64"]["saves_bytes"] == 24' "$tmp/one.json" || fail "narrowed baseline"
# a user's own design gets the baseline of its architecture and PTE width
sed -e 's/id="6.1-x86_64"/id="my-x86_64"/' -e 's/anon-vma-chain="64"/anon-vma-chain="80"/' \
	"$PTSCOPE_TESTS/../model/profiles/20-objrmap.xml" | awk '/<rmap-profile id="my-x86_64"/,/<\/rmap-profile>/ {print; next} /<\/?profiles>|<\?xml/ {print}' > "$tmp/my.xml"
"$PTSCOPE" report "$tmp/tiny" --profile "$tmp/my.xml" --format json > "$tmp/my.json" || fail "custom profile"
python3 -c '
import json, sys
d = {x["id"]: x for x in json.load(open(sys.argv[1]))["designs"]}
assert d["my-x86_64"]["baseline"] == "2.4-rmap-x86_64" and d["my-x86_64"]["saves_bytes"] == 24, d["my-x86_64"]' "$tmp/my.json" \
	|| fail "custom profile baseline"

[ -f "${SHARED_SNAPSHOTS:-/nonexistent}/pg32.tar.gz" ] || { echo "skip: no reference snapshots"; exit 77; }
# pg32 by hand from pg32.expected and its meminfo (MemTotal 24684084 kB =
# 6171021 pages): 2.4-rmap-x86_64 rmap = its pte_chain 13793920; 6.1-x86_64
# rmap = 9476 VMAs x 40 + 3744 anon_vmas x 104 (3786 VMAs hold one; 42 share a
# neighbour's) + 7375 chains x 64 = 379040 + 389376 + 472000 = 1240416 (1.2 MiB):
# saves 12553504; i386 page field 1048576 * 4.
"$PTSCOPE" report "$SHARED_SNAPSHOTS/pg32.tar.gz" > "$tmp/pg32.txt" || fail "text pg32"
grep -qx 'shared page tables (shpt-2006) would save 1,773 PTE pages = 6.9 MiB of the 11.3 MiB of page tables' "$tmp/pg32.txt" \
	|| fail "pg32 sharing headline"
grep -q '^object rmap (6.1-x86_64) costs 1.2 MiB for these processes; 2.4-rmap-x86_64 pte_chains would cost$' "$tmp/pg32.txt" \
	|| fail "pg32 rmap headline"
"$PTSCOPE" report "$SHARED_SNAPSHOTS/pg32.tar.gz" --format json > "$tmp/pg32.json" || fail "json pg32"
python3 - "$tmp/pg32.json" <<'PY' || fail "pg32 figures"
import json, sys
r = json.load(open(sys.argv[1]))
d = {x["id"]: x for x in r["designs"]}
assert d["6.1-x86_64"]["baseline"] == "2.4-rmap-x86_64"
assert d["2.4-rmap-x86_64"]["rmap_bytes"] == 13793920
assert d["6.1-x86_64"]["saves_bytes"] == 13793920 - d["6.1-x86_64"]["rmap_bytes"] == 12553504
assert d["2.4-rmap-x86_64"]["page_field_bytes"] == 6171021 * 8
assert d["2.4-rmap-i386"]["page_field_bytes"] == 1048576 * 4
# PAE designs are measured against PAE, never against 4-byte i386
assert d["2.5-array-i386-pae-l1-32"]["baseline"] == "2.5-array-i386-pae-l1-32"
assert d["2.5-array-i386-pae-l1-128"]["saves_bytes"] == 9444199 - 9329191
for x in r["designs"]:
    assert x["rmap_bytes"] == x["pte_chain_bytes"] + x["object_rmap_bytes"], x["id"]
    assert x["saves_bytes"] == d[x["baseline"]]["rmap_bytes"] - x["rmap_bytes"], x["id"]
PY
for name in pg32 desktop; do
	"$PTSCOPE" report "$SHARED_SNAPSHOTS/$name.tar.gz" > "$tmp/$name.txt" || fail "text $name"
	"$PTSCOPE" report "$SHARED_SNAPSHOTS/$name.tar.gz" --format json > "$tmp/$name.json" || fail "json $name"
	awk -v f="$name" 'length > 100 { print f ": line " NR " is " length " columns: " $0; bad = 1 } END { exit bad }' "$tmp/$name.txt" \
		|| fail "$name text wider than 100 columns"
	grep -n -- '-0\.0\b\|-0 B' "$tmp/$name.txt" "$tmp/$name.json" && fail "$name prints -0.0"
	grep -nE '[0-9]\.[0-9]{5,}' "$tmp/$name.json" && fail "$name JSON has float noise"
	# default view: the snapshot's architecture only; --all-designs the rest
	grep -q '^2.4-rmap-i386 ' "$tmp/$name.txt" && fail "$name shows i386 designs by default"
	"$PTSCOPE" report "$SHARED_SNAPSHOTS/$name.tar.gz" --all-designs | grep -q '^2.4-rmap-i386 ' || fail "$name --all-designs"
done
exit 0
