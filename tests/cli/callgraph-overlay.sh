#!/bin/sh
# callgraph --overlay-events: the cost model's fork/exit counts written on the
# rmap functions of the 2.4-shaped fixture tree.  The snapshot is made here:
# one process with three present file pages (r-xp, pagemap bit 61) and one
# anonymous page (rw-p, Anonymous 4 kB).  Worked by hand:
#  - 2.4-rmap-i386 copies every present PTE at fork: page_add_rmap fork 4;
#  - 2.6.34-avc-i386 (2.6.14+) copies only VMAs with an anon_vma: fork 1;
#  - faulting the 4 pages in: page_add_rmap fault 4 in both;
#  - exit removes every present PTE's rmap: page_remove_rmap exit 4 in both
#    (munmap of every VMA the same), and reclaim of the 4 pages finds 4.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
tree="$PTSCOPE_TESTS/fixtures/kernel-2.4"
snap="$tmp/snap"
server_snapshot "$snap" i386 0x08048000

events() {  # events of a function in a callgraph JSON: "fork=N exit=N"
	python3 -c '
import json, sys
nodes = json.load(open(sys.argv[1]))["nodes"]
e = [n.get("events", {}) for n in nodes if n["name"] == sys.argv[2]]
print(" ".join("%s=%d" % kv for kv in sorted(e[0].items())) if e else "absent")' "$1" "$2"
}

for case in "2.4-rmap-i386 fault=4,fork=4 exit=4,munmap=4,reclaim=4" "2.6.34-avc-i386 fault=4,fork=1 exit=4,munmap=4,reclaim=4"; do
	set -- $case
	"$PTSCOPE" callgraph "$tree" --cache-dir "$tmp/cache" -q --overlay-events "$snap" --design "$1" \
		--format json -o "$tmp/$1.json" || fail "$1: exit status $?"
	add=$(echo "$2" | tr , ' ') remove=$(echo "$3" | tr , ' ')
	[ "$(events "$tmp/$1.json" page_add_rmap)" = "$add" ] ||
		fail "$1: page_add_rmap $(events "$tmp/$1.json" page_add_rmap), want $add"
	[ "$(events "$tmp/$1.json" page_remove_rmap | sed 's/fault=0 //')" = "$remove" ] ||
		fail "$1: page_remove_rmap $(events "$tmp/$1.json" page_remove_rmap), want $remove"
done
# the picture carries the counts and names the snapshot and the design
"$PTSCOPE" callgraph "$tree" --cache-dir "$tmp/cache" -q --overlay-events "$snap" \
	--design 2.4-rmap-i386 -o "$tmp/overlay.svg" || fail "svg: exit status $?"
grep -q 'fork: 4' "$tmp/overlay.svg" || fail "the SVG has no 'fork: 4'"
sed 's/&#45;/-/g' "$tmp/overlay.svg" | grep -q 'under 2.4-rmap-i386' || fail "the SVG does not name the design"
# Edges: fork's count on the PTE-copy call into the era's rmap add function,
# exit's on the zap call into the remove function, under the tree's era's
# design (2.4.20 -> 2.4-rmap-i386, 2.5.45 -> 2.5-array-i386-l1-32), equal to
# the model's own figures as `report` gives them.
edge() {  # events on the edge FROM -> TO: "fork=N" / "exit=N" / "none"
	python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
name = {n["id"]: n["name"] for n in g["nodes"]}
e = [x.get("events") for x in g["edges"] if name[x["from"]] == sys.argv[2] and name[x["to"]] == sys.argv[3] and x.get("events")]
print(" ".join("%s=%d" % kv for kv in sorted(e[0].items())) if e else "none")' "$1" "$2" "$3"
}
work() {  # a work_per_event figure of one design from report JSON
	python3 -c '
import json, sys
d = [d for d in json.load(open(sys.argv[1]))["designs"] if d["id"] == sys.argv[2]][0]
print(d["work_per_event"][sys.argv[3]])' "$1" "$2" "$3"
}
for case in "kernel-2.4 2.4-rmap-i386 page_add_rmap" "kernel-2.5 2.5-array-i386-l1-32 copy_page_range"; do
	set -- $case
	"$PTSCOPE" callgraph "$PTSCOPE_TESTS/fixtures/$1" --cache-dir "$tmp/cache" -q --overlay-events "$snap" \
		--format json -o "$tmp/$1.json" || fail "$1: exit status $?"
	grep -q "under $2 (the design of the tree's era" "$tmp/$1.json" || fail "$1: not priced under $2"
	"$PTSCOPE" report "$snap" --profile "$2" --format json -o "$tmp/$1-report.json" || fail "$1: report"
	fork=$(work "$tmp/$1-report.json" "$2" fork_rmap_calls)
	chains=$(work "$tmp/$1-report.json" "$2" fork_chain_allocations)
	exits=$(work "$tmp/$1-report.json" "$2" exit_rmap_calls)
	[ "$(edge "$tmp/$1.json" copy_page_range page_add_rmap)" = "fork=$fork" ] ||
		fail "$1: copy_page_range -> page_add_rmap $(edge "$tmp/$1.json" copy_page_range page_add_rmap), want fork=$fork"
	[ "$(edge "$tmp/$1.json" "$3" pte_chain_alloc)" = "fork=$chains" ] ||
		fail "$1: $3 -> pte_chain_alloc $(edge "$tmp/$1.json" "$3" pte_chain_alloc), want fork=$chains"
	[ "$(edge "$tmp/$1.json" zap_pte_range page_remove_rmap)" = "exit=$exits munmap=$exits" ] ||
		fail "$1: zap_pte_range -> page_remove_rmap $(edge "$tmp/$1.json" zap_pte_range page_remove_rmap), want exit=$exits munmap=$exits"
	# the fault path's calls carry their kind's faults: no COW in this snapshot
	[ "$(edge "$tmp/$1.json" do_wp_page page_add_rmap)" = fault=0 ] || fail "$1: do_wp_page -> page_add_rmap"
	# reclaim's per-mapping walk: the report's visits (callgraph-events.sh checks every preset)
	visits=$(python3 -c '
import json, sys
d = [d for d in json.load(open(sys.argv[1]))["designs"] if d["id"] == sys.argv[2]][0]
print(d["work_per_event"]["reclaim"]["visited"])' "$tmp/$1-report.json" "$2")
	[ "$(edge "$tmp/$1.json" try_to_unmap try_to_unmap_one)" = "reclaim=$visits" ] ||
		fail "$1: try_to_unmap -> try_to_unmap_one $(edge "$tmp/$1.json" try_to_unmap try_to_unmap_one), want reclaim=$visits"
done
[ "$fork" -gt 0 ] && [ "$exits" -gt 0 ] || fail "the 2.5 figures are zero: the test proves nothing"
# fork and exit apart: 2.6.34 copies only the anonymous VMA (1), exit removes 4
[ "$(edge "$tmp/2.6.34-avc-i386.json" copy_page_range page_add_rmap)" = fork=1 ] || fail "2.6.34 fork edge"
[ "$(edge "$tmp/2.6.34-avc-i386.json" zap_pte_range page_remove_rmap)" = "exit=4 munmap=4" ] || fail "2.6.34 exit edge"
# A machine without profiles of its own (aarch64) is priced like x86_64, by
# callgraph as by report: one rule.
sed 's/^arch: i386/arch: aarch64/' "$snap/snapshot.info" > "$tmp/info" && mkdir -p "$tmp/arm" &&
	cp -r "$snap"/* "$tmp/arm/" && cp "$tmp/info" "$tmp/arm/snapshot.info"
"$PTSCOPE" callgraph "$tree" --cache-dir "$tmp/cache" -q --overlay-events "$tmp/arm" --format json \
	-o "$tmp/arm.json" || fail "aarch64 snapshot: callgraph exit status $?"
grep -q "under 2.4-rmap-x86_64" "$tmp/arm.json" || fail "aarch64 on a 2.4 tree: not 2.4-rmap-x86_64"
"$PTSCOPE" report "$tmp/arm" > /dev/null || fail "aarch64 snapshot: report exit status $?"
# bad input: an unknown design, a missing snapshot
"$PTSCOPE" callgraph "$tree" --cache-dir "$tmp/cache" -q --overlay-events "$snap" --design nope \
	--format json > /dev/null 2> "$tmp/err"; [ $? -eq 1 ] || fail "unknown design: want exit 1"
grep -q "nope" "$tmp/err" || fail "unknown design: message does not name it"
"$PTSCOPE" callgraph "$tree" --cache-dir "$tmp/cache" -q --overlay-events "$tmp/none.tar" \
	--format json > /dev/null 2> "$tmp/err"; [ $? -eq 1 ] || fail "missing snapshot: want exit 1"
echo "overlay: 2.4-rmap fork 4 / exit 4, 2.6.34 fork 1 / exit 4; edges equal the model's figures on 2.4 and 2.5"
