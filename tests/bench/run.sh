#!/bin/sh
# make bench: run every tests/bench/bench-*.sh with the binary and the cache
# folder.  Each prints its own side-by-side table; none asserts a time.
ptscope=$(cd "$(dirname "${1:?usage: run.sh PTSCOPE CACHE}")" && pwd)/$(basename "$1")
cache=${2:?usage: run.sh PTSCOPE CACHE}
mkdir -p "$cache"
here=$(dirname "$0")
status=0
for b in "$here"/bench-*.sh; do
	[ -f "$b" ] || continue
	echo "== $(basename "$b" .sh)"
	sh "$b" "$ptscope" "$cache" || status=1
	echo
done
exit $status
