#!/bin/sh
# vm-timeout: 300
# stacksnoop on a kernel function through each attach mode (fentry, kprobe): the getppid
# calls of one process give exactly one row each, with the -v columns naming it, and a stack
# headed by the probed function over the syscall entry path; tracing artefacts (BPF program,
# trampoline, kprobe handler) are not printed; Ctrl-C exits 0 and leaves no probe behind.
. "$BTVM_LIB"

"$BPFTOOLS" --list | grep -q '^stacksnoop ' || skip "no stacksnoop command in this build"
W=$(workload fc_work)
N=300
fn=${SYS_PREFIX}getppid
kfunc_traceable $fn || fn=__do_sys_getppid
kfunc_traceable $fn || skip "neither ${SYS_PREFIX}getppid nor __do_sys_getppid is traceable"
# the symbolizer may name the head frame by the other name at the same address
head_re='__(x64|arm64|do)_sys_getppid'

for mode in $(attach_modes); do
  "$W" 0 0 0 $N &
  wpid=$!
  start_tool -o "$PWD/ss-$mode.out" stacksnoop -v --attach=$mode -p $wpid $fn
  wait_for "$OUT" '^TIME\(s\) ' 60
  kill -USR1 $wpid
  wait $wpid || fail "workload fc_work exited with $?"
  sleep 1 # rows print as they come; let the last ones out
  stop_tool INT 30
  assert_rc 0
  assert_contains "$OUT" '^TIME\(s\)            COMM         PID    CPU FUNCTION$' "stacksnoop -v header"
  prefix=$(printf '%-12s %-6s ' fc_work $wpid)
  rows=$(count_matching "$OUT" "^[0-9]+\.[0-9]{9} +$prefix[0-9]   $fn\$")
  assert_ge "$rows" $N "stacksnoop --attach=$mode rows for $N getppid calls (comm fc_work, pid $wpid)"
  assert_le "$rows" $N "stacksnoop --attach=$mode rows (-p: only the workload)"
  # each row's stack: the probed function first, then down to the syscall entry
  heads=$(awk -v re="^	$head_re\$" 'prev ~ /^[0-9]+\.[0-9]+ / && $0 ~ re { n++ } { prev = $0 } END { print n + 0 }' "$OUT")
  assert_ge "$heads" $N "stacks headed by $fn (--attach=$mode)"
  sys=$(count_matching "$OUT" "^	$SYSCALL_DO\$")
  assert_ge "$sys" $N "stacks through $SYSCALL_DO (--attach=$mode)"
  entry=$(count_matching "$OUT" "^	$SYSCALL_ENTRY")
  assert_ge "$entry" $N "stacks through $SYSCALL_ENTRY (--attach=$mode)"
  assert_not_contains "$OUT" 'bpf_prog_|bpf_trampoline|kprobe_ftrace_handler|ftrace_|\[unknown\]|Missed|lost' \
    "stacksnoop --attach=$mode: tracing artefacts, unknown frames or losses"
  assert_no_probes "after stacksnoop --attach=$mode exited"
  log "$mode: $rows rows for $N calls; $(sed -n 3p "$OUT" | tr -d '\t') ... $(sed -n 2p "$OUT")"
done

# -s: the probed function at an offset; one process from the fentry or kprobe path.
"$W" 0 0 0 3 &
wpid=$!
start_tool -o "$PWD/ss-offset.out" stacksnoop -s -p $wpid $fn
wait_for "$OUT" '^TIME\(s\) ' 60
kill -USR1 $wpid
wait $wpid || fail "workload fc_work exited with $?"
sleep 1
stop_tool INT 30
assert_rc 0
assert_contains "$OUT" '^TIME\(s\)            FUNCTION$' "stacksnoop header"
[ "$(count_matching "$OUT" "^	$head_re\+0x[0-9a-f]+\$")" = 3 ] || fail "-s: no '$fn+0x..' head frame in 3 stacks"
[ "$(count_matching "$OUT" "^	$SYSCALL_DO\\+0x[0-9a-f]+\$")" = 3 ] || fail "-s: no $SYSCALL_DO+0x.. in 3 stacks"
assert_no_probes "after stacksnoop -s exited"
exit 0
