#!/usr/bin/env python3
"""readme-figures.py MEASUREMENTS README: write the README's figures (between
its two figures markers) from MEASUREMENTS (docs/measurements.md, written
whole by make bench), so that the README quotes that one run and carries no
figure of its own.  A row or line missing from MEASUREMENTS is an error."""
import os
import re
import sys
import textwrap

m = open(sys.argv[1]).read()
readme_path = sys.argv[2]
r = open(readme_path).read()
rows = [l for l in m.split("\n## Ratios", 1)[1].split("\n## ", 1)[0].splitlines() if l.startswith("| ") and not l.startswith("| work")]
def row(prefix):
    for l in rows:
        if l.startswith("| " + prefix):
            return [c.strip() for c in l.strip().strip("|").split("|")]
    raise SystemExit("readme-figures: %s: no row '%s' in its Ratios table" % (sys.argv[1], prefix))
def ratio(prefix):
    return row(prefix)[4].split(" (")[0]
run = re.search(r"^- run: (\S+), (.*?) \(", m, re.M)
date = run.group(1)[:16].replace("T", " ") + " UTC"
load = re.search(r"^- load average \(1, 5, 15 min\): (.*)$", m, re.M).group(1)
mean = re.search(r"([0-9.]+) mean", load).group(1)
fork = row("fork part of")
exitp = row("exit part of")
def meas(c): return c[2].replace(" us", "")
def pred(c): return c[3].replace(" us", "")
def pct(c):
    mv = float(meas(c)); pv = float(pred(c).split(" +-")[0]); return "%+.0f %%" % (100 * (mv - pv) / pv)
xf = re.search(r"fork of pid 3074 \(xfce4-session\): (.*?) today, (.*?) with shared page tables \(shpt-2006\) \((.*?)\)", m)
if not xf:
    raise SystemExit("readme-figures: %s: no fork of pid 3074 (xfce4-session) in bench-time" % sys.argv[1])
rep = {
 "info": ratio("info, 2000 processes"), "text": ratio("info, text only ("), "smem": ratio("smem -S DIR"),
 "linefloor": ratio("line floor:"), "textfloor": ratio("info, text only, "),
 "numberfloor": ratio("number floor:"), "vmafloor": ratio("VMA floor:"),
 "textvma": ratio("info, text only, 2000 processes, against the VMA"),
 "r2000": ratio("report, generated, 2000"), "r4000": ratio("report, generated, 4000 processes (libc"),
 "r4000text": ratio("report, generated, no pagemap records, 4000"),
 "r4000verify": ratio("report, generated, 4000 processes, against reading"),
 "cap": ratio("capture --tree, 4096 MiB"), "none": ratio("capture --tree --compress none, 4096 MiB"),
 "verify": ratio("report, 4096 MiB"), "cold": ratio("callgraph of linux-source-6.1 ("),
 "warm": row("callgraph of linux-source-6.1, warm")[2].split(" s")[0],
}
bpr = row("snapshot bytes per page record, 4096")[2]
ext = row("64 GiB shared x 1000")[2]
speed = f"""### How fast

Measured side by side by `make bench` ({date}, a shared 2-CPU VM at load average {mean}: CPU
seconds, ratios of alternating pairs; every figure and its method in
[`docs/measurements.md`](docs/measurements.md)): `info` reads a 2000-process snapshot in
{rep['info']} the CPU time of `cat` reading the same tar, {rep['text']} without pagemap records (every byte
text to parse; finding each line's end and nothing more takes {rep['linefloor']}, reading each counter's number
too {rep['numberfloor']}, holding each VMA as info does too {rep['vmafloor']} (fresh memory is dear on this VM), so info
is {rep['textfloor']} that line floor and {rep['textvma']} that VMA floor; `smem -S` takes {rep['smem']} ptscope's); `report` takes {rep['r2000']} `info`'s time on it
and {rep['r4000']} on 4000 processes that all map one libc ({rep['r4000text']} without pagemap records,
the passes over VMAs, files and processes alone; {rep['r4000verify']} of `info --verify`, which reads
every record too); capturing 4 GiB shared by 48 processes takes {rep['cap']} the kernel's read floor with zstd,
{rep['none']} with `--compress none` ({bpr} per page record); a cold call graph of Debian's 6.1 mm
takes {rep['cold']} the CPU time of `clang -fsyntax-only` over the same files, a warm one {rep['warm']} s.
64 GiB shared by 1000 processes, extrapolated: {ext}.
"""
fork_para = f"""`bench fork --like` rebuilds the process in ptscope-subject (a small static helper: 11 VMAs of its
own) and times its fork, fastest of 200 runs in CPU time, beside the calibration's prediction:
fork() {meas(fork)} us measured, {pred(fork)} predicted ({pct(fork)}); the child's exit {meas(exitp)} us, {pred(exitp)} ({pct(exitp)}).
`report` prices the same process today and under each sharing rule: "fork of pid 3074
(xfce4-session): {xf.group(1)} today, {xf.group(2)} with shared page tables (shpt-2006) ({xf.group(3)})"
(fork + exit, CPU). Today is measured and predicted; shpt-2006 is predicted only (no kernel of
today can run it). Figures: `make bench`, {date}, in docs/measurements.md (bench-time), which
also prints the fitted cost of each step and three held-out layouts predicted beside measured.
"""
BEGIN = "<!-- figures: written by make bench from docs/measurements.md (tests/bench/readme-figures.py) -->\n"
END = "<!-- end of figures -->\n"
if BEGIN not in r or END not in r:
    raise SystemExit("readme-figures: %s: no figures markers" % readme_path)
a = r.index(BEGIN) + len(BEGIN)
b = r.index(END)
def fill(t): return textwrap.fill(" ".join(t.split()), width=100, break_long_words=False, break_on_hyphens=False) + "\n"
head, body = speed.split("\n\n", 1)
r = r[:a] + fill(fork_para) + "\n" + head + "\n\n" + fill(body) + r[b:]
with open(readme_path + ".tmp", "w") as out:
    out.write(r)
os.replace(readme_path + ".tmp", readme_path)
