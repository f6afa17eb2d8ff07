#!/bin/sh
# The analyzer's cache is used only when it is private (analyzer/cache.c).
# Run as root with a second user the test creates: a cache folder that user
# made (as another user could make /tmp/.cache/ptscope before root's first
# cron run), one holding links to a folder of root's, and cache entries
# others may write (a forged function name) are each refused or ignored:
# nothing is written through them, no forged name is printed, the graph is
# parsed cold and callgraph says why.  With HOME and XDG_CACHE_HOME unset the
# cache is the password database's home, not /tmp/.cache.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v jq >/dev/null || skip "jq missing"
make_user
chmod 755 "$tmp"
tree=$PTSCOPE_TESTS/fixtures/kernel-2.5
cg() { "$PTSCOPE" callgraph "$tree" --all --format json "$@"; }

# 1. a cache folder another user made, open to all
mkdir -p "$tmp/evil/ptscope"
chown -R "$user" "$tmp/evil"
chmod 777 "$tmp/evil/ptscope"
XDG_CACHE_HOME=$tmp/evil cg -o "$tmp/g1.json" 2> "$tmp/err" || fail "refused cache: no graph: $(cat "$tmp/err")"
grep -q "ptscope: $tmp/evil/ptscope: owned by another user; caching nothing this run" "$tmp/err" ||
	fail "refused cache: not said: $(cat "$tmp/err")"
[ -z "$(ls -A "$tmp/evil/ptscope")" ] || fail "root wrote into another user's cache folder: $(ls -A "$tmp/evil/ptscope")"
[ "$(jq .summary.files_parsed "$tmp/g1.json")" -eq "$(jq .summary.files "$tmp/g1.json")" ] || fail "refused cache: not parsed cold"

# 2. links planted in a cache folder another user owns (mode 755): nothing written through them
mkdir -p "$tmp/evil2/ptscope" "$tmp/victim"
ln -s "$tmp/victim" "$tmp/evil2/ptscope/tu"
ln -s "$tmp/victim" "$tmp/evil2/ptscope/shim"
chown -R -h "$user" "$tmp/evil2"
XDG_CACHE_HOME=$tmp/evil2 cg -o "$tmp/g2.json" 2> "$tmp/err" || fail "planted links: no graph: $(cat "$tmp/err")"
[ -z "$(ls -A "$tmp/victim")" ] || fail "root wrote $(ls -A "$tmp/victim" | wc -l) files through a planted link"
grep -q "owned by another user; caching nothing" "$tmp/err" || fail "planted links: not said: $(cat "$tmp/err")"
# ... and in root's own cache folder, the same links are not followed
mkdir -p "$tmp/own/ptscope"
chmod 700 "$tmp/own/ptscope"
ln -s "$tmp/victim" "$tmp/own/ptscope/tu"
XDG_CACHE_HOME=$tmp/own cg -o "$tmp/g3.json" 2> "$tmp/err" || fail "links in own cache: no graph: $(cat "$tmp/err")"
[ -z "$(ls -A "$tmp/victim")" ] || fail "root wrote through a tu link in its own cache"

# 3. entries another user may write: ignored, the forged name never printed
XDG_CACHE_HOME=$tmp/good cg -o "$tmp/g4.json" 2> "$tmp/err" || fail "good cache: $(cat "$tmp/err")"
XDG_CACHE_HOME=$tmp/good cg -o "$tmp/g5.json" 2> /dev/null || fail "warm run"
n=$(jq .summary.files "$tmp/g5.json")
[ "$(jq .summary.files_cached "$tmp/g5.json")" -eq "$n" ] || fail "a private cache is not used: $(jq .summary "$tmp/g5.json")"
for entry in "$tmp"/good/ptscope/tu/*; do
	sed -i 's/^s do_page_fault$/s FORGED_BY_ANOTHER_USER/' "$entry"
	chmod 666 "$entry"
done
XDG_CACHE_HOME=$tmp/good cg -o "$tmp/g6.json" 2> "$tmp/err" || fail "forged cache: $(cat "$tmp/err")"
! grep -q FORGED "$tmp/g6.json" || fail "a name forged in a world-writable cache entry was printed"
[ "$(jq .summary.files_cached "$tmp/g6.json")" -eq 0 ] || fail "entries others may write were used"
# an entry of another user's in root's private folder
XDG_CACHE_HOME=$tmp/good cg -o "$tmp/g7.json" 2> /dev/null || fail "re-cache"
for entry in "$tmp"/good/ptscope/tu/*; do
	sed -i 's/^s do_page_fault$/s FORGED_BY_ANOTHER_USER/' "$entry"
	chown "$user" "$entry"
	chmod 644 "$entry"
done
XDG_CACHE_HOME=$tmp/good cg -o "$tmp/g8.json" 2> "$tmp/err" || fail "foreign entries: $(cat "$tmp/err")"
! grep -q FORGED "$tmp/g8.json" || fail "a name forged in another user's entry was printed"

# 4. HOME and XDG_CACHE_HOME unset: the shim (in the cache) is under the passwd home, not /tmp
home=$(getent passwd "$(id -un)" | cut -d: -f6)
env -u HOME -u XDG_CACHE_HOME "$PTSCOPE" callgraph "$tree" --write-commands "$tmp/plan.json" -q --format json -o /dev/null ||
	fail "no HOME: callgraph failed"
shim=$(jq -r '.[0].arguments[] | select(test("/shim/"))' "$tmp/plan.json" | head -1)
case "$shim" in
	-I"$home"/.cache/ptscope/shim/*) ;;
	*) fail "no HOME: the cache is not under $home/.cache: $shim" ;;
esac
exit 0
