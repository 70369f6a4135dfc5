#!/bin/sh
# The VM tiers in the background: ctest starts both before any other test (vm/start) and
# collects each after every other test (vm/stock-kernels, vm/arm64), so that the guests, which
# are CPU-bound TCG threads, use the CPU time the live tests leave idle (those mostly wait on
# what they trace) instead of running after them. Two jobs, each its own session:
#   x86   scripts/vm-test: the x86-64 kernels, one guest after another
#   arm64 test/vm/arm64-tier.sh: the cross build, then its guest (or a skip saying why)
# Both run at a lower priority (nice BT_VM_NICE, default 10), so that a live test's workload
# and tool get a CPU when they want one, and a guest still gets a share when both CPUs are busy
# (a guest starved for many seconds would see its clock jump: lockup reports, late timers).
# The session's autogroup gets the same nice: with CONFIG_SCHED_AUTOGROUP on (Debian's default),
# the scheduler shares CPUs between sessions first, so a task's own nice counted only inside
# the guests' session, and two busy tasks of a live test beside them took 1.8 times as long
# as alone (1.2 times with the autogroup at nice 10).
# The binary and workloads are copied first: nothing a later test rebuilds reaches a guest.
#
#   tier.sh start STATE BPFTOOLS WORKLOADS   start both jobs, their logs and status in STATE
#   tier.sh wait STATE JOB                   wait for x86 or arm64, print its log, its result
#   tier.sh stop STATE                       end whichever still runs (ctest's fixture cleanup)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
nice_level=${BT_VM_NICE:-10}
# the two jobs' commands (stand-ins in test/meta/vm_tier.sh)
x86_tier=${BT_VM_TIER_X86:-$top/scripts/vm-test}
arm64_tier=${BT_VM_TIER_ARM64:-$here/arm64-tier.sh}

# job STATE NAME COMMAND...: COMMAND in its own session at low priority, output in
# STATE/NAME.log, exit status in STATE/NAME.rc; its process group id in STATE/NAME.pid
job() {
	state=$1 name=$2
	shift 2
	# shellcheck disable=SC2016 # $0, $1 and $@ are the inner shell's
	setsid nice -n "$nice_level" sh -c \
		'o=$0; { echo "$1" >/proc/self/autogroup; } 2>/dev/null; shift; "$@" >"$o.log" 2>&1; echo $? >"$o.rc"' \
		"$state/$name" "$nice_level" "$@" </dev/null >/dev/null 2>&1 &
	echo $! >"$state/$name.pid"
	echo "$name tier started in the background (pid $!, log $state/$name.log)"
}

case ${1:-} in
start)
	[ $# -eq 4 ] || {
		echo "usage: tier.sh start STATE BPFTOOLS WORKLOADS" >&2
		exit 2
	}
	state=$2
	rm -rf "$state"
	mkdir -p "$state/stage/workloads" || exit 1
	if ! cp "$3" "$state/stage/bpftools" || ! cp -R "$4/." "$state/stage/workloads/"; then
		echo "FAIL: cannot copy $3 and $4 into $state/stage"
		exit 1
	fi
	# the guests' time limits twice as long: beside the live tests a guest took up to 1.5 times
	# as long as alone (6.1: 344 s against 260 s; arm64's hostile test 99 s against 89 s)
	BT_VM_TIME_SCALE=${BT_VM_TIME_SCALE:-2}
	export BT_VM_TIME_SCALE
	job "$state" x86 "$x86_tier" --bpftools "$state/stage/bpftools" \
		--workloads "$state/stage/workloads" --out "$state/x86-results"
	job "$state" arm64 sh "$arm64_tier"
	exit 0
	;;
wait)
	state=$2 name=$3
	[ -f "$state/$name.pid" ] || {
		echo "FAIL: the $name VM tier was not started (ctest vm/start)"
		exit 1
	}
	while [ ! -f "$state/$name.rc" ] && kill -0 "$(cat "$state/$name.pid")" 2>/dev/null; do
		sleep 2
	done
	cat "$state/$name.log" 2>/dev/null
	rc=$(cat "$state/$name.rc" 2>/dev/null)
	case $rc in
	0 | 77) exit "$rc" ;;
	esac
	echo "FAIL: the $name VM tier ended with ${rc:-no status}"
	exit 1
	;;
stop)
	state=$2
	for name in x86 arm64; do
		pid=$(cat "$state/$name.pid" 2>/dev/null)
		if [ -n "$pid" ] && [ ! -f "$state/$name.rc" ] && kill -0 "$pid" 2>/dev/null; then
			echo "$name VM tier still running: ended"
			kill -TERM "-$pid" 2>/dev/null
		fi
	done
	exit 0
	;;
esac
echo "usage: tier.sh start STATE BPFTOOLS WORKLOADS | wait STATE x86|arm64 | stop STATE" >&2
exit 2
