#!/bin/sh
# callgraph --path fork|fault|exit|munmap|reclaim --overlay-events: every rmap
# function of every preset carries the cost model's count under the tree's
# era's design, equal to `report --format json`'s work_per_event for that
# design, on the 2.4, 2.5 and 2.6 fixture trees, on the real trees of
# ../shared/kernels (2.4.18-rmap, 2.5.68 under 2.5-array: its token rebuild
# has no Makefile to name its release, 2.6.11) and on Debian's 6.1 and 6.12;
# a function no figure fits is one docs/cost-model.md section 7 names.
#
# The snapshot is made here: server (pid 7) and its forked child (pid 8).
#   text r-xp /usr/sbin/server: pid 7 maps PFNs 100-102, pid 8 PFN 100;
#   data rw-p (offset 0x3000): pid 7 a COW copy (anonymous PFN 300) and the
#     file page PFN 103, pid 8 PFN 103;
#   heap rw-p: PFN 200 shared by both (fork), pid 7 one swap entry;
#   pid 7 alone: an anonymous THP a PMD maps (4 MiB on i386: PFNs
#     0x1000-0x13ff; PID/pmd_mapped says so).
# By hand, every page faulted in once: 6 file read faults (100-103 by pid 7,
# 100 and 103 by pid 8), 1 COW (300), 2 anonymous first touches (200 twice)
# and the THP's, 1 swap-in.  2.4-rmap (no THP): the THP is 1024 first
# touches; reclaim walks 1030 pages and 1033 pte_chain entries.  6.1 (a PMD
# is one call): 1 THP fault (__do_huge_pmd_anonymous_page), 2 first touches
# by PTE; fork 1 PMD copy; exit 10 rmap calls, zap_huge_pmd's 1 of them;
# reclaim 7 walks (the THP's one), 9 small mappings removed and the THP's
# PMD split into 1024 PTEs removed: 1033.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v python3 >/dev/null || skip "no python3"
snap="$tmp/snap"
mkdir -p "$snap/7" "$snap/8"
printf 'Linux version 0.0.0 (fixture)\n' > "$snap/version"
printf 'MemTotal: 262144 kB\n' > "$snap/meminfo"
printf 'format: ptscope-snapshot 1\npage_size: 4096\narch: i386\npagemap: pfn\n' > "$snap/snapshot.info"
python3 - "$snap" <<'PY'
import struct, sys
snap = sys.argv[1]
present, swapped, file_page, exclusive = 1 << 63, 1 << 62, 1 << 61, 1 << 56
vmas = [(0x08048000, 0x0804b000, "r-xp", 0, "08:01 5", "/usr/sbin/server"),
        (0x0804b000, 0x0804d000, "rw-p", 0x3000, "08:01 5", "/usr/sbin/server"),
        (0x0804d000, 0x0804f000, "rw-p", 0, "00:00 0", "")]
thp = (0x08400000, 0x08800000, "rw-p", 0, "00:00 0", "")
pages = {7: [(0x08048000, present | file_page | 100), (0x08049000, present | file_page | 101),
             (0x0804a000, present | file_page | 102), (0x0804b000, present | exclusive | 300),
             (0x0804c000, present | file_page | 103), (0x0804d000, present | 200),
             (0x0804e000, swapped | 0x1234)] +
            [(thp[0] + i * 4096, present | exclusive | (0x1000 + i)) for i in range(1024)],
         8: [(0x08048000, present | file_page | 100), (0x0804c000, present | file_page | 103),
             (0x0804d000, present | 200)]}
anonymous = {7: (0, 4, 8, 4096), 8: (0, 0, 4)}
for pid, ppid in ((7, 1), (8, 7)):
    folder = "%s/%d" % (snap, pid)
    open(folder + "/stat", "w").write("%d (server) S %d %d %d 0 -1\n" % (pid, ppid, pid, pid))
    open(folder + "/cmdline", "w").write("server\0")
    open(folder + "/status", "w").write("VmPTE:\t       4 kB\n")
    with open(folder + "/smaps", "w") as f:
        for (start, end, perms, offset, dev, path), anon in zip(vmas + [thp], anonymous[pid]):
            inode = dev.split()[1]
            f.write("%08x-%08x %s %08x %s %-10s %s\n" % (start, end, perms, offset, dev.split()[0], inode, path))
            f.write("Size: %d kB\nRss: 4 kB\nAnonymous: %d kB\n" % ((end - start) // 1024, anon))
            f.write("AnonHugePages: %d kB\n" % (anon if start == thp[0] else 0))
    with open(folder + "/pagemap", "wb") as f:
        for vaddr, entry in pages[pid]:
            f.write(struct.pack("<QQ", vaddr, entry))
    with open(folder + "/pmd_mapped", "wb") as f:
        if pid == 7:
            f.write(struct.pack("<QQ", thp[0], thp[1]))
PY

# check TREE NAME: every preset's rmap functions and calls against report JSON
# check TREE NAME [DESIGN]: DESIGN where the tree names no release (the
# 2.5.68 token rebuild has no Makefile), else the design of its era
check() {
	for preset in fork fault exit munmap reclaim; do
		"$PTSCOPE" callgraph "$1" $cache_option -q --path "$preset" --overlay-events "$snap" ${3:+--design "$3"} \
			--format json -o "$tmp/$2-$preset.json" 2> "$tmp/err" || fail "$2 --path $preset: $(tail -n 3 "$tmp/err")"
		design=$(grep -o 'reclaimed once, under [A-Za-z0-9._-]*' "$tmp/$2-$preset.json" | head -n 1 | cut -d' ' -f4)
		[ -n "$design" ] || fail "$2 --path $preset: the overlay names no design"
		"$PTSCOPE" report "$snap" --profile "$design" --format json -o "$tmp/report.json" || fail "report $design"
		python3 "$tmp/compare.py" "$tmp/$2-$preset.json" "$tmp/report.json" "$design" "$PTSCOPE_TESTS/../docs/cost-model.md" \
			"$2 $preset" >> "$tmp/log" || { cat "$tmp/log"; fail "$2 --path $preset ($design)"; }
	done
}

cat > "$tmp/compare.py" <<'PY'
import json, re, sys
graph, report, design_id, docs, what = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], open(sys.argv[4]).read(), sys.argv[5]
d = [x for x in report["designs"] if x["id"] == design_id][0]
w, t = d["work_per_event"], report["totals"]
f, rc = w["faults"], w["reclaim"]
names = {n["id"]: n["name"] for n in graph["nodes"]}
present = set(names.values())
new_anon = "page_add_new_anon_rmap" in present or "folio_add_new_anon_rmap" in present
kinds = ("anon", "cow", "file", "swap")
def faults(ks): return sum(f[k]["faults"] for k in ks)
add_kinds = {"page_add_rmap": kinds, "page_add_new_anon_rmap": ("anon", "cow"), "folio_add_new_anon_rmap": ("anon", "cow"),
             "page_add_anon_rmap": ("swap",) if new_anon else ("anon", "cow", "swap"),
             "do_page_add_anon_rmap": ("swap",), "folio_add_anon_rmap_ptes": ("swap",), "folio_add_anon_rmap_pte": ("swap",),
             "page_add_file_rmap": ("file",), "folio_add_file_rmap_ptes": ("file",), "folio_add_file_rmap_pte": ("file",),
             "folio_add_file_rmap_range": ("file",)}
removes = ("page_remove_rmap", "folio_remove_rmap_ptes", "folio_remove_rmap_pte")
# 6.8 on: the PTE functions apart from the PMD ones (folio_*_rmap_pmd)
pte_only = ("folio_remove_rmap_ptes", "folio_remove_rmap_pte", "folio_try_dup_anon_rmap_ptes", "folio_try_dup_anon_rmap_pte",
            "folio_add_file_rmap_ptes", "folio_add_file_rmap_pte")
file_walks = rc["walks"] - rc["anon_walks"]
expected = {
    "fork": {"page_add_rmap": w["fork_rmap_calls"], "page_dup_rmap": w["fork_rmap_calls"], "__page_dup_rmap": w["fork_rmap_calls"],
             "page_try_dup_anon_rmap": w["fork_rmap_anon_calls"],
             "folio_try_dup_anon_rmap_ptes": w["fork_rmap_anon_calls"] - w["fork_rmap_pmd_calls"],
             "page_dup_file_rmap": w["fork_rmap_calls"] - w["fork_rmap_anon_calls"],
             "folio_dup_file_rmap_ptes": w["fork_rmap_calls"] - w["fork_rmap_anon_calls"],
             "anon_vma_link": w["fork_anon_vma_calls"], "anon_vma_fork": w["fork_anon_vma_calls"],
             "anon_vma_clone": w["fork_chain_allocations"] - w["fork_anon_vma_calls"], "pte_chain_alloc": w["fork_chain_allocations"],
             "folio_try_dup_anon_rmap_pmd": w["fork_rmap_pmd_calls"]},
    "exit": dict({r: w["exit_rmap_calls"] - (w["exit_rmap_pmd_calls"] if r in pte_only else 0) for r in removes},
                 page_remove_file_rmap=w["exit_rmap_calls"] - w["exit_rmap_anon_calls"],
                 unlink_anon_vmas=w["exit_anon_vma_unlinks"], anon_vma_unlink=w["exit_anon_vma_unlinks"],
                 folio_remove_rmap_pmd=w["exit_rmap_pmd_calls"], page_remove_anon_compound_rmap=w["exit_rmap_anon_pmd_calls"]),
    "fault": dict({n: faults(k) - (f["file"]["pmd_faults"] if n in pte_only else 0) for n, k in add_kinds.items()}, **{r: f["cow"]["faults"] for r in removes},
                  page_remove_file_rmap=f["cow"]["faults"], anon_vma_prepare=f["all"]["anon_vma_prepare_calls"],
                  __anon_vma_prepare=f["all"]["anon_vma_prepare_calls"], pte_chain_alloc=f["all"]["chain_allocations"],
                  folio_add_file_rmap_pmd=f["file"]["pmd_faults"], pte_chain_free=f["cow"]["chain_frees"]),
    "reclaim": dict({r: rc["removes"] for r in removes}, try_to_unmap=rc["walks"], page_referenced=rc["walks"],
                    folio_referenced=rc["walks"], rmap_walk=2 * rc["walks"], rmap_walk_anon=2 * rc["anon_walks"],
                    rmap_walk_anon_lock=2 * rc["anon_walks"], page_lock_anon_vma=2 * rc["anon_walks"],
                    page_lock_anon_vma_read=rc["anon_walks"], folio_lock_anon_vma_read=rc["anon_walks"],
                    try_to_unmap_anon=rc["anon_walks"], page_referenced_anon=rc["anon_walks"],
                    rmap_walk_file=2 * file_walks, try_to_unmap_file=file_walks, page_referenced_file=file_walks,
                    try_to_unmap_one=rc["visited"], page_referenced_one=rc["visited"], folio_referenced_one=rc["visited"],
                    rmap_walk_locked=0),
}
expected["munmap"] = dict(expected["exit"], anon_vma_clone=0)
expected["munmap"]["unlink_anon_vmas"] = w["munmap"]["anon_vma_unlinks"]
expected["munmap"]["page_remove_rmap"] = w["munmap"]["rmap_calls"]
expected["munmap"]["folio_remove_rmap_ptes"] = w["munmap"]["rmap_calls"] - w["exit_rmap_pmd_calls"]
bad = []
# the documented list of rmap functions no snapshot figure prices (section 7)
documented = re.search(r"Not priced from a snapshot:(.*?)\n\n", docs, re.S)
documented = documented.group(1) if documented else ""
for n in graph["nodes"]:
    name = n["name"]
    if n.get("counted_on"):
        continue
    if n.get("modelled") is False:
        if "`%s`" % name not in documented:
            bad.append("%s: not modelled, and docs/cost-model.md does not say why" % name)
        continue
    for event, count in n.get("events", {}).items():
        if name in expected.get(event, {}) and count != expected[event][name]:
            bad.append("%s %s: %d, report says %d" % (name, event, count, expected[event][name]))
        elif name not in expected.get(event, {}):
            bad.append("%s %s: %d, no figure of the report to compare" % (name, event, count))
    if n.get("role") == "sink" and not n.get("events"):
        bad.append("%s: a sink without a figure" % name)
# calls: a fault's carry the faults of its caller's kind; the others their
# callee's count.  A PMD doer's call carries the PMD-mapped THPs' part of
# it (the design's one call a THP), the PTE doer's call the rest.
fault_callers = {"do_anonymous_page": "anon", "wp_page_copy": "cow", "do_wp_page": "cow", "page_remove_rmap": "cow",
                 "do_swap_page": "swap",
                 "set_pte_range": "file", "do_set_pte": "file", "finish_fault": "file",
                 "__do_fault": "file", "do_no_page": "file"}
pmd_fault_callers = {"__do_huge_pmd_anonymous_page": "anon", "do_huge_pmd_anonymous_page": "anon", "do_set_pmd": "file"}
pmd_callers = {"fork": "copy_huge_pmd", "exit": "zap_huge_pmd", "munmap": "zap_huge_pmd"}
pmd_only = ("folio_try_dup_anon_rmap_pmd", "folio_remove_rmap_pmd", "page_remove_anon_compound_rmap")
def pmd_part(event, callee, whole):
    if callee in pmd_only:
        return whole
    if callee in pte_only:
        return 0
    if event == "fork":
        return 0 if "file" in callee else w["fork_rmap_pmd_calls"]
    return w["exit_rmap_pmd_calls"] - (w["exit_rmap_anon_pmd_calls"] if "file" in callee else 0)
def fault_want(k, callee, pmd, split):
    """the figure of kind k on callee: its PMD part (pmd), or the rest when
    a PMD caller of kind k carries that part (split), else all of it"""
    if "anon_vma_prepare" in callee:
        whole = f[k]["anon_vma_prepare_calls"]
        part = f[k]["pmd_faults"] if whole else 0
    elif callee == "pte_chain_alloc":
        whole, part = f[k]["chain_allocations"], 0
    elif callee == "pte_chain_free":
        whole, part = f[k]["chain_frees"], 0
    elif callee in removes + ("page_remove_file_rmap",):
        whole, part = f[k]["faults"] if k == "cow" else 0, 0
    elif callee == "folio_add_file_rmap_pmd":
        whole = part = f[k]["pmd_faults"] if k == "file" else 0
    elif callee in pte_only:
        whole, part = f[k]["faults"] - f[k]["pmd_faults"] if k in add_kinds.get(callee, ()) else 0, 0
    else:
        whole = f[k]["faults"] if k in add_kinds.get(callee, ()) else 0
        part = f[k]["pmd_faults"] if whole else 0
    return part if pmd else whole - part if split else whole
node_events = {n["id"]: n.get("events", {}) for n in graph["nodes"]}
calls_with_pmd = {(names[e["to"]], ev) for e in graph["edges"] for ev in e.get("events", {})
                  if names[e["from"]] in pmd_callers.values()}
fault_calls_with_pmd = {(names[e["to"]], pmd_fault_callers[names[e["from"]]]) for e in graph["edges"]
                        if "fault" in e.get("events", {}) and names[e["from"]] in pmd_fault_callers}
for e in graph["edges"]:
    caller, callee = names[e["from"]], names[e["to"]]
    for event, count in e.get("events", {}).items():
        if event == "fault":
            pmd = caller in pmd_fault_callers
            k = pmd_fault_callers[caller] if pmd else fault_callers[caller]
            want = fault_want(k, callee, pmd, (callee, k) in fault_calls_with_pmd)
        elif event == "reclaim" and callee.endswith("_one"):
            want = rc["anon_visited"] if "_anon" in caller else rc["visited"] - rc["anon_visited"] if "_file" in caller else rc["visited"]
        elif event == "reclaim" and callee == "rmap_walk":
            want = rc["walks"]
        else:
            whole = node_events[e["to"]].get(event)
            part = pmd_part(event, callee, whole) if event in pmd_callers else 0
            want = part if caller == pmd_callers.get(event) else whole - part if (callee, event) in calls_with_pmd else whole
        if count != want:
            bad.append("%s -> %s %s: %d, want %s" % (caller, callee, event, count, want))
for b in bad:
    print("%s: %s" % (what, b))
print("%s: %d functions, %d calls priced under %s" % (what, sum(1 for n in graph["nodes"] if n.get("events")),
      sum(1 for e in graph["edges"] if e.get("events")), design_id))
sys.exit(1 if bad else 0)
PY

cache_option="--cache-dir $tmp/cache"
: > "$tmp/log"
for t in 2.4 2.5 2.6; do
	check "$PTSCOPE_TESTS/fixtures/kernel-$t" "kernel-$t" || exit 1
done
grep -q "under 2.4-rmap-i386" "$tmp/kernel-2.4-fault.json" || fail "the 2.4 fixture is not priced under 2.4-rmap-i386"
# the figures worked out by hand (above), on the 2.4 fixture's calls
edge() {
	python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
name = {n["id"]: n["name"] for n in g["nodes"]}
e = [x.get("events", {}) for x in g["edges"] if name[x["from"]] == sys.argv[2] and name[x["to"]] == sys.argv[3]]
print(e[0].get(sys.argv[4], "none") if e else "absent")' "$@"
}
[ "$(edge "$tmp/kernel-2.4-fault.json" do_wp_page page_add_rmap fault)" = 1 ] || fail "2.4: the COW fault's add"
[ "$(edge "$tmp/kernel-2.4-fault.json" do_no_page page_add_rmap fault)" = 6 ] || fail "2.4: the file read faults"
[ "$(edge "$tmp/kernel-2.5-fault.json" do_anonymous_page page_add_rmap fault)" = 1026 ] || fail "2.5: the first touches"
[ "$(edge "$tmp/kernel-2.4-reclaim.json" try_to_unmap try_to_unmap_one reclaim)" = 1033 ] || fail "2.4: reclaim's chain entries"
[ "$(edge "$tmp/kernel-2.4-reclaim.json" shrink_cache try_to_unmap reclaim)" = 1030 ] || fail "2.4: reclaim's pages"
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ptscope
cache_option=""
# the real trees of ../shared/kernels (tests/shared-kernel.sh unpacks them once)
missing=""
for pair in 2.4.18-14rh: 2.5.68-tok:2.5-array-i386-l1-32 2.6.11.12:; do
	name=${pair%%:*}
	tree=$(sh "$PTSCOPE_TESTS/shared-kernel.sh" "$cache" "${SHARED_KERNELS:-}" "$name")
	case $? in
	0) check "$tree" "$name" "${pair#*:}" || exit 1 ;;
	77) missing="$missing $name" ;;
	*) fail "$name: could not unpack" ;;
	esac
done
if [ -z "$missing" ]; then
	grep -q "under 2.4-rmap-i386 (the design of the tree's era" "$tmp/2.4.18-14rh-fault.json" ||
		fail "2.4.18 is not priced under its era's design"
	grep -q "under 2.6.7-anon_vma-i386 (the design of the tree's era" "$tmp/2.6.11.12-fault.json" ||
		fail "2.6.11 is not priced under its era's design"
	# 2.4-rmap frees the pte_chain of the mapping a COW leaves: 1, by hand
	[ "$(edge "$tmp/2.4.18-14rh-fault.json" page_remove_rmap pte_chain_free fault)" = 1 ] ||
		fail "2.4.18: the COW's pte_chain free"
	[ "$(edge "$tmp/2.4.18-14rh-reclaim.json" try_to_unmap try_to_unmap_one reclaim)" = 1033 ] ||
		fail "2.4.18: reclaim's chain entries"
fi
tree61=$(sh "$PTSCOPE_TESTS/kernel-source.sh" "$cache") || { cat "$tmp/log"; skip "linux-source-6.1 could not be installed or unpacked"; }
check "$tree61" linux-6.1 || exit 1
# the figures worked out by hand (above) on 6.1's and 6.12's THP calls
# NAME ADD ZAPPER REMOVE PMD-REMOVE DUP UNMAP-REMOVE ('-': the preset stops before it)
thp_calls() {
	[ "$(edge "$tmp/$1-fault.json" __do_huge_pmd_anonymous_page "$2" fault)" = 1 ] || fail "$1: the THP's fault"
	[ "$(edge "$tmp/$1-fault.json" do_anonymous_page "$2" fault)" = 2 ] || fail "$1: the first touches by PTE"
	[ "$(edge "$tmp/$1-exit.json" "$3" "$4" exit)" = 9 ] || fail "$1: exit by PTE"
	[ "$(edge "$tmp/$1-exit.json" zap_huge_pmd "$5" exit)" = 1 ] || fail "$1: the THP's exit"
	[ "$(edge "$tmp/$1-fork.json" copy_huge_pmd "$6" fork)" = 1 ] || fail "$1: the THP's fork"
	[ "$(edge "$tmp/$1-reclaim.json" shrink_folio_list try_to_unmap reclaim)" = 7 ] || fail "$1: reclaim's walks"
	[ "$7" = - ] || [ "$(edge "$tmp/$1-reclaim.json" try_to_unmap_one "$7" reclaim)" = 1033 ] ||
		fail "$1: reclaim's removals"
}
thp_calls linux-6.1 page_add_new_anon_rmap zap_pte_range page_remove_rmap page_remove_rmap page_try_dup_anon_rmap -
tree612=$(sh "$PTSCOPE_TESTS/kernel-source.sh" "$cache" 6.12) || { cat "$tmp/log"; skip "linux-source-6.12 could not be installed or unpacked"; }
check "$tree612" linux-6.12 || exit 1
thp_calls linux-6.12 folio_add_new_anon_rmap zap_present_folio_ptes folio_remove_rmap_ptes folio_remove_rmap_pmd \
	folio_try_dup_anon_rmap_pmd folio_remove_rmap_ptes
[ -z "$missing" ] || { cat "$tmp/log"; skip "no ../shared/kernels tree$missing (SHARED_KERNELS=${SHARED_KERNELS:-unset})"; }
cat "$tmp/log"
