#!/bin/sh
# vm-timeout: 300
# stackcount on a kernel function through each attach mode (fentry, kprobe): the getppid
# calls of one process give one kernel stack, counted exactly, whose frames name the syscall
# entry path; tracing artefacts (BPF program, trampoline, kprobe handler) are not printed.
. "$BTVM_LIB"

"$BPFTOOLS" --list | grep -q '^stackcount ' || skip "no stackcount command in this build"
W=$(workload fc_work)
N=1500
fn=${SYS_PREFIX}getppid
kfunc_traceable $fn || fn=__do_sys_getppid
kfunc_traceable $fn || skip "neither ${SYS_PREFIX}getppid nor __do_sys_getppid is traceable"

for mode in $(attach_modes); do
  "$W" 0 0 0 $N &
  wpid=$!
  start_tool -o "$PWD/sc-$mode.out" stackcount -K --attach=$mode -p $wpid $fn
  wait_for "$OUT" '^Tracing 1 functions' 60
  kill -USR1 $wpid
  wait $wpid || fail "workload fc_work exited with $?"
  stop_tool INT 30
  assert_rc 0
  assert_contains "$OUT" "^  __(x64|arm64|do)_sys_getppid\$" "stackcount --attach=$mode: the probed function heads the stack"
  assert_contains "$OUT" "^  $SYSCALL_DO\$" "stackcount --attach=$mode: syscall entry path"
  assert_contains "$OUT" "^  $SYSCALL_ENTRY" "stackcount --attach=$mode: syscall entry path"
  assert_not_contains "$OUT" 'bpf_prog_|bpf_trampoline|kprobe_ftrace_handler|\[unknown\]' \
    "stackcount --attach=$mode: tracing artefacts or unknown frames"
  c=$(awk '/^    [0-9]+$/ { s += $1 } END { print s + 0 }' "$OUT")
  assert_ge "$c" $N "stackcount --attach=$mode count for $N getppid calls"
  assert_le "$c" $N "stackcount --attach=$mode count (-p: only the workload)"
  assert_no_probes "after stackcount --attach=$mode exited"
  log "$mode: $c stacks counted for $N calls"
done
exit 0
