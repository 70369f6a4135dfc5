#!/bin/sh
# Inputs a user names are bounded and refused unread when they are not files: flamegraph on
# /dev/zero, a FIFO and a directory exits 1 at once with one line; on stdin from /dev/zero
# (no newline ever) it stops at the line bound (1 MiB) within 2 s and a small RSS; a kill -INT
# ends a read of a silent pipe and of a large file within a second. The exporter's
# --args-file and --web-config refuse /dev/zero and a FIFO; an args file that is not text is
# refused with its bytes escaped; --web-config past 1 MiB ends in one line; --btf refuses a FIFO.
# A terminal's Ctrl-C (a pty) does not cut `writer | flamegraph` short: the writer's last
# lines are in the graph.
. "$(dirname "$0")/lib.sh"
require root

mkfifo "$T/fifo"

# quick WHAT ARGS...: bpftools ARGS exits 1 within 2 s with one line on stderr
quick() {
	what=$1
	shift
	OUT=$T/out ERR=$T/err
	s=$(date +%s%N)
	RC=0
	timeout -s KILL 10 "$BPFTOOLS" "$@" >"$OUT" 2>"$ERR" </dev/null || RC=$?
	ms=$((($(date +%s%N) - s) / 1000000))
	[ "$RC" = 1 ] || fail "$what: exit $RC (expected 1)"
	[ $ms -lt "${QUICK_MS:-2000}" ] || fail "$what: took $ms ms"
	[ "$(wc -l <"$ERR")" = 1 ] || fail "$what: not one line on stderr"
	if LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" "$ERR"; then
		fail "$what: a raw control byte in the message"
	fi
}

quick "flamegraph /dev/zero" flamegraph /dev/zero
grep -q "not a regular file (a device)" "$ERR" || fail "flamegraph /dev/zero: $(cat "$ERR")"
quick "flamegraph FIFO" flamegraph "$T/fifo"
grep -q "not a regular file (a FIFO)" "$ERR" || fail "flamegraph FIFO: $(cat "$ERR")"
quick "flamegraph DIR" flamegraph "$T"
ok "flamegraph: a device, a FIFO, a directory refused unread, exit 1 at once"

# standard input without a newline: the line bound, a bounded RSS
s=$(date +%s%N)
RC=0
/usr/bin/env time -f "%M" -o "$T/rss" timeout -s KILL 10 "$BPFTOOLS" flamegraph </dev/zero \
	>/dev/null 2>"$T/err" || RC=$?
ms=$((($(date +%s%N) - s) / 1000000))
[ "$RC" = 1 ] || fail "flamegraph < /dev/zero: exit $RC ($(cat "$T/err"))"
grep -q "line 1 is longer than 1 MiB" "$T/err" || fail "flamegraph < /dev/zero: $(cat "$T/err")"
rss=$(tail -n 1 "$T/rss")
[ $ms -lt 2000 ] || fail "flamegraph < /dev/zero: took $ms ms"
[ "$rss" -lt 65536 ] || fail "flamegraph < /dev/zero: RSS $rss KiB"
ok "flamegraph < /dev/zero: exit 1 in $ms ms at $rss KiB RSS"

# reading PID [FILE]: wait (10 s at most) until PID reads its input, the tool started (a loaded
# machine may take longer than a fixed pause): blocked reading a pipe, or past FILE's start.
reading() {
	n=0
	while [ $n -lt 200 ] && kill -0 "$1" 2>/dev/null; do
		if [ -z "${2:-}" ]; then
			grep -q pipe_read /proc/"$1"/wchan 2>/dev/null && return
		else
			for fd in /proc/"$1"/fd/*; do
				[ "$(readlink "$fd")" = "$2" ] &&
					[ "$(awk '/^pos:/ { print $2 }' /proc/"$1"/fdinfo/"${fd##*/}" 2>/dev/null)" -gt 0 ] 2>/dev/null &&
					return
			done
		fi
		n=$((n + 1))
		sleep 0.05
	done
}

# kill -INT while reading: a pipe whose writer is silent, then a large file
sleep 30 >"$T/fifo" &
W=$!
"$BPFTOOLS" flamegraph <"$T/fifo" >"$T/o.svg" 2>"$T/err" &
P=$!
reading $P
s=$(date +%s%N)
kill -INT $P
RC=0
wait $P || RC=$?
ms=$((($(date +%s%N) - s) / 1000000))
kill $W 2>/dev/null
[ "$RC" = 0 ] || fail "flamegraph, SIGINT reading a pipe: exit $RC"
[ $ms -lt 1000 ] || fail "flamegraph, SIGINT reading a pipe: $ms ms"
grep -q "stopped while reading standard input" "$T/err" || fail "no 'stopped' line: $(cat "$T/err")"
ok "flamegraph: SIGINT ends a read of a silent pipe in $ms ms"

# (200 MB in $T: a small tmpfs as /tmp has not the room)
if [ "$(df -Pk "$T" | awk 'NR == 2 { print $4 }')" -lt 300000 ]; then
	echo "skipped: SIGINT while reading a 200 MB file (under 300 MB free in $T: $(df -Pk "$T" | awk 'NR == 2 { print $4 }') KiB)"
else
	yes 'a;b;c 1' | head -c 200000000 >"$T/big"
	"$BPFTOOLS" flamegraph "$T/big" >"$T/o.svg" 2>"$T/err" &
	P=$!
	reading $P "$T/big"
	s=$(date +%s%N)
	kill -INT $P
	RC=0
	wait $P || RC=$?
	ms=$((($(date +%s%N) - s) / 1000000))
	rm -f "$T/big"
	[ "$RC" = 0 ] || fail "flamegraph, SIGINT reading a file: exit $RC"
	[ $ms -lt 1000 ] || fail "flamegraph, SIGINT reading a 200 MB file: $ms ms"
	ok "flamegraph: SIGINT ends a read of a 200 MB file in $ms ms"
fi

# the exporter's files
quick "exporter --args-file /dev/zero" exporter --args-file /dev/zero
grep -q "not a regular file" "$ERR" || fail "exporter --args-file /dev/zero: $(cat "$ERR")"
quick "exporter --args-file FIFO" exporter --args-file "$T/fifo"
printf -- '--collect softirqs\n--listen \033]0;x\a\377\001\n' >"$T/args"
RC=0
timeout -s KILL 10 "$BPFTOOLS" exporter --args-file "$T/args" >/dev/null 2>"$T/err" || RC=$?
[ "$RC" = 2 ] || fail "exporter, an args file that is not text: exit $RC ($(cat "$T/err"))"
grep -qF 'is not text (line 2' "$T/err" || fail "exporter, binary args: $(cat "$T/err")"
grep -qF -- '--listen \x1b' "$T/err" || fail "exporter, binary args: not escaped: $(cat "$T/err")"
if LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177-\377]')" "$T/err"; then
	fail "exporter, binary args: a raw byte in the message"
fi
ok "exporter --args-file: /dev/zero and a FIFO refused unread; binary bytes refused, escaped"

quick "exporter --web-config /dev/zero" exporter --listen 127.0.0.1:0 --web-config /dev/zero
quick "exporter --web-config FIFO" exporter --listen 127.0.0.1:0 --web-config "$T/fifo"
yes '# a comment line' | head -c 2000000 >"$T/web.yml"
quick "exporter --web-config 2 MB" exporter --listen 127.0.0.1:0 --web-config "$T/web.yml"
grep -q "more than 1 MiB" "$ERR" || fail "exporter --web-config 2 MB: $(cat "$ERR")"
ok "exporter --web-config: /dev/zero and a FIFO refused unread, 2 MB stopped at 1 MiB"

# --btf FILE: libbpf would block for good in the open of a FIFO
QUICK_MS=5000 quick "vfsstat --btf FIFO" vfsstat --btf "$T/fifo" 1 1
grep -q "not a regular file" "$ERR" || fail "vfsstat --btf FIFO: $(cat "$ERR")"
ok "--btf: a FIFO refused unread"

# Ctrl-C at the terminal reaches the whole pipeline: flamegraph reads on to the end of what the
# writer prints as it stops (stackcount -f | bpftools flamegraph), and writes the graph
if command -v python3 >/dev/null; then
	python3 - "$BPFTOOLS" "$T/pty.svg" <<'PY' || fail "flamegraph behind a pipe: the Ctrl-C run failed"
import os, pty, select, sys, time
bt, svg = sys.argv[1], sys.argv[2]
writer = "trap 'echo \"a;final 7\"; exit 0' INT; echo 'a;early 1'; while :; do sleep 0.1; done"
pid, fd = pty.fork()
if pid == 0:
	os.execv("/bin/sh", ["sh", "-c", "sh -c \"$0\" | \"$1\" flamegraph >\"$2\"", writer, bt, svg])
time.sleep(1.5)
os.write(fd, b"\x03")
end = time.time() + 10
while time.time() < end:
	if select.select([fd], [], [], 0.2)[0]:
		try:
			if not os.read(fd, 4096):
				break
		except OSError:
			break
os.waitpid(pid, 0)
PY
	grep -q "final" "$T/pty.svg" || fail "flamegraph behind a pipe: the writer's last output is not in the graph"
	ok "flamegraph behind a pipe: a terminal's Ctrl-C reads on to the writer's last output"
fi
