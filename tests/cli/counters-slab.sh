#!/bin/sh
# The kernel's slab counters against the model, on this machine (root only):
#  1. a process tree of known shape (tests/cli/tree-shape.py): the root maps
#     K = 3000 single anonymous pages and P = 500 two-page regions split by
#     mprotect, touches them, and forks a chain of D = 3 descendants.  By hand
#     (6.1's rules, model/objrmap.c):
#       anon_vma        K + P (root: a split keeps one) + D (K + 2P)  = 15500
#       anon_vma_chain  (K + 2P) (1 + 2 + ... + (D + 1))             = 40000
#       vm_area_struct  (K + 2P) (D + 1)                              = 16000
#     plus the interpreter's own (each of the 4 processes holds < 250 VMAs).
#     The model's counts for the captured tree must hold these, and must match
#     the change the tree made to /proc/slabinfo, when it started or when it
#     ended, within: the noise of the rest of the machine (measured: slabinfo
#     again once the tree is gone), the per-CPU slack the report states, and
#     1% of the count.
#  2. a whole-system snapshot: no model count above its slab's active objects.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
[ "$(id -u)" -eq 0 ] && [ -r /proc/slabinfo ] && [ -d /sys/kernel/slab/anon_vma ] ||
	{ echo "skip: needs root, /proc/slabinfo and /sys/kernel/slab"; exit 77; }
command -v python3 >/dev/null && command -v jq >/dev/null || { echo "skip: needs python3 and jq"; exit 77; }

caches="anon_vma anon_vma_chain vm_area_struct"
active() { awk -v name="$1" '$1 == name { print $2 }' /proc/slabinfo; }
for c in $caches; do eval "before_$c=\$(active $c)"; done
python3 "$PTSCOPE_TESTS/cli/tree-shape.py" 3000 500 3 "$tmp/ready" &
pids=$!
for _ in $(seq 300); do [ -f "$tmp/ready" ] && break; sleep 0.1; done
[ -f "$tmp/ready" ] || fail "the process tree did not come up"
for c in $caches; do eval "up_$c=\$(active $c)"; done
root=$(cat "$tmp/ready")
"$PTSCOPE" capture --tree "$root" -o "$tmp/tree.tar" 2>/dev/null >/dev/null || fail "capture --tree"
"$PTSCOPE" report "$tmp/tree.tar" --format json -o "$tmp/tree.json" || fail "report on the tree"
[ "$("$PTSCOPE" info --per-process "$tmp/tree.tar" | grep -c "^[0-9]")" -eq 4 ] || fail "expected the root and 3 descendants"
pids="$pids $("$PTSCOPE" info --per-process "$tmp/tree.tar" | awk '$1 ~ /^[0-9]+$/ { print $1 }')"
for c in $caches; do eval "down_$c=\$(active $c)"; done
for p in $pids; do kill "$p" 2>/dev/null; done
for p in $pids; do while kill -0 "$p" 2>/dev/null; do sleep 0.05; done; done
sleep 0.5
for c in $caches; do eval "after_$c=\$(active $c)"; done

check() {   # cache, hand-worked count of the shape
	eval "b=\$before_$1 u=\$up_$1 d=\$down_$1 a=\$after_$1"
	model=$(jq ".kernel_counters.slab.$1.model" "$tmp/tree.json")
	slack=$(jq ".kernel_counters.slab.$1.slack // 0" "$tmp/tree.json")
	[ "$model" -ge "$2" ] && [ "$model" -le $(($2 + 4 * 250)) ] ||
		fail "$1: the model counts $model, the shape alone is $2 (+ at most 1000 of the interpreter's)"
	# the tree's objects appear when it starts and go when it ends: two
	# windows; the other processes of the machine move the count in each
	# (their net drift over the test is the noise allowed)
	grew=$((u - b)); shrank=$((d - a)); noise=$((a > b ? a - b : b - a)); tolerance=$((noise + slack + model / 100))
	off_grew=$((model > grew ? model - grew : grew - model))
	off_shrank=$((model > shrank ? model - shrank : shrank - model))
	diff=$((off_grew < off_shrank ? off_grew : off_shrank))
	echo "$1: slabinfo $b -> $u (+$grew) ... $d -> $a (-$shrank); model $model (shape $2); |model - change| $diff <= $tolerance (noise $noise + slack $slack + 1%)"
	[ "$diff" -le "$tolerance" ] || fail "$1: the model's $model is $diff away from the slab changes +$grew / -$shrank"
}
# a --tree capture is a part of the machine: no lower bound, and the
# remainder of PageTables is not divided among the tree's processes
jq -e '.kernel_counters.partial_capture and ([.kernel_counters.slab[] | .lower_known] | any | not)' "$tmp/tree.json" >/dev/null ||
	fail "the --tree capture is not reported as a part of the machine"
"$PTSCOPE" report "$tmp/tree.tar" > "$tmp/tree.txt" || fail "text report on the tree"
grep -q "A part of the machine was captured" "$tmp/tree.txt" && ! grep -q " a process)" "$tmp/tree.txt" ||
	fail "the --tree report divides PageTables among its processes"
check anon_vma 15500
check anon_vma_chain 40000
check vm_area_struct 16000

# --- a whole-system snapshot: inside the stated bounds ----------------------
# The model never counts more than the kernel holds (model <= upper).  Its
# count reaches the lower bound when nothing is hidden from /proc: an orphaned
# fork tree (its root exited, its anon_vmas kept by the children's chains)
# holds objects no snapshot shows, so "within" is printed, not asserted.
"$PTSCOPE" report --format json -o "$tmp/live.json" 2>/dev/null || fail "live report"
for c in $caches; do
	jq -e ".kernel_counters.slab.$c | .model <= .upper" "$tmp/live.json" >/dev/null ||
		fail "whole system: $c counts more than the slab holds: $(jq -c ".kernel_counters.slab.$c" "$tmp/live.json")"
	echo "whole system: $c $(jq -c ".kernel_counters.slab.$c | {objects, model, lower, upper, within}" "$tmp/live.json")"
done
jq -e '.kernel_counters.meminfo_pagetables_bytes >= .kernel_counters.model_pagetables_bytes' "$tmp/live.json" >/dev/null ||
	fail "whole system: meminfo PageTables below the processes' page tables"
echo "counters-slab: ok"
