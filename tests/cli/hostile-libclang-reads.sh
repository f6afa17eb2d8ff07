#!/bin/sh
# What a tree's files make libclang read is bounded (analyzer/bounded.c):
# `#include "/dev/zero"` ran libclang out of memory ("LLVM ERROR: out of
# memory", the file silently dropped, exit 0), a FIFO blocked it for ever.
# Each parse runs in a child the analyzer stops: anything but a regular file
# (a device, a FIFO), a file above 256 MiB, or a file outside the tree and
# the system headers (read only to quote it in diagnostics) is refused in
# one line naming the unit and the file, exit 1, nothing written, within 20 s
# and 512 MiB (three times both under the sanitizers).  Through a compile
# database, through a tree, through a macro-built name (a pre-scan of
# #include lines could not see it) and for profiles --from-source.
# Where the kernel has Landlock (analyzer/confine.c), a file outside the tree
# and the system headers is never opened: a device's driver never runs, an
# outside FIFO's writer never sees a reader; the refusal names the including
# line.  Without Landlock the child's watchdog stops it once it is open.
# Inside the tree only regular files may be read: a device, a FIFO or a
# socket there (or a symlink in the tree to one) is refused alike, before it
# is opened, naming the including line and the file; the regular files
# beside them are still read.  The tree is walked for that before a cold
# parse (a special file is found where no #include names it), never when
# everything is cached; a tree that would need more than 16384 Landlock
# rules is refused whole.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
[ -x /usr/bin/time ] || skip "/usr/bin/time not installed (package time)"
scale=1
ldd "$PTSCOPE" 2>/dev/null | grep -q asan && scale=3
tree=$tmp/tree
mkdir -p "$tree/mm" "$tree/include"
printf 'int g(void) { return 1; }\nint f(void) { return g(); }\n' > "$tree/mm/good.c"
printf '#include "/dev/zero"\nint h(void) { return 2; }\n' > "$tree/mm/zero.c"
printf '#define NAME(x) #x\n#define FILE_OF(x) NAME(x)\n#include FILE_OF(/dev/urandom)\nint u(void) { return 2; }\n' > "$tree/mm/macro.c"
mkfifo "$tree/include/fifo.h"
printf '#include "../include/fifo.h"\nint k(void) { return 3; }\n' > "$tree/mm/fifo.c"
truncate -s 1G "$tree/include/huge.h"
printf '#include "../include/huge.h"\nint n(void) { return 4; }\n' > "$tree/mm/huge.c"
printf 'secret_word_123\n' > "$tmp/outside.h"
printf '#include "../../outside.h"\nint m(void) { return 5; }\n' > "$tree/mm/outside.c"

database() {  # FILE: a compile database of mm/FILE.c
	printf '[{"directory": "%s", "file": "mm/%s.c", "arguments": ["cc", "-c", "mm/%s.c"]}]\n' \
		"$tree" "$1" "$1" > "$tmp/db-$1.json"
	echo "$tmp/db-$1.json"
}
refused() {  # WHAT PATTERN COMMAND...: one line, exit 1, bounded time and memory, no output
	what=$1 pattern=$2
	shift 2
	rm -f "$tmp/out.json"
	/usr/bin/time -f '%M' -o "$tmp/usage" timeout $((20 * scale)) "$@" > /dev/null 2> "$tmp/said"
	rc=$?
	# without Landlock, ptscope says so once: not part of the refusal
	grep -v "reads are watched, not confined" "$tmp/said" > "$tmp/err"
	[ $rc -eq 1 ] || fail "$what: exit $rc, want 1: $(head -c 300 "$tmp/err")"
	[ "$(wc -l < "$tmp/err")" -eq 1 ] || fail "$what: not one line: $(head -c 600 "$tmp/err")"
	grep -q -- "$pattern" "$tmp/err" || fail "$what: message lacks '$pattern': $(cat "$tmp/err")"
	! grep -q secret_word "$tmp/err" || fail "$what: the outside file's text was shown"
	kib=$(tail -n 1 "$tmp/usage")
	[ "$kib" -le $((512 * 1024 * scale)) ] || fail "$what: used $((kib / 1024)) MiB"
	[ ! -e "$tmp/out.json" ] || fail "$what: output written"
}

"$PTSCOPE" callgraph "$(database good)" --no-cache -q --all --format json -o "$tmp/good.json" 2> "$tmp/err" ||
	fail "the good unit: $(cat "$tmp/err")"
grep -q '"name": *"f"' "$tmp/good.json" || fail "the good unit's function f is missing"
# Landlock or not (the warning, once), and what each refusal then says
if grep -q "reads are watched, not confined" "$tmp/err"; then
	[ "$(grep -c "reads are watched" "$tmp/err")" -eq 1 ] || fail "the warning is said more than once"
	zero_said="mm/zero.c: libclang was reading /dev/zero, a character device"
	urandom_said="mm/macro.c: libclang was reading /dev/urandom, a character device"
	unopened="" landlock=""
else
	unopened=": refused before it was opened" landlock=yes
	zero_said="mm/zero.c:1: includes /dev/zero, outside the tree and the system headers$unopened"
	urandom_said="mm/macro.c:3: includes /dev/urandom, outside the tree and the system headers$unopened"
fi
# expected WITH WITHOUT: the message said with Landlock, or without it
expected() { if [ "$landlock" ]; then echo "$1"; else echo "$2"; fi; }

refused "#include /dev/zero" "$zero_said" \
	"$PTSCOPE" callgraph "$(database zero)" --no-cache -q --format json -o "$tmp/out.json"
refused "#include of a macro-built /dev/urandom" "$urandom_said" \
	"$PTSCOPE" callgraph "$(database macro)" --no-cache -q --format json -o "$tmp/out.json"
fifo_said=$(expected "mm/fifo.c:1: includes $tree/include/fifo.h, a FIFO: the analyzer lets libclang read regular files only$unopened" \
	"mm/fifo.c: libclang was reading .*fifo.h, a FIFO")
refused "#include of a FIFO nobody writes" "$fifo_said" \
	"$PTSCOPE" callgraph "$(database fifo)" --no-cache -q --format json -o "$tmp/out.json"
refused "#include of a sparse 1 GiB file" "huge.h, a file of 1073741824 bytes: more than the 256 MiB" \
	"$PTSCOPE" callgraph "$(database huge)" --no-cache -q --format json -o "$tmp/out.json"
refused "#include of a file outside the tree" "mm/outside.c:1: includes $tmp/outside.h, outside the tree and the system headers$unopened" \
	"$PTSCOPE" callgraph "$(database outside)" --no-cache -q --format json -o "$tmp/out.json"

# a FIFO outside the tree with a writer waiting for a reader: with Landlock
# libclang never opens it (the writer's open never returns, so no mark)
if [ "$landlock" ]; then
	mkfifo "$tmp/outside.fifo"
	printf '#include "%s"\nint q(void) { return 6; }\n' "$tmp/outside.fifo" > "$tree/mm/outfifo.c"
	(exec 3> "$tmp/outside.fifo"; echo opened > "$tmp/mark") &
	pids="$pids $!"
	refused "#include of a FIFO outside the tree" \
		"mm/outfifo.c:1: includes $tmp/outside.fifo, outside the tree and the system headers$unopened" \
		"$PTSCOPE" callgraph "$(database outfifo)" --no-cache -q --format json -o "$tmp/out.json"
	sleep 1
	[ ! -e "$tmp/mark" ] || fail "the outside FIFO was opened: its writer wrote $(cat "$tmp/mark")"
else
	echo "hostile-libclang-reads: no Landlock here: the outside FIFO's open is not checked"
fi

# devices, FIFOs and sockets inside the tree, each also through a symlink
# in the tree, and a regular file beside them that is read
if [ "$landlock" ]; then
	mkdir -p "$tree/dev" "$tree/unrelated/nobody-reads-this"
	printf 'int okay_value;\n' > "$tree/dev/ok"
	mkfifo "$tree/dev/fifo"
	specials="fifo"
	if mknod "$tree/dev/zero" c 1 5 2> /dev/null; then
		specials="$specials zero"
	else
		echo "hostile-libclang-reads: mknod refused here: no character device inside the tree"
	fi
	if python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$tree/dev/sock" 2> /dev/null; then
		specials="$specials sock"
	else
		echo "hostile-libclang-reads: no python3 to make a socket: no socket inside the tree"
	fi
	(exec 3> "$tree/dev/fifo"; echo opened > "$tmp/inmark") &
	pids="$pids $!"
	for name in $specials ok; do
		ln -s "../dev/$name" "$tree/include/$name-link.h"
	done
	for name in $specials; do
		case $name in
		zero) kind="a character device" ;;
		fifo) kind="a FIFO" ;;
		sock) kind="a socket" ;;
		esac
		printf '#include "../dev/%s"\nint s_%s(void) { return 7; }\n' "$name" "$name" > "$tree/mm/in$name.c"
		printf '#include "../include/%s-link.h"\nint l_%s(void) { return 8; }\n' "$name" "$name" > "$tree/mm/link$name.c"
		said="includes $tree/dev/$name, $kind: the analyzer lets libclang read regular files only$unopened"
		refused "#include of $kind inside the tree" "mm/in$name.c:1: $said" \
			"$PTSCOPE" callgraph "$(database "in$name")" --no-cache -q --format json -o "$tmp/out.json"
		refused "#include of a symlink in the tree to $kind in it" "mm/link$name.c:1: $said" \
			"$PTSCOPE" callgraph "$(database "link$name")" --no-cache -q --format json -o "$tmp/out.json"
	done
	sleep 1
	[ ! -e "$tmp/inmark" ] || fail "the FIFO inside the tree was opened: its writer wrote $(cat "$tmp/inmark")"
	ln -s /dev/zero "$tree/include/outside-link.h"
	printf '#include "../include/outside-link.h"\nint o(void) { return 9; }\n' > "$tree/mm/linkout.c"
	refused "#include of a symlink in the tree to /dev/zero" \
		"mm/linkout.c:1: includes /dev/zero, outside the tree and the system headers$unopened" \
		"$PTSCOPE" callgraph "$(database linkout)" --no-cache -q --format json -o "$tmp/out.json"
	# the regular file beside them, directly and through a link
	printf '#include "../dev/ok"\n#include "../include/ok-link.h"\nint okay(void) { return okay_value; }\n' \
		> "$tree/mm/okay.c"
	"$PTSCOPE" callgraph "$(database okay)" --no-cache -q --all --format json -o "$tmp/okay.json" 2> "$tmp/err" ||
		fail "a regular file beside special ones: $(cat "$tmp/err")"
	grep -q '"name": *"okay"' "$tmp/okay.json" || fail "a regular file beside special ones: okay is missing"
	grep -q '"errors":0,' "$tmp/okay.json" || fail "a regular file beside special ones: not read: $(grep first_error "$tmp/okay.json")"
	# the walk is seen (a folder no unit reads is opened) on a cold parse, not on a warm one
	if command -v strace > /dev/null && strace -f -qq -o /dev/null true 2> /dev/null; then
		for run in cold warm; do   # (LeakSanitizer cannot run under ptrace)
			ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -e trace=openat -o "$tmp/strace.$run" "$PTSCOPE" callgraph "$(database okay)" \
				--cache-dir "$tmp/cache" -q --all --format json -o "$tmp/$run.json" 2> "$tmp/err" ||
				fail "the $run run: $(cat "$tmp/err")"
		done
		grep -q "nobody-reads-this" "$tmp/strace.cold" || fail "the cold parse did not walk the tree"
		! grep -q "nobody-reads-this" "$tmp/strace.warm" || fail "the warm call graph walked the tree"
		grep -q '"files_parsed":0,"files_cached":1,' "$tmp/warm.json" || fail "the warm call graph parsed again"
	else
		echo "hostile-libclang-reads: no strace that may trace here: the walk is not watched"
	fi
	# a FIFO beside more regular files than the rules' bound: refused whole
	mkdir -p "$tmp/big/mm" "$tmp/big/many"
	printf 'int b(void) { return 10; }\n' > "$tmp/big/mm/big.c"
	(cd "$tmp/big/many" && seq 1 16385 | sed 's/$/.h/' | xargs touch) || fail "cannot make 16385 files"
	mkfifo "$tmp/big/many/fifo"
	printf '[{"directory": "%s", "file": "mm/big.c", "arguments": ["cc", "-c", "mm/big.c"]}]\n' "$tmp/big" \
		> "$tmp/db-big.json"
	refused "a FIFO beside 16385 files" \
		"the tree holds files that are not regular files, folders or symlinks ($tmp/big/many/fifo, a FIFO), beside more than 16384 files" \
		"$PTSCOPE" callgraph "$tmp/db-big.json" --no-cache -q --format json -o "$tmp/out.json"
else
	echo "hostile-libclang-reads: no Landlock here: special files inside the tree are left to the watchdog"
fi

# a tree: the kernel-2.5 fixture with one header that includes /dev/zero
cp -r "$PTSCOPE_TESTS/fixtures/kernel-2.5" "$tmp/k"
printf '#include "/dev/zero"\n' >> "$tmp/k/include/linux/mm.h"
tree_said=$(expected "include/linux/mm.h:[0-9]*: includes /dev/zero, outside the tree and the system headers$unopened" \
	"mm/[a-z]*.c: libclang was reading /dev/zero, a character device").'*(and [0-9]* more files stopped alike)'
refused "a tree's header including /dev/zero" "$tree_said" \
	"$PTSCOPE" callgraph "$tmp/k" --no-cache -q --format json -o "$tmp/out.json"
refused "profiles --from-source on that tree" "mm/rmap.c: .*/dev/zero" \
	"$PTSCOPE" profiles --from-source "$tmp/k"
exit 0
