#!/bin/sh
# Every file the user names has a bound that fits its kind (base/file.h),
# checked from its size before reading and enforced while reading, so that
# /dev/zero, /dev/urandom, a FIFO fed forever and a sparse 4 GiB file are
# each refused in one line naming the file, exit 1, within 10 s and 256 MiB
# (three times both under the sanitizers, as tests/cli/hostile-corpus.sh).
# A FIFO no one writes to is refused after 10 s (open blocked for ever); a
# FIFO named with -o is written in place for its reader.
# An output that is one of the inputs is refused (report SNAP -o SNAP
# replaced the snapshot with the report).  Past `ulimit -f` the write fails
# with EFBIG: exit 2, said, nothing left (SIGXFSZ killed the run silently).
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
[ -x /usr/bin/time ] || skip "/usr/bin/time not installed (package time)"
f=$PTSCOPE_TESTS/fixtures/proc
tree=$PTSCOPE_TESTS/fixtures/kernel-2.5
mkdir -p "$tmp/s/1"
cp "$f/version" "$f/meminfo" "$tmp/s/"
for m in smaps stat status cmdline; do cp "$f/sleep.$m" "$tmp/s/1/$m"; done
sed -i 's/^5969 /1 /' "$tmp/s/1/stat"
(cd "$tmp/s" && tar -cf "$tmp/s.tar" version meminfo 1)
"$PTSCOPE" report "$tmp/s.tar" > /dev/null || fail "the good snapshot is refused"

scale=1
if ldd "$PTSCOPE" 2>/dev/null | grep -q asan; then
	scale=3
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0
	export ASAN_OPTIONS
fi
bounded() {  # WHAT PATTERN COMMAND...: refused in one line, exit 1, within 10 s and 256 MiB
	what=$1 pattern=$2
	shift 2
	/usr/bin/time -f '%M' -o "$tmp/usage" timeout $((10 * scale)) "$@" > /dev/null 2> "$tmp/err"
	rc=$?
	[ $rc -eq 1 ] || fail "$what: exit $rc, want 1: $(head -c 300 "$tmp/err")"
	[ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "$what: not one line: $(head -c 300 "$tmp/err")"
	grep -q -- "$pattern" "$tmp/err" || fail "$what: message lacks '$pattern': $(cat "$tmp/err")"
	kib=$(tail -n 1 "$tmp/usage")
	[ "$kib" -le $((256 * 1024 * scale)) ] || fail "$what: used $((kib / 1024)) MiB"
}
bounded "report --profile /dev/zero" "/dev/zero: more than 16 MiB" "$PTSCOPE" report "$tmp/s.tar" --profile /dev/zero
bounded "profiles --check /dev/zero" "/dev/zero: more than 16 MiB" "$PTSCOPE" profiles --check /dev/zero
bounded "profiles --check /dev/urandom" "/dev/urandom: more than 16 MiB" "$PTSCOPE" profiles --check /dev/urandom
bounded "callgraph --overlay-profile /dev/zero" "/dev/zero: more than 64 MiB" \
	"$PTSCOPE" callgraph "$tree" --no-cache -q --overlay-profile /dev/zero -o "$tmp/x.svg"
bounded "callgraph --config /dev/zero" "/dev/zero: more than 64 MiB" \
	"$PTSCOPE" callgraph "$tree" --no-cache -q --config /dev/zero -o "$tmp/x.svg"
# a sparse 4 GiB + 200 bytes profile: refused from its size (libxml2 took its first 200 bytes)
head -c 200 "$PTSCOPE_TESTS/../model/profiles/$(ls "$PTSCOPE_TESTS/../model/profiles" | grep 'xml$' | head -1)" > "$tmp/big.xml"
truncate -s $(( (4 << 30) + 200 )) "$tmp/big.xml"
bounded "a 4 GiB profile" "big.xml: more than 16 MiB" "$PTSCOPE" profiles --check "$tmp/big.xml"
truncate -s $(( 300 << 20 )) "$tmp/big.json"
bounded "a 300 MiB compile database" "big.json: more than 256 MiB" "$PTSCOPE" callgraph "$tmp/big.json" --no-cache -q -o "$tmp/x.svg"
[ ! -e "$tmp/x.svg" ] || fail "a refused input left an output"
# a FIFO the user names is read with the same bound (its writer never stops)
mkfifo "$tmp/fifo"
(yes '<x>' > "$tmp/fifo" 2>/dev/null &)
bounded "profiles --check FIFO" "fifo: more than 16 MiB" "$PTSCOPE" profiles --check "$tmp/fifo"
# a FIFO no one writes to: open blocked for ever; now refused after the
# 10 s it waits for a writer (base/file.c FILE_FIFO_WAIT_SECONDS)
mkfifo "$tmp/quiet"
timeout $((30 * scale)) "$PTSCOPE" profiles --check "$tmp/quiet" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "profiles --check of a FIFO nobody writes: exit $rc, want 1: $(head -c 300 "$tmp/err")"
[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "quiet: a FIFO no one wrote to in 10 s" "$tmp/err" ||
	fail "profiles --check of a FIFO nobody writes: $(cat "$tmp/err")"
# a FIFO named as output is written in place, as /dev/stdout would be (man
# ptscope, FILES AND LIMITS): its reader gets what -o FILE holds, and the
# FIFO stays a FIFO (not replaced by a renamed temporary)
mkfifo "$tmp/out.fifo"
"$PTSCOPE" report "$tmp/s.tar" --format text -o "$tmp/plain.txt" || fail "report -o FILE"
timeout $((30 * scale)) cat "$tmp/out.fifo" > "$tmp/through.txt" &
reader=$!
pids="$pids $reader"
timeout $((30 * scale)) "$PTSCOPE" report "$tmp/s.tar" --format text -o "$tmp/out.fifo" 2> "$tmp/err" ||
	fail "report -o FIFO: exit $?: $(cat "$tmp/err")"
wait $reader
cmp -s "$tmp/plain.txt" "$tmp/through.txt" || fail "report -o FIFO: the reader got other bytes than -o FILE holds"
[ -p "$tmp/out.fifo" ] || fail "report -o FIFO: the FIFO was replaced"

# an output that is one of the inputs: refused, the input unchanged
cp "$tmp/s.tar" "$tmp/keep.tar"
"$PTSCOPE" report "$tmp/s.tar" --format text -o "$tmp/s.tar" 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] || fail "report SNAP -o SNAP: exit $rc, want 1: $(cat "$tmp/err")"
grep -q "s.tar: is one of this run's inputs" "$tmp/err" || fail "report SNAP -o SNAP: $(cat "$tmp/err")"
cmp -s "$tmp/s.tar" "$tmp/keep.tar" || fail "report SNAP -o SNAP changed the snapshot"
ln "$tmp/s.tar" "$tmp/hard.tar"
"$PTSCOPE" report "$tmp/s.tar" --format text -o "$tmp/hard.tar" 2> "$tmp/err"; [ $? -eq 1 ] || fail "a hard link of the input as output: not refused"
grep -q "hard.tar: is one of this run's inputs" "$tmp/err" || fail "report SNAP -o LINK: $(cat "$tmp/err")"
cmp -s "$tmp/s.tar" "$tmp/keep.tar" || fail "report SNAP -o LINK changed the snapshot"
# a built-in profile file under new ids (its own ids are taken: refused for that, not for -o)
sed 's/ id="\([^"]*\)"/ id="\1-copy"/' \
	"$PTSCOPE_TESTS/../model/profiles/$(ls "$PTSCOPE_TESTS/../model/profiles" | grep 'xml$' | head -1)" > "$tmp/p.xml"
cp "$tmp/p.xml" "$tmp/p.keep"
"$PTSCOPE" report "$tmp/s.tar" --profile "$tmp/p.xml" -o "$tmp/p.xml" 2> "$tmp/err"; [ $? -eq 1 ] ||
	fail "report --profile P -o P: not refused: $(cat "$tmp/err")"
grep -q "p.xml: is one of this run's inputs" "$tmp/err" || fail "report --profile P -o P: $(cat "$tmp/err")"
cmp -s "$tmp/p.xml" "$tmp/p.keep" || fail "report --profile P -o P changed the profile"
# bench --compare's posted timings are inputs too (they were read by fopen, unnoted)
printf 'real\t0m1.000s\nuser\t0m0.100s\nsys\t0m0.500s\n' > "$tmp/before.txt"
printf 'real\t0m0.800s\nuser\t0m0.100s\nsys\t0m0.400s\n' > "$tmp/after.txt"
cp "$tmp/before.txt" "$tmp/before.keep"
"$PTSCOPE" bench --compare "$tmp/before.txt" "$tmp/after.txt" -o "$tmp/before.txt" 2> "$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "bench --compare A B -o A: exit $rc, want 1: $(cat "$tmp/err")"
grep -q "before.txt: is one of this run's inputs" "$tmp/err" || fail "bench --compare -o A: $(cat "$tmp/err")"
cmp -s "$tmp/before.txt" "$tmp/before.keep" || fail "bench --compare A B -o A replaced the timings"
"$PTSCOPE" callgraph "$tree" --no-cache -q --write-commands "$tmp/db.json" --format json -o /dev/null || fail "--write-commands"
cp "$tmp/db.json" "$tmp/db.keep"
"$PTSCOPE" callgraph "$tmp/db.json" --no-cache -q --format json -o "$tmp/db.json" 2> "$tmp/err"; [ $? -eq 1 ] ||
	fail "callgraph DB -o DB: not refused: $(cat "$tmp/err")"
cmp -s "$tmp/db.json" "$tmp/db.keep" || fail "callgraph DB -o DB changed the database"

# past ulimit -f: EFBIG said, exit 2, nothing left
(ulimit -f 1; exec "$PTSCOPE" report "$tmp/s.tar" --format json -o "$tmp/big-out.json") 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "ulimit -f: exit $rc, want 2: $(cat "$tmp/err")"
grep -q "File too large" "$tmp/err" || fail "ulimit -f: does not say EFBIG: $(cat "$tmp/err")"
[ -z "$(ls -A "$tmp" | grep big-out)" ] || fail "ulimit -f: left $(ls -A "$tmp" | grep big-out)"
(ulimit -f 1; exec "$PTSCOPE" report "$tmp/s.tar" --format json > "$tmp/stdout.json") 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] || fail "ulimit -f on stdout: exit $rc, want 2: $(cat "$tmp/err")"
grep -q "stdout: File too large" "$tmp/err" || fail "ulimit -f on stdout: $(cat "$tmp/err")"
exit 0
