#!/bin/sh
# ptscope callgraph on Debian's linux-source-6.12 with Debian's configuration
# (linux-config-6.12): 0 errors.  6.12's headers include
# <generated/asm-offsets.h>, which kbuild computes from
# arch/x86/kernel/asm-offsets.c; ptscope computes it with clang the same way.
# By hand, x86_64 struct pt_regs starts r15 r14 r13 r12 bp bx (8 bytes
# each): pt_regs_bx (asm-offsets_64.c's ENTRY(bx)) = 40, and its 21 words
# give PTREGS_SIZE = 168.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v jq >/dev/null || { echo "skip: jq is not installed"; exit 77; }
[ -f /usr/src/linux-config-6.12/config.amd64_none_amd64.xz ] ||
	{ echo "skip: linux-config-6.12 is not installed"; exit 77; }
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ptscope
tree=$(sh "$PTSCOPE_TESTS/kernel-source.sh" "$cache" 6.12) ||
	{ echo "skip: linux-source-6.12 could not be installed or unpacked"; exit 77; }
"$PTSCOPE" callgraph "$tree" -q --format json -o "$tmp/612.json" || fail "exit status $?"
[ "$(jq -r .summary.config "$tmp/612.json")" = /usr/src/linux-config-6.12/config.amd64_none_amd64.xz ] ||
	fail "configuration: $(jq -r .summary.config "$tmp/612.json")"
[ "$(jq .summary.errors "$tmp/612.json")" -eq 0 ] ||
	fail "$(jq .summary.errors "$tmp/612.json") errors, first: $(jq -r .summary.first_error "$tmp/612.json")"
[ "$(jq '.summary.error_files | length' "$tmp/612.json")" -eq 0 ] || fail "files with errors listed"
header=$(grep -l "computed by ptscope from arch/x86/kernel/asm-offsets.c" "$cache"/shim/*/config/generated/asm-offsets.h 2>/dev/null |
	xargs grep -l '^#define PTREGS_SIZE ' | head -1)
[ -n "$header" ] || fail "no generated asm-offsets.h in $cache/shim"
grep -qx '#define pt_regs_bx 40' "$header" && grep -qx '#define PTREGS_SIZE 168' "$header" ||
	fail "asm-offsets.h: pt_regs_bx/PTREGS_SIZE: $(grep -E 'pt_regs_bx|PTREGS_SIZE' "$header")"
echo "callgraph linux-6.12: ok"
