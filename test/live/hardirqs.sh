#!/bin/sh
# hardirqs on this kernel: real handler rows while direct I/O makes the disk interrupt, counts
# checked against /proc/interrupts, the in-kernel CPU filter excluding another CPU's
# interrupts, histograms, JSON, the raw_tp fallback, and Ctrl-C printing the final table.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints

# Direct reads of a small file for $1 seconds: each is one disk request, so one completion
# interrupt or so (virtio-blk here). In the background; $IO is its pid.
dd if=/dev/urandom of="$T/io" bs=4k count=256 2>/dev/null
io_for() {
	(
		end=$(($(date +%s) + $1))
		while [ "$(date +%s)" -lt "$end" ]; do
			dd if="$T/io" of=/dev/null bs=4k iflag=direct 2>/dev/null
		done
	) &
	IO=$!
}

# irqs_of NAME: that handler's count per CPU in /proc/interrupts, space separated.
ncpu=$(nproc)
irqs_of() {
	awk -v n="$1" -v c="$ncpu" '$NF == n { s = ""; for (i = 2; i <= c + 1; i++) s = s " " $i; print s }' /proc/interrupts
}

# The busiest handler under disk I/O: the first row of a -C table.
io_for 3
run hardirqs -C 2 1
wait $IO
expect_rc 0 "hardirqs -C 2 1"
[ "$(head -1 "$OUT")" = "Tracing hard irq events... Hit Ctrl-C to end." ] || fail "banner"
expect_line '^HARDIRQ                    TOTAL_count$'
disk=$(awk 'f { print $1; exit } /^HARDIRQ/ { f = 1 }' "$OUT")
[ -n "$disk" ] || fail "no handler row under disk I/O"
grep -q " $disk\$" /proc/interrupts || fail "row '$disk' is not a handler name in /proc/interrupts"
# BCC's layout "%-26s %11d", rows sorted descending
awk 'f && NF { if (length($0) != 38 || substr($0, 27, 1) != " ") exit 1 } /^HARDIRQ/ { f = 1 }' "$OUT" ||
	fail "rows not in %-26s %11d layout"
awk 'f && prev != "" && $NF > prev { exit 1 } f { prev = $NF } /^HARDIRQ/ { f = 1 }' "$OUT" || fail "rows not sorted descending"
ok "busiest handler under disk I/O: $disk"

# Counts against the kernel's own: never more than /proc/interrupts saw over a window that
# encloses the trace, and most of them (the window is only the start-up longer).
io_for 4
sleep 0.5
before=$(irqs_of "$disk")
run hardirqs -C 2 1
after=$(irqs_of "$disk")
wait $IO
expect_rc 0 "hardirqs -C 2 1"
kernel=$(echo "$before $after" | awk -v c="$ncpu" '{ d = 0; for (i = 1; i <= c; i++) d += $(c + i) - $i; print d }')
n=$(value_of "$disk")
[ "$n" -ge 50 ] || fail "only $n '$disk' interrupts counted under 2 s of direct I/O"
[ "$n" -le "$kernel" ] || fail "counted $n '$disk' interrupts, the kernel saw only $kernel"
[ $((n * 10)) -ge $((kernel * 6)) ] || fail "counted $n '$disk' interrupts of the kernel's $kernel"
ok "counts: $disk=$n (kernel: $kernel)"

# Time, then nanoseconds: a real, plausible total.
io_for 3
run hardirqs 2 1
wait $IO
expect_rc 0 "hardirqs 2 1"
[ "$(head -1 "$OUT")" = "Tracing hard irq event time... Hit Ctrl-C to end." ] || fail "banner"
expect_line '^HARDIRQ                    TOTAL_usecs$'
us=$(value_of "$disk")
[ "$us" -ge 1 ] || fail "'$disk' time $us us"
io_for 2
run hardirqs -N 1 1
wait $IO
expect_line '^HARDIRQ                    TOTAL_nsecs$'
ns=$(value_of "$disk")
[ "$ns" -ge 1000 ] || fail "'$disk' time $ns ns is implausibly small"
ok "time: $disk=${us}us, ${ns}ns"

# The CPU filter runs in the kernel: trace the CPU that took the fewest of the disk's
# interrupts while the other took many; what is counted can only be this CPU's.
if [ "$ncpu" -ge 2 ]; then
	before=$(irqs_of "$disk")
	io_for 3
	sleep 1
	mid=$(irqs_of "$disk")
	cpu=$(echo "$before $mid" | awk -v c="$ncpu" '{ m = -1; for (i = 1; i <= c; i++) { d = $(c + i) - $i; if (m < 0 || d < m) { m = d; k = i - 1 } } print k }')
	before=$(irqs_of "$disk")
	run hardirqs -C -c "$cpu" 2 1
	after=$(irqs_of "$disk")
	wait $IO
	expect_rc 0 "hardirqs -C -c $cpu 2 1"
	here=$(echo "$before $after" | awk -v c="$ncpu" -v k="$cpu" '{ print $(c + k + 1) - $(k + 1) }')
	other=$(echo "$before $after" | awk -v c="$ncpu" -v k="$cpu" '{ d = 0; for (i = 1; i <= c; i++) if (i != k + 1) d += $(c + i) - $i; print d }')
	n=$(value_of "$disk")
	# x86 delivers an MSI vector to one CPU at a time, so the others' share is large
	[ "$other" -ge 50 ] || fail "the disk's interrupts went to CPU $cpu too ($here; $other elsewhere): nothing to exclude"
	[ "$n" -le "$here" ] || fail "-c $cpu counted $n '$disk' interrupts; CPU $cpu took $here, the others $other"
	ok "cpu filter: -c $cpu counted $n of this CPU's $here, none of the others' $other"
fi

# Histograms with -T: a time line, one section per handler, BCC's header.
io_for 2
run hardirqs -dT 1 1
wait $IO
expect_rc 0 "hardirqs -dT 1 1"
expect_line '^[0-9]{2}:[0-9]{2}:[0-9]{2}$'
expect_line "^hardirq = $disk\$"
expect_line '^     usecs               : count     distribution$'
expect_line '^ +[0-9]+ -> [0-9]+ +: [0-9]+ +\|\**\|$'
ok "histograms"

# JSON Lines, one object per output: parsed, the disk's row there with a real count, and the
# histograms as {low, high, count} buckets.
io_for 3
run hardirqs -C --json 1 2
wait $IO
expect_rc 0 "hardirqs -C --json 1 2"
python3 -c '
import json, re, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 2, lines
for line in lines:
    o = json.loads(line)
    assert o["val_type"] == "count", o
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", o["ts"]), o
    rows = {r["name"]: r["count"] for r in o["irqs"]}
    assert rows.get(sys.argv[2], 0) > 0, rows
' "$OUT" "$disk" || fail "JSON output (JSON Lines, one object per output)"
io_for 2
run hardirqs -d --json 1 1
wait $IO
python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
r = [r for r in o["irqs"] if r["name"] == sys.argv[2]][0]
assert sum(b["count"] for b in r["hist"]) > 0, r
assert all(b["low"] <= b["high"] for b in r["hist"]), r
assert r["hist"][0]["low"] == 0 and r["hist"][0]["high"] == 1, r
' "$OUT" "$disk" || fail "JSON histograms"
ok "json"

# Kernels where tp_btf cannot be loaded fall back to raw_tp (forced through the test hook).
io_for 3
OUT=$T/raw ERR=$T/rawerr
BPFTOOLS_NO_TP_BTF=1 BPFTOOLS_DEBUG=1 "$BPFTOOLS" hardirqs -C 2 1 >"$OUT" 2>"$ERR"
RC=$?
wait $IO
expect_rc 0 "hardirqs -C 2 1 without tp_btf"
grep -q "using 'irq_exit_raw' instead of 'irq_exit_btf'" "$ERR" || fail "raw_tp fallback not taken"
n=$(value_of "$disk")
[ "$n" -ge 50 ] || fail "raw_tp: only $n '$disk' interrupts counted"
ok "raw_tp fallback: $disk=$n"

# Ctrl-C before the first interval: the final table, exit 0.
OUT=$T/int ERR=$T/interr
"$BPFTOOLS" hardirqs -C 60 >"$OUT" 2>"$ERR" &
pid=$!
sleep 2
kill -INT $pid
RC=0
wait $pid || RC=$?
expect_rc 0 "hardirqs -C 60, then SIGINT"
expect_line '^HARDIRQ                    TOTAL_count$'
ok "sigint prints the summary"

# Bad input: one line naming the problem, the usage line, exit 2.
for bad in "0" "abc" "1 0" "1 x" "1 2 3" "-c 9999" "-c x" "-C -d" "-C -N" "--nope"; do
	# shellcheck disable=SC2086
	run hardirqs $bad
	expect_rc 2 "hardirqs $bad"
	[ -s "$OUT" ] && fail "hardirqs $bad printed to stdout"
	head -1 "$ERR" | grep -q '^hardirqs: ' || fail "hardirqs $bad: first stderr line does not name the tool"
done
ok "bad input"
