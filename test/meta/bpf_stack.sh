#!/bin/sh
# Every BPF program's deepest call chain fits Linux 6.1's 512-byte combined stack. This
# kernel (6.13+: private stacks for tracing programs) accepts more, so without this check an
# overflow shows only in the VM tier's 6.1 guest ("combined stack size of N calls is M").
. "$(dirname "$0")/lib.sh"
BT_BUILD=${BT_BUILD:?BT_BUILD must point at the build directory}

set -- "$BT_BUILD"/gen/*.bpf.o
[ -f "$1" ] || { bad "no BPF objects in $BT_BUILD/gen"; finish "-"; }
python3 "$BT_SRC/test/meta/bpf_stack.py" "$@" >"$T/out" 2>"$T/err" || bad "$(cat "$T/err")"
# the parser must have seen the unwinder's chain (program -> step -> lookup -> the callback
# or a row cache function, whichever is deeper): a parser that finds no calls would pass every
# object
grep -Eq 'offcpu_btf .*->bt_unwind_lookup->bt_unwind_(vma_cb|row_get|row_put)' "$T/out" ||
	bad "offcputime's chain through the unwinder was not found: $(grep offcpu_btf "$T/out")"
n=$(wc -l <"$T/out")
worst=$(sort -k3 -n "$T/out" | tail -n 1 | awk '{ print $3, $2 }')
finish "$n programs within 512 bytes of stack (deepest: $worst)"
