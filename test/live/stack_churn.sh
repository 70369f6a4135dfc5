#!/bin/sh
# The stack tools that print at the end keep their rows under churn (issue 36): a row costs its
# frames' ids and its total, and past the cap the rows are one [other] row, counted. A churn of
# short processes, each sleeping down two paths of its own (stack_many one: 16,384 paths numbered
# by pid), under a system-wide offcputime -f: each process is two rows of its own that print.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints
CHURN=$BT_WORKLOADS/churn
SM=$BT_WORKLOADS/stack_many

rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

# Warmed up by 1,000 processes (the rings touched, libc's and the workload's symbols and unwind
# tables made, the table's first rows), then a round of 1,500 more, each process with two rows
# of its own. Before, a row's text was left in a buffer of 8 KiB cut down, which no later one
# fitted: a round of 3,000 rows grew RSS by 4-20 MiB; a row now costs its ids, ~130 bytes. A
# program new to the tool that starts elsewhere on the machine meanwhile has its symbol and
# unwind tables read (MiBs each, within their budgets): the test runs after the VM guests, alone
# (test/CMakeLists.txt), so that only its own processes come and go.
BANNER_IN=err start_tool offcputime -f
$CHURN 1000 "$SM" one 14 1 2 || fail "churn failed"
sleep 1
r0=$(rss $FPID)
$CHURN 1500 "$SM" one 14 1 2 || fail "churn failed"
sleep 1
r1=$(rss $FPID)
finish_tool INT
[ "$RC" = 0 ] || fail "offcputime exited $RC"
rows=$(grep -c '^stack_many;.*;leaf;' "$OUT" || true)
# pids are the machine's: some processes fall on paths taken already
[ "$rows" -ge 4000 ] || fail "offcputime: $rows rows of stack_many's paths after 2,500 processes"
[ $((r1 - r0)) -le 2048 ] ||
	fail "offcputime -f: RSS grew from $r0 to $r1 KiB over 1,500 processes of two rows each ($rows rows)"
ok "offcputime -f: RSS $r0 -> $r1 KiB over 1,500 processes of two rows each ($rows rows of their paths)"

# Past the cap (BPFTOOLS_STACK_ROWS=200 here) a row unlike every row kept adds to [other]:
# 200 rows and [other] print, and stderr counts the rows in it.
BPFTOOLS_STACK_ROWS=200 BANNER_IN=err start_tool offcputime -f -U
$CHURN 400 "$SM" one 14 1 || fail "churn failed"
sleep 0.5
finish_tool INT
[ "$RC" = 0 ] || fail "offcputime exited $RC"
n=$(wc -l <"$OUT")
other=$(grep -c '^\[other\] [0-9]*$' "$OUT" || true)
[ "$n" = 201 ] && [ "$other" = 1 ] || fail "offcputime -f -U capped at 200: $n lines, $other [other] rows"
folded=$(sed -n 's/^offcputime: warning: \([0-9]*\) rows past the cap of 200 rows or 1024 KiB printed as one \[other\] row.*/\1/p' "$ERR")
[ -n "$folded" ] && [ "$folded" -ge 150 ] || fail "no count of the rows in [other]: $(cat "$ERR")"
ok "offcputime -f -U capped at 200 rows: $folded more in one [other] row, said on stderr"

# a cap that is not a number is said, once, and the default kept
BPFTOOLS_STACK_ROWS=12x "$BPFTOOLS" offcputime -f 1 >/dev/null 2>"$T/bad" || fail "offcputime with BPFTOOLS_STACK_ROWS=12x exited $?"
[ "$(grep -c "BPFTOOLS_STACK_ROWS='12x' is not a number of rows" "$T/bad")" = 1 ] ||
	fail "BPFTOOLS_STACK_ROWS=12x: not said once: $(cat "$T/bad")"
ok "BPFTOOLS_STACK_ROWS=12x: one warning line, the default kept"

# stackcount too, in its own form: each process's sleep is a row of its own at the system call
if ls /sys/kernel/tracing/events/syscalls /sys/kernel/debug/tracing/events/syscalls 2>/dev/null |
	grep -q '^sys_enter_clock_nanosleep$'; then
	BPFTOOLS_STACK_ROWS=100 BANNER_IN=err start_tool stackcount -U -f \
		t:syscalls:sys_enter_clock_nanosleep
	$CHURN 250 "$SM" one 14 1 || fail "churn failed"
	sleep 0.5
	finish_tool INT
	[ "$RC" = 0 ] || fail "stackcount exited $RC"
	[ "$(wc -l <"$OUT")" = 101 ] && grep -q '^\[other\] [0-9]*$' "$OUT" ||
		fail "stackcount -f capped at 100: $(wc -l <"$OUT") lines, [other]: $(grep -c '^\[other\]' "$OUT")"
	grep -q 'rows past the cap of 100 rows or 1024 KiB printed as one \[other\] row' "$ERR" ||
		fail "stackcount said nothing of [other]: $(cat "$ERR")"
	ok "stackcount -f capped at 100 rows: the rest in one [other] row"
else
	echo "skipped: stackcount's cap (no syscalls:* tracepoints: kernel built without CONFIG_FTRACE_SYSCALLS)"
fi

# A quiet machine frees what exited too (issue 36): fewer than the 128 exits that make a
# collection, then nothing. The collection timer (5 s while exited processes wait) names the
# counts so far and frees the processes of the collection before, so two later all 50 are
# gone; before, they waited for 128 more exits, and the files only they mapped with them.
BPFTOOLS_DEBUG=1 BANNER_IN=err start_tool offcputime -f -U
$CHURN 50 "$SM" one 14 1 || fail "churn failed"
sleep 12
finish_tool INT
[ "$RC" = 0 ] || fail "offcputime exited $RC"
grep -Eq '^stack_many;.*;leaf[; ]' "$OUT" || fail "offcputime: no row of the churn's processes"
timed=$(awk '/debug: counts named while [0-9]+ exited processes waited/ && $6 < 128 { n++ } END { print n + 0 }' "$ERR")
kept=$(sed -n 's/.*debug: counts named while .* and \([0-9]*\) exited processes kept.*/\1/p' "$ERR" | tail -1)
[ "$timed" -ge 2 ] && [ -n "$kept" ] && [ "$kept" -lt 50 ] ||
	fail "a quiet machine: $timed collections with fewer than 128 exits, $kept exited processes still kept at the last: $(grep 'counts named' "$ERR")"
ok "offcputime -f on a quiet machine: $timed timed collections, $kept of 50 exited processes kept at the last"
