#!/bin/sh
# smem's views: --filter (POSIX regex on the command line), --sort, --top,
# --group-by user|cgroup|command, the command line shown, the rule the
# sharable column uses; PID/cgroup written by capture and read back.  Figures
# worked by hand on the tiny snapshot and recomputed independently from
# pg32's own members with Python.
. "${PTSCOPE_TESTS:-$(dirname "$0")/..}/cli-common.sh"
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
# three processes: pids 100 (uid 1000, /tiny/slice-0), 101 (uid 1001,
# /tiny/slice-1), 102 (uid 1000, /tiny/slice-0); 12288 bytes of page tables,
# Rss 16 KiB and Pss 8 KiB each (tests/kit/tiny-snapshot.py)
python3 "$PTSCOPE_TESTS/kit/tiny-snapshot.py" "$tmp/t" --processes 3 --cgroup || fail "kit"
json() { "$PTSCOPE" report "$tmp/t" --format json "$@"; }
json --group-by cgroup > "$tmp/cg.json" || fail "group-by cgroup"
json --group-by user > "$tmp/user.json" || fail "group-by user"
json --group-by command > "$tmp/cmd.json" || fail "group-by command"
json --per-process --filter 'worker 1$' > "$tmp/filter.json" || fail "filter"
json --per-process --sort pid --top 2 > "$tmp/top.json" || fail "sort pid top 2"
python3 - "$tmp" <<'PY' || fail "tiny views"
import json, sys
t = sys.argv[1]
g = lambda name: [(x["key"], x["processes"], x["pagetable_bytes"], x["rss_bytes"], x["pss_bytes"])
                  for x in json.load(open(t + "/" + name))["groups"]]
assert g("cg.json") == [("/tiny/slice-0", 2, 24576, 32768, 16384), ("/tiny/slice-1", 1, 12288, 16384, 8192)], g("cg.json")
assert g("user.json") == [("uid 1000", 2, 24576, 32768, 16384), ("uid 1001", 1, 12288, 16384, 8192)], g("user.json")
assert g("cmd.json") == [("tiny", 3, 36864, 49152, 24576)], g("cmd.json")
f = json.load(open(t + "/filter.json"))
assert [p["pid"] for p in f["processes"]] == [101] and f["processes"][0]["cmdline"] == "tiny --worker 1", f["processes"]
assert f["view"]["processes_matching"] == 1 and f["view"]["sharable_rule"] == "shpt-2006"
assert [p["pid"] for p in json.load(open(t + "/top.json"))["processes"]] == [100, 101]
PY
"$PTSCOPE" report "$tmp/t" --group-by cgroup > "$tmp/cg.txt" || fail "text group-by"
grep -Eq '^/tiny/slice-0 +2 +24.0 KiB +24.0 KiB +32.0 KiB +16.0 KiB' "$tmp/cg.txt" || fail "text cgroup row"
grep -Eq '^ +101 +1001 .*tiny --worker 1$' "$tmp/cg.txt" || fail "text: command line not shown"
grep -q 'sharable = what shpt-2006 would save' "$tmp/cg.txt" || fail "text: sharable's rule not named"
# bad views: exit 1 with a message, nothing written
"$PTSCOPE" report "$tmp/t" --filter '(' -o "$tmp/x" 2> "$tmp/err"; [ $? -eq 1 ] || fail "bad regex: want exit 1"
grep -q "filter '('" "$tmp/err" && [ ! -e "$tmp/x" ] || fail "bad regex message: $(cat "$tmp/err")"
"$PTSCOPE" report "$tmp/t" --sort size 2>/dev/null; [ $? -eq 1 ] || fail "unknown sort field accepted"
"$PTSCOPE" report "$tmp/t" --group-by host 2>/dev/null; [ $? -eq 1 ] || fail "unknown group accepted"
"$PTSCOPE" report "$tmp/t" --top 0 2>/dev/null; [ $? -eq 1 ] || fail "--top 0 accepted"

# capture writes PID/cgroup; the reader takes the same path as the kernel shows
"$PTSCOPE" capture --pid $$ -o "$tmp/self.tar" > /dev/null 2>&1 || fail "capture"
tar -xOf "$tmp/self.tar" "$$/cgroup" | cmp -s - "/proc/$$/cgroup" || fail "PID/cgroup is not /proc/PID/cgroup"
key=$("$PTSCOPE" report "$tmp/self.tar" --group-by cgroup --format json | python3 -c 'import json, sys; print(json.load(sys.stdin)["groups"][0]["key"])')
cut -d: -f3- "/proc/$$/cgroup" | grep -qxF "$key" || fail "cgroup key '$key' is no path of /proc/$$/cgroup"

[ -f "${SHARED_SNAPSHOTS:-/nonexistent}/pg32.tar.gz" ] || { echo "skip: no reference snapshots"; exit 77; }
pg="$SHARED_SNAPSHOTS/pg32.tar.gz"
"$PTSCOPE" report "$pg" --per-process --sort pss --format json > "$tmp/pss.json" || fail "pg32 sort pss"
"$PTSCOPE" report "$pg" --group-by user --format json > "$tmp/pgu.json" || fail "pg32 group-by user"
"$PTSCOPE" report "$pg" --per-process --filter '\[local\] SELECT$' --format json > "$tmp/sel.json" || fail "pg32 filter"
python3 - "$pg" "$tmp" <<'PY' || fail "pg32 views against its own members"
import json, re, sys, tarfile
pss, uid, vmpte, cmd = {}, {}, {}, {}
with tarfile.open(sys.argv[1]) as tar:
    for m in tar.getmembers():
        parts = m.name.strip("./").split("/")
        if len(parts) != 2 or not parts[0].isdigit():
            continue
        pid, member = int(parts[0]), parts[1]
        text = tar.extractfile(m).read().decode("utf-8", "replace")
        if member == "smaps" and text:
            pss[pid] = 1024 * sum(int(l.split()[1]) for l in text.splitlines() if l.startswith("Pss:"))
        elif member == "status":
            uid[pid] = int(re.search(r"^Uid:\s+(\d+)", text, re.M).group(1))
            vmpte[pid] = 1024 * int(re.search(r"^VmPTE:\s+(\d+)", text, re.M).group(1))
        elif member == "cmdline":
            cmd[pid] = text.rstrip("\0").replace("\0", " ")
t = sys.argv[2]
got = [(p["pid"], p["pss_bytes"]) for p in json.load(open(t + "/pss.json"))["processes"]]
want = sorted(((p, v) for p, v in pss.items()), key=lambda x: (-x[1], x[0]))
assert got == want, (got[:3], want[:3])
users = {}
for p in pss:
    k = "uid %d" % uid[p]
    n, b = users.get(k, (0, 0))
    users[k] = (n + 1, b + vmpte[p])
got = {x["key"]: (x["processes"], x["pagetable_bytes"]) for x in json.load(open(t + "/pgu.json"))["groups"]}
assert got == users, (got, users)    # pg32: every process's page tables equal its VmPTE
sel = [p["pid"] for p in json.load(open(t + "/sel.json"))["processes"]]
assert sorted(sel) == sorted(p for p in pss if re.search(r"\[local\] SELECT$", cmd[p])), sel
PY
# five postgres backends are told apart by their command lines
"$PTSCOPE" report "$pg" | grep -q '  postgres: 15/m.*\[local\] SELECT$' || fail "pg32: command lines not shown"
exit 0
