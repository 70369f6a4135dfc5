#!/bin/sh
# vm-timeout: 300
# Kernel functions through each attach mode the guest has (fentry, kprobe), with exact counts:
# a workload makes N getppid system calls, and funccount must see at least N calls of the
# syscall's kernel function. Then return probes' programs are not needed: entry counts only.
. "$BTVM_LIB"

command -v "$BPFTOOLS" >/dev/null || fail "no bpftools"
"$BPFTOOLS" --list | grep -q '^funccount ' || skip "no funccount command in this build"
W=$(workload fc_work)
N=2000
fn=${SYS_PREFIX}getppid
kfunc_traceable $fn || fn=__do_sys_getppid
kfunc_traceable $fn || skip "neither ${SYS_PREFIX}getppid nor __do_sys_getppid is traceable"

for mode in $(attach_modes); do
  start_tool -o "$PWD/fc-$mode.out" funccount -D --attach=$mode $fn
  wait_for "$OUT" '^Tracing 1 functions' 60
  "$W" 0 0 0 $N &
  wpid=$!
  wait_sigwait $wpid
  kill -USR1 $wpid
  wait $wpid || fail "workload fc_work exited with $?"
  sleep 0.5
  stop_tool INT 30
  assert_rc 0
  assert_contains "$OUT" "kernel functions: $([ $mode = fentry ] && echo 1 || echo 0) fentry, $([ $mode = kprobe ] && echo 1 || echo 0) kprobe, 0 kprobe.multi, 0 failed" "funccount -D (how it attached)"
  c=$(field "$OUT" "^$fn " 2)
  assert_ge "$c" $N "$fn count with --attach=$mode for $N getppid calls"
  assert_le "$c" $((N + 500)) "$fn count with --attach=$mode (the guest is otherwise idle)"
  assert_no_probes "after funccount --attach=$mode exited"
  log "$mode: $fn counted $c for $N calls"
done

# An untraceable and a missing function: one line, exit 1, nothing attached.
run_tool -t 30 funccount no_such_function_xyz
assert_rc 1 2
assert_contains "$OUT" "no such function" "funccount no_such_function_xyz"
assert_no_probes "after a refused function"
exit 0
