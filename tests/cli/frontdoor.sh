#!/bin/sh
# The front door: usage, unknown commands and exit codes.
fail() { echo "FAIL: $*"; exit 1; }
"$PTSCOPE" >/dev/null 2>&1; [ $? -eq 1 ] || fail "no command should exit 1"
"$PTSCOPE" --help | grep -q '^  capture' || fail "--help lists commands"
out=$("$PTSCOPE" frobnicate 2>&1); [ $? -eq 1 ] || fail "unknown command should exit 1"
echo "$out" | grep -q "unknown command 'frobnicate'" || fail "message names the command: $out"
for c in capture info report profiles callgraph; do
	"$PTSCOPE" $c --help >/dev/null 2>&1 || fail "$c --help"
done
# A broken snapshot names the file and exits 1 without a crash.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf 'not a tar' > "$tmp/bad.tar"
out=$("$PTSCOPE" info "$tmp/bad.tar" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "bad snapshot exit $rc"
echo "$out" | grep -q "bad.tar" || fail "message names the file: $out"
exit 0
