#!/bin/sh
# callgraph --path fork|fault|exit|munmap|reclaim: one job's rmap paths at a
# size a person reads.  On the 2.4 fixture each preset's tree is worked out
# by hand from the fixture sources (the job's entry down to the rmap calls
# that job makes, nothing of the other jobs).  On Debian's linux-source-6.1
# each stays under 60 functions, holds the job's own chain as the 6.1 sources
# write it, none of the allocator/shrinker side paths, and says on stderr what
# it kept of how many and what it pruned.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v python3 > /dev/null || { echo "skip: no python3"; exit 77; }
fixture=$PTSCOPE_TESTS/fixtures/kernel-2.4
# each preset's tree, worked out by hand (EXPECTED-path-PRESET beside the
# fixture; callgraph-tree.sh checks every file:line in it against the sources)
for preset in fork fault exit munmap reclaim; do
	"$PTSCOPE" callgraph "$fixture" --no-cache -q --path "$preset" --format tree > "$tmp/got.$preset" ||
		fail "--path $preset failed"
	diff -u "$fixture/EXPECTED-path-$preset" "$tmp/got.$preset" || fail "--path $preset on the 2.4 fixture"
done
out=$("$PTSCOPE" callgraph "$fixture" --no-cache -q --path frok 2>&1); [ $? -eq 1 ] || fail "--path frok should exit 1"
echo "$out" | grep -q "did you mean 'fork'" || fail "--path frok: $out"

cache=${XDG_CACHE_HOME:-$HOME/.cache}/ptscope
tree=$(sh "$PTSCOPE_TESTS/kernel-source.sh" "$cache") ||
	{ echo "skip: linux-source-6.1 could not be installed or unpacked"; exit 77; }
check_preset() { # PRESET "functions that must be there" "functions that must not"
	"$PTSCOPE" callgraph "$tree" --path "$1" --format json -o "$tmp/$1.json" 2> "$tmp/$1.err" ||
		fail "--path $1 on 6.1: $(tail -n 3 "$tmp/$1.err")"
	python3 - "$tmp/$1.json" "$1" "$2" "$3" <<'PY' || fail "--path $1 on 6.1"
import json, sys
graph = json.load(open(sys.argv[1]))
names = {n["name"] for n in graph["nodes"]}
preset, want, unwanted = sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
missing = [f for f in want if f not in names]
assert not missing, "%s: missing %s" % (preset, missing)
there = [f for f in unwanted if f in names]
assert not there, "%s: side paths kept: %s" % (preset, there)
assert len(names) < 60, "%s: %d functions, the aim is under 60" % (preset, len(names))
print("--path %s: %d functions, %d calls" % (preset, len(names), len(graph["edges"])))
PY
	grep -q -- "--path $1: kept [0-9]* functions, [0-9]* calls of the [0-9]* functions" "$tmp/$1.err" ||
		fail "--path $1 does not say what it kept: $(cat "$tmp/$1.err")"
	grep -q -- "--path $1: pruned: .*(left out: mm/page_alloc.c" "$tmp/$1.err" ||
		fail "--path $1 does not say what it pruned"
}
side="__alloc_pages __alloc_pages_slowpath try_to_free_pages compact_zone migrate_pages try_charge_memcg"
check_preset fork "kernel_clone copy_process copy_mm dup_mm dup_mmap copy_page_range copy_p4d_range \
copy_pud_range copy_pmd_range copy_pte_range copy_present_pte page_try_dup_anon_rmap page_dup_file_rmap \
anon_vma_fork anon_vma_clone" "$side exit_mmap mmput page_remove_rmap"
check_preset fault "do_user_addr_fault handle_mm_fault __handle_mm_fault handle_pte_fault do_anonymous_page page_add_new_anon_rmap \
do_fault do_cow_fault finish_fault do_set_pte page_add_file_rmap wp_page_copy anon_vma_prepare do_swap_page \
page_add_anon_rmap page_remove_rmap" "$side rmap_walk zap_pte_range try_to_unmap_one split_huge_page_to_list"
# COW's remove of the old page's rmap is the fault's own: wp_page_copy calls it
python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
name = {n["id"]: n["name"] for n in g["nodes"]}
sys.exit(0 if any(name[e["from"]] == "wp_page_copy" and name[e["to"]] == "page_remove_rmap" for e in g["edges"]) else 1)' \
	"$tmp/fault.json" || fail "--path fault on 6.1: no wp_page_copy -> page_remove_rmap"
check_preset exit "do_exit exit_mm mmput __mmput exit_mmap unmap_vmas unmap_single_vma unmap_page_range \
zap_p4d_range zap_pud_range zap_pmd_range zap_pte_range page_remove_rmap free_pgtables unlink_anon_vmas" \
"$side page_add_new_anon_rmap anon_vma_fork"
check_preset munmap "__vm_munmap do_mas_munmap do_mas_align_munmap unmap_region unmap_vmas zap_pte_range \
page_remove_rmap __split_vma anon_vma_clone free_pgtables unlink_anon_vmas" "$side do_exit page_add_new_anon_rmap"
check_preset reclaim "kswapd balance_pgdat kswapd_shrink_node shrink_node shrink_node_memcgs shrink_lruvec \
shrink_list shrink_inactive_list shrink_folio_list try_to_unmap rmap_walk rmap_walk_anon try_to_unmap_one \
folio_referenced folio_referenced_one try_to_free_pages" \
"__alloc_pages compact_zone migrate_pages shrink_slab handle_mm_fault walk_page_range"
# laid out for a page: the PDF fits A4 (595 x 842 points) and Letter (612 x 792)
"$PTSCOPE" callgraph "$tree" -q --path fault --page a4 -o "$tmp/fault.pdf" || fail "--page a4"
"$PTSCOPE" callgraph "$tree" -q --path fault --page letter -o "$tmp/fault-letter.pdf" || fail "--page letter"
"$PTSCOPE" callgraph "$tree" -q --path fault -o "$tmp/fault.png" || fail "png"
python3 - "$tmp" <<'PY' || fail "page sizes"
import re, struct, sys
d = sys.argv[1]
for name, (w, h) in (("fault.pdf", (595.3, 841.9)), ("fault-letter.pdf", (612, 792))):
    box = [float(x) for x in re.search(rb"/MediaBox\s*\[([^\]]*)\]", open(f"{d}/{name}", "rb").read()).group(1).split()]
    assert box[2] - box[0] <= w + 1 and box[3] - box[1] <= h + 1, "%s: %s does not fit %sx%s" % (name, box, w, h)
png = open(f"{d}/fault.png", "rb").read(24)
width = struct.unpack(">I", png[16:20])[0]
assert width <= 1920, "png %d pixels wide, more than a 1920-pixel screen" % width
PY
exit 0
