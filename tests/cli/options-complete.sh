#!/bin/sh
# One option table per command (builtin/help/NAME.txt): the bash completion offers, after
# `ptscope COMMAND --`, exactly the long options of the command's --help
# (which is printed from the table; tests/unit/test_options.c holds the man
# pages to the same table).  An option the completion misses or invents fails.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
[ -f /usr/share/bash-completion/bash_completion ] && command -v bash > /dev/null ||
	skip "no bash-completion (make check installs it)"
mkdir "$tmp/bin"
ln -s "$PTSCOPE" "$tmp/bin/ptscope"
cat > "$tmp/complete.bash" <<'EOS'
. /usr/share/bash-completion/bash_completion
. "$1"
t() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
      COMPREPLY=(); _ptscope "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
      printf '%s\n' "${COMPREPLY[@]}" | grep -- '^--' | sort -u; }
t ptscope "$2" --
EOS
checked=0
for command in capture info report profiles callgraph bench; do
	# the option lines of --help: "  -o, --output FILE", "      --pid N"
	"$PTSCOPE" "$command" --help | sed -n 's/^  \(-[a-z], \)\{0,1\} *\(--[a-z][a-z-]*\).*/\2/p' | sort -u \
		> "$tmp/help.$command"
	[ -s "$tmp/help.$command" ] || fail "$command --help lists no option"
	PATH="$tmp/bin:$PATH" bash "$tmp/complete.bash" "$PTSCOPE_TESTS/../completion/ptscope" "$command" \
		> "$tmp/complete.$command" 2>&1
	diff "$tmp/help.$command" "$tmp/complete.$command" > "$tmp/diff" ||
		fail "$command: completion differs from --help (< help, > completion): $(cat "$tmp/diff")"
	checked=$((checked + $(wc -l < "$tmp/help.$command")))
done
# the table of report alone has 17 options (16 and --help): a parse that
# found too few would pass the diff with a completion that found as few
[ "$(wc -l < "$tmp/help.report")" -eq 17 ] || fail "report --help: $(wc -l < "$tmp/help.report") options, not 17"
echo "completion offers the $checked options of the six commands' --help"
exit 0
