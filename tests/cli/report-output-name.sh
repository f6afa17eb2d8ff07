#!/bin/sh
# report -o FILE: the extension names the format (.txt .json .xml .csv
# .html), byte for byte what --format writes; --format wins over the name; a
# name without an extension is text; an unknown extension is refused (exit 1,
# nothing written).
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
need_snapshot pg32.tar.gz
need_snapshot desktop.tar.gz
for name in pg32 desktop; do
	snap="$SHARED_SNAPSHOTS/$name.tar.gz"
	for pair in txt:text json:json xml:xml csv:csv html:html; do
		ext=${pair%%:*} format=${pair#*:}
		"$PTSCOPE" report "$snap" -o "$tmp/$name.$ext" || fail "$name -o .$ext"
		"$PTSCOPE" report "$snap" --format "$format" > "$tmp/$name.$format.want" || fail "$name --format $format"
		cmp -s "$tmp/$name.$ext" "$tmp/$name.$format.want" || fail "$name: -o r.$ext is not --format $format"
	done
	"$PTSCOPE" report "$snap" --format json -o "$tmp/$name-wins.html" || fail "--format json -o .html"
	cmp -s "$tmp/$name-wins.html" "$tmp/$name.json.want" || fail "$name: --format json did not win over .html"
	"$PTSCOPE" report "$snap" -o "$tmp/$name-plain" || fail "-o without extension"
	cmp -s "$tmp/$name-plain" "$tmp/$name.text.want" || fail "$name: a name without extension is not text"
done
"$PTSCOPE" report "$SHARED_SNAPSHOTS/pg32.tar.gz" -o "$tmp/r.svg" 2> "$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "-o r.svg: exit $rc, not 1"
[ ! -e "$tmp/r.svg" ] || fail "-o r.svg wrote a file"
grep -q "r.svg: unknown extension" "$tmp/err" || fail "-o r.svg said: $(cat "$tmp/err")"
exit 0
