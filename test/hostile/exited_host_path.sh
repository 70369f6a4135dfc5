#!/bin/sh
# Issue 33, "Hang" and "host files": a container process runs code of a library at a path that,
# on the host, names a FIFO (or a device), and exits while a system-wide tool traces it. Opening
# the path on the host, with root's rights, after the process is gone would block (or read a
# device): the file must be the one the process mapped (its descriptor, or its identity kept
# from when it lived) or none. Four such processes, 20 ms each, one after the other: gone
# before the tool looks at them (a process of 1 s is indexed while it lives, and the trap is
# not reached; one of 50 ms often is too). Each run ends within its bounds and still shows the victims (their comm: -P
# for stackcount).
. "$(dirname "$0")/lib.sh"
build_victim

# the library inside the container, at $T/x/libhv.so; on the host that path is a FIFO / a device
mkdir "$T/x" "$T/xd"
mkfifo "$T/x/libhv.so" || fail "mkfifo"
mknod "$T/xd/libhv.so" c 1 5 || fail "mknod (a /dev/zero twin)"
SETUP='for d in x xd; do mkdir -p "$R$T/$d"; cp "$T/libhv.so" "$R$T/$d/libhv.so"; done'
H_DUR=3
# system-wide: every process of the machine is named, not just the victims, and after the
# stop (the summary): more memory, and more time to exit than a run on one victim
H_RSS=524288
H_STOP=${HOSTILE_STOP_ALL:-10}
# four containers in turn, each running the library for 20 ms
short() {
	for i in 1 2 3 4; do
		container ctr$i "$SETUP" -l "$1" -x 20
	done
}

HAFTER='short "$T/x/libhv.so"'
hrun "stackcount -P (system-wide; exited, host path a FIFO)" 'victim' stackcount -P t:syscalls:sys_enter_clock_nanosleep
HAFTER='short "$T/xd/libhv.so"'
hrun "stackcount -P (system-wide; exited, host path a device)" 'victim' stackcount -P t:syscalls:sys_enter_clock_nanosleep
HAFTER='short "$T/x/libhv.so"'
hrun "profile (system-wide; exited, host path a FIFO)" 'victim' profile -F 199
HAFTER='short "$T/x/libhv.so"'
hrun "offcputime (system-wide; exited, host path a FIFO)" 'victim' offcputime
hdone
