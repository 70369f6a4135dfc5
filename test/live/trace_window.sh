#!/bin/sh
# A duration ends the trace in the kernel, not when the tool gets round to reading its counts: a
# tool starved of CPU on a busy machine read them late and went on counting until then. Here
# the starving is a SIGSTOP for 3 s just after the banner of a 1-second run: profile counts 1 s
# of samples and offcputime 1 s of a sleeping process's blocks, not 4.
. "$(dirname "$0")/lib.sh"
require root btf

sh -c 'while :; do sleep 0.01; done' &
NAP=$!
trap 'kill $NAP 2>/dev/null; rm -rf "$T"' EXIT

# starved TOOL ARGS...: the tool, stopped for 3 s once it has started, then left to end itself
starved() {
	BANNER_IN=err BANNER=. start_tool "$@"
	kill -STOP $FPID
	sleep 3
	kill -CONT $FPID
	finish_tool
	expect_rc 0 "$*"
}

# profile at 99 Hz on every CPU, idle included (-I): the samples come whatever else runs, up
# to 99 a second on each online CPU (an idle machine gave 55-64 a CPU: a tickless idle CPU
# is sampled less), 948 in all when the tool counted its 4 s
starved profile -F 99 -I -f 1
n=$(awk '{ n += $NF } END { print n + 0 }' "$OUT")
cpus=$(echo $ONLINE | wc -w)
[ "$n" -ge $((cpus * 20)) ] || fail "profile -I 1: $n samples on $cpus CPUs at 99 Hz"
[ "$n" -le $((cpus * 150)) ] || fail "profile -I 1, stopped for 3 s: $n samples on $cpus CPUs at 99 Hz, more than 1 s of them"
ok "profile -I 1, stopped for 3 s after it started: $n samples on $cpus CPUs at 99 Hz"

# offcputime: the sleeper is off-CPU nearly all the time, ~1,000,000 us in a second
starved offcputime -f -p $NAP 1
us=$(awk '{ n += $NF } END { print n + 0 }' "$OUT")
[ "$us" -ge 300000 ] || fail "offcputime -p $NAP 1: $us us off-CPU of a process that sleeps"
[ "$us" -le 1500000 ] || fail "offcputime 1, stopped for 3 s: $us us off-CPU, more than the second"
ok "offcputime 1, stopped for 3 s after it started: $us us off-CPU of a sleeping process"
