#!/bin/sh
# A file with a search folder of its own, last on its command line (kbuild's
# CFLAGS_fault.o "-I$(src)/../include/asm/trace"), shares the precompiled
# header of the files whose flags are otherwise its own (analyzer/pch.c,
# own_folder), unless a header the build read asks __has_include, whose
# answer that folder could change.  Two compile databases of four files,
# a.c, b.c, c.c (-Iinclude) and k.c (-Iinclude, then -Iextra), each file
# "#include <shared.h>" then a function calling helper():
#   plain:  shared.h's helper() calls old_path()
#           -> 4 of the 4 files through 1 header (main: 3, k.c alone)
#   probe:  shared.h's helper() calls local_path() where
#           __has_include(<local.h>) (only extra/ has it: k.c), else
#           old_path() -> k.c parsed whole: 3 of the 4; through the header
#           it would lose local_path
# Worked out by hand: the edges below; each graph the same as without any
# header (PTSCOPE_NO_PCH=1).
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
sh "$PTSCOPE_TESTS/deps.sh" jq >/dev/null 2>&1
command -v jq >/dev/null || skip "jq is not installed"
edges() {
	jq -r '(.nodes | map({(.id): .name}) | add) as $n | .edges[] | "\($n[.from]) \($n[.to])"' "$1" | sort -u
}
# check NAME USED: both runs, the edges in $tmp/NAME.want, USED files through 1 header
check() {
	tree=$tmp/$1
	"$PTSCOPE" callgraph "$tree/compile_commands.json" --cache-dir "$tmp/$1.cache" --all --format json \
		-o "$tmp/$1.json" 2> "$tmp/$1.err" || fail "$1: exit status $?: $(cat "$tmp/$1.err")"
	PTSCOPE_NO_PCH=1 "$PTSCOPE" callgraph "$tree/compile_commands.json" --cache-dir "$tmp/$1.plain" --all \
		--format json -o "$tmp/$1.plain.json" 2> "$tmp/$1.plain.err" || fail "$1: without: exit status $?"
	edges "$tmp/$1.json" > "$tmp/$1.edges"
	diff -u "$tmp/$1.want" "$tmp/$1.edges" || fail "$1: the call graph is not the one worked out by hand"
	cmp -s "$tmp/$1.json" "$tmp/$1.plain.json" || fail "$1: the call graph differs without precompiled headers"
	grep -q "^ptscope: callgraph: $2 of the 4 parsed files read their shared headers from 1 precompiled header$" \
		"$tmp/$1.err" || fail "$1: not $2 of the 4 files through one header: $(grep precompiled "$tmp/$1.err")"
	echo "$1: $2 of the 4 files through one header, the graph worked out by hand"
}
for name in plain probe; do
	tree=$tmp/$name
	mkdir -p "$tree/include" "$tree/extra"
	printf '#ifndef LOCAL_H\n#define LOCAL_H\nvoid local_path(void);\n#endif\n' > "$tree/extra/local.h"
	{
		printf '#ifndef SHARED_H\n#define SHARED_H\nvoid old_path(void);\n'
		if [ $name = probe ]; then
			printf '#if __has_include(<local.h>)\n#include <local.h>\n'
			printf 'static inline void helper(void) { local_path(); }\n#else\n'
		fi
		printf 'static inline void helper(void) { old_path(); }\n'
		[ $name = probe ] && printf '#endif\n'
		printf '#endif\n'
	} > "$tree/include/shared.h"
	for f in a b c k; do
		printf '#include <shared.h>\nvoid entry_%s(void) { helper(); }\n' $f > "$tree/$f.c"
	done
	{
		echo '['
		for f in a b c k; do
			own=""
			[ $f = k ] && own=", \"-I$tree/extra\""
			printf '%s{"directory": "%s", "file": "%s/%s.c", "arguments": ["clang", "-I%s/include", "-DKBUILD_MODNAME=\\"%s\\""%s, "%s/%s.c"]}\n' \
				"$([ $f = a ] || echo ,)" "$tree" "$tree" $f "$tree" $f "$own" "$tree" $f
		done
		echo ']'
	} > "$tree/compile_commands.json"
	for f in a b c k; do
		echo "entry_$f helper"
	done > "$tmp/$name.want"
done
echo "helper old_path" >> "$tmp/plain.want"
printf 'helper local_path\nhelper old_path\n' >> "$tmp/probe.want"
sort -o "$tmp/plain.want" "$tmp/plain.want"
sort -o "$tmp/probe.want" "$tmp/probe.want"
check plain 4
check probe 3
exit 0
