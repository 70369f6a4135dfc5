#!/bin/sh
# The exporter's histograms through a real Prometheus: a known latency mix of two user
# functions in one --funclatency spec (60 sleeps of 1.3 ms, 40 of 10 ms) gives
# histogram_quantile(q, sum by (le) (increase(...))) in the log2 bucket that holds the true
# quantile, as the workload timed its own calls (0.5: the 1.3 ms calls' bucket, 0.9: the 10 ms
# calls', unless the machine stretched the sleeps that far); and in a real scrape, every series
# of each histogram family has the same bounds, cumulative counts that never go down and a
# +Inf bucket equal to its _count, so their sums by le never go down either.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/prom.inc"
require root btf tracepoints uprobes

for p in curl jq python3 prometheus; do
	command -v $p >/dev/null || fail "no '$p' (scripts/deps --test installs it)"
done
QW=$BT_WORKLOADS/quantile_work
[ -x "$QW" ] || fail "workload $QW not built"
# Sleeps well inside their log2 buckets (2^20 to 2^21 ns, 2^23 to 2^24 ns), so a late one
# (by up to 0.7 ms and 6.7 ms) stays in its bucket.
FAST=60 FAST_US=1300 SLOW=40 SLOW_US=10000
SPEC="$QW:qw_*"

PIDS=""
trap 'for p in $PIDS; do kill -TERM $p 2>/dev/null; done; wait; rm -rf "$T"' EXIT
# Two free ports, the exporter's and Prometheus' (python3 is slow to start on a busy machine)
set -- $(python3 -c 'import socket
s = [socket.socket() for i in range(2)]
for x in s:
    x.bind(("127.0.0.1", 0))
print(*(x.getsockname()[1] for x in s))')
EP=$1 PP=$2

# released ARGS...: run the workload, release it once it waits for SIGUSR1 (in sigwait(): a
# signal before would end it), wait for it; its output in $T/times.
released() {
	"$QW" "$@" >"$T/times" &
	w=$!
	i=0
	until grep -q sigtimedwait /proc/$w/wchan 2>/dev/null; do
		i=$((i + 1))
		[ $i -le 100 ] || fail "quantile_work did not get to wait for its signal"
		sleep 0.05
	done
	kill -USR1 $w
	wait $w || fail "quantile_work $* exited $?"
}

OUT=$T/out ERR=$T/err
"$BPFTOOLS" exporter --listen "127.0.0.1:$EP" --collect biolatency,smpcalls \
	--funclatency "$SPEC" >"$OUT" 2>"$ERR" &
EX=$!
PIDS=$EX
i=0
until grep -q 'serving' "$ERR"; do
	i=$((i + 1))
	[ $i -le 200 ] && kill -0 $EX 2>/dev/null || fail "exporter did not start in 20 s"
	sleep 0.1
done

start_prometheus "127.0.0.1:$EP" "$PP"
PIDS="$PIDS $PROM_PID"


# Both functions' series are there at 0 before their first call: a series born holding the
# mix would show no increase() of it.
ZERO="count(bpftools_funclatency_seconds_count{spec=\"$SPEC\"} == 0)"
until_prom "$ZERO" 2 30 ||
	fail "Prometheus: $ZERO is '$V' before any call, not 2 ($(tail -3 "$T/prom.log"))"
COUNT="sum(bpftools_funclatency_seconds_count{spec=\"$SPEC\"})"
released $FAST "$FAST_US" $SLOW "$SLOW_US"
[ "$(wc -l <"$T/times")" = $((FAST + SLOW)) ] || fail "quantile_work timed $(wc -l <"$T/times") calls"
until_prom "$COUNT" $((FAST + SLOW)) 30 || fail "Prometheus: $COUNT is '$V' after the mix"

# The quantiles, and the buckets that hold the true ones: the rank-th smallest of the calls'
# own times, where rank = q * calls as histogram_quantile ranks. A call's time as the probe saw
# it is at most what the workload measured around it, and at most 0.1 ms less (the uprobes):
# the bucket's lower bound is that of the time less 0.1 ms.
B="sum by (le) (increase(bpftools_funclatency_seconds_bucket{spec=\"$SPEC\"}[5m]))"
Q50=$(prom "histogram_quantile(0.5, $B)")
Q90=$(prom "histogram_quantile(0.9, $B)")
python3 - "$T/times" "0.5 $Q50 $FAST_US" "0.9 $Q90 $SLOW_US" <<'EOF' || fail "the quantile through Prometheus ($B)"
import math, sys
times = sorted(int(l) for l in open(sys.argv[1]))
for arg in sys.argv[2:]:
    q, got, planned = arg.split()
    q, planned = float(q), int(planned) * 1000
    v = times[math.ceil(q * len(times)) - 1]
    lo = 2 ** math.floor(math.log2(max(v - 100000, 1))) / 1e9
    hi = 2 ** (math.floor(math.log2(v)) + 1) / 1e9
    if math.floor(math.log2(planned)) != math.floor(math.log2(v)):
        print("note: the load moved the true %s quantile to %.3f ms" % (q, v / 1e6))
    try:
        g = float(got)
    except ValueError:
        sys.exit("histogram_quantile(%s): %r, not a number" % (q, got))
    if not (lo * 0.999 <= g <= hi * 1.001):  # a rank on a bound may go either way
        sys.exit("histogram_quantile(%s) = %s s, outside the bucket (%s, %s] s of the true %.6f s"
                 % (q, got, lo, hi, v / 1e9))
    print("ok: histogram_quantile(%s) = %.6f s, in (%s, %s] with the true %.6f s"
          % (q, g, lo, hi, v / 1e9))
EOF

# A real scrape: each histogram family summed by le across its series is a histogram.
curl -sf --max-time 10 -o "$T/m" "http://127.0.0.1:$EP/metrics" || fail "scrape failed"
python3 - "$T/m" <<'EOF' || fail "histogram families summed by le"
import re, sys
from collections import defaultdict
pair = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
hists = set()
series = defaultdict(lambda: defaultdict(dict))  # family -> labels -> {le or "count": value}
for line in open(sys.argv[1]):
    if line.startswith("# TYPE ") and line.split()[3] == "histogram":
        hists.add(line.split()[2])
    if line.startswith("#") or not line.strip():
        continue
    m = re.match(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$', line.rstrip("\n"))
    if not m:
        sys.exit("not a sample line: %r" % line)
    name, labels, value = m.group(1), dict(pair.findall(m.group(2) or "")), float(m.group(3))
    for suffix in ("_bucket", "_count"):
        fam = name[: -len(suffix)]
        if name.endswith(suffix) and fam in hists:
            le = labels.pop("le", "count")
            series[fam][tuple(sorted(labels.items()))][le] = value
bound = lambda le: float("inf") if le == "+Inf" else float(le)
checked = []
for fam in sorted(hists):
    layouts = {tuple(sorted((k for k in b if k != "count"), key=bound)) for b in series[fam].values()}
    if len(layouts) != 1:
        sys.exit("%s: its series have %d bucket layouts" % (fam, len(layouts)))
    les = layouts.pop()
    for labels, b in series[fam].items():
        cum = [b[le] for le in les]
        if any(x > y for x, y in zip(cum, cum[1:])) or b["+Inf"] != b["count"]:
            sys.exit("%s%s: buckets %s, _count %s" % (fam, dict(labels), cum, b["count"]))
    total = [sum(b[le] for b in series[fam].values()) for le in les]
    for i in range(1, len(total)):
        if total[i] < total[i - 1]:
            sys.exit("%s summed by le: %s at le=%s, then %s at le=%s"
                     % (fam, total[i - 1], les[i - 1], total[i], les[i]))
    checked.append("%s (%d series, %d bounds)" % (fam, len(series[fam]), len(les)))
want = {"bpftools_bio_latency_seconds", "bpftools_funclatency_seconds", "bpftools_smpcall_seconds"}
if not want <= hists or len(series["bpftools_funclatency_seconds"]) != 2:
    sys.exit("not every histogram family, or not both functions: %s" % checked)
print("ok: summed by le, never decreasing: " + ", ".join(checked))
EOF

kill -TERM $EX
RC=0
wait $EX || RC=$?
PIDS=${PIDS#$EX}
expect_rc 0 "exporter, then SIGTERM"
exit 0
