#!/bin/sh
# No program runs but ptscope: a snapshot or a --config whose magic bytes are
# lzop's, lrzip's, grzip's or lzip's must not start the `lzop`, `lrzip`,
# `grzip` or `lzip` planted first on $PATH (libarchive's "all filters" runs
# them); each is refused in one line with exit 1.  The five built-in
# decompressors (gzip, bzip2, xz, zstd, lz4) still read a snapshot.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
mkdir "$tmp/bin"
for tool in lzop lrzip grzip lzip lzma lz4 zstd xz gzip bzip2 uudecode compress; do
	printf '#!/bin/sh\ntouch "%s/ran-%s"\ncat\n' "$tmp" "$tool" > "$tmp/bin/$tool"
	chmod +x "$tmp/bin/$tool"
done
planted() { ls "$tmp" | grep '^ran-' | tr '\n' ' '; }
# magic numbers as libarchive's filters recognise them
printf '\211LZO\000\r\n\032\n\001\002\003' > "$tmp/s.tar.lzo"
printf 'LRZI\000\006\000\000\000\000\000\000\000\000\000\000\000\000\000\000' > "$tmp/s.tar.lrz"
printf 'GRZipII\000\002\004:)\000\000\000\000\000\000\000' > "$tmp/s.tar.grz"
printf 'LZIP\001\014\000\000\000\000\000\000' > "$tmp/s.tar.lz"
for f in s.tar.lzo s.tar.lrz s.tar.grz s.tar.lz; do
	PATH="$tmp/bin:$PATH" "$PTSCOPE" info "$tmp/$f" > /dev/null 2> "$tmp/err"
	rc=$?
	[ -z "$(planted)" ] || fail "info $f ran $(planted)"
	[ $rc -eq 1 ] || fail "info $f: exit $rc, want 1"
	[ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "$f" "$tmp/err" || fail "info $f: not one line naming it: $(cat "$tmp/err")"
done
# --config goes through the same reader (analyzer/kconfig.c)
tree=$PTSCOPE_TESTS/fixtures/kernel-2.5
PATH="$tmp/bin:$PATH" "$PTSCOPE" callgraph "$tree" --no-cache --config "$tmp/s.tar.lzo" --format json -o "$tmp/cg.json" 2> "$tmp/err"
rc=$?
[ -z "$(planted)" ] || fail "callgraph --config ran $(planted)"
[ $rc -eq 1 ] || fail "callgraph --config LZO: exit $rc, want 1: $(cat "$tmp/err")"
[ -e "$tmp/cg.json" ] && fail "callgraph wrote output from a refused --config"
# the built-in ones still work, with no program run
snap=$tmp/snap
mkdir -p "$snap/5969"
cp "$PTSCOPE_TESTS/fixtures/proc/version" "$PTSCOPE_TESTS/fixtures/proc/meminfo" "$snap/"
for f in smaps stat status cmdline; do cp "$PTSCOPE_TESTS/fixtures/proc/sleep.$f" "$snap/5969/$f"; done
(cd "$snap" && tar -cf "$tmp/s.tar" version meminfo 5969)
for z in gzip bzip2 xz zstd lz4; do
	/usr/bin/env $z -c < "$tmp/s.tar" > "$tmp/s.tar.$z" 2>/dev/null || { echo "skip: no $z to make the sample"; continue; }
	out=$(PATH="$tmp/bin:$PATH" "$PTSCOPE" info "$tmp/s.tar.$z") || fail "$z snapshot refused"
	echo "$out" | grep -qx 'processes: 1' || fail "$z snapshot: $(echo "$out" | grep processes)"
	[ -z "$(planted)" ] || fail "reading the $z snapshot ran $(planted)"
done
printf 'CONFIG_MMU=y\n' | xz > "$tmp/config.xz"
PATH="$tmp/bin:$PATH" "$PTSCOPE" callgraph "$tree" --no-cache --config "$tmp/config.xz" --format json -o "$tmp/cg.json" 2> "$tmp/err" ||
	fail "callgraph --config .xz: $(cat "$tmp/err")"
[ -z "$(planted)" ] || fail "callgraph --config .xz ran $(planted)"
exit 0
