#!/bin/sh
# Files a traced process controls, made hostile (symbolize/bt_procfile.c). A FIFO at its
# /tmp/perf-PID.map hung profile and stackcount in open() before they printed anything, SIGINT
# doing nothing (timeout's SIGKILL ended them here); now it is refused before any open, with a
# --debug line, and each run ends within its time with its output. A perf map owned by another
# user (neither root nor the process's) is ignored, with a --debug line.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints syscalls

# a shell that opens /dev/null in a loop: system calls of its own to count, CPU to sample
sh -c 'while :; do read x </dev/null; done' &
P=$!
PM=/tmp/perf-$P.map
trap 'kill $P 2>/dev/null; rm -f "$PM"; rm -rf "$T"' EXIT
rm -f "$PM"
mkfifo "$PM"

# elapsed ARGS...: run bpftools with a 20 s timeout; $SECS is how long it took
elapsed() {
	t0=$(date +%s)
	BT_TIMEOUT=20 run "$@"
	SECS=$(($(date +%s) - t0))
}

elapsed profile --debug -U -p "$P" 2
expect_rc 0 "profile -p PID 2 with a FIFO as its perf map"
[ "$SECS" -le 10 ] || fail "profile took $SECS s for a 2 s run"
expect_line '[a-z]'
grep -q "refused $PM: a FIFO" "$ERR" || fail "no --debug line about the FIFO"
ok "profile -p: a FIFO at $PM refused (a debug line), the run ended in $SECS s with its stacks"

elapsed stackcount --debug -U -p "$P" -D 2 'syscall:openat'
expect_rc 0 "stackcount -p PID with a FIFO as its perf map"
[ "$SECS" -le 10 ] || fail "stackcount took $SECS s for a 2 s run"
expect_line '^ +[0-9]+$'
grep -q "refused $PM: a FIFO" "$ERR" || fail "no --debug line about the FIFO"
ok "stackcount -p: the same, counts printed in $SECS s"

# a perf map of another user's: not read
rm -f "$PM"
printf '1000 100 not_his\n' >"$PM"
chown 65534:65534 "$PM"
elapsed profile --debug -U -p "$P" 1
expect_rc 0 "profile -p PID 1 with a perf map of another user's"
grep -q "ignored $PM: owned by uid 65534" "$ERR" || fail "no --debug line about the owner"
ok "a perf map owned by uid 65534 (the process runs as $(id -u)) ignored, with a debug line"
