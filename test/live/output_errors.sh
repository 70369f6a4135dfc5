#!/bin/sh
# Output that cannot be written is a failure, said once: every tool, whichever print path it
# uses (tables, histograms, events, --json, interval output, --flamegraph/--pprof files), exits
# 1 with "NAME: cannot write the output: WHY" when stdout is /dev/full, closed, or a file on a
# full file system, and names the real cause (ENOSPC, EBADF), not EIO. A reader that went away
# (`| head`, EPIPE) only ends the output: exit 0, nothing on stderr.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints

# a file system with no room left, unmounted at the end
FULL=$T/full
mkdir "$FULL"
mount -t tmpfs -o size=4k tmpfs "$FULL" || skip "cannot mount a tmpfs"
trap 'umount "$FULL" 2>/dev/null; rm -rf "$T"' EXIT
head -c 65536 /dev/zero >"$FULL/fill" 2>/dev/null
[ "$(df -P "$FULL" | awk 'NR == 2 { print $4 }')" = 0 ] || fail "the tmpfs is not full"

ERR=$T/err
# expect_err TOOL MESSAGE: the last run exited 1 saying "TOOL: MESSAGE" (in --json, a JSON
# line with that message) once, and nothing else but a banner
expect_err() {
	[ "$RC" = 1 ] || fail "$what: exit $RC, expected 1"
	case $what in
	*--json*) line="{\"level\": \"error\", \"command\": \"$1\", \"message\": \"$2\"}" ;;
	*) line="$1: $2" ;;
	esac
	grep -Fxq -- "$line" "$ERR" || fail "$what: stderr lacks '$line'"
	[ "$(grep -Evc '^Tracing|"level": "info"|: warning: ' "$ERR")" = 1 ] ||
		fail "$what: more than the one error on stderr"
}

# to HOW TOOL ARGS...: run bpftools with stdout full (/dev/full), closed, a file on $FULL, or
# /dev/null
to() {
	how=$1
	shift
	what="$* ($how)"
	RC=0
	case $how in
	devfull) timeout -k 5 20 "$BPFTOOLS" "$@" >/dev/full 2>"$ERR" || RC=$? ;;
	closed) timeout -k 5 20 "$BPFTOOLS" "$@" >&- 2>"$ERR" || RC=$? ;;
	fullfs) timeout -k 5 20 "$BPFTOOLS" "$@" >"$FULL/out" 2>"$ERR" || RC=$? ;;
	null) timeout -k 5 20 "$BPFTOOLS" "$@" >/dev/null 2>"$ERR" || RC=$? ;;
	esac
	[ "$RC" = 124 ] && fail "$what: still running after 20 s"
	return 0
}

n=0
for cmd in "funccount -d 1 t:sched:sched_switch" "funccount --json -d 1 t:sched:sched_switch" \
	"stackcount -D 1 t:sched:sched_switch" "offcputime 1" "opensnoop -d 1" "softirqs 1 1" \
	"hardirqs 1 1" "biolatency 1 1" "smpcalls 1 1" "features"; do
	tool=${cmd%% *}
	# shellcheck disable=SC2086 # the command's words
	to devfull $cmd
	expect_err "$tool" "cannot write the output: No space left on device"
	# shellcheck disable=SC2086
	to closed $cmd
	expect_err "$tool" "cannot write the output: Bad file descriptor"
	n=$((n + 2))
done
for cmd in "funccount -d 1 t:sched:sched_switch" "funccount --json -d 1 t:sched:sched_switch" \
	"opensnoop -d 1"; do
	# shellcheck disable=SC2086
	to fullfs $cmd
	expect_err "${cmd%% *}" "cannot write the output: No space left on device"
	n=$((n + 1))
done
ok "$n runs with stdout unwritable: exit 1 and the cause, once"

# the top level's own output
for args in "--list" "completion bash"; do
	# shellcheck disable=SC2086
	to devfull $args
	expect_err bpftools "cannot write the output: No space left on device"
done
ok "bpftools --list and completion to /dev/full say so"

# interval output that fails stops there, rather than tracing on unseen
to devfull softirqs 1
expect_err softirqs "cannot write the output: No space left on device"
ok "softirqs 1 (no count) ends at its first unwritable output"

# the profile files
to null stackcount -D 1 --flamegraph "$FULL/s.svg" t:sched:sched_switch
expect_err stackcount "cannot write '$FULL/s.svg': No space left on device"
to null stackcount -D 1 --pprof "$FULL/s.pb.gz" t:sched:sched_switch
expect_err stackcount "cannot write '$FULL/s.pb.gz': No space left on device"
printf 'main;work 3\nmain;idle 1\n' >"$T/folded"
to null flamegraph -o "$FULL/f.svg" "$T/folded"
expect_err "bpftools flamegraph" "cannot write the flame graph: No space left on device"
to null flamegraph --pprof -o "$FULL/f.pb.gz" "$T/folded"
expect_err "bpftools flamegraph" "cannot write the profile: No space left on device"
ok "--flamegraph, --pprof and bpftools flamegraph -o on a full disk say so"

RC=0
"$BPFTOOLS" flamegraph "$T" >/dev/null 2>"$ERR" || RC=$?
[ "$RC" = 1 ] && grep -Fxq "bpftools flamegraph: cannot read '$T': not a regular file (a directory)" "$ERR" ||
	fail "bpftools flamegraph DIR: exit $RC, $(head -n 1 "$ERR")"
RC=0
"$BPFTOOLS" flamegraph <"$T" >/dev/null 2>"$ERR" || RC=$?
[ "$RC" = 1 ] && grep -Fxq "bpftools flamegraph: cannot read standard input: Is a directory" "$ERR" ||
	fail "bpftools flamegraph < DIR: exit $RC, $(head -n 1 "$ERR")"
ok "bpftools flamegraph of a directory says so"

# EPIPE: the reader leaving is no error
{
	RC=0
	timeout -k 5 20 "$BPFTOOLS" funccount -i 1 t:sched:sched_switch 2>"$ERR" || RC=$?
	echo "$RC" >"$T/rc"
} | head -n 1 >/dev/null
RC=$(cat "$T/rc")
[ "$RC" = 0 ] || fail "funccount -i 1 | head -1: exit $RC"
[ -s "$ERR" ] && fail "funccount -i 1 | head -1: stderr is not empty"
ok "funccount -i 1 | head -1: exit 0, quiet"
