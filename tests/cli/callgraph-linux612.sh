#!/bin/sh
# Debian's linux-source-6.12 (tests/kernel-source.sh unpacks it once): the
# 6.x folio names carry the model's counts, and 6.12 --versus 6.1 shows the
# folio conversion.  The snapshot is made here (x86_64, one process): three
# present file pages in an r-xp mapping (no anon_vma) and one anonymous page.
# Worked by hand under 6.1-x86_64 (the design of a 6.x tree's era; lazy fork):
#   copy_present_ptes -> folio_try_dup_anon_rmap_ptes  fork 1 (the anon page)
#   folio_dup_file_rmap_ptes: fork 0, untouched (the file VMA is not copied)
#   dup_mmap -> anon_vma_fork  fork 1 (one VMA with an anon_vma)
#   zap_present_folio_ptes -> folio_remove_rmap_ptes  exit 4 (every present PTE)
. "$PTSCOPE_TESTS/cli-common.sh"
sh "$PTSCOPE_TESTS/deps.sh" jq >/dev/null 2>&1
command -v jq >/dev/null || { echo "skip: jq is not installed"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ptscope
new=$(sh "$PTSCOPE_TESTS/kernel-source.sh" "$cache" 6.12) ||
	{ echo "skip: linux-source-6.12 could not be installed or unpacked"; exit 77; }
old=$(sh "$PTSCOPE_TESTS/kernel-source.sh" "$cache" 6.1) ||
	{ echo "skip: linux-source-6.1 could not be installed or unpacked"; exit 77; }
snap="$tmp/snap"
server_snapshot "$snap" x86_64 0x400000
"$PTSCOPE" callgraph "$new" -q --overlay-events "$snap" --format json -o "$tmp/e.json" || fail "events: exit status $?"
grep -q "under 6.1-x86_64 (the design of the tree's era, 6.12" "$tmp/e.json" || fail "not priced under 6.1-x86_64"
edge() {
	jq -r --arg f "$1" --arg t "$2" '(.nodes | map({(.id): .name}) | add) as $n
	  | [.edges[] | select($n[.from] == $f and $n[.to] == $t and .events) | .events | to_entries[]
	     | "\(.key)=\(.value)"] | unique | join(" ")' "$tmp/e.json"
}
[ "$(edge copy_present_ptes folio_try_dup_anon_rmap_ptes)" = fork=1 ] ||
	fail "copy_present_ptes -> folio_try_dup_anon_rmap_ptes: '$(edge copy_present_ptes folio_try_dup_anon_rmap_ptes)'"
[ "$(edge copy_present_ptes folio_dup_file_rmap_ptes)" = fork=0 ] ||
	fail "copy_present_ptes -> folio_dup_file_rmap_ptes: '$(edge copy_present_ptes folio_dup_file_rmap_ptes)'"
[ "$(edge dup_mmap anon_vma_fork)" = fork=1 ] || fail "dup_mmap -> anon_vma_fork: '$(edge dup_mmap anon_vma_fork)'"
[ "$(edge zap_present_folio_ptes folio_remove_rmap_ptes)" = exit=4 ] ||
	fail "zap_present_folio_ptes -> folio_remove_rmap_ptes: '$(edge zap_present_folio_ptes folio_remove_rmap_ptes)'"
# the single-PTE variants say where their count is; the fault path's add is not modelled
[ "$(jq -r '.nodes[] | select(.name == "folio_try_dup_anon_rmap_pte") | .counted_on' "$tmp/e.json")" = \
	folio_try_dup_anon_rmap_ptes ] || fail "folio_try_dup_anon_rmap_pte does not point at the batched count"
[ "$(jq -r '.nodes[] | select(.name == "folio_add_new_anon_rmap") | .modelled' "$tmp/e.json")" = false ] ||
	fail "folio_add_new_anon_rmap is not marked 'not modelled'"

# 6.1 -> 6.12: the page_*_rmap calls are gone, the folio_*_rmap_ptes ones new
"$PTSCOPE" callgraph "$new" --versus "$old" -q --format json -o "$tmp/v.json" || fail "versus: exit status $?"
only() { jq -r --arg f "$1" '[.nodes[] | select(.name == $f) | .only_in // "both"] | unique | join(" ")' "$tmp/v.json"; }
for f in folio_remove_rmap_ptes folio_try_dup_anon_rmap_ptes folio_dup_file_rmap_ptes folio_add_new_anon_rmap copy_present_ptes; do
	[ "$(only $f)" = new ] || fail "$f: only_in '$(only $f)', want new"
done
for f in page_remove_rmap page_try_dup_anon_rmap page_dup_file_rmap page_add_new_anon_rmap copy_present_pte; do
	[ "$(only $f)" = old ] || fail "$f: only_in '$(only $f)', want old"
done
for f in zap_pte_range anon_vma_fork dup_mmap; do
	[ "$(only $f)" = both ] || fail "$f: only_in '$(only $f)', want both trees"
done
echo "linux-source-6.12: folio names carry fork 1 / exit 4; 6.1 -> 6.12 page_*_rmap old, folio_*_rmap_ptes new"
