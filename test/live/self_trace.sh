#!/bin/sh
# The tools that print each event do not trace themselves (bt_filter_not_tgid,
# probes/bt_common.bpf.h). System-wide on syscall:write, each row stacksnoop or funcslower -m 0
# printed was a write() of its own, traced and printed as another row: 1.2 million lines in
# 3 s, and Ctrl-C ignored while the drain chased the tool's own output. A workload's writes
# are printed exactly, the tool's own pid never; Ctrl-C ends a busy system-wide trace within a
# second, exit 0, its last row whole; opensnoop does not show the opens it makes while it
# attaches.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints syscalls

N=2000
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# stop_within_1s WHAT: Ctrl-C the tool ($FPID); it must be gone within a second, exit 0
stop_within_1s() {
	t0=$(now_ms)
	kill -INT $FPID
	i=0
	while kill -0 $FPID 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	t1=$(now_ms)
	if kill -0 $FPID 2>/dev/null; then
		kill -INT $FPID # a second Ctrl-C gives the drain up
		sleep 1
		kill -KILL $FPID 2>/dev/null
		wait $FPID
		OUT= # it may be huge
		fail "$1 still running $((t1 - t0)) ms after Ctrl-C"
	fi
	finish_tool
	expect_rc 0 "$1 (Ctrl-C)"
	STOP_MS=$((t1 - t0))
}

# rows COL: "ROWS DD SELF": rows whose column COL is a pid, those of dd ($dpid), our own
rows() {
	awk -v c="$1" -v d=$dpid -v s=$FPID '
		NR > 1 && $c ~ /^[0-9]+$/ { rows++; if ($c == d) dd++; if ($c == s) self++ }
		END { printf "%d %d %d\n", rows, dd, self }' "$OUT" >"$T/n"
	read -r rows dd self <"$T/n"
}

# dd with status=none makes exactly one write() per block, and nothing else writes for it
writes() {
	dd if=/dev/zero of=/dev/null bs=1 count=$N status=none &
	dpid=$!
	wait $dpid || fail "dd exited $?"
}

# others write too (this machine is shared: up to 24,000 rows in 2 s), but nothing like the
# loop's 50,000 rows a second
check_rows() {
	[ "$self" = 0 ] || fail "$1 printed $self rows of its own writes (pid $FPID), of $rows"
	[ "$dd" = $N ] || fail "$1: expected $N rows of dd's writes (pid $dpid), got $dd"
	[ "$rows" -le 50000 ] || fail "$1: $rows rows for $N writes of the workload: a feedback loop?"
}

BANNER='^TIME(s)' start_tool stacksnoop -v syscall:write
writes
sleep 2
stop_within_1s "stacksnoop -v syscall:write"
rows 3 # TIME COMM PID CPU FUNCTION
check_rows "stacksnoop -v syscall:write"
ok "stacksnoop syscall:write: $N rows of the workload's $N writes, none of its own ($rows in all)"

# Ctrl-C of a busy system-wide trace: every system call of the machine
BANNER='^TIME(s)' start_tool stacksnoop 'syscall:*'
sleep 1
stop_within_1s "stacksnoop 'syscall:*'"
[ -s "$ERR" ] && fail "stacksnoop 'syscall:*': unexpected stderr: $(head -n 3 "$ERR")"
grep -Eq '^[0-9]+\.[0-9]{9} +[a-z0-9_]+$' "$OUT" || fail "stacksnoop 'syscall:*': no rows"
[ -z "$(tail -n 1 "$OUT")" ] || fail "stacksnoop 'syscall:*': the last row is cut short: $(tail -n 2 "$OUT")"
ok "stacksnoop 'syscall:*': Ctrl-C ended it in $STOP_MS ms, exit 0, $(grep -c '^$' "$OUT") rows"

# funcslower -m 0 prints every call, as slow as it may be
start_tool funcslower -m 0 syscall:write
writes
sleep 1
stop_within_1s "funcslower -m 0 syscall:write"
rows 2 # COMM PID LAT(ms) RVAL FUNC
check_rows "funcslower -m 0 syscall:write"
ok "funcslower -m 0 syscall:write: $N rows of the workload's $N writes, none of its own ($rows in all), stopped in $STOP_MS ms"

# opensnoop opens tracefs files while it attaches, after its first probes are in
BANNER="^PID" start_tool opensnoop
sleep 1
stop_within_1s opensnoop
dpid=0
rows 1 # PID COMM FD ERR PATH
[ "$self" = 0 ] || fail "opensnoop printed $self opens of its own (pid $FPID): $(grep "^$FPID " "$OUT" | head -n 3)"
ok "opensnoop: none of its own opens in $rows"

# In a PID namespace of its own the tool's pid is not the kernel's: it must leave out no one.
# Made to have, inside, the host pid of a workload (ns_last_pid), it would drop that
# workload's every call were it to filter its getpid().
command -v unshare >/dev/null || skip "no unshare (util-linux) for the PID namespace case"
WORK=$BT_WORKLOADS/fc_work
[ -x "$WORK" ] || fail "workload $WORK not built"
"$WORK" 0 0 0 $N &
wpid=$!
OUT=$T/out ERR=$T/err
: >"$OUT"
# the namespace's first process, a shell, forks the tool: the next pid after ns_last_pid
unshare --pid --fork --mount-proc sh -c 'echo $(($1 - 1)) >/proc/sys/kernel/ns_last_pid
	exec "$2" stacksnoop -v syscall:getppid >"$3" 2>"$4" &
	echo $! >"$5"
	wait' sh $wpid "$BPFTOOLS" "$OUT" "$ERR" "$T/nspid" &
upid=$!
i=0
until grep -q '^TIME(s)' "$OUT" 2>/dev/null || [ $i -gt 100 ]; do
	i=$((i + 1))
	sleep 0.1
done
# unshare ignores SIGINT and SIGTERM while it waits: stop the tool itself, by its host pid
FPID=$(pgrep -P "$(pgrep -P $upid)")
stop_ns() {
	[ -z "$FPID" ] || kill -INT $FPID
	wait $upid
}
[ -n "$FPID" ] && [ $i -le 100 ] ||
	{ kill -TERM $wpid; stop_ns; fail "stacksnoop in a PID namespace did not start"; }
[ "$(cat "$T/nspid")" = $wpid ] ||
	{ kill -TERM $wpid; stop_ns; skip "could not have pid $wpid in the namespace (ns_last_pid)"; }
kill -USR1 $wpid
wait $wpid || { stop_ns; fail "workload exited $?"; }
stop_ns
FPID=-1 dpid=$wpid
rows 3
[ "$dd" = $N ] || fail "stacksnoop in a PID namespace, as pid $wpid there: $dd of the $N getppid calls of host pid $wpid"
ok "stacksnoop in a PID namespace, with the workload's pid there: all $N of its calls"
