#!/bin/sh
# Names from input reach every format valid for its reader: a process whose
# comm holds a terminal escape, a newline, a comma, quotes and markup, mapping
# a file whose name holds invalid UTF-8 (0xff, a lone continuation byte, an
# overlong '/') and the same.  JSON is read by python3's json (strict UTF-8),
# XML by xmllint, CSV by python3's csv, HTML by xmllint --html; text output
# carries no control byte but its own tabs and newlines, with the escapes shown as \e.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
command -v xmllint >/dev/null || { echo "skip: xmllint not installed (libxml2-utils)"; exit 77; }
fixtures=$PTSCOPE_TESTS/fixtures/proc
snap=$tmp/snap
# two processes sharing a 4 MiB file mapping (so the file is listed by the
# sharing rules), pagemap with the same PFNs in both
python3 - "$fixtures" "$snap" <<'PY'
import os, struct, sys
fixtures, snap = sys.argv[1:]
os.makedirs(snap)
for name in ('version', 'meminfo'):
    open(f'{snap}/{name}', 'wb').write(open(f'{fixtures}/{name}', 'rb').read())
path = b'/tmp/\xff\x80x\xc0\xaf,"q"<a&b>\x1b[31m\tred'
comm = b'\x1b[2J\x1b[31m,"<x>&\n\x7f'
smaps = b'7f0000000000-7f0000400000 r--s 00000000 fe:00 1234    ' + path + b'\n' + b''.join(
    b'%s: %d kB\n' % (k, v) for k, v in ((b'Size', 4096), (b'KernelPageSize', 4), (b'MMUPageSize', 4),
    (b'Rss', 4096), (b'Pss', 2048), (b'Shared_Clean', 4096))) + b'VmFlags: rd sh mr mw me ms\n'
pagemap = b''.join(struct.pack('<QQ', 0x7f0000000000 + i * 4096, (1 << 63) | (0x1000 + i)) for i in range(1024))
for pid in (5969, 5970):
    d = f'{snap}/{pid}'
    os.makedirs(d)
    open(f'{d}/smaps', 'wb').write(smaps)
    open(f'{d}/pagemap', 'wb').write(pagemap)
    open(f'{d}/status', 'wb').write(open(f'{fixtures}/sleep.status', 'rb').read())
    open(f'{d}/cmdline', 'wb').write(comm + b'\0arg\0')
    open(f'{d}/stat', 'wb').write(b'%d (' % pid + comm + b') S 1 1 1 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 30552 2990\n')
PY
"$PTSCOPE" info --per-process "$snap" > "$tmp/info.txt" || fail "info refused the snapshot"
for format in text json xml html; do
	"$PTSCOPE" report "$snap" --per-process --per-file --format $format -o "$tmp/r.$format" 2> "$tmp/err" ||
		fail "report --format $format: $(cat "$tmp/err")"
done
# CSV is one table: processes, then files
for table in process file; do
	"$PTSCOPE" report "$snap" --per-$table --format csv -o "$tmp/r-$table.csv" 2> "$tmp/err" ||
		fail "report --format csv --per-$table: $(cat "$tmp/err")"
done
python3 - "$tmp" <<'PY' || exit 1
import csv, io, json, sys
d = sys.argv[1]
r = json.load(open(d + '/r.json', encoding='utf-8', errors='strict'))
comms = [p['comm'] for p in r['processes']]
assert comms == ['\x1b[2J\x1b[31m,"<x>&\n\x7f'] * 2, comms
paths = [f['path'] for s in r['sharing'] for f in s['files']]
want = '/tmp/\ufffd\ufffdx\ufffd\ufffd,"q"<a&b>\x1b[31m\tred'
assert want in paths, paths
for table, column, value in (('process', 'comm', comms[0]), ('file', 'path', want)):
    rows = list(csv.reader(io.open(d + '/r-' + table + '.csv', encoding='utf-8', errors='strict', newline='')))
    assert rows[0][:3] == ['host', 'kernel', 'captured_at'], 'csv: no header row'
    assert all(len(row) == len(rows[0]) for row in rows), 'csv: a row of another width'
    assert value in [dict(zip(rows[0], row))[column] for row in rows[1:]], 'csv: ' + column + ' lost'
for name in ('r.text', 'info.txt'):
    raw = open(d + '/' + name, 'rb').read()
    assert not any(b < 32 and b not in (9, 10) or b == 127 for b in raw), name + ': a raw control byte'
    text = raw.decode('utf-8', errors='strict')
    shown = '\\e[2J\\e[31m,"<x>&\\n\\x7f' if name == 'info.txt' else '\\e[2J\\e[31m,"<x>'  # 16 columns
    assert shown in text, name + ': comm not shown escaped'
text = open(d + '/r.text', encoding='utf-8').read()
assert '/tmp/\\xff\\x80x\\xc0\\xaf,"q"<a&b>\\e[31m\\tred' in text, 'text: path not shown escaped'
PY
xmllint --noout "$tmp/r.xml" 2> "$tmp/err" || fail "XML not well-formed: $(head -3 "$tmp/err")"
xmllint --html --noout "$tmp/r.html" 2> "$tmp/err" || fail "HTML not parsed: $(head -3 "$tmp/err")"
grep -q '&lt;a&amp;b&gt;' "$tmp/r.html" || fail "HTML: path markup not escaped"
python3 -c 'import sys; sys.exit(b"\x1b" in open(sys.argv[1], "rb").read())' "$tmp/r.html" || fail "HTML: raw escape byte"
# an error message naming such a member is one escaped line too
printf 'Size: 9 kB\n' > "$snap/5969/smaps"
"$PTSCOPE" info "$snap" > /dev/null 2> "$tmp/err" && fail "broken smaps accepted"
[ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "error is not one line: $(cat "$tmp/err")"
exit 0
