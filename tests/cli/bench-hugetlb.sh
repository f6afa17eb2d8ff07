#!/bin/sh
# bench hugetlb: fork with and without hugetlbfs PMD sharing.  The
# machinery, never the machine's speed: vm.nr_hugepages reads the same
# after the run as before (also when the run is stopped by SIGTERM); the
# child's faults are the kernel's count (wait4): reading every huge page of
# a window that is not shared faults once per huge page (512), of a shared
# one far fewer (its first fault shares the parent's PMD page); a user who
# may not raise vm.nr_hugepages is told "skipped" and why, and nothing
# changes.
[ "$(id -u)" -eq 0 ] || { echo "needs root (vm.nr_hugepages)"; exit 77; }
[ -w /proc/sys/vm/nr_hugepages ] || { echo "no writable /proc/sys/vm/nr_hugepages"; exit 77; }
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
before=$(cat /proc/sys/vm/nr_hugepages)
"$PTSCOPE" bench hugetlb --runs 2 --format json -o "$tmp/h.json" || fail "bench hugetlb"
[ "$(cat /proc/sys/vm/nr_hugepages)" = "$before" ] || fail "nr_hugepages $before, now $(cat /proc/sys/vm/nr_hugepages)"
python3 - "$tmp/h.json" "$before" > "$tmp/h.out" <<'PY' || fail "hugetlb json: $(cat "$tmp/h.json")"
import json, sys
h = json.load(open(sys.argv[1]))["hugetlb_pmd_sharing"]
before = int(sys.argv[2])
assert h["nr_hugepages_before"] == h["nr_hugepages_after"] == before, h
if not h["measured"]:
    # as root only the kernel can refuse: too little memory, too fragmented
    assert h["skipped"], h
    print("skipped here: " + h["skipped"])
    sys.exit(0)
assert h["huge_page_bytes"] == 2 << 20 and h["window_bytes"] == 1 << 30, h
pages = h["window_bytes"] // h["huge_page_bytes"]
m = {(x["placement"], x["name"]): x for x in h["measurements"]}
assert sorted(m) == [("apart", "fork"), ("apart", "fork-read"), ("shared", "fork"), ("shared", "fork-read")], m
for x in m.values():
    assert x["runs"] == 2 and 0 < x["min_us"] <= x["median_us"] <= x["p90_us"], x
apart, shared = m["apart", "fork-read"]["child_minor_faults"], m["shared", "fork-read"]["child_minor_faults"]
# one fault per huge page apart, beyond what the child faults without reading
assert apart >= pages + m["apart", "fork"]["child_minor_faults"], m
assert shared < apart - pages / 2, ("the window was not shared", m)
PY

cat "$tmp/h.out"
# stopped by SIGTERM while the pages are reserved: the setting is put back.
# Only where the kernel could give the pages: when it cannot (memory too
# fragmented), the run puts the setting back and ends at once, before the
# test could see it raised.
grep -q '^skipped here: ' "$tmp/h.out" && skip "$(sed -n 's/^skipped here: //p' "$tmp/h.out") (the setting was restored; SIGTERM case not tried)"
free=$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)
[ "$free" -lt 512 ] || { echo "512 huge pages free already: nothing to reserve"; exit 0; }
"$PTSCOPE" bench hugetlb --runs 100000 > /dev/null 2>&1 &
bench=$!
for _ in $(seq 200); do
	[ "$(cat /proc/sys/vm/nr_hugepages)" != "$before" ] && break
	kill -0 $bench 2>/dev/null || break
	sleep 0.05
done
raised=$(cat /proc/sys/vm/nr_hugepages)
kill -TERM $bench 2>/dev/null
[ "$raised" != "$before" ] || fail "bench hugetlb never raised nr_hugepages (or ended first)"
wait $bench
[ "$(cat /proc/sys/vm/nr_hugepages)" = "$before" ] || fail "after SIGTERM (raised to $raised): $(cat /proc/sys/vm/nr_hugepages), not $before"

# a user who may not raise it: skipped, said why, nothing changed
if command -v setpriv > /dev/null && id nobody > /dev/null 2>&1; then
	chmod 755 "$tmp"
	cp "$PTSCOPE" "$tmp/ptscope"
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$tmp/ptscope" bench hugetlb --runs 2 > "$tmp/nobody.txt" ||
		fail "bench hugetlb as nobody: $(cat "$tmp/nobody.txt")"
	grep -q "^  skipped: $free huge pages free of the 512 needed, and only root may raise vm.nr_hugepages$" "$tmp/nobody.txt" ||
		fail "not skipped as nobody: $(cat "$tmp/nobody.txt")"
	[ "$(cat /proc/sys/vm/nr_hugepages)" = "$before" ] || fail "nobody changed nr_hugepages"
fi
exit 0
