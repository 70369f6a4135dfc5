#!/bin/sh
# The arm64 VM tier: the cross build's static binary and workloads (scripts/build --arch arm64)
# booted under qemu-system-aarch64 with Debian 12's arm64 cloud kernel (scripts/vm-test --arch
# arm64). Where this host cannot run it (no cross compiler, no :arm64 libraries, no
# qemu-system-aarch64: scripts/deps --arm64 installs them as root) it skips, exit 77, saying
# what is missing: never counted as passed.
#
#   arm64-tier.sh [VM-TEST ARGS...]   build and run it here
# ctest runs it in the background beside the x86-64 tier (test/vm/tier.sh, docs/testing-vm.md).
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

why=$(missing)
[ -z "$why" ] || skip "$why"
t0=$(date +%s)
# only what the guest runs: not the sanitized unit tests and fuzzers
BT_BUILD_DIR=$dir BT_BUILD_TARGETS="bpftools-static bt_workloads" "$top/scripts/build" --arch arm64 || {
	echo "FAIL: the arm64 cross build failed (scripts/build --arch arm64)"
	exit 1
}
echo "arm64 tier: cross build $(($(date +%s) - t0)) s"
# the host tiers' environment names the x86-64 binary and workloads: not these
unset BPFTOOLS BT_WORKLOADS
exec "$top/scripts/vm-test" --arch arm64 --bpftools "$dir/static/bpftools" \
	--workloads "$dir/test/workloads" "$@"
