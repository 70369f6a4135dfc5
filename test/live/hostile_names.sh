#!/bin/sh
# Names a traced process chooses cannot forge output. A workload names itself
# "\033[2J\033]0;PWN\a\nX;" (clear the screen, retitle the terminal, a newline, a ';') and
# opens a file whose name holds a newline and an escape, on and off the CPU. opensnoop (text,
# JSON), stackcount -P -f, offcputime -f, profile --json and profile -f --flamegraph/--pprof
# trace it: no output holds a raw control byte, every folded line is one stack ("... COUNT"),
# and the name is there, escaped as \xNN (a folded frame's ';' too).
. "$(dirname "$0")/lib.sh"
require root btf tracepoints syscalls
command -v python3 >/dev/null || skip "no python3 for the workload"

COMM_RAW=$(printf '\033[2J\033]0;PWN\a\nX;') # 15 bytes: the whole comm
ESC='\x1b[2J\x1b]0;PWN\x07\x0aX;'
ESC_FOLDED='\x1b[2J\x1b]0\x3bPWN\x07\x0aX\x3b'
F="$T/a
b$(printf '\033')c"
: >"$F"

# the workload: its comm set by itself, then opens, spins and sleeps until killed
python3 -c '
import os, sys, time
with open("/proc/self/comm", "wb") as c:
	c.write(b"\x1b[2J\x1b]0;PWN\x07\nX;")
end = time.time() + 120
while time.time() < end:
	with open(sys.argv[1]) as f:
		pass
	t = time.time() + 0.004
	while time.time() < t:
		pass
	time.sleep(0.004)
' "$F" &
WPID=$!
trap 'kill $WPID 2>/dev/null; rm -rf "$T"' EXIT
i=0
until [ "$(cat /proc/$WPID/comm 2>/dev/null)" = "$COMM_RAW" ]; do
	i=$((i + 1))
	[ $i -le 100 ] || fail "the workload did not rename itself"
	sleep 0.05
done

# clean WHAT: no raw control byte in the output but the line ends
clean() {
	if LC_ALL=C tr -d '\n' <"$OUT" | LC_ALL=C grep -q "$(printf '[\001-\037\177]')"; then
		fail "$1: a raw control byte in the output"
	fi
}

# folded_ok WHAT: every line is "frames COUNT", the workload's lines open with its escaped name
folded_ok() {
	[ -s "$OUT" ] || fail "$1: no output"
	if LC_ALL=C grep -qv ' [0-9][0-9]*$' "$OUT"; then
		fail "$1: a line that is not 'frames COUNT' (a forged line)"
	fi
	LC_ALL=C grep -qF "$ESC_FOLDED;" "$OUT" || fail "$1: no line opens with the escaped name"
	if LC_ALL=C grep -F "$ESC_FOLDED" "$OUT" | LC_ALL=C grep -qvF "$ESC_FOLDED;"; then
		fail "$1: the name is not one frame"
	fi
}

BT_TIMEOUT=3 run opensnoop -p $WPID
[ "$RC" = 0 ] || [ "$RC" = 124 ] || fail "opensnoop: exit $RC"
clean opensnoop
LC_ALL=C grep -qF "$ESC" "$OUT" || fail "opensnoop: the escaped comm is not there"
LC_ALL=C grep -qF "/a\\x0ab\\x1bc" "$OUT" || fail "opensnoop: the escaped path is not there"
ok "opensnoop: comm and path escaped, one line each"

BT_TIMEOUT=3 run opensnoop --json -p $WPID
clean "opensnoop --json"
python3 -c '
import json, sys
names = set()
for line in open(sys.argv[1]):
	e = json.loads(line)
	names.add(e["comm"])
	assert e["path"].endswith("/a\nb\x1bc"), e["path"]
assert "\x1b[2J\x1b]0;PWN\x07\nX;" in names, names
' "$OUT" || fail "opensnoop --json: comm or path not as the process named them"
ok "opensnoop --json: JSON-escaped, decodes to the raw names"

run stackcount -P -f -D 2 -p $WPID t:syscalls:sys_enter_openat
expect_rc 0 "stackcount -P -f"
clean "stackcount -P -f"
folded_ok "stackcount -P -f"
ok "stackcount -P -f: one line per stack, the name one escaped frame"

run offcputime -f -p $WPID --flamegraph "$T/off.svg" 2
expect_rc 0 "offcputime -f"
clean "offcputime -f"
folded_ok "offcputime -f"
OUT=$T/off.svg clean "offcputime --flamegraph"
ok "offcputime -f: one line per stack; the SVG has no raw control byte"

run profile -F 199 --json -p $WPID 2
expect_rc 0 "profile --json"
clean "profile --json"
python3 -c '
import json, sys
names = {json.loads(l).get("comm") for l in open(sys.argv[1])}
assert "\x1b[2J\x1b]0;PWN\x07\nX;" in names, names
' "$OUT" || fail "profile --json: the comm does not decode to the raw name"
ok "profile --json: JSON-escaped"

run profile -F 199 -f -p $WPID --flamegraph "$T/p.svg" --pprof "$T/p.pb.gz" 2
expect_rc 0 "profile -f"
clean "profile -f"
folded_ok "profile -f"
OUT=$T/p.svg clean "profile --flamegraph"
gzip -dc "$T/p.pb.gz" >"$T/p.pb" || fail "profile --pprof: not gzip"
LC_ALL=C grep -qF "$ESC_FOLDED" "$T/p.pb" || fail "profile --pprof: no escaped name"
if LC_ALL=C grep -qF "$(printf '\033[2J')" "$T/p.pb"; then
	fail "profile --pprof: the raw name is in the profile"
fi
ok "profile -f, --flamegraph, --pprof: the name escaped in each"
