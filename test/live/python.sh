#!/bin/sh
# Python frames (docs/python.md) on Debian 12's python3.11: a service of known structure
# (python_svc.py: serve -> handle_request -> parse_payload, which sleeps in time.sleep and
# spins in a loop) under profile and offcputime -U: its functions by name, file and line, in
# the order its own traceback.extract_stack() gives, the native frames above them and under
# them (PyEval_EvalCode above, clock_nanosleep under parse_payload) and no evaluator frame left
# in their place; in text and folded output; and --no-python back to the evaluator alone. Then
# every other CPython found on the machine (pyenv's under /root/.pyenv, /usr/local/bin): the
# sleep named the same by each version with a row (3.9 and 3.10, a frame object per evaluator
# call: the sleep, the CPU loop and Python, C, Python too), one line naming the file and version
# of one without (3.8: its stacks keep the evaluator's frames), and a line for each
# of 3.9-3.13 not found (CI's machine has only Debian's 3.11).
. "$(dirname "$0")/lib.sh"
require root btf
PY=/usr/bin/python3.11
[ -x "$PY" ] || skip "no $PY (Debian 12's python3.11)"
SVC=$(cd "$(dirname "$0")" && pwd)/python_svc.py

# the lines the frames must name: each call site, and parse_payload's sleep and loop
line_of() {
	grep -n "$1" "$SVC" | head -1 | cut -d: -f1
}
L_SLEEP=$(line_of 'time.sleep(')
L_LOOP=$(line_of 'for i in range(n)')
L_ADD=$(line_of 't += i \* i')
L_HANDLE=$(line_of 'return parse_payload(')
L_SERVE=$(line_of 'handle_request(200000, out)')

# start_py PYTHON SCRIPT FILE: the script in the background ($WPID, the last one stopped first),
# once it has written FILE (its own stack, after its start-up)
WPID=""
trap 'kill $WPID 2>/dev/null; rm -rf "$T"' EXIT
start_py() {
	[ -n "$WPID" ] && kill $WPID 2>/dev/null && wait $WPID 2>/dev/null
	rm -f "$3"
	"$1" "$2" "$3" 30 &
	WPID=$!
	i=0
	until [ -s "$3" ]; do
		i=$((i + 1))
		[ $i -gt 100 ] && fail "$1 $2 did not start"
		sleep 0.1
	done
}
start_py "$PY" "$SVC" "$T/truth"
# the interpreter's own stack at the sleep, outermost first: <module>:N;serve:N;...
TRUTH=$(cat "$T/truth")
echo "# the service's own stack: $TRUTH"
case $TRUTH in
"<module>:"*";serve:$L_SERVE;handle_request:$L_HANDLE;parse_payload:"*) ;;
*) fail "python_svc.py's own stack is not what this test expects: $TRUTH" ;;
esac
L_MODULE=$(echo "$TRUTH" | sed 's/^<module>:\([0-9]*\);.*/\1/')
F="$SVC"
PYFRAMES="<module> \\($F:$L_MODULE\\);serve \\($F:$L_SERVE\\);handle_request \\($F:$L_HANDLE\\)"

# share REGEX: the per cent of the folded output's total in lines matching REGEX
share() {
	awk -v re="$1" '{ t += $NF } $0 ~ re { m += $NF } END { print t ? int(m * 100 / t) : 0 }' "$OUT"
}

# evaluator_rare WHAT: under 1% of the folded output's total keeps an evaluator's native frame
# or the unread marker in its place (a thread stopped before a new call links its frame keeps
# one: docs/python.md, "Not yet")
EVAL_OR_MARK="_PyEval_EvalFrameDefault|\\[python: frames unread\\]"
evaluator_rare() {
	e=$(share "$EVAL_OR_MARK")
	[ "$e" -lt 1 ] || fail "$1: $e% of the total still shows an evaluator's native frame"
}

# profile: the CPU loop named by its line, under the callers the interpreter itself reports
run profile -F 199 -f -p $WPID 2
expect_rc 0 "profile -f -p"
expect_line "PyEval_EvalCode;$PYFRAMES;parse_payload \\($F:($L_LOOP|$L_ADD)\\)[; ]"
s=$(share ";serve \\($F:$L_SERVE\\);handle_request \\($F:$L_HANDLE\\);parse_payload \\($F:")
[ "$s" -ge 80 ] || fail "profile: only $s% of the samples under serve;handle_request;parse_payload"
e=$(share "$EVAL_OR_MARK")
[ "$e" -le 5 ] || fail "profile: $e% of the samples still show the evaluator's native frame"
ok "profile -f: $s% of the samples in serve -> handle_request -> parse_payload at lines $L_LOOP/$L_ADD, $e% with the evaluator's frame"

# the flame graph: Python functions in the interpreted palette (class "interp", yellow), the
# interpreter's own C frames around them in the user palette (red)
run profile -F 199 -p $WPID --flamegraph "$T/py.svg" 2
expect_rc 0 "profile --flamegraph -p"
"$PY" - "$T/py.svg" <<'PYEOF' || fail "profile --flamegraph: Python frames not in their own palette"
import re, sys
svg = open(sys.argv[1]).read()
frames = re.findall(r'<g class="f (\w+)[^"]*"><title>([^<]*)</title><rect [^>]*fill="rgb\((\d+),(\d+),(\d+)\)"', svg)
kinds = {}
for kind, title, r, g, b in frames:
    name = title.split(" [")[0].split(" (")[0]  # "NAME [module] (N samples...)"
    kinds.setdefault(name, set()).add((kind, int(r), int(g), int(b)))
def only(name, want):
    got = kinds.get(name)
    assert got, "no frame %s in the SVG" % name
    for kind, r, g, b in got:
        assert kind == want, "%s drawn as %s, not %s" % (name, kind, want)
        if want == "interp":
            assert r == g and r >= 195 and b < 100, "%s not yellow: %d,%d,%d" % (name, r, g, b)
        else:
            assert r >= 200 and g < 70, "%s not red: %d,%d,%d" % (name, r, g, b)
for f in ("serve", "handle_request", "parse_payload"):
    only(f, "interp")
only("PyEval_EvalCode", "user")
PYEOF
ok "profile --flamegraph: serve, handle_request, parse_payload yellow (interp), PyEval_EvalCode red"

# pprof: a Python frame is its function in its file (Function name and filename), at its line
# (the Location's Line), with no Mapping; the native frames keep theirs
run profile -F 199 -p $WPID --pprof "$T/py.pb" 2
expect_rc 0 "profile --pprof -p"
L_DEF=$(line_of 'def parse_payload(')
"$PY" - "$T/py.pb" "$F" "$L_LOOP" "$L_ADD" "$(dirname "$0")" "$L_DEF" <<'PYEOF' || fail "profile --pprof: Python frames not as Function, file, start line and Line"
import gzip, sys
sys.path.insert(0, sys.argv[5])
from flamegraph import fields
pb = gzip.decompress(open(sys.argv[1], "rb").read())
strings, funcs, lines, starts = [], {}, [], {}
for num, _, v in fields(pb):
    if num == 6:
        strings.append(v.decode("utf-8", "surrogateescape"))
    elif num == 5:
        f = {n: x for n, _, x in fields(v)}
        funcs[f[1]] = (f.get(2, 0), f.get(4, 0))
        starts[f[1]] = f.get(5, 0)
    elif num == 4:
        loc = {n: x for n, _, x in fields(v)}
        for n, _, x in fields(v):
            if n == 4:
                ln = {m: y for m, _, y in fields(x)}
                lines.append((ln.get(1, 0), ln.get(2, 0), loc.get(2, 0)))
named = {fid: (strings[n], strings[f]) for fid, (n, f) in funcs.items()}
pp = [fid for fid, (n, f) in named.items() if n == "parse_payload"]
assert pp, "no function parse_payload: %r" % sorted(n for n, _ in named.values())[:30]
assert all(named[fid][1] == sys.argv[2] for fid in pp), "parse_payload's file: %r" % [named[f] for f in pp]
assert all(starts[fid] == int(sys.argv[6]) for fid in pp), "parse_payload's start line: %r, not %s" % ([starts[f] for f in pp], sys.argv[6])
at = {line for fid, line, mapping in lines if fid in pp}
assert at & {int(sys.argv[3]), int(sys.argv[4])}, "parse_payload at lines %r" % at
assert all(mapping == 0 for fid, line, mapping in lines if fid in pp), "a Python location with a mapping"
assert any(n == "PyEval_EvalCode" for n, _ in named.values()), "no native PyEval_EvalCode"
PYEOF
ok "profile --pprof: parse_payload a function of $(basename "$F") from line $L_DEF, at its lines, no mapping"

# the exporter's /debug/pprof/profile, whose run is kept between requests (docs/exporter.md):
# the service's Python frames in the first profile and in the second (the run loaded and the
# service indexed once, its frames read again)
if command -v curl >/dev/null; then
	PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	BANNER=serving BANNER_IN=err start_tool exporter --listen "127.0.0.1:$PORT" --collect softirqs
	for i in 1 2; do
		st=$(curl -s --max-time 60 -o "$T/ex$i.pb" -w '%{http_code}' \
			"http://127.0.0.1:$PORT/debug/pprof/profile?seconds=2")
		[ "$st" = 200 ] || fail "exporter: /debug/pprof/profile $i: $st"
	done
	finish_tool INT
	expect_rc 0 "exporter, then SIGINT"
	for i in 1 2; do
		"$PY" - "$T/ex$i.pb" "$F" "$(dirname "$0")" <<'PYEOF' || fail "exporter: profile $i has no parse_payload of $F"
import sys
sys.path.insert(0, sys.argv[3])
from flamegraph import decode
strings, samples, functions, locations, _, files, _, _ = decode(sys.argv[1])
pp = [fid for fid, n in functions.items() if strings[n] == "parse_payload"]
assert pp and all(strings[files[f]] == sys.argv[2] for f in pp), [strings[files[f]] for f in pp]
assert any("parse_payload" in s["names"] for s in samples)
PYEOF
	done
	ok "exporter: /debug/pprof/profile names the service's Python functions, first request and kept run's second"
else
	echo "note: no curl: the exporter's pprof endpoint with Python not checked"
fi

# offcputime: the sleep, with the native frames under the Python call
run offcputime -U -f -p $WPID 2
expect_rc 0 "offcputime -U -f -p"
expect_line "^python3.11;_start;.*;PyEval_EvalCode;$PYFRAMES;parse_payload \\($F:$L_SLEEP\\);[^ ]*clock_nanosleep [0-9]+$"
slept=$(awk -v re="parse_payload \\\\($F:$L_SLEEP\\\\);" '$0 ~ re { t += $NF } END { print t + 0 }' "$OUT")
[ "$slept" -ge 300000 ] || fail "offcputime: ${slept}us off-CPU at the sleep in 2 s, expected most of it"
evaluator_rare "offcputime"
ok "offcputime -U -f: the sleep under the service's own stack, ${slept}us, native frames under it"

# the unwinder's counts (BPFTOOLS_DEBUG prints them, as -v does): Python frames written
BPFTOOLS_DEBUG=1 run offcputime -U -f -p $WPID 1
expect_rc 0 "offcputime with BPFTOOLS_DEBUG"
grep -q "python: $PY is CPython 3.11 (evaluator 0x[0-9a-f]*-0x[0-9a-f]*, cold part 0x[1-9a-f]" "$ERR" ||
	fail "no line saying $PY is CPython 3.11 with its evaluator's cold part"
n=$(sed -n 's/.*; \([0-9]*\) Python frames, [0-9]* stacks whose Python.*/\1/p' "$ERR")
[ "${n:-0}" -gt 0 ] || fail "the unwinder's counts say no Python frames"
ok "the interpreter found with its cold part; $n Python frames counted"

# JSON: a Python frame's function, file and line as members
run offcputime -U --json -p $WPID 1
expect_rc 0 "offcputime -U --json -p"
grep -q "{\"name\": \"parse_payload\", \"offset\": 0, \"module\": \"\[python\]\", \"inlined\": false, \"address\": \"0x[0-9a-f]*\", \"file\": \"$F\", \"line\": $L_SLEEP}" "$OUT" ||
	fail "offcputime --json: no Python frame {name, module [python], file, line} for the sleep"
ok "offcputime -U --json: parse_payload with its file and line as members"

# the same as text, a frame a line
run offcputime -U -p $WPID 1
expect_rc 0 "offcputime -U -p"
expect_line "^    parse_payload \\($F:$L_SLEEP\\)$"
expect_line "^    handle_request \\($F:$L_HANDLE\\)$"
ok "offcputime -U: a Python frame per line"

# --no-python: the evaluator only, no Python names
run offcputime -U -f --no-python -p $WPID 2
expect_rc 0 "offcputime --no-python"
expect_line "PyEval_EvalCode;_PyEval_EvalFrameDefault;[^ ]*clock_nanosleep [0-9]+$"
grep -q 'python_svc.py' "$OUT" && fail "--no-python: Python frames printed"
run profile -F 99 -f --no-python -p $WPID 1
expect_rc 0 "profile --no-python"
grep -q 'python_svc.py' "$OUT" && fail "profile --no-python: Python frames printed"
expect_line "_PyEval_EvalFrameDefault"
ok "--no-python: the evaluator's native frame, no Python names"

# Started after the tool, both system-wide: the service is indexed at its exec (in the
# background), so its stacks from then on carry its Python frames: the sleep and the loop
# named under the same callers. Only the interpreter's own start, before that, may keep the
# evaluator's frame (docs/python.md, "Not yet": stacks unwound in user space).
kill $WPID 2>/dev/null && wait $WPID 2>/dev/null
BANNER_IN=err start_tool offcputime -U -f 4
start_py "$PY" "$SVC" "$T/late"
finish_tool
expect_rc 0 "offcputime -U -f, the service started after it"
expect_line "^python3.11;_start;.*;PyEval_EvalCode;$PYFRAMES;parse_payload \\($F:$L_SLEEP\\);[^ ]*clock_nanosleep [0-9]+$"
late=$(awk -v re="parse_payload \\\\($F:$L_SLEEP\\\\);" '$0 ~ re { t += $NF } END { print t + 0 }' "$OUT")
[ "$late" -ge 300000 ] || fail "started after offcputime: ${late}us at the named sleep, expected most of its time"
kill $WPID 2>/dev/null && wait $WPID 2>/dev/null
BANNER_IN=err BANNER='^Sampling' start_tool profile -F 199 -f 4
start_py "$PY" "$SVC" "$T/late"
finish_tool
expect_rc 0 "profile -f, the service started after it"
expect_line "PyEval_EvalCode;$PYFRAMES;parse_payload \\($F:($L_LOOP|$L_ADD)\\)[; ]"
ok "started after offcputime and profile (system-wide): ${late}us at the named sleep, the loop named"

# Never indexed: a Python process started after a system-wide tool is Python from its first
# event, before it is indexed (docs/python.md, "Started after the tool"): its walk finds the
# interpreter's mapping by file, whose table (brought in by the service, running when the tool
# started) carries the interpreter's addresses. BPFTOOLS_UNWIND_SCAN_ONLY indexes only the
# processes running at start, so the new one never is, as where indexing is far behind; the
# debug lines show the scan done (the interpreter's table in) and no indexing of it.
FIRST=$(dirname "$SVC")/python_first.py
L_FIRST=$(grep -n 'time.sleep(0.01)' "$FIRST" | cut -d: -f1)
start_py "$PY" "$SVC" "$T/keep"
unindexed() {
	export BPFTOOLS_DEBUG=1 BPFTOOLS_UNWIND_SCAN_ONLY=1
	BANNER_IN=${BANNER_IN_OF:-err} BANNER="$BANNER_OF" start_tool "$@"
	unset BPFTOOLS_DEBUG BPFTOOLS_UNWIND_SCAN_ONLY
	i=0
	until grep -q 'unwind: indexed [0-9]* running processes' "$ERR"; do
		i=$((i + 1))
		[ $i -gt 200 ] && fail "$1: the start-up scan did not end in 20 s"
		sleep 0.1
	done
	"$PY" "$FIRST" &
	FP=$!
	wait $FP || fail "python_first.py failed"
	sleep 0.5
	finish_tool INT
	expect_rc 0 "$1, a Python process never indexed"
	if grep -q "unwind: process $FP:" "$ERR"; then
		fail "$1: python_first.py was indexed (BPFTOOLS_UNWIND_SCAN_ONLY)"
	fi
}
# the sleep under the module's frame and first_call's; first_call's name is at times
# "[unknown python]", its code object's names not read for the process's first stack
# (docs/python.md, "Not yet": cause not found yet). No stack of the process keeps the
# evaluator's native frame, its first included: its program (the interpreter) was found at
# the exec (bt_unwind_find_at_exec). Blocks, not folded lines: they say the process's pid.
BANNER_IN_OF=out BANNER_OF='^Tracing' unindexed offcputime -U
awk -v pid="($FP)" 'BEGIN { RS = "" } index($0, pid) { print; print "" }' "$OUT" >"$T/first.blocks"
awk 'BEGIN { RS = "" } /clock_nanosleep/ { print }' "$T/first.blocks" | tr -s ' ' | tr '\n' '|' |
	grep -Eq "\| (first_call \\($FIRST:$L_FIRST\\)|\\[unknown python\\])\| <module> \\($FIRST:[0-9]+\\)\| PyEval_EvalCode\|" ||
	fail "offcputime: python_first.py's one sleep not under first_call and <module>: $(tr '\n' '|' <"$T/first.blocks" | cut -c1-1500)"
if grep -q '_PyEval_EvalFrameDefault' "$T/first.blocks"; then
	fail "offcputime: a stack of python_first.py kept the evaluator's frame: $(tr '\n' '|' <"$T/first.blocks" | cut -c1-1500)"
fi
# And with no Python process running at start: the machine's interpreters are indexed after
# the start-up scan (python3.N in /usr/bin, /usr/local/bin), so the first one started after
# the tool is named from its first event too
kill $WPID 2>/dev/null && wait $WPID 2>/dev/null
WPID=""
# profile: the loop's samples named, nearly all (its leaf is often the vdso's clock_gettime,
# found by the kernel's own vdso address); a few may keep the evaluator's frame, where the walk
# could not find the interpreter's mapping in time (the kernel's find of a mapping, once per
# walk in an interrupt: docs/python.md), and none is named without the table by file
BANNER_OF='^Sampling' unindexed profile -F 199 -f
expect_line "^python3.11;.*;PyEval_EvalCode;<module> \\($FIRST:[0-9]+\\);first_spin \\($FIRST:[0-9]+\\)[; ]"
named=$(awk '/;first_spin \(/ { n += $NF } END { print n + 0 }' "$OUT")
native=$(awk '/^python3.11;.*PyEval_EvalCode;_PyEval_EvalFrameDefault[; ]/ { n += $NF } END { print n + 0 }' "$OUT")
[ $((named * 100 / (named + native + 1))) -ge 70 ] ||
	fail "profile, a Python process never indexed: $named samples named, $native with the evaluator's frame"
grep -Eq 'debug: unwind: [1-9][0-9]* Python interpreters of the machine indexed' "$ERR" ||
	fail "profile: no line saying the machine's interpreters were indexed"
ok "a Python process never indexed: its first sleep named, $named of its loop's samples named ($native not), its interpreter indexed at start"

# A process that exits before the tool prints (python_brief.py, ~0.4 s, under tools that print
# at their end): its code objects are gone with its memory, so its names are read while it
# runs, once for each stack with Python frames the kernel sends (docs/python.md, "Short
# processes"). Each sleep and the loop named by function and line (each "[unknown python]"
# when names are read at print time only).
BRIEF=$(dirname "$SVC")/python_brief.py
kill $WPID 2>/dev/null && wait $WPID 2>/dev/null
BANNER_IN=err start_tool offcputime -U -f
"$PY" "$BRIEF" || fail "python_brief.py failed"
sleep 1
finish_tool INT
expect_rc 0 "offcputime -U -f, a Python process that exited before the end"
for f in step_a step_b step_c step_d; do
	L=$(grep -n "^def $f" "$BRIEF" | cut -d: -f1)
	expect_line "^python3.11;.*;<module> \\($BRIEF:[0-9]+\\);$f \\($BRIEF:$((L + 1))\\);[^ ]*clock_nanosleep [0-9]+$"
done
BANNER_IN=err BANNER='^Sampling' start_tool profile -F 199 -f
"$PY" "$BRIEF" || fail "python_brief.py failed"
sleep 1
finish_tool INT
expect_rc 0 "profile -f, a Python process that exited before the end"
expect_line "^python3.11;.*;<module> \\($BRIEF:[0-9]+\\);spin \\($BRIEF:[0-9]+\\)[; ]"
ok "a Python process that exited before offcputime and profile printed: its sleeps and loop named"

# Recursion 300 deep, past the walker's cap (32 Python frames): the innermost 32 frames, then
# the marker in place of the rest, above the native frames that called the evaluator; and the
# count said at exit. Never cut without a word.
DEEP=$(dirname "$SVC")/python_deep.py
L_DOWN=$(grep -n 'return down(' "$DEEP" | cut -d: -f1)
L_NAP=$(grep -n 'time.sleep(' "$DEEP" | cut -d: -f1)
start_py "$PY" "$DEEP" "$T/deep"
run offcputime -U -f -p $WPID 1
expect_rc 0 "offcputime -U -f -p (recursion 300 deep)"
D="down \\($DEEP:$L_DOWN\\);"
expect_line "PyEval_EvalCode;\\[python: frames unread\\];($D){31}down \\($DEEP:$L_NAP\\);[^ ]*clock_nanosleep [0-9]+$"
grep -Eq "^offcputime: warning: [1-9][0-9]* user stacks with Python frames that could not all be read .*marked \\[python: frames unread\\]$" "$ERR" ||
	fail "recursion 300 deep: no warning at exit counting the stacks marked unread"
ok "recursion 300 deep: 32 Python frames, then [python: frames unread], said at exit"

# Python, C, Python: a key function called by sorted() (C) under outer(); the key's frame is
# the entry frame of an evaluator call of its own, outer's is read at the next evaluator frame
SORT=$(cd "$(dirname "$0")" && pwd)/python_sort.py
start_py "$PY" "$SORT" "$T/sort"
L_OUTER=$(grep -n 'return sorted(' "$SORT" | cut -d: -f1)
L_KEY=$(grep -n 'time.sleep(' "$SORT" | cut -d: -f1)
run offcputime -U -f -p $WPID 2
expect_rc 0 "offcputime -U -f -p (sorted with a key)"
expect_line ";outer \\($SORT:$L_OUTER\\);[^ ]*;key \\($SORT:$L_KEY\\);[^ ]*clock_nanosleep [0-9]+$"
evaluator_rare "sorted with a key"
ok "Python, C, Python: outer, sorted's native frames, key, in that order"

# threads PY: two threads (python_threads.py) under PY, each naming its own functions: the
# worker's lock wait under worker and consumer_wait, the main thread's sleep under main_sleep,
# and no stack with both (the thread state is the sampled thread's own, not the GIL holder's)
THR=$(cd "$(dirname "$0")" && pwd)/python_threads.py
L_WAIT=$(grep -n 'q.get(timeout' "$THR" | cut -d: -f1)
L_MSLEEP=$(grep -n 'time.sleep(' "$THR" | cut -d: -f1)
threads() {
	start_py "$1" "$THR" "$T/thr"
	run offcputime -U -f -p $WPID 2
	expect_rc 0 "offcputime -U -f -p (two threads) under $1"
	expect_line ";worker \\($THR:[0-9]+\\);([^ ;]+;)*consumer_wait \\($THR:$L_WAIT\\);"
	expect_line ";main_sleep \\($THR:$L_MSLEEP\\);[^ ]* [0-9]+$"
	if grep -Eq "main_sleep.*consumer_wait|consumer_wait.*main_sleep|<module>.*worker \\(" "$OUT"; then
		fail "$1: a stack with the other thread's Python frames"
	fi
}
threads "$PY"
ok "two threads: each its own Python frames (main_sleep, worker -> consumer_wait)"

# other_python PY: the same service under PY, its sleep under offcputime -U -f
other_python() {
	start_py "$1" "$SVC" "$T/truth"
	run offcputime -U -f -p $WPID 2
	expect_rc 0 "offcputime -U -f -p under $1"
}
# 3.9, 3.10: the service's frames with the native ones between each two (the call's
# evaluator and what calls it: function_code_fastcall, _PyEval_Vector); N is any native
# frames, none of which a Python frame (a name, a space, a place) can be taken for
N="([^ ;]+;)*"
PYFRAMES_OLD="<module> \\($F:$L_MODULE\\);${N}serve \\($F:$L_SERVE\\);${N}handle_request \\($F:$L_HANDLE\\)"
ran=""
said=""
for py in /root/.pyenv/versions/*/bin/python3.[0-9] /root/.pyenv/versions/*/bin/python3.1[0-9] \
	/usr/local/bin/python3.[0-9] /usr/local/bin/python3.1[0-9]; do
	[ -x "$py" ] || continue
	v=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])') || continue
	case $v in
	3.11 | 3.12 | 3.13)
		other_python "$py"
		expect_line ";PyEval_EvalCode;$PYFRAMES;parse_payload \\($F:$L_SLEEP\\);[^ ]*clock_nanosleep [0-9]+$"
		evaluator_rare "$py"
		threads "$py"
		ran="$ran $v($py)"
		;;
	3.9 | 3.10)
		# a frame object per evaluator call (docs/python.md): each evaluator frame of the
		# native stack takes one, in order, with the C frames between them kept
		# (their time.sleep is select())
		other_python "$py"
		expect_line ";PyEval_EvalCode;${N}$PYFRAMES_OLD;${N}parse_payload \\($F:$L_SLEEP\\);[^ ]*select [0-9]+$"
		evaluator_rare "$py"
		run profile -F 199 -f -p $WPID 2
		expect_rc 0 "profile -f -p under $py"
		expect_line ";PyEval_EvalCode;${N}$PYFRAMES_OLD;${N}parse_payload \\($F:($L_LOOP|$L_ADD)\\)[; ]"
		s=$(share ";serve \\($F:$L_SERVE\\);${N}handle_request \\($F:$L_HANDLE\\);${N}parse_payload \\($F:")
		[ "$s" -ge 80 ] || fail "$py: profile: only $s% of the samples under serve;handle_request;parse_payload"
		# Python, C, Python: outer, sorted's native frames, then key (an evaluator call each)
		start_py "$py" "$SORT" "$T/sort"
		run offcputime -U -f -p $WPID 2
		expect_rc 0 "offcputime -U -f -p (sorted with a key) under $py"
		expect_line ";outer \\($SORT:$L_OUTER\\);${N}builtin_sorted;${N}key \\($SORT:$L_KEY\\);${N}[^ ;]*select [0-9]+$"
		evaluator_rare "$py: sorted with a key"
		threads "$py"
		ran="$ran $v($py: sleep, loop ($s%), sorted, threads)"
		;;
	3.8)
		# a version without a row (3.8 has the symbols looked for; 3.6 no _PyRuntime): said,
		# and its stacks keep the evaluator's frames
		[ -z "$said" ] || continue
		other_python "$py"
		grep -q "python: .*python$v.* is CPython $v, whose frames bpftools cannot read yet" "$ERR" ||
			fail "$py: no line saying CPython $v is not read"
		expect_line "_PyEval_EvalFrameDefault"
		grep -q 'python_svc.py' "$OUT" && fail "$py: Python frames of a version without a row"
		said=1
		ran="$ran $v($py, said unread)"
		;;
	esac
done
for v in 3.9 3.10 3.11 3.12 3.13; do
	case $ran in
	*" $v("*) ;;
	*) echo "# CPython $v: not found on this machine (pyenv, /usr/local/bin), not run" ;;
	esac
done
ok "other interpreters:${ran:- none found}"
