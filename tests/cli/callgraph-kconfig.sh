#!/bin/sh
# A tree given only its arch's minimal defconfig, or nothing: the rest of the
# configuration comes from its Kconfig files, read as data (nothing of the
# tree runs).  The fixture (tests/fixtures/kernel-kconfig) compiles only when
# the values are right: CONFIG_X86_L1_CACHE_SHIFT 6 through the CPU choice's
# default, a default naming another symbol, a hex default; its calls show
# a select (HAVE_ARCH_SOFT_DIRTY), "# CONFIG_SWAP is not set" against a
# default y, "if MMU", a menu depending on !MMU, a dependency on a symbol no
# entry defines, a help text that looks like an entry and a $(success,...)
# probe that must not run (one in a string with quotes of its own), a defconfig symbol no entry defines (dropped) and
# a string the user may set (""), and an entry inside the choice that depends
# on a member (an option under it, not a member: the choice keeps GENERIC_CPU).  Symbols set, counted by hand from the
# fixture's Kconfig files: 64BIT X86_64 X86 MMU GENERIC_CPU X86_L1_CACHE_SHIFT
# X86_INTERNODE_CACHE_SHIFT HAVE_ARCH_SOFT_DIRTY BLOCK PAGE_OFFSET_DEMO
# MMU_ONLY CROSS_COMPILE, and SWAP without the defconfig; the defconfig
# already says 64BIT.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
sh "$PTSCOPE_TESTS/deps.sh" jq >/dev/null 2>&1
command -v jq >/dev/null || skip "jq is not installed"
tree="$tmp/kernel-kconfig"
cp -r "$PTSCOPE_TESTS/fixtures/kernel-kconfig" "$tree" || fail "cannot copy the fixture"
cg() { "$PTSCOPE" callgraph "$1" --cache-dir "$tmp/cache" -q --all --format json -o "$2"; }
pairs() { jq -r '(.nodes | map({(.id): .name}) | add) as $n | .edges[] | "\($n[.from]) \($n[.to])"' "$1" | sort -u; }
has() { grep -qx "$2" "$1" || fail "$3: no call $2 in $(tr '\n' ',' < "$1")"; }
lacks() { ! grep -qx "$2" "$1" || fail "$3: call $2 should not be there"; }

cg "$tree" "$tmp/defconfig.json" || fail "defconfig: exit status $?"
jq -e '.summary.errors == 0' "$tmp/defconfig.json" >/dev/null ||
	fail "defconfig: errors $(jq -c '[.summary.error_sites[] | "\(.file):\(.line) \(.message)"]' "$tmp/defconfig.json")"
jq -e '.summary.config | endswith("/arch/x86/configs/x86_64_defconfig; Kconfig defaults and selects from 4 files: 11 symbols set, settled in 3 passes; 1 symbols no Kconfig entry defines dropped; 2 compiler or shell probes not run (taken as n); supplied CONFIG_SHMEM")' \
	"$tmp/defconfig.json" >/dev/null || fail "defconfig: config $(jq -c .summary.config "$tmp/defconfig.json")"
pairs "$tmp/defconfig.json" > "$tmp/defconfig.pairs"
has "$tmp/defconfig.pairs" "copy_pte_range page_dup_rmap" defconfig
has "$tmp/defconfig.pairs" "zap_pte_range page_remove_rmap" defconfig
has "$tmp/defconfig.pairs" "do_anonymous_page page_add_new_anon_rmap" "defconfig (if MMU)"
has "$tmp/defconfig.pairs" "vm_normal_page soft_dirty_fixture" "defconfig (select)"
has "$tmp/defconfig.pairs" "do_anonymous_page ksm_fixture" "defconfig (its own y)"
has "$tmp/defconfig.pairs" "do_anonymous_page tuned_fixture" "defconfig (an option under a choice's member)"
lacks "$tmp/defconfig.pairs" "zap_pte_range free_swap_and_cache" "defconfig (is not set)"
for only in nommu thp help probe experimental; do
	lacks "$tmp/defconfig.pairs" "do_anonymous_page ${only}_fixture_only" "defconfig"
done

# no defconfig at all: Kconfig's defaults alone (SWAP's default y now holds, KSM has none)
rm -r "$tree/arch/x86/configs"
cg "$tree" "$tmp/none.json" || fail "no defconfig: exit status $?"
jq -e '.summary.errors == 0 and (.summary.config | startswith("no .config or defconfig; Kconfig defaults and selects from 4 files: 13 symbols set"))' \
	"$tmp/none.json" >/dev/null || fail "no defconfig: $(jq -c '.summary | {errors, config}' "$tmp/none.json")"
pairs "$tmp/none.json" > "$tmp/none.pairs"
has "$tmp/none.pairs" "zap_pte_range free_swap_and_cache" "no defconfig (default y)"
lacks "$tmp/none.pairs" "do_anonymous_page ksm_fixture" "no defconfig"

# a Kconfig file may not send the reader outside the tree
mkdir -p "$tmp/outside"
echo 'config OUTSIDE' > "$tmp/outside/Kconfig"
printf 'source "../outside/Kconfig"\n' >> "$tree/mm/Kconfig"
line=$(wc -l < "$tree/mm/Kconfig")
status=0
"$PTSCOPE" callgraph "$tree" --cache-dir "$tmp/cache" -q --format json -o "$tmp/outside.json" 2>"$tmp/outside.err" || status=$?
[ "$status" = 1 ] || fail "outside: exit status $status, want 1"
grep -q "mm/Kconfig:$line: Kconfig: sources ../outside/Kconfig, which is outside the tree" "$tmp/outside.err" ||
	fail "outside: $(cat "$tmp/outside.err")"
[ ! -s "$tmp/outside.json" ] || fail "outside: partial output written"
echo "kconfig: defconfig + Kconfig 11 symbols set, 0 errors, select/choice/is-not-set/if/menu honoured; nothing: 13; outside source refused"
