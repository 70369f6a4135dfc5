#!/bin/sh
# stacksnoop on this kernel: one row and one stack per call of a syscall tracepoint (exact
# counts with -p, the syscall entry path in every stack, -v columns, -s offsets, -K -U, the
# ring buffer and the perf buffer), user stacks of a uprobe, Ctrl-C, a closed pipe, kernel
# functions refused with the reason, and bad input.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints syscalls
need python3

WORK=$BT_WORKLOADS/fc_work
PATHS=$BT_WORKLOADS/stack_paths
[ -x "$WORK" ] && [ -x "$PATHS" ] || fail "workloads not built"
TP=syscalls:sys_enter_getppid

# snoop N ARGS...: start fc_work (paused) to make N getppid calls, run stacksnoop ARGS ("@PID"
# becomes the workload's pid), release the workload once the header is out, then Ctrl-C.
# Output in $OUT, stderr in $ERR, status in $RC, the workload's pid in $wpid.
snoop() {
	n=$1
	shift
	OUT=$T/out ERR=$T/err
	: >"$OUT"
	"$WORK" 0 0 0 "$n" &
	wpid=$!
	args=""
	for a in "$@"; do
		[ "$a" = "@PID" ] && a=$wpid
		args="$args $a"
	done
	# shellcheck disable=SC2086
	"$BPFTOOLS" stacksnoop $args >"$OUT" 2>"$ERR" &
	spid=$!
	i=0
	until grep -q '^TIME(s)' "$OUT" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 $spid 2>/dev/null; then
			kill -TERM $wpid $spid 2>/dev/null
			wait $spid
			RC=$?
			return
		fi
		sleep 0.1
	done
	kill -USR1 $wpid
	wait $wpid || fail "workload exited $?"
	# Ctrl-C at once: the calls were all made before it, so every one must still print
	kill -INT $spid
	RC=0
	wait $spid || RC=$?
}

count() { grep -Ec -- "$1" "$OUT"; }

# rows_exact N: N rows "%-18.9f %s" naming the tracepoint, each followed by a stack whose
# frames name the syscall entry path, then a blank line.
rows_exact() {
	[ "$(count "^[0-9]+\.[0-9]{9} .*$TP\$")" = "$1" ] || fail "expected $1 rows for $TP"
	[ "$(count '^$')" = "$1" ] || fail "expected $1 blank lines (one after each stack)"
	[ "$(count '^	do_syscall_64(\+0x[0-9a-f]+)?$')" = "$1" ] || fail "expected do_syscall_64 in each of $1 stacks"
	[ "$(count '^	entry_SYSCALL_64[a-z_]*(\+0x[0-9a-f]+)?$')" = "$1" ] ||
		fail "expected entry_SYSCALL_64* in each of $1 stacks"
	grep -q 'bpf_prog_\|bpf_trace_run\|__bpf_trace\|perf_trace' "$OUT" && fail "tracing artefacts in stacks"
	grep -q 'Missed' "$OUT" && fail "a stack is missing"
	[ -s "$ERR" ] && fail "something on stderr"
	return 0
}

N=200
snoop $N -p @PID t:$TP
expect_rc 0 "stacksnoop -p PID t:$TP"
[ "$(head -1 "$OUT")" = "TIME(s)            FUNCTION" ] || fail "header"
rows_exact $N
grep -E "^[0-9]+\.[0-9]{9} +$TP\$" "$OUT" | grep -Evq "^.{18} $TP\$" && fail "row not in %-18.9f %s layout"
# times: seconds since tracing started, from the kernel's clock: positive, never decreasing
grep -E "^[0-9]+\.[0-9]{9} " "$OUT" | awk '$1 <= 0 || $1 < last { bad = 1 } { last = $1 }
	END { exit bad }' || fail "times not positive and non-decreasing"
ok "tracepoint, -p: exactly $N calls, each stack through do_syscall_64 and entry_SYSCALL_64"

snoop 3 -v -p @PID t:$TP
expect_rc 0 "stacksnoop -v"
[ "$(head -1 "$OUT")" = "TIME(s)            COMM         PID    CPU FUNCTION" ] || fail "-v header"
prefix=$(printf '%-12s %-6s ' fc_work $wpid)
[ "$(grep -Ec "^[0-9]+\.[0-9]{9} +$prefix[0-9]   $TP\$" "$OUT")" = 3 ] ||
	fail "-v: expected 3 rows '%-18.9f %-12.12s %-6d %-3d %s' with comm fc_work and pid $wpid"
rows_exact 3
ok "-v: COMM, PID and CPU columns name the workload"

snoop 3 -s -p @PID t:$TP
expect_rc 0 "stacksnoop -s"
rows_exact 3
[ "$(count '^	do_syscall_64\+0x[0-9a-f]+$')" = 3 ] || fail "-s: no do_syscall_64+0x offsets"
grep -E '^	' "$OUT" | grep -Evq '\+0x[0-9a-f]+$' && fail "-s: a frame without an offset"
ok "-s: offsets"

snoop 3 -K -U -p @PID t:$TP
expect_rc 0 "stacksnoop -K -U"
rows_exact 3
[ "$(count '^	--$')" = 3 ] || fail "-K -U: expected a '--' between the stacks of each call"
[ "$(grep -A1 '^	--$' "$OUT" | grep -c '^	syscall$')" = 3 ] ||
	fail "-K -U: the user stack does not start at libc's syscall()"
ok "-K -U: kernel stack, '--', user stack"

# --json -K -U: one object per call, both stacks as frames, times increasing.
BANNER_IN=err traced_workload "$WORK" 0 0 0 3 -- stacksnoop --json -K -U -p @PID t:$TP
expect_rc 0 "stacksnoop --json -K -U"
python3 - "$OUT" "$wpid" <<'EOF' || fail "--json -K -U: not 3 objects with both stacks"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]).read().splitlines()]
assert len(objs) == 3, objs
assert [o["time_ns"] for o in objs] == sorted(o["time_ns"] for o in objs) and objs[0]["time_ns"] > 0
for o in objs:
    assert o["pid"] == int(sys.argv[2]) and o["comm"] == "fc_work", o
    assert o["function"] == "syscalls:sys_enter_getppid", o
    assert "do_syscall_64" in [f["name"] for f in o["kernel_stack"]], o
    assert o["user_stack"][0]["name"] == "syscall" and "libc" in o["user_stack"][0]["module"], o
EOF
ok "--json -K -U: three calls, kernel and user frames"

# Many calls, through the ring buffer and the perf buffer (64 pages per CPU, as BCC; fits
# 2000 events): nothing lost, and the stack ids are still there when their rows print.
N=20000
snoop $N -p @PID t:$TP
expect_rc 0 "stacksnoop ($N calls, ring buffer)"
rows_exact $N
ok "ring buffer: exactly $N of $N"
N=2000
BPFTOOLS_NO_RINGBUF=1 snoop $N -p @PID t:$TP
expect_rc 0 "stacksnoop ($N calls, perf buffer)"
rows_exact $N
ok "perf buffer: exactly $N of $N"

# -p filters in the kernel on the process: other processes' calls never show.
snoop 5 -p $$ t:$TP
expect_rc 0 "stacksnoop -p (another process)"
[ "$(count "$TP")" = 0 ] || fail "-p: the workload's calls were not filtered out"
ok "-p: another process's calls filtered out"

# Uprobes: the user stack is the default; the two call paths, exactly 3 and 5 calls.
if [ -e /sys/bus/event_source/devices/uprobe/type ]; then
	"$PATHS" 3 5 2000 &
	wpid=$!
	OUT=$T/out ERR=$T/err
	"$BPFTOOLS" stacksnoop -p $wpid "$PATHS:bt_leaf" >"$OUT" 2>"$ERR" &
	spid=$!
	wait $wpid
	sleep 0.3
	kill -INT $spid
	RC=0
	wait $spid || RC=$?
	expect_rc 0 "stacksnoop -p PID stack_paths:bt_leaf"
	[ "$(count '^[0-9]+\.[0-9]{9} +bt_leaf$')" = 8 ] || fail "uprobe: expected 8 rows"
	[ "$(grep -A2 ' bt_leaf$' "$OUT" | grep -A1 '^	bt_leaf$' | grep -c '^	bt_path_a$')" = 3 ] ||
		fail "uprobe: expected 3 stacks bt_leaf <- bt_path_a"
	[ "$(grep -A2 ' bt_leaf$' "$OUT" | grep -A1 '^	bt_leaf$' | grep -c '^	bt_path_b$')" = 5 ] ||
		fail "uprobe: expected 5 stacks bt_leaf <- bt_path_b"
	[ "$(count '^	main$')" = 8 ] || fail "uprobe: main not in every stack"
	ok "uprobe: user stacks by default, 3 through bt_path_a and 5 through bt_path_b"
fi

# A closed pipe stops it, as a reader like `head` expects.
"$WORK" 0 0 0 1000000 &
wpid=$!
start=$(date +%s)
("$BPFTOOLS" stacksnoop -p $wpid t:$TP; echo $? >"$T/rc") 2>"$T/err" | head -3 >"$T/head" &
sleep 1
kill -USR1 $wpid
wait $wpid
i=0
while [ ! -s "$T/rc" ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -s "$T/rc" ] || fail "| head -3: stacksnoop did not stop with its reader"
[ "$(cat "$T/rc")" = 0 ] || fail "| head -3: exit $(cat "$T/rc")"
[ "$(sed -n 2p "$T/head" | grep -cE "^[0-9]+\.[0-9]{9} +$TP\$")" = 1 ] || fail "| head -3: no row"
ok "stops with exit 0 when the pipe reader goes away ($(($(date +%s) - start)) s)"

# Kernel functions: refused with the attach layer's reason when the kernel cannot trace them.
if ! [ -e /sys/bus/event_source/devices/kprobe/type ]; then
	for args in "vfs_read" "--attach=fentry vfs_read" "--attach=kprobe vfs_read"; do
		# shellcheck disable=SC2086
		run stacksnoop $args
		expect_rc 1 "stacksnoop $args"
		[ "$(wc -l <"$ERR")" = 1 ] || fail "stacksnoop $args: expected one line of error"
		grep -Eq "^stacksnoop: cannot trace 'vfs_read': .*(kprobes|fentry refused)" "$ERR" ||
			fail "stacksnoop $args: the reason is not the attach layer's"
		[ -s "$OUT" ] && fail "stacksnoop $args printed a header"
	done
	ok "kernel functions refused: $(cat "$ERR")"
fi

# -K -U on a process started after the tool that exits right after its last call (the three
# 40 ms sleeps are its whole life after its first event): its user frames are named (its
# announcement is read before its events, and snapshots it while it lives). With 1 ms sleeps
# the process was gone first when other work held both CPUs for those 3 ms (docs/stackcount.md).
SM=$BT_WORKLOADS/stack_many
BANNER='^TIME(s)' start_tool stacksnoop -v -K -U t:syscalls:sys_enter_clock_nanosleep
"$SM" sleep 1 40000 &
smpid=$!
# release it once it waits for the signal (SIGUSR1, bit 10 of SigBlk, blocked)
i=0
blocked() { # SIGUSR1 (0x200) in the 16 hex digits of SigBlk: the third digit from the end
	case $(awk '/^SigBlk:/ { print substr($2, 14, 1) }' /proc/$smpid/status 2>/dev/null) in
	[2367abef]) return 0 ;;
	esac
	return 1
}
until blocked || [ $i -gt 200 ]; do
	i=$((i + 1))
	sleep 0.005
done
kill -USR1 $smpid
wait $smpid
sleep 0.5
finish_tool INT
expect_rc 0 "stacksnoop -v -K -U (short-lived process)"
# the blocks of the workload's three calls: from its row to the blank line after its stack
awk -v pid="$smpid" '$3 == pid { inb = 1; n++; next } /^$/ { inb = 0 } inb && /^\tleaf$/ { named++ }
	END { exit !(n == 3 && named == 3) }' "$OUT" ||
	fail "-K -U: the short-lived process's 3 calls are not all shown with their user frames named"
ok "-K -U names the user frames of a process that lives a few milliseconds"

# Bad input: one line on stderr naming the tool, nothing on stdout, exit 2 (usage) or 1.
check_bad() {
	want=$1
	shift
	run stacksnoop "$@"
	expect_rc "$want" "stacksnoop $*"
	[ -s "$OUT" ] && fail "stacksnoop $* printed to stdout"
	head -1 "$ERR" | grep -q '^stacksnoop: ' || fail "stacksnoop $*: stderr does not name the tool"
	[ "$(grep -vc '^Usage\|^ ' "$ERR")" = 1 ] || fail "stacksnoop $*: more than one error line"
}
check_bad 2
check_bad 2 vfs_read vfs_write
check_bad 2 -p 0 vfs_read
check_bad 2 -p abc vfs_read
check_bad 2 --attach=uprobe vfs_read
check_bad 2 --stack-storage-size 0 vfs_read
check_bad 2 a:b:c:d
check_bad 2 -r '(unclosed'
check_bad 1 no_such_function_xyz
check_bad 1 t:nosuchcat:nosuchevent
check_bad 1 "$PATHS:no_such_function_xyz"
ok "bad input"
