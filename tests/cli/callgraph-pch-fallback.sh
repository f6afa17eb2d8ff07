#!/bin/sh
# A file whose head differs from a shared precompiled header's is parsed
# on its own (analyzer/pch.c).  A compile database of fourteen files over
# one header, shared.h, whose inline helper() calls old_path(), or
# new_path() when USE_NEW is defined before it is included:
#   a, b, c    include it plainly                      -> old_path, share a header
#   d          "#define USE_NEW 1" first, alone         -> new_path, parsed alone
#   e, f, g    "#define USE_NEW" first, three alike    -> new_path, a header of their own
#   x, y, z    include named.h, which tests KBUILD_MODNAME (their own -D) with
#              #ifdef: a shared header would read it undefined -> not shared
#   t, v, w    include noguard.h, which has no include guard and an inline
#              function: read again after a shared header it would be a
#              redefinition -> not shared
#   u          shared.h then noguard.h: shares a, b and c's header
# Worked out by hand: helper's edges go to old_path (a-c, u) and new_path
# (d-g): a header used whatever the macros before it would lose new_path;
# named() calls with_name() (KBUILD_MODNAME is defined for x-z); 7 files
# (a-c, u; e-g) use 2 precompiled headers; the graph is the same without
# any (PTSCOPE_NO_PCH=1), errors and warnings counted included.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
sh "$PTSCOPE_TESTS/deps.sh" jq >/dev/null 2>&1
command -v jq >/dev/null || skip "jq is not installed"
mkdir -p "$tmp/tree/include"
# GUARD MACRO FUNCTION IF_SET IF_UNSET: a guarded header whose inline
# FUNCTION calls IF_SET where MACRO is defined before it, else IF_UNSET
switch_header() {
	printf '#ifndef %s\n#define %s\nvoid %s(void);\nvoid %s(void);\n' "$1" "$1" "$5" "$4"
	printf '#ifdef %s\nstatic inline void %s(void) { %s(); }\n' "$2" "$3" "$4"
	printf '#else\nstatic inline void %s(void) { %s(); }\n#endif\n#endif\n' "$3" "$5"
}
switch_header SHARED_H USE_NEW helper new_path old_path > "$tmp/tree/include/shared.h"
switch_header NAMED_H KBUILD_MODNAME named with_name without_name > "$tmp/tree/include/named.h"
cat > "$tmp/tree/include/noguard.h" <<'EOF'
void unguarded(void);
static inline void ng(void) { unguarded(); }
EOF
for f in a b c d e f g; do
	{
		case $f in d) echo '#define USE_NEW 1' ;; e|f|g) echo '#define USE_NEW' ;; esac
		echo '#include <shared.h>'
		echo "void entry_$f(void) { helper(); }"
	} > "$tmp/tree/$f.c"
done
for f in x y z; do
	printf '#include <named.h>\nvoid entry_%s(void) { named(); }\n' $f > "$tmp/tree/$f.c"
done
printf '#include <shared.h>\n#include <noguard.h>\nvoid entry_u(void) { helper(); ng(); }\n' > "$tmp/tree/u.c"
for f in t v w; do
	printf '#include <noguard.h>\nvoid entry_%s(void) { ng(); }\n' $f > "$tmp/tree/$f.c"
done
{
	echo '['
	sep=""
	for f in a b c d e f g x y z u t v w; do
		printf '%s{"directory": "%s", "file": "%s/%s.c", "arguments": ["clang", "-I%s/include", "-DKBUILD_MODNAME=\\"%s\\"", "%s/%s.c"]}\n' \
			"$sep" "$tmp/tree" "$tmp/tree" $f "$tmp/tree" $f "$tmp/tree" $f
		sep=","
	done
	echo ']'
} > "$tmp/tree/compile_commands.json"

"$PTSCOPE" callgraph "$tmp/tree/compile_commands.json" --cache-dir "$tmp/cache" --all --format json \
	-o "$tmp/pch.json" 2> "$tmp/pch.err" || fail "exit status $?: $(cat "$tmp/pch.err")"
PTSCOPE_NO_PCH=1 "$PTSCOPE" callgraph "$tmp/tree/compile_commands.json" --cache-dir "$tmp/plain" --all \
	--format json -o "$tmp/plain.json" 2> "$tmp/plain.err" || fail "without: exit status $?"
edges() {
	jq -r '(.nodes | map({(.id): .name}) | add) as $n | .edges[] | "\($n[.from]) \($n[.to])"' "$1" | sort -u
}
edges "$tmp/pch.json" > "$tmp/edges"
sort > "$tmp/want" <<'EOF'
entry_a helper
entry_b helper
entry_c helper
entry_d helper
entry_e helper
entry_f helper
entry_g helper
entry_t ng
entry_u helper
entry_u ng
entry_v ng
entry_w ng
entry_x named
entry_y named
entry_z named
helper new_path
helper old_path
named with_name
ng unguarded
EOF
diff -u "$tmp/want" "$tmp/edges" || fail "the call graph is not the one worked out by hand"
cmp -s "$tmp/pch.json" "$tmp/plain.json" || fail "the call graph differs without precompiled headers"
grep -q '^ptscope: callgraph: 7 of the 14 parsed files read their shared headers from 2 precompiled headers$' \
	"$tmp/pch.err" || fail "not a-c, u and e-g through two headers: $(grep precompiled "$tmp/pch.err")"
exit 0
