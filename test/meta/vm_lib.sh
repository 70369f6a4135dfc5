#!/bin/sh
# test/vm/lib.sh's start_tool empties its output file before it returns: the redirection that
# also empties it runs in the forked child, and a wait_for on a reused file (vm/unwind's three
# traces share uw.out) found the previous run's "Tracing" banner before the child had run, so
# the test signalled its workload before the tool was attached. Run here on the host, with the
# shell and its child at one SCHED_FIFO priority on one CPU: the child runs only once the shell
# waits, so without the empty-first the check below sees the old banner every time.
. "$(dirname "$0")/lib.sh"

cat >"$T/race.sh" <<'EOS'
BTVM_FAILFILE= BTVM_SKIPFILE=
. "$BT_SRC/test/vm/lib.sh"
BPFTOOLS=true
echo "Tracing 1 functions... (the previous run)" >"$T/uw.out"
start_tool -o "$T/uw.out" stackcount x >/dev/null
# a builtin, so that the shell does not wait and let the child run first
IFS= read -r line <"$T/uw.out" || line=
wait "$BG_PID"
echo "after start_tool: '$line'"
EOS
export T BT_SRC
if chrt -f 1 taskset -c 0 true 2>/dev/null; then
	run="chrt -f 1 taskset -c 0 sh"
else
	run=sh # without the rights to order them the old banner is seen only sometimes
fi
for i in 1 2 3 4 5; do
	got=$($run "$T/race.sh")
	case $got in
	*"Tracing"*) bad "run $i: start_tool left the previous run's output in place: $got" ;;
	"after start_tool: ''") ;;
	*) bad "run $i: unexpected: $got" ;;
	esac
done
finish "test/vm/lib.sh: start_tool empties its output file before the tool runs"
