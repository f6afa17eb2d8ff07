#!/bin/sh
# What a user can do today (issue 21, item 1), worked out here from the
# snapshots' own smaps and pagemap records (16-byte vaddr, entry pairs):
#  - pg32's shared buffers, /dev/zero (deleted) 0x7fef10fd3000-0x7fef335e9000
#    = 576,806,912 B in 38 processes: 1,843 PTE pages map it now; on 2 MiB
#    huge pages the 1,774 whose windows hold nothing else go (6.9 MiB); a
#    backend that touches all of it adds 276 PTE pages (one per 2 MiB window
#    it spans) = 1,130,496 B; no whole 1 GiB window lies inside it, so
#    hugetlb PMD sharing adds nothing;
#  - the same recount for every segment of desktop;
#  - every rule says whether a kernel one can run has it, from the profiles'
#    XML: hugetlb-pmd mainline since 2.6.20, shpt-2006 and mshare proposals;
#  - the text report leads with the "today:" sentence, and JSON, HTML and
#    --brief carry it.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v python3 > /dev/null || skip "no python3"
for name in pg32 desktop; do
	unpack_reports "$name"
	"$PTSCOPE" report "$SHARED_SNAPSHOTS/$name.tar.gz" --brief > "$tmp/$name.brief" || fail "$name brief"
	python3 - "$tmp/$name" "$tmp/$name" "$name" <<'PY' || fail "$name: today's figures"
import glob, html, json, os, re, struct, sys
folder, out, name = sys.argv[1:]
W, G = 2 << 20, 1 << 30
segments = {}
for smaps in glob.glob(folder + "/**/smaps", recursive=True):
    d = os.path.dirname(smaps)
    records = {}
    data = open(d + "/pagemap", "rb").read() if os.path.exists(d + "/pagemap") else b""
    for i in range(0, len(data), 16):
        v, e = struct.unpack_from("<QQ", data, i)
        records.setdefault(v // W, []).append(v)
    for line in open(smaps, errors="replace"):
        m = re.match(r"([0-9a-f]+)-([0-9a-f]+) (\S{4}) ([0-9a-f]+) ([0-9a-f]+):([0-9a-f]+) (\d+)", line)
        if not m:
            continue
        s, e, perms = int(m[1], 16), int(m[2], 16), m[3]
        if perms[1] != "w" or perms[3] != "s" or int(m[5], 16) != 0 or e - s < W:
            continue
        g = segments.setdefault((m[6], int(m[7])), dict(bytes=0, processes=0, now=0, saved=0, touch=0, whole=[]))
        g["bytes"] = max(g["bytes"], e - s)
        g["processes"] += 1
        g["touch"] = max(g["touch"], (e - 1) // W - s // W + 1)
        for w in range(s // W, (e - 1) // W + 1):
            if w in records:
                g["now"] += 1
                g["saved"] += all(s <= v < e for v in records[w])
        g["whole"] += [int(m[4], 16) + w * G - s for w in range((s + G - 1) // G, e // G)]
r = json.load(open(out + ".json"))
today = r["today"]
got = {(x["inode"]): x for x in today["segments"]}
assert len(got) == len(segments), (len(got), len(segments))
for (dev, inode), g in segments.items():
    x = got[inode]
    assert (x["bytes"], x["processes"], x["pte_pages"], x["pte_pages_saved_on_pmd_size_pages"], x["touch_all_pte_pages"]) == \
           (g["bytes"], g["processes"], g["now"], g["saved"], g["touch"]), (x, g)
    assert x["touch_all_bytes"] == 4096 * g["touch"]
    assert x["pmd_pages_saved_by_hugetlb_pmd_sharing"] == len(g["whole"]) - len(set(g["whole"]))
if name == "pg32":
    x = today["segments"][0]
    assert (x["path"], x["bytes"], x["processes"], x["pte_pages"], x["pte_pages_saved_on_pmd_size_pages"],
            x["touch_all_bytes"], x["pmd_pages_saved_by_hugetlb_pmd_sharing"]) == \
           ("/dev/zero (deleted)", 576806912, 38, 1843, 1774, 1130496, 0), x
    want = ("today: /dev/zero (deleted) (550.1 MiB, 38 processes) on 2.0 MiB huge pages would free 1,774 PTE "
            "pages = 6.9 MiB of the 11.3 MiB of page tables")
    assert today["text"].startswith(want), today["text"]
kernel = {s["id"]: (s["kernel"], s.get("since")) for s in r["sharing"]}
assert kernel["hugetlb-pmd"] == ("mainline", "2.6.20") and kernel["shpt-2006"] == ("proposal", None) and \
       kernel["mshare"] == ("proposal", None) and kernel["identical"][0] == "bound", kernel
if "text" in today:
    flat = " ".join(open(out + ".txt").read().split())
    lines = open(out + ".txt").read().split("\n")
    assert lines[2].startswith("today: "), lines[2]          # the lead, after the two lines of what was read
    assert today["text"] in flat
    assert today["text"] in " ".join(open(out + ".brief").read().split())
    assert html.escape(today["text"], quote=False) in open(out + ".html").read()
assert "sharing rules in kernels you can run: hugetlb-pmd (since 2.6.20)" in " ".join(open(out + ".txt").read().split())
PY
done
exit 0
