#!/bin/sh
# Small things that cost trust (issue 21, item 8):
#  - `info --per-process` is a clean tab-separated table: a header and one
#    line per process (as many as `info` counts), every line 6 fields;
#  - ptscope-capture speaks its own name in --help and in a refusal;
#  - `ptscope help help` is the front door's help, not "unknown command";
#  - a user's name from the snapshot's users member: pg32 with "user 101
#    postgres" added names its 37 postgres processes "postgres (uid 101)" in
#    --group-by user and "postgres" in JSON; a capture writes the member
#    (uid 0 is root on every host); a bad line is refused with its line.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
need_snapshot pg32.tar.gz
need_snapshot desktop.tar.gz
for name in pg32 desktop; do
	snap="$SHARED_SNAPSHOTS/$name.tar.gz"
	"$PTSCOPE" info --per-process "$snap" > "$tmp/$name.tsv" || fail "info --per-process $name"
	n=$("$PTSCOPE" info "$snap" | sed -n 's/^processes: //p')
	[ "$(head -n 1 "$tmp/$name.tsv")" = "$(printf 'pid\tcomm\tvmas\trss_kb\tpss_kb\tvmpte_kb')" ] ||
		fail "$name: the first line is not the header: $(head -n 1 "$tmp/$name.tsv")"
	[ "$(wc -l < "$tmp/$name.tsv")" -eq $((n + 1)) ] || fail "$name: $(wc -l < "$tmp/$name.tsv") lines for $n processes"
	awk -F'\t' 'NF != 6 || (NR > 1 && $1 !~ /^[0-9]+$/) { print "line " NR ": " $0; bad = 1 } END { exit bad }' \
		"$tmp/$name.tsv" > "$tmp/bad" || fail "$name: not a clean table: $(head -n 3 "$tmp/bad")"
done
capture="$(dirname "$PTSCOPE")/ptscope-capture"
[ -x "$capture" ] || fail "no $capture beside $PTSCOPE"
"$capture" --help | head -n 1 | grep -q '^usage: ptscope-capture \[' || fail "ptscope-capture --help: $("$capture" --help | head -n 1)"
"$capture" --bogus 2> "$tmp/err"; [ $? -eq 1 ] || fail "ptscope-capture --bogus: not exit 1"
grep -q "^ptscope-capture: unknown option '--bogus'" "$tmp/err" || fail "ptscope-capture --bogus said: $(cat "$tmp/err")"
grep -q "^Try 'ptscope-capture --help'" "$tmp/err" || fail "ptscope-capture --bogus said: $(cat "$tmp/err")"
"$PTSCOPE" capture --bogus 2> "$tmp/err"
grep -q "^ptscope capture: unknown option '--bogus'" "$tmp/err" || fail "ptscope capture --bogus said: $(cat "$tmp/err")"
MANPAGER=cat MANWIDTH=100 "$PTSCOPE" help help > "$tmp/help" 2>&1; rc=$?
[ $rc -eq 0 ] || fail "help help: exit $rc: $(head -n 3 "$tmp/help")"
! grep -q "unknown command" "$tmp/help" || fail "help help: $(head -n 3 "$tmp/help")"
grep -q "ptscope help COMMAND" "$tmp/help" || fail "help help shows no help: $(head -n 3 "$tmp/help")"
mkdir "$tmp/pg" && tar -xzf "$SHARED_SNAPSHOTS/pg32.tar.gz" -C "$tmp/pg" || fail "unpack pg32"
top=$(ls "$tmp/pg"); [ -f "$tmp/pg/$top/snapshot.info" ] && pg="$tmp/pg/$top" || pg="$tmp/pg"
printf 'user 101 postgres\nuser 0 root\ngroup 101 postgres\n' > "$pg/users"
"$PTSCOPE" info "$pg" | grep -qx 'names: 2 users, 1 groups' || fail "info: $("$PTSCOPE" info "$pg" | grep names)"
want=$(grep -l '^Uid:[[:space:]]*101[[:space:]]' "$pg"/*/status | wc -l)
"$PTSCOPE" report "$pg" --group-by user > "$tmp/g.txt" || fail "report --group-by user"
grep -Eq "^postgres \(uid 101\) +$want " "$tmp/g.txt" || fail "no 'postgres (uid 101)' row of $want: $(grep -A3 '^user ' "$tmp/g.txt")"
"$PTSCOPE" report "$pg" --format json --per-process > "$tmp/g.json" || fail "report json"
python3 - "$tmp/g.json" "$want" <<'PY' || fail "JSON user names"
import json, sys
procs = json.load(open(sys.argv[1]))["processes"]
named = [p for p in procs if p.get("user") == "postgres"]
assert len(named) == int(sys.argv[2]) and all(p["uid"] == 101 for p in named), (len(named), sys.argv[2])
assert all("user" not in p for p in procs if p.get("uid") not in (0, 101))
PY
printf 'user 101 postgres\nuser x bad\n' > "$pg/users"
"$PTSCOPE" report "$pg" > /dev/null 2> "$tmp/err"; [ $? -eq 1 ] || fail "a bad users line: not exit 1"
grep -q "users:2: the id is not a number" "$tmp/err" || fail "bad users line said: $(cat "$tmp/err")"
printf 'user 1 a\nuser 1 b\n' > "$pg/users"
"$PTSCOPE" report "$pg" > /dev/null 2> "$tmp/err"; [ $? -eq 1 ] || fail "a uid named twice: not exit 1"
if [ "$(id -u)" -eq 0 ]; then
	"$PTSCOPE" capture --pid $$ -o "$tmp/self.tar" > /dev/null 2>&1 || fail "capture --pid $$"
	tar -xOf "$tmp/self.tar" users | grep -qx 'user 0 root' || fail "the capture's users member: $(tar -xOf "$tmp/self.tar" users)"
fi
exit 0
