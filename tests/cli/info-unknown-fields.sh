#!/bin/sh
# smaps fields a newer kernel prints and ptscope does not know: info names
# each with the VMAs that show it (kept, not modelled); a snapshot without
# any says nothing of them.  Counts worked out from the lines added here.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
fixture=$PTSCOPE_TESTS/fixtures/proc
make_snapshot() {  # DIR AWK-PROGRAM: the fixture's process, its smaps passed through the program
	mkdir -p "$1/5969"
	cp "$fixture/version" "$fixture/meminfo" "$1/"
	for f in stat status cmdline; do cp "$fixture/sleep.$f" "$1/5969/$f"; done
	awk "$2" "$fixture/sleep.smaps" > "$1/5969/smaps"
}
make_snapshot "$tmp/plain" '{ print }'
"$PTSCOPE" info "$tmp/plain" > "$tmp/plain.out" || fail "info on the fixture: $(cat "$tmp/plain.out")"
grep -q 'not known' "$tmp/plain.out" && fail "info names unknown fields where there are none: $(cat "$tmp/plain.out")"
# after the first two Rss lines, NewField_A (2 VMAs); after the first, also
# ten more names, B to K: eight names are shown (A to H), and the 3 lines of
# I, J and K counted
make_snapshot "$tmp/newer" '{ print } /^Rss:/ && ++rss <= 2 { print "NewField_A:       3 kB" }
	/^Rss:/ && rss == 1 { for (i = 0; i < 10; i++) printf "NewField_%c:  1\n", 66 + i }'
"$PTSCOPE" info "$tmp/newer" > "$tmp/newer.out" || fail "info with unknown fields: $(cat "$tmp/newer.out")"
grep -qx 'smaps fields not known (kept, not modelled): NewField_A (2 VMAs), NewField_B (1 VMA), NewField_C (1 VMA), NewField_D (1 VMA), NewField_E (1 VMA), NewField_F (1 VMA), NewField_G (1 VMA), NewField_H (1 VMA), and 3 lines of other fields' "$tmp/newer.out" ||
	fail "info's unknown fields: $(grep 'not known' "$tmp/newer.out")"
# a process skipped as bad (pid 50: an Rss of x) takes its field with it
mkdir "$tmp/newer/50"
for f in stat status cmdline; do sed 's/5969/50/' "$fixture/sleep.$f" > "$tmp/newer/50/$f"; done
printf '00400000-00401000 r--p 00000000 00:00 0 \nSize: 4 kB\nGone_Field: 1 kB\nRss: x kB\n' > "$tmp/newer/50/smaps"
"$PTSCOPE" info --skip-bad "$tmp/newer" > "$tmp/skip.out" 2> "$tmp/skip.err" || fail "info --skip-bad: $(cat "$tmp/skip.err")"
grep -qx 'skipped as bad: 1' "$tmp/skip.out" || fail "pid 50 not skipped: $(cat "$tmp/skip.out")"
grep -q 'Gone_Field' "$tmp/skip.out" && fail "a skipped process's field named: $(grep 'not known' "$tmp/skip.out")"
grep -q 'not known (kept, not modelled): NewField_A (2 VMAs), ' "$tmp/skip.out" || fail "info --skip-bad's unknown fields: $(cat "$tmp/skip.out")"
echo "ok: info names the smaps fields it does not know, with their VMAs, not a skipped process's"
