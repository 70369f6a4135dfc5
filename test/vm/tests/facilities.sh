#!/bin/sh
# The guest has what the VM tier exists for: kprobes through the PMU and tracefs, BTF, ftrace
# (the fentry/kprobe attach points), uprobes; and a kprobe/kretprobe really fires and goes away.
# shellcheck source=test/vm/lib.sh
. "$BTVM_LIB"

log "kernel $(uname -r), $(nproc) cpus"

t=$(cat /sys/bus/event_source/devices/kprobe/type 2>/dev/null) || fail "no kprobe PMU (/sys/bus/event_source/devices/kprobe/type)"
assert_ge "$t" 1 "kprobe PMU type"
log "kprobe PMU type $t"
t=$(cat /sys/bus/event_source/devices/uprobe/type 2>/dev/null) || fail "no uprobe PMU"
log "uprobe PMU type $t"

[ -r /sys/kernel/btf/vmlinux ] || fail "no BTF at /sys/kernel/btf/vmlinux"
sz=$(wc -c </sys/kernel/btf/vmlinux)
assert_ge "$sz" 1000000 "size of /sys/kernel/btf/vmlinux"
log "BTF: $sz bytes"

[ -w "$TRACEFS/kprobe_events" ] || fail "$TRACEFS/kprobe_events not writable"
[ -w "$TRACEFS/uprobe_events" ] || fail "$TRACEFS/uprobe_events not writable"
[ -z "$(cat "$TRACEFS/kprobe_events")" ] || fail "kprobe_events not empty at start: $(cat "$TRACEFS/kprobe_events")"

# ftrace: the functions fentry and kprobes attach to (the wildcard tests need hundreds)
nf=$(wc -l <"$TRACEFS/available_filter_functions")
assert_ge "$nf" 10000 "number of traceable functions (available_filter_functions)"
for f in do_nanosleep vfs_read vfs_write vfs_open hrtimer_nanosleep; do
  kfunc_traceable $f || fail "$f is not traceable (available_filter_functions)"
done
log "$nf traceable kernel functions"

if kernel_since fentry; then
  has_facility fentry || fail "fentry prerequisites missing (BTF, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS, CONFIG_BPF_JIT)"
else
  log "fentry: none on $BT_ARCH before $(since_version fentry) (no CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS)"
fi
if has_facility kprobe_multi; then
  log "kprobe.multi: available (CONFIG_FPROBE=y)"
else
  log "kprobe.multi: absent (CONFIG_FPROBE unset): wildcard attach must use one link per function"
fi

# A kprobe and a kretprobe through tracefs: create, fire, remove.
echo 'p:bttest do_nanosleep' >"$TRACEFS/kprobe_events" || fail "cannot create kprobe p:bttest do_nanosleep"
echo 'r:bttestret do_nanosleep ret=$retval' >>"$TRACEFS/kprobe_events" || fail "cannot create kretprobe on do_nanosleep"
cat "$TRACEFS/kprobe_events"
assert_contains "$TRACEFS/kprobe_events" '^p:kprobes/bttest do_nanosleep' kprobe_events
assert_contains "$TRACEFS/kprobe_events" '^r[0-9]*:kprobes/bttestret do_nanosleep' kprobe_events
[ -r "$TRACEFS/events/kprobes/bttest/id" ] || fail "no events/kprobes/bttest/id"

: >"$TRACEFS/trace"
echo 1 >"$TRACEFS/events/kprobes/bttest/enable"
echo 1 >"$TRACEFS/events/kprobes/bttestret/enable"
sleep 0.05; sleep 0.05; sleep 0.05
echo 0 >"$TRACEFS/events/kprobes/bttest/enable"
echo 0 >"$TRACEFS/events/kprobes/bttestret/enable"
grep -E 'bttest' "$TRACEFS/trace" | head -n 6
hits=$(grep -c ' bttest:' "$TRACEFS/trace")
rets=$(grep -cE ' bttestret:.* ret=(0x)?0$' "$TRACEFS/trace")
: >"$TRACEFS/trace"
assert_ge "$hits" 3 "kprobe hits on do_nanosleep for 3 sleeps"
assert_ge "$rets" 3 "kretprobe hits with ret=0 on do_nanosleep for 3 sleeps"

echo '-:bttest' >>"$TRACEFS/kprobe_events" || fail "cannot remove kprobe bttest"
echo '-:bttestret' >>"$TRACEFS/kprobe_events" || fail "cannot remove kretprobe bttestret"
[ -z "$(cat "$TRACEFS/kprobe_events")" ] || fail "kprobe_events not empty after removal: $(cat "$TRACEFS/kprobe_events")"
log "kprobe and kretprobe fired ($hits, $rets hits) and were removed"
exit 0
