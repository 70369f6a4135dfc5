#!/bin/sh
# Issue 33, "Its own inputs, unbounded", and "Stoppable at any moment": bpftools' own input
# files made endless, binary or not files at all: folded stacks from /dev/zero (a path, as stdin,
# through a pipe), a FIFO nobody writes to, --web-config and --args-file from /dev/zero and
# /dev/urandom, an args file of random bytes. Each must end by itself within 5 s, exit non-zero
# with one line on stderr free of raw bytes, and stay within 64 MiB. Then endless valid input
# (a pipe of folded lines) must stop within $H_STOP s of SIGINT, with its one line or output.
. "$(dirname "$0")/lib.sh"

mkfifo "$T/fifo" "$T/pipe"
head -c 4096 /dev/urandom >"$T/random.args"
port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# irun LABEL STDIN ARGS...: bpftools ARGS with stdin from STDIN (a path); the checks above.
irun() {
	label=$1 in=$2
	shift 2
	OUT=$T/out ERR=$T/err
	BUDGET=65536 PEAK=0 PEAKFD=0 OVER=0
	"$BPFTOOLS" "$@" <"$in" >"$OUT" 2>"$ERR" &
	BPID=$!
	t0=$(date +%s%N)
	watch_for 5
	if kill -0 $BPID 2>/dev/null; then
		hfail "$label: still running after 5 s"
		kill -INT $BPID
		watch_for "$H_STOP"
		if kill -0 $BPID 2>/dev/null; then
			kill -KILL $BPID
			hfail "$label: still running $H_STOP s after SIGINT, killed"
		fi
	fi
	RC=0
	wait $BPID 2>/dev/null || RC=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ $OVER = 1 ] && hfail "$label: peak RSS over $BUDGET KiB ($PEAK KiB seen), killed"
	[ "$RC" = 0 ] && hfail "$label: exit 0 on this input"
	[ "$(wc -l <"$ERR")" = 1 ] ||
		hfail "$label: exit $RC with $(wc -l <"$ERR") lines on stderr (one expected): $(head -c 200 "$ERR" | tr -c '[:print:]\n' '?')"
	check_leaks "$label" "$OUT" "$ERR"
	echo "run: $label: exit $RC, ${ms} ms, peak RSS $PEAK KiB: $(head -c 160 "$ERR" | tr -c '[:print:]' '?')"
}

irun "flamegraph /dev/zero" /dev/null flamegraph -o "$T/o.svg" /dev/zero
irun "flamegraph < /dev/zero" /dev/zero flamegraph -o "$T/o.svg"
# a pipe of zeros: stdin as a pipe is fine; the line cap is what ends it
(cat /dev/zero >"$T/pipe" 2>/dev/null &)
irun "flamegraph < a pipe of zeros" "$T/pipe" flamegraph -o "$T/o.svg"
irun "flamegraph FIFO (no writer)" /dev/null flamegraph -o "$T/o.svg" "$T/fifo"
irun "exporter --web-config /dev/zero" /dev/null exporter --listen 127.0.0.1:"$port" --web-config /dev/zero
irun "exporter --web-config FIFO" /dev/null exporter --listen 127.0.0.1:"$port" --web-config "$T/fifo"
irun "exporter --args-file /dev/zero" /dev/null exporter --args-file /dev/zero
irun "exporter --args-file /dev/urandom" /dev/null exporter --args-file /dev/urandom
irun "exporter --args-file (random bytes)" /dev/null exporter --args-file "$T/random.args"

# endless valid folded stacks through a pipe, stopped by SIGINT after 1 s
(yes 'a;b;c 1' >"$T/pipe" 2>/dev/null &)
OUT=$T/out ERR=$T/err
BUDGET=65536 PEAK=0 PEAKFD=0 OVER=0
"$BPFTOOLS" flamegraph -o "$T/o.svg" <"$T/pipe" >"$OUT" 2>"$ERR" &
BPID=$!
watch_for 1
if kill -0 $BPID 2>/dev/null; then
	kill -INT $BPID
	watch_for "$H_STOP"
	if kill -0 $BPID 2>/dev/null; then
		kill -KILL $BPID
		hfail "flamegraph < endless folded stacks: still running $H_STOP s after SIGINT, killed"
	fi
fi
RC=0
wait $BPID 2>/dev/null || RC=$?
[ $OVER = 1 ] && hfail "flamegraph < endless folded stacks: peak RSS over $BUDGET KiB"
[ "$(wc -l <"$ERR")" -le 1 ] || hfail "flamegraph < endless folded stacks: $(wc -l <"$ERR") lines on stderr"
check_leaks "flamegraph < endless folded stacks" "$ERR"
echo "run: flamegraph < endless folded stacks, SIGINT after 1 s: exit $RC, peak RSS $PEAK KiB"
hdone
