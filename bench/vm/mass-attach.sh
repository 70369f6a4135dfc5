#!/bin/sh
# vm-timeout: 900
# scripts/bench --vm: attach and detach N kernel functions with fentry and with kprobes (one
# link each: the kernel this runs on has no kprobe.multi), N = 300 and 1000, timed from the
# start of funccount to its exit minus its 1 s of tracing. Prints one line per case:
#	BENCH mode=fentry n=300 fentry=300 kprobe=0 failed=0 seconds=1.23
# Run by scripts/vm-test --tests bench/vm (not a test: it fails only when nothing attaches).
. "$BTVM_LIB"

require_facility kprobes ftrace
# Functions of the network stack: many, traceable, and not called while the guest idles.
grep -E '^(tcp|udp|inet|ip|ip6|sock|sk|skb|neigh|netif|dev|rtnl|fib|nf|xfrm|raw|icmp|arp)_[a-z0-9_]*( |$)' \
  "$TRACEFS/available_filter_functions" | awk '{ print $1 }' | sort -u >names
total=$(wc -l <names)
log "$total candidate functions"
[ "$total" -ge 300 ] || skip "only $total traceable network functions"
now() { cut -d' ' -f1 /proc/uptime; }
for mode in fentry kprobe; do
  [ $mode = fentry ] && ! has_facility fentry && { log "no fentry here"; continue; }
  for n in 300 1000; do
    [ "$total" -ge $n ] || { log "fewer than $n functions"; continue; }
    re="^($(head -n $n names | paste -sd'|'))\$"
    t0=$(now)
    timeout -s TERM 800 "$BPFTOOLS" funccount -D -r --attach=$mode --max-probes 2000 -d 1 "$re" \
      >out 2>&1
    rc=$?
    t1=$(now)
    how=$(grep -o 'kernel functions: [0-9]* fentry, [0-9]* kprobe, [0-9]* kprobe.multi, [0-9]* failed' out | tail -n 1)
    set -- $how
    why=$(grep -iE 'cannot|too many|error|fail' out | grep -v 'kernel functions:' | head -n 1 | tr -s ' ' | cut -c1-100)
    echo "BENCH mode=$mode n=$n fentry=${3:-0} kprobe=${5:-0} failed=${9:-0} rc=$rc seconds=$(awk "BEGIN { print $t1 - $t0 - 1 }")${why:+ first-error: $why}"
    [ -n "$how" ] || { tail -n 5 out; fail "funccount --attach=$mode on $n functions: nothing attached"; }
  done
done
exit 0
