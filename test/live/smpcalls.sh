#!/bin/sh
# smpcalls on this kernel: a two-threaded workload's expedited membarriers make a cross call
# (ipi_mb) from CPU 0 to CPU 1 on any host, checked in every part; its munmaps make TLB
# shootdowns (flush_tlb_func) where the host makes remote TLB flushes at all (this VM makes
# none: TLB 0 since boot), which must then show with the number the kernel counts in
# /proc/interrupts, apart from the calls a CPU makes to itself; the tool's own start-up calls
# left out; intervals with -T; -p with -K keeping a second, concurrent workload out; JSON;
# Ctrl-C; bad input.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints
need python3
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

# tlb_ipis: the TLB shootdowns received, all CPUs (x86's TLB line, counted in flush_tlb_func
# itself when run for another CPU), or nothing where /proc/interrupts has no such line.
tlb_ipis() {
	awk '$1 == "TLB:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i; f = 1 }
		END { if (f) print n }' /proc/interrupts
}

# The seed's use: run until Ctrl-C, then histograms per called function.
N=2000
OUT=$T/plain ERR=$T/plain.err
start_tool "$OUT"
tlb0=$(tlb_ipis)
"$W" $N || fail "workload tlb_shootdown exited $?"
tlb1=$(tlb_ipis)
kill -INT $TOOL
RC=0
wait $TOOL || RC=$?
expect_rc 0 "smpcalls, then SIGINT"
[ "$(head -1 "$OUT")" = "Tracing SMP calls. Hit Ctrl-C to stop." ] || fail "banner"
# membarrier's cross calls: one per round while the spinner runs on CPU 1 (under load, fewer)
expect_line '^@time_ns\[ipi_mb\]:$'
m=$(hist_count "$OUT" '@time_ns[ipi_mb]:')
[ "$m" -ge 1 ] || fail "ipi_mb: $m cross calls timed for $N expedited membarriers"
if [ -d $TRACEFS/events/csd ]; then
	q=$(hist_count "$OUT" '@queue_ns[ipi_mb]:')
	# a latency is counted when the function starts, its run when it ends: the output may
	# come between the two, on each CPU
	[ "$q" -ge 1 ] && [ "$q" -le $((m + $(nproc))) ] || fail "ipi_mb queue latencies: $q for $m runs"
fi
ok "ipi_mb: $m cross calls timed for $N expedited membarriers"
n=$(hist_count "$OUT" '@time_ns[flush_tlb_func]:')
d=$((${tlb1:-0} - ${tlb0:-0}))
if [ "$d" -le 0 ]; then
	# no remote TLB flush on this host (paravirtual or lazy flushes, or none counted)
	echo "note: /proc/interrupts counted no TLB shootdown (${tlb0:+TLB +0}${tlb0:-no TLB line}): flush_tlb_func's cross calls not checked ($n timed)"
elif [ -d $TRACEFS/events/csd ]; then
	q=$(hist_count "$OUT" '@queue_ns[flush_tlb_func]:')
	l=$(hist_count "$OUT" '@local_ns[flush_tlb_func]:')
	# the kernel's count of flushes run for another CPU, read inside the trace: the tool's
	# may exceed it by what came before the first read and after the second
	[ "$n" -ge "$d" ] && [ "$n" -le $((d + d / 10 + 20)) ] ||
		fail "flush_tlb_func: $n cross calls timed, /proc/interrupts counted $d ($l local)"
	[ "$q" -ge 1 ] && [ "$q" -le $((n + $(nproc))) ] || fail "queue latencies: $q for $n runs"
	# every flush of another CPU also flushed the caller's own, unqueued: counted apart
	[ "$l" -ge 1 ] || fail "no local flush_tlb_func calls"
	ok "flush_tlb_func: $n cross calls timed (/proc/interrupts: $d), $l local, $q queue latencies, for $N munmaps"
else
	[ "$n" -ge 1 ] || fail "no flush_tlb_func cross calls timed for $N munmaps (/proc/interrupts: $d)"
	ok "flush_tlb_func: $n calls timed for $N munmaps"
fi

# The tool's own start-up calls are not counted: attaching patches kernel text, and each patch
# synchronises the CPUs with do_sync_core cross calls made by the tool's process. Traced with
# -p of its own PID, anything the tool made itself and counted would show; and so would a call
# an interrupt queued while the tool ran (the tick's nohz_csd_func, 1 in ~20 runs on CI's
# machine before -p left those out).
OUT=$T/self ERR=$T/self.err
RC=0
sh -c 'exec "$1" smpcalls -p $$ 1 1' sh "$BPFTOOLS" >"$OUT" 2>"$ERR" || RC=$?
expect_rc 0 "smpcalls -p SELF 1 1"
grep -q '^@' "$OUT" && fail "smpcalls -p SELF: the tool counted its own calls"
ok "the tool's own start-up calls are left out"

# Intervals with -T: two outputs, each with a time line, and the tool stops by itself. The
# workload outlasts both intervals (killed after): 50,000 munmaps took under 2 s on a quiet
# machine, and the second output then had no cross calls.
"$W" 1000000 -1 >/dev/null 2>&1 &
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
[ "$(grep -c '^@time_ns\[ipi_mb\]:$' "$OUT")" = 2 ] || fail "-T 1 2: ipi_mb not in both outputs"
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
grep -E '^@(time|queue|local)_ns\[' "$OUT" | grep -v '^@[a-z]*_ns\[tlb_a, $' &&
	fail "-p $a: histograms of other callers"
grep -q '^, ipi_mb\]:$' "$OUT" || fail "-p -K: no ipi_mb histogram"
# a call queued by an interrupt that hit tlb_a (the tick's nohz_csd_func) is not tlb_a's
grep -Eq '^        (asm_)?sysvec_|^        (el1|el0)_interrupt|^        gic_handle_irq' "$OUT" &&
	fail "-p: a call queued in an interrupt counted as the process's"
grep -Eq '^        (smp_call_function_many_cond|on_each_cpu_cond_mask|flush_tlb_mm_range)\+0x[0-9a-f]+$' "$OUT" ||
	fail "-K: no cross-call frames in the caller stacks"
grep -q '^@time_ns\[tlb_b, $' "$T/all" || {
	OUT=$T/all
	fail "the unfiltered trace did not see tlb_b's cross calls"
}
ok "-p -K: only tlb_a's calls, with their stacks"

# JSON: one object per output, parsed; ipi_mb's histogram as buckets.
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
assert {c["kind"] for c in o["calls"]} <= {"time", "queue", "local"}, o
r = [c for c in o["calls"] if c["function"] == "ipi_mb" and c["kind"] == "time"][0]
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
