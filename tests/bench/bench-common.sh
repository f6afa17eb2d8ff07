# Sourced by the bench scripts (tests/bench/bench-*.sh, which run.sh calls
# with PTSCOPE CACHE_DIR), as tests/cli-common.sh is by the CLI tests: the
# arguments as $ptscope and $cache, $here (this folder), $bench (the script's
# name), $runs (BENCH_RUNS, default 3), a scratch folder $tmp removed at exit,
# need (install a Debian package's command through tests/deps.sh or stop) and
# generated_snapshot.  Figures are printed by each script, never asserted.
set -u
bench=$(basename "$0" .sh)
ptscope=${1:?usage: $bench.sh PTSCOPE CACHE_DIR}
cache=${2:?usage: $bench.sh PTSCOPE CACHE_DIR}
here=$(cd "$(dirname "$0")" && pwd)
runs=${BENCH_RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# need COMMAND PACKAGE: COMMAND (a name or a path) there, installed from
# PACKAGE when it is not, or the script stops saying so.
need() {
	command -v "$1" > /dev/null || sh "$here/../deps.sh" "$2" > /dev/null ||
		{ echo "$bench: needs $1 (package $2)"; exit 1; }
}

# generated_snapshot N: the folder of a snapshot of N generated processes
# (gen-snapshot.sh: snapshot.tar and the fake /proc it came from, root/),
# made once into $cache and kept while the generator is unchanged.
generated_snapshot() {
	g_key=$(cksum < "$here/gen-snapshot.py" | cut -d' ' -f1)
	g_dir=$cache/bench-snapshot-$1-$g_key
	if [ ! -f "$g_dir/snapshot.tar" ]; then
		rm -rf "$cache"/bench-snapshot-"$1"-*
		mkdir -p "$g_dir"
		echo "$bench: generating $1 processes into $g_dir (once)" >&2
		sh "$here/gen-snapshot.sh" "$g_dir" "$1" > /dev/null || return 1
	fi
	echo "$g_dir"
}
