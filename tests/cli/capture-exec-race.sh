#!/bin/sh
# One process, one moment: a process that re-execs itself without pause
# (ASLR moves its code, stack and heap on every exec) is captured 100 times.
# Each capture either holds it whole from one program (info --verify: stat's
# code and stack lie in the smaps' VMAs, every pagemap record in a VMA) or
# counts it skipped as changed during capture; never mixed.  A zombie
# (exited, unreaped) is counted as a zombie, not as a kernel thread.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
[ "$(cat /proc/sys/kernel/randomize_va_space 2>/dev/null)" = 0 ] && { echo "skip: ASLR is off, an exec does not move the mm"; exit 77; }
printf '#!/bin/sh\nexec "$0"\n' > "$tmp/reexec"
chmod +x "$tmp/reexec"
"$tmp/reexec" &
racer=$!
pids="$racer"
captured=0 changed=0
for i in $(seq 100); do
	# When the one process changed on every attempt, the capture holds no
	# process and is refused (exit 1, nothing written) saying it changed.
	if ! "$PTSCOPE" capture --pid "$racer" -o "$tmp/c.tar" > /dev/null 2> "$tmp/err"; then
		grep -q 'no process could be read: skipped 1 (.*changed during capture: 1)' "$tmp/err" ||
			fail "capture $i: $(cat "$tmp/err")"
		[ ! -e "$tmp/c.tar" ] || fail "capture $i: refused, yet $tmp/c.tar was written"
		changed=$((changed + 1))
		continue
	fi
	"$PTSCOPE" info --verify "$tmp/c.tar" > "$tmp/info" 2> "$tmp/err" || fail "capture $i mixes two programs: $(cat "$tmp/err")"
	rm -f "$tmp/c.tar"
	n=$(sed -n 's/^processes: //p' "$tmp/info")
	c=$(sed -n 's/^of them changed during capture: //p' "$tmp/info")
	s=$(sed -n 's/^skipped at capture: //p' "$tmp/info")
	[ "$n" -eq 1 ] && captured=$((captured + 1))
	[ "$c" -eq 1 ] && changed=$((changed + 1))
	[ $((n + s)) -eq 1 ] || fail "capture $i: $n captured + $s skipped is not the one process"
done
kill "$racer"
echo "100 captures: $captured whole, $changed changed during capture"
[ $((captured + changed)) -eq 100 ] || fail "captures neither whole nor counted as changed"
# a zombie: the child exits, its parent (now sleep) never reaps it
sh -c 'sh -c "exit 0" & exec sleep 30' &
parent=$!
pids="$pids $parent"
for _ in $(seq 50); do
	[ -n "$(ps -o stat= --ppid "$parent" | grep Z)" ] && break
	sleep 0.1
done
"$PTSCOPE" capture --tree "$parent" -o "$tmp/z.tar" > /dev/null 2>&1 || fail "capture of the zombie's tree"
"$PTSCOPE" info "$tmp/z.tar" > "$tmp/info" || fail "info of the zombie's tree"
grep -qx 'zombies skipped: 1' "$tmp/info" || fail "zombie not counted: $(grep -E 'zombies|kernel threads' "$tmp/info")"
grep -qx 'kernel threads skipped: 0' "$tmp/info" || fail "the zombie was counted as a kernel thread"
grep -qx 'processes: 1' "$tmp/info" || fail "the parent was not captured"
exit 0
