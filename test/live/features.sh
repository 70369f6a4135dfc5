#!/bin/sh
# features on this kernel: each facility tried for real, the refusals with their reasons (no
# kprobes, fentry refused under lockdown), the same facts as JSON, the per-tool verdicts, and a
# kernel function refused with one line naming both reasons.
. "$(dirname "$0")/lib.sh"
require root btf
need python3

# A facility's state in the text report: "yes", or "no (reason)".
state() {
	sed -n "s|^$1  *||p" "$OUT" | head -n 1
}

run features
expect_rc 0 "features"
[ -s "$ERR" ] && fail "features wrote to stderr"
# what every kernel bpftools supports has (5.10 or later, with BTF)
for f in BTF tp_btf raw_tp "ring buffer" "stack maps" "perf events"; do
	[ "$(state "$f")" = yes ] || fail "$f: '$(state "$f")', expected yes on this kernel"
done
# what a kernel may be built without: as this one has it
has() {
	if [ "$2" = yes ]; then
		[ "$(state "$1")" = yes ] || fail "$1: '$(state "$1")', expected yes: this kernel has them"
	else
		state "$1" | grep -q '^no (.' || fail "$1: '$(state "$1")', expected no (a reason): this kernel has none"
	fi
	echo "$1: $(state "$1")"
}
up=no tp=no
[ -e /sys/bus/event_source/devices/uprobe/type ] && up=yes
{ [ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ]; } && tp=yes
has uprobes $up
has USDT $up
has tracepoints $tp
ok "available: BTF, tp_btf, raw_tp, ring buffer, stacks, perf; uprobes, USDT $up, tracepoints $tp"

# The facts the report must get right, checked against the kernel itself.
if [ -e /sys/bus/event_source/devices/kprobe/type ]; then
	[ "$(state kprobes)" = yes ] || fail "kprobes: '$(state kprobes)' but the kprobe PMU exists"
else
	[ "$(state kprobes)" = "no (kernel built without kprobes)" ] ||
		fail "kprobes: '$(state kprobes)', expected 'no (kernel built without kprobes)'"
	[ "$(state kretprobes)" = "no (kernel built without kprobes)" ] || fail "kretprobes: '$(state kretprobes)'"
	expect_line '^kprobe\.multi +no \(no kprobes\)$'
fi
ok "kprobes: $(state kprobes)"

mode=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/security/lockdown 2>/dev/null)
if [ -z "$mode" ] && [ -d /sys/kernel/security ]; then
	grep -q ' /sys/kernel/security securityfs ' /proc/mounts ||
		fail "no securityfs mounted after features ran (it mounts it to read lockdown)"
	[ -e /sys/kernel/security/lockdown ] && fail "no lockdown mode readable after features ran"
fi
if [ -z "$mode" ]; then
	# a kernel without the lockdown LSM (CONFIG_SECURITY_LOCKDOWN_LSM) or securityfs
	[ "$(state lockdown)" = "unknown (no securityfs)" ] ||
		fail "lockdown: '$(state lockdown)', but this kernel has no /sys/kernel/security/lockdown"
else
	[ "$(state lockdown)" = "$mode" ] || fail "lockdown: '$(state lockdown)', the kernel says '$mode'"
fi
fentry=$(state fentry/fexit)
case $fentry in
yes) ;;
"no (refused: EPERM; lockdown: $mode)") ;;
"no (refused: EPERM)") [ "${mode:-none}" = none ] || fail "fentry EPERM without naming lockdown '$mode'" ;;
*) fail "fentry/fexit: '$fentry'" ;;
esac
ok "fentry/fexit: $fentry; lockdown: $mode"

[ "$(state kptr_restrict)" = "$(cat /proc/sys/kernel/kptr_restrict)" ] || fail "kptr_restrict"
[ "$(state perf_event_paranoid)" = "$(cat /proc/sys/kernel/perf_event_paranoid)" ] || fail "perf_event_paranoid"
expect_line '^kernel functions +[0-9]+ traceable \((available_filter_functions|kallsyms\+BTF; available_filter_functions: E[A-Z]+)\)$'
nk=$(sed -n 's/^kernel functions  *\([0-9]*\) .*/\1/p' "$OUT")
[ "$nk" -ge 10000 ] || fail "only $nk traceable kernel functions"
ok "sysctls and $nk traceable kernel functions"

# Tools: softirqs runs on tp_btf here (raw_tp would be the fallback).
expect_line '^TOOL +CAN RUN$'
expect_line '^softirqs +yes \(BTF tracepoints: tp_btf\)$'
# Every line is "name  value": aligned in one column.
awk 'NF && !/^TOOL/ && (substr($0, 23, 1) != " " || substr($0, 24, 1) == " ") { bad = $0 } END { if (bad) { print bad; exit 1 } }' "$OUT" ||
	fail "report not aligned at column 24"
ok "tools"

# JSON: valid, and the same facts.
cp "$OUT" "$T/text"
run features --json
expect_rc 0 "features --json"
python3 -m json.tool "$OUT" >/dev/null 2>"$T/jerr" || { cat "$T/jerr" >&2; fail "--json output is not valid JSON"; }
python3 - "$OUT" "$T/text" "$mode" <<'PY' || fail "JSON facts differ from the text report"
import json, sys
j = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read().splitlines()
f = j["facilities"]
names = {"btf": "BTF", "kprobes": "kprobes", "kretprobes": "kretprobes", "fentry": "fentry/fexit",
         "kprobe_multi": "kprobe.multi", "uprobes": "uprobes", "usdt": "USDT", "tp_btf": "tp_btf",
         "raw_tp": "raw_tp", "tracepoints": "tracepoints", "ringbuf": "ring buffer",
         "stack_maps": "stack maps", "perf_events": "perf events"}
for key, name in names.items():
    line = next(l for l in text if l.startswith(name + " "))
    value = line[len(name):].strip()
    want = "yes" if f[key]["available"] else "no (%s)" % f[key]["reason"]
    assert value == want, (key, value, want)
assert j["lockdown"] == (sys.argv[3] or None), j["lockdown"]
assert j["kernel_functions"]["traceable"] > 10000
assert j["tools"]["softirqs"]["can_run"] == "yes"
assert j["tools"]["softirqs"]["needs"][0]["mechanism"] == "tp_btf"
if not f["kprobes"]["available"] and not f["fentry"]["available"]:
    assert f["fentry"]["errno"] == "EPERM", f["fentry"]
PY
ok "--json parses and agrees with the text report"

# Kernel functions refused, with one line naming what was tried and why each failed.
if [ "$(state kprobes)" != yes ] && [ "$fentry" != yes ]; then
	if "$BPFTOOLS" --list | grep -q '^funccount '; then
		run funccount vfs_read
		expect_rc 1 "funccount vfs_read"
		[ "$(wc -l <"$ERR")" = 1 ] || fail "funccount vfs_read: expected one stderr line"
		grep -Eq "^funccount: cannot trace 'vfs_read': fentry refused \(EPERM(; lockdown: $mode)?\); kernel built without kprobes$" "$ERR" ||
			fail "funccount vfs_read: wrong reason: $(cat "$ERR")"
		run funccount --attach=kprobe vfs_read
		expect_rc 1 "funccount --attach=kprobe vfs_read"
		grep -Eq "^funccount: cannot trace 'vfs_read': kernel built without kprobes$" "$ERR" ||
			fail "funccount --attach=kprobe: $(cat "$ERR")"
		run funccount --attach=fentry 'vfs_*'
		expect_rc 1 "funccount --attach=fentry 'vfs_*'"
		[ "$(wc -l <"$ERR")" = 1 ] || fail "funccount 'vfs_*': expected one stderr line"
		grep -Eq "^funccount: cannot trace 'vfs_[a-z_]+' \(and [0-9]+ more\): fentry refused \(EPERM" "$ERR" ||
			fail "funccount --attach=fentry 'vfs_*': $(cat "$ERR")"
		run funccount --attach=bogus vfs_read
		expect_rc 2 "funccount --attach=bogus"
		ok "funccount on kernel functions: refused in one line"
	else
		echo "note: no funccount yet; kernel-function refusal checked through features only"
	fi
fi

# Boolean switches read the same way everywhere (lib/base/bt_env.c): 0, no, false, off and empty are
# off, as BPFTOOLS_DEBUG=0 always was; BPFTOOLS_NO_TP_BTF=0 used to turn tp_btf off.
run features
if grep -q '^tp_btf  *yes' "$OUT"; then
	for v in 0 no false off ""; do
		BPFTOOLS_NO_TP_BTF=$v run features
		grep -q '^tp_btf  *yes' "$OUT" || fail "BPFTOOLS_NO_TP_BTF='$v' turned tp_btf off"
	done
	for v in 1 yes; do
		BPFTOOLS_NO_TP_BTF=$v run features
		grep -q '^tp_btf  *no' "$OUT" || fail "BPFTOOLS_NO_TP_BTF='$v' left tp_btf on"
	done
	ok "BPFTOOLS_NO_TP_BTF: 0/no/false/off/empty are off, 1/yes on"
fi

# Bad input: exit 2, nothing on stdout.
run features extra
expect_rc 2 "features extra"
[ -s "$OUT" ] && fail "features extra printed to stdout"
run features --nope
expect_rc 2 "features --nope"
ok "bad input"
