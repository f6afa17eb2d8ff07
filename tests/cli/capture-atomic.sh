#!/bin/sh
# An interrupted capture leaves no file that looks like a snapshot: capture
# writes into an unnamed file in the target directory and gives it a name
# only when it is complete.  The test makes a capture slow (a process with
# 30000 VMAs, written as .tar.xz), catches it in the middle of writing (its
# open output file is visible in /proc/PID/fd), kills it with SIGKILL and
# with SIGTERM, and checks the directory stays empty.  (SIGINT cannot be sent
# this way: a non-interactive shell starts background jobs with it ignored.)
# An uninterrupted run then leaves exactly the one finished file.
command -v cc >/dev/null || { echo "no C compiler"; exit 77; }
command -v xz >/dev/null || { echo "no xz"; exit 77; }
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"

cat > "$tmp/many.c" <<'EOF'
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
int main(void)
{
	/* Alternate protections so that neighbouring mappings never merge. */
	for (int i = 0; i < 30000; i++) {
		int prot = i % 2 ? PROT_READ : PROT_READ | PROT_WRITE;
		char *p = mmap(NULL, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		if (prot & PROT_WRITE)
			*p = 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
EOF
cc -O1 -o "$tmp/many" "$tmp/many.c" || fail "cannot build the test program"
"$tmp/many" > "$tmp/ready" &
many=$!
pids=$many
for _ in $(seq 100); do grep -q ready "$tmp/ready" && break; sleep 0.05; done
grep -q ready "$tmp/ready" || fail "the test program did not start"

# Start a capture, wait until its output file is open, then send the signal.
interrupt() {
	dir=$tmp/$1
	mkdir "$dir"
	"$PTSCOPE" capture --tree "$many" -o "$dir/s.tar.xz" >/dev/null 2>&1 &
	capture=$!
	pids="$pids $capture"
	writing=no
	for _ in $(seq 400); do
		if ls -l "/proc/$capture/fd" 2>/dev/null | grep -q "$dir"; then writing=yes; break; fi
		sleep 0.01
	done
	[ $writing = yes ] || fail "never saw the capture writing (did it finish too fast?)"
	kill -"$1" "$capture" 2>/dev/null || fail "the capture finished before SIGKILL; nothing tested"
	wait "$capture"
	rc=$?
	[ $rc -ne 0 ] || fail "the capture finished before SIG$1 arrived; nothing tested"
	[ -z "$(ls -A "$dir")" ] || fail "SIG$1 left files: $(ls -A "$dir")"
}
interrupt KILL
interrupt TERM

mkdir "$tmp/whole"
"$PTSCOPE" capture --tree "$many" -o "$tmp/whole/s.tar.xz" >/dev/null 2>&1 || fail "the full capture failed"
[ "$(ls -A "$tmp/whole")" = "s.tar.xz" ] || fail "a full capture left: $(ls -A "$tmp/whole")"
vmas=$(xz -dc "$tmp/whole/s.tar.xz" | tar -xOf - "$many/smaps" | grep -cE '^[0-9a-f]+-[0-9a-f]+ ')
[ "$vmas" -gt 30000 ] || fail "the finished capture holds $vmas VMAs"
echo "interrupted captures leave nothing; a finished one leaves one file ($vmas VMAs)"
