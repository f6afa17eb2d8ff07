#!/bin/sh
# A real capture by Debian's smemcap (package `smemcap`, built from smem's
# smemcap.c) read by `ptscope info`.  smemcap's tar has quirks: a header of
# stack garbage for a /proc file it cannot open, typeflag '4' on regular
# files (it prints the character '0' with %d), no end-of-archive blocks.
# Independently of ptscope, a few lines of python walk the raw 512-byte
# headers trusting only name and size, and count: processes = non-empty
# PID/smaps, kernel threads = empty ones, and per pid the VMA header lines
# and the Rss sum, which `ptscope info --per-process` must reproduce.  An
# empty smaps whose stat says state Z or X is a zombie (exited, unreaped: the
# parallel tests leave some for a moment), not a kernel thread.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
smemcap=$(command -v smemcap || echo /usr/bin/smemcap)
[ -x "$smemcap" ] || { echo "smemcap is not installed (Debian package smemcap; make deps)"; exit 77; }
command -v python3 >/dev/null || { echo "no python3"; exit 77; }

# one zombie of our own: a child that exits under a parent that never waits
sh -c 'sleep 0 & exec sleep 4' &
parent=$!
sleep 0.5
(cd "$tmp" && "$smemcap" > cap.tar) || fail "smemcap failed"
{ "$PTSCOPE" info "$tmp/cap.tar" && "$PTSCOPE" info --per-process "$tmp/cap.tar"; } > "$tmp/info" 2>"$tmp/err" ||
	fail "info cannot read smemcap's capture: $(cat "$tmp/err")"

python3 - "$tmp/cap.tar" > "$tmp/want" <<'EOF' || fail "the test's own tar walk failed"
import re, sys
data = open(sys.argv[1], "rb").read()
header = re.compile(rb"^[0-9a-f]+-[0-9a-f]+ ", re.M)
at, smaps, states = 0, {}, {}
while at + 512 <= len(data):
    block = data[at:at + 512]
    if block == bytes(512):
        break
    name = block[:100].split(b"\0")[0].decode()
    size = int(block[124:136].split(b"\0")[0].strip() or b"0", 8)
    body = data[at + 512:at + 512 + size]
    at += 512 + (size + 511) // 512 * 512
    m = re.fullmatch(r"(\d+)/(smaps|stat)", name)
    if m and m.group(2) == "smaps":
        smaps[int(m.group(1))] = body
    elif m and body.rfind(b")") > 0:
        states[int(m.group(1))] = body[body.rfind(b")") + 2:][:1]
users = {p: b for p, b in smaps.items() if b}
zombies = [p for p, b in smaps.items() if not b and states.get(p) in (b"Z", b"X")]
print("processes: %d" % len(users))
print("kernel threads skipped: %d" % (len(smaps) - len(users) - len(zombies)))
print("zombies skipped: %d" % len(zombies))
for pid in sorted(users):
    body = users[pid]
    rss = sum(int(x) for x in re.findall(rb"^Rss:\s+(\d+) kB", body, re.M))
    print("%d %d %d" % (pid, len(header.findall(body)), rss))
EOF

n=$(sed -n 's/^processes: //p' "$tmp/want")
[ "$n" -gt 0 ] || fail "smemcap captured no process"
grep -qx "processes: $n" "$tmp/info" || fail "info: $(grep '^processes' "$tmp/info"), the tar holds $n non-empty smaps"
k=$(sed -n 's/^kernel threads skipped: //p' "$tmp/want")
grep -qx "kernel threads skipped: $k" "$tmp/info" || fail "info: $(grep '^kernel threads' "$tmp/info"), want $k"
z=$(sed -n 's/^zombies skipped: //p' "$tmp/want")
[ "$z" -ge 1 ] || fail "the tar holds no zombie, though the test made one under pid $parent"
grep -qx "zombies skipped: $z" "$tmp/info" || fail "info: $(grep '^zombies' "$tmp/info"), want $z"
grep -qx 'format: smemcap' "$tmp/info" || fail "info does not call it an smemcap capture"
grep -E '^[0-9]+ ' "$tmp/want" > "$tmp/want.pids"
awk -F'\t' '$1 ~ /^[0-9]+$/ { print $1, $3, $4 }' "$tmp/info" > "$tmp/got.pids"
cmp -s "$tmp/want.pids" "$tmp/got.pids" || {
	diff "$tmp/want.pids" "$tmp/got.pids" | head
	fail "per-process VMAs or Rss differ from the tar"
}
# no snapshot.info: the kernel release comes from the version member
grep -qx "kernel: $(uname -r)" "$tmp/info" || fail "kernel line is not '$(uname -r)': $(grep '^kernel:' "$tmp/info")"
echo "smemcap capture read: $n processes, $k kernel threads, $z zombies"
