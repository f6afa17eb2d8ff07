#!/bin/sh
# Unpack SHARED/NAME.tar.xz (../shared/kernels: real trees of 2.4, 2.5 and
# 2.6, see its README) once into CACHE/shared-kernels/NAME and print that
# path; exit 77 when the tarball is not there.  Concurrent callers wait for
# one another (flock), so two tests never unpack the same tree twice.
cache=${1:?usage: shared-kernel.sh CACHE SHARED NAME}
shared=${2:?usage: shared-kernel.sh CACHE SHARED NAME}
name=${3:?usage: shared-kernel.sh CACHE SHARED NAME}
tarball="$shared/$name.tar.xz"
tree="$cache/shared-kernels/$name"
[ -f "$tarball" ] || { echo "shared-kernel: no $tarball" >&2; exit 77; }
# the tarball's mtime is kept beside the tree: a newer tarball is unpacked again
stamp=$(stat -c %Y "$tarball")
if [ -d "$tree/mm" ] && [ "$(cat "$tree.stamp" 2>/dev/null)" = "$stamp" ]; then echo "$tree"; exit 0; fi
mkdir -p "$cache/shared-kernels" || exit 1
exec 9> "$cache/shared-kernels/.unpack-$name.lock"
flock 9
if [ -d "$tree/mm" ] && [ "$(cat "$tree.stamp" 2>/dev/null)" = "$stamp" ]; then echo "$tree"; exit 0; fi
tmp=$(mktemp -d "$cache/shared-kernels/unpack.XXXXXX")
echo "shared-kernel: unpacking $tarball into $tree" >&2
tar -xJf "$tarball" -C "$tmp" || { rm -rf "$tmp"; exit 1; }
[ -d "$tmp/$name/mm" ] || { echo "shared-kernel: $tarball has no $name/mm" >&2; rm -rf "$tmp"; exit 1; }
rm -rf "$tree" && mv "$tmp/$name" "$tree" && rmdir "$tmp" && echo "$stamp" > "$tree.stamp" || exit 1
echo "$tree"
