# Shared helpers for the live tests (sourced). A live test runs the real binary on this
# machine's kernel and asserts on what it printed. Exit 0 = pass, 1 = fail, 77 = skipped
# because the kernel lacks a facility (printed as the reason; ctest shows it).

BPFTOOLS=${BPFTOOLS:?BPFTOOLS must point at the bpftools binary}
BT_WORKLOADS=${BT_WORKLOADS:-$(dirname "$BPFTOOLS")/test/workloads}
T=$(mktemp -d "${TMPDIR:-/tmp}/bt-live.XXXXXX")
trap 'rm -rf "$T"' EXIT

skip() {
	echo "SKIP: $*"
	exit 77
}

fail() {
	echo "FAIL: $*" >&2
	[ -n "${OUT:-}" ] && [ -f "$OUT" ] && { echo "--- output:" >&2; cat "$OUT" >&2; }
	[ -n "${ERR:-}" ] && [ -s "$ERR" ] && { echo "--- stderr:" >&2; cat "$ERR" >&2; }
	exit 1
}

ok() {
	echo "ok: $*"
}

# require FACILITY...: skip unless the kernel (and we) have it.
require() {
	for f in "$@"; do
		case $f in
		root) [ "$(id -u)" = 0 ] || skip "needs root" ;;
		btf) [ -r /sys/kernel/btf/vmlinux ] || skip "kernel has no BTF (/sys/kernel/btf/vmlinux)" ;;
		tracepoints)
			[ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ] ||
				mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
				skip "no tracefs: kernel built without tracepoints"
			;;
		uprobes) [ -e /sys/bus/event_source/devices/uprobe/type ] || skip "kernel has no uprobes (no uprobe PMU)" ;;
		kprobes) [ -e /sys/bus/event_source/devices/kprobe/type ] || skip "kernel built without kprobes (no kprobe PMU)" ;;
		syscalls)
			require tracepoints
			ls /sys/kernel/tracing/events/syscalls /sys/kernel/debug/tracing/events/syscalls 2>/dev/null |
				grep -q '^sys_enter_' ||
				skip "no syscalls:* tracepoints (kernel built without CONFIG_FTRACE_SYSCALLS)"
			;;
		*) fail "unknown facility '$f' in require" ;;
		esac
	done
}

# need COMMAND...: skip unless each COMMAND is on PATH (a tool of the host, not of the kernel).
need() {
	for c in "$@"; do
		command -v "$c" >/dev/null || skip "no $c on this machine (PATH=$PATH)"
	done
}

# The CPUs: CPUS, those this test may run a workload on (its affinity: taskset -c 0 narrows
# it), ONLINE, those the kernel runs (a tool's -c/-C may name any of them), each a list of
# numbers; NCPUS and NONLINE their counts. other_cpu CPU: an online CPU that is not CPU, or
# nothing on a machine of one CPU. BT_TEST_ONLINE (a list, "0") stands in for the online CPUs:
# a test tried as on a smaller machine.
cpu_list() {
	awk '{ n = split($0, r, ","); for (i = 1; i <= n; i++) { if (split(r[i], b, "-") == 2)
		for (c = b[1]; c <= b[2]; c++) printf "%d ", c; else if (r[i] != "") printf "%d ", r[i] } }'
}
CPUS=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | cpu_list)
ONLINE=$(echo "${BT_TEST_ONLINE:-$(cat /sys/devices/system/cpu/online)}" | cpu_list)
NCPUS=$(echo $CPUS | wc -w)
NONLINE=$(echo $ONLINE | wc -w)
other_cpu() {
	for c in $ONLINE; do
		[ "$c" = "$1" ] || {
			echo "$c"
			return
		}
	done
}

# nobody_enters DIR: the user nobody (uid 65534, as setpriv makes it: no passwd entry needed)
# can enter DIR. A TMPDIR under a private directory (a home of mode 700) keeps it out of $T.
nobody_enters() {
	command -v setpriv >/dev/null &&
		setpriv --reuid=65534 --regid=65534 --clear-groups -- sh -c 'cd "$1"' sh "$1" 2>/dev/null
}

# run ARGS...: run bpftools with a timeout, output in $OUT, stderr in $ERR, status in $RC.
run() {
	OUT=$T/out ERR=$T/err
	RC=0
	timeout -s INT -k 5 "${BT_TIMEOUT:-30}" "$BPFTOOLS" "$@" >"$OUT" 2>"$ERR" || RC=$?
}

expect_rc() {
	[ "$RC" = "$1" ] || fail "expected exit $1, got $RC: bpftools $2"
}

# expect_line REGEX: some output line matches the extended regex.
expect_line() {
	grep -Eq -- "$1" "$OUT" || fail "no output line matches /$1/"
}

# value_of NAME: the number in the row "NAME   123" of a two-column table.
value_of() {
	awk -v n="$1" '$1 == n { v = $NF } END { print v + 0 }' "$OUT"
}

# traced_workload WORKLOAD [ARGS...] -- TOOL [ARGS...]: start WORKLOAD, which waits for
# SIGUSR1; run bpftools TOOL ARGS ("@PID" in ARGS becomes the workload's pid); release the
# workload once the tool prints its banner ($BANNER, default ^Tracing or a JSON info line whose
# message starts "Tracing", looked for in
# $BANNER_IN: out, the default, or err) within $BANNER_WAIT tenths of a second (100); then
# Ctrl-C the tool.
# $PIN prefixes the workload (e.g. "taskset -c 0"); with $READY_MAPS set, the tool starts only
# once the workload has that library mapped (-p resolves libraries through the maps).
# $ALSO: pids of other paused workloads, released together with this one (so that a filter
# test's excluded process runs while tracing) and waited for before the Ctrl-C.
# Output in $OUT, stderr in $ERR, the tool's status in $RC.
traced_workload() {
	OUT=$T/out ERR=$T/err
	: >"$OUT" # the wait below must not see the previous run's banner
	: >"$ERR"
	wl=""
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		wl="$wl $1"
		shift
	done
	shift
	tool=$1
	shift
	# shellcheck disable=SC2086
	${PIN:-} $wl &
	wpid=$!
	# the tool starts once the workload sleeps (waiting for its signal), past its exec and its
	# loader's opens: a tool started before them counts them under -p (funclatency counted
	# 27 openat of 25, the two slower ones ld.so's, beside other tests' load)
	i=0
	until [ "$(sed 's/.*) //' /proc/$wpid/stat 2>/dev/null | cut -d' ' -f1)" = S ] ||
		[ $i -ge 500 ] || ! kill -0 $wpid 2>/dev/null; do
		i=$((i + 1))
		sleep 0.01
	done
	i=0
	while [ -n "${READY_MAPS:-}" ] && ! grep -q "$READY_MAPS" /proc/$wpid/maps 2>/dev/null &&
		[ $i -le 100 ]; do
		i=$((i + 1))
		sleep 0.01
	done
	args=""
	for a in "$@"; do
		[ "$a" = "@PID" ] && a=$wpid
		args="$args $a"
	done
	# shellcheck disable=SC2086
	"$BPFTOOLS" "$tool" $args >"$OUT" 2>"$ERR" &
	fpid=$!
	i=0
	banner_file=$OUT
	[ "${BANNER_IN:-out}" = err ] && banner_file=$ERR
	until grep -q "${BANNER:-^Tracing\|message.: .Tracing}" "$banner_file" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt "${BANNER_WAIT:-100}" ] || ! kill -0 $fpid 2>/dev/null; then
			kill -TERM $wpid $fpid ${ALSO:-} 2>/dev/null
			wait $fpid
			RC=$?
			return
		fi
		sleep 0.1
	done
	kill -USR1 $wpid ${ALSO:-}
	wait $wpid || fail "workload exited $?"
	for a in ${ALSO:-}; do
		wait "$a" || fail "workload $a exited $?"
	done
	kill -INT $fpid
	RC=0
	wait $fpid || RC=$?
}

# start_tool TOOL [ARGS...]: run bpftools in the background (output in $OUT, stderr in $ERR)
# and return once it prints its banner ($BANNER in $BANNER_IN, as traced_workload); $FPID is
# its pid. finish_tool waits for it to end by itself (a duration), finish_tool INT stops it.
start_tool() {
	OUT=$T/out ERR=$T/err
	: >"$OUT"
	: >"$ERR"
	"$BPFTOOLS" "$@" >"$OUT" 2>"$ERR" &
	FPID=$!
	banner_file=$OUT
	[ "${BANNER_IN:-out}" = err ] && banner_file=$ERR
	i=0
	until grep -q "${BANNER:-^Tracing\|message.: .Tracing}" "$banner_file" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt "${BANNER_WAIT:-100}" ] || ! kill -0 $FPID 2>/dev/null; then
			kill -TERM $FPID 2>/dev/null
			wait $FPID
			RC=$?
			fail "bpftools $1 did not start (exit $RC)"
		fi
		sleep 0.1
	done
}

finish_tool() {
	[ -n "${1:-}" ] && kill -"$1" $FPID
	wait_tool $FPID
}

# wait_tool PID: its exit status in RC. A tool still running 60 s after it was told to stop
# fails the test with what each of its threads waits in and its signal masks: a hang says
# where it is, rather than running into the suite's timeout.
wait_tool() {
	i=0
	while [ -e /proc/$1 ] && [ "$(cut -d' ' -f3 /proc/$1/stat 2>/dev/null)" != Z ]; do
		i=$((i + 1))
		if [ $i -gt 600 ]; then
			{
				grep '^Sig\|^ShdPnd' /proc/$1/status
				for t in /proc/$1/task/*; do
					echo "thread $(cat $t/comm) $(cut -d' ' -f3 $t/stat) in $(cat $t/wchan)"
					cat $t/stack 2>/dev/null | head -8
				done
			} >"$T/hang" 2>&1
			kill -KILL $1 2>/dev/null
			wait $1
			fail "pid $1 still running 60 s after it was told to stop: $(tr '\n' '|' <"$T/hang")"
		fi
		sleep 0.1
	done
	RC=0
	wait $1 || RC=$?
}

# flood_opens LOST TOOL ARGS...: FLOOD (10,400) threads of one process (open_flood) blocked opening
# a FIFO at once, more than a table of 10,240 opens or calls in flight holds, then let go, traced
# by bpftools TOOL ARGS ("@PID": the process; as traced_workload). LOST is the tool's words for
# what a full table refused ("calls not timed"); their number, from its warning line, is left in
# $LOST: present and at least the 160 threads past the table, or the test fails.
FLOOD=10400
flood_opens() {
	lost_words=$1
	shift
	rm -f "$T/fifo"
	mkfifo "$T/fifo" || fail "cannot make a FIFO"
	traced_workload "$BT_WORKLOADS/open_flood" $FLOOD "$T/fifo" -- "$@"
	expect_rc 0 "$* ($FLOOD opens in flight)"
	LOST=$(sed -n "s/^$1: warning: \\([0-9]*\\) $lost_words: the table of .* (10240 entries) was full\$/\\1/p" "$ERR")
	[ -n "$LOST" ] || fail "$1: $FLOOD opens in flight: no line for those the full table refused"
	[ "$LOST" -ge $((FLOOD - 10240)) ] || fail "$1: $FLOOD opens in flight: only $LOST said refused"
}
