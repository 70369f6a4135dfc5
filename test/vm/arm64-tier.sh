#!/bin/sh
# The arm64 VM tier (ctest vm/arm64): the cross build's static binary and workloads
# (scripts/build --arch arm64) booted under qemu-system-aarch64 with Debian 12's arm64 cloud
# kernel (scripts/vm-test --arch arm64). Where this host cannot run it (no cross compiler, no
# :arm64 libraries, no qemu-system-aarch64: scripts/deps --arm64 installs them as root) it
# skips, exit 77, saying what is missing: never counted as passed. Arguments go to vm-test.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
dir=${BT_ARM64_BUILD_DIR:-$top/build-arm64}

skip() {
	echo "SKIP: the arm64 VM tier cannot run on this host: $*"
	exit 77
}

[ "$(uname -m)" = x86_64 ] || skip "the VM tier needs an x86_64 host (this is $(uname -m))"
missing=$("$top/scripts/deps" --arm64 --check 2>&1) || skip "$missing"
command -v qemu-system-aarch64 >/dev/null || skip "no qemu-system-aarch64 (package qemu-system-arm)"
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
