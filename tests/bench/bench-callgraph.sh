#!/bin/sh
# Call-graph speed, side by side, on Debian's linux-source-6.1 (the files and
# flags ptscope chooses, written out with --write-commands by a first cold run,
# which also fills the page cache, so every tool sees exactly the same ones),
# CPU seconds of every thread and child:
#   ptscope callgraph, cold (empty cache, each run: the shared precompiled
#       headers of analyzer/pch.c are built too) against clang-N
#       -fsyntax-only over the same files and flags, same parallelism (the
#       floor for anything that parses every file with clang; N the version
#       of the libclang ptscope loaded, else 14), in alternating pairs after
#       the first cold run, the median of their ratios (bench-common.sh's
#       ratio; BENCH_CALLGRAPH_PAIRS, default 3, about 55 s of CPU each);
#       the same with PTSCOPE_NO_PCH=1 (every file parsed whole; once,
#       BENCH_CALLGRAPH_PLAIN_PAIRS, default 1: it is there to compare)
#   ptscope callgraph, warm (unchanged tree): the median of three runs
#   a warm run with a 60,000-symbol kernel profile against one without, in pairs
#   GNU cflow over the same files, once, and whether it finds the indirect call
#       rmap_walk_anon -> try_to_unmap_one (through rwc->rmap_one)
# Prints figures; asserts nothing about time.
. "$(dirname "$0")/bench-common.sh"
need /usr/bin/time time
need jq jq
need cflow cflow
need clang-14 clang-14
# the tree unpacked into the cache, or Debian's tarball to unpack (make deps-bench)
[ -f "$cache/linux-source-6.1/mm/rmap.c" ] || ls /usr/src/linux-source-6.1.tar.* > /dev/null 2>&1 ||
	skip "no linux-source-6.1 (make deps-bench installs it)"
tree=$(sh "$here/../kernel-source.sh" "$cache") || skip "linux-source-6.1 could not be unpacked"
jobs=$(nproc)

echo "bench-callgraph: linux-source-6.1 at $tree, $jobs jobs"
"$ptscope" callgraph "$tree" -j "$jobs" --cache-dir "$tmp/cache" --write-commands "$tmp/cc.json" \
	--format json -o "$tmp/graph.json" 2> "$tmp/first.err" || { echo "bench-callgraph: ptscope failed"; exit 1; }
# how many files the shared precompiled headers served in that cold run
grep 'precompiled header' "$tmp/first.err" || echo "ptscope: no file used a shared precompiled header"
# the clang of the libclang ptscope loaded ("libclang-19.so.1 (...)"), else clang-14
clang_version=$(jq -r '.summary.libclang' "$tmp/graph.json" | sed -n 's/^libclang-\([0-9]*\)\.so.*/\1/p')
clang=clang-${clang_version:-14}
command -v "$clang" > /dev/null || clang=clang-14
files=$(jq length "$tmp/cc.json")
jq -r '.[] | .arguments[1:] | @sh' "$tmp/cc.json" > "$tmp/commands"
jq -r '.[].file' "$tmp/cc.json" > "$tmp/files"
echo "CPU seconds, alternating pairs:"

# cold against the floor: each cold run starts from an empty cache
cat > "$tmp/cold.sh" <<COLD
rm -rf '$tmp/cold-cache'
exec '$ptscope' callgraph '$tree' -j $jobs --cache-dir '$tmp/cold-cache' -q --format json -o '$tmp/cold-pair.json'
COLD
cat > "$tmp/plain.sh" <<PLAIN
rm -rf '$tmp/plain-cache'
PTSCOPE_NO_PCH=1 exec '$ptscope' callgraph '$tree' -j $jobs --cache-dir '$tmp/plain-cache' -q --format json -o '$tmp/plain-pair.json'
PLAIN
cat > "$tmp/floor.sh" <<FLOOR
xargs -d '\n' -P $jobs -I{} sh -c '$clang -fsyntax-only {} >/dev/null 2>&1; true' < '$tmp/commands'
FLOOR
# the first run above was a cold one, reading every file both read: it is the
# warm-up (a cold parse and a clang floor fewer, about 2 minutes of CPU here);
# every pair asked for is run, past bench-common.sh's CPU budget (2 pairs here)
pairs=${BENCH_CALLGRAPH_PAIRS:-3} warmup=0 budget=1000000
ratio "callgraph of linux-source-6.1 ($files files), cold cache, -j $jobs" \
	"$clang -fsyntax-only, same files and flags, xargs -P $jobs" "sh '$tmp/cold.sh'" "sh '$tmp/floor.sh'" || exit 1
pairs=${BENCH_CALLGRAPH_PLAIN_PAIRS:-1}
ratio "callgraph of linux-source-6.1, cold, PTSCOPE_NO_PCH=1 (every file parsed whole), -j $jobs" \
	"$clang -fsyntax-only, same files and flags, xargs -P $jobs" "sh '$tmp/plain.sh'" "sh '$tmp/floor.sh'" || exit 1
cmp -s "$tmp/cold-pair.json" "$tmp/plain-pair.json" ||
	echo "bench-callgraph: the call graph differs with and without the precompiled headers"
warmup=1 budget=${BENCH_BUDGET:-60}

# warm: the median of three runs' CPU seconds (nothing to pair it with)
for i in 1 2 3; do
	timed_run "$ptscope" callgraph "$tree" -j "$jobs" --cache-dir "$tmp/cache" -q --format json -o "$tmp/warm2.json" || exit 1
	echo "$run_cpu $run_kb"
done | sort -n | sed -n 2p > "$tmp/warm-median"
read -r warm_cpu warm_kb < "$tmp/warm-median"
row="| callgraph of linux-source-6.1, warm cache (aim: under 0.2 s; the median of 3 runs) | — | $warm_cpu s, $((warm_kb / 1024)) MiB | — | — |"
echo "$row"
[ -n "${BENCH_RATIOS:-}" ] && echo "$row" >> "$BENCH_RATIOS"

# a kernel profile of 60,000 symbols (120,000 perf report lines) on the warm
# graph: what reading and placing it adds
python3 "$here/gen-profile.py" 60000 > "$tmp/profile.txt"
pairs=${BENCH_CALLGRAPH_PROFILE_PAIRS:-3}
ratio "callgraph, warm cache, --overlay-profile of 60,000 symbols" "callgraph, warm cache" \
	"'$ptscope' callgraph '$tree' -j $jobs --cache-dir '$tmp/cache' -q --overlay-profile '$tmp/profile.txt' --format json -o '$tmp/profiled.json'" \
	"'$ptscope' callgraph '$tree' -j $jobs --cache-dir '$tmp/cache' -q --format json -o '$tmp/plain.json'" || exit 1

# cflow reads the text (no preprocessor); -i _ so that _-prefixed functions show,
# -b so that a subtree printed once is not printed again (else: tens of GB),
# and a file-size limit in case; once, CPU seconds
cat > "$tmp/cflow.sh" <<CFLOW
ulimit -f 1048576
xargs -d '\n' cflow -b -i _ < '$tmp/files' > '$tmp/cflow.txt' 2>/dev/null
CFLOW
timed_run sh "$tmp/cflow.sh" || exit 1
cflow_cpu=$run_cpu
cflow -i _ -d 2 -m rmap_walk_anon "$tree/mm/rmap.c" 2>/dev/null > "$tmp/walk.txt"
if grep -q 'try_to_unmap_one' "$tmp/walk.txt"; then cflow_edge=yes; else cflow_edge=no; fi
cflow -i _ -d 2 -m try_to_unmap "$tree/mm/rmap.c" 2>/dev/null > "$tmp/unmap.txt"
if grep -q 'try_to_unmap_one' "$tmp/unmap.txt"; then cflow_address="yes"; else cflow_address="no"; fi

# does ptscope have it?
ptscope_edge=$(jq -r '(.nodes | map({(.id): .name}) | add) as $n | .edges[]
	| select($n[.from] == "rmap_walk_anon" and $n[.to] == "try_to_unmap_one") | .kind' "$tmp/graph.json" | head -n 1)
[ -n "$ptscope_edge" ] || ptscope_edge=no

echo
printf '%-44s %6s %9s  %s\n' "tool (same $files files, same flags)" files "CPU s" "rmap_walk_anon -> try_to_unmap_one"
printf '%-44s %6s %9s  %s\n' "ptscope callgraph, warm cache" "$files" "$warm_cpu" "$ptscope_edge"
printf '%-44s %6s %9s  %s\n' "GNU cflow -i _ (once)" "$files" "$cflow_cpu" \
	"$cflow_edge (lists try_to_unmap -> try_to_unmap_one: $cflow_address, an address taken)"
exit 0
