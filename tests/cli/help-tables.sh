#!/bin/sh
# Each command says what it is once, in builtin/help/NAME.txt; builtin/help.awk
# makes its option table (the C the build compiles, $(BUILD)/builtin/NAME_options.h).
# Here: each form of option line gives the field it should, quotes and
# backslashes reach C escaped, a wrong line stops the build naming FILE:LINE,
# and every command's --help prints its text file's usage, options and epilogue.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
source=$PTSCOPE_TESTS/..
make_table() { awk -v command=made -f "$source/builtin/help.awk" "$@"; }

printf '%s\n' '# a comment' '[usage]' 'usage: ptscope made [-q]' '' '[options]' '--plain' '	one "quoted" \ line' \
	'--valued=N|FILE' '	first line' '	second line' '--words A B [C]' '	w' '-q, --quiet' '	q' \
	'[epilogue]' '' 'after' > "$tmp/made.txt"
make_table "$tmp/made.txt" > "$tmp/made.h" || fail "the made-up table: $(cat "$tmp/made.h")"
expect() { grep -qxF -- "$1" "$tmp/made.h" || { printf 'FAIL: the made-up table lacks: %s\n' "$1"; exit 1; }; }
expect 'enum { OPT_PLAIN = 256, OPT_VALUED, OPT_WORDS };'
expect '	{ "plain", no_argument, OPT_PLAIN, NULL,'
expect '	  "one \"quoted\" \\ line" },'
expect '	{ "valued", required_argument, OPT_VALUED, "N|FILE",'
expect '	  "first line\n"'
expect '	  "second line" },'
expect '	{ "words", no_argument, OPT_WORDS, "A B [C]",'
expect "	{ \"quiet\", no_argument, 'q', NULL,"
expect '	.usage = "usage: ptscope made [-q]\n"'
expect '	.epilogue = "\n"'
echo "help tables: each form of option line gives its fields"

printf '%s\n' '[usage]' 'usage: x' '[options]' '--good' '	g' 'good line' > "$tmp/bad.txt"
make_table "$tmp/bad.txt" > /dev/null 2> "$tmp/err" && fail "a line that is no option was taken"
grep -q "bad.txt:6: not an option line" "$tmp/err" || fail "the refusal: $(cat "$tmp/err")"
printf '%s\n' '[usage]' 'usage: x' '[options]' '--mute' > "$tmp/bad.txt"
make_table "$tmp/bad.txt" > /dev/null 2> "$tmp/err" && fail "an option without help was taken"
grep -q -- "--mute has no help" "$tmp/err" || fail "the refusal: $(cat "$tmp/err")"
echo "help tables: a wrong line is refused with FILE:LINE"

# --help is the text file: its usage part, a line per option name, its epilogue
checked=0
for file in "$source"/builtin/help/*.txt; do
	command=$(basename "$file" .txt)
	"$PTSCOPE" "$command" --help > "$tmp/help" || fail "$command --help"
	sed -n '/^\[usage\]$/,/^\[options\]$/p' "$file" | sed '1d;$d' > "$tmp/usage"
	head -n "$(wc -l < "$tmp/usage")" "$tmp/help" | cmp -s - "$tmp/usage" ||
		fail "$command --help does not start with the usage of $file"
	sed -n '/^\[options\]$/,/^\[epilogue\]$/s/^\(-[a-z], \)\{0,1\}--\([a-z-]*\).*/\2/p' "$file" > "$tmp/names"
	sed -n 's/^  \(-[a-z], \)\{0,1\} *--\([a-z-]*\).*/\2/p' "$tmp/help" | cmp -s - "$tmp/names" ||
		fail "$command --help's options are not those of $file"
	if grep -qx '\[epilogue\]' "$file"; then
		sed '1,/^\[epilogue\]$/d' "$file" > "$tmp/epilogue"
		tail -n "$(wc -l < "$tmp/epilogue")" "$tmp/help" | cmp -s - "$tmp/epilogue" ||
			fail "$command --help does not end with the epilogue of $file"
	fi
	checked=$((checked + 1))
done
[ "$checked" -eq 6 ] || fail "$checked commands in builtin/help, not 6"
echo "help tables: the $checked commands' --help come from builtin/help"
exit 0
