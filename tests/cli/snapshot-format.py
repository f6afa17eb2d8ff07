#!/usr/bin/python3
"""snapshot-format.py to2|to1 IN.tar[.gz] OUT.tar

A second, independent implementation of docs/snapshot-format.md's format 2
page members, written from the document, for the tests: `to2` rewrites a
format 1 snapshot's PID/pagemap members as PID/pagemap_runs and one
pagemap_chunks member (each distinct 2 MiB chunk once, encoded as runs), and
kpages as kpage_runs (runs of PFNs with equal count and flags, in blocks);
`to1` expands them back into PID/pagemap and kpages.  Every other member is
copied as it is; snapshot.info's format line says the format written.
Members keep their order, the new pagemap_chunks comes last.
"""
import io
import struct
import sys
import tarfile

CHUNK_SHIFT = 21
PAGE_SHIFT = 12
MASK64 = (1 << 64) - 1


def varint(value):
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7f) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def zigzag(difference):
    difference &= MASK64
    signed = difference - (1 << 64) if difference >> 63 else difference
    return ((signed << 1) ^ (signed >> 63)) & MASK64


def read_varint(data, at):
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7f) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def unzigzag(value):
    return (value >> 1) ^ -(value & 1) & MASK64


def encode_chunk(records):
    """records: [(page index in the chunk, entry)], ascending."""
    runs = []
    i = 0
    while i < len(records):
        page, entry = records[i]
        step = (records[i + 1][1] - entry) & MASK64 if i + 1 < len(records) else 0
        length = 1
        while (i + length < len(records) and records[i + length][0] == page + length
               and (records[i + length][1] - records[i + length - 1][1]) & MASK64 == step):
            length += 1
        runs.append((page, length, entry, step if length > 1 else 0))
        i += length
    out = bytearray(varint(len(runs)))
    next_page = last = 0
    for page, length, entry, step in runs:
        out += varint(page - next_page) + varint(length - 1) + varint(zigzag(entry - last))
        if length > 1:
            out += varint(zigzag(step))
        last = (entry + (length - 1) * step) & MASK64
        next_page = page + length
    return bytes(out)


def decode_chunk(data):
    runs, at = read_varint(data, 0)
    records = []
    next_page = last = 0
    for _ in range(runs):
        gap, at = read_varint(data, at)
        length, at = read_varint(data, at)
        delta, at = read_varint(data, at)
        step = 0
        if length:
            step, at = read_varint(data, at)
            step = unzigzag(step)
        length += 1
        page = next_page + gap
        entry = (last + unzigzag(delta)) & MASK64
        for k in range(length):
            records.append((page + k, (entry + k * step) & MASK64))
        last = (entry + (length - 1) * step) & MASK64
        next_page = page + length
    assert at == len(data)
    return records


KPAGE_BLOCK_RUNS = 1024


def encode_kpages(data):
    """kpages (24-byte {pfn, count, flags} records) as kpage_runs' blocks."""
    runs = []
    for pfn, count, flags in struct.iter_unpack('<QQQ', data):
        if runs and runs[-1][0] + runs[-1][1] == pfn and runs[-1][2:] == [count, flags]:
            runs[-1][1] += 1
        else:
            runs.append([pfn, 1, count, flags])
    out = bytearray()
    next_pfn = last_flags = 0
    for first in range(0, len(runs), KPAGE_BLOCK_RUNS):
        block = bytearray(varint(len(runs[first:first + KPAGE_BLOCK_RUNS])))
        for pfn, pages, count, flags in runs[first:first + KPAGE_BLOCK_RUNS]:
            block += varint(pfn - next_pfn) + varint(pages - 1) + varint(count) + varint(flags ^ last_flags)
            next_pfn, last_flags = pfn + pages, flags
        out += struct.pack('<I', len(block)) + block
    return bytes(out)


def decode_kpages(data):
    """kpage_runs back to kpages' records."""
    out = bytearray()
    at = next_pfn = last_flags = 0
    while at < len(data):
        (length,) = struct.unpack_from('<I', data, at)
        block, at = data[at + 4:at + 4 + length], at + 4 + length
        runs, inner = read_varint(block, 0)
        for _ in range(runs):
            fields = []
            for _ in range(4):
                value, inner = read_varint(block, inner)
                fields.append(value)
            pfn, pages, flags = next_pfn + fields[0], fields[1] + 1, last_flags ^ fields[3]
            for k in range(pages):
                out += struct.pack('<QQQ', pfn + k, fields[2], flags)
            next_pfn, last_flags = pfn + pages, flags
        assert inner == len(block)
    return bytes(out)


def info_with_format(data, version):
    lines = [line for line in data.decode().split('\n')]
    return '\n'.join('format: ptscope-snapshot %d' % version if line.startswith('format:') else line
                     for line in lines).encode()


def convert(members, kpages, pagemap, drop=()):
    """The members with each process's kpages and pagemap member renamed and
    converted, (OLD, NEW, FUNCTION) each; the others as they are, but drop."""
    out = []
    for info, data in members:
        leaf = info.name.split('/')[-1]
        for old, new, function in (kpages, pagemap):
            if leaf == old:
                out.append((tarfile.TarInfo(info.name[:-len(old)] + new), function(data)))
                break
        else:
            if leaf not in drop:
                out.append((info, data))
    return out


def to2(members):
    chunks, positions = [], {}

    def runs_of(data):
        by_chunk = {}
        for vaddr, entry in struct.iter_unpack('<QQ', data):
            by_chunk.setdefault(vaddr >> CHUNK_SHIFT, []).append(((vaddr >> PAGE_SHIFT) & 511, entry))
        runs = []
        for chunk in sorted(by_chunk):
            encoded = encode_chunk(by_chunk[chunk])
            if encoded not in positions:
                positions[encoded] = len(chunks)
                chunks.append(encoded)
            position = positions[encoded]
            if runs and runs[-1][0] + runs[-1][1] == chunk and runs[-1][2] + runs[-1][1] == position:
                runs[-1][1] += 1
            else:
                runs.append([chunk, 1, position])
        return b''.join(struct.pack('<QQQ', c << CHUNK_SHIFT, n, p) for c, n, p in runs)

    out = convert(members, ('kpages', 'kpage_runs', encode_kpages), ('pagemap', 'pagemap_runs', runs_of))
    member = b''.join(struct.pack('<I', len(c)) + c for c in chunks)
    out.append((tarfile.TarInfo('pagemap_chunks'), member))
    return out, 2


def to1(members):
    chunk_member = next(data for info, data in members if info.name.split('/')[-1] == 'pagemap_chunks')
    chunks, at = [], 0
    while at < len(chunk_member):
        (length,) = struct.unpack_from('<I', chunk_member, at)
        chunks.append(decode_chunk(chunk_member[at + 4:at + 4 + length]))
        at += 4 + length

    def pages_of(data):
        body = bytearray()
        for vaddr, length, position in struct.iter_unpack('<QQQ', data):
            for i in range(length):
                base = vaddr + (i << CHUNK_SHIFT)
                for page, entry in chunks[position + i]:
                    body += struct.pack('<QQ', base + (page << PAGE_SHIFT), entry)
        return bytes(body)

    return convert(members, ('kpage_runs', 'kpages', decode_kpages), ('pagemap_runs', 'pagemap', pages_of),
                   drop=('pagemap_chunks',)), 1


def main():
    direction, source, target = sys.argv[1:4]
    with tarfile.open(source) as tar:
        members = [(info, tar.extractfile(info).read() if info.isfile() else None) for info in tar]
    members, version = (to2 if direction == 'to2' else to1)(members)
    with tarfile.open(target, 'w', format=tarfile.GNU_FORMAT) as tar:
        for info, data in members:
            if info.name.split('/')[-1] == 'snapshot.info':
                data = info_with_format(data, version)
            if data is not None:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                tar.addfile(info)


if __name__ == '__main__':
    main()
