#!/bin/sh
# Call-graph speed, side by side, on Debian's linux-source-6.1 (the files and
# flags ptscope chooses, written out with --write-commands so every tool
# sees exactly the same ones):
#   ptscope callgraph, cold (empty cache) and warm (unchanged tree)
#   clang-14 -fsyntax-only over the same files and flags, same parallelism:
#       the floor for anything that parses with clang
#   GNU cflow over the same files, and whether it finds the indirect call
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

now() { date +%s.%N; }
seconds() { echo "$1 $2" | awk '{ printf "%.2f", $2 - $1 }'; }

echo "bench-callgraph: linux-source-6.1 at $tree, $jobs jobs"
t0=$(now)
"$ptscope" callgraph "$tree" -j "$jobs" --cache-dir "$tmp/cache" -q --write-commands "$tmp/cc.json" \
	--format json -o "$tmp/cold.json" || { echo "bench-callgraph: ptscope failed"; exit 1; }
t1=$(now)
"$ptscope" callgraph "$tree" -j "$jobs" --cache-dir "$tmp/cache" -q --format json -o "$tmp/warm.json"
t2=$(now)
cold=$(seconds "$t0" "$t1")
warm=$(seconds "$t1" "$t2")

# a kernel profile of 60,000 symbols (120,000 perf report lines) on the warm
# graph: what reading and placing it adds, wall clock and CPU (the machine may
# be shared: CPU seconds are the steadier figure)
python3 "$here/gen-profile.py" 60000 > "$tmp/profile.txt"
cpu() {  # "wall cpu" of a command
	/usr/bin/time -f "%e %U %S" -o "$tmp/time" "$@" > /dev/null 2>&1
	awk '{ printf "%.2f %.2f", $1, $2 + $3 }' "$tmp/time"
}
set -- $(cpu "$ptscope" callgraph "$tree" -j "$jobs" --cache-dir "$tmp/cache" -q --format json -o "$tmp/plain.json")
plain_wall=$1 plain_cpu=$2
set -- $(cpu "$ptscope" callgraph "$tree" -j "$jobs" --cache-dir "$tmp/cache" -q --overlay-profile "$tmp/profile.txt" \
	--format json -o "$tmp/profiled.json")
profiled_wall=$1 profiled_cpu=$2
files=$(jq length "$tmp/cc.json")

# the floor: clang -fsyntax-only, one process per file, $jobs at a time
jq -r '.[] | .arguments[1:] | @sh' "$tmp/cc.json" > "$tmp/commands"
t0=$(now)
xargs -d '\n' -P "$jobs" -I{} sh -c 'clang-14 -fsyntax-only {} >/dev/null 2>&1; true' < "$tmp/commands"
t1=$(now)
floor=$(seconds "$t0" "$t1")

# cflow reads the text (no preprocessor); -i _ so that _-prefixed functions show,
# -b so that a subtree printed once is not printed again (else: tens of GB),
# and a file-size limit in case
jq -r '.[].file' "$tmp/cc.json" > "$tmp/files"
t0=$(now)
(ulimit -f 1048576; xargs -d "\n" cflow -b -i _ < "$tmp/files" > "$tmp/cflow.txt" 2>/dev/null)
t1=$(now)
cflow_time=$(seconds "$t0" "$t1")
cflow -i _ -d 2 -m rmap_walk_anon "$tree/mm/rmap.c" 2>/dev/null > "$tmp/walk.txt"
if grep -q 'try_to_unmap_one' "$tmp/walk.txt"; then cflow_edge=yes; else cflow_edge=no; fi
cflow -i _ -d 2 -m try_to_unmap "$tree/mm/rmap.c" 2>/dev/null > "$tmp/unmap.txt"
if grep -q 'try_to_unmap_one' "$tmp/unmap.txt"; then cflow_address="yes"; else cflow_address="no"; fi

# does ptscope have it?
ptscope_edge=$(jq -r '(.nodes | map({(.id): .name}) | add) as $n | .edges[]
	| select($n[.from] == "rmap_walk_anon" and $n[.to] == "try_to_unmap_one") | .kind' "$tmp/warm.json" | head -n 1)
[ -n "$ptscope_edge" ] || ptscope_edge=no

ratio=$(echo "$cold $floor" | awk '{ printf "%.2f", $1 / $2 }')
printf '%-44s %6s %9s  %s\n' "tool (same $files files, same flags)" files seconds "rmap_walk_anon -> try_to_unmap_one"
printf '%-44s %6s %9s  %s\n' "ptscope callgraph, cold cache, -j $jobs" "$files" "$cold" "$ptscope_edge"
printf '%-44s %6s %9s  %s\n' "ptscope callgraph, warm cache" "$files" "$warm" "$ptscope_edge"
printf '%-44s %6s %9s  %s\n' "clang-14 -fsyntax-only, xargs -P $jobs (floor)" "$files" "$floor" "(no call graph)"
printf '%-44s %6s %9s  %s\n' "GNU cflow -i _" "$files" "$cflow_time" \
	"$cflow_edge (lists try_to_unmap -> try_to_unmap_one: $cflow_address, an address taken)"
echo "ptscope cold / clang floor: $ratio"
echo
printf '%-60s %9s %9s\n' "the tree's parse against a kernel profile's reading" "wall s" "CPU s"
printf '%-60s %9s %9s\n' "parse linux-source-6.1 ($files files, cold cache, -j $jobs)" "$cold" "-"
printf '%-60s %9s %9s\n' "callgraph, warm cache" "$plain_wall" "$plain_cpu"
printf '%-60s %9s %9s\n' "callgraph, warm cache, --overlay-profile 60,000 symbols" "$profiled_wall" "$profiled_cpu"
echo "$profiled_wall $plain_wall $profiled_cpu $plain_cpu" | awk '{ printf "%-60s %9.2f %9.2f\n", \
	"  of it the profile (120,000 lines read, placed, listed)", $1 - $2, $3 - $4 }'

# the same two in alternating pairs, CPU seconds (every thread and child):
# each cold run starts from an empty cache
echo
echo "CPU seconds, alternating pairs:"
cat > "$tmp/cold.sh" <<COLD
rm -rf '$tmp/cold-cache'
exec '$ptscope' callgraph '$tree' -j $jobs --cache-dir '$tmp/cold-cache' -q --format json -o '$tmp/cold-pair.json'
COLD
cat > "$tmp/floor.sh" <<FLOOR
xargs -d '\n' -P $jobs -I{} sh -c 'clang-14 -fsyntax-only {} >/dev/null 2>&1; true' < '$tmp/commands'
FLOOR
pairs=${BENCH_CALLGRAPH_PAIRS:-1}
ratio "callgraph of linux-source-6.1 ($files files), cold cache, -j $jobs" \
	"clang-14 -fsyntax-only, same files and flags, xargs -P $jobs" "sh '$tmp/cold.sh'" "sh '$tmp/floor.sh'" || exit 1
# warm: the median of three runs' CPU seconds (nothing to pair it with)
for i in 1 2 3; do
	timed_run "$ptscope" callgraph "$tree" -j "$jobs" --cache-dir "$tmp/cache" -q --format json -o "$tmp/warm2.json" || exit 1
	echo "$run_cpu $run_kb"
done | sort -n | sed -n 2p > "$tmp/warm-median"
read -r warm_cpu warm_kb < "$tmp/warm-median"
row="| callgraph of linux-source-6.1, warm cache (aim: under 0.2 s) | — | $warm_cpu s, $((warm_kb / 1024)) MiB | — | — |"
echo "$row"
[ -n "${BENCH_RATIOS:-}" ] && echo "$row" >> "$BENCH_RATIOS"
exit 0
