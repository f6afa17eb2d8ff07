# Sourced by the CLI tests (tests/cli/*.sh): a scratch folder $tmp removed at
# exit, the processes in $pids killed at exit, fail(), and start_stopped for
# tests that compare a capture with the live /proc of a tree that cannot change.
#
# tests/check.sh sets PTSCOPE, PTSCOPE_TESTS and SHARED_*; a test run alone
# (`sh tests/cli/NAME.sh` in a built tree, nothing set) gets the same
# defaults: the ptscope built beside tests/, ../shared beside the tree.
set -u
PTSCOPE_TESTS=$(cd "${PTSCOPE_TESTS:-$(dirname "$0")/..}" && pwd)
: "${PTSCOPE:=$PTSCOPE_TESTS/../ptscope}"
[ -x "$PTSCOPE" ] || { echo "FAIL: no ptscope at $PTSCOPE (run make first, or set PTSCOPE)"; exit 1; }
PTSCOPE=$(cd "$(dirname "$PTSCOPE")" && pwd)/$(basename "$PTSCOPE")
: "${SHARED_SNAPSHOTS:=$PTSCOPE_TESTS/../../shared/snapshots}"
: "${SHARED_KERNELS:=$PTSCOPE_TESTS/../../shared/kernels}"
export PTSCOPE PTSCOPE_TESTS SHARED_SNAPSHOTS SHARED_KERNELS
# A sanitizer build: GCC 12's runtime takes some dynamic TLS blocks (libclang's,
# dlopened) for glibc 2.19's and its leak check's tracer then dies on a bogus
# range ("Tracer caught signal 11", google/sanitizers#1322); not intercepting
# __tls_get_addr avoids it, and static TLS is still scanned.
if ldd "$PTSCOPE" 2>/dev/null | grep -q asan; then
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}intercept_tls_get_addr=0
	export ASAN_OPTIONS
fi
tmp=$(mktemp -d)
pids=""
users=""
cleanup() {
	for p in $pids; do kill -CONT "$p" 2>/dev/null; kill -KILL "$p" 2>/dev/null; done
	for u in $users; do userdel "$u" 2>/dev/null; done
	rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Exit status 77: counted as skipped by tests/check.sh, with this last line.
skip() { echo "skip: $*"; exit 77; }
# make_user: as root, a fresh unprivileged user (no home, no login) removed
# at exit, in $user, with as_user CMD... to run as it; skips visibly when not
# root.  useradd locks /etc/passwd: parallel tests retry.
make_user() {
	[ "$(id -u)" -eq 0 ] || skip "needs root to create a second user"
	command -v useradd >/dev/null && command -v setpriv >/dev/null || skip "useradd or setpriv missing"
	user=ptscope-t$$
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		useradd -M -r -s /usr/sbin/nologin "$user" 2>/dev/null && break
		sleep 0.5
	done
	id "$user" >/dev/null 2>&1 || fail "could not create the user $user"
	users="$users $user"
}
as_user() { setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups "$@"; }
# trace_instance EVENT NAME: as root, a tracefs of the test's own (the shared
# one may not be mounted), a trace instance ptscope-NAME-PID in it, and in
# $event that instance's kmem:EVENT tracepoint (not enabled yet; its cache
# name field is needed, 6.2+); all undone at exit.  Skips, saying why, where
# the kernel or the user cannot.
trace_instance() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for tracefs"
	grep -qw tracefs /proc/filesystems || skip "no tracefs in this kernel"
	tracefs=$(mktemp -d)
	instance=""
	trap trace_finish EXIT
	mount -t tracefs nodev "$tracefs" 2>/dev/null || skip "cannot mount tracefs"
	[ -d "$tracefs/events/kmem/$1" ] || skip "no kmem:$1 tracepoint"
	grep -q "char\[\] name;" "$tracefs/events/kmem/$1/format" ||
		skip "kmem:$1 has no cache name field (kernel before 6.2)"
	instance="$tracefs/instances/ptscope-$2-$$"
	mkdir "$instance" || skip "cannot make a trace instance"
	event="$instance/events/kmem/$1"
}
trace_finish() {
	[ -n "$instance" ] && [ -d "$instance" ] && { echo 0 > "$event/enable"; rmdir "$instance"; }
	umount "$tracefs" 2>/dev/null
	rmdir "$tracefs"
	cleanup
}
# need_snapshot NAME: the reference snapshot ../shared/snapshots/NAME, or skip.
need_snapshot() {
	[ -f "${SHARED_SNAPSHOTS:-}/$1" ] || skip "no reference snapshot $1 in ${SHARED_SNAPSHOTS:-(unset)}"
}

# unpack_reports NAME: the reference snapshot NAME.tar.gz (skip without it)
# unpacked into $tmp/NAME (for a test's own count from its members) and its
# reports in $tmp/NAME.json, .txt and .html, to check against that count.
unpack_reports() {
	need_snapshot "$1.tar.gz"
	mkdir "$tmp/$1" && tar -xzf "$SHARED_SNAPSHOTS/$1.tar.gz" -C "$tmp/$1" || fail "unpack $1"
	"$PTSCOPE" report "$SHARED_SNAPSHOTS/$1.tar.gz" --format json -o "$tmp/$1.json" || fail "$1 json"
	"$PTSCOPE" report "$SHARED_SNAPSHOTS/$1.tar.gz" -o "$tmp/$1.txt" || fail "$1 text"
	"$PTSCOPE" report "$SHARED_SNAPSHOTS/$1.tar.gz" -o "$tmp/$1.html" || fail "$1 html"
}

# server_snapshot DIR ARCH TEXT: a snapshot of one process, server (pid 7),
# for the overlay tests: three present file pages of /usr/sbin/server in an
# r-xp mapping at address TEXT (no anon_vma) and one exclusive anonymous page
# in the rw-p mapping after it; pagemap with PFNs 100-102 and 200, no kpages.
server_snapshot() {
	mkdir -p "$1/7"
	printf 'Linux version 0.0.0 (fixture)\n' > "$1/version"
	printf 'MemTotal: 262144 kB\n' > "$1/meminfo"
	printf 'format: ptscope-snapshot 1\npage_size: 4096\narch: %s\npagemap: pfn\n' "$2" > "$1/snapshot.info"
	printf '7 (server) S 1 7 7 0 -1\n' > "$1/7/stat"
	printf 'server\0' > "$1/7/cmdline"
	printf 'VmPTE:\t       4 kB\n' > "$1/7/status"
	python3 - "$1/7" "$3" <<'PY'
import struct, sys
folder, text = sys.argv[1], int(sys.argv[2], 0)
present, file_page, exclusive = 1 << 63, 1 << 61, 1 << 56
with open(folder + "/smaps", "w") as f:
    f.write("%08x-%08x r-xp 00000000 08:01 5          /usr/sbin/server\n" % (text, text + 0x3000))
    f.write("Size:                 12 kB\nRss:                  12 kB\nAnonymous:             0 kB\n")
    f.write("%08x-%08x rw-p 00000000 00:00 0\n" % (text + 0x3000, text + 0x4000))
    f.write("Size:                  4 kB\nRss:                   4 kB\nAnonymous:             4 kB\n")
records = [(text + 0x1000 * i, present | file_page | (100 + i)) for i in range(3)]
records.append((text + 0x3000, present | exclusive | 200))
with open(folder + "/pagemap", "wb") as f:
    for vaddr, entry in records:
        f.write(struct.pack("<QQ", vaddr, entry))
PY
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
