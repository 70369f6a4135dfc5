#!/bin/sh
# The arm64 VM tier: the cross build's static binary and workloads (scripts/build --arch arm64)
# booted under qemu-system-aarch64 with Debian 12's arm64 cloud kernel (scripts/vm-test --arch
# arm64). Where this host cannot run it (no cross compiler, no :arm64 libraries, no
# qemu-system-aarch64: scripts/deps --arm64 installs them as root) it skips, exit 77, saying
# what is missing: never counted as passed.
#
#   arm64-tier.sh [VM-TEST ARGS...]   build and run it here
#   arm64-tier.sh start STATE         ctest vm/arm64-start: run it in the background, its log,
#                                     process and exit status in the directory STATE
#   arm64-tier.sh wait STATE          ctest vm/arm64: wait for it, print its log, its result
#   arm64-tier.sh stop STATE          ctest vm/arm64-stop: end it if it still runs
# ctest starts it just before the x86-64 VM tier, whose guests run beside it (each is one TCG
# thread: the two tiers take the time of the longer, not the sum; docs/testing-vm.md).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${BT_ARM64_BUILD_DIR:-$top/build-arm64}

skip() {
	echo "SKIP: the arm64 VM tier cannot run on this host: $*"
	exit 77
}

# What keeps the tier from running here, or nothing.
missing() {
	if [ "$(uname -m)" != x86_64 ]; then
		echo "the VM tier needs an x86_64 host (this is $(uname -m))"
	elif ! out=$("$top/scripts/deps" --arm64 --check 2>&1); then
		echo "$out"
	elif ! command -v qemu-system-aarch64 >/dev/null; then
		echo "no qemu-system-aarch64 (package qemu-system-arm)"
	fi
}

case ${1:-} in
start)
	state=$2
	rm -rf "$state"
	mkdir -p "$state" || exit 1
	why=$(missing)
	if [ -n "$why" ]; then
		echo "$why" >"$state/skip"
		skip "$why"
	fi
	# its own session, its output in files: ctest neither waits for it here nor kills it
	# shellcheck disable=SC2016 # $0 and $1 are the inner shell's
	setsid sh -c 'sh "$0" >"$1/log" 2>&1; echo $? >"$1/rc"' "$0" "$state" </dev/null \
		>/dev/null 2>&1 &
	echo $! >"$state/pid"
	echo "arm64 tier started in the background (pid $!, log $state/log)"
	exit 0
	;;
wait)
	state=$2
	[ -f "$state/skip" ] && skip "$(cat "$state/skip")"
	[ -f "$state/pid" ] || {
		echo "FAIL: the arm64 tier was not started (ctest vm/arm64-start)"
		exit 1
	}
	while [ ! -f "$state/rc" ] && kill -0 "$(cat "$state/pid")" 2>/dev/null; do
		sleep 2
	done
	cat "$state/log" 2>/dev/null
	rc=$(cat "$state/rc" 2>/dev/null)
	[ "$rc" = 77 ] && exit 77
	[ "$rc" = 0 ] || {
		echo "FAIL: the arm64 tier ended with ${rc:-no status}"
		exit 1
	}
	exit 0
	;;
stop)
	state=$2
	pid=$(cat "$state/pid" 2>/dev/null)
	if [ -n "$pid" ] && [ ! -f "$state/rc" ] && kill -0 "$pid" 2>/dev/null; then
		echo "arm64 tier still running: ended"
		kill -TERM -- "-$pid" 2>/dev/null
	fi
	exit 0
	;;
esac

why=$(missing)
[ -z "$why" ] || skip "$why"
t0=$(date +%s)
BT_BUILD_DIR=$dir "$top/scripts/build" --arch arm64 || {
	echo "FAIL: the arm64 cross build failed (scripts/build --arch arm64)"
	exit 1
}
echo "arm64 tier: cross build $(($(date +%s) - t0)) s"
# the host tiers' environment names the x86-64 binary and workloads: not these
unset BPFTOOLS BT_WORKLOADS
exec "$top/scripts/vm-test" --arch arm64 --bpftools "$dir/static/bpftools" \
	--workloads "$dir/test/workloads" "$@"
