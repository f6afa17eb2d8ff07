#!/bin/sh
# Unpack Debian's linux-source-VERSION (default 6.1) once into
# CACHE/linux-source-VERSION and print that path.  Installs the package
# (and, for 6.1, linux-config-6.1) when it is missing.  Concurrent callers
# wait for one another (flock), so two tests never unpack the same tree twice.
cache=${1:?usage: kernel-source.sh CACHE [VERSION]}
version=${2:-6.1}
tree="$cache/linux-source-$version"
if [ -f "$tree/mm/rmap.c" ]; then echo "$tree"; exit 0; fi
here=$(dirname "$0")
packages="linux-source-$version"
[ "$version" = 6.1 ] && packages="$packages linux-config-6.1"
sh "$here/deps.sh" $packages || exit 1
mkdir -p "$cache"
exec 9> "$cache/.unpack-$version.lock"
flock 9
if [ -f "$tree/mm/rmap.c" ]; then echo "$tree"; exit 0; fi
tarball=$(ls /usr/src/linux-source-$version.tar.* 2>/dev/null | head -n 1)
[ -n "$tarball" ] || { echo "kernel-source: no /usr/src/linux-source-$version.tar.*" >&2; exit 1; }
tmp=$(mktemp -d "$cache/unpack.XXXXXX")
echo "kernel-source: unpacking $tarball into $tree" >&2
tar -xf "$tarball" -C "$tmp" || { rm -rf "$tmp"; exit 1; }
mv "$tmp/linux-source-$version" "$tree" && rmdir "$tmp"
echo "$tree"
