#!/bin/sh
# The reason behind a zero (issue 21, item 2): a sharing rule that saves
# nothing says why, with counts, the same words in text, JSON and HTML.  The
# counts are worked out here from the snapshot's own smaps: desktop's
# shpt-2006 (file-backed or shared or read-only, no pf/io, at least 2 MiB)
# has 46 eligible VMAs, 42 with a whole 2 MiB window, in 11 groups (same
# file, offset, length, permissions) mapped by several processes, each at a
# different address in every process; the aligned what-if shares 80 pages.
# hugetlb-pmd finds no hugetlbfs mapping (no "ht" in any VmFlags).
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v python3 > /dev/null || skip "no python3"
for name in pg32 desktop; do
	unpack_reports "$name"
	python3 - "$tmp/$name" "$tmp/$name.json" "$tmp/$name.txt" "$tmp/$name.html" "$name" <<'PY' || fail "$name: the reasons"
import glob, html, json, os, re, sys
folder, report, text, page, name = sys.argv[1:]
# the census of shpt-2006, from smaps alone
vmas = []
for smaps in glob.glob(folder + "/**/smaps", recursive=True):
    pid = os.path.basename(os.path.dirname(smaps))
    current = None
    for line in open(smaps, errors="replace"):
        m = re.match(r"([0-9a-f]+)-([0-9a-f]+) (\S{4}) ([0-9a-f]+) ([0-9a-f]+):([0-9a-f]+) (\d+)", line)
        if m:
            start, end = int(m[1], 16), int(m[2], 16)
            current = dict(pid=pid, start=start, end=end, perms=m[3], offset=int(m[4], 16),
                           dev=(m[5], m[6]), inode=int(m[7]), flags=set())
            vmas.append(current)
        elif line.startswith("VmFlags:") and current:
            current["flags"] = set(line.split()[1:])
W = 2 << 20
def eligible(v):
    if v["inode"] == 0 or v["flags"] & {"pf", "io"}:
        return False
    if v["perms"][1] == "w" and v["perms"][3] != "s":
        return False
    return v["end"] - v["start"] >= W
el = [v for v in vmas if eligible(v)]
win = [v for v in el if (v["start"] + W - 1) // W < v["end"] // W]
groups = {}
for v in win:
    groups.setdefault((v["dev"], v["inode"], v["offset"], v["end"] - v["start"], v["perms"]), []).append(v)
several = [g for g in groups.values() if len({v["pid"] for v in g}) >= 2]
apart = [g for g in several if len({v["start"] for v in g}) == len(g)]
r = json.load(open(report))
rules = {s["id"]: s for s in r["sharing"]}
c = rules["shpt-2006"]["census"]
assert (c["eligible_vmas"], c["window_vmas"], c["file_groups"], c["file_groups_apart"]) == \
       (len(el), len(win), len(several), len(apart)), (c, len(el), len(win), len(several), len(apart))
if name == "desktop":
    assert (len(el), len(win), len(several), len(apart)) == (46, 42, 11, 11)
    want = ("46 eligible VMAs (42 with a whole 2.0 MiB window) in 11 groups mapped by several processes; every "
            "group is mapped at a different address in each process (address-space randomisation); the aligned "
            "what-if (aligned-what-if) would share 80 pages")
    assert rules["shpt-2006"]["why_zero"] == want, rules["shpt-2006"]["why_zero"]
    assert rules["aligned-what-if"]["pages"] == 80
else:
    assert "why_zero" not in rules["shpt-2006"] and rules["shpt-2006"]["pages"] == 1773
assert not any("ht" in v["flags"] for v in vmas)
assert rules["hugetlb-pmd"]["why_zero"] == "no hugetlbfs mapping in this snapshot"
assert all("why_zero" not in s for s in r["sharing"] if s["pages"] > 0)
# the same words in the text (wrapped) and the HTML
flat = " ".join(open(text).read().split())
doc = html.unescape(open(page).read())
for s in r["sharing"]:
    if "why_zero" in s:
        assert "why 0: " + s["why_zero"] in flat, s["id"]
        assert "<td>" + s["why_zero"] + "</td>" in doc, s["id"]
PY
done
exit 0
