#!/bin/sh
# Run every libFuzzer target of `make fuzz` for SECONDS each (default 600),
# all at once at the lowest priority, from seeds made here out of the
# fixtures; print one line per target: executions, seconds, crashes.  A
# crash input is kept as build-fuzz/crash-TARGET-* to become a test.  A
# "slow unit" (over 10 s of wall-clock time, kept as crash-TARGET-slow-unit-*)
# is counted apart: on a loaded machine it is the load, so run it alone.
# FUZZ_NICE sets the priority (default 19, the lowest).
#   sh tests/fuzz/run.sh [SECONDS] [TARGET...]
seconds=${1:-600}
[ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")/../.." && pwd)
out=$here/build-fuzz
targets=${*:-"fuzz_members fuzz_archive fuzz_profile_xml fuzz_profile_text fuzz_kbuild fuzz_compile_commands"}
seeds=$out/seeds
rm -rf "$seeds"
for t in $targets; do mkdir -p "$seeds/$t"; done
f=$here/tests/fixtures
[ -d "$seeds/fuzz_members" ] && for m in smaps status stat cmdline; do
	{ printf '\000'; cat "$f/proc/sleep.$m"; } > "$seeds/fuzz_members/$m"
done
[ -d "$seeds/fuzz_archive" ] && (
	d=$(mktemp -d); mkdir "$d/1"
	cp "$f/proc/version" "$f/proc/meminfo" "$d/"
	for m in smaps stat status cmdline; do cp "$f/proc/sleep.$m" "$d/1/$m"; done
	sed -i 's/^5969 /1 /' "$d/1/stat"
	(cd "$d" && tar -cf "$seeds/fuzz_archive/s.tar" version meminfo 1 && gzip -c "$seeds/fuzz_archive/s.tar" > "$seeds/fuzz_archive/s.tar.gz")
	rm -rf "$d")
[ -d "$seeds/fuzz_profile_xml" ] && cp "$here"/model/profiles/*.xml "$seeds/fuzz_profile_xml/"
[ -d "$seeds/fuzz_profile_text" ] && {
	printf '# Overhead  Command  Shared Object  Symbol\n    30.00%%  make  [kernel.kallsyms]  [k] page_remove_rmap\n    10.50%%  sh  [kernel.kallsyms]  [k] copy_page_range.isra.0\n' > "$seeds/fuzz_profile_text/perf"
	printf 'samples  %%        symbol name\n5200     52.0000  do_wp_page\n1300     13.0000  page_add_rmap\n' > "$seeds/fuzz_profile_text/opreport"
	printf '   120 page_add_rmap                             0.5000\n  2400 total                                      0.0012\n' > "$seeds/fuzz_profile_text/readprofile"
	printf 'Average Optimal load -j 16 Run (std deviation):\nElapsed Time 128.07 (0.59)\nUser Time 800.25 (1.2)\nSystem Time 112.76 (0.8)\n' > "$seeds/fuzz_profile_text/kernbench"
	printf 'real\t0m27.814s\nuser\t0m35.120s\nsys\t1m5.960s\n' > "$seeds/fuzz_profile_text/time"
	printf '       27.814 +- 0.120 seconds time elapsed  ( +-  0.43%%)\n' > "$seeds/fuzz_profile_text/perf-excerpt"
	printf 'Kernbench: (make -j vmlinux, maximal tasks)\n                              Elapsed      System        User         CPU\n                   2.5.62       45.06       98.92      564.35     1471.67\n              2.5.62-objrmap       44.77       84.14      563.59     1447.67\n' > "$seeds/fuzz_profile_text/kernel-table"
}
[ -d "$seeds/fuzz_kbuild" ] && {
	{ printf '\001'; cat "$f/kernel-2.5/.config"; } > "$seeds/fuzz_kbuild/config"
	{ printf '\000'; cat "$f/kernel-2.5/Makefile"; } > "$seeds/fuzz_kbuild/Makefile"
	{ printf '\000'; cat "$f/kernel-2.5/mm/Makefile"; } > "$seeds/fuzz_kbuild/mm-Makefile"
}
[ -d "$seeds/fuzz_compile_commands" ] &&
	printf '[{"directory": "/tmp", "file": "/tmp/a.c", "arguments": ["cc", "-Iinclude", "-fconserve-stack", "-c", "a.c"]},\n {"directory": "/tmp", "file": "b.c", "command": "cc -DX=1 -c b.c"}]\n' > "$seeds/fuzz_compile_commands/db.json" &&
	printf '[{"directory": "/usr/include", "file": "a.c", "arguments": ["cc", "-H", "-Xclang", "-header-include-file", "-Xclang", "/tmp/h", "-MJ", "/tmp/j", "-I", "..", "-isystem/usr/include/linux", "-include", "/etc/passwd", "-imacros", "stdio.h", "-ftime-trace=/tmp/t", "-mllvm", "-x", "-Wl,-o,/tmp/o", "-W", "-Wall", "-std=gnu11", "-D", "A=/x", "-U", "--target=x86_64-linux-gnu", "-fplugin=/tmp/p.so", "-o", "/tmp/o", "a.c"]}, {"directory": "/", "file": "/etc/passwd", "command": "cc -I/etc -include /dev/zero -MF /tmp/d -c /etc/passwd"}]\n' > "$seeds/fuzz_compile_commands/hostile.json"
# libFuzzer's -timeout is wall-clock time: at nice 19 on a loaded machine an
# input that takes 0.4 s of CPU was stopped as a "timeout" after 11 s, and
# the campaign ended there.  60 s still finds a hang.
for t in $targets; do
	mkdir -p "$out/corpus-$t"
	(cd "$out" && nice -n "${FUZZ_NICE:-19}" ./$t -max_total_time="$seconds" -timeout=60 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$out/crash-$t-" "$out/corpus-$t" "$seeds/$t" > "$out/$t.log" 2>&1) &
done
wait
for t in $targets; do
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log")
	time=$(sed -n 's/^stat::.*_time.*: *//p' "$out/$t.log" | head -1)
	crashes=$(ls "$out" | grep "^crash-$t-" | grep -vc "^crash-$t-slow-unit-")
	slow=$(ls "$out" | grep -c "^crash-$t-slow-unit-")
	echo "$t: ${runs:-?} executions in ${seconds} s, $crashes crash input(s), $slow slow unit(s)"
done
