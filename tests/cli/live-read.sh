#!/bin/sh
# The live system (/proc, or no argument) reads the same figures the kernel
# shows for a process that cannot change meanwhile (stopped with SIGSTOP).
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
sleep 300 & pid=$!
pids=$pid
sleep 0.2
kill -STOP $pid
vmas=$(grep -c . /proc/$pid/maps)
rss=$(awk '/^Rss:/ { s += $2 } END { print s }' /proc/$pid/smaps)
pte=$(awk '/^VmPTE:/ { print $2 }' /proc/$pid/status)
for source in /proc ""; do
	line=$("$PTSCOPE" info --per-process $source | awk -v p=$pid '$1 == p')
	[ -n "$line" ] || fail "pid $pid missing from 'info --per-process $source'"
	set -- $line
	[ "$3" = "$vmas" ] || fail "VMAs: ptscope $3, /proc/$pid/maps $vmas ($line)"
	[ "$4" = "$rss" ] || fail "Rss: ptscope $4, smaps $rss ($line)"
	[ "$6" = "$pte" ] || fail "VmPTE: ptscope $6, status $pte ($line)"
done
# The live snapshot carries pagemap PFNs as root, present bits otherwise.
mode=$("$PTSCOPE" info | awk '/^pagemap:/ { print $2 }')
if [ "$(id -u)" -eq 0 ]; then [ "$mode" = pfn ] || fail "root live read has pagemap: $mode"; fi
exit 0
