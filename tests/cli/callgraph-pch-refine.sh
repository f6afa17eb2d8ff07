#!/bin/sh
# Within the files that share a precompiled header, a larger one for those
# that include more of the same headers (analyzer/pch.c, refine).  A compile
# database of thirteen files: all include base.h (inline base_helper calls
# base_fn); f01-f10 also more.h (inline more_helper calls more_fn).
# Worked out by hand: the first header is base.h alone (adding more.h keeps
# 10 of 13 files: 10 x 5 <= 13 x 4); within its 13 files, base.h with more.h
# serves f01-f10 (10 files, PCH_REFINE_USERS) and f11-f13 keep base.h: 13 of
# 13 files through 2 headers, one of them including both.  When the larger
# header cannot be used (more.h without an include guard: refused), its ten
# files fall back on base.h: 13 of 13 through 1.  Either way the graph is the
# one worked out by hand, and the same without any (PTSCOPE_NO_PCH=1).
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
sh "$PTSCOPE_TESTS/deps.sh" jq >/dev/null 2>&1
command -v jq >/dev/null || skip "jq is not installed"

# make TREE GUARDED: the headers and files, and the compile database
make_tree() {
	mkdir -p "$1/include"
	printf '#ifndef BASE_H\n#define BASE_H\nvoid base_fn(void);\nstatic inline void base_helper(void) { base_fn(); }\n#endif\n' \
		> "$1/include/base.h"
	if [ "$2" = yes ]; then
		printf '#ifndef MORE_H\n#define MORE_H\nvoid more_fn(void);\nstatic inline void more_helper(void) { more_fn(); }\n#endif\n' \
			> "$1/include/more.h"
	else
		printf 'void more_fn(void);\nvoid more_helper(void);\n' > "$1/include/more.h"
		printf '#include <more.h>\nvoid more_helper(void) { more_fn(); }\n' > "$1/more.c"
	fi
	files=""
	for i in 01 02 03 04 05 06 07 08 09 10 11 12 13; do
		{
			echo '#include <base.h>'
			[ "$i" -le 10 ] && echo '#include <more.h>'
			if [ "$i" -le 10 ]; then
				echo "void entry_$i(void) { base_helper(); more_helper(); }"
			else
				echo "void entry_$i(void) { base_helper(); }"
			fi
		} > "$1/f$i.c"
		files="$files f$i"
	done
	[ "$2" = yes ] || files="$files more"
	{
		echo '['
		sep=""
		for f in $files; do
			printf '%s{"directory": "%s", "file": "%s/%s.c", "arguments": ["clang", "-I%s/include", "-DKBUILD_MODNAME=\\"%s\\"", "%s/%s.c"]}\n' \
				"$sep" "$1" "$1" $f "$1" $f "$1" $f
			sep=","
		done
		echo ']'
	} > "$1/compile_commands.json"
}

edges() {
	jq -r '(.nodes | map({(.id): .name}) | add) as $n | .edges[] | "\($n[.from]) \($n[.to])"' "$1" | sort -u
}
want() {
	for i in 01 02 03 04 05 06 07 08 09 10 11 12 13; do
		echo "entry_$i base_helper"
		[ "$i" -le 10 ] && echo "entry_$i more_helper"
	done
	echo "base_helper base_fn"
	echo "more_helper more_fn"
}
want | sort > "$tmp/want"

# run TREE NAME SAID: with and without, the hand-worked graph, the line SAID
run() {
	"$PTSCOPE" callgraph "$1/compile_commands.json" --cache-dir "$1.cache" --all --format json \
		-o "$1.json" 2> "$1.err" || fail "$2: exit status $?: $(cat "$1.err")"
	PTSCOPE_NO_PCH=1 "$PTSCOPE" callgraph "$1/compile_commands.json" --cache-dir "$1.plain" --all \
		--format json -o "$1.plain.json" 2> "$1.plain.err" || fail "$2: without: exit status $?"
	edges "$1.json" > "$1.edges"
	diff -u "$tmp/want" "$1.edges" || fail "$2: the call graph is not the one worked out by hand"
	cmp -s "$1.json" "$1.plain.json" || fail "$2: the call graph differs without precompiled headers"
	grep -q "^ptscope: callgraph: $3\$" "$1.err" || fail "$2: not '$3': $(grep precompiled "$1.err")"
}

make_tree "$tmp/guarded" yes
run "$tmp/guarded" "guarded" "13 of the 13 parsed files read their shared headers from 2 precompiled headers"
both=$(grep -l '^#include <more.h>$' "$tmp/guarded.cache/pch/"*.h | xargs grep -l '^#include <base.h>$' | wc -l)
[ "$both" -eq 1 ] || fail "guarded: $both kept headers include both base.h and more.h, not 1"

make_tree "$tmp/unguarded" no
run "$tmp/unguarded" "unguarded" "13 of the 14 parsed files read their shared headers from 1 precompiled header"
exit 0
