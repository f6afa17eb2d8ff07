#!/bin/sh
# The readers issue 19 added take hostile input too:
#  - report --calibration FILE goes through the one bounded reader: a FIFO no
#    one writes to is refused after 10 s (fopen blocked for ever), /dev/zero
#    and a folder are refused naming the file, `-o` the calibration itself is
#    refused; numbers out of any range (own_vmas 1e300 was cast to size_t,
#    undefined behaviour; a term of 1e300 us; a negative residual) are named;
#  - bench fork --like SNAPSHOT: a VMA's path that is a FIFO is never opened
#    (the rebuilding child blocked in open for ever), a device neither; a file
#    offset off a page or past the largest file is refused before mapping; a
#    process claiming terabytes present is refused before anything is kept.
# Each: exit 1, one line naming the file, within 30 s (x3 under sanitizers).
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
scale=1
ldd "$PTSCOPE" 2>/dev/null | grep -q asan && scale=3
refused() {  # WHAT PATTERN COMMAND...
	what=$1 pattern=$2
	shift 2
	timeout $((30 * scale)) "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$what: exit $rc, want 1: $(head -c 300 "$tmp/err")"
	[ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "$what: not one line: $(head -c 600 "$tmp/err")"
	grep -q -- "$pattern" "$tmp/err" || fail "$what: message lacks '$pattern': $(cat "$tmp/err")"
}

server_snapshot "$tmp/snap" x86_64 0x400000
calibration() {  # OWN_VMAS BASE_US RESIDUAL_US > a calibration file (version 2: three fits alike)
	printf '{"ptscope_calibration": 2, "own_vmas": %s, "munmap_us": 20, "fits": {' "$1"
	for fit in whole fork exit; do
		[ $fit = whole ] || printf ', '
		printf '"%s": {"base_us": %s, "residual_us": %s, "terms": [' $fit "$2" "$3"
		printf '{"name": "fork", "us": 100, "error_us": 1}, {"name": "vma", "us": 0.5, "error_us": 0.1}, '
		printf '{"name": "pte_page", "us": 0.2, "error_us": 0.1}, {"name": "pte", "us": 0.01, "error_us": 0.001}, '
		printf '{"name": "anon_vma", "us": 0.3, "error_us": 0.1}]}'
	done
	printf '}}\n'
}
calibration 100 50 1 > "$tmp/good.cal"
"$PTSCOPE" report "$tmp/snap" --calibration "$tmp/good.cal" --format json > "$tmp/out" 2> "$tmp/err" ||
	fail "the good calibration: $(cat "$tmp/err")"
# base 50 + vma 0.5 x 2 VMAs + pte_page 0.2 + pte 0.01 + anon_vma 0.3 = 51.51 us
python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["time"]["total"]; assert abs(t["fork_us"] - 51.51) < 0.01, t' \
	"$tmp/out" || fail "good calibration priced: $(head -c 600 "$tmp/out")"

mkfifo "$tmp/cal.fifo"
refused "--calibration FIFO" "cal.fifo: a FIFO no one wrote to in 10 s" \
	"$PTSCOPE" report "$tmp/snap" --calibration "$tmp/cal.fifo"
refused "--calibration /dev/zero" "/dev/zero: more than 1 MiB: no calibration is that large" \
	"$PTSCOPE" report "$tmp/snap" --calibration /dev/zero
mkdir "$tmp/folder.cal"
refused "--calibration a folder" "folder.cal: Is a directory" \
	"$PTSCOPE" report "$tmp/snap" --calibration "$tmp/folder.cal"
calibration 1e300 50 1 > "$tmp/vmas.cal"
refused "own_vmas 1e300" "vmas.cal: 'own_vmas' is 1e+300: out of range" \
	"$PTSCOPE" report "$tmp/snap" --calibration "$tmp/vmas.cal"
calibration -3 50 1 > "$tmp/negative.cal"
refused "own_vmas -3" "negative.cal: 'own_vmas' is -3: not a count of VMAs" \
	"$PTSCOPE" report "$tmp/snap" --calibration "$tmp/negative.cal"
calibration 100 1e300 1 > "$tmp/base.cal"
refused "base_us 1e300" "base.cal: 'base_us' is 1e+300: out of range" \
	"$PTSCOPE" report "$tmp/snap" --calibration "$tmp/base.cal"
calibration 100 50 -2 > "$tmp/residual.cal"
refused "residual_us -2" "residual.cal: fit 'whole': 'residual_us' is -2: a residual is never negative" \
	"$PTSCOPE" report "$tmp/snap" --calibration "$tmp/residual.cal"
cp "$tmp/good.cal" "$tmp/keep.cal"
refused "-o the calibration" "is one of this run's inputs" \
	"$PTSCOPE" report "$tmp/snap" --calibration "$tmp/good.cal" --format text -o "$tmp/good.cal"
cmp -s "$tmp/good.cal" "$tmp/keep.cal" || fail "-o the calibration changed it"

# bench fork --like: the file-backed VMA's path made a FIFO, then a device
like() {  # SMAPS-EDIT: a copy of the snapshot with its smaps edited by sed
	rm -rf "$tmp/like"
	cp -r "$tmp/snap" "$tmp/like"
	sed -i "$1" "$tmp/like/7/smaps"
}
mkfifo "$tmp/server.fifo"
like "s|/usr/sbin/server|$tmp/server.fifo|"
timeout $((30 * scale)) "$PTSCOPE" bench fork --like "$tmp/like:7" --runs 2 --format json > "$tmp/out" 2> "$tmp/err" ||
	fail "--like with a FIFO for a path: exit $?: $(cat "$tmp/err")"
like "s|/usr/sbin/server|/dev/zero|"
timeout $((30 * scale)) "$PTSCOPE" bench fork --like "$tmp/like:7" --runs 2 --format json > "$tmp/out" 2> "$tmp/err" ||
	fail "--like with a device for a path: exit $?: $(cat "$tmp/err")"
like "1s|r-xp 00000000|r-xp 00000010|"
refused "--like, offset off a page" "VMA 0 (400000-403000): file offset 0x10 cannot be mapped" \
	"$PTSCOPE" bench fork --like "$tmp/like:7" --runs 2
like "1s|r-xp 00000000|r-xp 7ffffffffffff000|"
refused "--like, offset past the largest file" "file offset 0x7ffffffffffff000 cannot be mapped" \
	"$PTSCOPE" bench fork --like "$tmp/like:7" --runs 2
# 64 TiB of anonymous memory all present, without pagemap records to count
like "s|^Rss: .*|&|"
rm "$tmp/like/7/pagemap"
sed -i '/^pagemap: pfn$/d' "$tmp/like/snapshot.info"
printf '00400000-00403000 r-xp 00000000 08:01 5          /usr/sbin/server\nSize: 12 kB\nRss: 12 kB\nAnonymous: 0 kB\n' > "$tmp/like/7/smaps"
printf '100000000000-500000000000 rw-p 00000000 00:00 0\nSize: 68719476736 kB\nRss: 68719476736 kB\nAnonymous: 68719476736 kB\n' >> "$tmp/like/7/smaps"
/usr/bin/time -f '%M' -o "$tmp/usage" timeout $((30 * scale)) "$PTSCOPE" bench fork --like "$tmp/like:7" --runs 2 > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q "process 7 has [0-9]* MiB present: more than half of the memory available" "$tmp/err" ||
	fail "--like, 64 TiB present: exit $rc: $(head -c 300 "$tmp/err")"
[ "$(tail -n 1 "$tmp/usage")" -le $((256 * 1024 * scale)) ] || fail "--like, 64 TiB present: used $(tail -n 1 "$tmp/usage") KiB"
exit 0
