#!/bin/sh
# The binary runs in the guest: its command list, and one real tool (softirqs, on tracepoints).
# shellcheck source=test/vm/lib.sh
. "$BTVM_LIB"

run_tool -t 30 --list
assert_rc 0
assert_contains "$OUT" '^softirqs[[:space:]]' "bpftools --list"

run_tool -t 60 softirqs 1 1
assert_rc 0
assert_contains "$OUT" '^Tracing soft irq event time\.\.\. Hit Ctrl-C to end\.' "softirqs output"
assert_contains "$OUT" '^SOFTIRQ +TOTAL_usecs$' "softirqs header"
# the guest's timer ticks raise timer (and usually rcu/sched) softirqs every second
assert_count_ge "$OUT" '^[a-z_]+ +[0-9]+$' 1 "softirqs rows"
assert_contains "$OUT" '^(timer|sched|rcu) +[0-9]+$' "softirqs rows"
exit 0
