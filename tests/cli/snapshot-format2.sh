#!/bin/sh
# Snapshot format 2 (docs/snapshot-format.md) gives the same report as format
# 1 of the same processes, byte for byte, in every format.  The other side of
# each pair is made by tests/cli/snapshot-format.py, an implementation of the
# format written from the document alone:
#   - live captures (format 2, the default) of fork trees sharing one
#     segment (tests/bench/shmtree.c: make bench's scale workload, 1 GiB
#     by 16 children, and 32 MiB by 3), expanded to format 1;
#   - pg32 and desktop of ../shared (format 1), converted to format 2;
# and the capture writes each distinct 2 MiB chunk once: as many chunks as the
# expanded records hold distinct chunk contents, counted by the script.  With
# PFNs (root) it writes kpage_runs, not kpages, and its bytes are what the
# script's encoder makes of the expanded kpages (the encoding is a function of
# the records).  `capture --format 1` still writes PID/pagemap and kpages; a
# format 3 is refused.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
convert=$PTSCOPE_TESTS/cli/snapshot-format.py


# same A B: reports of the snapshots A/s.tar and B/s.tar (same name, so the
# source line agrees) are identical in every format
same() {
	for format in text json xml csv html; do
		(cd "$1" && "$PTSCOPE" report s.tar --format "$format" -o "r.$format") || fail "$1: report $format"
		(cd "$2" && "$PTSCOPE" report s.tar --format "$format" -o "r.$format") || fail "$2: report $format"
		cmp -s "$1/r.$format" "$2/r.$format" || fail "$3: $format reports differ: $(diff "$1/r.$format" "$2/r.$format" | head -5)"
	done
}

cc -O2 -o "$tmp/shmtree" "$PTSCOPE_TESTS/bench/shmtree.c" || fail "cannot build shmtree"

# live_tree MIB CHILDREN: a fork tree over one segment (shmtree), captured
# (format 2) into $tmp/v2 and expanded to format 1 into $tmp/v1, the two
# reports the same; $tree is its pid, left running
live_tree() {
	rm -rf "$tmp/v2" "$tmp/v1" "$tmp/pid"
	"$tmp/shmtree" "$1" "$2" > "$tmp/pid" &
	pids="$pids $!"
	for _ in $(seq 300); do [ -s "$tmp/pid" ] && break; sleep 0.1; done
	tree=$(cat "$tmp/pid")
	[ -n "$tree" ] || fail "shmtree $1 $2 did not start"
	mkdir "$tmp/v2" "$tmp/v1"
	"$PTSCOPE" capture --tree "$tree" -o "$tmp/v2/s.tar" > /dev/null 2>&1 || fail "capture of shmtree $1 $2"
	tar xOf "$tmp/v2/s.tar" snapshot.info | grep -q "^format: ptscope-snapshot 2$" || fail "the capture does not say format 2"
	tar tf "$tmp/v2/s.tar" | grep -q "^$tree/pagemap_runs$" || fail "no $tree/pagemap_runs"
	tar tf "$tmp/v2/s.tar" | grep -q "/pagemap$" && fail "format 2 holds a PID/pagemap"
	python3 "$convert" to1 "$tmp/v2/s.tar" "$tmp/v1/s.tar" || fail "to1 of shmtree $1 $2"
	same "$tmp/v2" "$tmp/v1" "live fork tree of $1 MiB x $2, format 2 against its expansion"
	echo "ok: shmtree $1 MiB x $2: $(wc -c < "$tmp/v2/s.tar") bytes in format 2, $(wc -c < "$tmp/v1/s.tar") in format 1, the same reports"
}

# the scale workload of make bench (1 GiB shared by 16 children), then a
# small tree the rest of this test looks into
live_tree 1024 16
kill "$tree"
live_tree 32 3
mkdir "$tmp/old"
with_pfns=$(tar xOf "$tmp/v2/s.tar" snapshot.info | grep -c "^pagemap: pfn$")
if [ "$with_pfns" = 1 ]; then
	tar tf "$tmp/v2/s.tar" | grep -q "^kpages$" && fail "format 2 holds kpages"
	python3 - "$convert" "$tmp/v1/s.tar" "$tmp/v2/s.tar" <<'PY' || fail "kpage_runs are not the script's encoding"
import importlib.util, sys, tarfile
spec = importlib.util.spec_from_file_location('fmt', sys.argv[1]); fmt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fmt)
with tarfile.open(sys.argv[2]) as t:
    kpages = t.extractfile('kpages').read()
with tarfile.open(sys.argv[3]) as t:
    runs = t.extractfile('kpage_runs').read()
print('kpages: %d PFNs, %d bytes; kpage_runs: %d bytes' % (len(kpages) // 24, len(kpages), len(runs)))
sys.exit(0 if runs == fmt.encode_kpages(kpages) and len(kpages) > 24 * 1000 and len(runs) < len(kpages) else 1)
PY
else
	echo "note: not root, no PFNs: kpage_runs not checked"
fi
# each distinct chunk once: the chunks of the expanded records, counted apart
python3 - "$tmp/v1/s.tar" "$tmp/v2/s.tar" <<'PY' || fail "the capture's chunks are not the distinct ones"
import struct, sys, tarfile
contents = set()
with tarfile.open(sys.argv[1]) as t:
    for m in t:
        if m.name.endswith('/pagemap'):
            chunks = {}
            for vaddr, entry in struct.iter_unpack('<QQ', t.extractfile(m).read()):
                chunks.setdefault(vaddr >> 21, []).append((vaddr & 0x1fffff, entry))
            contents.update(tuple(c) for c in chunks.values())
with tarfile.open(sys.argv[2]) as t:
    data = t.extractfile('pagemap_chunks').read()
count = at = 0
while at < len(data):
    at += 4 + struct.unpack_from('<I', data, at)[0]
    count += 1
print('distinct chunks: %d, in pagemap_chunks: %d' % (len(contents), count))
sys.exit(0 if count == len(contents) and len(contents) > 16 else 1)
PY
"$PTSCOPE" capture --format 1 --tree "$tree" -o "$tmp/old/s.tar" > /dev/null 2>&1 || fail "capture --format 1"
tar xOf "$tmp/old/s.tar" snapshot.info | grep -q "^format: ptscope-snapshot 1$" || fail "--format 1 does not say format 1"
tar tf "$tmp/old/s.tar" | grep -q "^$tree/pagemap$" || fail "--format 1 wrote no $tree/pagemap"
[ "$with_pfns" = 1 ] && { tar tf "$tmp/old/s.tar" | grep -q "^kpages$" || fail "--format 1 wrote no kpages"; }
"$PTSCOPE" info --verify "$tmp/old/s.tar" > /dev/null || fail "format 1 capture does not read"
"$PTSCOPE" capture --format 3 > /dev/null 2> "$tmp/err" && fail "--format 3 accepted"
grep -q "format '3': not a snapshot format" "$tmp/err" || fail "--format 3: $(cat "$tmp/err")"

# a format newer than 2 is refused with its line
python3 - "$tmp/v2/s.tar" "$tmp/new.tar" <<'PY' || fail "cannot write the format 3 tar"
import io, sys, tarfile
with tarfile.open(sys.argv[1]) as t, tarfile.open(sys.argv[2], 'w') as out:
    for m in t:
        data = t.extractfile(m).read() if m.isfile() else None
        if m.name == 'snapshot.info':
            data = data.replace(b'ptscope-snapshot 2', b'ptscope-snapshot 3')
        out.addfile(m, io.BytesIO(data) if data is not None else None)
PY
"$PTSCOPE" info "$tmp/new.tar" > /dev/null 2> "$tmp/err" && fail "format 3 read"
grep -q "new.tar: snapshot.info:1: snapshot format 3 is newer than this ptscope reads (1 to 2)" "$tmp/err" ||
	fail "format 3: $(cat "$tmp/err")"

# the reference snapshots, converted
for name in pg32 desktop; do
	[ -f "${SHARED_SNAPSHOTS:-}/$name.tar.gz" ] || { echo "note: no $name.tar.gz in ${SHARED_SNAPSHOTS:-(unset)}: not compared"; continue; }
	rm -rf "$tmp/a" "$tmp/b"; mkdir "$tmp/a" "$tmp/b"
	gzip -dc "$SHARED_SNAPSHOTS/$name.tar.gz" > "$tmp/a/s.tar"
	python3 "$convert" to2 "$tmp/a/s.tar" "$tmp/b/s.tar" || fail "$name: to2"
	tar tf "$tmp/b/s.tar" | grep -q "/pagemap$" && fail "$name: the conversion kept a PID/pagemap"
	same "$tmp/a" "$tmp/b" "$name, format 1 against format 2"
	shared_done=1
done
[ -n "${shared_done:-}" ] || skip "no reference snapshot in ${SHARED_SNAPSHOTS:-(unset)}; the live tree passed"
echo "ok"
