#!/bin/sh
# One link per function needs a file descriptor per function: with a soft open-file limit of
# 16 (hard limit higher), funccount still attaches 10 uprobes one link each, because it
# raises the soft limit to the hard one (the usual soft limit, 1024, stopped 1000 kprobes at
# about 500 in the VM tier).
. "$(dirname "$0")/lib.sh"
require root uprobes

LIB=$BT_WORKLOADS/libbtmany.so
[ -f "$LIB" ] || fail "workload library not built"
[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 1024 ] ||
	skip "the hard open-file limit is below 1024 here"
RC=0
(ulimit -Sn 16 && BPFTOOLS_NO_UPROBE_MULTI=1 timeout --preserve-status -s INT 3 \
	"$BPFTOOLS" funccount "$LIB:bt_many_30*") >"$T/out" 2>"$T/err" || RC=$?
expect_rc 0 "funccount on 10 uprobes, one link each, soft open-file limit 16"
grep -q 'Too many open files' "$T/err" && fail "ran out of file descriptors: $(cat "$T/err")"
grep -q '^Tracing 10 functions' "$T/out" || fail "not 10 functions traced: $(head -n 3 "$T/out" "$T/err")"
ok "10 one-link uprobes under a soft limit of 16 open files"
