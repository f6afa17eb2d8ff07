#!/usr/bin/env python3
"""Write a small snapshot directory whose figures can be worked by hand.

usage: tiny-snapshot.py DIR [--host NAME] [--at TIME] [--processes N] [--cgroup]

Each process i (pid 100+i, uid 1000+i%2) maps one file VMA of 4 pages at
0x7f0000000000 (16 KiB, r-xp, /usr/lib/libtiny.so, inode 1234) whose pages are
PFNs 0x100..0x103, present, file-backed.  kpages gives each PFN mapcount 2
(a second mapping outside the snapshot), flags 0.  MemTotal is 8 GiB.
With --cgroup each process gets PID/cgroup "0::/tiny/slice-(i%2)".
The format is docs/snapshot-format.md.
"""
import os
import struct
import sys

args = sys.argv[1:]
out = args.pop(0)
opts = {"--host": "tiny", "--at": "2026-12-01T08:00:00Z", "--processes": "1"}
cgroup = False
while args:
    a = args.pop(0)
    if a == "--cgroup":
        cgroup = True
    else:
        opts[a] = args.pop(0)
count = int(opts["--processes"])
os.makedirs(out, exist_ok=True)


def write(name, data, mode="w"):
    with open(os.path.join(out, name), mode) as f:
        f.write(data)


write("snapshot.info", "format: ptscope-snapshot 1\npage_size: 4096\narch: x86_64\n"
      "kernel: 6.1.0-tiny\nhostname: %s\ncaptured_at: %s\npagemap: pfn\nprocesses: %d\nskipped: 0\n"
      % (opts["--host"], opts["--at"], count))
write("version", "Linux version 6.1.0-tiny (tests@kit) #1 SMP\n")
write("meminfo", "MemTotal:        8388608 kB\nMemFree:         4194304 kB\n")
fields = ["Size", "KernelPageSize", "MMUPageSize", "Rss", "Pss", "Pss_Dirty", "Shared_Clean",
          "Shared_Dirty", "Private_Clean", "Private_Dirty", "Referenced", "Anonymous", "KSM",
          "LazyFree", "AnonHugePages", "ShmemPmdMapped", "FilePmdMapped", "Shared_Hugetlb",
          "Private_Hugetlb", "Swap", "SwapPss", "Locked"]
base = 0x7f0000000000
for i in range(count):
    pid = 100 + i
    os.makedirs(os.path.join(out, str(pid)), exist_ok=True)
    # the 4 pages are mapped twice system-wide: Pss is half of Rss
    values = {"Size": 16, "KernelPageSize": 4, "MMUPageSize": 4, "Rss": 16, "Pss": 8,
              "Shared_Clean": 16, "Referenced": 16}
    smaps = "%x-%x r-xp 00000000 08:01 1234                       /usr/lib/libtiny.so\n" % (base, base + 0x4000)
    smaps += "".join("%s: %d kB\n" % (f, values.get(f, 0)) for f in fields)
    smaps += "THPeligible: 0\nVmFlags: rd ex mr mw me\n"
    write("%d/smaps" % pid, smaps)
    write("%d/status" % pid, "Name:\ttiny\nUid:\t%d\t%d\t%d\t%d\nVmRSS:\t16 kB\nRssAnon:\t0 kB\n"
          "RssFile:\t16 kB\nRssShmem:\t0 kB\nVmPTE:\t12 kB\nVmSwap:\t0 kB\n" % ((1000 + i % 2,) * 4))
    write("%d/stat" % pid, "%d (tiny) S 1 %d %d 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 100 16384 4 0\n" % (pid, pid, pid))
    write("%d/cmdline" % pid, "tiny\0--worker\0%d\0" % i)
    records = b"".join(struct.pack("<QQ", base + k * 4096, (1 << 63) | (1 << 61) | (0x100 + k)) for k in range(4))
    write("%d/pagemap" % pid, records, "wb")
    if cgroup:
        write("%d/cgroup" % pid, "0::/tiny/slice-%d\n" % (i % 2))
write("kpages", b"".join(struct.pack("<QQQ", 0x100 + k, 2, 0) for k in range(4)), "wb")
