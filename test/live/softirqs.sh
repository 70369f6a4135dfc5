#!/bin/sh
# softirqs on this kernel: real time and counts per vector, the in-kernel CPU filter, the
# histogram, and Ctrl-C printing the final table.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints

UDP=$BT_WORKLOADS/udp_flood
[ -x "$UDP" ] || fail "workload $UDP not built"
need python3
# the traffic is loopback UDP: 127.0.0.1 must be up (a new network namespace has lo down)
# (it says why on stderr: bind or sendto refused)
{ "$UDP" 1 2>"$T/udp.err" && ! [ -s "$T/udp.err" ]; } || skip "no loopback network: udp_flood cannot send over 127.0.0.1 ($(cat "$T/udp.err"))"

# Counts: loopback UDP raises NET_RX softirqs on the sending CPU. The packets are sent once the
# tool traces (its banner): sent before, 20,000 of them can be over while it still starts.
start_tool softirqs -C 2 1
"$UDP" 20000 2>/dev/null
finish_tool
expect_rc 0 "softirqs -C 2 1"
[ "$(head -1 "$OUT")" = "Tracing soft irq events... Hit Ctrl-C to end." ] || fail "banner"
expect_line '^SOFTIRQ          TOTAL_count$'
expect_line '^net_rx +[0-9]+$'
n=$(value_of net_rx)
[ "$n" -ge 100 ] || fail "only $n net_rx softirqs counted for 20000 loopback packets"
# Rows are sorted by total, descending, and laid out as BCC's "%-16s %11d".
awk 'NR > 3 && prev != "" && $2 > prev { exit 1 } NR > 3 { prev = $2 }' "$OUT" || fail "rows not sorted descending"
grep -E '^[a-z_]+ +[0-9]+$' "$OUT" | grep -Evq '^.{16} .{11}$' && fail "row not in %-16s %11d layout"
ok "counts: net_rx=$n"

# Time: usecs by default, nsecs with -N; the nanosecond total must be the larger unit count.
start_tool softirqs -N 2 1
"$UDP" 20000 2>/dev/null
finish_tool
expect_rc 0 "softirqs -N 2 1"
expect_line '^SOFTIRQ          TOTAL_nsecs$'
ns=$(value_of net_rx)
[ "$ns" -ge 1000 ] || fail "net_rx time $ns ns is implausibly small"
ok "time: net_rx=${ns}ns"

# The CPU filter runs in the kernel: pin the traffic to one CPU we may run on (the first of
# our affinity) and trace another online CPU only, then that one.
c0=${CPUS%% *}
c1=$(other_cpu "$c0")
if [ -z "$c1" ]; then
	echo "skipped: the CPU filter (one online CPU: no other CPU to exclude)"
elif ! command -v taskset >/dev/null; then
	echo "skipped: the CPU filter (no taskset on this machine to pin the traffic)"
else
	start_tool softirqs -C -c "$c1" 2 1
	taskset -c "$c0" "$UDP" 20000 2>/dev/null
	finish_tool
	expect_rc 0 "softirqs -C -c $c1 2 1"
	other=$(value_of net_rx)
	start_tool softirqs -C -c "$c0" 2 1
	taskset -c "$c0" "$UDP" 20000 2>/dev/null
	finish_tool
	expect_rc 0 "softirqs -C -c $c0 2 1"
	here=$(value_of net_rx)
	[ "$here" -ge 100 ] && [ "$other" -lt $((here / 10)) ] ||
		fail "CPU filter: net_rx on CPU $c0 = $here, on CPU $c1 = $other (traffic pinned to CPU $c0)"
	ok "cpu filter: cpu$c0=$here cpu$c1=$other"
fi

# Histograms, with -T: a time line, then one section per vector with BCC's header.
start_tool softirqs -dT 2 1
"$UDP" 20000 2>/dev/null
finish_tool
expect_rc 0 "softirqs -dT 2 1"
expect_line '^[0-9]{2}:[0-9]{2}:[0-9]{2}$'
expect_line '^softirq = net_rx$'
expect_line '^     usecs               : count     distribution$'
expect_line '^ +[0-9]+ -> [0-9]+ +: [0-9]+ +\|\**\|$'
ok "histograms"

# JSON Lines, one object per output, in the table's order; -d gives buckets instead.
BANNER_IN=err start_tool softirqs -C --json 1 2
"$UDP" 20000 2>/dev/null
finish_tool
expect_rc 0 "softirqs -C --json 1 2"
python3 -c '
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, lines
rows = [json.loads(l) for l in lines]
assert all(o["val_type"] == "count" and o["ts"] for o in rows), rows
counts = [r["count"] for r in rows[0]["softirqs"]]
assert counts == sorted(counts, reverse=True) and counts[0] > 0, rows[0]
assert sum(r["count"] for o in rows for r in o["softirqs"] if r["name"] == "net_rx") >= 100, rows
' "$OUT" || fail "JSON output"
BANNER_IN=err start_tool softirqs -d --json 1 1
"$UDP" 20000 2>/dev/null
finish_tool
python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
r = [r for r in o["softirqs"] if r["name"] == "net_rx"][0]
assert o["val_type"] == "usecs" and sum(b["count"] for b in r["hist"]) > 0, o
' "$OUT" || fail "JSON histograms"
ok "json"

# Kernels where tp_btf cannot be loaded fall back to raw_tp (forced here through the test
# hook): same counts, and the debug log says which programs were used.
BPFTOOLS_NO_TP_BTF=1 BPFTOOLS_DEBUG=1 start_tool softirqs -C 2 1
"$UDP" 20000 2>/dev/null
finish_tool
expect_rc 0 "softirqs -C 2 1 without tp_btf"
grep -q "using 'softirq_entry_raw' instead of 'softirq_entry_btf'" "$ERR" || fail "raw_tp fallback not taken"
n=$(value_of net_rx)
[ "$n" -ge 100 ] || fail "raw_tp: only $n net_rx softirqs counted for 20000 loopback packets"
ok "raw_tp fallback: net_rx=$n"

# Ctrl-C before the first interval: the final table is printed and the exit status is 0.
start_tool softirqs -C 60
sleep 1
finish_tool INT
expect_rc 0 "softirqs -C 60, then SIGINT"
expect_line '^SOFTIRQ          TOTAL_count$'
ok "sigint prints the summary"

# Bad input: one line naming the problem, the usage line, exit 2.
for bad in "-1" "abc" "1 2 3" "0" "-C -d" "-c 9999" "--nope"; do
	# shellcheck disable=SC2086
	run softirqs $bad
	expect_rc 2 "softirqs $bad"
	[ -s "$OUT" ] && fail "softirqs $bad printed to stdout"
	head -1 "$ERR" | grep -q '^softirqs: ' || fail "softirqs $bad: first stderr line does not name the tool"
done
ok "bad input"
