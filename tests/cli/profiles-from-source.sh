#!/bin/sh
# profiles --from-source: the sizes libclang gives the rmap structs of a real
# tree, checked against figures known independently:
#  - the 2.5-shaped fixture (i386): struct pte_chain is two pointers, 8 bytes
#    (docs/cost-model.md: s1 = 8 on i386); it has no anon_vma;
#  - Debian's linux-source-6.1 (x86_64): struct page 64, struct anon_vma 96,
#    struct anon_vma_chain 64 (docs/cost-model.md section 3).
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
size_of() { awk -v s="$2" '$1 == "struct" && $2 == s { print $3 }' "$1"; }

"$PTSCOPE" profiles --from-source "$PTSCOPE_TESTS/fixtures/kernel-2.5" \
	> "$tmp/25" 2> "$tmp/err" || fail "2.5 fixture: $(cat "$tmp/err")"
[ "$(size_of "$tmp/25" pte_chain)" = 8 ] || fail "2.5 pte_chain: $(size_of "$tmp/25" pte_chain)"
[ "$(size_of "$tmp/25" anon_vma)" = not ] || fail "2.5 has no anon_vma: $(grep anon_vma "$tmp/25")"
"$PTSCOPE" profiles --from-source "$tmp/no-tree" 2> "$tmp/err"; [ $? -eq 1 ] || fail "missing tree: want exit 1"
grep -q "no-tree" "$tmp/err" || fail "missing tree: message does not name it"

cache=${XDG_CACHE_HOME:-$HOME/.cache}/ptscope
tree=$(sh "$PTSCOPE_TESTS/kernel-source.sh" "$cache") || { echo "linux-source-6.1 is not available"; exit 77; }
"$PTSCOPE" profiles --from-source "$tree" > "$tmp/61" 2> "$tmp/err" || fail "6.1: $(cat "$tmp/err")"
for want in "page 64" "anon_vma 96" "anon_vma_chain 64"; do
	set -- $want
	[ "$(size_of "$tmp/61" "$1")" = "$2" ] || fail "6.1 struct $1: $(size_of "$tmp/61" "$1"), want $2"
done
echo "struct sizes agree: 2.5 pte_chain 8; 6.1 page 64, anon_vma 96, anon_vma_chain 64"
