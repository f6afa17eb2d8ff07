#!/bin/sh
# Unpack Debian's linux-source-6.1 once into CACHE/linux-source-6.1 and
# print that path.  Installs the package when it is missing.
cache=${1:?usage: kernel-source.sh CACHE}
tree="$cache/linux-source-6.1"
if [ -f "$tree/mm/rmap.c" ]; then echo "$tree"; exit 0; fi
here=$(dirname "$0")
sh "$here/deps.sh" linux-source-6.1 linux-config-6.1 || exit 1
tarball=$(ls /usr/src/linux-source-6.1.tar.* 2>/dev/null | head -n 1)
[ -n "$tarball" ] || { echo "kernel-source: no /usr/src/linux-source-6.1.tar.*" >&2; exit 1; }
mkdir -p "$cache"
tmp=$(mktemp -d "$cache/unpack.XXXXXX")
echo "kernel-source: unpacking $tarball into $tree" >&2
tar -xf "$tarball" -C "$tmp" || { rm -rf "$tmp"; exit 1; }
mv "$tmp/linux-source-6.1" "$tree" && rmdir "$tmp"
echo "$tree"
