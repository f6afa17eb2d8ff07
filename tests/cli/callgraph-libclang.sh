#!/bin/sh
# libclang of any supported version (14 to 19): the newest installed is the
# default, --libclang N or PTSCOPE_LIBCLANG=N picks another, a version that
# is not installed or not supported is refused, and the per-file cache keeps
# the versions apart.  The analyzer's fixture tests (exact edge sets of the
# 2.4 and 2.5 fixtures, the hand-worked tree) run once more under every other
# installed version: `make check` runs them under the default already.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
installed=""
for n in 14 15 16 17 18 19; do
	for dir in /usr/lib/*-linux-gnu /usr/lib /usr/lib64; do
		if [ -e "$dir/libclang-$n.so.1" ] || [ -e "$dir/libclang-$n.so" ]; then installed="$installed $n"; break; fi
	done
done
[ -n "$installed" ] || { echo "skip: no libclang 14..19 installed"; exit 77; }
installed=${installed# }
newest=${installed##* }
fixture=$PTSCOPE_TESTS/fixtures/kernel-2.4
summary() { "$PTSCOPE" callgraph "$fixture" --no-cache --format json "$@" 2> "$tmp/err" | sed -n 's/.*"libclang":"\([^"]*\)".*/\1/p'; }

# the default is the newest installed
case "$(summary)" in "libclang-$newest.so"*) ;; *) fail "default libclang is '$(summary)', want $newest";; esac
grep -q "libclang-$newest" "$tmp/err" || fail "the summary line does not name libclang-$newest"
for n in $installed; do
	case "$(summary --libclang "$n")" in "libclang-$n.so"*"version $n."*) ;; *) fail "--libclang $n: '$(summary --libclang "$n")'";; esac
	case "$(PTSCOPE_LIBCLANG=$n summary)" in "libclang-$n.so"*) ;; *) fail "PTSCOPE_LIBCLANG=$n";; esac
done
# --libclang wins over the environment
first=${installed%% *}
case "$(PTSCOPE_LIBCLANG=$newest summary --libclang "$first")" in "libclang-$first.so"*) ;; *) fail "--libclang does not win";; esac
# refused: unsupported, not installed, not a library
"$PTSCOPE" callgraph "$fixture" --no-cache -q --libclang 12 > /dev/null 2> "$tmp/err" && fail "--libclang 12 accepted"
grep -q 'supported libclang versions are 14 to 19' "$tmp/err" || fail "--libclang 12: $(cat "$tmp/err")"
for n in 14 15 16 17 18 19; do
	case " $installed " in *" $n "*) continue;; esac
	PTSCOPE_LIBCLANG=$n "$PTSCOPE" callgraph "$fixture" --no-cache -q > /dev/null 2> "$tmp/err" && fail "libclang $n is not installed, yet accepted"
	grep -q "PTSCOPE_LIBCLANG $n: that libclang is not installed" "$tmp/err" || fail "missing $n: $(cat "$tmp/err")"
	break
done
"$PTSCOPE" callgraph "$fixture" --no-cache -q --libclang "$tmp/nothing.so" > /dev/null 2> "$tmp/err" && fail "a missing file accepted"
grep -q "cannot load" "$tmp/err" || fail "missing file: $(cat "$tmp/err")"

# the cache keeps versions apart: a second version parses again, the first is still cached
if [ "$first" != "$newest" ]; then
	c="$tmp/cache"
	"$PTSCOPE" callgraph "$fixture" --cache-dir "$c" --libclang "$first" --format json > "$tmp/a.json" 2>/dev/null
	"$PTSCOPE" callgraph "$fixture" --cache-dir "$c" --libclang "$newest" --format json > "$tmp/b.json" 2>/dev/null
	"$PTSCOPE" callgraph "$fixture" --cache-dir "$c" --libclang "$first" --format json > "$tmp/c.json" 2>/dev/null
	grep -q '"files_cached":0' "$tmp/b.json" || fail "libclang $newest took libclang $first's cached facts"
	grep -q '"files_parsed":0' "$tmp/c.json" || fail "libclang $first's facts were not kept beside $newest's"
fi

# the analyzer's fixture tests under every installed version but the default
for n in $installed; do
	[ "$n" = "$newest" ] && continue
	for t in callgraph-fixtures callgraph-tree callgraph-paths; do
		[ -f "$PTSCOPE_TESTS/cli/$t.sh" ] || continue
		PTSCOPE_LIBCLANG=$n sh "$PTSCOPE_TESTS/cli/$t.sh" > "$tmp/$t.$n" 2>&1
		rc=$?
		[ $rc -eq 0 ] || [ $rc -eq 77 ] || { tail -n 5 "$tmp/$t.$n"; fail "$t under libclang $n"; }
	done
	echo "analyzer fixture tests pass under libclang $n"
done
exit 0
