#!/bin/sh
# funclatency on this kernel: user functions with known latencies (sleeps of 5 ms and 1.5 ms,
# a 4-level recursion) timed through uprobes: exact call counts, the histogram mass in the
# row of the known latency, -u/-m/-F/-l/-p/-i/-d/-T/-v, per-process sections without -p,
# Ctrl-C, kernel functions refused with the reason, and bad input.
. "$(dirname "$0")/lib.sh"
require root btf
need python3

WORK=$BT_WORKLOADS/funclatency_work
[ -x "$WORK" ] || fail "workload $WORK not built"

# traced ARGS...: start funclatency_work $L $S $R 0 (paused), run funclatency ARGS against it
# ("@PID" in ARGS becomes the workload's pid), release the workload once funclatency says
# "Tracing", wait for it, then Ctrl-C funclatency. Output in $OUT, stderr in $ERR, status $RC.
traced() {
	traced_workload "$WORK" "$L" "$S" "$R" 0 -- funclatency "$@"
}

# section NAME: the lines of the histogram after "Function = NAME" (all lines when NAME is
# empty), up to the next section or the avg line.
section() {
	awk -v s="$1" '
		/^Function = / { on = (s != "" && $0 == "Function = " s); next }
		/^avg = / { on = 0 }
		s == "" || on' "$OUT"
}
# total [SECTION]: the sum of the rows.
total() { section "${1:-}" | awk '$2 == "->" { s += $5 } END { print s + 0 }'; }
# below LOW [SECTION]: the sum of the rows under LOW (latencies shorter than LOW).
below() { section "${2:-}" | awk -v l="$1" '$2 == "->" && $1 < l { s += $5 } END { print s + 0 }'; }
# mode [SECTION]: the low bound of the row with the most counts.
mode() { section "${1:-}" | awk '$2 == "->" && $5 > m { m = $5; v = $1 } END { print v }'; }
# avg_field N: field N of the avg line ("avg = A U, total: T U, count: C").
avg_field() { awk -v n="$1" '/^avg = / { v = $n } END { print v }' "$OUT" | tr -d ,; }

require uprobes
L=30 S=40 R=10

# One function, usecs, -p: exact count, every latency at least 5 ms, most in 4096 -> 8191.
traced -u -p @PID "$WORK:fl_sleep_long"
expect_rc 0 "funclatency -u -p PID fl_sleep_long"
grep -Eq "^Tracing 1 functions for \"$WORK:fl_sleep_long\"\\.\\.\\. Hit Ctrl-C to end\\.\$" "$OUT" ||
	fail "banner"
expect_line '^     usecs               : count     distribution$'
expect_line '^      4096 -> 8191       : [0-9]+ +\|\*+ *\|$'
grep -q '^Function = ' "$OUT" && fail "-p without -F: expected one histogram, got sections"
[ "$(total)" = $L ] || fail "expected $L calls in the histogram, got $(total)"
[ "$(below 4096)" = 0 ] || fail "latencies under 4096 us for a 5 ms sleep"
[ "$(mode)" = 4096 ] || fail "most latencies not in 4096 -> 8191 us"
[ "$(avg_field 9)" = $L ] || fail "avg line: count is not $L"
[ "$(avg_field 4)" = usecs ] && [ "$(avg_field 3)" -ge 5000 ] || fail "avg below 5000 usecs"
grep -Eq '^avg = [0-9]+ usecs, total: [0-9]+ usecs, count: [0-9]+$' "$OUT" || fail "avg line format"
awk '/^avg = / { exit !(prev == "") } { prev = $0 }' "$OUT" || fail "no blank line before avg"
[ "$(tail -1 "$OUT")" = "Detaching..." ] || fail "no final 'Detaching...'"
[ "$(tail -2 "$OUT" | head -1)" = "" ] || fail "no blank line after avg"
ok "usecs: $L calls of 5 ms, mode 4096 -> 8191, avg $(avg_field 3) us"

# -F -m over a wildcard: one section per function, "NAME [PID]" for user functions.
traced -m -F -p @PID "$WORK:fl_sleep_*"
expect_rc 0 "funclatency -m -F fl_sleep_*"
expect_line '^Tracing 2 functions for '
expect_line '^     msecs               : count     distribution$'
[ "$(total "fl_sleep_long [$wpid]")" = $L ] || fail "-F: fl_sleep_long [$wpid]: expected $L"
[ "$(total "fl_sleep_short [$wpid]")" = $S ] || fail "-F: fl_sleep_short [$wpid]: expected $S"
[ "$(below 4 "fl_sleep_long [$wpid]")" = 0 ] || fail "-F: fl_sleep_long under 4 ms"
[ "$(mode "fl_sleep_long [$wpid]")" = 4 ] || fail "-F: fl_sleep_long not mostly in 4 -> 7 ms"
[ "$(mode "fl_sleep_short [$wpid]")" = 0 ] || fail "-F: fl_sleep_short not mostly in 0 -> 1 ms"
[ "$(grep -c '^Function = ' "$OUT")" = 2 ] || fail "-F: expected 2 sections"
awk '/^Function = / { exit !(prev == "") } { prev = $0 }' "$OUT" || fail "-F: no blank line before a section"
[ "$(avg_field 9)" = $((L + S)) ] || fail "-F: avg count is not $((L + S))"
ok "-F -m: fl_sleep_long $L in 4 -> 7 ms, fl_sleep_short $S in 0 -> 1 ms"

# The same as JSON (docs/funclatency.md): one line, one entry per function with its pid, the
# buckets holding the calls where the text has them, count = calls, total in the unit.
BANNER_IN=err traced --json -m -F -p @PID "$WORK:fl_sleep_*"
expect_rc 0 "funclatency --json -m -F fl_sleep_*"
python3 - "$OUT" "$wpid" $L $S <<'EOF' || fail "--json -m -F: not the expected object"
import json, sys
pid, l, s = (int(x) for x in sys.argv[2:])
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
o = json.loads(lines[0])
assert o["val_type"] == "msecs" and o["count"] == l + s, o
f = {r["function"]: r for r in o["functions"]}
assert set(f) == {"fl_sleep_long", "fl_sleep_short"} and all(r["pid"] == pid for r in f.values()), f
def bucket(r, low):
    return sum(b["count"] for b in r["hist"] if b["low"] == low)
assert sum(b["count"] for b in f["fl_sleep_long"]["hist"]) == l and bucket(f["fl_sleep_long"], 4) >= l // 2, f
assert sum(b["count"] for b in f["fl_sleep_short"]["hist"]) == s and bucket(f["fl_sleep_short"], 0) >= s // 2, f
assert o["total"] >= 5 * l + s, o
EOF
grep -q '^{"level": "info", "command": "funclatency", "message": "Tracing 2 functions' "$ERR" ||
	fail "--json: the banner is not a JSON info line on stderr"
ok "--json -m -F: the same buckets and counts"

# Nested and recursive calls: fl_nest(3) is 4 levels taking 1.5, 3, 4.5 and 6 ms.
traced -u -p @PID "$WORK:fl_nest"
expect_rc 0 "funclatency fl_nest"
[ "$(total)" = $R ] || fail "no -l: expected the $R innermost calls, got $(total)"
[ "$(below 1024)" = 0 ] && [ "$(mode)" = 1024 ] || fail "no -l: innermost calls are 1.5 ms"
ok "recursion without -l: the $R innermost calls, 1.5 ms"

traced -u -l 2 -p @PID "$WORK:fl_nest"
expect_rc 0 "funclatency -l 2 fl_nest"
[ "$(total)" = $((2 * R)) ] || fail "-l 2: expected $((2 * R)), got $(total)"
[ "$(below 4096)" = 0 ] || fail "-l 2: the outermost two levels take 4.5 and 6 ms"
ok "-l 2: the $((2 * R)) outermost calls, 4.5 and 6 ms"

traced -u -l 32 -F -p @PID "$WORK:fl_nest"
expect_rc 0 "funclatency -l 32 fl_nest"
[ "$(total "fl_nest [$wpid]")" = $((4 * R)) ] || fail "-l 32: expected all $((4 * R)) calls"
[ "$(below 1024 "fl_nest [$wpid]")" = 0 ] || fail "-l 32: a level under 1 ms"
[ "$(mode "fl_nest [$wpid]")" = 4096 ] || fail "-l 32: half the levels are 4.5 and 6 ms"
ok "-l 32: all $((4 * R)) calls"

# Without -p, user functions print per process; -p leaves other processes out.
OUT=$T/two ERR=$T/twoerr
: >"$OUT"
"$WORK" 0 7 0 0 &
w1=$!
"$WORK" 0 11 0 0 &
w2=$!
"$BPFTOOLS" funclatency "$WORK:fl_sleep_short" >"$OUT" 2>"$ERR" &
fpid=$!
i=0
until grep -q '^Tracing' "$OUT" 2>/dev/null || [ $i -gt 100 ]; do i=$((i + 1)); sleep 0.1; done
kill -USR1 $w1 $w2
wait $w1 $w2
kill -INT $fpid
wait $fpid || fail "two processes: exit $?"
[ "$(total "fl_sleep_short [$w1]")" = 7 ] || fail "no -p: fl_sleep_short [$w1] expected 7"
[ "$(total "fl_sleep_short [$w2]")" = 11 ] || fail "no -p: fl_sleep_short [$w2] expected 11"
ok "no -p: one section per process (7 and 11)"

# The excluded process is released with the traced one and runs while tracing (49 without -p).
"$WORK" 0 9 0 0 &
ALSO=$! traced -u -p @PID "$WORK:fl_sleep_short"
expect_rc 0 "funclatency -u -p PID fl_sleep_short, another funclatency_work running"
[ "$(total)" = 40 ] || fail "-p: expected 40, another process leaked in ($(total))"
ok "-p filters other processes"

# syscall:NAME, the entry and return tracepoints paired as a function's probes (lib/attach/bt_calls.h).
# funclatency_work's sleeps are one clock_nanosleep each: 30 of 5 ms, then 40 + 4 * 10 of
# 1.5 ms, 110 in all; another funclatency_work sleeping 9 times meanwhile is left out by -p.
OPEN=$BT_WORKLOADS/open_work
if [ -d /sys/kernel/tracing/events/syscalls ] || [ -d /sys/kernel/debug/tracing/events/syscalls ]; then
	"$WORK" 0 9 0 0 &
	ALSO=$! traced -u -v -p @PID syscall:clock_nanosleep
	expect_rc 0 "funclatency -u -p PID syscall:clock_nanosleep"
	expect_line '^Tracing 1 functions for "syscall:clock_nanosleep"\.\.\. Hit Ctrl-C to end\.$'
	[ "$(total)" = 110 ] || fail "syscall: expected 110 clock_nanosleep calls, got $(total)"
	[ "$(avg_field 9)" = 110 ] || fail "syscall: avg line: count is not 110"
	[ "$(below 1024)" = 0 ] || fail "syscall: latencies under 1024 us for sleeps of 1.5 and 5 ms"
	[ $(($(total) - $(below 4096))) -ge 30 ] || fail "syscall: fewer than 30 latencies of 4096 us or more"
	[ "$(mode)" = 1024 ] || fail "syscall: most latencies not in 1024 -> 2047 us"
	grep -q "^funclatency: 'clock_nanosleep' (syscalls:sys_enter_clock_nanosleep + sys_exit_clock_nanosleep): entry tracepoint, return tracepoint\$" "$ERR" ||
		fail "syscall: -v does not name both tracepoints"
	ok "syscall:clock_nanosleep -p: 110 calls, 30 of 5 ms and 80 of 1.5 ms, the other process left out"

	# openat: 25 opens of one file, exactly (the workload waits for the signal after its own
	# start-up opens).
	[ -x "$OPEN" ] || fail "workload $OPEN not built"
	traced_workload "$OPEN" -w 25 /etc/hostname -- funclatency -p @PID syscall:openat
	expect_rc 0 "funclatency -p PID syscall:openat"
	expect_line '^     nsecs               : count     distribution$'
	[ "$(total)" = 25 ] || fail "syscall:openat: expected 25 calls, got $(total)"
	ok "syscall:openat -p: 25 calls"

	# Many syscalls share one link per direction (the raw sys_enter/sys_exit programs): of
	# every syscall the workload makes, its 50 getppid calls in their own section.
	traced_workload "$WORK" 0 0 0 50 -- funclatency -v -F -p @PID 'syscall:*'
	expect_rc 0 "funclatency -F -p PID syscall:*"
	[ "$(total getppid)" = 50 ] || fail "syscall:*: expected 50 getppid calls, got $(total getppid)"
	grep -q "^funclatency: 'getppid' (.*): entry raw syscall tracepoint, return raw syscall tracepoint\$" "$ERR" ||
		fail "syscall:*: not through the raw syscall tracepoints"
	ok "syscall:* -F: 50 getppid calls through the raw syscall tracepoints"
else
	echo "no syscall tracepoints: syscall:NAME not tested"
fi

# A full table of calls in flight: 10,400 threads of one process blocked in open() on a FIFO
# hold its 10,240 entries; the calls after them are not timed, and said so at the end: every
# call is in the histogram or counted.
flood_opens "calls not timed" funclatency -p @PID c:open
[ $(($(total) + LOST)) = $((FLOOD + 1)) ] ||
	fail "$FLOOD calls in flight: $(total) timed and $LOST not timed, not $((FLOOD + 1)) in all"
ok "a full table of calls in flight: $(total) calls timed, $LOST said not timed"

# Default unit nsecs, and -v says how each function is attached.
traced -v -p @PID "$WORK:fl_sleep_short"
expect_rc 0 "funclatency -v"
expect_line '^     nsecs               : count     distribution$'
[ "$(below 1048576)" = 0 ] && [ "$(mode)" = 1048576 ] || fail "nsecs: 1.5 ms is 1048576 -> 2097151"
grep -Eq "^funclatency: 'fl_sleep_short' \\(.*funclatency_work\\+0x[0-9a-f]+\\): entry uprobe, return uretprobe\$" "$ERR" ||
	fail "-v: no 'entry uprobe, return uretprobe' line"
ok "nsecs, -v"

# -i 1 -d 3 -T: three outputs with a time line each; histograms restart every interval.
OUT=$T/iv ERR=$T/iverr
: >"$OUT"
"$WORK" 0 50 0 0 &
wpid=$!
start=$(date +%s)
"$BPFTOOLS" funclatency -T -i 1 -d 3 -p $wpid "$WORK:fl_sleep_short" >"$OUT" 2>"$ERR" &
fpid=$!
i=0
until grep -q '^Tracing' "$OUT" 2>/dev/null || [ $i -gt 100 ]; do i=$((i + 1)); sleep 0.1; done
kill -USR1 $wpid
wait $wpid
wait $fpid || fail "-i 1 -d 3: exit $?"
end=$(date +%s)
[ $((end - start)) -le 5 ] || fail "-d 3 took $((end - start))s"
[ "$(grep -Ec '^[0-9]{2}:[0-9]{2}:[0-9]{2}$' "$OUT")" = 3 ] || fail "-T: expected 3 time lines"
awk '/^[0-9][0-9]:/ { if (prev != "") exit 1 } { prev = $0 }' "$OUT" || fail "no blank line before the time"
[ "$(grep -c '^avg = ' "$OUT")" = 1 ] || fail "histogram not restarted between intervals"
[ "$(total)" = 50 ] || fail "-i: expected 50 in all"
[ "$(tail -1 "$OUT")" = "Detaching..." ] || fail "-d: no Detaching..."
ok "-i/-d/-T"

# Ctrl-C with nothing recorded: no histogram, no avg line, Detaching..., exit 0.
run funclatency -d 1 "$WORK:fl_sleep_short"
expect_rc 0 "funclatency -d 1, idle"
[ "$(cat "$OUT")" = "$(printf 'Tracing 1 functions for "%s"... Hit Ctrl-C to end.\n\nDetaching...' "$WORK:fl_sleep_short")" ] ||
	fail "idle: expected the banner, a blank line and Detaching..."
ok "idle run"

# `| head -1`: the reader leaves after the banner; funclatency must notice and exit.
start=$(date +%s)
timeout -s KILL 20 "$BPFTOOLS" funclatency "$WORK:fl_sleep_short" | head -1 >/dev/null
[ $(($(date +%s) - start)) -lt 10 ] || fail "| head -1: funclatency did not stop with its reader"
ok "stops when the pipe reader goes away"

# Kernel functions: refused with the reason when the kernel has neither kprobes nor fentry.
if ! [ -e /sys/bus/event_source/devices/kprobe/type ]; then
	run funclatency -u do_nanosleep
	expect_rc 1 "funclatency do_nanosleep"
	[ -s "$OUT" ] && fail "funclatency do_nanosleep printed to stdout"
	[ "$(wc -l <"$ERR")" = 1 ] || fail "funclatency do_nanosleep: expected one line of error"
	grep -q "^funclatency: cannot trace 'do_nanosleep'.*kprobes" "$ERR" ||
		fail "funclatency do_nanosleep: the reason does not mention kprobes"
	ok "kernel functions refused: $(cat "$ERR")"
fi

# Bad input: one line on stderr naming the tool, nothing on stdout, exit 2 (usage) or 1.
check_bad() {
	want=$1
	shift
	run funclatency "$@"
	expect_rc "$want" "funclatency $*"
	[ -s "$OUT" ] && fail "funclatency $* printed to stdout"
	head -1 "$ERR" | grep -q '^funclatency: ' || fail "funclatency $*: stderr does not name the tool"
	[ "$(grep -vc '^Usage\|^ ' "$ERR")" = 1 ] || fail "funclatency $*: more than one error line"
}
check_bad 2 t:sched:sched_switch
check_bad 2 r:vfs_read
check_bad 2 u:c:probe
check_bad 2 'p:a:b:c'
check_bad 2 'lib:'
check_bad 2 ''
check_bad 2 -u -m c:read
check_bad 2 -l 0 c:read
check_bad 2 -l 33 c:read
check_bad 2 -p 0 c:read
check_bad 2 -p 999999999 c:read
check_bad 2 -i 0 c:read
check_bad 2 -d x c:read
check_bad 2 --attach=nope vfs_read
check_bad 2 --max-probes=0 c:read
check_bad 2 -r 'c:(x'
check_bad 2 no_such_library_xyz:func
check_bad 2 c:read extra
check_bad 2
check_bad 1 c:no_such_function_xyz
check_bad 1 --max-probes=2 'c:str*'
check_bad 1 no_such_kernel_function_xyz
ok "bad input"
