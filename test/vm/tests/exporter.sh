#!/bin/sh
# vm-timeout: 120
# The exporter's vfsstat collector where the kernel attaches it (fentry or kprobes), through
# the textfile mode (the arm64 tier runs the static binary, which has no HTTP server): a
# workload's O opens and R reads show in bpftools_vfs_calls_total between two writes, at least
# O and R and at most what the quiet guest adds (the exporter's own temporary file, the test's
# greps); SIGTERM exits 0 and leaves nothing attached.
. "$BTVM_LIB"

"$BPFTOOLS" --list | grep -q '^exporter ' || skip "no exporter command in this build"
has_facility fentry || has_facility kprobes ||
  skip "the guest kernel $(uname -r) has neither fentry nor kprobes"
WORK=$(workload vfs_work)
R=300 O=200 M=0
D=$PWD/textfile
mkdir -p "$D"
F=$D/bpftools.prom

# value OPERATION: the counter in the textfile now
value() {
  awk -v s="bpftools_vfs_calls_total{operation=\"$1\",function=\"vfs_$1\"}" \
    '$1 == s { v = $2 } END { print v + 0 }' "$F"
}
# next_write: until the exporter has replaced the file once more (it writes every second)
next_write() {
  _old=$(stat -c %i "$F")
  _i=0
  while [ "$(stat -c %i "$F")" = "$_old" ]; do
    _i=$((_i + 1))
    [ $_i -lt 100 ] || fail "the textfile was not rewritten within 10 s"
    sleep 0.1
  done
}

start_tool exporter --collect vfsstat --textfile "$D" -i 1
wait_for "$F" 'bpftools_vfs_calls_total' 60
TMPDIR=$PWD "$WORK" $R 0 $O $M &
wpid=$!
sleep 0.5
next_write
o0=$(value open) r0=$(value read)
kill -USR1 $wpid
wait $wpid || fail "vfs_work exited with $?"
next_write
o1=$(value open) r1=$(value read)
log "opens $o0 -> $o1, reads $r0 -> $r1"
assert_ge $((o1 - o0)) $O "vfs_open calls exported for $O opens"
assert_le $((o1 - o0)) $((O + 40)) "vfs_open calls exported for $O opens, in a quiet guest"
assert_ge $((r1 - r0)) $R "vfs_read calls exported for $R reads"
assert_le $((r1 - r0)) $((R + 200)) "vfs_read calls exported for $R reads, in a quiet guest"
assert_contains "$F" '^# TYPE bpftools_vfs_calls_total counter$' "the family's TYPE line"
stop_tool TERM 30
assert_rc 0
assert_no_probes "after the exporter's SIGTERM"
exit 0
