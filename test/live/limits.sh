#!/bin/sh
# The size options take what the kernel takes, quickly, and a refusal names the option
# (issue 24): `offcputime --stack-storage-size=16777216`, the old documented maximum, took 4-20 s
# to start, saying nothing; `opensnoop -b 1048576` (4 GiB) failed with "cannot load the BPF
# programs: Invalid argument". The limits are now 1048576 stacks and 256 MiB of ring buffer
# (docs/reliability.md has the rows for the parser); here, the largest values run promptly,
# and when the kernel refuses the memory (a memory cgroup of 64 MiB) the line says which option.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# 1. The largest stack storage: a 1 s offcputime in under 4 s in all.
start=$(now_ms)
BT_TIMEOUT=20 run offcputime --stack-storage-size=1048576 1
took=$(($(now_ms) - start))
expect_rc 0 "offcputime --stack-storage-size=1048576 1"
[ "$took" -lt 4000 ] || fail "offcputime --stack-storage-size=1048576 1 took $took ms"
ok "offcputime --stack-storage-size=1048576 1: $took ms"

# 2. The largest ring buffer: opensnoop -b (256 MiB) for 1 s, in under 4 s in all.
max=$(((1 << 28) / $(getconf PAGESIZE)))
start=$(now_ms)
BT_TIMEOUT=20 run opensnoop -b "$max" -d 1
took=$(($(now_ms) - start))
expect_rc 0 "opensnoop -b $max -d 1"
[ "$took" -lt 4000 ] || fail "opensnoop -b $max -d 1 took $took ms"
ok "opensnoop -b $max -d 1: $took ms"

# 3. A refusal names the option: in a memory cgroup of 64 MiB (a child of our own, cgroup v1
# or v2), the 256 MiB ring buffer and the million stacks cannot be had.
cgpath=$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)
CG=""
if [ -n "$cgpath" ] && [ -w "/sys/fs/cgroup/memory$cgpath" ]; then
	CG=/sys/fs/cgroup/memory$cgpath/bt-limits-$$
	LIMIT=memory.limit_in_bytes
else
	cgpath=$(sed -n 's/^0:://p' /proc/self/cgroup)
	dir=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)$cgpath
	if [ -n "$cgpath" ] && grep -qw memory "$dir/cgroup.subtree_control" 2>/dev/null; then
		CG=$dir/bt-limits-$$
		LIMIT=memory.max
	fi
fi
if [ -z "$CG" ] || ! mkdir "$CG" 2>/dev/null; then
	echo "skip: the refusal cases need a memory cgroup we can make (none writable here)"
	exit 0
fi
trap 'rmdir "$CG" 2>/dev/null; rm -rf "$T"' EXIT
echo $((64 << 20)) >"$CG/$LIMIT" || fail "cannot limit the cgroup's memory"

# limited ARGS...: bpftools ARGS inside the cgroup; $OUT, $ERR, $RC as run()
limited() {
	OUT=$T/out ERR=$T/err
	RC=0
	timeout -s INT -k 5 30 sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$CG" \
		"$BPFTOOLS" "$@" >"$OUT" 2>"$ERR" || RC=$?
}

limited opensnoop -b "$max" -d 1
expect_rc 1 "opensnoop -b $max in 64 MiB"
grep -Eq "^opensnoop: the kernel refused a ring buffer of 256 MiB \(-b $max\): Cannot allocate memory\$" "$ERR" ||
	fail "opensnoop -b $max in 64 MiB: the refusal does not name -b"
[ "$(wc -l <"$ERR")" = 1 ] || fail "opensnoop -b $max in 64 MiB: expected one line"
ok "$(cat "$ERR")"

limited offcputime --stack-storage-size=1048576 1
expect_rc 1 "offcputime --stack-storage-size=1048576 in 64 MiB"
grep -Eq '^offcputime: the kernel refused room for [0-9]+ (deep )?stacks \(--stack-storage-size=1048576\): Cannot allocate memory$' "$ERR" ||
	fail "offcputime in 64 MiB: the refusal does not name --stack-storage-size"
[ "$(wc -l <"$ERR")" = 1 ] || fail "offcputime in 64 MiB: expected one line"
ok "$(cat "$ERR")"
