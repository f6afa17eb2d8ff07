#!/bin/sh
# ptscope callgraph on the 2.4 and 2.5 fixture trees: exact edge sets (every
# edge written down by hand in EXPECTED-edges), the rmap-path subgraph and
# its roles, --depth, --entry/--sink, call-site lines of calls written in a
# macro and through a pointer, the cache, compile_commands.json input with
# gcc-only flags, and bad input.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
sh "$PTSCOPE_TESTS/deps.sh" jq >/dev/null 2>&1
command -v jq >/dev/null || { echo "skip: jq is not installed"; exit 77; }
f24="$PTSCOPE_TESTS/fixtures/kernel-2.4"
f25="$PTSCOPE_TESTS/fixtures/kernel-2.5"
cg() { "$PTSCOPE" callgraph --cache-dir "$tmp/cache" -q "$@"; }

# "name@file -> name@file kind", one per distinct edge
edges() {
	jq -r '(.nodes | map({(.id): "\(.name)@\(.file)"}) | add) as $n
	       | .edges[] | "\($n[.from]) -> \($n[.to]) \(.kind)"' "$1" | sort -u
}
names() { jq -r '.nodes[] | "\(.name) \(.role)"' "$1" | sort; }

# --- whole graphs: every edge, nothing more ----------------------------------
for tree in "$f24" "$f25"; do
	cg "$tree" --all --format json -o "$tmp/all.json" || fail "$tree: exit status $?"
	edges "$tmp/all.json" > "$tmp/edges"
	diff -u "$tree/EXPECTED-edges" "$tmp/edges" || fail "$tree: edge set differs"
done

# 2.4: no configuration: the MMU symbols were supplied and said so
cg "$f24" --all --format json -o "$tmp/24.json" || fail "2.4 run"
[ "$(jq .summary.config_symbols_supplied "$tmp/24.json")" -eq 5 ] || fail "2.4: supplied symbols not counted"
[ "$(jq .summary.files "$tmp/24.json")" -eq 9 ] || fail "2.4: expected 9 files (highmem.c is not built)"
# two static mark_dirty functions stay two nodes, each in its file
[ "$(jq -r '[.nodes[] | select(.name == "mark_dirty") | .file] | sort | join(" ")' "$tmp/24.json")" = \
  "mm/filemap.c mm/memory.c" ] || fail "2.4: the two static mark_dirty were merged"
# the call inside COPY_PTE counts at the line where the macro is used
line=$(grep -n 'COPY_PTE(pte_page' "$f24/mm/memory.c" | cut -d: -f1)
got=$(jq -r '(.nodes | map({(.id): .name}) | add) as $n | .edges[]
	| select($n[.from] == "copy_page_range" and $n[.to] == "page_add_rmap") | .line' "$tmp/24.json")
[ "$got" = "$line" ] || fail "2.4: macro call site line $got, want $line"
# the indirect call site is the line of vma->vm_ops->nopage(...), with its field
line=$(grep -n 'vm_ops->nopage(vma' "$f24/mm/memory.c" | cut -d: -f1)
got=$(jq -r '(.nodes | map({(.id): .name}) | add) as $n | .edges[] | select(.kind == "indirect")
	| "\($n[.from]) \($n[.to]) \(.line) \(.field)"' "$tmp/24.json" | sort | tr '\n' ';')
[ "$got" = "do_no_page filemap_nopage $line vm_operations_struct.nopage;do_no_page shmem_nopage $line vm_operations_struct.nopage;" ] ||
	fail "2.4: indirect edges: $got"

# --- the rmap paths of 2.4, worked out by hand from the fixture ------------------
cg "$f24" --format json -o "$tmp/paths.json" || fail "2.4 paths"
names "$tmp/paths.json" > "$tmp/names"
sort > "$tmp/want" <<'EOF'
do_fork entry
copy_mm path
dup_mmap path
copy_page_range path
page_add_rmap sink
pte_chain_alloc sink
do_page_fault entry
handle_mm_fault entry
handle_pte_fault path
do_no_page path
do_wp_page path
page_remove_rmap sink
pte_chain_free sink
do_exit entry
__exit_mm path
mmput entry
exit_mmap entry
zap_page_range path
zap_pte_range path
do_munmap entry
kswapd entry
shrink_caches entry
shrink_cache path
page_referenced sink
try_to_unmap sink
try_to_unmap_one sink
EOF
diff -u "$tmp/want" "$tmp/names" || fail "2.4: rmap-path nodes or roles differ"
# every edge of the whole graph between two path nodes, and no other
cut -d' ' -f1 "$tmp/want" > "$tmp/keep"
edges "$tmp/24.json" | awk 'NR == FNR { keep[$1] = 1; next }
	{ split($1, a, "@"); split($3, b, "@"); if (a[1] in keep && b[1] in keep) print }' "$tmp/keep" - > "$tmp/want-edges"
edges "$tmp/paths.json" > "$tmp/got-edges"
diff -u "$tmp/want-edges" "$tmp/got-edges" || fail "2.4: rmap-path edges differ"

# --depth 2: only paths of at most two calls (shrink_caches -> shrink_cache -> sink)
cg "$f24" --depth 2 --format json -o "$tmp/d2.json" || fail "depth run"
[ "$(names "$tmp/d2.json" | tr '\n' ';')" = "page_referenced sink;shrink_cache path;shrink_caches entry;try_to_unmap sink;" ] ||
	fail "--depth 2 nodes: $(names "$tmp/d2.json" | tr '\n' ';')"
[ "$(edges "$tmp/d2.json" | wc -l)" -eq 3 ] || fail "--depth 2: want 3 edges"

# --entry and a file --sink: do_no_page reaches page_add_rmap and shmem.c in one call
cg "$f24" --depth 1 --entry do_no_page --sink mm/shmem.c --format json -o "$tmp/d1.json" || fail "entry/sink run"
[ "$(edges "$tmp/d1.json" | tr '\n' ';')" = \
  "do_no_page@mm/memory.c -> page_add_rmap@mm/rmap.c direct;do_no_page@mm/memory.c -> shmem_nopage@mm/shmem.c indirect;" ] ||
	fail "--entry/--sink: $(edges "$tmp/d1.json" | tr '\n' ';')"

# --exclude: with zap_pte_range cut out, exit and munmap no longer reach the rmap
cg "$f24" --exclude zap_pte_range --format json -o "$tmp/ex.json" || fail "exclude run"
for gone in do_exit __exit_mm mmput exit_mmap zap_page_range zap_pte_range do_munmap; do
	grep -qx "$gone" "$tmp/keep" || fail "test bug: $gone"
	names "$tmp/ex.json" | grep -q "^$gone " && fail "--exclude: $gone is still there"
done
[ "$(jq '.nodes | length' "$tmp/ex.json")" -eq 19 ] || fail "--exclude: want 26 - 7 = 19 nodes"

# --shortest on 2.5: handle_mm_fault reaches page_add_rmap and pte_chain_alloc in two
# calls (through do_no_page or do_wp_page), so do_anonymous_page (three) drops out;
# copy_page_range calls pte_chain_alloc directly, so pte_chain_alloc_atomic -> pte_chain_alloc
# goes, while pte_chain_alloc_atomic itself stays (it is a sink of its own)
cg "$f25" --format json -o "$tmp/p25.json" || fail "2.5 paths"
cg "$f25" --shortest --format json -o "$tmp/s25.json" || fail "2.5 --shortest"
names "$tmp/p25.json" | grep -q '^do_anonymous_page path$' || fail "2.5: do_anonymous_page should be on a path"
names "$tmp/s25.json" | grep -q '^do_anonymous_page ' && fail "--shortest kept do_anonymous_page"
names "$tmp/s25.json" | grep -q '^pte_chain_alloc_atomic sink$' || fail "--shortest dropped pte_chain_alloc_atomic"
edges "$tmp/p25.json" | grep -q '^pte_chain_alloc_atomic@include/linux/rmap.h -> pte_chain_alloc@' ||
	fail "2.5: the atomic wrapper edge should be on a path"
edges "$tmp/s25.json" | grep -q '^pte_chain_alloc_atomic@' && fail "--shortest kept pte_chain_alloc_atomic -> pte_chain_alloc"
[ "$(edges "$tmp/s25.json" | wc -l)" -lt "$(edges "$tmp/p25.json" | wc -l)" ] || fail "--shortest removed nothing"

# --shortest keeps one path per entry and sink: handle_mm_fault reaches each
# of 2.5's four rmap.c functions in two calls, through do_wp_page (line 40)
# and do_no_page (line 65) alike; the earlier calls win, so do_no_page goes
cg "$f25" --shortest --only-given --entry handle_mm_fault --sink mm/rmap.c --format tree -o "$tmp/one.txt" ||
	fail "--shortest --only-given"
[ "$(sed 's/^ *[0-9]* //; s/ <.*//' "$tmp/one.txt" | tr -s ' \n' ' ')" = \
  "handle_mm_fault() do_wp_page() pte_chain_alloc() page_remove_rmap() page_add_rmap() pte_chain_free() " ] ||
	fail "--shortest: not one path per sink: $(cat "$tmp/one.txt")"

# --reverse: who calls page_remove_rmap, read off the fixture by hand:
# zap_pte_range (memory.c:39) and do_wp_page (:55); zap_page_range calls
# zap_pte_range (:45); do_munmap and exit_mmap call zap_page_range
# (mmap.c:6, :15); mmput calls exit_mmap (fork.c:7), __exit_mm mmput
# (exit.c:6), do_exit __exit_mm (:12); the fault chain above do_wp_page
cg "$f24" --reverse page_remove_rmap -o "$tmp/callers.txt" || fail "--reverse: exit status $?"
cat > "$tmp/want-callers.txt" <<'TXT'
    1 page_remove_rmap() <mm/rmap.c:43>:
    2     zap_pte_range() <mm/memory.c:32>:
    3         zap_page_range() <mm/memory.c:43>:
    4             do_munmap() <mm/mmap.c:4>
    5             exit_mmap() <mm/mmap.c:10>:
    6                 mmput() <kernel/fork.c:4>:
    7                     __exit_mm() <kernel/exit.c:4>:
    8                         do_exit() <kernel/exit.c:9>
    9     do_wp_page() <mm/memory.c:49>:
   10         handle_pte_fault() <mm/memory.c:79>:
   11             handle_mm_fault() <mm/memory.c:89>:
   12                 do_page_fault() <arch/i386/mm/fault.c:6>
TXT
diff -u "$tmp/want-callers.txt" "$tmp/callers.txt" || fail "--reverse page_remove_rmap"
cg "$f24" --reverse page_remove_rmpa -o "$tmp/callers2.txt" 2> "$tmp/err"; [ $? -eq 1 ] || fail "--reverse typo: want exit 1"
grep -qF "did you mean 'page_remove_rmap'?" "$tmp/err" || fail "--reverse typo: $(cat "$tmp/err")"
cg "$f24" --reverse page_remove_rmap --format json -o "$tmp/x.json" 2> /dev/null; [ $? -eq 1 ] ||
	fail "--reverse with --format json: want exit 1"

# --only-given: only the entries and sinks named
cg "$f24" --only-given --entry do_fork --sink pte_chain_alloc --format json -o "$tmp/og.json" || fail "--only-given"
[ "$(names "$tmp/og.json" | tr '\n' ';')" = "copy_mm path;copy_page_range path;do_fork entry;dup_mmap path;page_add_rmap path;pte_chain_alloc sink;" ] ||
	fail "--only-given: $(names "$tmp/og.json" | tr '\n' ';')"
# a misspelt name is refused with the closest parsed name, never answered
# with an empty graph: exit 1 and nothing written
for typed in "--entry do_frok do_fork" "--sink page_add_rmpa page_add_rmap" "--exclude zap_pte_rnage zap_pte_range" \
	     "--sink mm/rmpa.c mm/rmap.c"; do
	set -- $typed
	cg "$f24" "$1" "$2" --format json -o "$tmp/typo.json" 2> "$tmp/err"; [ $? -eq 1 ] || fail "$1 $2: want exit 1"
	grep -qF -- "$1 '$2': " "$tmp/err" && grep -qF "did you mean '$3'?" "$tmp/err" || fail "$1 $2: $(cat "$tmp/err")"
	[ -e "$tmp/typo.json" ] && fail "$1 $2: output written"
done
cg "$f24" --sink 'nothing_like_it*' --format json -o "$tmp/typo.json" 2> "$tmp/err"; [ $? -eq 1 ] ||
	fail "a pattern that matches nothing: want exit 1"
grep -qF "no parsed function matches it" "$tmp/err" || fail "pattern refusal: $(cat "$tmp/err")"
# a --path preset's own era names (kernel_clone on 2.4) are not refused
cg "$f24" --path fork --format json -o "$tmp/fork.json" || fail "--path fork refused its own era names"

# --- 2.5: the .config decides (highmem.c built, numa.c not) ----------------------
cg "$f25" --all --format json -o "$tmp/25.json" || fail "2.5 run"
[ "$(jq .summary.files "$tmp/25.json")" -eq 11 ] || fail "2.5: expected 11 files"
[ "$(jq .summary.config_symbols_supplied "$tmp/25.json")" -eq 0 ] || fail "2.5: config was found, nothing supplied"
jq -e '.nodes[] | select(.name == "pte_chain_alloc_atomic" and .role == "sink" and .file == "include/linux/rmap.h")' \
	"$tmp/25.json" >/dev/null || fail "2.5: inline rmap.h function is not a sink"
jq -e '.nodes[] | select(.name == "shmem_zero_nopage")' "$tmp/25.json" >/dev/null ||
	fail "2.5: shmem_zero_nopage should be a node (defined), only without edges"

# --- the cache: the second run parses nothing; a touched file is parsed again ----
cp -r "$f25" "$tmp/tree"
cg "$tmp/tree" --format json -o "$tmp/c1.json" || fail "cache run 1"
cg "$tmp/tree" --format json -o "$tmp/c2.json" || fail "cache run 2"
[ "$(jq .summary.files_cached "$tmp/c2.json")" -eq 11 ] || fail "warm run did not use the cache"
touch -d '2001-01-01' "$tmp/tree/mm/vmscan.c"
cg "$tmp/tree" --format json -o "$tmp/c3.json" || fail "cache run 3"
[ "$(jq .summary.files_parsed "$tmp/c3.json")" -eq 1 ] || fail "a touched file was not parsed again"
[ "$(jq -c '[.nodes, .edges]' "$tmp/c1.json")" = "$(jq -c '[.nodes, .edges]' "$tmp/c3.json")" ] ||
	fail "cached and parsed graphs differ"
cg "$tmp/tree" --no-cache -j 1 --format json -o "$tmp/c4.json" || fail "--no-cache run"
[ "$(jq .summary.files_parsed "$tmp/c4.json")" -eq 11 ] || fail "--no-cache used the cache"

# an edited inline function in a header: every unit that read the header is
# parsed again (the cache keys on libclang's inclusion list), the others are not
edge='pte_chain_alloc_atomic@include/linux/rmap.h -> pte_chain_free@mm/rmap.c direct'
edges "$tmp/c4.json" | grep -qxF "$edge" && fail "the fixture already has the edge the edit adds"
cg "$tmp/tree" --write-commands "$tmp/tree-plan.json" --format json -o /dev/null || fail "--write-commands"
readers=$(jq -r '.[].file' "$tmp/tree-plan.json" | xargs grep -l 'include <linux/rmap.h>' | wc -l)
[ "$readers" -gt 0 ] && [ "$readers" -lt 11 ] || fail "expected some, not all, units to include rmap.h ($readers)"
sed 's/^\treturn pte_chain_alloc(GFP_ATOMIC);/\tpte_chain_free(0);\n&/' "$tmp/tree/include/linux/rmap.h" > "$tmp/rmap.h"
cat "$tmp/rmap.h" > "$tmp/tree/include/linux/rmap.h"   # in place, as an editor saves
cg "$tmp/tree" --all --format json -o "$tmp/c5.json" || fail "warm run after the header edit"
edges "$tmp/c5.json" | grep -qxF "$edge" || fail "warm run after editing rmap.h misses the new edge"
[ "$(jq .summary.files_parsed "$tmp/c5.json")" -eq "$readers" ] ||
	fail "expected the $readers units that include rmap.h to be parsed again, got $(jq .summary.files_parsed "$tmp/c5.json")"
cg "$tmp/tree" --all --no-cache --format json -o "$tmp/c6.json" || fail "--no-cache run after the edit"
[ "$(edges "$tmp/c5.json")" = "$(edges "$tmp/c6.json")" ] || fail "warm and --no-cache graphs differ after the edit"
# another configuration is another key: nothing cached is reused
printf 'CONFIG_MMU=y\nCONFIG_SWAP=y\n' > "$tmp/other.config"
cg "$tmp/tree" --config "$tmp/other.config" --format json -o "$tmp/c7.json" || fail "run with another configuration"
[ "$(jq .summary.files_cached "$tmp/c7.json")" -eq 0 ] || fail "a unit cached under another configuration was reused"

# --- compile_commands.json: same graph; gcc-only flags dropped and counted ------
cg "$f25" --write-commands "$tmp/plan.json" --format json -o /dev/null || fail "--write-commands"
n=$(jq length "$tmp/plan.json")
# first entry as a shell "command" string, the rest as arguments; two gcc-only flags each
jq '[.[] | .arguments |= (.[0:1] + ["-mpreferred-stack-boundary=3", "-fconserve-stack", "-c", "-o", "x.o"] + .[1:])]
    | .[0] |= (.command = (.arguments | map(@sh) | join(" ")) | del(.arguments))' "$tmp/plan.json" > "$tmp/compile_commands.json"
cg "$tmp/compile_commands.json" --all --format json -o "$tmp/db.json" || fail "compile_commands run"
edges "$tmp/db.json" > "$tmp/db-edges"
diff -u "$f25/EXPECTED-edges" "$tmp/db-edges" || fail "compile_commands: edge set differs"
[ "$(jq .summary.flags_dropped "$tmp/db.json")" -eq $((2 * n)) ] || fail "gcc-only flags not counted"

# --- XML carries the same nodes and edges ----------------------------------------
cg "$f25" --all --format xml -o "$tmp/25.xml" || fail "xml run"
[ "$(grep -c '<edge ' "$tmp/25.xml")" -eq "$(jq '.edges | length' "$tmp/25.json")" ] || fail "xml edge count"
[ "$(grep -c '<node ' "$tmp/25.xml")" -eq "$(jq '.nodes | length' "$tmp/25.json")" ] || fail "xml node count"

# --- bad input: one clear message, exit 1, no output file --------------------------
cg "$tmp/nothing-here" -o "$tmp/x.json" 2> "$tmp/err"; [ $? -eq 1 ] || fail "missing source: want exit 1"
grep -q "nothing-here" "$tmp/err" || fail "missing source: message does not name it"
[ ! -e "$tmp/x.json" ] || fail "missing source left an output file"
printf '[\n {"directory": "/", "file": "a.c",\n' > "$tmp/broken.json"
cg "$tmp/broken.json" -o "$tmp/x.json" 2> "$tmp/err"; [ $? -eq 1 ] || fail "broken json: want exit 1"
grep -q "broken.json:3:" "$tmp/err" || fail "broken json: no file:line in '$(cat "$tmp/err")'"
printf 'CONFIG_MMU=y\nthis is not kconfig\n' > "$tmp/bad.config"
cg "$f24" --config "$tmp/bad.config" -o "$tmp/x.json" 2> "$tmp/err"; [ $? -eq 1 ] || fail "bad config: want exit 1"
grep -q "bad.config:2:" "$tmp/err" || fail "bad config: no file:line in '$(cat "$tmp/err")'"
cg "$f24" --depth none 2>/dev/null; [ $? -eq 1 ] || fail "--depth none: want exit 1"
cg "$f24" -o "$tmp/x.gif" 2>/dev/null; [ $? -eq 1 ] || fail "unknown extension: want exit 1"
cg "$f24" -o "$tmp/no/such/dir/x.svg" 2>/dev/null; [ $? -eq 2 ] || fail "unwritable output: want exit 2"
[ -z "$(ls "$tmp" | grep '^x\.')" ] || fail "a failed run left a partial file"
# --- a cache folder that cannot be made: still a graph, nothing cached or left behind
before=$(ls /tmp | grep -c '^ptscope-callgraph\.' || true)
"$PTSCOPE" callgraph "$f24" --no-cache --cache-dir /proc/no-cache-here -q --format json -o "$tmp/nocache.json" ||
	fail "an unwritable cache folder with --no-cache should still give the graph"
grep -q '"page_add_rmap"' "$tmp/nocache.json" || fail "no page_add_rmap in the graph made without a cache"
after=$(ls /tmp | grep -c '^ptscope-callgraph\.' || true)
[ "$before" = "$after" ] || fail "the scratch configuration folder was left in /tmp"
# ... and with caching asked for, the command says once that nothing is cached
"$PTSCOPE" callgraph "$f24" --cache-dir /proc/no-cache-here -q --format json -o "$tmp/nocache2.json" 2> "$tmp/err" ||
	fail "an unwritable cache folder should still give the graph"
[ "$(cat "$tmp/err")" = "ptscope: /proc/no-cache-here: cannot create the cache folder; caching nothing this run" ] ||
	fail "unwritable cache folder: said $(cat "$tmp/err")"
# the same graph is written the same way every run: cgraph ordered clusters by
# the address of their interned names (outputs/graph.c), and about one run in
# seven wrote kernel-2.6's clusters in another order
for run in 1 2 3 4 5 6 7 8 9 10 11 12; do
	"$PTSCOPE" callgraph "$PTSCOPE_TESTS/fixtures/kernel-2.6" --no-cache -q --format dot -o "$tmp/run-$run.dot" ||
		fail "dot run $run"
	cmp -s "$tmp/run-1.dot" "$tmp/run-$run.dot" || fail "dot run $run differs from run 1: $(diff "$tmp/run-1.dot" "$tmp/run-$run.dot" | head -4)"
done
echo "callgraph fixtures: ok"
