#!/bin/sh
# -p into a container: a process in its own PID and mount namespace (unshare, with its own
# /proc) runs a stripped binary that exists only on a tmpfs mounted inside the namespace; its
# function names are only in the debug file next to it (.gnu_debuglink). funccount must find
# the binary through the process's root, both by path and by name (its maps), read the debug
# file inside that root, and count exactly.
. "$(dirname "$0")/lib.sh"
require root btf uprobes
command -v unshare >/dev/null || skip "no unshare (util-linux)"
command -v objcopy >/dev/null || skip "no objcopy (binutils) to strip the workload"

WORK=$BT_WORKLOADS/fc_work
[ -x "$WORK" ] || fail "workload $WORK not built"
A=700

# The stripped copy and its debug file, staged on the host, copied into the namespace's tmpfs.
objcopy --only-keep-debug "$WORK" "$T/fc_work.debug" || fail "objcopy --only-keep-debug"
objcopy --strip-all --add-gnu-debuglink="$T/fc_work.debug" "$WORK" "$T/fc_work" ||
	fail "objcopy --strip-all"
nm "$T/fc_work" 2>/dev/null | grep -q bt_work_a && fail "the stripped copy still has bt_work_a"
NS=$T/ns # empty on the host; a tmpfs inside the namespace
mkdir "$NS" "$T/lib"
cp "$BT_WORKLOADS"/libfc_worklib.so "$T/lib/"

# start_in_ns: the workload (paused, as pid 1 of the namespace); sets WPID to its host pid.
start_in_ns() {
	unshare --pid --mount --fork --mount-proc --propagation private sh -c '
		mount -t tmpfs bt-ns "$1" && cp "$2/fc_work" "$2/fc_work.debug" "$1/" &&
			LD_LIBRARY_PATH="$2/lib" exec "$1/fc_work" "$3" 0 0 0' sh "$NS" "$T" "$A" &
	UPID=$!
	WPID=
	i=0
	while [ $i -le 100 ]; do
		WPID=$(cat /proc/$UPID/task/$UPID/children 2>/dev/null | awk '{ print $1 }')
		[ -n "$WPID" ] && grep -q "$NS/fc_work" /proc/"$WPID"/maps 2>/dev/null && break
		i=$((i + 1))
		sleep 0.05
	done
	[ -n "$WPID" ] || fail "the namespaced workload did not start"
	[ "$(readlink /proc/$WPID/ns/pid)" != "$(readlink /proc/self/ns/pid)" ] ||
		fail "the workload is not in its own PID namespace"
	[ -e "$NS/fc_work" ] && fail "the namespace's tmpfs is visible on the host"
	:
}

# trace_ns SPEC: funccount -p (or $TRACER -p) on the namespaced workload, released once attached.
trace_ns() {
	start_in_ns
	OUT=$T/out ERR=$T/err
	: >"$OUT"
	# shellcheck disable=SC2086 # TRACER: the tool and its options, word by word
	"$BPFTOOLS" ${TRACER:-funccount} -p "$WPID" "$1" >"$OUT" 2>"$ERR" &
	fpid=$!
	i=0
	until grep -q '^Tracing' "$OUT" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 $fpid 2>/dev/null; then
			kill -KILL "$WPID" 2>/dev/null
			wait $UPID
			RC=0
			wait $fpid || RC=$?
			fail "funccount -p $WPID '$1' did not start (exit $RC)"
		fi
		sleep 0.1
	done
	kill -USR1 "$WPID"
	wait $UPID || fail "namespaced workload exited $?"
	kill -INT $fpid
	RC=0
	wait $fpid || RC=$?
}

# By path: the path as the process sees it, absent from the host.
trace_ns "$NS/fc_work:bt_work_*"
expect_rc 0 "funccount -p PID $NS/fc_work:bt_work_* (inside the namespace)"
expect_line '^Tracing 2 functions for '
[ "$(value_of bt_work_a)" = "$A" ] || fail "by path: expected $A calls of bt_work_a"
[ -s "$ERR" ] && fail "by path: stderr: $(head -1 "$ERR")"
ok "by path inside the namespace: bt_work_a=$A, names from the debug file in its root"

# By name: found through the process's maps, then the same way.
trace_ns "fc_work:bt_work_a"
expect_rc 0 "funccount -p PID fc_work:bt_work_a (inside the namespace)"
[ "$(value_of bt_work_a)" = "$A" ] || fail "by name: expected $A calls of bt_work_a"
ok "by name through /proc/PID/maps: bt_work_a=$A"

# Its user stacks through the unwinder: tables of the files at their paths on the host too
# (the library, libc) may be kept across runs; the program on the namespace's tmpfs, root's
# and with a build-id, is not (docs/unwind.md: a rootful container's root owns its files too).
if "$BPFTOOLS" features | grep -q '^unwinder.*yes'; then
	TRACER="stackcount --debug -U" trace_ns "$NS/fc_work:bt_work_a"
	expect_rc 0 "stackcount -U -p PID (inside the namespace)"
	grep -q "unwind: $NS/fc_work: table built" "$ERR" ||
		fail "stackcount: the namespaced program's table not built: $(grep 'unwind: /' "$ERR" | tr '\n' '|')"
	grep -q "unwind: $NS/fc_work: table built ([0-9]* rows), kept\|unwind: $NS/fc_work: table read from the cache" "$ERR" &&
		fail "stackcount: the namespaced program's table kept across runs: $(grep "$NS/fc_work" "$ERR" | tr '\n' '|')"
	ok "stackcount -U inside the namespace: the program's table built, not kept across runs"
fi
