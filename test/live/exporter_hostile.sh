#!/bin/sh
# The exporter against hostile clients and a hostile traced process, each held to the bound
# docs/exporter.md states: 64 clients from 8 addresses dripping header bytes are closed at the
# 5 s header deadline (not kept by their bytes) while scrapes from another address are
# answered within a second; a 401 takes as long for a name that is no user's as for a user's
# wrong password; wrong passwords from addresses rotated over 127.0.0.0/8 for 10 s get no
# more bcrypt than the budget (503 past it) while a scrape with the right password is
# answered within a second; a /debug/pprof profile whose hook blocks on a FIFO perf map ends
# at its deadline (503), the next profile is not refused 429, and SIGTERM with one waiting
# exits within a second.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints

for p in curl python3; do
	command -v $p >/dev/null || fail "no '$p' (scripts/deps --test installs it)"
done

PIDS=""
FIFOS=""
hostile_cleanup() {
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	for f in $FIFOS; do rm -f "$f"; done
	rm -rf "$T"
}
trap hostile_cleanup EXIT

# exporter ARGS...: one in the background ($EX, stderr in $ERR), its port in $PORT.
exporter() {
	OUT=$T/out ERR=$T/err
	PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$BPFTOOLS" exporter --listen "127.0.0.1:$PORT" "$@" >"$OUT" 2>"$ERR" &
	EX=$!
	PIDS="$PIDS $EX"
	i=0
	until grep -q 'serving' "$ERR"; do
		i=$((i + 1))
		[ $i -le 150 ] && kill -0 $EX 2>/dev/null || fail "bpftools exporter $* did not start in 15 s"
		sleep 0.1
	done
	URL=http://127.0.0.1:$PORT
}

# stop_within MS: SIGTERM, then exit 0 within MS milliseconds (SIGKILL after 10 s).
stop_within() {
	t0=$(date +%s%N)
	kill -TERM $EX
	(
		sleep 10
		kill -KILL $EX 2>/dev/null
	) &
	dog=$!
	RC=0
	wait $EX || RC=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	kill $dog 2>/dev/null
	[ "$RC" = 0 ] || fail "SIGTERM: exit $RC after $ms ms"
	[ $ms -le "$1" ] || fail "SIGTERM: exit after $ms ms (bound $1)"
}

# timed FROM URL [CURL ARGS...]: "STATUS MS CURL-EXIT" of one request from 127.0.0.FROM,
# ${MAXT:-2} s at most.
timed() {
	from=$1 url=$2
	shift 2
	curl -s --interface "127.0.0.$from" --max-time "${MAXT:-2}" -o "$T/body" \
		-w '%{http_code} %{time_total} %{exitcode}\n' "$@" "$url" |
		awk '{ printf "%s %d %s\n", $1, $2 * 1000, $3 }'
}

cpu_ticks() { awk '{ print $14 + $15 }' /proc/$EX/stat; }
HZ=$(getconf CLK_TCK)

# --- slow headers: 8 clients from each of 127.0.0.2..9, a byte a second each ---
exporter --collect softirqs
python3 - "$PORT" "$T/slow" <<'EOF' &
import socket, sys, time
port, out = int(sys.argv[1]), sys.argv[2]
socks = []
for a in range(2, 10):
    for i in range(8):
        s = socket.socket()
        s.bind(("127.0.0.%d" % a, 0))
        s.connect(("127.0.0.1", port))
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        s.setblocking(False)
        socks.append([s, time.monotonic(), None])
open(out + ".up", "w").write("%d\n" % len(socks))
end = time.monotonic() + 9
while time.monotonic() < end and any(c[2] is None for c in socks):
    for c in socks:
        if c[2] is not None:
            continue
        try:
            if c[0].recv(1) == b"":
                c[2] = time.monotonic()
                continue
        except BlockingIOError:
            pass
        except OSError:
            c[2] = time.monotonic()
            continue
        try:
            c[0].send(b"a")
        except OSError:
            c[2] = time.monotonic()
    time.sleep(1)
with open(out, "w") as f:
    for c in socks:
        f.write("%d\n" % ((c[2] - c[1]) * 1000 if c[2] is not None else -1))
EOF
SLOW=$!
PIDS="$PIDS $SLOW"
i=0
until [ -s "$T/slow.up" ] || [ $i -gt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(cat "$T/slow.up")" = 64 ] || fail "could not open the 64 slow connections"
for n in 1 2 3 4; do
	sleep 0.8
	set -- $(timed 10 "$URL/metrics")
	[ "$1" = 200 ] && [ "$2" -lt 1000 ] || fail "scrape $n while 64 clients drip headers: status $1 in $2 ms (bound: 200 within 1000 ms)"
done
wait $SLOW
# each scrape may have closed one to make room; every other was closed by the deadline
early=$(awk '$1 >= 0 && $1 < 4500' "$T/slow" | wc -l)
atdl=$(awk '$1 >= 4500 && $1 <= 6500' "$T/slow" | wc -l)
[ $early -le 4 ] && [ $((early + atdl)) = 64 ] ||
	fail "slow clients: $early closed early, $atdl at the 5 s deadline, of 64 (lifetimes: $(sort -n "$T/slow" | uniq -c | tr '\n' ' '))"
ok "64 clients dripping headers from 8 addresses: 4 scrapes from another answered within 1 s; $atdl closed at the 5 s header deadline, $early for room"
stop_within 1000

# --- basic auth: the time of a 401 does not tell names apart; bcrypt within its budget ---
# cost 10 (some 60 ms of bcrypt here), as htpasswd -B makes it by default
cat >"$T/web.yml" <<'EOF'
basic_auth_users:
  alice: $2y$10$CJG8Iiek3pRtHhTkoMXddeGmIYA1bYbK0qnJhfbT3NMFFDqW4Q38.
EOF
exporter --collect softirqs --web-config "$T/web.yml"
known=99999 unknown=99999
# the budget is 200 ms of bcrypt a second, 500 at once: a pair of checks is 120-160 ms of CPU
# (more beside the VM guests, which share the caches), so five pairs back to back can spend
# it and get 503 (one run beside the guests did). 0.7 s between pairs gives back 140 ms.
# (5 s each, not 2: what is measured is how alike the two are, and once in CI, while the VM
# tiers started, a first request had no answer within 2 s)
MAXT=5
for n in 1 2 3 4 5; do
	[ $n = 1 ] || sleep 0.7
	set -- $(timed 2 "$URL/metrics" -u alice:wrong)
	[ "$1" = 401 ] || fail "alice:wrong (request $n): $1 in $2 ms, curl exit $3, not 401"
	[ "$2" -lt $known ] && known=$2
	set -- $(timed 3 "$URL/metrics" -u eve:wonderland)
	[ "$1" = 401 ] || fail "eve (no such user, request $n): $1 in $2 ms, curl exit $3, not 401"
	[ "$2" -lt $unknown ] && unknown=$2
done
[ $known -ge 20 ] && [ $unknown -ge 20 ] && [ $((unknown * 3)) -ge $known ] && [ $((known * 3)) -ge $unknown ] ||
	fail "401 in $known ms for a known name, $unknown ms for an unknown one (fastest of 5): names can be told apart"
ok "401 in $known ms for a known name, $unknown ms for an unknown one (fastest of 5 each)"
MAXT=2

set -- $(timed 2 "$URL/metrics" -u alice:wonderland)
[ "$1" = 200 ] || fail "alice:wonderland: $1"
python3 - "$PORT" "$T/flood" <<'EOF' &
import socket, sys, threading, time
port, out = int(sys.argv[1]), sys.argv[2]
# eve:wonderland, then alice with wrong passwords: every one a bcrypt without the budget
creds = [b"ZXZlOndvbmRlcmxhbmQ=", b"YWxpY2U6d3Jvbmc="]
counts = {}
lock = threading.Lock()
end = time.monotonic() + 10
def flood(t):
    n = 0
    while time.monotonic() < end:
        n += 1
        src = "127.%d.%d.%d" % (1 + t * 30 + n // 65025 % 30, n // 255 % 255, 1 + n % 254)
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=3, source_address=(src, 0))
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Basic " + creds[n % 2] + b"\r\n\r\n")
            st = s.recv(64).split(b" ")[1].decode()
            s.close()
        except Exception as e:
            st = type(e).__name__
        with lock:
            counts[st] = counts.get(st, 0) + 1
threads = [threading.Thread(target=flood, args=(t,)) for t in range(8)]
for t in threads: t.start()
for t in threads: t.join()
open(out, "w").write(" ".join("%s=%d" % kv for kv in sorted(counts.items())) + "\n")
EOF
FLOOD=$!
PIDS="$PIDS $FLOOD"
c0=$(cpu_ticks)
for n in 1 2 3 4 5 6 7 8; do
	sleep 1
	set -- $(timed 2 "$URL/metrics" -u alice:wonderland)
	[ "$1" = 200 ] && [ "$2" -lt 1000 ] || fail "scrape $n with the right password during the flood: $1 in $2 ms (bound: 200 within 1000 ms)"
done
wait $FLOOD
ms=$((($(cpu_ticks) - c0) * 1000 / HZ))
checks=$(sed -n 's/.*401=\([0-9]*\).*/\1/p' "$T/flood")
grep -q '503=' "$T/flood" || fail "10 s of wrong passwords from rotating addresses: no 503 ($(cat "$T/flood"))"
# the budget: 200 ms of bcrypt a second and 500 ms at once, some 60 ms each: 2.5 s, 40 checks
[ "${checks:-0}" -le 60 ] || fail "10 s of wrong passwords from rotating addresses: $checks bcrypt checks answered 401 (budget: some 40) ($(cat "$T/flood"))"
# and its CPU: the budget's 2.5 s, + 0.5 ms for each request refused (a thread and a parse)
reqs=$(tr ' ' '\n' <"$T/flood" | awk -F= '{ n += $2 } END { print n + 0 }')
[ $ms -le $((3000 + reqs / 2)) ] || fail "10 s of wrong passwords from rotating addresses: $ms ms of the exporter's CPU for $reqs requests (bound $((3000 + reqs / 2)))"
ok "10 s of wrong passwords from rotating addresses: $(cat "$T/flood"), $ms ms of CPU; 8 scrapes with the right password within 1 s"
stop_within 1000

# --- a profile of processes whose perf map is a FIFO ---
# (before issue 33 symbolize/ blocked in open() on it; now the map is refused unopened, and
# the exporter's deadline would hold without that fix: 200, or 503 at the deadline)
exporter --collect softirqs
get_hook=$(curl -s --max-time 2 "$URL/")
if echo "$get_hook" | grep -q '/debug/pprof/profile: not in this build'; then
	skip "this build's profile has no pprof hook"
fi
# trap_proc COMMAND: a shell that made /tmp/perf-$$.map a FIFO, then runs COMMAND
trap_proc() {
	sh -c 'mkfifo /tmp/perf-$$.map && '"$1" &
	TRAP=$!
	PIDS="$PIDS $TRAP"
	FIFOS="$FIFOS /tmp/perf-$TRAP.map"
	i=0
	until [ -p /tmp/perf-$TRAP.map ] || [ $i -gt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ -p /tmp/perf-$TRAP.map ] || fail "no FIFO at /tmp/perf-$TRAP.map"
}
trap_proc 'while :; do :; done'
SPIN=$TRAP
trap_proc 'while :; do sleep 0.01; done'
NAP=$TRAP
hung=0
for path in profile offcpu; do
	t0=$(date +%s%N)
	st=$(curl -s --max-time 30 -o "$T/p.out" -w '%{http_code}' "$URL/debug/pprof/$path?seconds=1")
	ms=$((($(date +%s%N) - t0) / 1000000))
	# 1 s + the 20 s deadline past it, + 2 s of slack; 200 where nothing blocks it
	[ $ms -le 23000 ] || fail "/debug/pprof/$path?seconds=1 with a FIFO perf map: answered after $ms ms (bound 23000)"
	case $st in
	200) ;;
	503) grep -q 'did not end within 21 s' "$T/p.out" || fail "/debug/pprof/$path: 503 saying '$(cat "$T/p.out")'" ;;
	*) fail "/debug/pprof/$path?seconds=1 with a FIFO perf map: $st after $ms ms" ;;
	esac
	[ $st = 503 ] && hung=$((hung + 1))
	ok "/debug/pprof/$path?seconds=1 with a FIFO perf map: $st after $ms ms"
done
if [ $hung = 2 ]; then
	t0=$(date +%s%N)
	st=$(curl -s --max-time 5 -o "$T/p.out" -w '%{http_code}' "$URL/debug/pprof/profile?seconds=1")
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ $st = 503 ] && [ $ms -lt 2000 ] && grep -q '2 profiles are still running past their deadline' "$T/p.out" ||
		fail "a third profile while 2 are stuck: $st after $ms ms ('$(cat "$T/p.out")'), not 503 at once"
	ok "a third profile while 2 are stuck: 503 at once ($ms ms)"
fi
# the hang ends (a writer opens each FIFO, which is gone before it closes it: the reader
# reads nothing and finds no FIFO again): the threads left running end and free their places
kill $SPIN $NAP
wait $SPIN $NAP 2>/dev/null
for p in $SPIN $NAP; do
	exec 3<>/tmp/perf-$p.map
	rm -f /tmp/perf-$p.map
	exec 3>&-
done
# (the threads of a profile left running, and any it started, are named bt_http_call)
calls() { cat /proc/$EX/task/*/comm 2>/dev/null | grep -c '^bt_http_call$'; }
# (symbolize/ now refuses a FIFO perf map without opening it, so a 503 here is a machine-wide
# profile that was slow, not blocked: its thread may have ended already; the deadline of a call
# that truly blocks is unit/test_http's, on a real FIFO)
[ "$(calls)" -le $hung ] || fail "$(calls) profile threads run past $hung answered at their deadline"
i=0
while [ "$(calls)" != 0 ]; do
	i=$((i + 1))
	[ $i -le 300 ] || fail "the hang ended 30 s ago, and $(calls) profile threads still run"
	sleep 0.1
done
# not 429: the deadline ended the one-at-a-time state (200, unless a trap on this machine,
# not ours, blocks this one too: then 503 at the deadline)
t0=$(date +%s%N)
st=$(curl -s --max-time 30 -o "$T/p.pb.gz" -w '%{http_code}' "$URL/debug/pprof/profile?seconds=1")
ms=$((($(date +%s%N) - t0) / 1000000))
case $st in
200) gzip -t "$T/p.pb.gz" || fail "a profile after those: 200, but not gzip" ;;
503) grep -q 'did not end within 21 s' "$T/p.pb.gz" && [ $ms -le 23000 ] ||
	fail "a profile after those: 503 after $ms ms saying '$(cat "$T/p.pb.gz")'" ;;
*) fail "a profile after those (no FIFO of ours left): $st" ;;
esac
ok "a profile after them: $st after $ms ms, not 429"
trap_proc 'while :; do :; done'
curl -s --max-time 30 -o /dev/null "$URL/debug/pprof/profile?seconds=5" &
CURL=$!
sleep 2
stop_within 1000
wait $CURL 2>/dev/null
ok "SIGTERM while a profile waits on a FIFO perf map: exit 0 after $ms ms"
