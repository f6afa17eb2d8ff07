#!/bin/sh
# Headers read as their era's compiler read them: gcc up to 3.x accepted an
# extern array of a struct its header defines further down (2.4's and 2.5's
# include/asm-i386/processor.h: init_tss[NR_CPUS] above struct tss_struct);
# clang refuses it in every unit.  On a copy of the 2.4 fixture with such a
# header: the declaration is read after the struct (0 errors from it) and the
# summary names it; an array of a struct the header never defines stays an
# error, named at the tree's own file and line; the graph loses nothing;
# and when the tree no longer needs it, the copy is not read.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
sh "$PTSCOPE_TESTS/deps.sh" jq >/dev/null 2>&1
command -v jq >/dev/null || skip "jq is not installed"
tree="$tmp/kernel-2.4"
cp -r "$PTSCOPE_TESTS/fixtures/kernel-2.4" "$tree" || fail "cannot copy the fixture"
cat > "$tree/include/asm-i386/processor.h" <<'H'
#ifndef _ASM_PROCESSOR_H
#define _ASM_PROCESSOR_H
#include <asm/page.h>
extern struct tss_struct init_tss[8];
struct tss_struct {
	unsigned long esp0;
	unsigned short bitmap[4];
};
static inline unsigned long tss_esp0(int cpu) { return init_tss[cpu].esp0; }

extern struct never_defined nowhere[4];
#endif
H
sed -i 's|^#include <linux/mm.h>$|#include <linux/mm.h>\n#include <asm/processor.h>|' "$tree/mm/rmap.c"
grep -q 'asm/processor.h' "$tree/mm/rmap.c" || fail "the fixture's mm/rmap.c did not take the include"
cg() { "$PTSCOPE" callgraph "$1" --cache-dir "$tmp/cache" -q --all --format json -o "$2"; }
pairs() { jq -r '(.nodes | map({(.id): .name}) | add) as $n | .edges[] | "\($n[.from]) \($n[.to])"' "$1" | sort -u; }
cg "$tree" "$tmp/era.json" || fail "exit status $?"
jq -e '.summary.compat == "extern arrays of a struct defined further down, read after the definition as gcc <= 3.x did: include/asm-i386/processor.h:4 (struct tss_struct)"' \
	"$tmp/era.json" >/dev/null || fail "compat: $(jq -c .summary.compat "$tmp/era.json")"
# the one real error stays, at the tree's file and its own line (11: lines keep their numbers)
jq -e '.summary.errors == 1 and ([.summary.error_sites[] | "\(.file):\(.line)"] == ["include/asm-i386/processor.h:11"])' \
	"$tmp/era.json" >/dev/null || fail "errors: $(jq -c '.summary | {errors, error_sites}' "$tmp/era.json")"
cg "$PTSCOPE_TESTS/fixtures/kernel-2.4" "$tmp/plain.json" || fail "plain fixture: exit status $?"
pairs "$tmp/plain.json" > "$tmp/plain.pairs"
pairs "$tmp/era.json" > "$tmp/era.pairs"
diff "$tmp/plain.pairs" "$tmp/era.pairs" >/dev/null || fail "the header changed the graph: $(diff "$tmp/plain.pairs" "$tmp/era.pairs" | head -5)"
jq -e '.summary.compat == null' "$tmp/plain.json" >/dev/null || fail "a tree without the construct says compat"
# the tree fixed: its own header is read again, not the copy
sed -i '/init_tss/d' "$tree/include/asm-i386/processor.h"
cg "$tree" "$tmp/fixed.json" || fail "fixed: exit status $?"
jq -e '.summary.compat == null and .summary.errors == 1 and .summary.error_sites[0].line == 9' "$tmp/fixed.json" >/dev/null ||
	fail "after the fix: $(jq -c '.summary | {compat, errors, error_sites}' "$tmp/fixed.json")"
echo "era headers: init_tss read after struct tss_struct, named in the summary; an undefined struct's array stays 1 error at processor.h:11"
