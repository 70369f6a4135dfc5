#!/bin/sh
# The old flake, run 50 times in a row: the two call paths of a shared library's function,
# counted exactly. With a direct-mapped stack map (BPF_MAP_TYPE_STACK_TRACE) the second path
# was dropped whenever ASLR put both stacks in one bucket; stacks stored by content never are.
. "$(dirname "$0")/lib.sh"
require root btf uprobes

W=$BT_WORKLOADS/stack_paths
[ -x "$W" ] || fail "workloads not built"

# leaf_count FIRST SECOND: the count under the stack whose first two frames are those.
# (The loop counter is not i: lib.sh's helpers use i.)
leaf_count() {
	awk -v a="  $1" -v b="  $2" '
		/^$/ { n = 0; next }
		{ n++ }
		n == 1 { first = $0 }
		n == 2 { second = $0 }
		/^    [0-9]+$/ && first == a && second == b { print $1; exit }' "$OUT"
}

run=0
while [ $run -lt 50 ]; do
	run=$((run + 1))
	READY_MAPS=libbtstack traced_workload "$W" 3 5 -1 -- stackcount -U -p @PID "btstack:btlib_leaf"
	expect_rc 0 "stackcount (run $run)"
	[ "$(leaf_count btlib_leaf btlib_path_a)" = 3 ] && [ "$(leaf_count btlib_leaf btlib_path_b)" = 5 ] ||
		fail "run $run: a library call path missing or miscounted"
	grep -q lost "$ERR" && fail "run $run: $(cat "$ERR")"
done
ok "50 runs in a row, both library paths counted exactly in each"
