#!/bin/sh
# callgraph --format tree on the 2.4 fixture: cflow-style text, each function
# with its definition's file:line, expanded once ([see N] after), callees in
# call-site order.  The expected text (the fixture's EXPECTED-tree) is worked
# out by hand from the fixture sources: the roots are the entries nothing
# calls (do_page_fault, do_exit, do_fork, do_munmap, kswapd) in file order;
# the lines are where each function is defined (checked against the sources
# below with grep, apart from ptscope); handle_pte_fault calls do_no_page
# (line 83) before do_wp_page (85), shrink_cache page_referenced (9) before
# try_to_unmap (13).
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
fixture=$PTSCOPE_TESTS/fixtures/kernel-2.4
# every file:line of the expected trees (this one and callgraph-paths.sh's
# EXPECTED-path-*) is where the sources define that function
for want in "$fixture"/EXPECTED-tree "$fixture"/EXPECTED-path-*; do
	sed -n 's/^ *[0-9]* *\([a-z_]*\)() <\([^:]*\):\([0-9]*\)>.*/\1 \2 \3/p' "$want" | sort -u |
	while read -r name file line; do
		sed -n "${line}p" "$fixture/$file" | grep -q "[ *]$name(" ||
			fail "the test's own expectation $(basename "$want"): $name is not defined at $file:$line"
	done || exit 1
done
"$PTSCOPE" callgraph "$fixture" --no-cache -q --format tree > "$tmp/got" || fail "callgraph --format tree failed"
diff -u "$fixture/EXPECTED-tree" "$tmp/got" || fail "tree differs from the hand-worked one"
# -o x.txt picks the format; the file is the same text
"$PTSCOPE" callgraph "$fixture" --no-cache -q -o "$tmp/tree.txt" || fail "-o tree.txt"
cmp -s "$fixture/EXPECTED-tree" "$tmp/tree.txt" || fail "-o tree.txt differs"
# calls through a function pointer name the field (do_no_page -> ->nopage)
"$PTSCOPE" callgraph "$fixture" --no-cache -q --all --format tree > "$tmp/all" || fail "--all --format tree"
grep -q '^ *[0-9]*  *filemap_nopage() <mm/filemap.c:10> \[via vm_operations_struct.nopage\]' "$tmp/all" ||
	fail "indirect call not marked: $(cat "$tmp/all")"
grep -q '^ *[0-9]*  *shmem_nopage() <mm/shmem.c:14> \[via vm_operations_struct.nopage\]' "$tmp/all" ||
	fail "indirect call to shmem_nopage not marked"
# every [see N] and (recursive: see N) points at the line that expands that function
awk '{ n = $1; name = $2; sub(/\(\).*/, "", name); if (!/see [0-9]/) first[name] = n;
       else { match($0, /see [0-9]+/); ref = substr($0, RSTART + 4, RLENGTH - 4); if (first[name] != ref) bad = bad " " n } }
     END { if (bad) { print "bad references on lines" bad; exit 1 } }' "$tmp/all" || fail "--all tree references"
# png and pdf are binary: refused on a terminal unless -o is given
if command -v script > /dev/null; then
	for f in png pdf; do
		script -qec "$PTSCOPE callgraph $fixture --no-cache -q --format $f" /dev/null > "$tmp/tty" 2>&1; rc=$?
		[ $rc -eq 1 ] || fail "--format $f on a terminal: exit $rc"
		grep -q "binary" "$tmp/tty" || fail "--format $f on a terminal: $(head -c 300 "$tmp/tty")"
	done
	script -qec "$PTSCOPE callgraph $fixture --no-cache -q --format tree" /dev/null > "$tmp/tty" 2>&1 ||
		fail "--format tree on a terminal"
fi
exit 0
