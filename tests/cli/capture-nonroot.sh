#!/bin/sh
# Capture without root: the kernel zeroes PFNs in pagemap for a process
# without CAP_SYS_ADMIN, so the snapshot must say `pagemap: present`, carry
# the present/swapped bits with PFN 0, and hold no kpages.  A root process is
# not readable by `nobody`: it is skipped and counted, not fatal.  A target
# directory `nobody` cannot write gives exit 2 (an output failure) and leaves nothing.
[ "$(id -u)" -eq 0 ] || { echo "needs root to switch to nobody"; exit 77; }
command -v setpriv >/dev/null || { echo "setpriv (util-linux) is missing"; exit 77; }
command -v python3 >/dev/null || { echo "no python3"; exit 77; }
id nobody >/dev/null 2>&1 || { echo "no user nobody"; exit 77; }
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
as_nobody() { setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups "$@"; }

chmod 755 "$tmp"
cp "$PTSCOPE" "$tmp/ptscope"        # reachable by nobody wherever the build is
mkdir "$tmp/out" "$tmp/locked"
chown nobody "$tmp/out"
chmod 755 "$tmp/locked"             # root's, not writable by nobody

setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups sleep 300 &   # not through the function: $! must be sleep
mine=$!
sleep 300 &
roots=$!
pids="$mine $roots"
for _ in $(seq 50); do
	[ "$(awk '$1 == "Uid:" { print $2 }' "/proc/$mine/status" 2>/dev/null)" = "$(id -u nobody)" ] &&
		grep -q sleep "/proc/$mine/cmdline" && break
	sleep 0.05
done

as_nobody "$tmp/ptscope" capture --pid "$mine" --pid "$roots" -o "$tmp/out/n.tar" >/dev/null 2>"$tmp/err" ||
	fail "capture as nobody failed: $(cat "$tmp/err")"
info=$(tar -xOf "$tmp/out/n.tar" snapshot.info)
echo "$info" | grep -qx 'pagemap: present' || fail "not 'pagemap: present' without root: $info"
echo "$info" | grep -qx 'processes: 1' || fail "want 1 process: $info"
echo "$info" | grep -qx 'skipped: 1' || fail "root's process is not counted as skipped: $info"
echo "$info" | grep -qx 'unreadable: 1' || fail "root's process is not counted as refused: $info"
grep -q "capture: 1 process could not be read (permission denied), the first pid $roots (sleep); run as root" "$tmp/err" ||
	fail "capture does not say what it could not see: $(cat "$tmp/err")"
"$PTSCOPE" info "$tmp/out/n.tar" | grep -qx 'refused at capture (permission denied): 1' || fail "info: refused count"
"$PTSCOPE" report "$tmp/out/n.tar" | grep -q '1 process skipped at capture (1 refused: permission denied; capture as root' ||
	fail "report does not say what the capture could not see"
tar -tf "$tmp/out/n.tar" | grep -q "^kpage" && fail "kpages or kpage_runs written without root"
tar -tf "$tmp/out/n.tar" | grep -q "^$roots/" && fail "root's process was written"
python3 "$PTSCOPE_TESTS/cli/snapshot-format.py" to1 "$tmp/out/n.tar" "$tmp/n1.tar" || fail "cannot expand format 2"
tar -xOf "$tmp/n1.tar" "$mine/pagemap" > "$tmp/pagemap" || fail "no $mine/pagemap"
python3 - "$tmp/pagemap" <<'EOF' || fail "pagemap records without root are wrong"
import struct, sys
raw = open(sys.argv[1], "rb").read()
assert len(raw) % 16 == 0 and len(raw) > 0, "length %d" % len(raw)
records = list(struct.iter_unpack("<QQ", raw))
assert [r[0] for r in records] == sorted(r[0] for r in records), "not ascending"
for vaddr, entry in records:
    assert entry >> 62, "record %x has neither present nor swapped" % vaddr
    if entry >> 63:
        assert entry & ((1 << 55) - 1) == 0, "PFN %x visible without root" % vaddr
print("%d records, all PFN 0" % len(records))
EOF
"$PTSCOPE" info "$tmp/out/n.tar" | grep -qx 'pagemap: present' || fail "info does not say pagemap: present"

# Unwritable target: exit 2 (output failure), a message, no file (not even a temporary one).
as_nobody "$tmp/ptscope" capture --pid "$mine" -o "$tmp/locked/n.tar" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "capture into an unwritable directory exited $rc"
grep -q "^ptscope: $tmp/locked/n.tar: " "$tmp/err" || fail "message: $(cat "$tmp/err")"
[ -z "$(ls -A "$tmp/locked")" ] || fail "left files behind: $(ls -A "$tmp/locked")"
echo "non-root capture says pagemap: present and skips what it cannot read"
