#!/bin/sh
# A user's profile: a valid file adds a design to the report; a file that
# breaks the schema exits 1 naming FILE:LINE and writes nothing.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
need_snapshot desktop.tar.gz
cat > "$tmp/mine.xml" <<'XML'
<?xml version="1.0"?>
<profiles>
  <rmap-profile id="my-d1" family="D1" arch="x86_64" kernels="test">
    <description>D1 with a 24-byte pte_chain</description>
    <geometry name="x86_64-4level"><level name="pte" shift="21" counted="yes"/></geometry>
    <sizes pointer="8" pte-chain="24" cache-line="64" pte-addr="8" page-field="8"
           anon-vma="0" anon-vma-chain="0" vma-rmap-fields="0"/>
    <fork copies-file-ptes="yes" anon-vma="none"/>
  </rmap-profile>
</profiles>
XML
# 24-byte chains cost 3x the 8-byte i386 ones: 3 * 984136 (desktop.expected 2.4-rmap-i386)
"$PTSCOPE" report "$SHARED_SNAPSHOTS/desktop.tar.gz" --profile "$tmp/mine.xml" --profile 2.4-rmap-i386 --format json > "$tmp/mine.json" || { echo "valid profile refused"; exit 1; }
# keyed totals as "totals.KEY.ID,VALUE" lines
out=$(python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["totals"]; print("\n".join("totals.%s.%s,%s" % (k, i, v) for k, o in t.items() if isinstance(o, dict) for i, v in o.items()))' "$tmp/mine.json")
echo "$out" | grep -qx 'totals.pte_chain_bytes.my-d1,2952408' || { echo "my-d1 figure wrong"; echo "$out" | grep pte_chain_bytes; exit 1; }
echo "$out" | grep -q 'totals.pte_chain_bytes.2.5-direct' && { echo "--profile did not narrow the designs"; exit 1; }
sed 's/family="D1"/family="D9"/' "$tmp/mine.xml" > "$tmp/bad.xml"
"$PTSCOPE" report "$SHARED_SNAPSHOTS/desktop.tar.gz" --profile "$tmp/bad.xml" -o "$tmp/out.txt" 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] || { echo "bad profile: exit $rc, want 1"; exit 1; }
grep -q "bad.xml:3: " "$tmp/err" || { echo "message does not name bad.xml:3:"; cat "$tmp/err"; exit 1; }
[ -e "$tmp/out.txt" ] && { echo "output written despite the bad profile"; exit 1; }
"$PTSCOPE" profiles --check "$tmp/bad.xml" 2>/dev/null && { echo "profiles --check accepted a bad file"; exit 1; }
"$PTSCOPE" profiles | grep -q '^  2.5-array-i386-l1-128 ' || { echo "profiles list lacks 2.5-array-i386-l1-128"; exit 1; }
"$PTSCOPE" profiles --show 2.5-array-x86_64-l1-64 | grep -q '^NRPTE: *7$' || { echo "--show NRPTE wrong"; exit 1; }
exit 0
