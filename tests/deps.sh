#!/bin/sh
# Install the Debian packages named on the command line that are missing.
# Quiet and quick when everything is there (one dpkg-query).
missing=""
for p in "$@"; do
	s=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)
	case "$s" in *"ok installed"*) ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0
echo "deps: installing$missing" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || exit 1
# smem's recommends pull in a plotting stack the tests do not need.
$sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $missing >&2
