#!/bin/sh
# bench fork: the kernel's tracepoints count one fork + exit of ptscope and
# the model predicts them from a capture of the same process.  Worked out
# independently: the VMAs fork duplicates are the lines of the process's
# maps ([vsyscall] is no VMA), read just before the fork; the child frees
# what its fork made; one fork.  Where tracefs is not mounted, the test
# mounts it in its scratch folder (root) and unmounts it after; without
# root or perf_event_open it is skipped, and ptscope must say why.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
mounted=
if ! grep -q ' tracefs ' /proc/self/mounts; then
	[ "$(id -u)" -eq 0 ] || {
		"$PTSCOPE" bench fork --runs 2 > "$tmp/out" || fail "bench fork without tracing"
		grep -q '^  not counted: tracefs is not mounted' "$tmp/out" || fail "no reason given: $(cat "$tmp/out")"
		skip "tracefs is not mounted and this is not root"
	}
	mkdir "$tmp/tracefs"
	mount -t tracefs nodev "$tmp/tracefs" 2>/dev/null || skip "cannot mount tracefs"
	mounted=$tmp/tracefs
fi
"$PTSCOPE" bench fork --runs 2 --format json > "$tmp/fork.json"; rc=$?
[ -n "$mounted" ] && umount "$mounted"
[ $rc -eq 0 ] || fail "bench fork: exit $rc"
python3 - "$tmp/fork.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["kernel_work"]
if not w["counted"]:
    print("skip: not counted:", w["why_not_counted"]); sys.exit(77)
e = {x["event"]: x for x in w["events"]}
vmas = w["vmas_at_fork"]
assert vmas > 0, w
# fork duplicates every VMA of the process (ptscope marks none VM_DONTCOPY), its child frees them
assert e["vm_area_struct allocated"]["counted"] == vmas, (e["vm_area_struct allocated"], vmas)
assert e["vm_area_struct freed"]["counted"] == vmas, e["vm_area_struct freed"]
assert e["forks"]["counted"] == 1 and e["forks"]["model"] == 1, e["forks"]
# the child's exit frees what its fork made
for what in ("anon_vma", "anon_vma_chain"):
    assert e[what + " allocated"]["counted"] == e[what + " freed"]["counted"], (e[what + " allocated"], e[what + " freed"])
# anon_vma_fork: one anon_vma per VMA holding one, at most one per VMA; chains: at least one per anon_vma copy
assert 0 < e["anon_vma allocated"]["counted"] <= vmas, e["anon_vma allocated"]
assert e["anon_vma_chain allocated"]["counted"] >= e["anon_vma allocated"]["counted"] or e["anon_vma_chain allocated"]["cache_merged"]
assert e["user page faults"]["model"] is None
if w.get("design"):
    if w["vmas_captured"] == vmas:
        assert e["vm_area_struct allocated"]["model"] == vmas, (e["vm_area_struct allocated"], vmas)
    # the model sees an anon_vma where a VMA holds an exclusive anonymous page: never more than the kernel made
    assert e["anon_vma allocated"]["model"] <= e["anon_vma allocated"]["counted"], e["anon_vma allocated"]
PY
rc=$?
[ $rc -eq 77 ] && skip "tracepoints not counted here"
[ $rc -eq 0 ] || fail "kernel work: $(cat "$tmp/fork.json")"
exit 0
