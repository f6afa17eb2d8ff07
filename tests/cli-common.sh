# Sourced by the CLI tests (tests/cli/*.sh): a scratch folder $tmp removed at
# exit, the processes in $pids killed at exit, fail(), and start_stopped for
# tests that compare a capture with the live /proc of a tree that cannot change.
set -u
: "${PTSCOPE:?}"
tmp=$(mktemp -d)
pids=""
cleanup() {
	for p in $pids; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Exit status 77: counted as skipped by tests/check.sh, with this last line.
skip() { echo "skip: $*"; exit 77; }
# need_snapshot NAME: the reference snapshot ../shared/snapshots/NAME, or skip.
need_snapshot() {
	[ -f "${SHARED_SNAPSHOTS:-}/$1" ] || skip "no reference snapshot $1 in ${SHARED_SNAPSHOTS:-(unset)}"
}

# start_stopped PROGRAM COUNT: run PROGRAM, which prints one pid per line for
# itself and its children, wait for COUNT pids, stop them all with SIGSTOP and
# wait until the kernel says so.  Sets $root (PROGRAM's pid) and $pids.
start_stopped() {
	# Written back first: page-cache pages of a fresh binary would turn from
	# Private_Dirty to Private_Clean under the stopped tree when writeback runs.
	sync "$1"
	"$1" > "$tmp/pids" &
	root=$!
	pids=$root
	for _ in $(seq 100); do
		[ "$(wc -l < "$tmp/pids")" -ge "$2" ] && break
		sleep 0.1
	done
	[ "$(wc -l < "$tmp/pids")" -eq "$2" ] || fail "$1 did not start $2 processes"
	pids=$(sort -n "$tmp/pids")
	for p in $pids; do kill -STOP "$p"; done
	for p in $pids; do
		for _ in $(seq 50); do
			grep -q '^State:.*stopped' "/proc/$p/status" && break
			sleep 0.05
		done
	done
}
