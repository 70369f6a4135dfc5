#!/bin/sh
# vm-timeout: 200
# smpcalls on a stock kernel: without csd tracepoints (Debian's 6.1) through the kprobe
# fallback on smp_call_function_*() and the IPI handler, else through the tracepoints. A
# two-threaded workload's munmaps are TLB shootdowns (flush_tlb_func run on the other CPU; on arm64,
# which has no cross call for them, its membarrier() calls' ipi_mb):
# they must be timed under that name, with -K -p keyed by the workload's name and stack;
# Ctrl-C prints the histograms and exits 0; nothing is left attached.
. "$BTVM_LIB"

"$BPFTOOLS" --list | grep -q '^smpcalls ' || fail "no smpcalls command in this build"
W=$(workload tlb_shootdown)
[ "$(grep -c '^processor' /proc/cpuinfo)" -ge 2 ] || skip "one CPU: no cross calls"
# the mechanism the guest's version should get (KERNEL_SINCE), which the tool must have taken
if kernel_since csd_tracepoints; then
  mode=csd
  [ -d "$TRACEFS/events/csd" ] || fail "no csd tracepoints on $(uname -r), which should have them"
else
  mode=kprobe
  require_facility kprobes kretprobes kfunc:smp_call_function_single
fi
log "mechanism: $mode"
N=300
# the function each round of the workload runs on the other CPU: flush_tlb_func, a TLB
# shootdown; on arm64 (broadcast TLB invalidation, no cross call) membarrier's ipi_mb
fn=flush_tlb_func
# before 5.14 the kernel ran flush_tlb_func_remote() on the other CPU (merged with the local one since)
ksym_exists flush_tlb_func_remote && fn=flush_tlb_func_remote
[ "$BT_ARCH" = aarch64 ] && fn=ipi_mb

# hist_count FILE HEADER: the events in the histogram under the exact header line.
hist_count() {
  awk -v h="$2" '/^@/ { on = ($0 == h); next } on && $2 == "->" { n += $5 } END { print n + 0 }' "$1"
}

OUT=$PWD/smpcalls.out
echo "\$ BPFTOOLS_DEBUG=1 bpftools smpcalls &"
BPFTOOLS_DEBUG=1 "$BPFTOOLS" smpcalls >"$OUT" 2>debug.err &
BG_PID=$!
wait_for "$OUT" '^Tracing SMP calls' 120
"$W" $N || fail "workload tlb_shootdown exited with $?"
stop_tool INT 60
assert_rc 0
[ "$(head -n 1 "$OUT")" = "Tracing SMP calls. Hit Ctrl-C to stop." ] || fail "banner"
assert_contains "$OUT" "^@time_ns\\[$fn\\]:\$" "smpcalls output"
assert_contains "$OUT" '^     nsecs               : count     distribution$' "smpcalls output"
n=$(hist_count "$OUT" "@time_ns[$fn]:")
if [ $mode = kprobe ]; then
  # the callers' time in smp_call_function_many_cond(), one call per shootdown
  assert_contains debug.err 'no csd tracepoints: timing smp_call_function_\*\(\) with kprobes' "debug log"
  assert_not_contains "$OUT" '^@(queue|local)_ns' "kprobe output (no queue latency or local calls without csd)"
  assert_ge "$n" $((N / 2)) "$fn calls timed for $N munmaps"
  if kfunc_traceable generic_smp_call_function_single_interrupt; then
    assert_contains "$OUT" '^@time_ns\[generic_smp_call_function_single_interrupt\]:$' \
      "the IPI handler's histogram"
  fi
else
  assert_contains "$OUT" "^@queue_ns\\[$fn\\]:\$" "csd output"
  # a shootdown flushes the caller's own TLB too; membarrier's cross call skips the caller
  [ "$fn" = ipi_mb ] ||
    assert_contains "$OUT" "^@local_ns\\[$fn\\]:\$" "csd output (the caller's own CPU)"
  assert_ge "$n" $((N / 2)) "$fn runs timed for $N munmaps"
fi
log "$fn: $n"
assert_no_probes "after smpcalls"

# -K -p: keyed by the workload's name and the caller's stack, nothing of anyone else.
"$W" $N -1 tlb_a &
wpid=$!
start_tool -o "$PWD/smpcalls-K.out" smpcalls -K -p $wpid
wait_for "$OUT" '^Tracing SMP calls' 120
kill -USR1 $wpid
wait $wpid || fail "workload tlb_a exited with $?"
stop_tool INT 60
assert_rc 0
assert_contains "$OUT" '^@time_ns\[tlb_a, $' "smpcalls -K -p"
assert_not_contains "$OUT" '^@[a-z]*_ns\[([^t]|t[^l]|tl[^b]|tlb[^_]|tlb_[^a])' "smpcalls -K -p (other callers)"
assert_contains "$OUT" "^, $fn\\]:\$" "smpcalls -K -p"
if [ $mode = kprobe ] && ! kernel_since kretprobe_unwind; then
  # Before 5.15 a stack does not get past kretprobe_trampoline: smp_call_function_many_cond()
  # jumps to smp_call_function_single() when one other CPU is the target (a tail call), whose
  # return address is then the one many_cond's kretprobe replaced. The function, then the
  # trampoline by its own name (docs/smpcalls.md), not as the end of the function before it.
  prev=$(sort /proc/kallsyms | grep -B 1 ' kretprobe_trampoline$' | awk 'NR == 1 { print $3 }')
  log "the function before kretprobe_trampoline: $prev"
  assert_contains "$OUT" '^        smp_call_function_(single|many_cond)\+0x' "smpcalls -K stacks"
  assert_contains "$OUT" '^        kretprobe_trampoline\+0x0$' "smpcalls -K stacks before 5.15"
  [ -z "$prev" ] || assert_not_contains "$OUT" "^        $prev\+" "smpcalls -K stacks before 5.15"
else
  assert_contains "$OUT" '^        (smp_call_function_many_cond|on_each_cpu_cond_mask|flush_tlb_mm_range|membarrier_private_expedited)\+0x' \
    "smpcalls -K stacks"
fi
assert_no_probes "after smpcalls -K -p"
exit 0
