#!/bin/sh
# vm-timeout: 200
# opensnoop on a stock distribution kernel: the syscall tracepoints with exact rows (FD and ERR
# right) for a workload under -p while a second process opening the same files is filtered
# out; -x; --exec; and -F through whichever form the kernel takes (6.1 has no
# bpf_rdonly_cast(), so kernel reads; 6.2+ BTF pointers), resolving a working directory and a
# directory fd. Ctrl-C exits 0 and leaves nothing attached.
. "$BTVM_LIB"

"$BPFTOOLS" --list | grep -q '^opensnoop ' || skip "no opensnoop command in this build"
[ -d "$TRACEFS/events/syscalls/sys_enter_openat" ] || skip "no syscall tracepoints in this kernel"
W=$(workload open_work)
D=$PWD
echo x >"$D/exists"
mkdir -p "$D/sub"
N=4

"$W" -c vm_open_a -w $N "$D/exists" "$D/missing" &
a=$!
"$W" -c vm_open_b -w $N "$D/exists" "$D/missing" &
b=$!
start_tool -o "$PWD/p.out" opensnoop -p $a
wait_for "$OUT" '^PID ' 60
kill -USR1 $a $b
wait $a || fail "workload a exited with $?"
wait $b || fail "workload b exited with $?"
sleep 0.5
stop_tool INT 30
assert_rc 0
assert_contains "$OUT" '^PID    COMM               FD ERR PATH$' "opensnoop header"
ok=$(count_matching "$OUT" "^$(printf '%-6d %-16s' $a vm_open_a) +[0-9]+   0 $D/exists\$")
assert_ge "$ok" $N "rows opening $D/exists with an fd"
assert_le "$ok" $N "rows opening $D/exists"
miss=$(count_matching "$OUT" "^$(printf '%-6d %-16s %4d %3d' $a vm_open_a -1 2) $D/missing\$")
assert_ge "$miss" $N "rows failing on $D/missing with FD -1 ERR 2"
assert_le "$miss" $N "rows failing on $D/missing"
assert_not_contains "$OUT" vm_open_b "opensnoop -p: the other process"
assert_no_probes "after opensnoop -p"
log "-p: $ok + $miss rows of $a, none of $b"

run_tool -t 30 opensnoop -x --exec "$W" -c vm_open_x 2 "$D/exists" "$D/missing"
assert_rc 0
n=$(count_matching "$OUT" "^[0-9]+ +vm_open_x +-1   2 $D/missing\$")
assert_ge "$n" 2 "opensnoop -x --exec: the failures"
assert_not_contains "$OUT" " $D/exists\$" "opensnoop -x: a success"

run_tool -t 60 opensnoop -F --exec "$W" -C "$D/sub" 1 ../exists "@$D:sub/nothere"
if grep -q 'needs bpf_loop' "$OUT"; then
  log "-F not available here: $(grep 'needs' "$OUT")"
  assert_rc 1
else
  assert_rc 0
  assert_contains "$OUT" " $D/sub/\.\./exists\$" "opensnoop -F: a path relative to the working directory"
  assert_contains "$OUT" " $D/sub/nothere\$" "opensnoop -F: a path relative to a directory fd"
fi
assert_no_probes "after opensnoop -F"
exit 0
