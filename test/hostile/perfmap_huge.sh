#!/bin/sh
# Issue 33, "Memory and CPU without bound": a victim's perf map (its own file, owned by its
# user: one the tracer accepts) of 256 MiB of tiny lines, the first naming its JIT stub. Read
# whole and parsed at once it took 1.38 GB and 39 s on 55df65c. The map must be read with caps
# (entries, bytes): every stack tool stays within its RSS budget and its time bound, and names
# the victim's own frames.
. "$(dirname "$0")/lib.sh"
build_victim

victim big -j
[ "$VSTUB" != 0 ] || skip "no JIT stub on this machine (x86-64 only)"
M=/tmp/perf-$VNSPID.map
$NOBODY sh -c 'printf "%x 40 hv_jit_stub\n" "$1" >"$2" && yes "1 1 j" | head -c $((268435456 - 64)) >>"$2"' \
	sh "$VSTUB" "$M" || fail "cannot write $M"
[ "$(stat -c %s "$M")" -gt 268000000 ] || fail "$M is not 256 MiB"
echo "victim $VPID: $M, $(stat -c %s "$M") bytes of lines 'START SIZE NAME', owned by nobody"

stack_tools "$VPID" 'hv_spin|hv_nap|hv_round'
exporter_profile "exporter"
rm -f "$M"
hdone
