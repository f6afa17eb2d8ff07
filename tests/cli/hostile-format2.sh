#!/bin/sh
# Format 2's binary members (pagemap_chunks, PID/pagemap_runs, kpage_runs)
# under hostile input: each bad shape refused in one line naming the member,
# the chunk, block or run, and the problem (exit 1); a pagemap_chunks of
# zeros inflating to 1 GiB (kpage_runs: 256 MiB) refused at its first block
# within 5 s and 64 MiB; a bad chunk after 64 KiB of good ones (several pieces of a
# streamed tar) named by its index; a run of 2^55 - 1 PFNs kept as one run
# (read in 5 s and 64 MiB, never expanded).
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
f=$PTSCOPE_TESTS/fixtures/proc
convert=$PTSCOPE_TESTS/cli/snapshot-format.py
# sleep's first VMA, 0x55fc0b46e000-0x55fc0b470000: pages 110 and 111 of the
# chunk at 0x55fc0b400000
# (made once in $tmp/good, copied for each case: python3 starts slowly under load)
good() {
	if [ ! -d "$tmp/good" ]; then
		rm -rf "$tmp/s"; mkdir -p "$tmp/s/1"
		cp "$f/version" "$f/meminfo" "$tmp/s/"
		for m in smaps stat status cmdline; do cp "$f/sleep.$m" "$tmp/s/1/$m"; done
		sed -i 's/^5969 /1 /' "$tmp/s/1/stat"
		chunks "varint(1) + varint(110) + varint(1) + varint(zigzag(P | 7)) + varint(zigzag(1))"
		runs "(0x55fc0b400000, 1, 0)"
		cp -r "$tmp/s" "$tmp/good"
	fi
	rm -rf "$tmp/s"; cp -r "$tmp/good" "$tmp/s"
}
# chunks EXPR...: pagemap_chunks holds one chunk per Python expression (its
# bytes), each with its length; runs TUPLE...: pagemap_runs of process 1
chunks() {
	python3 - "$convert" "$tmp/s/${blocks_member:-pagemap_chunks}" "$@" <<'PY' || fail "could not write pagemap_chunks"
import importlib.util, struct, sys
spec = importlib.util.spec_from_file_location('fmt', sys.argv[1]); fmt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fmt)
varint, zigzag, P = fmt.varint, fmt.zigzag, 1 << 63
with open(sys.argv[2], 'wb') as out:
    for expression in sys.argv[3:]:
        data = eval(expression)
        out.write(struct.pack('<I', len(data)) + data)
PY
}
raw_chunks() { printf "$1" > "$tmp/s/pagemap_chunks"; }
# kruns EXPR...: kpage_runs holds one block per Python expression
kruns() { blocks_member=kpage_runs; chunks "$@"; blocks_member=; }
runs() {
	python3 - "$tmp/s/1/pagemap_runs" "$@" <<'PY' || fail "could not write pagemap_runs"
import struct, sys
with open(sys.argv[1], 'wb') as out:
    for run in sys.argv[2:]:
        out.write(struct.pack('<QQQ', *eval(run)))
PY
}
refused() {  # WHAT MEMBER TEXT: the snapshot in $tmp/s is refused naming MEMBER, saying TEXT
	timeout 5 "$PTSCOPE" info --verify "$tmp/s" > /dev/null 2> "$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$1: exit $rc, want 1: $(cat "$tmp/err")"
	[ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "$1: not one line: $(cat "$tmp/err")"
	grep -qF "s: $2: $3" "$tmp/err" || fail "$1: message is not '$2: $3': $(cat "$tmp/err")"
}
good; "$PTSCOPE" info --verify "$tmp/s" > "$tmp/out" 2>&1 || fail "the good snapshot is refused: $(cat "$tmp/out")"
good; chunks "b''"; refused "empty chunk" pagemap_chunks "chunk 0: length 0 is not 1 to 12290 bytes"
good; raw_chunks '\377\377\0\0'; refused "chunk too long" pagemap_chunks "chunk 0: length 65535 is not 1 to 12290 bytes"
good; raw_chunks '\020\0\0\0\001\156'; refused "cut chunk" pagemap_chunks "chunk 0: cut short after 6 of its bytes"
good; chunks "varint(0)"; refused "no run" pagemap_chunks "chunk 0: run count missing or not 1 to 512"
good; chunks "varint(513)"; refused "513 runs" pagemap_chunks "chunk 0: run count missing or not 1 to 512"
good; chunks "varint(1) + varint(511) + varint(1) + varint(zigzag(P)) + varint(0)"
refused "run past the chunk" pagemap_chunks "chunk 0: run 0: pages past the chunk's 512"
good; chunks "varint(1) + varint(0) + varint(2**64 - 1) + varint(zigzag(P)) + varint(0)"
refused "length wraps" pagemap_chunks "chunk 0: run 0: pages past the chunk's 512"
good; chunks "varint(1) + varint(110) + varint(0) + varint(zigzag(7))"
refused "not present" pagemap_chunks "chunk 0: run 0: page 110 is neither present nor swapped"
good; chunks "varint(1) + varint(110) + varint(1) + varint(zigzag(P | 7)) + varint(zigzag(-(P | 7)))"
refused "step to absent" pagemap_chunks "chunk 0: run 0: page 111 is neither present nor swapped"
good; chunks "varint(1) + varint(110) + varint(0) + bytes([0xff] * 10) + b'\\x01'"
refused "number past 64 bits" pagemap_chunks "chunk 0: run 0: cut short or a number past 64 bits"
good; chunks "varint(1) + varint(110) + varint(0) + varint(zigzag(P)) + b'xy'"
refused "bytes after" pagemap_chunks "chunk 0: 2 bytes after its last run"
good; runs "(0x55fc0b401000, 1, 0)"; refused "unaligned run" 1/pagemap_runs "run 0: address 0x55fc0b401000 is not 2 MiB-aligned"
good; runs "(0x55fc0b400000, 0, 0)"; refused "empty run" 1/pagemap_runs "run 0: length 0 chunks is 0 or runs past the address space"
good; runs "(0xffffffffffe00000, 2, 0)"; refused "run past 2^64" 1/pagemap_runs "run 0: length 2 chunks is 0 or runs past the address space"
good; runs "(0x55fc0b400000, 1, 2**32 - 1)"; refused "positions past 2^32" 1/pagemap_runs "run 0: chunks 4294967295 + 1 pass 2^32"
good; runs "(0x55fc0b400000, 1, 0)" "(0x55fc0b400000, 1, 0)"; refused "runs out of order" 1/pagemap_runs "run 1: address 0x55fc0b400000 not above the previous run's end"
good; runs "(0x55fc0b400000, 1, 1)"; refused "chunk not held" 1/pagemap_runs "run 0: chunks 1 to 1, but pagemap_chunks holds 1"
good; rm "$tmp/s/pagemap_chunks"; refused "no pagemap_chunks" 1/pagemap_runs "run 0: chunks 0 to 0, but pagemap_chunks holds 0"
good; printf 'x' >> "$tmp/s/1/pagemap_runs"; refused "cut run" 1/pagemap_runs "length 25 is not a multiple of 24 bytes"
good; runs "(0x55fc0b600000, 1, 0)"; refused "outside the VMAs" 1/pagemap_runs "record 0: address 0x55fc0b66e000 is outside every VMA"
# kpage_runs: PFNs 7 and 8, kpagecount 3, flags 0x20, then its bad shapes
good; kruns "varint(1) + varint(7) + varint(1) + varint(3) + varint(0x20)"
"$PTSCOPE" info --verify "$tmp/s" > "$tmp/out" 2>&1 || fail "good kpage_runs refused: $(cat "$tmp/out")"
grep -qx "kpages: 2" "$tmp/out" || fail "kpage_runs of 2 PFNs: $(grep kpages "$tmp/out")"
K="varint(1) + varint(7) + varint(1) + varint(3)"
# what | the block, a Python expression | the problem said
while IFS='|' read -r what block problem; do
	good; kruns "$block"; refused "$what" kpage_runs "$problem"
done <<EOF
empty block|b''|block 0: length 0 is not 1 to 31746 bytes
block too long|b'x' * 31747|block 0: length 31747 is not 1 to 31746 bytes
no run|varint(0)|block 0: run count missing or not 1 to 1024
1025 runs|varint(1025)|block 0: run count missing or not 1 to 1024
PFN past 55 bits|varint(1) + varint(2**55) + varint(0) + varint(1) + varint(0)|block 0: run 0: PFNs past pagemap's 55 bits
length wraps|varint(1) + varint(7) + varint(2**64 - 1) + varint(1) + varint(0)|block 0: run 0: PFNs past pagemap's 55 bits
mapcount|varint(1) + varint(7) + varint(1) + varint(2**31) + varint(0)|block 0: run 0: mapcount 2147483648 is more than a kernel counts (2^31 - 1)
number past 64 bits|varint(1) + varint(7) + bytes([0xff] * 10) + bytes([1])|block 0: run 0: cut short or a number past 64 bits
bytes after|$K + varint(0) + b'xy'|block 0: 2 bytes after its last run
EOF
good; kruns "$K"; truncate -s -1 "$tmp/s/kpage_runs"; refused "cut block" kpage_runs "block 0: cut short after 7 of its bytes"
# the run before carries from block to block: the second starts past the first's end
good; kruns "varint(1) + varint(1) + varint(2**55 - 2) + varint(1) + varint(0)" "$K + varint(0)"
refused "past 55 bits in block 1" kpage_runs "block 1: run 0: PFNs past pagemap's 55 bits"
good; kruns "$K + varint(0)"
printf '\007\0\0\0\0\0\0\0\003\0\0\0\0\0\0\0\040\0\0\0\0\0\0\0' > "$tmp/s/kpages"   # PFN 7, count 3, flags 0x20
"$PTSCOPE" info --verify "$tmp/s" > /dev/null 2> "$tmp/err" && fail "kpages and kpage_runs in one snapshot read"
grep -Eq "s: kpage(s|_runs): the snapshot has both kpages and kpage_runs$" "$tmp/err" || fail "both kpages: $(cat "$tmp/err")"
# one run of every PFN but 0: kept as one run, never expanded
good; kruns "varint(1) + varint(1) + varint(2**55 - 2) + varint(1) + varint(0)"
/usr/bin/time -f '%M' -o "$tmp/usage" timeout 5 "$PTSCOPE" info --verify "$tmp/s" > "$tmp/out" 2>&1 ||
	fail "a run of 2^55 - 1 PFNs: $(cat "$tmp/out")"
grep -qx "kpages: 36028797018963967" "$tmp/out" || fail "2^55 - 1 PFNs: $(grep kpages "$tmp/out")"
[ "$(tail -n 1 "$tmp/usage")" -lt 65536 ] || fail "a run of 2^55 - 1 PFNs: $(tail -n 1 "$tmp/usage") KiB used"

# the second of the two met is named: the order is the folder's
good; : > "$tmp/s/1/pagemap"
"$PTSCOPE" info --verify "$tmp/s" > /dev/null 2> "$tmp/err" && fail "both formats in one process read"
grep -Eq "s: 1/pagemap(_runs)?: the process has both pagemap and pagemap_runs \(--skip-bad reads the rest without process 1\)$" "$tmp/err" ||
	fail "both: $(cat "$tmp/err")"

# streamed from a tar: 6000 good chunks (more than one 64 KiB piece), then a bad one
good
chunks $(seq 6000 | sed 's/.*/varint(1)+varint(110)+varint(1)+varint(zigzag(P|&))+varint(zigzag(1))/') \
	"varint(1) + varint(110) + varint(0) + varint(zigzag(7))"
runs "(0x55fc0b400000, 1, 5999)"
(cd "$tmp/s" && tar cf "$tmp/s.tar" .) || fail "tar"
timeout 5 "$PTSCOPE" info --verify "$tmp/s.tar" > /dev/null 2> "$tmp/err" && fail "the bad chunk 6000 passed"
grep -qF "s.tar: pagemap_chunks: chunk 6000: run 0: page 110 is neither present nor swapped" "$tmp/err" ||
	fail "chunk 6000: $(cat "$tmp/err")"
# the good ones alone read, run over the last of them
good
chunks $(seq 6000 | sed 's/.*/varint(1)+varint(110)+varint(1)+varint(zigzag(P|&))+varint(zigzag(1))/')
runs "(0x55fc0b400000, 1, 5999)"
(cd "$tmp/s" && tar cf "$tmp/s.tar" .) || fail "tar"
"$PTSCOPE" info --verify "$tmp/s.tar" > /dev/null 2> "$tmp/err" || fail "6000 good chunks: $(cat "$tmp/err")"

# 1 GiB of zeros as pagemap_chunks (256 MiB as kpage_runs), gzipped: refused at the first block
zeros() {  # MEMBER UNIT LIMIT MIB
	good; rm -f "$tmp/s/$1"
	python3 - "$tmp/s" "$tmp/zeros.tar.gz" "$1" "$4" <<'PY' || fail "could not write the zeros tar"
import gzip, io, os, sys, tarfile
folder, path, member, mib = sys.argv[1:5]
with gzip.open(path, 'wb', compresslevel=1) as z:
    with tarfile.open(fileobj=z, mode='w|') as t:
        for name in ['version', 'meminfo', 'pagemap_chunks', '1/smaps', '1/stat', '1/status', '1/cmdline',
                     '1/pagemap_runs']:
            if os.path.exists(os.path.join(folder, name)):
                t.add(os.path.join(folder, name), arcname=name)
        info = tarfile.TarInfo(member); info.size = int(mib) << 20
        class Zeros(io.RawIOBase):
            left = int(mib) << 20
            def readinto(self, b):
                n = min(len(b), self.left); b[:n] = bytes(n); self.left -= n; return n
        t.addfile(info, Zeros())
PY
	/usr/bin/time -f '%M' -o "$tmp/usage" timeout 5 "$PTSCOPE" info --verify "$tmp/zeros.tar.gz" > /dev/null 2> "$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$4 MiB of zeros as $1: exit $rc: $(cat "$tmp/err")"
	grep -qF "zeros.tar.gz: $1: $2 0: length 0 is not 1 to $3 bytes" "$tmp/err" || fail "zeros $1: $(cat "$tmp/err")"
	kib=$(tail -n 1 "$tmp/usage")
	[ "$kib" -lt 65536 ] || fail "$4 MiB of zeros as $1: $((kib / 1024)) MiB used"
}
zeros pagemap_chunks chunk 12290 1024
zeros kpage_runs block 31746 256
echo "ok"
