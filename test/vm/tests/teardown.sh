#!/bin/sh
# Tools leave nothing behind: no process, no kprobe/uprobe event, no pin; after a normal end
# and after SIGTERM (and SIGINT) while tracing. Extend it with any tool that attaches probes.
# shellcheck source=test/vm/lib.sh
. "$BTVM_LIB"

assert_no_probes "before the test"

# a normal end (interval 1, count 1)
run_tool -t 60 softirqs 1 1
assert_rc 0
assert_no_probes "after 'softirqs 1 1' exited"

# SIGTERM while tracing, as `timeout -s TERM` does
run_tool -t 3 -s TERM softirqs
assert_rc 0 # SIGTERM arrives through the signalfd like Ctrl-C: summary and exit 0
assert_contains "$OUT" '^Tracing soft irq' "softirqs output"
assert_contains "$OUT" '^SOFTIRQ +TOTAL_usecs$' "softirqs summary after SIGTERM"
assert_no_probes "after SIGTERM"

# SIGHUP (the terminal went away) too
run_tool -t 3 -s HUP softirqs
assert_rc 0
assert_contains "$OUT" '^SOFTIRQ +TOTAL_usecs$' "softirqs summary after SIGHUP"
assert_no_probes "after SIGHUP"

# Ctrl-C while tracing: the tool prints its summary and exits 0
start_tool softirqs
wait_for "$OUT" '^Tracing soft irq' 30
sleep 1
stop_tool INT 20
assert_rc 0
assert_contains "$OUT" '^SOFTIRQ +TOTAL_usecs$' "softirqs summary after SIGINT"
assert_no_probes "after SIGINT"
exit 0
