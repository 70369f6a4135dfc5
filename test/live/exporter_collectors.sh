#!/bin/sh
# The exporter's collectors of smpcalls, offcputime, hardirqs, funccount, funclatency and
# vfsstat, on this kernel: series of a probe spec exist from the start at 0, and so do those of
# every hard IRQ handler sysfs names, each once, named as the probe names it (a handler that
# runs counts in that one series); after known workloads the counters hold exactly their calls
# (two funclatency specs in one family, the sleeps in their log2 bucket), a uniquely named
# sleeper's off-CPU seconds in state S, membarrier's cross calls (ipi_mb, on any host) and the
# TLB shootdowns /proc/interrupts counted (where there are any); a second round adds to the
# first (running totals, never read-and-clear, whoever scraped between); promtool accepts every
# scrape; vfsstat runs where the kernel can attach it, else --collect vfsstat is one line and
# exit 1.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints

for p in curl promtool python3; do
	command -v $p >/dev/null || fail "no '$p' (scripts/deps --test installs it)"
done
FC=$BT_WORKLOADS/fc_work FL=$BT_WORKLOADS/funclatency_work TLB=$BT_WORKLOADS/tlb_shootdown
for w in "$FC" "$FL" "$TLB"; do
	[ -x "$w" ] || fail "workload $w not built"
done
A=1000 B=2000

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
EX=""
trap '[ -n "$EX" ] && kill -TERM $EX 2>/dev/null; wait; rm -rf "$T"' EXIT

# scrape FILE: /metrics into FILE, checked by promtool.
scrape() {
	curl -sf --max-time 10 "http://127.0.0.1:$PORT/metrics" >"$1" || fail "scrape failed"
	promtool check metrics <"$1" >"$1.lint" 2>&1 || fail "promtool: $(head -3 "$1.lint")"
}

# metric FILE SERIES: the value of one series (a whole 'name{labels}' as printed), or "-".
metric() {
	awk -v s="$2" '$1 == s { v = $2; f = 1 } END { print f ? v : "-" }' "$1"
}

# released WORKLOAD ARGS...: run a workload that waits for SIGUSR1, release it, wait for it.
released() {
	"$@" &
	_w=$!
	sleep 0.2
	kill -USR1 $_w
	wait $_w || fail "$1 exited $?"
}

OUT=$T/out ERR=$T/err
"$BPFTOOLS" exporter --listen "127.0.0.1:$PORT" --collect smpcalls,offcputime,hardirqs \
	--funccount "$FC:bt_work_*" --funclatency "$FL:fl_sleep_long" \
	--funclatency "$FL:fl_sleep_short" >"$OUT" 2>"$ERR" &
EX=$!
i=0
until grep -q 'serving' "$ERR"; do
	i=$((i + 1))
	[ $i -le 150 ] && kill -0 $EX 2>/dev/null || fail "exporter did not start"
	sleep 0.1
done

FA="bpftools_funccount_calls_total{spec=\"$FC:bt_work_*\",function=\"bt_work_a\"}"
FB="bpftools_funccount_calls_total{spec=\"$FC:bt_work_*\",function=\"bt_work_b\"}"
LONG="spec=\"$FL:fl_sleep_long\",function=\"fl_sleep_long\""
SHORT="spec=\"$FL:fl_sleep_short\",function=\"fl_sleep_short\""
SMP='bpftools_smpcall_seconds_count{function="ipi_mb",kind="time"}'
TLBF='bpftools_smpcall_seconds_count{function="flush_tlb_func",kind="time"}'

# irqs snap FILE: each IRQ line's interrupts and handler names, from sysfs, into FILE.
# irqs check SNAP SCRAPE: every handler name of SNAP (as the probe has it: the first 31 bytes)
# has its series in both hardirqs families of SCRAPE, and no label set is there twice.
# irqs ran SNAP0 SNAP1 SCRAPE0 SCRAPE1: the handler of the line with the most interrupts
# between the snapshots, alone on its line, counted more runs in SCRAPE1 than in SCRAPE0.
cat >"$T/irqs.py" <<'PY'
import json, os, re, sys
FAMS = ("bpftools_hardirqs_total", "bpftools_hardirq_seconds_total")
def snap(path):
    lines = {}
    for n in os.listdir("/sys/kernel/irq"):
        try:
            with open("/sys/kernel/irq/%s/per_cpu_count" % n) as f:
                count = sum(int(c) for c in f.read().split(","))
            with open("/sys/kernel/irq/%s/actions" % n, "rb") as f:
                names = f.read().rstrip(b"\n").split(b",")
        except OSError:
            continue
        names = [x[:31].decode(errors="replace") for x in names if x and x != b"(null)"]
        lines[n] = [count, names]
    json.dump(lines, open(path, "w"))
def series(path):
    out = {f: {} for f in FAMS}
    for line in open(path):
        m = re.match(r'(\w+)\{handler="((?:[^"\\]|\\.)*)"\} (\S+)$', line)
        if m and m.group(1) in FAMS:
            name = re.sub(r"\\(.)", lambda e: "\n" if e.group(1) == "n" else e.group(1), m.group(2))
            if name in out[m.group(1)]:
                sys.exit("%s{handler=%r} twice" % (m.group(1), name))
            out[m.group(1)][name] = float(m.group(3))
    return out
if sys.argv[1] == "snap":
    snap(sys.argv[2])
elif sys.argv[1] == "check":
    names = {x for c, ns in json.load(open(sys.argv[2])).values() for x in ns}
    s = series(sys.argv[3])
    for f in FAMS:
        missing = names - set(s[f])
        if missing or not names:
            sys.exit("%s: no series for %s of sysfs's %d handlers" % (f, sorted(missing), len(names)))
    print("%d, %d of them at 0" % (len(names), sum(s[FAMS[0]][x] == 0 for x in names)))
else:
    a, b = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
    d = sorted((b[n][0] - a[n][0], b[n][1][0]) for n in a if n in b and len(b[n][1]) == 1)
    if not d or d[-1][0] <= 0:
        sys.exit("no interrupt between the scrapes")
    name, s0, s1 = d[-1][1], series(sys.argv[4]), series(sys.argv[5])
    runs = s1[FAMS[0]].get(name, 0) - s0[FAMS[0]].get(name, 0)
    if runs <= 0:
        sys.exit("%s: %d interrupts, its series %s -> %s" % (name, d[-1][0],
                 s0[FAMS[0]].get(name), s1[FAMS[0]].get(name)))
    print("%s ran (%d interrupts), %d runs counted in its one series" % (name, d[-1][0], runs))
PY
irqs() { python3 "$T/irqs.py" "$@"; }

irqs snap "$T/irq0"
scrape "$T/m0"
n=$(irqs check "$T/irq0" "$T/m0") ||
	fail "hardirqs: the first scrape lacks a handler sysfs names, or has one twice"
ok "hardirqs: the series of every handler sysfs names ($n) in the first scrape, each once"
irqs snap "$T/irq0b"
[ "$(metric "$T/m0" "$FA")" = 0 ] && [ "$(metric "$T/m0" "$FB")" = 0 ] ||
	fail "a spec's series are not there at 0 before any call: $(grep bt_work_ "$T/m0")"
ok "funccount series from the start at 0"

# The workloads: fc_work's A and B calls, funclatency_work's 3 sleeps of 5 ms and 5 of 1.5
# ms, two 0.6 s sleeps by a process named btoc_sleeper, TLB shootdowns, direct reads (disk
# interrupts).
released "$FC" $A $B 0 0
released "$FL" 3 5 0 0
cp "$(command -v sleep)" "$T/btoc_sleeper"
"$T/btoc_sleeper" 0.6 && "$T/btoc_sleeper" 0.6
smp0=$(metric "$T/m0" "$SMP")
[ "$smp0" = - ] && smp0=0
tlb0=$(awk '$1 == "TLB:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i; f = 1 } END { if (f) print n }' /proc/interrupts)
"$TLB" 2000 || fail "tlb_shootdown exited $?"
tlb1=$(awk '$1 == "TLB:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i; f = 1 } END { if (f) print n }' /proc/interrupts)
dd if=/dev/urandom of="$T/io" bs=4k count=64 2>/dev/null
dd if="$T/io" of=/dev/null bs=4k iflag=direct 2>/dev/null
irqs snap "$T/irq1"
scrape "$T/m1"

[ "$(metric "$T/m1" "$FA")" = $A ] && [ "$(metric "$T/m1" "$FB")" = $B ] ||
	fail "funccount: bt_work_a $(metric "$T/m1" "$FA") of $A, bt_work_b $(metric "$T/m1" "$FB") of $B"
ok "funccount: exact counts ($A, $B)"

irqs check "$T/irq1" "$T/m1" >/dev/null || fail "hardirqs: a handler without its series, or one twice"
r=$(irqs ran "$T/irq0b" "$T/irq1" "$T/m0" "$T/m1") || fail "hardirqs: the busiest handler not counted"
ok "hardirqs: $r"

[ "$(metric "$T/m1" "bpftools_funclatency_seconds_count{$LONG}")" = 3 ] &&
	[ "$(metric "$T/m1" "bpftools_funclatency_seconds_count{$SHORT}")" = 5 ] ||
	fail "funclatency counts: $(grep '_count{' "$T/m1" | grep funclatency)"
# A sleep never ends early: none in the bucket below its slot (5 ms: 2^22 ns to 2^23; 1.5 ms:
# 2^20 to 2^21), all by +Inf (how late each ends depends on the machine's load)
[ "$(metric "$T/m1" "bpftools_funclatency_seconds_bucket{$LONG,le=\"0.004194304\"}")" = 0 ] &&
	[ "$(metric "$T/m1" "bpftools_funclatency_seconds_bucket{$LONG,le=\"+Inf\"}")" = 3 ] &&
	[ "$(metric "$T/m1" "bpftools_funclatency_seconds_bucket{$SHORT,le=\"0.001048576\"}")" = 0 ] &&
	[ "$(metric "$T/m1" "bpftools_funclatency_seconds_bucket{$SHORT,le=\"+Inf\"}")" = 5 ] ||
	fail "funclatency buckets: $(grep 'funclatency_seconds_bucket' "$T/m1" | grep -v ' 0$')"
[ "$(grep -c '^# TYPE bpftools_funclatency_seconds histogram$' "$T/m1")" = 1 ] ||
	fail "two specs did not make one family"
sum=$(metric "$T/m1" "bpftools_funclatency_seconds_sum{$LONG}")
awk -v s="$sum" 'BEGIN { exit !(s >= 0.015 && s < 0.05) }' || fail "3 sleeps of 5 ms summed to $sum s"
ok "funclatency: 3 and 5 calls in their buckets, one family, sum $sum s"

off=$(metric "$T/m1" 'bpftools_offcpu_seconds_total{comm="btoc_sleeper",state="S"}')
awk -v s="$off" 'BEGIN { exit !(s >= 1.15 && s < 1.5) }' ||
	fail "offcputime: btoc_sleeper slept 1.2 s, exported $off s: $(grep btoc_sleeper "$T/m1")"
ok "offcputime: btoc_sleeper $off s in state S"

smp1=$(metric "$T/m1" "$SMP")
# membarrier's ipi_mb crosses CPUs on any host; TLB shootdowns only where the host makes them
[ "$smp1" != - ] && [ "$smp1" -gt "$smp0" ] ||
	fail "no ipi_mb cross calls: $(grep smpcall_seconds_count "$T/m1")"
ok "smpcalls: $((smp1 - smp0)) ipi_mb cross calls"
if [ -n "$tlb0" ] && [ $((tlb1 - tlb0)) -gt 0 ]; then
	# the kernel's count, read inside the scrapes: ours may exceed it by what came between
	d=$((tlb1 - tlb0)) f0=$(metric "$T/m0" "$TLBF") f1=$(metric "$T/m1" "$TLBF")
	[ "$f0" = - ] && f0=0
	[ "$f1" = - ] && f1=0
	n=$((f1 - f0))
	[ "$n" -ge "$d" ] || fail "smpcalls: $n flush_tlb_func cross calls, /proc/interrupts $d"
	ok "smpcalls: $n flush_tlb_func cross calls (/proc/interrupts: $d)"
else
	echo "note: /proc/interrupts counted no TLB shootdown: flush_tlb_func not checked"
fi

# Another scraper in between, then a second round: the totals go on from the first.
scrape "$T/m1b"
released "$FC" $A $B 0 0
scrape "$T/m2"
[ "$(metric "$T/m2" "$FA")" = $((2 * A)) ] && [ "$(metric "$T/m2" "$FB")" = $((2 * B)) ] ||
	fail "second round: bt_work_a $(metric "$T/m2" "$FA"), expected $((2 * A))"
[ "$(metric "$T/m2" "bpftools_funclatency_seconds_count{$LONG}")" = 3 ] ||
	fail "an idle histogram's totals left the exporter"
ok "running totals across scrapes"

kill -TERM $EX
RC=0
wait $EX || RC=$?
EX=""
expect_rc 0 "exporter, then SIGTERM"

# vfsstat: kprobes or fentry, which this kernel may lack (the default set leaves it out).
OUT=$T/vfs ERR=$T/vfs.err
"$BPFTOOLS" exporter --listen "127.0.0.1:$PORT" --collect vfsstat >"$OUT" 2>"$ERR" &
EX=$!
i=0
while ! grep -q 'serving' "$ERR" && kill -0 $EX 2>/dev/null && [ $i -le 150 ]; do
	i=$((i + 1))
	sleep 0.1
done
if grep -q serving "$ERR"; then
	cat /etc/hostname /etc/hostname >/dev/null
	scrape "$T/v"
	r=$(metric "$T/v" 'bpftools_vfs_calls_total{operation="read",function="vfs_read"}')
	[ "$r" != - ] && [ "$r" -gt 0 ] || fail "vfsstat: no reads counted: $(grep vfs_calls "$T/v")"
	ok "vfsstat: $r reads"
else
	RC=0
	wait $EX || RC=$?
	EX=""
	expect_rc 1 "exporter --collect vfsstat where the kernel cannot attach it"
	[ "$(wc -l <"$ERR")" -le 2 ] && grep -q "vfs_read" "$ERR" ||
		fail "--collect vfsstat: not one clear line: $(cat "$ERR")"
	ok "vfsstat: this kernel cannot attach it: $(tail -1 "$ERR")"
fi
exit 0
