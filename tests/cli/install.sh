#!/bin/sh
# `make install DESTDIR=... PREFIX=...` into a scratch root, then the README's
# worked example run from there as a fresh root user would (ptscope on PATH),
# --version, `help CMD` opening the installed page, bash completion of
# `ptscope rep<TAB>`, `make uninstall`, and `make run` using sudo only when
# not root.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
src=$(cd "$PTSCOPE_TESTS/.." && pwd)
# a make inside `make check` must not inherit its flags (SANITIZE=1, -j, ...):
# under SANITIZE=1 in a fresh clone, the plain build it installs does not exist yet
unset MAKEFLAGS MFLAGS MAKELEVEL SANITIZE BUILD CFLAGS LDFLAGS
root="$tmp/root"
make -s -C "$src" install DESTDIR="$root" PREFIX=/usr/local > "$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; fail "make install"; }
bin="$root/usr/local/bin"
for f in bin/ptscope bin/ptscope-capture share/man/man1/ptscope.1 share/man/man1/ptscope-report.1 \
	share/man/man1/ptscope-capture.1 share/man/man1/ptscope-info.1 share/man/man1/ptscope-profiles.1 \
	share/man/man1/ptscope-callgraph.1 share/man/man1/ptscope-bench.1 share/bash-completion/completions/ptscope \
	share/bash-completion/completions/ptscope-capture libexec/ptscope/ptscope-subject; do
	[ -e "$root/usr/local/$f" ] || fail "make install did not install $f"
done
PATH="$bin:$PATH"; export PATH
[ "$(command -v ptscope)" = "$bin/ptscope" ] || fail "installed ptscope is not the one on PATH"

# one version, from version.h
version=$(sed -n 's/^#define PTSCOPE_VERSION "\(.*\)"/\1/p' "$src/version.h")
[ -n "$version" ] || fail "no version in version.h"
[ "$(ptscope --version)" = "ptscope $version" ] || fail "--version says '$(ptscope --version)'"
[ "$(ptscope-capture --version)" = "ptscope-capture $version" ] || fail "ptscope-capture --version"

# the worked example, as written in the README
snap="${SHARED_SNAPSHOTS:-}/pg32.tar.gz"
if [ -f "$snap" ]; then
	ptscope report "$snap" > "$tmp/report.txt" || fail "installed ptscope report failed"
	"$PTSCOPE" report "$snap" | cmp -s - "$tmp/report.txt" || fail "installed report differs from the built one"
	ptscope report --format json "$snap" > "$tmp/report.json" || fail "report --format json"
	# pg32.expected: pte_pages 2676, sharable_pte_pages.shpt-2006 1773
	python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["totals"]; sys.exit(t["pte_pages"] != 2676)' "$tmp/report.json" \
		|| fail "pte_pages is not 2676"
	python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["totals"]; sys.exit(t["sharable_pte_pages"]["shpt-2006"] != 1773)' "$tmp/report.json" \
		|| fail "shpt-2006 is not 1773"
	ptscope report --format csv "$snap" > "$tmp/report.csv" || fail "report --format csv"
	# the README's example itself, byte for byte: `ptscope report --brief pg32.tar.gz`
	sed -n '/^\$ ptscope report --brief pg32.tar.gz$/,/^```$/p' "$src/README.md" | sed '1d;$d' > "$tmp/brief.readme"
	[ -s "$tmp/brief.readme" ] || fail "README has no \`ptscope report --brief pg32.tar.gz\` example"
	(cd "$(dirname "$snap")" && ptscope report --brief pg32.tar.gz) > "$tmp/brief.txt" || fail "report --brief"
	diff "$tmp/brief.readme" "$tmp/brief.txt" > "$tmp/brief.diff" ||
		fail "README's --brief example differs from the output: $(cat "$tmp/brief.diff")"
	[ "$(ptscope info "$snap" | sed -n 's/^processes: //p')" = 38 ] || fail "info: not 38 processes"
fi
# bench --like forks the installed ptscope-subject (PREFIX/libexec/ptscope), not ptscope
server_snapshot "$tmp/server" x86_64 0x400000
ptscope bench fork --like "$tmp/server:7" --runs 2 --format json > "$tmp/like.json" || fail "installed bench --like"
python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["like"]["subject"] != sys.argv[2])' "$tmp/like.json" \
	"$bin/../libexec/ptscope/ptscope-subject" || fail "installed bench --like: subject $(cat "$tmp/like.json")"
ptscope-capture --pid $$ -o "$tmp/self.tar" > /dev/null 2>&1 || fail "installed ptscope-capture"
[ "$(ptscope info "$tmp/self.tar" | sed -n 's/^processes: //p')" = 1 ] || fail "capture of one pid"

# help CMD opens the installed manual page (man -l on the file beside the binary)
if command -v man > /dev/null; then
	for c in capture info report profiles callgraph bench; do
		MANPAGER=cat PAGER=cat MANWIDTH=100 ptscope help $c > "$tmp/man.$c" 2>&1 ||
			fail "help $c: $(head -n 3 "$tmp/man.$c")"
		grep -q "ptscope-$c  *- " "$tmp/man.$c" || fail "help $c did not show ptscope-$c(1): $(head -n 3 "$tmp/man.$c")"
		grep -q 'EXIT STATUS' "$tmp/man.$c" || fail "ptscope-$c(1) has no EXIT STATUS"
		grep -q 'EXAMPLES' "$tmp/man.$c" || fail "ptscope-$c(1) has no EXAMPLES"
	done
	MANPAGER=cat ptscope help ptscope | grep -q "ptscope  *-  *what" || fail "help ptscope"
	MANPAGER=cat ptscope help help | grep -q "ptscope  *-  *what" || fail "help help does not open ptscope(1)"
fi
out=$(ptscope help repot 2>&1); [ $? -eq 1 ] || fail "help of an unknown command should exit 1"
echo "$out" | grep -q "did you mean 'report'" || fail "help repot: $out"

# bash completion, as bash-completion loads it
if [ -f /usr/share/bash-completion/bash_completion ] && command -v bash > /dev/null; then
	cat > "$tmp/complete.bash" <<'EOS'
. /usr/share/bash-completion/bash_completion
. "$1/ptscope"
complete -p ptscope
complete -p ptscope-capture
t() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
      COMPREPLY=(); _ptscope "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
      echo "$*|$(compgen -W "${COMPREPLY[*]}" | sort | tr '\n' ' ')"; }
t ptscope rep
t ptscope ''
t ptscope report --form
t ptscope report --format ''
t ptscope report --profile 6.1-x86
t ptscope callgraph --format t
t ptscope help pro
t ptscope-capture --tr
t ptscope capture --compress ''
t ptscope callgraph --path ''
t ptscope report --path ''
t ptscope report --sort p
t ptscope report --group-by ''
t ptscope bench f
t ptscope bench --format ''
EOS
	bash "$tmp/complete.bash" "$root/usr/local/share/bash-completion/completions" > "$tmp/complete.out" 2>&1
	expect() { grep -qxF -- "$1" "$tmp/complete.out" || fail "completion: expected '$1', got: $(cat "$tmp/complete.out")"; }
	expect 'complete -F _ptscope ptscope'
	expect 'complete -F _ptscope ptscope-capture'
	expect 'ptscope rep|report '
	expect 'ptscope |--help --version bench callgraph capture help info profiles report '
	expect 'ptscope report --form|--format '
	expect 'ptscope report --format |csv html json openmetrics text xml '
	expect 'ptscope report --profile 6.1-x86|6.1-x86_64 6.1-x86_64-la57 '
	expect 'ptscope callgraph --format t|tree '
	expect 'ptscope help pro|profiles '
	expect 'ptscope-capture --tr|--tree '
	expect 'ptscope capture --compress |gz none xz zst '
	expect 'ptscope callgraph --path |exit fault fork munmap reclaim '
	expect 'ptscope report --path |exit fault fork munmap reclaim '
	expect 'ptscope report --sort p|pagetables pid pss pte_chain '
	expect 'ptscope report --group-by |cgroup command user '
	expect 'ptscope bench f|fault fork '
	expect 'ptscope bench --format |json text '
	# every format completion offers, report accepts
	for f in csv html json openmetrics text xml; do
		ptscope report --format $f "$tmp/self.tar" > /dev/null 2>&1 || fail "report --format $f (offered by completion)"
	done
fi

# make uninstall removes exactly what make install put there
make -s -C "$src" uninstall DESTDIR="$root" PREFIX=/usr/local || fail "make uninstall"
left=$(find "$root" ! -type d)
[ -z "$left" ] || fail "make uninstall left: $left"

# make run: sudo only when not root, so `make run` works for both
make -s -C "$src" -n run 2>/dev/null | grep -q '^\(sudo \)*\./ptscope report$' || fail "make -n run: no report line"
if [ "$(id -u)" -eq 0 ]; then
	make -s -C "$src" -n run | grep -q '^sudo ' && fail "make run uses sudo as root (a root install has no sudo)"
	# the same Makefile read by a user: SUDO is sudo
	if command -v setpriv > /dev/null; then
		said=$(cd "$src" && echo 'print-sudo: ; @echo "[$(SUDO)]"' |
			setpriv --reuid=65534 --regid=65534 --clear-groups make -s -f Makefile -f - print-sudo 2>/dev/null)
		[ "$said" = "[sudo]" ] || fail "make run as a user would not use sudo: SUDO='$said'"
	fi
fi
exit 0
