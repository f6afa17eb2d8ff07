#!/bin/sh
# Conventions every command shares: --version (one string, version.h),
# unknown options refused by one helper with a short usage and exit 1, and a
# "did you mean" for close misspellings of options and commands.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
version=$(sed -n 's/^#define PTSCOPE_VERSION "\(.*\)"/\1/p' "$PTSCOPE_TESTS/../version.h")
[ "$("$PTSCOPE" --version)" = "ptscope $version" ] || fail "--version: $("$PTSCOPE" --version)"
[ "$("$PTSCOPE" -V)" = "ptscope $version" ] || fail "-V"

# refused: exit 1, nothing on stdout, the problem, at most 6 lines
refused() { # EXPECTED-MESSAGE ARGS...
	want=$1; shift
	"$PTSCOPE" "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?
	[ $rc -eq 1 ] || fail "$*: exit $rc, not 1"
	[ -s "$tmp/out" ] && fail "$*: wrote to stdout"
	grep -qF -- "$want" "$tmp/err" || fail "$*: expected '$want' in: $(cat "$tmp/err")"
	[ "$(wc -l < "$tmp/err")" -le 6 ] || fail "$*: usage is not short: $(cat "$tmp/err")"
}
refused "unknown option '--formt'; did you mean '--format'?" report --formt json
refused "unknown option '--per-procss'; did you mean '--per-process'?" info --per-procss
refused "unknown option '--no-pagemp'; did you mean '--no-pagemap'?" capture --no-pagemp
refused "unknown option '--shcema'; did you mean '--schema'?" profiles --shcema
refused "unknown option '--shortst'; did you mean '--shortest'?" callgraph --shortst x
refused "unknown option '--zzzzzz'" report --zzzzzz
grep -q 'did you mean' "$tmp/err" && fail "a suggestion for a word nothing is close to"
refused "option '--format' needs a value" report --format
refused "option '--verify' takes no value" info --verify=yes
refused "option '--p' is ambiguous: --profile --per-process --per-file" report --p
refused "unknown option '-x'" capture -x
refused "usage: ptscope report" report --formt
refused "Try 'ptscope info --help' or 'ptscope help info'." info --bogus
"$PTSCOPE" repot > /dev/null 2> "$tmp/err"; [ $? -eq 1 ] || fail "unknown command exit"
grep -qF "unknown command 'repot'; did you mean 'report'?" "$tmp/err" || fail "repot: $(cat "$tmp/err")"
"$PTSCOPE" calgraph > /dev/null 2> "$tmp/err"
grep -qF "did you mean 'callgraph'?" "$tmp/err" || fail "calgraph: $(cat "$tmp/err")"
exit 0
