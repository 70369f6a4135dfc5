#!/bin/sh
# --flamegraph=FILE and --pprof=FILE on the tools that aggregate stacks (stackcount,
# offcputime, offwaketime, funcslower): in one run with folded output, the SVG must be
# well-formed XML whose frames (read back by their geometry) have exactly the folded counts as
# widths, with the frame kinds the symbolizer gave; the profile, decoded by hand in
# flamegraph.py (gzip, then protobuf), must hold exactly the folded stacks and values, the
# tool's sample type, and the workload's functions in their files. Without -f, the tool prints
# what it always prints and the files hold the same totals.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints uprobes syscalls
CHECK="python3 $(dirname "$0")/flamegraph.py"
need python3 # to read the SVG and the profile back
command -v go >/dev/null || echo "note: no Go here: 'go tool pprof -top' does not read the profiles"
command -v node >/dev/null || echo "note: no node here: the SVGs' script is not run"

SVG=$T/p.svg PB=$T/p.pb.gz

# files_ok TOOL [NAME]: both files written, non-empty; go tool pprof reads the profile where Go
# is; the SVG's own script (run by node, where it is) finds NAME and zooms to it.
files_ok() {
	[ -s "$SVG" ] && [ -s "$PB" ] || fail "$1: --flamegraph/--pprof wrote no file"
	if [ -n "${2:-}" ] && command -v node >/dev/null; then
		node "$(dirname "$0")/flamegraph-dom.js" "$SVG" --search "$2" || fail "$1: the SVG's script"
	fi
	if command -v go >/dev/null; then
		go tool pprof -top "$PB" >"$T/top" 2>&1 || fail "$1: go tool pprof: $(cat "$T/top")"
	fi
}

# svg_total: the value of the SVG's root frame ("all (N unit, 100.00%)").
svg_total() {
	# (the root's tooltip writes thousands separators: 141,222 microseconds)
	sed -n 's/.*<title>all (\([0-9,]*\) .*/\1/p' "$SVG" | tr -d ,
}

# stackcount: a uprobe on a PIE executable's leaf, reached 3 times through bt_path_a and 5
# through bt_path_b; -P -d: the comm and the delimiter are frames too. Every second (-i 1)
# prints that second's stacks; the files hold the whole run.
W=$BT_WORKLOADS/stack_paths
[ -x "$W" ] || fail "workloads not built"
rm -f "$SVG" "$PB"
BANNER_IN=err traced_workload "$W" 3 5 -1 -- stackcount -f -P -d -i 1 -p @PID \
	--flamegraph="$SVG" --pprof="$PB" "$W:bt_leaf"
expect_rc 0 "stackcount -f --flamegraph --pprof"
files_ok stackcount bt_leaf
[ "$(awk '{ t += $NF } END { print t }' "$OUT")" = 8 ] || fail "stackcount -f: not 8 calls"
$CHECK svg "$OUT" "$SVG" stack_paths=other bt_leaf=user bt_path_a=user main=user -=other ||
	fail "stackcount: SVG"
$CHECK pprof "$OUT" "$PB" events count bt_leaf@stack_paths bt_path_b@stack_paths \
	__libc_start_call_main@libc || fail "stackcount: pprof"
grep -q '<title>stackcount ' "$SVG" || grep -q '>stackcount .*bt_leaf</text>' "$SVG" ||
	fail "stackcount: the SVG's title does not name the tool and pattern"
ok "stackcount -f: SVG and pprof hold exactly the folded stacks (kinds, functions, files)"

# Without -f the printed blocks are BCC's, and the files the same 8 calls.
rm -f "$SVG" "$PB"
traced_workload "$W" 3 5 -1 -- stackcount -U -p @PID -D 4 --flamegraph="$SVG" --pprof="$PB" \
	"$W:bt_leaf"
expect_rc 0 "stackcount --flamegraph --pprof"
expect_line '^  bt_leaf$'
expect_line '^    5$'
expect_line '^Detaching\.\.\.$'
grep -q 'svg\|pprof' "$OUT" && fail "stackcount: the file options changed what is printed"
files_ok stackcount
[ "$(svg_total)" = 8 ] || fail "stackcount: the SVG's total is $(svg_total), not 8"
ok "stackcount: multi-line output as always, files beside it"

# -i: each summary prints its own second, the files hold the whole run. Four paths sleeping 7
# times 300 ms in all span three seconds: the sums of the seconds are the files'.
W=$BT_WORKLOADS/stack_many
rm -f "$SVG" "$PB"
BANNER_IN=err traced_workload "$W" sleep 2 300000 -- stackcount -f -T -U -i 1 -p @PID \
	--flamegraph="$SVG" --pprof="$PB" t:syscalls:sys_enter_clock_nanosleep
expect_rc 0 "stackcount -f -T -i 1 --flamegraph --pprof"
files_ok stackcount leaf
awk '/^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$/ { n++ } !/^[0-9][0-9]:/ && NF { seen[n] = 1 }
	END { for (i in seen) k++; exit !(k >= 2) }' "$OUT" ||
	fail "stackcount -i 1: the sleeps were not counted in two seconds or more"
grep -v '^[0-9][0-9]:[0-9][0-9]:[0-9][0-9]$' "$OUT" >"$T/i.folded"
[ "$(awk '{ t += $NF } END { print t }' "$T/i.folded")" = 7 ] || fail "stackcount -i 1: not 7 sleeps"
$CHECK svg "$T/i.folded" "$SVG" leaf=user sm_b=user || fail "stackcount -i 1: SVG"
$CHECK pprof "$T/i.folded" "$PB" events count leaf@stack_many || fail "stackcount -i 1: pprof"
ok "stackcount -i 1: summaries per second, the files the sum of them"

# offcputime: four paths of user frames sleeping in clock_nanosleep; -d: user frames, "-",
# then kernel frames, each of its own kind in the SVG.
rm -f "$SVG" "$PB"
BANNER_IN=err traced_workload "$W" sleep 2 20000 -- offcputime -f -d -p @PID \
	--flamegraph="$SVG" --pprof="$PB"
expect_rc 0 "offcputime -f --flamegraph --pprof"
files_ok offcputime do_nanosleep
grep -q 'leaf;-;.*do_nanosleep' "$OUT" || fail "offcputime -f printed no sleeping stack"
# the state each block began in, a frame of the graph and the profile only: -f stays BCC's
! grep -q 'off-cpu' "$OUT" || fail "offcputime -f: a state frame in the folded lines"
grep -q '<title>\[off-cpu: S\] (' "$SVG" || fail "offcputime: no [off-cpu: S] in the SVG"
STATE_FRAMES=1 $CHECK svg "$OUT" "$SVG" stack_many=other sm_a=user leaf=user -=other \
	do_nanosleep=kernel schedule=kernel || fail "offcputime: SVG"
STATE_FRAMES=1 $CHECK pprof "$OUT" "$PB" off_cpu microseconds sm_a@stack_many sm_b@stack_many \
	'do_nanosleep@[kernel.kallsyms]' || fail "offcputime: pprof"
ok "offcputime -f -d: SVG and pprof hold exactly the folded stacks, user and kernel kinds, each block's state above it"

# multi-line: the printed totals add up to the SVG's
rm -f "$SVG" "$PB"
traced_workload "$W" sleep 2 20000 -- offcputime -p @PID --flamegraph="$SVG" --pprof="$PB"
expect_rc 0 "offcputime --flamegraph --pprof"
expect_line '^    do_nanosleep$'
expect_line '^    -                stack_many \([0-9]+\)$'
files_ok offcputime
sum=$(awk '/^    -  +stack_many / { getline; t += $1 } END { print t + 0 }' "$OUT")
[ "$sum" -gt 0 ] && [ "$(svg_total)" = "$sum" ] ||
	fail "offcputime: printed blocks add up to $sum us, the SVG to $(svg_total)"
ok "offcputime: multi-line blocks as always, their $sum us in the SVG"

# System-wide for 2 s: whatever runs on this machine (thousands of frames, many files, unknown
# frames), the files still hold exactly the folded stacks.
rm -f "$SVG" "$PB"
run offcputime -f --flamegraph="$SVG" --pprof="$PB" 2
expect_rc 0 "offcputime -f 2 --flamegraph --pprof"
files_ok offcputime
STATE_FRAMES=1 $CHECK svg "$OUT" "$SVG" || fail "offcputime system-wide: SVG"
STATE_FRAMES=1 $CHECK pprof "$OUT" "$PB" off_cpu microseconds || fail "offcputime system-wide: pprof"
ok "offcputime system-wide: SVG and pprof hold exactly the folded stacks"

# offwaketime: bt_pong blocked in pipe_read, woken by bt_ping's pipe_write.
PP=$BT_WORKLOADS/pingpong
rm -f "$SVG" "$PB" "$T/pong"
"$PP" 500 >"$T/pong" &
ping=$!
i=0
until [ -s "$T/pong" ] || [ $i -gt 100 ]; do
	i=$((i + 1))
	sleep 0.05
done
BANNER_IN=err start_tool offwaketime -f -d -p "$(cat "$T/pong")" --flamegraph="$SVG" \
	--pprof="$PB"
kill -USR1 $ping
wait $ping || fail "pingpong exited $?"
finish_tool INT
expect_rc 0 "offwaketime -f --flamegraph --pprof"
files_ok offwaketime vfs_read
expect_line '^bt_pong;.*pipe_read;.*;--;.*pipe_write;.*;bt_ping [0-9]+$'
! grep -q 'off-cpu' "$OUT" || fail "offwaketime -f: a state frame in the folded lines"
STATE_FRAMES=1 $CHECK svg "$OUT" "$SVG" bt_pong=other vfs_read=kernel vfs_write=kernel \
	try_to_wake_up=kernel --=other -=other bt_ping=other || fail "offwaketime: SVG"
STATE_FRAMES=1 $CHECK pprof "$OUT" "$PB" off_cpu microseconds 'vfs_read@[kernel.kallsyms]' \
	'vfs_write@[kernel.kallsyms]' main@pingpong || fail "offwaketime: pprof"
ok "offwaketime -f -d: SVG and pprof hold exactly the folded sleeper + waker stacks"

# funcslower: a user function's slow calls, one folded line each ("... 1").
F=$BT_WORKLOADS/funcslower_work
P=$BT_WORKLOADS/fs_prof_work
[ -x "$F" ] && [ -x "$P" ] || fail "workloads not built"
rm -f "$SVG" "$PB"
# funcslower_work waits for SIGUSR1 itself: 7 calls, the odd ones sleep 3 ms
READY_MAPS=funcslower_work BANNER='uprobe' BANNER_IN=err traced_workload "$F" 7 3 -- funcslower -v -f -u 1000 \
	--flamegraph="$SVG" --pprof="$PB" "$F:fs_work"
expect_rc 0 "funcslower -f --flamegraph --pprof"
files_ok funcslower fs_work
[ "$(grep -c ';fs_caller;fs_work' "$OUT")" = 4 ] || fail "funcslower -f: not 4 slow calls"
$CHECK svg "$OUT" "$SVG" funcslower_work=other fs_work=user fs_caller=user main=user ||
	fail "funcslower: SVG"
$CHECK pprof "$OUT" "$PB" slow_calls count fs_work@funcslower_work fs_caller@funcslower_work ||
	fail "funcslower: pprof"
ok "funcslower -f: SVG and pprof hold exactly its slow calls' folded stacks"

# -S: the samples of one slow call that spins, per stack; the folded S lines' counts
# ("S COUNT ;stack 1") are the profile's values.
rm -f "$SVG" "$PB"
READY_MAPS=fs_prof_work BANNER='uprobe' BANNER_IN=err traced_workload "$P" spin 300 -- funcslower -v -f -US -F 99 \
	--flamegraph="$SVG" --pprof="$PB" "$P:fs_spin"
expect_rc 0 "funcslower -f -US --flamegraph --pprof"
files_ok funcslower
awk '$1 == "S" { print $3 " " $2 }' "$OUT" >"$T/s.folded"
grep -q 'fs_spin_loop' "$T/s.folded" || fail "funcslower -S: no samples under fs_spin_loop"
$CHECK svg "$T/s.folded" "$SVG" fs_spin_loop=user fs_spin=user || fail "funcslower -S: SVG"
$CHECK pprof "$T/s.folded" "$PB" samples count fs_spin_loop@fs_prof_work ||
	fail "funcslower -S: pprof"
ok "funcslower -f -S: SVG and pprof hold the samples of its S lines"

# -B: where one slow call blocked, valued in nanoseconds; the B lines print TOTAL in ms with
# two decimals, so each stack's value in the files is within 5000 ns of the line's.
rm -f "$SVG" "$PB"
READY_MAPS=fs_prof_work BANNER='uprobe' BANNER_IN=err traced_workload "$P" sleep 4 10 -- \
	funcslower -v -f -UKB --flamegraph="$SVG" --pprof="$PB" "$P:fs_sleepy"
expect_rc 0 "funcslower -f -UKB --flamegraph --pprof"
files_ok funcslower
awk '$1 == "B" { print $6 " " int($5 * 1000000 + 0.5) }' "$OUT" >"$T/b.folded"
grep -q 'fs_sleepy;.*do_nanosleep' "$T/b.folded" || fail "funcslower -B: no block under do_nanosleep"
TOLERANCE=5000 $CHECK svg "$T/b.folded" "$SVG" fs_sleepy=user do_nanosleep=kernel ||
	fail "funcslower -B: SVG"
TOLERANCE=5000 $CHECK pprof "$T/b.folded" "$PB" off_cpu nanoseconds fs_sleepy@fs_prof_work \
	'do_nanosleep@[kernel.kallsyms]' || fail "funcslower -B: pprof"
ok "funcslower -f -B: SVG and pprof hold the B lines' stacks, in nanoseconds"

# Bad input: an unwritable file fails before tracing (exit 1, naming it); the same file twice
# and funcslower without stacks are usage errors.
run offcputime --flamegraph="$T/no/such/dir.svg" 1
[ "$RC" = 1 ] && grep -q "cannot write '$T/no/such/dir.svg'" "$ERR" ||
	fail "an unwritable --flamegraph: exit $RC, $(cat "$ERR")"
run stackcount --flamegraph=x --pprof=x t:sched:sched_switch
[ "$RC" = 2 ] && grep -q "name the same file" "$ERR" || fail "the same file twice: exit $RC"
run funcslower --pprof="$PB" "$F:fs_work"
[ "$RC" = 2 ] && grep -q "need the stacks" "$ERR" || fail "funcslower --pprof alone: exit $RC"
ok "bad input: unwritable file (exit 1), same file twice, funcslower without stacks (exit 2)"
