#!/bin/sh
# smpcalls on this kernel: a two-threaded workload's munmaps make TLB shootdowns (cross calls
# of flush_tlb_func from CPU 0 to CPU 1), which must show with their number; intervals with
# -T; -p with -K keeping a second, concurrent workload out; JSON; Ctrl-C; bad input.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints
[ "$(nproc)" -ge 2 ] || skip "one CPU: no cross calls to time"
TRACEFS=/sys/kernel/tracing
[ -d $TRACEFS/events/csd ] || require kprobes

W=$BT_WORKLOADS/tlb_shootdown
[ -x "$W" ] || fail "workload $W not built"

# start_tool OUTFILE ARGS...: smpcalls ARGS in the background until its banner; pid in $TOOL.
start_tool() {
	_out=$1
	shift
	"$BPFTOOLS" smpcalls "$@" >"$_out" 2>"$_out.err" &
	TOOL=$!
	i=0
	until grep -q 'Tracing SMP calls' "$_out" "$_out.err" 2>/dev/null; do
		i=$((i + 1))
		[ $i -le 150 ] && kill -0 $TOOL 2>/dev/null || {
			OUT=$_out ERR=$_out.err
			fail "smpcalls $* did not start"
		}
		sleep 0.1
	done
}

# hist_count FILE HEADER: the events in the histogram under the exact header line.
hist_count() {
	awk -v h="$2" '/^@/ { on = ($0 == h); next } on && $2 == "->" { n += $5 } END { print n + 0 }' "$1"
}

# The seed's use: run until Ctrl-C, then histograms per called function.
N=2000
OUT=$T/plain ERR=$T/plain.err
start_tool "$OUT"
"$W" $N || fail "workload tlb_shootdown exited $?"
kill -INT $TOOL
RC=0
wait $TOOL || RC=$?
expect_rc 0 "smpcalls, then SIGINT"
[ "$(head -1 "$OUT")" = "Tracing SMP calls. Hit Ctrl-C to stop." ] || fail "banner"
expect_line '^@time_ns\[flush_tlb_func\]:$'
expect_line '^     nsecs               : count     distribution$'
n=$(hist_count "$OUT" '@time_ns[flush_tlb_func]:')
# each munmap runs flush_tlb_func on the other CPU (and, through the same call, on this one)
[ "$n" -ge $((N / 2)) ] || fail "only $n flush_tlb_func cross calls timed for $N munmaps"
if [ -d $TRACEFS/events/csd ]; then
	expect_line '^@queue_ns\[flush_tlb_func\]:$'
	q=$(hist_count "$OUT" '@queue_ns[flush_tlb_func]:')
	[ "$q" -ge 1 ] && [ "$q" -le "$n" ] || fail "queue latencies: $q for $n runs"
	ok "flush_tlb_func: $n runs timed, $q queue latencies, for $N munmaps"
else
	ok "flush_tlb_func: $n calls timed for $N munmaps"
fi

# Intervals with -T: two outputs, each with a time line, and the tool stops by itself.
"$W" 50000 -1 >/dev/null 2>&1 &
wl=$!
OUT=$T/iv ERR=$T/iv.err
start_tool "$OUT" -T 1 2
kill -USR1 $wl
RC=0
wait $TOOL || RC=$?
kill $wl 2>/dev/null
wait $wl 2>/dev/null
expect_rc 0 "smpcalls -T 1 2"
[ "$(grep -Ec '^[0-9]{2}:[0-9]{2}:[0-9]{2}$' "$OUT")" = 2 ] || fail "-T 1 2: not two timestamped outputs"
[ "$(grep -c '^@time_ns\[flush_tlb_func\]:$' "$OUT")" = 2 ] || fail "-T 1 2: flush_tlb_func not in both outputs"
ok "intervals"

# -p with -K: two workloads run at once under different names; the filtered trace keys every
# histogram by tlb_a's name and stacks, while an unfiltered trace of the same moment shows
# tlb_b's calls too (so there was something to exclude).
"$W" 5000 -1 tlb_a &
a=$!
"$W" 5000 -1 tlb_b &
b=$!
start_tool "$T/p" -K -p $a
tp=$TOOL
start_tool "$T/all" -K
tall=$TOOL
kill -USR1 $a $b
wait $a || fail "workload tlb_a exited $?"
wait $b || fail "workload tlb_b exited $?"
kill -INT $tp $tall
RC=0
wait $tp || RC=$?
OUT=$T/p ERR=$T/p.err
expect_rc 0 "smpcalls -K -p"
wait $tall
expect_line '^@time_ns\[tlb_a, $'
grep -E '^@(time|queue)_ns\[' "$OUT" | grep -v '^@[a-z]*_ns\[tlb_a, $' &&
	fail "-p $a: histograms of other callers"
grep -q '^, flush_tlb_func\]:$' "$OUT" || fail "-p -K: no flush_tlb_func histogram"
grep -Eq '^        (smp_call_function_many_cond|on_each_cpu_cond_mask|flush_tlb_mm_range)\+0x[0-9a-f]+$' "$OUT" ||
	fail "-K: no cross-call frames in the caller stacks"
grep -q '^@time_ns\[tlb_b, $' "$T/all" || {
	OUT=$T/all
	fail "the unfiltered trace did not see tlb_b's cross calls"
}
ok "-p -K: only tlb_a's calls, with their stacks"

# JSON: one object per output, parsed; flush_tlb_func's histogram as buckets.
"$W" 50000 -1 >/dev/null 2>&1 &
wl=$!
OUT=$T/json ERR=$T/json.err
start_tool "$OUT" --json 1 1
kill -USR1 $wl
RC=0
wait $TOOL || RC=$?
kill $wl 2>/dev/null
wait $wl 2>/dev/null
expect_rc 0 "smpcalls --json 1 1"
python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
r = [c for c in o["calls"] if c["function"] == "flush_tlb_func" and c["kind"] == "time"][0]
assert r["count"] > 0 and r["count"] == sum(b["count"] for b in r["hist"]), r
assert r["total_ns"] >= r["count"], r
' "$OUT" || fail "JSON output"
ok "json"

# Bad input: one line naming the problem, the usage line, exit 2.
for bad in "0" "abc" "1 0" "1 2 3" "-p 0" "-p x" "--nope"; do
	# shellcheck disable=SC2086
	run smpcalls $bad
	expect_rc 2 "smpcalls $bad"
	[ -s "$OUT" ] && fail "smpcalls $bad printed to stdout"
	head -1 "$ERR" | grep -q '^smpcalls: ' || fail "smpcalls $bad: first stderr line does not name the tool"
done
ok "bad input"
