#!/bin/sh
# The shared precompiled header (analyzer/pch.c) changes no call graph: each
# tree parsed cold with it and with PTSCOPE_NO_PCH=1 gives the same json,
# xml and dot, byte for byte (--all: every function and call), and the runs
# with it say how many files used one (so the comparison is not of two
# plain parses).  The fixture trees always; ../shared/kernels' three old
# trees where they are (skipped visibly otherwise).  A second cold parse (the
# facts' cache emptied) takes the kept header as it is, and is the same too.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
cache=${XDG_CACHE_HOME:-$HOME/.cache}/ptscope
n=0
# same TREE NAME MUST-USE: a cold run with and one without (json), then xml
# and dot from each run's cached facts (what the header could change)
same() {
	n=$((n + 1))
	for format in json xml dot; do
		PTSCOPE_NO_PCH=1 "$PTSCOPE" callgraph "$1" --cache-dir "$tmp/plain$n" --all --format $format \
			-o "$tmp/plain$n.$format" 2> "$tmp/plain$n.$format.err" || fail "$2: $format without: exit $?"
		"$PTSCOPE" callgraph "$1" --cache-dir "$tmp/pch$n" --all --format $format -o "$tmp/pch$n.$format" \
			2> "$tmp/pch$n.$format.err" || fail "$2: $format with: exit $?"
		cmp -s "$tmp/plain$n.$format" "$tmp/pch$n.$format" ||
			fail "$2: the $format call graph differs with the precompiled header"
		grep -q 'read their shared headers' "$tmp/plain$n.$format.err" && fail "$2: PTSCOPE_NO_PCH=1 still used one"
	done
	# the first (json) runs were the cold ones
	used=$(sed -n 's/^ptscope: callgraph: \([0-9]*\) of the [0-9]* parsed files read their shared headers.*/\1/p' \
		"$tmp/pch$n.json.err")
	[ "$3" = no ] || [ "${used:-0}" -gt 0 ] || fail "$2: no file used a precompiled header: $(cat "$tmp/pch$n.json.err")"
	echo "$2: identical in json, xml and dot; ${used:-0} files through a precompiled header"
}
same "$PTSCOPE_TESTS/fixtures/kernel-2.4" kernel-2.4 yes
same "$PTSCOPE_TESTS/fixtures/kernel-2.5" kernel-2.5 yes
same "$PTSCOPE_TESTS/fixtures/kernel-2.6" kernel-2.6 yes
fixture_used=$used
ls "$tmp/pch1/pch/"*.pch > /dev/null 2>&1 || fail "kernel-2.4: no precompiled header kept in CACHE/pch"
# the header is kept: a cold parse (the facts' cache emptied) takes it as it is
rm -rf "$tmp/pch1/tu"
before=$(ls -l --time-style=+%s.%N "$tmp/pch1/pch/"*.pch)
"$PTSCOPE" callgraph "$PTSCOPE_TESTS/fixtures/kernel-2.4" --cache-dir "$tmp/pch1" --all --format dot \
	-o "$tmp/again.dot" 2> "$tmp/again.err" || fail "kernel-2.4 again: exit $?"
cmp -s "$tmp/plain1.dot" "$tmp/again.dot" || fail "kernel-2.4: a kept precompiled header gives another graph"
[ "$before" = "$(ls -l --time-style=+%s.%N "$tmp/pch1/pch/"*.pch)" ] || fail "kernel-2.4: the kept header was built again"
grep -q 'read their shared headers' "$tmp/again.err" || fail "kernel-2.4: the kept header was not used"

# Files of mm/ as Linux 6.x writes them: pr_fmt made of KBUILD_MODNAME (which
# kbuild gives each file) before the includes, a header whose inline function
# logs through pr_fmt, and a compiler builtin first used in a header the
# files include before the shared one.  The precompiled header reads the
# shared header first, so the builtin's first use moves: a builtin is no node
# (the plain parse would place it in first.h, the other in shared.h), and the
# header builds with a stand-in for KBUILD_MODNAME (without one, "expected
# ')'": no file used it).
tree=$tmp/modern
cp -r "$PTSCOPE_TESTS/fixtures/kernel-2.6" "$tree"
cat > "$tree/include/linux/first.h" <<'EOF'
#ifndef FIRST_H
#define FIRST_H
static inline int first_unlikely(int x) { return __builtin_expect(x, 0); }
#endif
EOF
cat > "$tree/include/linux/shared.h" <<'EOF'
#ifndef SHARED_H
#define SHARED_H
#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif
void say(const char *text);
static inline int shared_check(int x)
{
	if (__builtin_expect(x, 0))
		say(pr_fmt("odd"));
	return x;
}
#endif
EOF
for name in alpha beta gamma; do
	cat > "$tree/mm/$name.c" <<EOF
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
#include <linux/first.h>
#include <linux/shared.h>
int ${name}_check(int x) { return shared_check(x) + first_unlikely(x); }
EOF
done
# and three without pr_fmt whose shared header is inline_bits.h alone:
# delta.c reads first_bits.h before it, so in the precompiled header's
# order the builtin's first use is another place
cat > "$tree/include/linux/first_bits.h" <<'EOF'
#ifndef FIRST_BITS_H
#define FIRST_BITS_H
static inline int first_bit(unsigned x) { return __builtin_ctz(x); }
#endif
EOF
cat > "$tree/include/linux/inline_bits.h" <<'EOF'
#ifndef INLINE_BITS_H
#define INLINE_BITS_H
static inline int lowest_bit(unsigned x)
{
	return __builtin_ctz(x);
}
#endif
EOF
printf '#include <linux/first_bits.h>\n#include <linux/inline_bits.h>\nint delta(unsigned x) { return first_bit(x) + lowest_bit(x); }\n' \
	> "$tree/mm/delta.c"
for name in epsilon zeta; do
	printf '#include <linux/inline_bits.h>\nint %s(unsigned x) { return lowest_bit(x); }\n' $name > "$tree/mm/$name.c"
done
# eta.c logs with a pr_fmt of its own words, in the same shape (strings,
# then fmt): it shares alpha's header, whose pr_fmt is a stand-in; theta.c's
# has a '%' (a format check reads it) and iota.c's puts fmt first: each
# stays alone (a group of one), parsed whole
printf '%s\n' '#define pr_fmt(fmt) "eta: " fmt' > "$tree/mm/eta.c"
printf '%s\n' '#define pr_fmt(fmt) "100%: " fmt' > "$tree/mm/theta.c"
printf '%s\n' '#define pr_fmt(fmt) fmt " (iota)"' > "$tree/mm/iota.c"
for name in eta theta iota; do
	printf '#include <linux/first.h>\n#include <linux/shared.h>\nint %s_check(int x) { return shared_check(x); }\n' \
		$name >> "$tree/mm/$name.c"
done
echo 'obj-y += alpha.o beta.o gamma.o delta.o epsilon.o zeta.o eta.o theta.o iota.o' >> "$tree/mm/Makefile"
same "$tree" "pr_fmt and builtins" yes
[ "${used:-0}" -eq $((fixture_used + 7)) ] ||
	fail "pr_fmt and builtins: ${used:-0} files used a precompiled header, not kernel-2.6's $fixture_used and the 7 added"
grep -q '__builtin' "$tmp/pch$n.json" && fail "pr_fmt and builtins: a compiler builtin is a node: $(grep -m1 __builtin "$tmp/pch$n.json")"
grep -q '"name": *"say"' "$tmp/pch$n.json" ||
	fail "pr_fmt and builtins: the call to say() through the header is missing"

shared=0
for name in 2.4.18-14rh 2.5.68-tok 2.6.11.12; do
	tree=$(sh "$PTSCOPE_TESTS/shared-kernel.sh" "$cache" "$SHARED_KERNELS" "$name")
	status=$?
	[ $status -eq 77 ] && { echo "skip: no $SHARED_KERNELS/$name.tar.xz"; continue; }
	[ $status -eq 0 ] || fail "$name: could not unpack"
	same "$tree" "$name" no
	shared=$((shared + 1))
done
[ $shared -gt 0 ] || skip "fixtures identical; none of ../shared/kernels' trees is here (SHARED_KERNELS=$SHARED_KERNELS)"
exit 0
