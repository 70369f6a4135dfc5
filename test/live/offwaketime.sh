#!/bin/sh
# offwaketime on this kernel (sched_switch and sched_waking through tp_btf): two processes
# handing a byte back and forth over pipes; the reader's pipe_read stack is joined to the
# writer's pipe_write waker stack, in the folded, multi-line and JSON forms; -p keeps the
# other process out; bad input.
. "$(dirname "$0")/lib.sh"
require root btf
need python3

PP=$BT_WORKLOADS/pingpong
[ -x "$PP" ] || fail "workloads not built"

# pingpong_trace ARGS...: bt_ping (the parent) and bt_pong trade 500 bytes while
# `offwaketime ARGS` runs; "@PONG" in ARGS becomes bt_pong's pid. Output in $OUT.
pingpong_trace() {
	rm -f "$T/pong" # the last run's pid must not be read while this one starts
	"$PP" 500 >"$T/pong" &
	ping=$!
	i=0
	until [ -s "$T/pong" ] || [ $i -gt 100 ]; do
		i=$((i + 1))
		sleep 0.05
	done
	pong=$(cat "$T/pong")
	args="" where=out
	for a in "$@"; do
		[ "$a" = "@PONG" ] && a=$pong
		# folded and JSON output is data only: the banner goes to stderr
		[ "$a" = -f ] || [ "$a" = --json ] && where=err
		args="$args $a"
	done
	# shellcheck disable=SC2086
	BANNER_IN=$where start_tool offwaketime $args
	kill -USR1 $ping
	wait $ping || fail "pingpong exited $?"
	finish_tool INT
	expect_rc 0 "offwaketime $*"
}

# target;user;kernel;--;waker kernel (innermost first);waker user;waker N
pingpong_trace -f -p @PONG
expect_line '^bt_pong;.*;main;.*pipe_read;.*schedule;__schedule;--;try_to_wake_up;.*pipe_write;.*vfs_write;.*;main;.*bt_ping [0-9]+$'
grep -q '^bt_ping;' "$OUT" && fail "-p $pong: bt_ping reported as a sleeper"
total=$(awk '/^bt_pong;.*pipe_read.*;--;.*pipe_write.*;bt_ping [0-9]+$/ { t += $NF } END { print t + 0 }' "$OUT")
[ "$total" -gt 0 ] || fail "no blocked time under the pipe_read/pipe_write pair"
ok "folded: bt_pong's pipe_read joined to bt_ping's pipe_write waker stack, -p keeps bt_ping out"

# -d: '-' between user and kernel halves on both sides
pingpong_trace -f -d -p @PONG
expect_line '^bt_pong;.*;main;[^ ]*;-;.*pipe_read;.*;--;try_to_wake_up;.*pipe_write;.*;-;.*main;.*bt_ping [0-9]+$'
ok "-d"

# -d prints '-' only between two stacks, as BCC and offcputime do: -k makes every target a kernel
# thread (no user stack), so no target side may have one; a waker without one neither.
run offwaketime -f -d -k 2
expect_rc 0 "offwaketime -f -d -k 2"
[ -s "$OUT" ] || fail "offwaketime -f -d -k 2: no kernel thread blocked in 2 s"
grep -E '^[^;]*;-;|;-;--;|;--;-;|;-;[^;]* [0-9]+$' "$OUT" >"$T/lonely" &&
	fail "-d: a '-' beside a missing stack: $(head -1 "$T/lonely" | cut -c1-200)"
run offwaketime -d -k 2
expect_rc 0 "offwaketime -d -k 2"
awk '/^    -$/ { if (prev ~ /^    (waker:|--  )/) bad = 1; dash = 1; prev = $0; next }
     dash && /^    (target:|--  )/ { bad = 1 }
     { dash = 0; prev = $0 }
     END { exit bad }' "$OUT" || fail "-d: a '    -' line beside a missing stack in the blocks"
ok "-d: '-' only between two stacks (kernel-thread targets have none)"

# multi-line: waker line, waker stacks outermost first, '--  --', target stacks, target line
pingpong_trace -p @PONG
expect_line "^    waker:           bt_ping $ping\$"
expect_line "^    target:          bt_pong $pong\$"
expect_line '^    --               --$'
awk '/^    waker:  *bt_ping/ { w = 1; next }
     w && /^    --  *--$/ { d = 1; next }
     w && !d && /pipe_write/ { pw = 1 }
     d && /pipe_read/ { pr = 1 }
     /^    target:  *bt_pong/ { if (pw && pr) found = 1; w = d = pw = pr = 0 }
     END { exit !found }' "$OUT" || fail "no block with pipe_write above '--' and pipe_read below"
ok "multi-line blocks, waker and target with their own pids"

# --json: target and waker objects with frames
pingpong_trace --json -p @PONG
python3 - "$OUT" <<'EOF' || fail "--json: not the expected objects"
import json, sys
objs = []
text = open(sys.argv[1]).read()
dec, pos = json.JSONDecoder(), 0
while pos < len(text):
    while pos < len(text) and text[pos].isspace():
        pos += 1
    if pos == len(text):
        break
    o, pos = dec.raw_decode(text, pos)
    objs.append(o)
pairs = [o for o in objs if o["target"]["comm"] == "bt_pong" and o["waker"]["comm"] == "bt_ping"]
assert pairs, objs[:3]
o = max(pairs, key=lambda o: o["blocked_us"])
names = lambda frames: [f["name"] for f in frames or []]
assert any("pipe_read" in (n or "") for n in names(o["target"]["kernel_stack"])), o
assert any("pipe_write" in (n or "") for n in names(o["waker"]["kernel_stack"])), o
EOF
ok "--json"

# Bad input: one line naming it, exit 2.
for bad in "--stack-storage-size 0" "-u -k" "-m 10 -M 5" "-p 1,x" "--state 70000" "-K -U" \
	"-f --json" "0" "junk"; do
	# shellcheck disable=SC2086
	run offwaketime $bad
	[ "$RC" = 2 ] || fail "offwaketime $bad: exit $RC, expected 2"
	# (with --json the message is a JSON line naming the tool: docs/json.md)
	head -1 "$ERR" | grep -q '^offwaketime: \|^{"level": "error", "command": "offwaketime"' ||
		fail "offwaketime $bad: message does not name the tool"
done
ok "bad input"
