#!/bin/sh
# Members a snapshot cannot hold, refused by name in one line (exit 1):
# in a directory, a symbolic link out of it (version -> /etc/passwd, a
# process folder -> /proc/self, status -> /proc/self/status), a FIFO (would
# block), a device (/dev/zero has no end); in a tar, a member larger than its
# kind can be (a meminfo of 4 GiB), refused from its header without reading:
# within 5 s and 64 MiB.  A read error names the process (1/smaps, not smaps).
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
f=$PTSCOPE_TESTS/fixtures/proc
good() {
	rm -rf "$tmp/s"; mkdir -p "$tmp/s/1"
	cp "$f/version" "$f/meminfo" "$tmp/s/"
	for m in smaps stat status cmdline; do cp "$f/sleep.$m" "$tmp/s/1/$m"; done
	sed -i 's/^5969 /1 /' "$tmp/s/1/stat"
}
refused() {  # WHAT MEMBER: the snapshot in $tmp/s is refused naming MEMBER
	timeout 5 "$PTSCOPE" info "$tmp/s" > /dev/null 2> "$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$1: exit $rc, want 1: $(cat "$tmp/err")"
	[ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "$1: not one line: $(cat "$tmp/err")"
	grep -q "s: $2: " "$tmp/err" || fail "$1: message does not name $2: $(cat "$tmp/err")"
}
good; "$PTSCOPE" info "$tmp/s" > /dev/null || fail "the good snapshot is refused"
good; rm "$tmp/s/version"; ln -s /etc/passwd "$tmp/s/version"; refused "version -> /etc/passwd" version
grep -q "symbolic link" "$tmp/err" || fail "symlink: message does not say so: $(cat "$tmp/err")"
good; rm "$tmp/s/1/status"; ln -s /proc/self/status "$tmp/s/1/status"; refused "status -> /proc" 1/status
good; mv "$tmp/s/1" "$tmp/s/1.real"; ln -s /proc/self "$tmp/s/1"; refused "1 -> /proc/self" 1
good; rm "$tmp/s/meminfo"; mkfifo "$tmp/s/meminfo"; refused "FIFO meminfo" meminfo
grep -q "FIFO" "$tmp/err" || fail "FIFO: message does not say so"
if mknod "$tmp/zero" c 1 5 2>/dev/null; then
	good; rm "$tmp/s/1/smaps"; mv "$tmp/zero" "$tmp/s/1/smaps"; refused "device smaps" 1/smaps
	grep -q "device" "$tmp/err" || fail "device: message does not say so"
else
	echo "note: mknod not permitted: the device case is not run"
fi
# a read error names the pid (a directory where smaps belongs)
good; rm "$tmp/s/1/smaps"; mkdir "$tmp/s/1/smaps"; refused "smaps is a folder" 1/smaps
# a tar whose meminfo claims 4 GiB, compressed to almost nothing (only the header and 1 MiB follow)
python3 - "$tmp/big.tar" <<'PY' || fail "could not write the tar"
import sys, tarfile, io
info = tarfile.TarInfo('meminfo'); info.size = 4 << 30
header = info.tobuf(format=tarfile.GNU_FORMAT)
open(sys.argv[1], 'wb').write(header + b'\0' * (1 << 20))
PY
gzip -f "$tmp/big.tar"
/usr/bin/time -f '%M' -o "$tmp/usage" timeout 5 "$PTSCOPE" info "$tmp/big.tar.gz" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "4 GiB meminfo: exit $rc: $(cat "$tmp/err")"
grep -q "big.tar.gz: meminfo: 4294967296 bytes: such a member holds at most 1048576" "$tmp/err" || fail "4 GiB meminfo: $(cat "$tmp/err")"
kib=$(tail -n 1 "$tmp/usage")
[ "$kib" -lt 65536 ] || fail "4 GiB meminfo: $((kib / 1024)) MiB used"
# in a tar, the same shapes: a symbolic link, a FIFO, a device, a hard link
# (they were read as empty members, exit 0), refused naming the member
good
for shape in symlink:version fifo:meminfo device:1/status hardlink:1/smaps; do
	kind=${shape%%:*} member=${shape#*:}
	python3 - "$tmp/s" "$tmp/shape.tar" "$kind" "$member" <<'PY' || fail "could not write the $kind tar"
import os, sys, tarfile
folder, path, kind, member = sys.argv[1:5]
with tarfile.open(path, 'w') as t:
    for name in ('version', 'meminfo', '1/stat', '1/status', '1/cmdline', '1/smaps'):
        if name != member:
            t.add(os.path.join(folder, name), name)
    info = tarfile.TarInfo(member)
    if kind == 'symlink':
        info.type, info.linkname = tarfile.SYMTYPE, '/etc/passwd'
    elif kind == 'fifo':
        info.type = tarfile.FIFOTYPE
    elif kind == 'device':
        info.type, info.devmajor, info.devminor = tarfile.CHRTYPE, 1, 5
    else:
        info.type, info.linkname = tarfile.LNKTYPE, '1/cmdline'
    t.addfile(info)
PY
	timeout 5 "$PTSCOPE" info "$tmp/shape.tar" > /dev/null 2> "$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || fail "tar $kind $member: exit $rc, want 1: $(cat "$tmp/err")"
	[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "shape.tar: $member: .*not a snapshot member" "$tmp/err" ||
		fail "tar $kind $member: $(cat "$tmp/err")"
done
exit 0
