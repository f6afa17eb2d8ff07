#!/bin/sh
# Every era parses cleanly: the 2.4, 2.5 and 2.6 fixture trees (our own small
# trees in those layouts) give 0 errors.  The 2.6 tree has i386 and x86_64
# beside each other, as 2.6.0-2.6.23 did:
#  - i386 (the default) is parsed for an i386 target (its page.h holds only
#    where sizeof(long) == 4) with arch/i386/Makefile's
#    -Iinclude/asm-i386/mach-default (its processor.h includes
#    <mach_apicdef.h> from there);
#  - a configuration with CONFIG_X86_64 chooses arch/x86_64, an x86_64 target
#    and arch/x86_64/Makefile's -D__FIXTURE_PAGE_OFFSET (page.h uses it);
#  - asm_offsets.h, where the tree's Makefile says kbuild writes it
#    (include/asm-$(ARCH)/asm_offsets.h), computed from the arch's own
#    asm-offsets.c: by hand, struct thread_info { task; exec_domain; flags;
#    status } gives i386 TI_task 0, TI_flags 8 (4-byte pointers),
#    PAGE_SIZE_asm 4096; x86_64 (flags and status are unsigned int) through
#    ENTRY(x) -> DEFINE(threadinfo_ ## x, ...): threadinfo_flags 16,
#    threadinfo_status 20, TI_flags 16; mm/memory.c checks TI_flags itself.
# Without the arch Makefile's flags the same tree has errors, and the summary
# names the files and their functions; --unresolved lists pointer calls.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v jq >/dev/null || { echo "skip: jq is not installed"; exit 77; }
cg() { "$PTSCOPE" callgraph --cache-dir "$tmp/cache" "$@"; }
f26="$PTSCOPE_TESTS/fixtures/kernel-2.6"

for tree in kernel-2.4 kernel-2.5 kernel-2.6; do
	cg "$PTSCOPE_TESTS/fixtures/$tree" -q --all --format json -o "$tmp/$tree.json" || fail "$tree: exit status $?"
	[ "$(jq .summary.errors "$tmp/$tree.json")" -eq 0 ] ||
		fail "$tree: $(jq .summary.errors "$tmp/$tree.json") errors, first: $(jq -r .summary.first_error "$tmp/$tree.json")"
done
[ "$(jq -r .summary.arch "$tmp/kernel-2.6.json")" = i386 ] || fail "2.6: i386 is the default layout"

offsets() { find "$tmp/cache/shim" -path "*/asmgen/asm/asm_offsets.h" -newer "$1" | xargs cat; }
value() { awk -v name="$2" '$1 == "#define" && $2 == name { print $3 }' "$1"; }
touch "$tmp/mark-i386"; sleep 0.01
rm -rf "$tmp/cache"
cg "$f26" -q --all --format json -o "$tmp/i386.json" || fail "2.6 i386 run"
offsets "$tmp/mark-i386" > "$tmp/i386.h"
[ "$(value "$tmp/i386.h" TI_task)" = 0 ] && [ "$(value "$tmp/i386.h" TI_flags)" = 8 ] &&
	[ "$(value "$tmp/i386.h" PAGE_SIZE_asm)" = 4096 ] || fail "i386 asm_offsets.h: $(cat "$tmp/i386.h")"
jq -e '.edges[] | select(.kind == "direct")' "$tmp/i386.json" >/dev/null || fail "2.6 i386: no edges"
names() { jq -r '(.nodes | map({(.id): "\(.name)@\(.file)"}) | add) as $n | .edges[] | "\($n[.from]) -> \($n[.to])"' "$1"; }
names "$tmp/i386.json" | grep -qx 'do_page_fault@arch/i386/mm/fault.c -> handle_mm_fault@mm/memory.c' ||
	fail "2.6 i386: the i386 fault handler is not parsed"
names "$tmp/i386.json" | grep -qx 'copy_one_pte@mm/memory.c -> page_dup_rmap@include/linux/rmap.h' ||
	fail "2.6 i386: fork's rmap edge is missing"

touch "$tmp/mark-x86_64"; sleep 0.01
cg "$f26" -q --all --config "$f26/x86_64.config" --format json -o "$tmp/x86_64.json" || fail "2.6 x86_64 run"
[ "$(jq -r .summary.arch "$tmp/x86_64.json")" = x86_64 ] || fail "2.6: CONFIG_X86_64 should choose arch/x86_64"
[ "$(jq .summary.errors "$tmp/x86_64.json")" -eq 0 ] ||
	fail "2.6 x86_64: $(jq .summary.errors "$tmp/x86_64.json") errors, first: $(jq -r .summary.first_error "$tmp/x86_64.json")"
offsets "$tmp/mark-x86_64" > "$tmp/x86_64.h"
[ "$(value "$tmp/x86_64.h" threadinfo_flags)" = 16 ] && [ "$(value "$tmp/x86_64.h" threadinfo_status)" = 20 ] &&
	[ "$(value "$tmp/x86_64.h" TI_flags)" = 16 ] || fail "x86_64 asm_offsets.h: $(cat "$tmp/x86_64.h")"
names "$tmp/x86_64.json" | grep -qx 'do_page_fault@arch/x86_64/mm/fault.c -> handle_mm_fault@mm/memory.c' ||
	fail "2.6 x86_64: the x86_64 fault handler is not parsed"

# without the arch Makefile: errors, and the summary says whose calls may be missing
cp -r "$f26" "$tmp/bare"
rm "$tmp/bare/arch/i386/Makefile"
cg "$tmp/bare" --all --format json -o "$tmp/bare.json" 2> "$tmp/bare.err" || fail "bare run"
[ "$(jq .summary.errors "$tmp/bare.json")" -gt 0 ] || fail "without mach-default the tree should not parse cleanly"
grep -q "mm/memory.c: [0-9]* errors\?; calls of its 4 functions may be missing: copy_one_pte copy_page_range do_anonymous_page handle_mm_fault" "$tmp/bare.err" ||
	fail "the summary does not name mm/memory.c's functions: $(cat "$tmp/bare.err")"
jq -e '.summary.error_files[] | select(.file == "mm/memory.c") | .functions | index("copy_page_range")' "$tmp/bare.json" >/dev/null ||
	fail "JSON summary.error_files lacks mm/memory.c"

# --unresolved: the 2.5 fixture's calls through pointers all resolve; a
# call through a field nothing stores into is listed with file and line
cp -r "$PTSCOPE_TESTS/fixtures/kernel-2.5" "$tmp/u25"
printf 'struct hook { void (*run)(int); };\nvoid call_hook(struct hook *h) { h->run(1); }\n' >> "$tmp/u25/mm/memory.c"
line=$(grep -n 'h->run(1)' "$tmp/u25/mm/memory.c" | cut -d: -f1)
cg "$tmp/u25" -q --unresolved -o "$tmp/unresolved.txt" || fail "--unresolved"
[ "$(cat "$tmp/unresolved.txt")" = "mm/memory.c:$line: call_hook calls through hook.run" ] ||
	fail "--unresolved listed: $(cat "$tmp/unresolved.txt")"
echo "callgraph eras: ok"
