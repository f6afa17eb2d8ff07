#!/bin/sh
# A compile_commands.json is input a user may not trust (it comes with a
# tree).  Its flags pass an allowlist (analyzer/sources.c): run as root on a
# tree another user owns, a database asking libclang to write (-MJ, -H with
# -Xclang -header-include-file) or to read outside the tree (-include
# /etc/shadow) writes nothing, and callgraph names what it dropped.  A
# database of the wrong JSON types is refused in one line (it crashed); an
# empty call graph is a graph; 100,000 entries of one file are one unit.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v jq >/dev/null || skip "jq missing"
make_user
chmod 755 "$tmp"
tree=$tmp/tree
mkdir -p "$tree/mm"
printf 'int g(void) { return 1; }\nint f(void) { return g(); }\n' > "$tree/mm/a.c"
printf '/* nothing */\n' > "$tree/mm/empty.c"
chown -R "$user" "$tree"
# written by the other user, as an attacker would leave it in the tree
as_user sh -c "cat > '$tree/compile_commands.json'" <<JSON
[{"directory": "$tree", "file": "mm/a.c",
  "arguments": ["cc", "-H", "-Xclang", "-header-include-file", "-Xclang", "$tmp/headers-written",
                "-MJ", "$tmp/mj-written", "-include", "/etc/shadow", "-I/etc", "-ftime-trace=$tmp/trace",
                "-DKEEP=1", "-std=gnu11", "-c", "mm/a.c"]}]
JSON
"$PTSCOPE" callgraph "$tree/compile_commands.json" --no-cache --all --format json -o "$tmp/g.json" 2> "$tmp/err" ||
	fail "callgraph on the tree: $(cat "$tmp/err")"
for f in headers-written mj-written trace; do
	[ ! -e "$tmp/$f" ] || fail "a database flag made libclang write $tmp/$f"
done
# -H -Xclang -header-include-file -Xclang PATH -MJ PATH -include -I/etc -ftime-trace=...: 10 words
[ "$(jq .summary.flags_dropped "$tmp/g.json")" -eq 10 ] ||
	fail "flags_dropped $(jq .summary.flags_dropped "$tmp/g.json"), want 10"
names=$(jq -r .summary.flags_dropped_names "$tmp/g.json")
for w in -H -Xclang -MJ -include -I/etc; do
	echo " $names " | grep -q -- " $w " || fail "dropped names lack $w: $names"
done
grep -q "words dropped (not on the flag allowlist: -H" "$tmp/err" || fail "callgraph does not say what it dropped: $(cat "$tmp/err")"
[ "$(jq '[.edges[] | select(.from == "f" or .to == "g")] | length' "$tmp/g.json")" -ge 0 ] || fail "no graph"
jq -e '.nodes | map(.name) | index("f")' "$tmp/g.json" > /dev/null || fail "f missing from the graph"

# The -fcrash family is dropped whole, whatever follows the prefix: it tells
# clang where to write crash reproducers.  The fuzz campaign found
# -fcrash-f-linux-gnu kept (only -fcrash-diagnostics was listed), and a word
# with no '/' (-fcrash, -fcrash-report-dir=crash-out) passed as a plain -f
# word.  Run from an empty folder with TMPDIR in another, so anything
# libclang or ptscope wrote outside the outputs would show.
mkdir "$tmp/cwd" "$tmp/crash-out" "$tmp/tmpdir"
crash_words="-fcrash-diagnostics-dir=$tmp/crash-out -fcrash-diagnostics=all -fcrash-f-linux-gnu -fcrash -fcrash-report-dir=crash-out"
as_user sh -c "cat > '$tree/compile_commands.json'" <<JSON
[{"directory": "$tree", "file": "mm/a.c",
  "arguments": ["cc", $(printf '"%s", ' $crash_words)"-DKEEP=1", "-c", "mm/a.c"]}]
JSON
touch "$tmp/stamp"
sleep 1 # a second between the stamp and anything written, for find -newer
(cd "$tmp/cwd" && TMPDIR=$tmp/tmpdir "$PTSCOPE" callgraph "$tree/compile_commands.json" --no-cache --all \
	--write-commands "$tmp/crash-plan.json" --format json -o "$tmp/crash.json" 2> "$tmp/crash.err") ||
	fail "callgraph with -fcrash words: $(cat "$tmp/crash.err")"
written=$(find "$tmp" -newer "$tmp/stamp" ! -path "$tmp/crash.json" ! -path "$tmp/crash-plan.json" \
	! -path "$tmp/crash.err" ! -path "$tmp")
[ -z "$written" ] || fail "-fcrash words: written besides the outputs: $written"
[ "$(jq .summary.flags_dropped "$tmp/crash.json")" -eq 5 ] ||
	fail "-fcrash words: flags_dropped $(jq .summary.flags_dropped "$tmp/crash.json"), want 5"
[ "$(jq -r .summary.flags_dropped_names "$tmp/crash.json")" = "$crash_words" ] ||
	fail "-fcrash words: dropped $(jq -r .summary.flags_dropped_names "$tmp/crash.json"), want $crash_words"
grep -q -- "5 compile-database words dropped (not on the flag allowlist: $crash_words)" "$tmp/crash.err" ||
	fail "-fcrash words: not said on stderr: $(cat "$tmp/crash.err")"
# what libclang was given: the compiler, the macro, the file; nothing else
[ "$(jq -c '.[0].arguments' "$tmp/crash-plan.json")" = "[\"clang\",\"-DKEEP=1\",\"$tree/mm/a.c\"]" ] ||
	fail "-fcrash words: libclang given $(jq -c '.[0].arguments' "$tmp/crash-plan.json")"

# malformed types: one line naming the file, exit 1 (was SIGSEGV)
for db in '[{"directory":5,"file":null,"arguments":[1,null,{"a":1}]}]' \
	  '[{"directory":"/tmp","file":"a.c","arguments":[1,null,{"a":1}]}]' \
	  '[{"directory":"/tmp","file":"a.c","arguments":{"a":1}}]' \
	  '[{"directory":"/tmp","file":"a.c","command":7}]' '[7]'; do
	printf '%s\n' "$db" > "$tmp/bad.json"
	timeout 10 "$PTSCOPE" callgraph "$tmp/bad.json" --no-cache -o "$tmp/bad.dot" 2> "$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$db: exit $rc, want 1: $(cat "$tmp/err")"
	[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "bad.json:1: entry 0" "$tmp/err" || fail "$db: $(cat "$tmp/err")"
	[ ! -e "$tmp/bad.dot" ] || fail "$db: output written"
done

# an empty call graph (a file with no function): a graph of nothing, exit 0
printf '[{"directory": "%s", "file": "mm/empty.c", "arguments": ["cc", "-c", "mm/empty.c"]}]\n' "$tree" > "$tmp/empty.json"
"$PTSCOPE" callgraph "$tmp/empty.json" --no-cache --all --format json -o "$tmp/e.json" 2> "$tmp/err" ||
	fail "empty graph: $(cat "$tmp/err")"
[ "$(jq '.nodes | length' "$tmp/e.json")" -eq 0 ] || fail "empty graph has nodes"

# 100,000 entries of one file: one unit, parsed once (each entry a unit
# never finished: killed at 60 s).  4.7 s here on a loaded machine, 0.7 s of
# it CPU: 30 s leaves room for the load of a parallel make check.
seconds=30
ldd "$PTSCOPE" 2>/dev/null | grep -q asan && seconds=90
python3 - "$tree" > "$tmp/many.json" <<'PY'
import json, sys
print(json.dumps([{"directory": sys.argv[1], "file": "mm/a.c", "arguments": ["cc", "-c", "mm/a.c"]}] * 100000))
PY
timeout $seconds "$PTSCOPE" callgraph "$tmp/many.json" --no-cache --all --format json -o "$tmp/m.json" 2> "$tmp/err" ||
	fail "100,000 entries of one file: exit $?: $(head -c 300 "$tmp/err")"
[ "$(jq .summary.files "$tmp/m.json")" -eq 1 ] || fail "100,000 entries of one file: $(jq .summary.files "$tmp/m.json") units, want 1"
exit 0
