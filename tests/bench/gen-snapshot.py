#!/usr/bin/env python3
"""Generate a large synthetic ptscope snapshot for benchmarks.

    gen-snapshot.py OUT_DIR NPROC [--seed N] [--no-pagemap]

Writes, from the same generated processes:
    OUT_DIR/snapshot.tar   an uncompressed format-1 snapshot (smemcap-compatible)
    OUT_DIR/root/proc/     the same members as files, for `smem -S OUT_DIR/root`
                           (smem reads SOURCE/proc/...); also a directory
                           snapshot that ptscope reads as it is.

The text is real: every VMA block is copied from the smaps of a process
running on this machine (all its fields and VmFlags), as are status, stat and
cmdline.  Each synthetic process takes one real process as its template, keeps
its VMAs and adds copies of other real VMA blocks (libraries, anonymous
regions) until it has a drawn number of VMAs (log-uniform, 20 to 400), placed
in a gap below the template's mmap area so that addresses stay ascending and
disjoint.  Pagemap records (present, PFN 0: `pagemap: present`) cover the
Rss of each VMA from its first page.  The random choices use a fixed seed.
"""
import argparse
import io
import math
import os
import random
import re
import struct
import tarfile
import time

HEADER = re.compile(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) (\S+) (\S+) (\S+)\s*(.*)$")
PAGE = 4096
EXTRA_BASE = 0x600000000000  # extra VMAs go here: below glibc's mmap base, above the heap


def read(path, mode="r"):
    try:
        with open(path, mode) as f:
            return f.read()
    except OSError:
        return None


def split_blocks(smaps):
    """[(start, end, perms, offset, dev, inode, path, field_text)] of one smaps text."""
    blocks, current = [], None
    for line in smaps.splitlines(True):
        m = HEADER.match(line)
        if m:
            current = [int(m.group(1), 16), int(m.group(2), 16), m.group(3), m.group(4),
                       m.group(5), m.group(6), m.group(7), []]
            blocks.append(current)
        elif current is not None:
            current[7].append(line)
    return [tuple(b[:7]) + ("".join(b[7]),) for b in blocks]


def rss_kb(fields):
    m = re.search(r"^Rss:\s+(\d+) kB", fields, re.M)
    return int(m.group(1)) if m else 0


def templates_from_proc():
    found = []
    for name in sorted(os.listdir("/proc"), key=lambda n: (len(n), n)):
        if not name.isdigit():
            continue
        smaps = read("/proc/%s/smaps" % name)
        status, stat = read("/proc/%s/status" % name), read("/proc/%s/stat" % name)
        cmdline = read("/proc/%s/cmdline" % name, "rb")
        if not smaps or not status or not stat or cmdline is None:
            continue
        blocks = split_blocks(smaps)
        if blocks:
            found.append({"blocks": blocks, "status": status, "stat": stat, "cmdline": cmdline})
    if not found:
        raise SystemExit("gen-snapshot: no readable /proc/PID/smaps on this machine")
    return found


def header_line(start, end, perms, offset, dev, inode, path):
    text = "%08x-%08x %s %s %s %s" % (start, end, perms, offset, dev, inode)
    return (text.ljust(73) + path if path else text + " ") + "\n"


def make_process(pid, ppid, template, extra_pool, rng):
    want = int(math.exp(rng.uniform(math.log(20), math.log(400))))
    blocks = list(template["blocks"])
    below = [b for b in blocks if b[0] < EXTRA_BASE]
    above = [b for b in blocks if b[0] >= EXTRA_BASE]
    extras, at = [], EXTRA_BASE
    if below:
        at = max(at, below[-1][1] + PAGE)
    while len(below) + len(extras) + len(above) < want:
        b = rng.choice(extra_pool)
        size = b[1] - b[0]
        if above and at + size + PAGE > above[0][0]:
            break
        extras.append((at, at + size) + b[2:])
        at += size + PAGE * rng.randint(1, 16)  # a hole keeps them apart
    vmas = below + extras + above
    smaps = "".join(header_line(*v[:7]) + v[7] for v in vmas)
    pagemap = io.BytesIO()
    for v in vmas:
        if v[6] == "[vsyscall]":
            continue
        pages = min(rss_kb(v[7]) * 1024 // PAGE, (v[1] - v[0]) // PAGE)
        if pages:
            entry = 1 << 63
            pagemap.write(b"".join(struct.pack("<QQ", v[0] + i * PAGE, entry) for i in range(pages)))
    stat = template["stat"]
    close = stat.rindex(")")
    rest = stat[close + 2:].split(" ")
    rest[1] = str(ppid)
    stat = "%d %s %s" % (pid, stat[stat.index("("):close + 1], " ".join(rest))
    status = re.sub(r"^Pid:\s+\d+", "Pid:\t%d" % pid, template["status"], flags=re.M)
    status = re.sub(r"^PPid:\s+\d+", "PPid:\t%d" % ppid, status, flags=re.M)
    # VmPTE: one 4 kB page-table page per 2 MiB region touched, as a rough figure
    regions = len({v[0] >> 21 for v in vmas} | {(v[1] - 1) >> 21 for v in vmas})
    status = re.sub(r"^VmPTE:\s+\d+ kB", "VmPTE:\t%8d kB" % (regions * 4), status, flags=re.M)
    return len(vmas), {"smaps": smaps.encode(), "status": status.encode(), "stat": stat.encode(),
                       "cmdline": template["cmdline"], "pagemap": pagemap.getvalue()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("nproc", type=int)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-pagemap", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    templates = templates_from_proc()
    extra_pool = [b for t in templates for b in t["blocks"]
                  if b[0] < 0x7ff000000000 and b[1] - b[0] <= 64 << 20 and not b[6].startswith("[")]

    os.makedirs(os.path.join(args.out_dir, "root", "proc"), exist_ok=True)
    proc_dir = os.path.join(args.out_dir, "root", "proc")
    tar_path = os.path.join(args.out_dir, "snapshot.tar")
    now = int(time.time())
    system = {"version": read("/proc/version").encode(), "meminfo": read("/proc/meminfo").encode()}
    total_vmas = 0
    with tarfile.open(tar_path + ".tmp", "w", format=tarfile.USTAR_FORMAT) as tar:
        def add(name, data):
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), now, 0o444
            tar.addfile(info, io.BytesIO(data))
            with open(os.path.join(proc_dir, name), "wb") as f:
                f.write(data)

        for name, data in system.items():
            add(name, data)
        for i in range(args.nproc):
            pid = 1000 + i
            ppid = 1 if i % 50 == 0 else 1000 + (i // 50) * 50  # trees of 50
            count, files = make_process(pid, ppid, rng.choice(templates), extra_pool, rng)
            total_vmas += count
            os.makedirs(os.path.join(proc_dir, str(pid)), exist_ok=True)
            info = tarfile.TarInfo(str(pid))
            info.type, info.mode, info.mtime = tarfile.DIRTYPE, 0o555, now
            tar.addfile(info)
            for name in ("smaps", "status", "stat", "cmdline", "pagemap"):
                if name == "pagemap" and args.no_pagemap:
                    continue
                add("%d/%s" % (pid, name), files[name])
        snapshot_info = ("format: ptscope-snapshot 1\npage_size: %d\narch: %s\nkernel: %s\n"
                         "hostname: synthetic\ncaptured_at: %s\npagemap: %s\nprocesses: %d\nskipped: 0\n"
                         % (PAGE, os.uname().machine, os.uname().release,
                            time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)),
                            "none" if args.no_pagemap else "present", args.nproc))
        add("snapshot.info", snapshot_info.encode())
    os.rename(tar_path + ".tmp", tar_path)
    print("gen-snapshot: %d processes, %d VMAs, %d templates -> %s (%d bytes)"
          % (args.nproc, total_vmas, len(templates), tar_path, os.path.getsize(tar_path)))


if __name__ == "__main__":
    main()
