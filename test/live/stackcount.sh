#!/bin/sh
# stackcount on this kernel: user stacks through uprobes (PIE executable, shared library, C++
# method), names that survive the process's exit, kernel stacks of a syscall tracepoint,
# folded output, and bad input.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints uprobes syscalls
need python3

W=$BT_WORKLOADS/stack_paths
WXX=$BT_WORKLOADS/stack_paths_cxx
[ -x "$W" ] && [ -x "$WXX" ] || fail "workloads not built"

# block_count FIRST SECOND: the count printed under the stack whose first two frames are
# FIRST and SECOND (frames are "  name" lines, the count "    N", blocks end with a blank).
block_count() {
	awk -v a="  $1" -v b="  $2" '
		/^$/ { n = 0; next }
		{ n++; line[n] = $0 }
		n == 1 { first = $0 }
		n == 2 { second = $0 }
		/^    [0-9]+$/ && first == a && second == b { print $1; exit }' "$OUT"
}

# The workload waits until the tool is attached, calls, and exits long before the output at 4 s
# (so names must come from the snapshot, not from a live process).
trace_workload() {
	bin=$1
	shift
	BANNER='^Tracing' traced_workload "$bin" 3 5 -1 -- stackcount -p @PID -D 4 "$@"
	expect_rc 0 "stackcount $*"
}

trace_workload "$W" -U "$W:bt_leaf"
expect_line '^Tracing 1 functions for ".*stack_paths:bt_leaf" for 4 secs\.$'
[ "$(block_count bt_leaf bt_path_a)" = 3 ] || fail "PIE: no 'bt_leaf <- bt_path_a' stack counted 3"
[ "$(block_count bt_leaf bt_path_b)" = 5 ] || fail "PIE: no 'bt_leaf <- bt_path_b' stack counted 5"
expect_line '^  main$'
expect_line '^Detaching\.\.\.$'
ok "PIE executable: two paths, exact counts, names after exit"

READY_MAPS=libbtstack trace_workload "$W" -U "btstack:btlib_leaf"
[ "$(block_count btlib_leaf btlib_path_a)" = 3 ] || fail "library: btlib_path_a path not counted 3"
[ "$(block_count btlib_leaf btlib_path_b)" = 5 ] || fail "library: btlib_path_b path not counted 5"
ok "shared library found through the process's maps"

trace_workload "$WXX" -U "$WXX:*Counter4bump*"
[ "$(block_count 'btwork::Counter::bump(unsigned long)' 'btwork::Counter::viaA(long)')" = 3 ] ||
	fail "C++: demangled viaA path not counted 3"
[ "$(block_count 'btwork::Counter::bump(unsigned long)' 'btwork::Counter::viaB(long)')" = 5 ] ||
	fail "C++: demangled viaB path not counted 5"
ok "C++ method, demangled"

# Folded, per process: comm;outer...;inner count, accepted by flamegraph.pl.
# (folded output is data only: the banner goes to stderr)
BANNER_IN=err trace_workload "$W" -U -f "$W:bt_leaf"
expect_line '^stack_paths;.*;main;bt_path_a;bt_leaf 3$'
expect_line '^stack_paths;.*;main;bt_path_b;bt_leaf 5$'
grep -q 'Tracing\|Detaching' "$OUT" && fail "folded output has banner lines"
ok "folded output"

# -s offsets, -d delimiter between kernel and user stacks, -T/-i repeated summaries: two runs
# of the workload in different intervals are counted in their own interval (each interval
# closes a stack generation and frees it), and their stacks are named in both.
# (A process first seen mid-run walks through the tables of files already indexed, found by
# file, and by frame pointers elsewhere until it is indexed itself: stack_paths keeps frame
# pointers, so both walks give the same frames, and a path never counts under two stacks.)
start_tool stackcount -s -d -T -i 1 -D 4 "$W:bt_leaf"
"$W" 3 5 0 300
sleep 1.5
"$W" 3 5 0 300
finish_tool
expect_rc 0 "stackcount -s -d -T -i 1 -D 4"
expect_line '^  bt_path_a\+0x[0-9a-f]+$'
expect_line '^  bt_leaf\+0x0$'
expect_line '^    --$'
[ "$(grep -cE '^[0-9]{2}:[0-9]{2}:[0-9]{2}$' "$OUT")" = 4 ] || fail "-T -i 1 -D 4: not 4 timed summaries"
[ "$(grep -c '^  bt_path_a+0x' "$OUT")" = 2 ] && [ "$(grep -c '^  bt_path_b+0x' "$OUT")" = 2 ] ||
	fail "-i 1: the two runs' stacks are not each named in an interval of their own"
[ "$(grep -c '^    3$' "$OUT")" = 2 ] && [ "$(grep -c '^    5$' "$OUT")" = 2 ] ||
	fail "-i 1: counts not 3 and 5 in each of two intervals"
grep -q 'lost\|freed' "$ERR" && fail "-i 1: stacks lost or freed early: $(cat "$ERR")"
ok "offsets, delimiter, timestamps and intervals"

# -P system-wide: one "comm [pid]" line per stack, the two paths kept apart, and names from
# the snapshot taken when the kernel announced the process (ring buffer, then the perf buffer
# fallback a kernel without ring buffers gets).
for events in ringbuf perfbuf; do
	"$W" 3 5 1500 1000 &
	wpid=$!
	if [ $events = perfbuf ]; then
		BPFTOOLS_NO_RINGBUF=1 run stackcount -U -P -D 4 "$W:bt_leaf"
	else
		run stackcount -U -P -D 4 "$W:bt_leaf"
	fi
	wait $wpid
	expect_rc 0 "stackcount -U -P -D 4 ($events)"
	[ "$(grep -c "^    stack_paths \[$wpid\]\$" "$OUT")" = 2 ] ||
		fail "-P ($events): expected two 'stack_paths [$wpid]' lines"
	[ "$(block_count bt_leaf bt_path_a)" = 3 ] || fail "-P ($events): bt_path_a stack not named or not 3"
	[ "$(block_count bt_leaf bt_path_b)" = 5 ] || fail "-P ($events): bt_path_b stack not named or not 5"
	ok "per-process stacks, process announced through the $events"
done

# A process running before the tool starts that then exec()s gets the new image's names, with
# -p (snapshotted at start) and system-wide (snapshotted at start as every running process).
mkfifo "$T/go"
for mode in pid all; do
	sh -c 'read x <"$1"; exec "$2" 3 5 0 300' sh "$T/go" "$W" &
	spid=$!
	if [ $mode = pid ]; then
		start_tool stackcount -U -p $spid "$W:bt_leaf"
	else
		start_tool stackcount -U "$W:bt_leaf"
	fi
	echo go >"$T/go"
	wait $spid
	finish_tool INT
	expect_rc 0 "stackcount after exec ($mode)"
	[ "$(block_count bt_leaf bt_path_a)" = 3 ] && [ "$(block_count bt_leaf bt_path_b)" = 5 ] ||
		fail "exec ($mode): the new image's frames are not named (old snapshot reused?)"
done
ok "names after exec, with -p and system-wide"

# 2048 distinct user call paths, path p taken p % 3 + 1 times: every path with its exact count
# and no stack lost at the default storage size.
WM=$BT_WORKLOADS/stack_many
BANNER_IN=err traced_workload "$WM" call 11 -- stackcount -U -f -p @PID "$WM:sm_leaf"
expect_rc 0 "stackcount -U -f (2048 paths)"
grep -q 'lost' "$ERR" && fail "2048 paths: stacks lost: $(cat "$ERR")"
python3 "$(dirname "$0")/stack_many_check.py" "$OUT" || fail "2048 paths: a path missing or miscounted"
ok "2048 distinct paths, each with its exact count, none lost"

# Kernel stacks of a syscall tracepoint name the syscall entry path.
UDP=$BT_WORKLOADS/udp_flood
traced_workload "$UDP" 3000 -1 -- stackcount -K -p @PID t:syscalls:sys_enter_sendto
expect_rc 0 "stackcount -K t:syscalls:sys_enter_sendto"
expect_line '^  do_syscall_64$'
expect_line '^  entry_SYSCALL_64'
grep -q 'bpf_prog_\|bpf_trace_run\|__bpf_trace' "$OUT" && fail "tracing artefacts left on top of kernel stacks"
ok "kernel stacks of a syscall tracepoint"

# The same as JSON: one summary line, kernel stacks only (no user_stack member), frames named
# through the syscall entry path, counts adding up to the workload's 3000 sends.
BANNER_IN=err traced_workload "$UDP" 3000 -1 -- stackcount --json -K -p @PID t:syscalls:sys_enter_sendto
expect_rc 0 "stackcount --json -K t:syscalls:sys_enter_sendto"
python3 - "$OUT" "$wpid" <<'EOF' || fail "--json -K: not the expected summary"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
o = json.loads(lines[0])
assert o["val_type"] == "count" and o["stacks"], o
assert sum(s["count"] for s in o["stacks"]) == 3000, [s["count"] for s in o["stacks"]]
for s in o["stacks"]:
    assert "user_stack" not in s and s["pid"] == int(sys.argv[2]), s
    names = [f["name"] for f in s["kernel_stack"]]
    assert "do_syscall_64" in names and not any("bpf_" in (n or "") for n in names), names
    # the kernel image's frames have no module (null); a kernel module's would be named
    assert all(f["module"] is None and not f["inlined"] for f in s["kernel_stack"]), s
EOF
ok "--json -K: kernel stacks as frames, 3000 sends"

# Bad input: one line naming it, exit 2 (usage) or 1 (runtime).
for bad in "" "-K -U vfs_read" "-p -5 vfs_read" "--stack-storage-size 0 vfs_read" \
	"a:b:c:d" "t:nosuchcat:nosuchevent" "$W:no_such_function_xyz" "-r (unclosed"; do
	# shellcheck disable=SC2086
	run stackcount $bad
	[ "$RC" = 1 ] || [ "$RC" = 2 ] || fail "stackcount $bad: exit $RC"
	[ "$(wc -l <"$ERR")" -ge 1 ] || fail "stackcount $bad: no error message"
	head -1 "$ERR" | grep -q '^stackcount: ' || fail "stackcount $bad: message does not name the tool"
done
ok "bad input"
