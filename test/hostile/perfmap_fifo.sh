#!/bin/sh
# Issue 33, "Hang": a traced process's /tmp/perf-PID.map is a FIFO (mkfifo, no privilege
# needed): on the host (the victim is nobody) and in a container's own /tmp. Every stack tool,
# with -p and system-wide, and the exporter's /debug/pprof/profile must end within their bounds
# (never blocked in the open, SIGINT and SIGTERM honoured) and still name the victim's own frames (hv_*,
# from its binary: only the perf map's JIT names may be missing).
. "$(dirname "$0")/lib.sh"
build_victim

victim host -f -j
HOST=$VPID
[ -p "/tmp/perf-$VNSPID.map" ] || fail "the host victim made no FIFO at /tmp/perf-$VNSPID.map"
container ctr "" -f -j
CTR=$VPID
[ -p "/proc/$CTR/root/tmp/perf-$VNSPID.map" ] || fail "the container's victim made no FIFO in its /tmp"
echo "victims: host $HOST (FIFO /tmp/perf-$HOST.map), container $CTR (its pid $VNSPID, FIFO in its /tmp)"
E='hv_spin|hv_nap|hv_round'

hrun "profile -p host,container" "$E" profile -F 199 -p "$HOST,$CTR"
HSIG=TERM hrun "offcputime -p host,container (SIGTERM)" "$E" offcputime -p "$HOST,$CTR"
hrun "stackcount -p host" "$E" stackcount -p "$HOST" t:syscalls:sys_enter_clock_nanosleep
HSIG=TERM hrun "stackcount (system-wide; SIGTERM)" "$E" stackcount t:syscalls:sys_enter_clock_nanosleep
hrun "stacksnoop -U -p container" "$E" stacksnoop -U -p "$CTR" t:syscalls:sys_enter_clock_nanosleep
hrun "funcslower -U -p host" "$E" funcslower -U -u 500 -p "$HOST" syscall:clock_nanosleep
exporter_profile "exporter"
rm -f "/tmp/perf-$HOST.map"
hdone
