#!/bin/sh
# bench-inputs.sh PTSCOPE CACHE_DIR
#
# Reading one large snapshot, side by side, CPU seconds in alternating pairs
# after a warm-up (bench-common.sh's ratio): `ptscope info` on the tar
# against its floor, `cat TAR > /dev/null` (just reading the bytes), and
# `smem -S` on the same snapshot as a directory (the tool a user would reach
# for) against `ptscope info` on it, where smem is installed.  smem -S on the
# tar is tried once: Debian 12's smem crashes there (a Python 2 program
# ported to Python 3 that matches str patterns against the bytes tarfile
# returns).
#
# The snapshot is generated once into CACHE_DIR by gen-snapshot.py (2000
# processes, seed 1: the same bytes on every run, said with its checksum) and
# kept, with and without pagemap records (info skips the records' bytes, cat
# reads them: the text-only tar is the fair floor for parsing), and against
# the line floor (linefloor.c), the least a parser of that text does, the
# number floor (linefloor.c --numbers), the least an smaps parser does, and
# the VMA floor (linefloor.c --vmas), the least a reader holding VMAs does.
# Figures are printed, never asserted.
. "$(dirname "$0")/bench-common.sh"
nproc=2000
need /usr/bin/python3 python3

snap=$(generated_snapshot "$nproc") || exit 1
tar=$snap/snapshot.tar
dir=$snap/root

"$ptscope" info "$tar" > "$tmp/info" 2>&1 || { cat "$tmp/info"; exit 1; }
vmas=$(sed -n 's/^VMAs: //p' "$tmp/info")
processes=$(sed -n 's/^processes: //p' "$tmp/info")
pagemap=$(sed -n 's/^pagemap bytes: //p' "$tmp/info")
smaps_bytes=$(cat "$dir"/proc/*/smaps | wc -c)
tar_bytes=$(wc -c < "$tar")
echo "bench-inputs: $processes processes, $vmas VMAs, smaps text $smaps_bytes bytes, pagemap $pagemap bytes, tar $tar_bytes bytes"
echo
echo "CPU seconds, alternating pairs:"
ratio "info, $processes processes, $vmas VMAs (tar)" "cat of the same tar" \
	"'$ptscope' info '$tar'" "cat '$tar'" || exit 1
echo "$ratio_work_kb $vmas" | awk '$2 > 0 { printf "ptscope info peak memory per VMA: %.0f bytes (peak RSS / VMAs, pagemap records included)\n", $1 * 1024 / $2 }'
# The same processes without pagemap records: info steps over a record's
# bytes where cat reads them, so the tar above flatters info; here every
# byte cat reads is text info parses.
text=$(generated_snapshot "$nproc" text) || exit 1
ratio "info, text only (smaps, status, stat, cmdline), $processes processes" "cat of the same tar" \
	"'$ptscope' info '$text/snapshot.tar'" "cat '$text/snapshot.tar'" || exit 1
# Between the two, the least any line parser does: find each line's end
# (linefloor.c: the tar mapped as info maps it, newlines found 16 bytes a
# step, nothing parsed or kept).  What info spends above it is parsing.
${CC:-cc} -O2 -I "$here/../.." -o "$tmp/linefloor" "$here/linefloor.c" || exit 1
ratio "line floor: each line's end found in the text-only tar (linefloor.c)" "cat of the same tar" \
	"'$tmp/linefloor' '$text/snapshot.tar'" "cat '$text/snapshot.tar'" || exit 1
ratio "info, text only, $processes processes" "the line floor (linefloor.c)" \
	"'$ptscope' info '$text/snapshot.tar'" "'$tmp/linefloor' '$text/snapshot.tar'" || exit 1
# Above it, the least an smaps parser does: each counter's number read too
# (linefloor.c --numbers: one word per line in the kernel's columns, no name
# looked up, nothing checked or kept); and the least a reader that holds
# the VMAs does: that and a record of sizeof(struct vma) bytes per VMA in an
# array grown by doubling (linefloor.c --vmas), which costs what fresh
# memory costs on this machine.  Against the aim of info at 1.5x cat: how
# much of it these alone take here.
ratio "number floor: each line's end found and each counter in the kernel's columns read (linefloor.c --numbers)" "cat of the same tar" \
	"'$tmp/linefloor' --numbers '$text/snapshot.tar'" "cat '$text/snapshot.tar'" || exit 1
ratio "VMA floor: the number floor and each VMA held as info holds it, sizeof(struct vma) bytes (linefloor.c --vmas)" "cat of the same tar" \
	"'$tmp/linefloor' --vmas '$text/snapshot.tar'" "cat '$text/snapshot.tar'" || exit 1
ratio "info, text only, $processes processes, against the VMA floor" "the VMA floor (linefloor.c --vmas)" \
	"'$ptscope' info '$text/snapshot.tar'" "'$tmp/linefloor' --vmas '$text/snapshot.tar'" || exit 1
if command -v smem > /dev/null; then
	pairs=${BENCH_SMEM_PAIRS:-3}
	ratio "smem -S DIR (the tool a user would reach for)" "ptscope info DIR/proc" \
		"smem -S '$dir'" "'$ptscope' info '$dir/proc'" || exit 1
	if smem -S "$tar" > /dev/null 2> "$tmp/smem.err"; then
		echo "smem -S TAR: reads the tar"
	else
		echo "smem -S TAR: fails (exit $?): $(tail -n 1 "$tmp/smem.err")"
	fi
else
	echo "smem: not installed (make deps-bench), no smem row"
fi
