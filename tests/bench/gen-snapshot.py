#!/usr/bin/env python3
"""Generate a large synthetic ptscope snapshot for benchmarks.

    gen-snapshot.py OUT_DIR NPROC [--seed N] [--no-pagemap]

Writes, from the same generated processes:
    OUT_DIR/snapshot.tar   an uncompressed format-1 snapshot (smemcap-compatible)
    OUT_DIR/root/proc/     the same members as files, for `smem -S OUT_DIR/root`
                           (smem reads SOURCE/proc/...); also a directory
                           snapshot that ptscope reads as it is.

Everything comes from NPROC and the seed alone (default 1), never from the
machine it runs on, so every run of `make bench` reads the same bytes: the
same smaps, status, stat and cmdline text (the fields and layout of a 6.1
kernel) and the same tar (fixed mtimes).  Each process maps an executable,
libc (every process: the file a database host's backends all map), a
log-uniform number of other libraries from a pool of 400 (20 to 400 VMAs in
all), anonymous regions, a heap and a stack, at ascending disjoint addresses.
Rss, Pss and the Shared/Private split follow from how many processes map a
library.  Pagemap records (present, PFN 0: `pagemap: present`) cover the Rss
of each VMA from its first page.
"""
import argparse
import io
import math
import os
import random
import struct
import tarfile

PAGE = 4096
MTIME = 1764547200                 # 2025-12-01T00:00:00Z: fixed, so the tar is the same bytes
LIBRARY_POOL = 400
FIELDS = ("Size", "KernelPageSize", "MMUPageSize", "Rss", "Pss", "Pss_Dirty", "Shared_Clean",
          "Shared_Dirty", "Private_Clean", "Private_Dirty", "Referenced", "Anonymous", "KSM",
          "LazyFree", "AnonHugePages", "ShmemPmdMapped", "FilePmdMapped", "Shared_Hugetlb",
          "Private_Hugetlb", "Swap", "SwapPss", "Locked")
FLAGS = {"r--p": "rd mr mw me", "r-xp": "rd ex mr mw me", "rw-p": "rd wr mr mw me ac"}
NAMES = ("postgres", "bash", "sshd", "python3", "nginx", "systemd", "cron", "java", "node", "redis-server")


def make_library(index, rng):
    """One shared library: its path, inode and four segments (pages, perms)."""
    text = int(math.exp(rng.uniform(math.log(4), math.log(2048))))
    return {"path": "/usr/lib/x86_64-linux-gnu/lib%s%d.so.%d" % ("c" if index == 0 else "x", index, index % 7),
            "inode": 100000 + index * 37,
            "segments": [(max(1, text // 8), "r--p"), (text, "r-xp"), (max(1, text // 4), "r--p"),
                         (max(1, text // 16), "rw-p")],
            "resident": rng.uniform(0.02, 0.3)}


def vma_block(start, pages, perms, offset, inode, path, kb):
    """The smaps text of one VMA: header line and every field, in kB."""
    head = "%08x-%08x %s %08x %s %d" % (start, start + pages * PAGE, perms, offset,
                                        "fe:00" if inode else "00:00", inode)
    lines = [(head.ljust(73) + path) if path else head + " "]
    for name in FIELDS:
        lines.append("%-16s%8d kB" % (name + ":", kb.get(name, 0)))
    lines.append("THPeligible:    0")
    lines.append("VmFlags: %s " % FLAGS.get(perms, "rd wr mr mw me ac"))
    return "\n".join(lines) + "\n"


def file_vma(pages, perms, resident, mappers):
    """kB fields of a file VMA mapped by `mappers` processes."""
    rss = max(1, int(pages * resident)) if perms != "rw-p" else pages
    kb = {"Size": pages * 4, "KernelPageSize": 4, "MMUPageSize": 4, "Rss": rss * 4, "Referenced": rss * 4}
    if perms == "rw-p":             # written: private copies
        kb.update(Pss=rss * 4, Pss_Dirty=rss * 4, Private_Dirty=rss * 4, Anonymous=rss * 4)
    elif mappers > 1:
        kb.update(Pss=rss * 4 // mappers, Shared_Clean=rss * 4)
    else:
        kb.update(Pss=rss * 4, Private_Clean=rss * 4)
    return rss, kb


def anon_vma(pages, resident):
    rss = int(pages * resident)
    return rss, {"Size": pages * 4, "KernelPageSize": 4, "MMUPageSize": 4, "Rss": rss * 4, "Pss": rss * 4,
                 "Pss_Dirty": rss * 4, "Private_Dirty": rss * 4, "Referenced": rss * 4, "Anonymous": rss * 4}


def records(start, pages):
    """Pagemap records of `pages` present pages from `start`: {vaddr, 1 << 63}."""
    words = []
    for i in range(pages):
        words.append(start + i * PAGE)
        words.append(1 << 63)
    return struct.pack("<%dQ" % len(words), *words)


def plan_libraries(rng):
    """The libraries one process maps: libc and a log-uniform number of others
    (20 to 400 VMAs in all, about five per library)."""
    want = int(math.exp(rng.uniform(math.log(20), math.log(400))))
    return [0] + sorted(rng.sample(range(1, LIBRARY_POOL), min(LIBRARY_POOL - 1, max(0, (want - 12) // 5))))


def make_process(pid, ppid, chosen, libraries, mappers, rng, with_pagemap):
    blocks, pagemap, vmas, windows = [], [], 0, set()
    at = 0x555555554000 + rng.randrange(0, 1 << 20) * PAGE

    def add(pages, perms, offset, inode, path, rss, kb):
        nonlocal at, vmas
        blocks.append(vma_block(at, pages, perms, offset, inode, path, kb))
        if rss:
            windows.update(range(at >> 21, ((at + (rss - 1) * PAGE) >> 21) + 1))
            if with_pagemap:
                pagemap.append(records(at, rss))
        at += pages * PAGE
        vmas += 1

    exe_pages = rng.randint(8, 512)
    exe_path = "/usr/bin/" + NAMES[pid % len(NAMES)]
    for pages, perms in ((exe_pages // 4 + 1, "r--p"), (exe_pages, "r-xp"), (exe_pages // 8 + 1, "r--p")):
        if perms == "r-xp":         # stat's start_code and end_code: the text, as the kernel says
            code = (at, at + pages * PAGE)
        add(pages, perms, 0, 5000 + pid % len(NAMES), exe_path, *file_vma(pages, perms, 0.5, 2))
    heap = rng.randint(32, 4096)
    at += rng.randint(1, 64) * PAGE
    add(heap, "rw-p", 0, 0, "[heap]", *anon_vma(heap, rng.uniform(0.1, 0.9)))
    at = 0x7f0000000000 + rng.randrange(0, 1 << 24) * PAGE
    for index in chosen:
        library = libraries[index]
        offset = 0
        for pages, perms in library["segments"]:
            add(pages, perms, offset * PAGE, library["inode"], library["path"],
                *file_vma(pages, perms, library["resident"], mappers[index]))
            offset += pages
        if rng.random() < 0.5:      # an anonymous region between libraries
            pages = rng.randint(1, 2048)
            add(pages, "rw-p", 0, 0, "", *anon_vma(pages, rng.uniform(0.0, 1.0)))
        at += rng.randint(1, 16) * PAGE
    stack = rng.randint(33, 2048)
    at = 0x7ffc00000000 + rng.randrange(0, 1 << 20) * PAGE
    start_stack = at + (stack - 1) * PAGE + rng.randrange(0, PAGE, 16)
    add(stack, "rw-p", 0, 0, "[stack]", *anon_vma(stack, 0.1))
    at += 16 * PAGE
    add(4, "r--p", 0, 0, "[vvar]", 0, {"Size": 16, "KernelPageSize": 4, "MMUPageSize": 4})
    add(2, "r-xp", 0, 0, "[vdso]", *file_vma(2, "r-xp", 1.0, 2))
    rss_kb = sum(int(b.split("Rss:", 1)[1].split("kB", 1)[0]) for b in blocks)
    pte_kb = 4 * len(windows)    # one PTE page per 2 MiB window with a resident page
    name = NAMES[pid % len(NAMES)]
    status = ("Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\nTgid:\t%d\nNgid:\t0\nPid:\t%d\nPPid:\t%d\n"
              "TracerPid:\t0\nUid:\t%d\t%d\t%d\t%d\nGid:\t%d\t%d\t%d\t%d\nFDSize:\t64\nGroups:\t \n"
              "NStgid:\t%d\nNSpid:\t%d\nNSpgid:\t%d\nNSsid:\t%d\nVmPeak:\t%8d kB\nVmSize:\t%8d kB\n"
              "VmLck:\t       0 kB\nVmPin:\t       0 kB\nVmHWM:\t%8d kB\nVmRSS:\t%8d kB\nRssAnon:\t%8d kB\n"
              "RssFile:\t%8d kB\nRssShmem:\t       0 kB\nVmData:\t%8d kB\nVmStk:\t%8d kB\nVmExe:\t%8d kB\n"
              "VmLib:\t%8d kB\nVmPTE:\t%8d kB\nVmSwap:\t       0 kB\nHugetlbPages:\t       0 kB\n"
              "CoreDumping:\t0\nTHP_enabled:\t1\nThreads:\t1\nSigQ:\t0/96362\nSigPnd:\t0000000000000000\n"
              "ShdPnd:\t0000000000000000\nSigBlk:\t0000000000000000\nSigIgn:\t0000000000001000\n"
              "SigCgt:\t0000000180000002\nCapInh:\t0000000000000000\nCapPrm:\t0000000000000000\n"
              "CapEff:\t0000000000000000\nCapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\n"
              "NoNewPrivs:\t0\nSeccomp:\t0\nSeccomp_filters:\t0\nSpeculation_Store_Bypass:\tvulnerable\n"
              "Cpus_allowed:\t3\nCpus_allowed_list:\t0-1\nMems_allowed:\t00000001\nMems_allowed_list:\t0\n"
              "voluntary_ctxt_switches:\t%d\nnonvoluntary_ctxt_switches:\t%d\n"
              % (name, pid, pid, ppid, 100 + pid % 3, 100 + pid % 3, 100 + pid % 3, 100 + pid % 3,
                 100, 100, 100, 100, pid, pid, pid, pid, rss_kb * 3, rss_kb * 2, rss_kb, rss_kb, rss_kb // 3,
                 rss_kb - rss_kb // 3, heap * 4, stack * 4, exe_pages * 4, rss_kb // 2, pte_kb,
                 rng.randint(0, 100000), rng.randint(0, 1000)))
    # start_code, end_code and start_stack lie in the text and the stack (info --verify checks them)
    stat = ("%d (%s) S %d %d %d 0 -1 4194560 %d 0 0 0 %d %d 0 0 20 0 1 0 %d %d %d 18446744073709551615 "
            "%d %d %d 0 0 0 0 4096 134234626 0 0 0 17 %d 0 0 0 0 0 "
            "94035458772016 94035458773632 94036248301568 140735297866183 140735297866203 140735297866203 "
            "140735297867755 0\n" % (pid, name, ppid, ppid, ppid, rng.randint(100, 99999), rng.randint(0, 9999),
                                     rng.randint(0, 9999), 1000 + pid, rss_kb * 3 * 1024, rss_kb // 4,
                                     code[0], code[1], start_stack, pid % 2))
    cmdline = ("%s\0--worker\0%d\0" % (exe_path, pid)).encode()
    return vmas, {"smaps": "".join(blocks).encode(), "status": status.encode(), "stat": stat.encode(),
                  "cmdline": cmdline, "pagemap": b"".join(pagemap)}


SYSTEM = {
    "version": b"Linux version 6.1.0-synthetic (bench@ptscope) (gcc 12.2.0) #1 SMP PREEMPT_DYNAMIC\n",
    "meminfo": ("MemTotal:       25165824 kB\nMemFree:         8388608 kB\nMemAvailable:   16777216 kB\n"
                "Buffers:          262144 kB\nCached:          6291456 kB\nSwapCached:            0 kB\n"
                "AnonPages:       6291456 kB\nMapped:          1048576 kB\nShmem:            131072 kB\n"
                "PageTables:       524288 kB\nSwapTotal:             0 kB\nSwapFree:              0 kB\n"
                "Hugepagesize:       2048 kB\n").encode(),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("nproc", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-pagemap", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    libraries = [make_library(i, rng) for i in range(LIBRARY_POOL)]
    # which process maps which library is drawn first, so Pss can follow it
    plans = [plan_libraries(rng) for _ in range(args.nproc)]
    mappers = [0] * LIBRARY_POOL
    for chosen in plans:
        for index in chosen:
            mappers[index] += 1

    proc_dir = os.path.join(args.out_dir, "root", "proc")
    os.makedirs(proc_dir, exist_ok=True)
    tar_path = os.path.join(args.out_dir, "snapshot.tar")
    total_vmas = 0
    with tarfile.open(tar_path + ".tmp", "w", format=tarfile.USTAR_FORMAT) as tar:
        def add(name, data):
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), MTIME, 0o444
            tar.addfile(info, io.BytesIO(data))
            with open(os.path.join(proc_dir, name), "wb") as f:
                f.write(data)

        for name, data in SYSTEM.items():
            add(name, data)
        for i in range(args.nproc):
            pid = 1000 + i
            ppid = 1 if i % 50 == 0 else 1000 + (i // 50) * 50  # trees of 50
            process_rng = random.Random(args.seed * 1000003 + i)
            count, files = make_process(pid, ppid, plans[i], libraries, mappers, process_rng, not args.no_pagemap)
            total_vmas += count
            os.makedirs(os.path.join(proc_dir, str(pid)), exist_ok=True)
            info = tarfile.TarInfo(str(pid))
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o555, MTIME
            tar.addfile(info)
            for name in ("smaps", "status", "stat", "cmdline", "pagemap"):
                if name == "pagemap" and args.no_pagemap:
                    continue
                add("%d/%s" % (pid, name), files[name])
        snapshot_info = ("format: ptscope-snapshot 1\npage_size: %d\narch: x86_64\nkernel: 6.1.0-synthetic\n"
                         "hostname: synthetic\ncaptured_at: 2025-12-01T00:00:00Z\npagemap: %s\nprocesses: %d\n"
                         "skipped: 0\n" % (PAGE, "none" if args.no_pagemap else "present", args.nproc))
        add("snapshot.info", snapshot_info.encode())
    os.rename(tar_path + ".tmp", tar_path)
    print("gen-snapshot: %d processes, %d VMAs, seed %d -> %s (%d bytes)"
          % (args.nproc, total_vmas, args.seed, tar_path, os.path.getsize(tar_path)))


if __name__ == "__main__":
    main()
