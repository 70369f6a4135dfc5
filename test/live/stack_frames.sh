#!/bin/sh
# Frames that are not plain functions, end to end through stackcount: an inlined call (with
# --debuginfo) and a JIT stub named by /tmp/perf-PID.map, each between two real frames, named
# in the text, marked in --json, and of their own kind (colour class) in --flamegraph.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints uprobes
CHECK="python3 $(dirname "$0")/flamegraph.py"
need python3 # to read the JSON and the SVG

WI=$BT_WORKLOADS/inline_work
WJ=$BT_WORKLOADS/jit_work
[ -x "$WI" ] && [ -x "$WJ" ] || fail "workloads not built"
SVG=$T/f.svg

# frames_of: the stack blocks of $OUT as "name|name|...|count" lines, leaf first, with
# " at file:line" dropped (line numbers are the compiler's business).
frames_of() {
	awk '/^$/ { if (s != "") print s; s = ""; next }
		/^    [0-9]+$/ { s = s "|" $1; next }
		/^  / { sub(/^  /, ""); sub(/ at [^ ]*:[0-9]+$/, ""); s = s == "" ? $0 : s "|" $0 }' "$OUT"
}

# Inlined: il_leaf is called from il_middle (inlined into il_outer) 3 times, and from
# il_middle2 (inlined into il_outer2) 6 times. il_middle2's call is its last instruction, so
# only the address before the return address lies in it: that frame is there only when the
# symbolizer looks up return addresses at pc - 1.
BANNER='^Tracing' traced_workload "$WI" 3 -- stackcount -U -p @PID -D 3 --debuginfo "$WI:il_leaf"
expect_rc 0 "stackcount --debuginfo (inlined)"
frames_of >"$T/stacks"
grep -qx 'il_leaf|il_middle (inlined)|il_outer|main|.*|3' "$T/stacks" ||
	fail "inlined: no 'il_leaf <- il_middle (inlined) <- il_outer <- main' stack counted 3: $(cat "$T/stacks")"
grep -qx 'il_leaf|il_middle2 (inlined)|il_outer2|main|.*|6' "$T/stacks" ||
	fail "inlined at the end of its range: no 'il_leaf <- il_middle2 (inlined) <- il_outer2' stack counted 6 (return address not looked up at pc - 1?): $(cat "$T/stacks")"
expect_line "^  il_middle \\(inlined\\) at .*inline_work\\.c:[0-9]+$"
ok "inlined frames in the text, the call inside and at the end of the inlined code"

BANNER_IN=err traced_workload "$WI" 3 -- stackcount -U -p @PID -D 3 --debuginfo \
	--json "$WI:il_leaf"
expect_rc 0 "stackcount --debuginfo --json (inlined)"
python3 - "$OUT" <<'PY' || fail "inlined: JSON stacks"
import json, sys
want = {("il_leaf", "il_middle", "il_outer", "main"): 3, ("il_leaf", "il_middle2", "il_outer2", "main"): 6}
inl = {"il_middle", "il_middle2"}
got = {}
for line in open(sys.argv[1]):
    for s in json.loads(line)["stacks"]:
        fr = s["user_stack"][:4]
        for f in fr:
            assert f["inlined"] == (f["name"] in inl), "inlined flag wrong: %r" % f
            assert f["file"].endswith("inline_work.c") and f["line"] > 0, f
        # the inlined frame and its caller share one address: the call's return address
        assert fr[1]["address"] == fr[2]["address"], fr
        got[tuple(f["name"] for f in fr)] = s["count"]
assert got == want, got
PY
ok "inlined frames in --json: flagged, sharing their caller's address"

BANNER_IN=err traced_workload "$WI" 3 -- stackcount -U -f -p @PID -D 3 --debuginfo \
	--flamegraph="$SVG" "$WI:il_leaf"
expect_rc 0 "stackcount -f --debuginfo --flamegraph (inlined)"
grep -q ';il_outer at [^;]*;il_middle (inlined) at [^;]*;il_leaf at [^;]* 3$' "$OUT" ||
	fail "inlined: folded line"
$CHECK svg "$OUT" "$SVG" "il_middle (inlined)*=inlined" "il_middle2 (inlined)*=inlined" \
	"il_outer *=user" "il_leaf *=user" || fail "inlined: SVG"
ok "inlined frames in --flamegraph: kind inlined"

# JIT: jw_probed is called 4 times from jit_stub_fn, code in an anonymous mapping that only
# the workload's perf map names, called from jw_caller. The map is written before the tool
# starts and removed when the workload exits, before the tool prints.
[ "$(uname -m)" = x86_64 ] || skip "the JIT stub is x86-64 machine code"
BANNER='^Tracing' traced_workload "$WJ" 4 -- stackcount -U -p @PID -D 3 "$WJ:jw_probed"
jpid=$wpid
expect_rc 0 "stackcount (JIT)"
[ -e "/tmp/perf-$jpid.map" ] && fail "jit_work left /tmp/perf-$jpid.map behind"
frames_of >"$T/stacks"
grep -qx 'jw_probed|jit_stub_fn|jw_caller|main|.*|4' "$T/stacks" ||
	fail "JIT: no 'jw_probed <- jit_stub_fn <- jw_caller <- main' stack counted 4: $(cat "$T/stacks")"
ok "JIT frame named from the perf map, after the map is gone"

BANNER_IN=err traced_workload "$WJ" 4 -- stackcount -U -p @PID -D 3 --json \
	"$WJ:jw_probed"
expect_rc 0 "stackcount --json (JIT)"
rm -f "/tmp/perf-$wpid.map"
python3 - "$OUT" <<'PY' || fail "JIT: JSON stack"
import json, sys
(s,) = [s for line in open(sys.argv[1]) for s in json.loads(line)["stacks"]]
fr = s["user_stack"][:4]
assert [f["name"] for f in fr] == ["jw_probed", "jit_stub_fn", "jw_caller", "main"], fr
# JSON frames have no kind field: the module says JIT, as it does to the flame graph writer
assert [f["module"] == "[perf-map]" for f in fr] == [False, True, False, False], fr
assert not any(f["inlined"] for f in fr) and s["count"] == 4, s
# the return address into the stub: past its 6 bytes of prologue and 10 of movabs
assert fr[1]["offset"] == 16, fr[1]
PY
ok "JIT frame in --json: module [perf-map], offset into the stub"

BANNER_IN=err traced_workload "$WJ" 4 -- stackcount -U -f -p @PID -D 3 --flamegraph="$SVG" \
	"$WJ:jw_probed"
expect_rc 0 "stackcount -f --flamegraph (JIT)"
rm -f "/tmp/perf-$wpid.map"
expect_line '^jit_work;.*;main;jw_caller;jit_stub_fn;jw_probed 4$'
$CHECK svg "$OUT" "$SVG" jit_stub_fn=jit jw_caller=user jw_probed=user main=user ||
	fail "JIT: SVG"
ok "JIT frame in --flamegraph: kind jit"
