#!/bin/sh
# debian/ builds the .deb with `dpkg-buildpackage -b -uc -us` (on a copy of
# the tree: the package build cleans it), the packages install into a scratch
# root with `dpkg -x`, and ptscope --version runs from there.  The package
# build compiles without -Werror, the capture package's completion is its own
# file (no link into ptscope's package), ptscope-capture --help names itself,
# and lintian finds nothing (errors, warnings or info) in either package.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
for tool in dpkg-buildpackage dh fakeroot lintian; do
	command -v $tool > /dev/null || { echo "no $tool (make check installs dpkg-dev, debhelper, fakeroot)"; exit 77; }
done
src=$(cd "$PTSCOPE_TESTS/.." && pwd)
unset MAKEFLAGS MFLAGS MAKELEVEL SANITIZE BUILD CFLAGS LDFLAGS
version=$(sed -n 's/^#define PTSCOPE_VERSION "\(.*\)"/\1/p' "$src/version.h")
# debian/changelog names the same version as version.h
changelog=$(sed -n '1s/^ptscope (\([^)]*\)).*/\1/p' "$src/debian/changelog")
[ "$changelog" = "$version" ] || fail "debian/changelog says $changelog, version.h $version"

copy="$tmp/ptscope-$version"
mkdir -p "$copy"
if git -C "$src" rev-parse --git-dir > /dev/null 2>&1; then
	(cd "$src" && git ls-files -co --exclude-standard | tar -cf - -T -) | tar -xf - -C "$copy"
else
	(cd "$src" && tar -cf - --exclude='./build*' --exclude=./ptscope --exclude=./ptscope-capture .) | tar -xf - -C "$copy"
fi
(cd "$copy" && dpkg-buildpackage -b -uc -us) > "$tmp/build.log" 2>&1 || { tail -n 30 "$tmp/build.log"; fail "dpkg-buildpackage"; }
arch=$(dpkg --print-architecture)
for p in ptscope ptscope-capture; do
	deb="$tmp/${p}_${version}_$arch.deb"
	[ -f "$deb" ] || fail "no $deb"
	dpkg -x "$deb" "$tmp/root" || fail "dpkg -x $deb"
done
[ "$("$tmp/root/usr/bin/ptscope" --version)" = "ptscope $version" ] || fail "the packaged ptscope --version"
[ "$("$tmp/root/usr/bin/ptscope-capture" --version)" = "ptscope-capture $version" ] || fail "ptscope-capture --version"
for f in man1/ptscope.1.gz man1/ptscope-capture.1.gz man1/ptscope-report.1.gz; do
	[ -f "$tmp/root/usr/share/man/$f" ] || fail "the package has no $f"
done
[ -f "$tmp/root/usr/share/bash-completion/completions/ptscope" ] || fail "the package has no completion"
# the capture package alone: its completion a file of its own, not a link that dangles without ptscope
dpkg -x "$tmp/ptscope-capture_${version}_$arch.deb" "$tmp/capture-only" || fail "dpkg -x capture"
completion="$tmp/capture-only/usr/share/bash-completion/completions/ptscope-capture"
[ -f "$completion" ] && [ ! -L "$completion" ] || fail "ptscope-capture's completion is not a file of its package"
grep -q '^complete -F _ptscope .*ptscope-capture' "$completion" || fail "ptscope-capture's completion completes nothing"
[ "$("$tmp/capture-only/usr/bin/ptscope-capture" --help | head -n 1 | cut -d' ' -f1-2)" = "usage: ptscope-capture" ] ||
	fail "ptscope-capture --help: $("$tmp/capture-only/usr/bin/ptscope-capture" --help | head -n 1)"
# warnings are not errors in a package build (a newer compiler must not break a release)
grep -q -- ' -c -o ' "$tmp/build.log" || fail "the build log shows no compile line"
# (Debian's own hardening flag -Werror=format-security stays: it is policy)
! grep -- ' -c -o ' "$tmp/build.log" | grep -qE -- '-Werror( |$)' || fail "the package build compiles with -Werror"
maintainer=$(dpkg-deb -f "$tmp/ptscope_${version}_$arch.deb" Maintainer)
case $maintainer in *localhost*|"") fail "Maintainer: '$maintainer'";; esac
lintian --info --display-info --fail-on error,warning,info "$tmp"/ptscope_${version}_$arch.deb \
	"$tmp"/ptscope-capture_${version}_$arch.deb > "$tmp/lintian.out" 2> "$tmp/lintian.err" ||
	fail "lintian: $(cat "$tmp/lintian.out")"
[ ! -s "$tmp/lintian.out" ] || fail "lintian: $(cat "$tmp/lintian.out")"
# the capture package needs only libc and libarchive
deps=$(dpkg-deb -f "$tmp/ptscope-capture_${version}_$arch.deb" Depends | tr -d ' ' | tr ',' '\n' | sed 's/(.*//' | sort | tr '\n' ' ')
[ "$deps" = "libarchive13 libc6 " ] || fail "ptscope-capture depends on: $deps"
"$tmp/root/usr/bin/ptscope-capture" --pid $$ -o "$tmp/self.tar" > /dev/null 2>&1 || fail "packaged ptscope-capture"
[ "$("$tmp/root/usr/bin/ptscope" info "$tmp/self.tar" | sed -n 's/^processes: //p')" = 1 ] || fail "packaged info"
if command -v man > /dev/null; then
	MANPAGER=cat "$tmp/root/usr/bin/ptscope" help report > "$tmp/man.out" 2>&1
	grep -q "ptscope-report  *- " "$tmp/man.out" || fail "packaged help report: $(head -n 3 "$tmp/man.out")"
fi
exit 0
