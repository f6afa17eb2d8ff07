#!/bin/sh
# report --brief: the answer for a mail in at most 80 columns and 22 lines,
# with the figures of the full report (pg32: shpt-2006 saves 1,773 PTE pages
# = 6.9 MiB, 6.1-x86_64's rmap 1.2 MiB, the fork copies 597 PTE pages; desktop:
# 0 pages, identical 94, aligned-what-if 80; desktop's fork copies as the fork section says); the full text fits 100 columns
# and wraps its prose at COLUMNS; --brief with another format is refused.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
need_snapshot pg32.tar.gz
need_snapshot desktop.tar.gz
widest() { awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$1"; }
check_brief() { # NAME WANT...
	name=$1; shift
	env -u COLUMNS "$PTSCOPE" report "$SHARED_SNAPSHOTS/$name.tar.gz" --brief > "$tmp/$name.brief" || fail "$name --brief"
	[ "$(widest "$tmp/$name.brief")" -le 80 ] || fail "$name --brief is $(widest "$tmp/$name.brief") columns wide"
	[ "$(wc -l < "$tmp/$name.brief")" -le 22 ] || fail "$name --brief is $(wc -l < "$tmp/$name.brief") lines"
	tr '\n' ' ' < "$tmp/$name.brief" | tr -s ' ' > "$tmp/$name.flat"
	for want in "$@"; do
		grep -qF -- "$want" "$tmp/$name.flat" || fail "$name --brief lacks '$want': $(cat "$tmp/$name.brief")"
	done
	env -u COLUMNS "$PTSCOPE" report "$SHARED_SNAPSHOTS/$name.tar.gz" > "$tmp/$name.txt" || fail "$name text"
	[ "$(widest "$tmp/$name.txt")" -le 100 ] || fail "$name: the text report is $(widest "$tmp/$name.txt") columns wide"
	COLUMNS=120 "$PTSCOPE" report "$SHARED_SNAPSHOTS/$name.tar.gz" > "$tmp/$name.120" || fail "$name COLUMNS=120"
	w=$(widest "$tmp/$name.120"); [ "$w" -gt 100 ] && [ "$w" -le 120 ] || fail "$name: COLUMNS=120 gave $w columns"
}
check_brief pg32 "shared page tables (shpt-2006) would save 1,773 PTE pages = 6.9 MiB of the 11.3 MiB" \
	"page tables 11.3 MiB exact (2,676 PTE pages); VmPTE says 11.3 MiB" "D5 6.1-x86_64 1.2 MiB" \
	"D1 2.4-rmap-x86_64 13.2 MiB" "shpt-2006 1,773 pages 6.9 MiB 61.1%" "copies 597 PTE pages (30,223 PTEs)"
check_brief desktop "would save 0 PTE pages = 0 B of the 2.8 MiB" "D5 6.1-x86_64 538.5 KiB" \
	"identical 94 pages 376.0 KiB" "aligned-what-if 80 pages 320.0 KiB" "copies 410 PTE pages (33,248 PTEs)"
"$PTSCOPE" report "$SHARED_SNAPSHOTS/pg32.tar.gz" --brief --format json > "$tmp/x" 2> "$tmp/err"; rc=$?
[ $rc -eq 1 ] && [ ! -s "$tmp/x" ] || fail "--brief --format json: exit $rc"
grep -q -- "--brief is the text answer alone" "$tmp/err" || fail "--brief --format json said: $(cat "$tmp/err")"
exit 0
