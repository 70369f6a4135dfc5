#!/bin/sh
# vm-timeout: 240
# Python frames (docs/python.md) on a stock kernel: Debian 12's python3.11 for the guest's
# architecture (scripts/vm-test fetches python3.11-minimal and unpacks it into the initramfs)
# runs a service of known structure, serve -> handle_request -> parse_payload -> time.sleep,
# started before the tool. offcputime -U -f names its functions by file and line, in that
# order, under the native frames that run the module (PyEval_EvalCode) and over the ones of
# the sleep (clock_nanosleep); profile -U -f puts the service's CPU loop under serve ->
# crunch_numbers; --no-python leaves the evaluator's native frame and no Python name. Skips
# where the guest has no interpreter (the host could not fetch it: the reason is shown) or
# the kernel cannot run the unwinder (5.10: no bpf_loop).
. "$BTVM_LIB"

PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "no $PY in the guest: $(cat /opt/btvm/python.missing 2>/dev/null || echo 'not staged')"
uw=$("$BPFTOOLS" features | grep '^unwinder')
case $uw in
*yes*) ;;
*verifier*) fail "the verifier refused the unwinder: $uw" ;;
*) skip "the unwinder does not run on this kernel: $uw" ;;
esac

# The service (only built-in modules: the guest has the minimal stdlib's start-up files). Its
# lines are found below by what they hold, not by number.
cat >svc.py <<'EOF'
import sys
import time
def parse_payload(n):
    time.sleep(0.02)
def handle_request(n):
    return parse_payload(n)
def crunch_numbers(n):
    t = 0
    for i in range(n):
        t += i * i
    return t
def serve(mode, seconds):
    open(sys.argv[3], "w").close()
    end = time.time() + seconds
    while time.time() < end:
        if mode == "cpu": crunch_numbers(100000); continue
        handle_request(1)
serve(sys.argv[1], float(sys.argv[2]))
EOF
line_of() { grep -nF "$1" svc.py | head -1 | cut -d: -f1; }
L_SLEEP=$(line_of 'time.sleep(')
L_HANDLE=$(line_of 'return parse_payload(')
L_SERVE=$(line_of '        handle_request(1)')
L_CPU=$(line_of 'crunch_numbers(100000)')
L_MODULE=$(line_of 'serve(sys.argv')
L_LOOP=$(line_of 'for i in range(n)')
L_ADD=$(line_of 't += i * i')

# start_py MODE: the service in the background ($PYPID) once it has written its ready file;
# python3.11 -S (no site: nothing but the start-up files), -E, -B (no .pyc written)
PIDS=
stop_py() {
  kill $PIDS 2>/dev/null
  wait $PIDS 2>/dev/null
  PIDS=
}
trap stop_py EXIT
start_py() {
  rm -f "ready.$1"
  "$PY" -S -E -B svc.py "$1" 200 "ready.$1" &
  PYPID=$!
  PIDS="$PIDS $PYPID"
  _i=0
  until [ -e "ready.$1" ]; do
    alive $PYPID || fail "$PY svc.py $1 exited before it was ready"
    [ $_i -ge 600 ] && fail "$PY svc.py $1 not ready after 60 s"
    sleep 0.1
    _i=$((_i + 1))
  done
}

# share TEXT: the per cent of $OUT's folded total in lines holding TEXT (a plain string)
share() {
  awk -v s="$1" '/ [0-9]+$/ { t += $NF; if (index($0, s)) m += $NF } END { print t ? int(m * 100 / t) : 0 }' "$OUT"
}
# sum TEXT: the folded total of $OUT's lines holding TEXT
sum() {
  awk -v s="$1" '/ [0-9]+$/ && index($0, s) { t += $NF } END { print t + 0 }' "$OUT"
}

# a script's file name is its absolute path (3.9+: __main__'s __file__, its co_filename)
F=$PWD/svc.py
FR=$(echo "$F" | sed 's/[].[^$*+?(){}|\\]/\\&/g')
PYFRAMES="<module> \\($FR:$L_MODULE\\);serve \\($FR:$L_SERVE\\);handle_request \\($FR:$L_HANDLE\\);parse_payload \\($FR:$L_SLEEP\\)"
start_py sleep
log "python3.11 pid $PYPID: serve -> handle_request -> parse_payload -> time.sleep"

# offcputime: the sleep under the service's Python frames, native frames above and under them
run_tool -t 120 offcputime -U -f -p $PYPID 2
assert_rc 0
assert_contains "$OUT" "^python3\\.11;.*;PyEval_EvalCode;$PYFRAMES;([^ ;]+;)*[^ ;]*clock_nanosleep [0-9]+\$" \
  "offcputime -U -f: the Python frames in order under PyEval_EvalCode, clock_nanosleep under them"
slept=$(sum "parse_payload ($F:$L_SLEEP);")
assert_ge "$slept" 500000 "microseconds off-CPU at the sleep in 2 s"
e=$(($(share '_PyEval_EvalFrameDefault') + $(share '[python: frames unread]')))
assert_le "$e" 5 "per cent of the off-CPU time with the evaluator's native frame or the unread marker left"
log "offcputime -U -f: ${slept}us at parse_payload ($F:$L_SLEEP), $e% with an evaluator frame"

# --no-python: the evaluator's own frame where the Python frames were, no Python name
run_tool -t 120 offcputime -U -f --no-python -p $PYPID 2
assert_rc 0
assert_contains "$OUT" ";PyEval_EvalCode;([^ ;]+;)*_PyEval_EvalFrameDefault;([^ ;]+;)*[^ ;]*clock_nanosleep [0-9]+\$" \
  "offcputime --no-python: the evaluator's native frame"
assert_not_contains "$OUT" 'svc\.py' "offcputime --no-python: a Python frame"

# profile: the CPU loop, under serve -> crunch_numbers, by the line it runs
stop_py
start_py cpu
log "python3.11 pid $PYPID: serve -> crunch_numbers, a CPU loop"
run_tool -t 120 profile -U -f -F 99 -p $PYPID 2
assert_rc 0
assert_contains "$OUT" "^python3\\.11;.*;PyEval_EvalCode;<module> \\($FR:$L_MODULE\\);serve \\($FR:$L_CPU\\);crunch_numbers \\($FR:($L_LOOP|$L_ADD)\\)[; ]" \
  "profile -U -f: the loop in crunch_numbers under serve"
n=$(sum " ")
assert_ge "$n" 20 "samples of the loop at 99 Hz in 2 s"
s=$(share ";serve ($F:$L_CPU);crunch_numbers ($F:")
assert_ge "$s" 80 "per cent of the samples under serve -> crunch_numbers"
log "profile -U -f: $s% of $n samples in serve -> crunch_numbers"
stop_py
exit 0
