#!/bin/sh
# exporter on this kernel: promtool accepts /metrics (every default collector, both formats
# asked for, and the textfile); a real Prometheus scraping every second sees exactly the N
# direct reads we make of a loop device of our own in biolatency's _count and biosnoop's
# counters, and node_exporter's textfile collector serves the same count; bad requests (a 1
# MiB header, POST, "..", 1,000 idle connections, a client that stops reading, a burst) leave
# it answering another client within a second; TLS and basic auth from a web-config file;
# --max-series drops and counts; SIGHUP re-reads --args-file; SIGTERM exits 0 and leaves none
# of its programs loaded; the static binary says it has no server and still writes textfiles.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/block.inc"
. "$(dirname "$0")/prom.inc"
require root btf tracepoints

for p in curl jq python3 promtool prometheus prometheus-node-exporter openssl losetup; do
	command -v $p >/dev/null || fail "no '$p' (scripts/deps --test installs it)"
done

PIDS=""
ex_cleanup() {
	for p in $PIDS; do kill -TERM "$p" 2>/dev/null; done
	for p in $PIDS; do wait "$p" 2>/dev/null; done
	blk_cleanup
}
trap ex_cleanup EXIT

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# exporter ARGS...: start one in the background ($FPID, stderr in $ERR) and wait for its
# "serving" line; its port in $PORT.
# (block.inc's start_tool waits for stdout, which the exporter does not write)
exporter() {
	OUT=$T/out ERR=$T/err
	: >"$ERR"
	"$BPFTOOLS" exporter "$@" >"$OUT" 2>"$ERR" &
	FPID=$!
	PIDS="$PIDS $FPID"
	i=0
	until grep -q 'serving\|writing' "$ERR"; do
		i=$((i + 1))
		if [ $i -gt 150 ] || ! kill -0 $FPID 2>/dev/null; then
			kill -TERM $FPID 2>/dev/null
			fail "bpftools exporter $* did not start in 15 s"
		fi
		sleep 0.1
	done
	PORT=$(sed -n 's/.*serving .* at https*:\/\/.*:\([0-9]*\)\/metrics$/\1/p' "$ERR" | tail -1)
}

stop_exporter() {
	kill -TERM $FPID
	RC=0
	wait $FPID || RC=$?
	[ "$RC" = 0 ] || fail "exporter: SIGTERM: exit $RC"
}

# get URL [CURL ARGS...]: the body in $T/body, the status in $STATUS (000: no answer within
# a second), from 127.0.0.2: another client than the ones the bad requests come from.
get() {
	url=$1
	shift
	STATUS=$(curl -s --interface 127.0.0.2 --max-time 1 -o "$T/body" -w '%{http_code}' "$@" "$url") || true
}

# metric NAME{LABELS} [FILE]: its value in the exposition in FILE (default $T/body), or empty.
metric() {
	awk -v m="$1" '$1 == m { print $2 }' "${2:-$T/body}"
}

# promtool_ok FILE WHAT: promtool check metrics accepts FILE, and has nothing to say.
promtool_ok() {
	promtool check metrics <"$1" >"$T/promtool.out" 2>&1 ||
		{ cat "$T/promtool.out" >&2; fail "promtool check metrics: $2"; }
	[ ! -s "$T/promtool.out" ] || { cat "$T/promtool.out" >&2; fail "promtool check metrics complains: $2"; }
}

blk_loop || fail "cannot make a loop device"
command -v udevadm >/dev/null && udevadm settle 2>/dev/null

mkdir "$T/tf"
exporter --listen 127.0.0.1:0 --textfile "$T/tf" --interval 1
EX=$FPID
EXPORT=$PORT
[ -n "$PORT" ] || fail "no port in the serving line"
URL=http://127.0.0.1:$EXPORT

# --- formats ---
get "$URL/metrics"
[ "$STATUS" = 200 ] || fail "/metrics: status $STATUS"
promtool_ok "$T/body" "/metrics"
for f in bpftools_bio_latency_seconds_count bpftools_bio_requests_total bpftools_bio_bytes_total \
	bpftools_softirq_seconds_total bpftools_softirqs_total bpftools_hardirqs_total \
	bpftools_hardirq_seconds_total bpftools_exporter_build_info; do
	grep -q "^$f[{ ]" "$T/body" || fail "/metrics has no $f"
done
for c in biolatency biosnoop hardirqs softirqs; do
	[ "$(metric "bpftools_exporter_collector_success{collector=\"$c\"}")" = 1 ] || fail "collector $c not read"
done
ok "/metrics: promtool accepts every collector's families"
# A scrape with every default collector costs under 10 ms of the exporter's CPU (50 of them,
# each from an address of its own, under the per-client rate bound).
cpu() { awk '{ print $14 + $15 }' /proc/$EX/stat; }
c0=$(cpu)
for i in $(seq 10 59); do
	curl -s --interface 127.0.0.$i --max-time 2 -o /dev/null "$URL/metrics" || fail "scrape $i"
done
ticks=$(($(cpu) - c0))
hz=$(getconf CLK_TCK)
[ $((ticks * 1000 / hz)) -lt 500 ] || fail "50 scrapes took $((ticks * 1000 / hz)) ms of CPU: over 10 ms each"
ok "50 scrapes: $((ticks * 1000 / hz)) ms of CPU"
# and what a scrape allocates, it frees: six more rounds of 50 scrapes, the anonymous RSS after
# each. The exporter's memory moves by a page table or a process's state as other processes
# come and go (+-120 KiB at a time here), so the lowest of the last two rounds is held to the
# highest of the first two: a scrape that leaked 2 KiB was 312 KiB over it (256 allowed).
rss() { awk '/^RssAnon:/ { print $2 }' /proc/$EX/status; }
rounds=""
for r in 1 2 3 4 5 6; do
	for i in $(seq 10 59); do
		curl -s --interface 127.0.$r.$i --max-time 2 -o /dev/null "$URL/metrics" || fail "scrape $r.$i"
	done
	rounds="$rounds $(rss)"
done
set -- $rounds
first=$(($1 > $2 ? $1 : $2))
last=$(($5 < $6 ? $5 : $6))
[ $((last - first)) -le 256 ] || fail "300 scrapes: anonymous RSS by 50 scrapes:$rounds KiB"
ok "300 more scrapes: anonymous RSS by 50 scrapes:$rounds KiB"
curl -s -D "$T/head" -H 'Accept: application/openmetrics-text; version=1.0.0' -o "$T/om" "$URL/metrics"
grep -qi '^content-type: application/openmetrics-text; version=1.0.0' "$T/head" || fail "OpenMetrics not served when asked for"
[ "$(tail -1 "$T/om")" = "# EOF" ] || fail "OpenMetrics without its # EOF"
ok "OpenMetrics when the Accept header asks for it"
# Its own process_* metrics, as every client library exports them: CPU since it started, its
# RSS as /proc says, its descriptors, its start time (within the run, since the epoch).
get "$URL/metrics"
for m in process_cpu_seconds_total process_resident_memory_bytes process_virtual_memory_bytes \
	process_open_fds process_max_fds process_start_time_seconds; do
	grep -q "^# TYPE $m " "$T/body" || fail "/metrics has no $m"
done
rss_kib=$(awk '/^VmRSS:/ { print $2 }' /proc/$EX/status)
python3 - "$T/body" "$rss_kib" "$(ls /proc/$EX/fd | wc -l)" "$(date +%s)" <<'PY' || fail "process_* metrics"
import sys
v = {l.split()[0]: float(l.split()[1]) for l in open(sys.argv[1]) if l.startswith("process_")}
rss, fds, now = int(sys.argv[2]) * 1024, int(sys.argv[3]), int(sys.argv[4])
assert abs(v["process_resident_memory_bytes"] - rss) < 4 << 20, (v, rss)
assert v["process_virtual_memory_bytes"] >= v["process_resident_memory_bytes"], v
assert abs(v["process_open_fds"] - fds) <= 8 and v["process_max_fds"] >= fds, (v, fds)
assert 0 < v["process_cpu_seconds_total"] < 600, v
assert now - 600 < v["process_start_time_seconds"] <= now, (v, now)
PY
ok "process_* metrics: RSS, descriptors, CPU and start time as /proc has them"
get "$URL/"
[ "$STATUS" = 200 ] && grep -q 'href="/metrics"' "$T/body" || fail "/: no index page ($STATUS)"
grep -q '<p>Version [0-9]' "$T/body" || fail "/: no version"
for c in biolatency biosnoop hardirqs softirqs; do
	grep -Eq "<tr><td>$c</td><td class=\"(ok|muted)\">" "$T/body" || fail "/: collector $c and its state not listed"
done
grep -q '<form method="get" action="/debug/pprof/profile">' "$T/body" || fail "/: the on-CPU profile is not a form"
grep -q 'href="/debug/pprof' "$T/body" && fail "/: a link that starts a profile on a click"
ok "/: version, collectors with their state, profiles as forms with seconds"
RC=0
"$BPFTOOLS" exporter --collect biolatency,nosuch >/dev/null 2>"$T/collect.err" || RC=$?
[ "$RC" = 2 ] && grep -q -e "--collect: no collector 'nosuch'; the collectors: .*biolatency.*softirqs" "$T/collect.err" ||
	fail "--collect nosuch: exit $RC, $(cat "$T/collect.err")"
ok "--collect nosuch: a usage error naming the collectors"
i=0
until [ -s "$T/tf/bpftools.prom" ] || [ $i -gt 30 ]; do sleep 0.1; i=$((i + 1)); done
promtool_ok "$T/tf/bpftools.prom" "the textfile"
# a write in progress has a temporary file of its own (written whole, then renamed): one left
# behind is still there a write later, under the same name
ls -A "$T/tf" | grep -v '^bpftools.prom$' >"$T/tf.extra0" || true
sleep 1.5
ls -A "$T/tf" | grep -v '^bpftools.prom$' | grep -Fxf "$T/tf.extra0" >"$T/tf.extra1" || true
[ -s "$T/tf.extra1" ] && fail "the textfile dir holds more than bpftools.prom: $(ls -A "$T/tf")"
ok "the textfile: promtool accepts it"

# --- Prometheus and node_exporter ---
start_prometheus "127.0.0.1:$EXPORT" "$(free_port)"
PIDS="$PIDS $PROM_PID"
NP=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$NP" --collector.disable-defaults \
	--collector.textfile --collector.textfile.directory="$T/tf" >"$T/node.log" 2>&1 &
PIDS="$PIDS $!"


LAT="bpftools_bio_latency_seconds_count{disk=\"$LOOP_NAME\",op=\"read\"}"
REQ="bpftools_bio_requests_total{disk=\"$LOOP_NAME\",op=\"read\"}"
BYT="bpftools_bio_bytes_total{disk=\"$LOOP_NAME\",op=\"read\"}"
# one read first: the series exists before the count starts
dd if="$LOOP_DEV" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null || fail "cannot read $LOOP_DEV"
get "$URL/metrics"
L0=$(metric "$LAT")
R0=$(metric "$REQ")
B0=$(metric "$BYT")
[ -n "$L0" ] && [ -n "$R0" ] && [ -n "$B0" ] || fail "no series for $LOOP_NAME after a read of it"
until_prom "$LAT" "$L0" || fail "Prometheus: $LAT is '$V', the exporter says $L0 ($(tail -3 "$T/prom.log"))"
N=37
# while the reads run, 4 rounds of 12 scrapers at once: each gets a whole exposition, and
# together they add nothing (the exact counts below)
(
	for r in 1 2 3 4; do
		for i in $(seq 12); do
			curl -s --interface "127.0.2$r.$i" --max-time 5 -o "$T/par.$r.$i" "$URL/metrics" &
		done
		wait
	done
) &
par=$!
dd if="$LOOP_DEV" of=/dev/null bs=4k count=$N iflag=direct 2>/dev/null || fail "dd"
wait $par
for f in "$T"/par.*; do
	promtool_ok "$f" "one of 12 scrapes at once"
done
until_prom "$LAT" $((L0 + N)) || fail "Prometheus: $LAT went $L0 -> '$V' after $N reads"
until_prom "$REQ" $((R0 + N)) || fail "Prometheus: $REQ went $R0 -> '$V' after $N reads"
until_prom "$BYT" $((B0 + N * 4096)) || fail "Prometheus: $BYT went $B0 -> '$V' after $N 4 KiB reads"
sleep 1.5 # no more than our reads: two more scrapes say the same
[ "$(prom "$LAT")" = $((L0 + N)) ] || fail "Prometheus: $LAT moved on after our $N reads"
ok "Prometheus: $N direct reads of $LOOP_NAME in biolatency's _count and biosnoop's counters, 48 scrapes at once besides"
i=0
while curl -s --max-time 1 -o "$T/node" "http://127.0.0.1:$NP/metrics"; V=$(metric "$LAT" "$T/node"); [ "$V" != $((L0 + N)) ]; do
	i=$((i + 1))
	[ $i -le 50 ] || fail "node_exporter's textfile collector: $LAT is '$V', not $((L0 + N)) ($(tail -3 "$T/node.log"))"
	sleep 0.2
done
ok "node_exporter serves the textfile's $LAT = $V"
# A disk made after the exporter started: its series are there at 0 before its first I/O, so
# Prometheus sees the first burst as an increase (a series born holding the burst shows none).
L1_NAME=$LOOP_NAME L1_DEV=$LOOP_DEV
blk_loop || fail "cannot make a second loop device"
LAT2="bpftools_bio_latency_seconds_count{disk=\"$LOOP_NAME\",op=\"read\"}"
REQ2="bpftools_bio_requests_total{disk=\"$LOOP_NAME\",op=\"read\"}"
until_prom "$LAT2" 0 || fail "Prometheus: $LAT2 is '$V' before any I/O to $LOOP_NAME, not 0"
until_prom "$REQ2" 0 || fail "Prometheus: $REQ2 is '$V' before any I/O to $LOOP_NAME, not 0"
M=25
dd if="$LOOP_DEV" of=/dev/null bs=4k count=$M iflag=direct 2>/dev/null || fail "dd $LOOP_DEV"
until_prom "$LAT2" $M || fail "Prometheus: $LAT2 went 0 -> '$V' after $M reads"
until_prom "$REQ2" $M || fail "Prometheus: $REQ2 went 0 -> '$V' after $M reads"
for s in "$LAT2" "$REQ2"; do
	V=$(prom "increase(${s}[1m])")
	python3 -c "import sys; sys.exit(not (float('${V:-0}') >= $M / 2))" ||
		fail "Prometheus: increase($s[1m]) is '$V' after $M reads of a new disk"
done
ok "a disk made after the start: $LAT2 and $REQ2 at 0 before its I/O, increase() $V after $M reads"
LOOP_NAME=$L1_NAME LOOP_DEV=$L1_DEV
# The dashboard's queries, its variables filled in, are ones Prometheus takes and answers.
python3 - "$BT_SRC/docs/exporter-dashboard.json" "$PP" <<'EOF' || fail "docs/exporter-dashboard.json"
import json, sys, urllib.parse, urllib.request
dash = json.load(open(sys.argv[1]))
assert any(p["type"] == "heatmap" for p in dash["panels"]), "no heatmap panel"
n = 0
for p in dash["panels"]:
    for t in p["targets"]:
        q = t["expr"].replace("$disk", ".*").replace("$op", ".*").replace("$__rate_interval", "1m")
        url = "http://127.0.0.1:%s/api/v1/query?%s" % (sys.argv[2], urllib.parse.urlencode({"query": q}))
        try:
            r = json.load(urllib.request.urlopen(url, timeout=5))
        except Exception as e:
            sys.exit("%s: %s: %s" % (p["title"], q, e))
        if r.get("status") != "success" or not r["data"]["result"]:
            sys.exit("%s: %s: %s" % (p["title"], q, r))
        n += 1
print("ok: the dashboard's %d queries run and answer" % n)
EOF

# --- bad requests: each leaves the exporter answering another client within a second ---
# served WHAT: /metrics answers 127.0.0.2 within a second
served() {
	get "$URL/metrics"
	[ "$STATUS" = 200 ] || fail "after $1: another client got '$STATUS' (1 s limit)"
}
python3 - "$EXPORT" >"$T/big" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), source_address=("127.0.0.3", 0))
s.settimeout(5)
try:
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n")
except OSError:
    pass
try:
    print(s.recv(64).decode(errors="replace").split("\r\n")[0])
except OSError:
    print("closed")
EOF
grep -q ' 200 ' "$T/big" && fail "a 1 MiB header was answered 200"
served "a 1 MiB header ($(cat "$T/big"))"
STATUS=$(curl -s --interface 127.0.0.3 --max-time 1 -o /dev/null -w '%{http_code}' -X POST -d x "$URL/metrics")
[ "$STATUS" = 405 ] || fail "POST: $STATUS, not 405"
served POST
for path in /../metrics /metrics/.. /metrics/../metrics /%2e%2e/metrics /nothing; do
	STATUS=$(curl -s --path-as-is --interface 127.0.0.3 --max-time 1 -o /dev/null -w '%{http_code}' "$URL$path")
	[ "$STATUS" = 404 ] || fail "GET $path: $STATUS, not 404"
done
served "'..' paths"
ok "1 MiB header refused, POST 405, '..' and unknown paths 404"

python3 - "$EXPORT" "$T/idle" <<'EOF' &
import os, resource, socket, sys, time
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
socks = []
for i in range(1000):
    s = socket.socket()
    s.bind(("127.0.0.4", 0))
    s.setblocking(False)
    try:
        s.connect(("127.0.0.1", int(sys.argv[1])))
    except BlockingIOError:
        pass
    socks.append(s)
open(sys.argv[2], "w").write("%d\n" % len(socks))
time.sleep(30)
EOF
IDLE=$!
PIDS="$PIDS $IDLE"
i=0
until [ -s "$T/idle" ] || [ $i -gt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(cat "$T/idle")" = 1000 ] || fail "could not open 1000 connections"
# none of their SYNs dropped (the accept queue holds them all): a dropped SYN is retried
# after 1 s, and while those retries came in, another client's SYN was dropped as well
sleep 0.5
n=$(ss -Htn state syn-sent src 127.0.0.4 | wc -l)
[ "$n" = 0 ] || fail "1000 connections at once: $n still unanswered after 0.5 s (accept queue full)"
served "1000 idle connections"
python3 - "$EXPORT" "$T/stall" <<'EOF' &
import socket, sys, time
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.bind(("127.0.0.5", 0))
s.connect(("127.0.0.1", int(sys.argv[1])))
s.setblocking(False)
sent = 0
for i in range(300):
    try:
        sent += s.send(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    except BlockingIOError:
        break
open(sys.argv[2], "w").write("%d\n" % sent)
time.sleep(30)  # and never read
EOF
STALL=$!
PIDS="$PIDS $STALL"
i=0
until [ -s "$T/stall" ] || [ $i -gt 100 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
served "a client that stopped reading"
# (from one process: 40 curls take 10 s on a loaded machine, and the bucket refills meanwhile)
n429=$(python3 - "$EXPORT" <<'EOF'
import socket, sys
n = 0
for i in range(40):
    try:
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1, source_address=("127.0.0.6", 0))
    except OSError as e:
        print("connect %d: %s" % (i, e))
        sys.exit()
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    try:
        n += s.recv(64).startswith(b"HTTP/1.1 429")
    except OSError:
        pass
    s.close()
print(n)
EOF
)
case $n429 in
'' | *[!0-9]*) fail "40 requests at once from one client: $n429" ;;
0) fail "40 requests at once from one client: none refused (429)" ;;
esac
served "a burst of 40 requests"
ok "1000 idle connections, a stalled reader, a burst ($n429 of 40 got 429): another client served within 1 s"

# --- SIGTERM while those are still connected: exit 0, its programs gone ---
# its programs, by the ids in its descriptors' fdinfo
PROGS=$(cat /proc/$EX/fdinfo/* 2>/dev/null | sed -n 's/^prog_id:[[:space:]]*//p' | sort -u)
[ -n "$PROGS" ] || fail "the exporter (pid $EX) holds no BPF program"
t0=$(date +%s)
kill -TERM "$EX"
RC=0
wait "$EX" || RC=$?
[ "$RC" = 0 ] || fail "SIGTERM: exit $RC"
[ $(($(date +%s) - t0)) -le 5 ] || fail "SIGTERM: took over 5 s"
# (the kernel frees a program after a grace period: up to 3 s)
i=0
while left=""; for id in $PROGS; do
	bpftool prog show id "$id" >/dev/null 2>&1 && left="$left $id"
done; [ -n "$left" ] && [ $i -lt 30 ]; do
	i=$((i + 1))
	sleep 0.1
done
[ -z "$left" ] || fail "SIGTERM: programs still loaded: $left"
kill $IDLE $STALL 2>/dev/null
ok "SIGTERM: exit 0 with $(echo $PROGS | wc -w) programs removed"

# --- --max-series: 10 vectors in each of 2 families, 1 kept of each ---
exporter --listen 127.0.0.1:0 --collect softirqs --max-series 1
get "http://127.0.0.1:$PORT/metrics"
[ "$(metric bpftools_exporter_series_dropped)" = 18 ] || fail "--max-series 1: $(metric bpftools_exporter_series_dropped) dropped, expected 18"
[ "$(grep -c '^bpftools_softirqs_total{' "$T/body")" = 1 ] || fail "--max-series 1: not one series"
stop_exporter
ok "--max-series 1: 18 label sets dropped and counted"

# --- IPv6 ---
if [ -e /proc/net/if_inet6 ] && python3 -c 'import socket; socket.create_server(("::1", 0), family=socket.AF_INET6)' 2>/dev/null; then
	exporter --listen '[::1]:0' --collect softirqs
	STATUS=$(curl -s -g --max-time 1 -o "$T/body" -w '%{http_code}' "http://[::1]:$PORT/metrics")
	[ "$STATUS" = 200 ] && grep -q '^bpftools_softirqs_total' "$T/body" || fail "--listen [::1]:0: $STATUS"
	STATUS=$(curl -s --max-time 1 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/metrics")
	[ "$STATUS" = 000 ] || fail "--listen [::1]:0 answered on 127.0.0.1 ($STATUS)"
	stop_exporter
	ok "--listen [::1]:0 serves IPv6 loopback only"
fi

# --- pprof: seconds 1..60 (else 400); a profile at a time (429); gzipped pprof naming the
# workload's functions ---
exporter --listen 127.0.0.1:0 --collect softirqs
U=http://127.0.0.1:$PORT/debug/pprof
for path in profile offcpu; do
	for q in seconds=0 seconds=61 seconds=x seconds=-1 seconds=; do
		get "$U/$path?$q"
		[ "$STATUS" = 400 ] || fail "/debug/pprof/$path?$q: $STATUS, not 400"
	done
done
get "http://127.0.0.1:$PORT/"
if grep -q '/debug/pprof/profile: not in this build' "$T/body"; then
	get "$U/profile?seconds=1"
	[ "$STATUS" = 501 ] || fail "/debug/pprof/profile without a hook: $STATUS, not 501"
	ok "pprof: seconds out of 1..60 is 400; this build's profile has no pprof hook (501)"
elif command -v gcc >/dev/null; then
	cat >"$T/spin.c" <<'EOF'
#include <time.h>
#include <unistd.h>
__attribute__((noinline)) static void bt_exporter_spin(void)
{
	for (volatile unsigned long i = 0; i < 100000000UL; i++)
		;
}
__attribute__((noinline)) static void bt_exporter_nap(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	nanosleep(&ts, NULL);
}
int main(int argc, char **argv)
{
	time_t end = time(NULL) + 60; /* killed when the profile is in: it may start late */
	while (time(NULL) < end) {
		if (argc > 1)
			bt_exporter_nap();
		else
			bt_exporter_spin();
	}
	return 0;
}
EOF
	gcc -O1 -g -fno-omit-frame-pointer -o "$T/spin" "$T/spin.c" || fail "cannot build the workload"
	for path in profile offcpu; do
		fn=bt_exporter_spin
		[ $path = offcpu ] && fn=bt_exporter_nap
		if [ $path = offcpu ]; then "$T/spin" nap & else "$T/spin" & fi
		wl=$!
		# The on-CPU one beside two busy loops a CPU at nice 0: the indexing of the running
		# processes that a profile waits for must not run below them (at nice 19 it was
		# starved, and the profile answered 503 after 23 s)
		if [ $path = profile ]; then
			for _ in $(seq $(($(nproc) * 2))); do
				sh -c 'while :; do :; done' &
				HOGS="$HOGS $!"
			done
			PIDS="$PIDS $HOGS"
		fi
		curl -s --max-time 30 -o "$T/p.pb.gz" -w '%{http_code}' "$U/$path?seconds=3" >"$T/p.status" &
		cp=$!
		sleep 1
		get "$U/profile?seconds=1"
		[ "$STATUS" = 429 ] || fail "a second profile while /debug/pprof/$path runs: $STATUS, not 429"
		wait $cp
		kill $wl $HOGS 2>/dev/null
		wait $wl 2>/dev/null
		HOGS=""
		[ "$(cat "$T/p.status")" = 200 ] || fail "/debug/pprof/$path?seconds=3: $(cat "$T/p.status")"
		gzip -t "$T/p.pb.gz" || fail "/debug/pprof/$path: not gzip"
		gzip -dc "$T/p.pb.gz" | grep -aq "$fn" || fail "/debug/pprof/$path: no $fn in the profile"
	done
	! grep 'not all indexed' "$ERR" || fail "pprof: the indexing was starved by the busy loops"
	ok "pprof: 400 outside 1..60, 429 for a second profile, gzipped pprof naming the workload's functions, on a machine busy at nice 0"
fi
stop_exporter

# --- the systemd unit's capabilities are enough: CAP_BPF and CAP_PERFMON only ---
if command -v setpriv >/dev/null; then
	DYN=$BPFTOOLS
	printf '#!/bin/sh\nexec setpriv --bounding-set -all,+bpf,+perfmon --inh-caps -all "%s" "$@"\n' "$DYN" >"$T/capped"
	chmod +x "$T/capped"
	BPFTOOLS=$T/capped
	exporter --listen 127.0.0.1:0
	BPFTOOLS=$DYN
	grep -q 'CapBnd:[[:space:]]*000000c000000000$' /proc/$FPID/status ||
		fail "capped exporter: $(grep CapBnd /proc/$FPID/status)"
	get "http://127.0.0.1:$PORT/metrics"
	for c in biolatency biosnoop hardirqs softirqs; do
		[ "$(metric "bpftools_exporter_collector_success{collector=\"$c\"}")" = 1 ] ||
			fail "with CAP_BPF and CAP_PERFMON only: no $c collector"
	done
	stop_exporter
	ok "CAP_BPF and CAP_PERFMON are enough for every default collector"
fi

# --- TLS and basic auth ---
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
	-subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 \
	-keyout "$T/key.pem" -out "$T/cert.pem" 2>/dev/null || fail "openssl req"
# htpasswd -nbB -C 5 alice wonderland
cat >"$T/web.yml" <<'EOF'
tls_server_config:
  cert_file: cert.pem
  key_file: key.pem
basic_auth_users:
  alice: $2y$05$j7Jy5YWf3rtK69K7zu.ndupr9Ph/joL/QWdEEvhnz.CqgJzz97XM.
EOF
exporter --listen 127.0.0.1:0 --collect softirqs --web-config "$T/web.yml"
S=https://127.0.0.1:$PORT/metrics
get "$S" --cacert "$T/cert.pem" -u alice:wonderland
[ "$STATUS" = 200 ] && grep -q '^bpftools_softirqs_total' "$T/body" || fail "TLS + auth: $STATUS"
get "$S" --cacert "$T/cert.pem"
[ "$STATUS" = 401 ] || fail "TLS without a password: $STATUS, not 401"
get "$S" --cacert "$T/cert.pem" -u alice:wrong
[ "$STATUS" = 401 ] || fail "TLS, a wrong password: $STATUS, not 401"
get "http://127.0.0.1:$PORT/metrics" -u alice:wonderland
[ "$STATUS" = 200 ] && fail "plain HTTP answered on the TLS port"
stop_exporter
printf 'tls_server_config:\n  cert_file: cert.pem\n  client_ca_file: ca.pem\n' >"$T/bad.yml"
run exporter --listen 127.0.0.1:0 --web-config "$T/bad.yml"
expect_rc 2 "exporter --web-config (client_ca_file)"
[ "$(wc -l <"$ERR")" = 1 ] && grep -q "^exporter: $T/bad.yml:3: tls_server_config: 'client_ca_file' is not supported" "$ERR" ||
	fail "bad web config: not one line naming file:line: $(cat "$ERR")"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
	-subj /CN=other -keyout "$T/key2.pem" -out "$T/cert2.pem" 2>/dev/null || fail "openssl req"
printf 'tls_server_config:\n  cert_file: cert.pem\n  key_file: key2.pem\n' >"$T/mismatch.yml"
run exporter --listen 127.0.0.1:0 --collect softirqs --web-config "$T/mismatch.yml"
expect_rc 1 "exporter --web-config (another certificate's key)"
[ "$(wc -l <"$ERR")" = 1 ] && grep -q 'a PEM certificate and its key?$' "$ERR" ||
	fail "a key not the certificate's: $(cat "$ERR")"
ok "TLS with basic auth (bcrypt from htpasswd); a bad web config is one line naming file:line; so is a key not the certificate's"

# --- SIGHUP re-reads --args-file ---
printf '# collectors\n--collect softirqs\n--listen 127.0.0.1:0\n' >"$T/args"
exporter --args-file "$T/args"
P1=$PORT
get "http://127.0.0.1:$P1/metrics"
HS='bpftools_exporter_collector_success{collector="hardirqs"}'
[ -z "$(metric "$HS")" ] || fail "--args-file: hardirqs served, not asked for"
printf -- '--collect softirqs,hardirqs --listen 127.0.0.1:0\n' >"$T/args"
kill -HUP $FPID
i=0
until grep -q 'reloaded' "$ERR" || [ $i -gt 100 ]; do sleep 0.1; i=$((i + 1)); done
PORT=$(sed -n 's/.*serving .* at https*:\/\/[0-9.]*:\([0-9]*\)\/metrics$/\1/p' "$ERR" | tail -1)
get "http://127.0.0.1:$PORT/metrics"
[ "$(metric "$HS")" = 1 ] || fail "SIGHUP: hardirqs not served after the reload ($(cat "$ERR"))"
printf -- '--collect nosuch\n' >"$T/args"
kill -HUP $FPID
i=0
until grep -q 'not reloaded' "$ERR" || [ $i -gt 100 ]; do sleep 0.1; i=$((i + 1)); done
get "http://127.0.0.1:$PORT/metrics"
[ "$STATUS" = 200 ] || fail "a bad args file on SIGHUP: no longer serving"
stop_exporter
[ "$RC" = 0 ] || fail "--args-file run: SIGTERM exit $RC"
ok "SIGHUP: --args-file re-read; a bad one leaves the running set"

# --- the static binary: no server, said in one line; the textfile still works ---
ST=${BT_BUILD:-$(dirname "$BPFTOOLS")}/static/bpftools
if [ -x "$ST" ]; then
	RC=0
	"$ST" exporter --listen 127.0.0.1:0 --collect softirqs >"$T/out" 2>"$T/err" || RC=$?
	[ "$RC" = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q 'no HTTP server' "$T/err" ||
		fail "static: exit $RC, '$(cat "$T/err")'"
	mkdir "$T/tf2"
	DYN=$BPFTOOLS
	BPFTOOLS=$ST
	exporter --textfile "$T/tf2" --collect softirqs
	BPFTOOLS=$DYN
	promtool_ok "$T/tf2/bpftools.prom" "the static binary's textfile"
	stop_exporter
	ok "static: no HTTP server (one line, exit 1); --textfile works"
fi
