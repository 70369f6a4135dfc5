#!/bin/sh
# vm-timeout: 240
# funclatency on kernel functions through each attach mode (fentry/fexit, kprobe/kretprobe):
# a workload's clock_nanosleep calls of 1.5 ms, timed in do_nanosleep, are counted exactly
# (-p) with every latency at least 1024 us and a plausible average; with -F and a regex, the
# workload's getppid calls get their own section with their exact count.
. "$BTVM_LIB"

"$BPFTOOLS" --list | grep -q '^funclatency ' || skip "no funclatency command in this build"
W=$(workload funclatency_work)
N=60 G=400
sleepfn=do_nanosleep
kfunc_traceable $sleepfn || sleepfn=hrtimer_nanosleep
kfunc_traceable $sleepfn || skip "neither do_nanosleep nor hrtimer_nanosleep is traceable"
fn=${SYS_PREFIX}getppid
kfunc_traceable $fn || fn=__do_sys_getppid
kfunc_traceable $fn || skip "neither ${SYS_PREFIX}getppid nor __do_sys_getppid is traceable"

# hist_sum FILE [SECTION] [BELOW]: the sum of the histogram rows (under BELOW when given)
# after "Function = SECTION" (the whole output when SECTION is empty).
hist_sum() {
  awk -v s="${2:-}" -v b="${3:-}" '
    /^Function = / { on = (s != "" && $0 == "Function = " s); next }
    /^avg = / { on = 0 }
    (s == "" || on) && $2 == "->" && (b == "" || $1 < b) { n += $5 }
    END { print n + 0 }' "$1"
}

# traced MODE L S R G ARGS...: funclatency ARGS (-p the workload) while it runs.
traced() {
  _mode=$1
  shift
  "$W" "$1" "$2" "$3" "$4" &
  wpid=$!
  shift 4
  start_tool -o "$PWD/fl-$_mode-$BT_RUN_N.out" funclatency --attach=$_mode -p $wpid "$@"
  wait_for "$OUT" '^Tracing ' 60
  kill -USR1 $wpid
  wait $wpid || fail "workload funclatency_work exited with $?"
  stop_tool INT 30
  assert_rc 0
}

for mode in $(attach_modes); do
  ret=$([ $mode = fentry ] && echo fexit || echo kretprobe)
  traced $mode 0 $N 0 0 -v -u $sleepfn
  assert_contains "$OUT" "^Tracing 1 functions for \"$sleepfn\"" "funclatency --attach=$mode banner"
  assert_contains "$OUT" "^funclatency: '$sleepfn' \\($sleepfn\\): entry $mode, return $ret\$" \
    "funclatency -v --attach=$mode"
  assert_contains "$OUT" '^     usecs               : count     distribution$' "usecs histogram"
  c=$(hist_sum "$OUT")
  assert_ge "$c" $N "$sleepfn calls with --attach=$mode"
  assert_le "$c" $N "$sleepfn calls with --attach=$mode (-p: the workload only)"
  assert_contains "$OUT" "count: $N\$" "avg line count"
  assert_le "$(hist_sum "$OUT" "" 1024)" 0 "$sleepfn latencies under 1024 us for 1.5 ms sleeps"
  avg=$(awk '/^avg = / { print $3 }' "$OUT")
  assert_ge "$avg" 1500 "$sleepfn average (us) with --attach=$mode"
  # 10x: a wrong unit is 1000x off; a guest beside a loaded host stretched them to 6.7 ms
  assert_le "$avg" 15000 "$sleepfn average (us) with --attach=$mode"
  assert_no_probes "after funclatency --attach=$mode exited"
  log "$mode: $sleepfn $c calls, avg $avg us"

  traced $mode 0 10 0 $G -F -r "($fn|$sleepfn)"
  assert_contains "$OUT" '^Tracing 2 functions for ' "funclatency -F -r banner"
  assert_contains "$OUT" '^     nsecs               : count     distribution$' "nsecs histogram"
  g=$(hist_sum "$OUT" "$fn")
  s=$(hist_sum "$OUT" "$sleepfn")
  assert_ge "$g" $G "-F section '$fn' with --attach=$mode"
  assert_le "$g" $G "-F section '$fn' with --attach=$mode"
  assert_ge "$s" 10 "-F section '$sleepfn' with --attach=$mode"
  assert_le "$s" 10 "-F section '$sleepfn' with --attach=$mode"
  assert_le "$(hist_sum "$OUT" "$sleepfn" 1048576)" 0 "-F '$sleepfn' under 1 ms"
  assert_no_probes "after funclatency -F --attach=$mode exited"
  log "$mode: -F $fn $g, $sleepfn $s"
done

run_tool -t 30 funclatency no_such_function_xyz
assert_rc 1
assert_contains "$OUT" "no such function" "funclatency no_such_function_xyz"
assert_no_probes "after a refused function"
exit 0
