#!/usr/bin/env python3
"""Regenerate tests/fixtures/report-snapshot/, the snapshot the report
writers' unit tests read (tests/unit/test_report.c), from tests/fixtures/proc/.

usage: report-snapshot.py [OUT_DIR]     (default: tests/fixtures/report-snapshot)

Two processes, pids 5969 and 5970, both made from the one `sleep` process of
tests/fixtures/proc (smaps, stat, status, cmdline copied; 5970 differs only in
its pid), siblings under the shell 5965, which is not captured (so no fork
depth).  To give the address-partner sharing rules something to share, both
smaps gain one VMA the real process did not have: 4 MiB of
/usr/lib/locale/locale-archive, r--p, at the 2 MiB-aligned 0x7fd9d8000000, two
pages present (one in each of its two 2 MiB windows); status VmPTE, VmRSS,
RssFile, VmSize and VmPeak grow by what that VMA adds (2 PTE pages = 8 kB,
2 pages = 8 kB, 4096 kB), so VmPTE still matches the page tables to the page.

Pagemap (docs/snapshot-format.md, "Binary members"): in every VMA, Rss/4 KiB
records, spread evenly over its pages (page floor(k * pages / present) for the
k-th); the first Anonymous/4 KiB of them anonymous (exclusive, bit 56; PFN
0x800000 + 0x10000 * process + n), the others file pages (bit 61; PFN
0x100000 + 0x10000 * file + page index in the file, the same in both
processes).  kpages: every PFN, mapcount = the records that map it (2 for file
pages, 1 for anonymous ones), flags LRU (bit 5), plus ANON (bit 12) for
anonymous pages.  slabinfo keeps its two header lines and the three caches the
model counts; meminfo and version are copied whole.
"""
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROC = os.path.join(HERE, "..", "fixtures", "proc")
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "fixtures", "report-snapshot")
PIDS = (5969, 5970)
PAGE = 4096
HEADER = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) ([0-9a-f]+) (\S+) (\d+)\s*(.*)$")
PRESENT, FILE_PAGE, EXCLUSIVE = 1 << 63, 1 << 61, 1 << 56
KPF_LRU, KPF_ANON = 1 << 5, 1 << 12

ADDED_VMA = """7fd9d8000000-7fd9d8400000 r--p 00000000 fe:00 320472                     /usr/lib/locale/locale-archive
Size:               4096 kB
KernelPageSize:        4 kB
MMUPageSize:           4 kB
Rss:                   8 kB
Pss:                   4 kB
Pss_Dirty:             0 kB
Shared_Clean:          8 kB
Shared_Dirty:          0 kB
Private_Clean:         0 kB
Private_Dirty:         0 kB
Referenced:            8 kB
Anonymous:             0 kB
KSM:                   0 kB
LazyFree:              0 kB
AnonHugePages:         0 kB
ShmemPmdMapped:        0 kB
FilePmdMapped:         0 kB
Shared_Hugetlb:        0 kB
Private_Hugetlb:       0 kB
Swap:                  0 kB
SwapPss:               0 kB
Locked:                0 kB
THPeligible:           0
VmFlags: rd mr mw me 
"""
ADDED_START = 0x7fd9d8000000


def read(name, mode="r"):
    with open(os.path.join(PROC, name), mode) as f:
        return f.read()


def write(name, data, mode="w"):
    path = os.path.join(OUT, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(data)


def with_added_vma(smaps):
    """The smaps text with ADDED_VMA in address order."""
    lines = smaps.splitlines(True)
    for i, line in enumerate(lines):
        m = HEADER.match(line)
        if m and int(m.group(1), 16) > ADDED_START:
            return "".join(lines[:i]) + ADDED_VMA + "".join(lines[i:])
    return smaps + ADDED_VMA


def vmas(smaps):
    """[(start, end, offset, dev:inode or path, rss_kb, anonymous_kb)] in order."""
    result = []
    for line in smaps.splitlines():
        m = HEADER.match(line)
        if m:
            key = m.group(5) + ":" + m.group(6) if m.group(6) != "0" else m.group(7)
            result.append([int(m.group(1), 16), int(m.group(2), 16), int(m.group(4), 16), key, 0, 0])
        elif line.startswith("Rss:"):
            result[-1][4] = int(line.split()[1])
        elif line.startswith("Anonymous:"):
            result[-1][5] = int(line.split()[1])
    return result


def pagemap(process, regions, files, kpages):
    records, anon = [], 0
    for start, end, offset, key, rss_kb, anon_kb in regions:
        pages, present, anonymous = (end - start) // PAGE, rss_kb * 1024 // PAGE, anon_kb * 1024 // PAGE
        for k in range(present):
            index = k * pages // present
            if k < anonymous:
                pfn = 0x800000 + 0x10000 * process + anon
                anon += 1
                entry, flags = PRESENT | EXCLUSIVE | pfn, KPF_LRU | KPF_ANON
            else:
                file = files.setdefault(key, len(files))
                pfn = 0x100000 + 0x10000 * file + offset // PAGE + index
                entry, flags = PRESENT | FILE_PAGE | pfn, KPF_LRU
            records.append(struct.pack("<QQ", start + index * PAGE, entry))
            count = kpages.get(pfn, (0, flags))[0]
            kpages[pfn] = (count + 1, flags)
    return b"".join(records)


def status(text, pid):
    grow = {"VmPTE": 8, "VmRSS": 8, "VmHWM": 8, "RssFile": 8, "VmSize": 4096, "VmPeak": 4096}
    out = []
    for line in text.splitlines(True):
        name = line.split(":")[0]
        if name in ("Pid", "Tgid", "NStgid", "NSpid"):
            line = "%s:\t%d\n" % (name, pid)
        elif name in grow:
            line = "%s:\t%8d kB\n" % (name, int(line.split()[1]) + grow[name])
        out.append(line)
    return "".join(out)


def main():
    version = read("version")
    kernel = version.split()[2]
    write("snapshot.info", "format: ptscope-snapshot 1\npage_size: 4096\narch: x86_64\nkernel: %s\n"
          "hostname: report-fixture\ncaptured_at: 2026-12-01T09:00:00Z\npagemap: pfn\nprocesses: %d\n"
          "skipped: 0\nchanged_during_capture: 0\nkernel_threads: 0\nzombies: 0\nunreadable: 0\n"
          % (kernel, len(PIDS)))
    write("version", version)
    write("meminfo", read("meminfo"))
    slab = read("slabinfo").splitlines(True)
    write("slabinfo", "".join(slab[:2] + [l for l in slab[2:]
                                          if l.split()[0] in ("anon_vma", "anon_vma_chain", "vm_area_struct")]))
    smaps = with_added_vma(read("sleep.smaps"))
    stat = read("sleep.stat")
    files, kpages = {}, {}
    for process, pid in enumerate(PIDS):
        write("%d/smaps" % pid, smaps)
        write("%d/stat" % pid, re.sub(r"^\d+", str(pid), stat))
        write("%d/status" % pid, status(read("sleep.status"), pid))
        write("%d/cmdline" % pid, read("sleep.cmdline", "rb"), "wb")
        write("%d/pagemap" % pid, pagemap(process, vmas(smaps), files, kpages), "wb")
    write("kpages", b"".join(struct.pack("<QQQ", pfn, count, flags)
                             for pfn, (count, flags) in sorted(kpages.items())), "wb")


main()
