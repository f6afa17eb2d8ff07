#!/usr/bin/env python3
"""Build the hostile corpus of tests/cli/hostile-corpus.sh from the fixtures.

Each case is a directory snapshot (or a file) under OUT/NAME; one line per case
goes to stdout: NAME COMMAND WANT_EXIT SECONDS MIB PATTERN, COMMAND with
commas for spaces.  Figures in PATTERN are worked out here by hand."""
import os, struct, subprocess, sys, tarfile

fixtures, out = sys.argv[1:3]
os.makedirs(out, exist_ok=True)
START = 0x7f0000000000
cases = []


def case(name, command, want, pattern, seconds=10, mib=200):
    cases.append(f"{name} {command} {want} {seconds} {mib} {pattern}")
    return os.path.join(out, name)


def snapshot(path, processes=None, info=None, kpages=None, meminfo=None):
    """processes: {pid: {member: bytes}}; info: snapshot.info text."""
    os.makedirs(path)
    open(f'{path}/version', 'wb').write(open(f'{fixtures}/version', 'rb').read())
    open(f'{path}/meminfo', 'wb').write(meminfo if meminfo is not None else open(f'{fixtures}/meminfo', 'rb').read())
    if info is not None:
        open(f'{path}/snapshot.info', 'w').write(info)
    if kpages is not None:
        open(f'{path}/kpages', 'wb').write(kpages)
    for pid, members in (processes or {}).items():
        os.makedirs(f'{path}/{pid}')
        for member, data in members.items():
            open(f'{path}/{pid}/{member}', 'wb').write(data)


def stat(pid, comm=b'x'):
    return b'%d (%s) S 1 1 1 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 1 1\n' % (pid, comm)


def smaps(start, pages, perms='rw-p', path='', extra=''):
    kb = pages * 4
    dev, inode = ('fe:00', 77) if path else ('00:00', 0)
    return (f'{start:x}-{start + pages * 4096:x} {perms} 00000000 {dev} {inode}    {path}\n'
            f'Size: {kb} kB\nRss: {kb} kB\n{extra}VmFlags: rd wr mr mw me\n').encode()


def pagemap(start, pages, pfn=0x1000):
    return b''.join(struct.pack('<QQ', start + i * 4096, (1 << 63) | (pfn + i)) for i in range(pages))


PFN_INFO = 'format: ptscope-snapshot 1\npage_size: 4096\narch: x86_64\npagemap: pfn\n'
one = lambda **m: {1: dict({'stat': stat(1), 'smaps': smaps(START, 4), 'pagemap': pagemap(START, 4)}, **m)}

# a kpages mapcount of 2^32 was a division by zero (SIGFPE); 2^40 was truncated to 32 bits
for name, m in (('mapcount-2-32', 1 << 32), ('mapcount-2-40', 1 << 40)):
    snapshot(case(name, 'report', 1, 'kpages: record 0: mapcount'), one(), PFN_INFO,
             b''.join(struct.pack('<QQQ', 0x1000 + i, m, 0) for i in range(4)))
# VmPTE of 2^54 kB showed "0 B" (x 1024 wrapped)
snapshot(case('vmpte-2-54', 'report', 1, '1/status:2: 18014398509481984 kB is more than'),
         one(status=b'Name: x\nVmPTE: 18014398509481984 kB\n'))
# MemTotal near 2^64 wrapped the totals
snapshot(case('memtotal-2-64', 'report', 1, 'meminfo:1: 18446744073709551615 kB is more'), one(),
         meminfo=b'MemTotal: 18446744073709551615 kB\n')
# page sizes no kernel had
for name, size in (('page-size-1k', 1024), ('page-size-2-40', 1 << 40)):
    snapshot(case(name, 'report', 1, 'snapshot.info:2: page size'), one(),
             PFN_INFO.replace('4096', str(size)))
# a 16 EiB VMA (the whole 64-bit space) was killed for memory
snapshot(case('vma-16-eib', 'report', 1, '1/smaps:1: VMA of'),
         {1: {'stat': stat(1), 'smaps': b'0-fffffffffffff000 rw-p 00000000 00:00 0\nSize: 18014398509481980 kB\nRss: 4 kB\n'}})
# a counter above its VMA's Size
snapshot(case('pss-above-size', 'report', 1, '1/smaps:5: VMA 7f0000000000-7f0000004000 has Pss above Size'),
         one(smaps=smaps(START, 4, extra='Pss: 999999 kB\n')))
# 4 processes x 2^57-byte VMAs = 2^59 is fine; 40 of them pass 2^62 bytes in total
big = smaps(0x100000000000000, 1 << 45, perms='r--s', path='/big')
snapshot(case('totals-2-62', 'report', 1, 'add up to more than 2^62 bytes'),
         {pid: {'stat': stat(pid), 'smaps': big} for pid in range(1, 41)})
# without pagemap, a 48 KB snapshot with a 128 TiB shared file VMA in two
# processes took 47 s and 6.2 GB; now closed form per VMA, and the sharing
# bound stays within the tables' bound (100 %)
huge = smaps(START, 1 << 35, perms='r--s', path='/huge')
# (2^47 / 2 MiB = 2^26 windows, two copies each, one saved: 67108864 pages)
snapshot(case('shared-128-tib', 'report,--format,json', 0, '"shpt-2006":67108864,', 10, 100),
         {pid: {'stat': stat(pid), 'smaps': huge} for pid in (1, 2)})
# groups that mix pagemap and smaps-only members, and hugetlb's file-index
# partners, were counted window by window: 64 PiB hugetlb VMAs of one file in
# three processes (2^56 bytes: 2^35 windows of 2 MiB, 2^26 of 1 GiB), none
# of them finishing.  Process 1 maps file offsets [0, 2^56) at 2^56 and
# process 3 the same with pagemap, one record at file offset 2^55; process 2
# maps offsets [2^55, 2^55 + 2^56) at 2^57.  By hand:
#   hugetlb-pmd (partners by file index, 1 GiB): processes 1 and 2 meet over
#     offsets [2^55, 2^56), 2^25 windows, one copy saved each; process 3's
#     window (offset 2^55) is one of them and holds a third copy of the same
#     PMD page: 2^25 + 1 = 33554433
#   shpt-2006, shpt-2006-pmd, aligned-what-if (processes 1 and 3 partners):
#     process 1 counts every window, process 3 one: 1 each
#   mshare (512 GiB subtrees): process 3's window holds PTE, PMD and PUD page,
#     process 1 (no pagemap) the window's first page, the same PTE page: 1
#   identical: one PTE window with records, no repeat: 0
# (the other figures are checked in tests/unit/test_model.c, test_mixed_runs)
hugetlb = lambda start, offset: (f'{start:x}-{start + (1 << 56):x} r--s {offset:016x} fe:00 91    /dev/hugepages/db\n'
                                 f'Size: {1 << 46} kB\nRss: 4 kB\nVmFlags: rd sh mr mw me ms ht\n').encode()
snapshot(case('hugetlb-mixed-64-pib', 'report,--format,json', 0,
              '"hugetlb-pmd":33554433,', 10, 100),
         {1: {'stat': stat(1), 'smaps': hugetlb(1 << 56, 0)},
          2: {'stat': stat(2), 'smaps': hugetlb(1 << 57, 1 << 55)},
          3: {'stat': stat(3), 'smaps': hugetlb(1 << 56, 0), 'pagemap': pagemap((1 << 56) + (1 << 55), 1)}},
         PFN_INFO)
# without pagemap a sharing bound could exceed 100 % of the tables: a VMA
# whose pages are all PMD-mapped (FilePmdMapped = Rss) needs no PTE page, so
# the tables' upper bound leaves it out, but sharing counted its windows.
# Two processes, each a 1 GiB shared file VMA so mapped and one anonymous
# page elsewhere.  By hand: tables' upper bound per process 1 PTE + 1 PMD +
# 1 PUD page = 3, 6 in all; shpt-2006 counted 512 windows x 1 = 512; a
# process is credited at most its tables less the PMD and PUD pages it surely
# has (docs/cost-model.md section 9): 3 - 2 = 1 each, so 2 in all, the file's
# 2 (was 512) and each process's share 1 (was 256: 1 MiB of its 12 KiB of
# tables)
pmd_file = (f'{START:x}-{START + (1 << 30):x} r--s 00000000 fe:00 88    /pmd-mapped\n'
            f'Size: 1048576 kB\nRss: 1048576 kB\nFilePmdMapped: 1048576 kB\nVmFlags: rd sh mr mw me ms\n'
            f'{START + (1 << 32):x}-{START + (1 << 32) + 4096:x} rw-p 00000000 00:00 0\n'
            f'Size: 4 kB\nRss: 4 kB\nVmFlags: rd wr mr mw me\n').encode()
snapshot(case('sharing-over-tables', 'report,--per-process,--format,json', 0, '"shpt-2006":1.0,', 10, 100),
         {pid: {'stat': stat(pid), 'smaps': pmd_file} for pid in (1, 2)})
# a kernel profile of 200,000 symbols was quadratic (161 s); the overlay on
# the 2.5 fixture tree places the one the tree has, page_remove_rmap (30 %)
kernel_tree = os.path.join(os.path.dirname(fixtures), 'kernel-2.5')
with open(case('profile-200000-symbols', f'callgraph,{kernel_tree},--format,json,--overlay-profile', 0,
               '"name":"page_remove_rmap".*"samples_percent":30.0', 10, 400), 'w') as f:
    f.write('# Overhead  Command  Shared Object  Symbol\n'
            '    30.00%  make  [kernel.kallsyms]  [k] page_remove_rmap\n')
    f.writelines(f'     0.0001%  make  [kernel.kallsyms]  [k] symbol_{i}\n' for i in range(200000))
# accepted nonsense: an aarch64 snapshot of 64 KiB pages was modelled with
# x86_64's 4 KiB ones (aarch64 with 4 KiB pages is priced like x86_64, as
# tests/cli/callgraph-overlay.sh checks); 64 KiB pages on x86_64; an i386
# snapshot with a VMA above 4 GiB
snapshot(case('arch-aarch64-64k', 'report', 1, 'pages of 65536 bytes: the model counts 4096-byte pages only'), one(),
         PFN_INFO.replace('x86_64', 'aarch64').replace('4096', '65536'))
snapshot(case('x86_64-64k-pages', 'report', 1, 'pages of 65536 bytes: the model counts 4096-byte pages only'),
         one(), PFN_INFO.replace('4096', '65536'))
snapshot(case('i386-above-4-gib', 'report', 1, 'a VMA ends at 0x7f0000004000, above the 4 GiB a i386'),
         one(), PFN_INFO.replace('x86_64', 'i386'))
# version or meminfo twice in a tar took the last silently
for twice in ('version', 'meminfo'):
    with tarfile.open(case(f'{twice}-twice.tar', 'report', 1, f'{twice}: member appears twice'), 'w') as t:
        for name, data in (('version', open(f'{fixtures}/version', 'rb').read()),
                           ('meminfo', open(f'{fixtures}/meminfo', 'rb').read()),
                           (twice, open(f'{fixtures}/{twice}', 'rb').read()),
                           ('1/stat', stat(1)), ('1/smaps', smaps(START, 4))):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, __import__('io').BytesIO(data))
# 4 MiB of random bytes read as a profile (88.9 % / 11.1 %); a share of 1e308 %
with open(case('profile-random-bytes', f'callgraph,{kernel_tree},--format,json,--overlay-profile', 1,
               'profile-random-bytes:1: binary data: not a profile text'), 'wb') as f:
    f.write(b'\0' + os.urandom(4 << 20))
with open(case('profile-share-1e308', f'callgraph,{kernel_tree},--format,json,--overlay-profile', 1,
               'profile-share-1e308:2: a share of 1e+308%: no share is more than 100%'), 'w') as f:
    f.write('# Overhead  Command  Shared Object  Symbol\n'
            '    1e308%  make  [kernel.kallsyms]  [k] page_remove_rmap\n')
# a snapshot without any process was "out of memory"; now one clear line
snapshot(case('no-process', 'info', 1, 'no process in this snapshot'))
# --skip-bad kept refused pagemaps in memory: 64 processes with 1 MiB each of
# unsorted records; the good one alone is read
bad_pagemap = pagemap(START, 65536)[16:] + pagemap(START, 1)
procs = {pid: {'stat': stat(pid), 'smaps': smaps(START, 65536), 'pagemap': bad_pagemap} for pid in range(2, 66)}
procs[1] = {'stat': stat(1), 'smaps': smaps(START, 4), 'pagemap': pagemap(START, 4)}
snapshot(case('skip-bad-frees', 'info,--skip-bad,--verify', 0, 'skipped as bad: 64', 10, 90), procs)
# 20,000 distinct mapcounts (quadratic: 22 s): PSS-style sums stay exact and fast
n = 20000
snapshot(case('mapcounts-20000', 'report,--format,json', 0, '"pte_pages":40,', 10, 100),
         {1: {'stat': stat(1), 'smaps': smaps(START, n), 'pagemap': pagemap(START, n)}}, PFN_INFO,
         b''.join(struct.pack('<QQQ', 0x1000 + i, i + 2, 1 << 12) for i in range(n)))

# A small .tar.zst whose 1/smaps inflates to 3 GiB was read whole before it
# was parsed (9.5 s, 3.1 GB): smaps in an archive is parsed as it arrives.
# The archive is zstd frames joined (zstd reads them as one stream): the
# header frame, one 1 MiB frame of the member's text repeated, the end.
def zstd(data):
    return subprocess.run(['zstd', '-q', '-19', '-c'], input=data, stdout=subprocess.PIPE, check=True).stdout

def inflating_tar(path, piece, repeats, member_name='1/smaps'):
    header = b''
    for name, data in (('version', open(f'{fixtures}/version', 'rb').read()),
                       ('meminfo', open(f'{fixtures}/meminfo', 'rb').read()), ('1/stat', stat(1))):
        info = tarfile.TarInfo(name)
        info.size = len(data)
        header += info.tobuf(format=tarfile.USTAR_FORMAT) + data + bytes(-len(data) % 512)
    member = tarfile.TarInfo(member_name)
    member.size = len(piece) * repeats
    header += member.tobuf(format=tarfile.USTAR_FORMAT)
    frame = zstd(piece)
    with open(path, 'wb') as f:
        f.write(zstd(header))
        for _ in range(repeats):
            f.write(frame)
        f.write(zstd(bytes(-member.size % 512 + 1024)))

# one endless line: refused where it passes the longest smaps line, 16,512 bytes
inflating_tar(case('smaps-3-gib-line.tar.zst', 'report', 1, '1/smaps:1: a line of more than 16512 bytes',
                   10, 100), b'a' * (1 << 20), 3072)
# with --skip-bad the process is dropped and the rest of its member unread
inflating_tar(case('smaps-3-gib-line-skip-bad.tar.zst', 'report,--skip-bad', 1, 'broken 1,', 10, 100),
              b'a' * (1 << 20), 3072)
# one VMA over and over (4 lines): refused at its second header, line 5
record = smaps(START, 4)
inflating_tar(case('smaps-3-gib-same-vma.tar.zst', 'report', 1, '1/smaps:5: VMAs overlap or are out of order', 10, 100),
              record * ((1 << 20) // len(record)), 3072)

# kpages and pagemap are streamed as well (a 1 KB .tar.gz whose kpages is
# 3 GiB of zeros took 4.6 s and 6.3 GB before its first record was checked;
# 1/pagemap, 3.15 GB): refused at the first bad record
inflating_tar(case('kpages-3-gib-zeros.tar.zst', 'report', 1,
                   'kpages: record 1: PFN 0 not above the previous one', 10, 100), bytes(1 << 20), 3072, 'kpages')
inflating_tar(case('pagemap-3-gib-zeros.tar.zst', 'report', 1,
                   '1/pagemap: record 0: entry is neither present nor swapped', 10, 100), bytes(1 << 20), 3072, '1/pagemap')

os.makedirs(out, exist_ok=True)
print('\n'.join(c.replace(',', ' ', 0) for c in cases))
