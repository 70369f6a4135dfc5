#!/bin/sh
# hardirqs on this kernel: real handler rows while direct I/O makes the disk interrupt, counts
# checked against /proc/interrupts, the in-kernel CPU filter excluding another CPU's
# interrupts, histograms, JSON, the raw_tp fallback, and Ctrl-C printing the final table.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints
need python3

# The interrupts come from the disk: direct reads of a small file, each one disk request, so
# one completion interrupt or so (virtio-blk here). The file is where direct I/O reaches a
# disk: $T, else the first of these on a block device (/sys/dev/block) that takes O_DIRECT
# (tmpfs, a common /tmp, is on none; since 6.6 it takes O_DIRECT, from memory).
IO_FILE=""
for d in "$T" "${BT_IO_DIR:-}" /var/tmp "$(dirname "$BPFTOOLS")" "$HOME"; do
	[ -n "$d" ] && [ -d "$d" ] || continue
	f=$d/bt-hardirqs-io.$$
	[ "$d" = "$T" ] && f=$T/io
	if dd if=/dev/urandom of="$f" bs=4k count=256 2>/dev/null &&
		[ -e "/sys/dev/block/$(stat -c '%Hd:%Ld' "$f")" ] &&
		dd if="$f" of=/dev/null bs=4k count=1 iflag=direct 2>/dev/null; then
		IO_FILE=$f
		break
	fi
	rm -f "$f"
done
[ -n "$IO_FILE" ] ||
	skip "no disk I/O to interrupt: none of $T, ${BT_IO_DIR:+$BT_IO_DIR, }/var/tmp, $(dirname "$BPFTOOLS"), $HOME is on a block device that takes O_DIRECT reads"
[ "$IO_FILE" = "$T/io" ] || trap 'rm -rf "$T" "$IO_FILE"' EXIT

# Direct reads for $1 seconds, in the background; $IO is its pid.
io_for() {
	(
		end=$(($(date +%s) + $1))
		while [ "$(date +%s)" -lt "$end" ]; do
			dd if="$IO_FILE" of=/dev/null bs=4k iflag=direct 2>/dev/null
		done
	) &
	IO=$!
}

# The columns of /proc/interrupts: the online CPUs, by number (CPU3 is "3").
COLS=$(head -1 /proc/interrupts | sed 's/CPU//g')
ncol=$(echo $COLS | wc -w)
# irqs_of NAME: that handler's count per CPU (column) in /proc/interrupts, space separated.
irqs_of() {
	awk -v n="$1" -v c="$ncol" '$NF == n { s = ""; for (i = 2; i <= c + 1; i++) s = s " " $i; print s }' /proc/interrupts
}
# irq_counts: "NAME TOTAL" of every device interrupt line of /proc/interrupts.
irq_counts() {
	awk -v c="$ncol" '$1 ~ /^[0-9]+:$/ { s = 0; for (i = 2; i <= c + 1; i++) s += $i; print $NF, s }' /proc/interrupts
}

# The disk's handler: the line of /proc/interrupts that 2 s of our reads raised most over 2 s
# without them (others' traffic on a NIC is not ours). A disk whose completions do not
# interrupt (a polled or memory-backed one) leaves none to count.
irq_counts >"$T/irq0"
sleep 2
irq_counts >"$T/irq1"
io_for 3
sleep 0.5
irq_counts >"$T/irq2"
sleep 2
irq_counts >"$T/irq3"
wait $IO
set -- $(awk 'FILENAME ~ /irq0$/ { a[$1] = $2; next } FILENAME ~ /irq1$/ { q[$1] = $2 - a[$1]; next }
	FILENAME ~ /irq2$/ { b[$1] = $2; next }
	{ d = $2 - b[$1]; if (d - q[$1] > m) { m = d - q[$1]; n = $1; r = d } } END { print n, r + 0 }' \
	"$T/irq0" "$T/irq1" "$T/irq2" "$T/irq3")
disk=${1:-} rise=${2:-0}
[ "$rise" -ge 50 ] || skip "no interrupting disk: direct reads of $IO_FILE (device $(stat -c '%Hd:%Ld' "$IO_FILE")) raised at most $rise interrupts in 2 s on any line of /proc/interrupts (${disk:-none})"

# The busiest handler under disk I/O: the first row of a -C table, a handler the kernel names;
# the disk's among the rows.
io_for 3
run hardirqs -C 2 1
wait $IO
expect_rc 0 "hardirqs -C 2 1"
[ "$(head -1 "$OUT")" = "Tracing hard irq events... Hit Ctrl-C to end." ] || fail "banner"
expect_line '^HARDIRQ                    TOTAL_count$'
top=$(awk 'f { print $1; exit } /^HARDIRQ/ { f = 1 }' "$OUT")
[ -n "$top" ] || fail "no handler row under disk I/O"
grep -q " $top\$" /proc/interrupts || fail "row '$top' is not a handler name in /proc/interrupts"
[ "$(value_of "$disk")" -gt 0 ] || fail "no row for the disk's handler '$disk' ($rise in 2 s in /proc/interrupts)"
# BCC's layout "%-26s %11d", rows sorted descending
awk 'f && NF { if (length($0) != 38 || substr($0, 27, 1) != " ") exit 1 } /^HARDIRQ/ { f = 1 }' "$OUT" ||
	fail "rows not in %-26s %11d layout"
awk 'f && prev != "" && $NF > prev { exit 1 } f { prev = $NF } /^HARDIRQ/ { f = 1 }' "$OUT" || fail "rows not sorted descending"
ok "busiest handler under disk I/O: $top; the disk's: $disk"

# Counts against the kernel's own: never more than /proc/interrupts saw over a window that
# encloses the trace, and most of them (the window is only the start-up longer).
io_for 4
sleep 0.5
before=$(irqs_of "$disk")
run hardirqs -C 2 1
after=$(irqs_of "$disk")
wait $IO
expect_rc 0 "hardirqs -C 2 1"
kernel=$(echo "$before $after" | awk -v c="$ncol" '{ d = 0; for (i = 1; i <= c; i++) d += $(c + i) - $i; print d }')
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
# interrupts while the others took many; what is counted can only be this CPU's. (Column k of
# /proc/interrupts is CPU $(k-th of COLS).)
if [ "$ncol" -lt 2 ]; then
	echo "skipped: the CPU filter (one online CPU: no other CPU's interrupts to exclude)"
else
	before=$(irqs_of "$disk")
	io_for 3
	sleep 1
	mid=$(irqs_of "$disk")
	k=$(echo "$before $mid" | awk -v c="$ncol" '{ m = -1; for (i = 1; i <= c; i++) { d = $(c + i) - $i; if (m < 0 || d < m) { m = d; k = i } } print k }')
	cpu=$(echo $COLS | cut -d' ' -f"$k")
	before=$(irqs_of "$disk")
	run hardirqs -C -c "$cpu" 2 1
	after=$(irqs_of "$disk")
	wait $IO
	expect_rc 0 "hardirqs -C -c $cpu 2 1"
	here=$(echo "$before $after" | awk -v c="$ncol" -v k="$k" '{ print $(c + k) - $k }')
	other=$(echo "$before $after" | awk -v c="$ncol" -v k="$k" '{ d = 0; for (i = 1; i <= c; i++) if (i != k) d += $(c + i) - $i; print d }')
	n=$(value_of "$disk")
	# x86 delivers an MSI vector to one CPU at a time, so the others' share is large; a disk
	# with a queue per CPU (NVMe: a handler per queue) interrupts the CPU that asked, only
	if [ "$other" -lt 50 ]; then
		echo "skipped: the CPU filter (the disk's interrupts did not go elsewhere than CPU $cpu: $here there, $other on the other CPUs; nothing to exclude)"
	else
		[ "$n" -le "$here" ] || fail "-c $cpu counted $n '$disk' interrupts; CPU $cpu took $here, the others $other"
		ok "cpu filter: -c $cpu counted $n of this CPU's $here, none of the others' $other"
	fi
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
start_tool hardirqs -C 60
sleep 1
finish_tool INT
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
