#!/bin/sh
# --json on every command of the registry (cmd/commands.def): each runs briefly against a
# workload with known behaviour, and test/live/json_check.py parses every line of its stdout
# (one JSON object each) and stderr (one JSON message each: the banner, warnings, errors),
# checks the shared shapes (docs/json.md: histograms, stacks, "ts"/"val_type") and what the
# workload must have produced: exact call counts, histogram totals equal to the calls, stack
# frames naming the workload's functions. A command with no case here fails the test. Then
# errors and usage errors in JSON mode are JSON lines, with no usage text.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints uprobes
need python3
. "$(dirname "$0")/block.inc"

SRC=${BT_SRC:-$(dirname "$0")/../..}
W=$BT_WORKLOADS
FL=$W/funclatency_work
SP=$W/stack_paths
for w in "$FL" "$SP" "$W/fc_work" "$W/open_work" "$W/tlb_shootdown" "$W/stack_many"; do
	[ -x "$w" ] || fail "workload $w not built"
done

# check CMD NAME=VALUE...: json_check.py on $OUT and $ERR.
check() {
	c=$1
	shift
	python3 "$SRC/test/live/json_check.py" "$c" "$OUT" "$ERR" "$@" 2>"$T/why" ||
		fail "$c --json: $(cat "$T/why")"
}

# jstart CMD ARGS...: bpftools CMD --json ARGS in the background until its banner (a JSON
# info line on stderr); $FPID. jstop [SIG]: signal it (or not) and wait; status in $RC.
jstart() {
	c=$1
	shift
	BANNER='"level": "info", "command": "'"$c"'", "message": "Tracing' lt_start "$c" --json "$@"
}
# lib.sh's start_tool, which block.inc replaced with its own
lt_start() {
	OUT=$T/out ERR=$T/err
	: >"$OUT"
	: >"$ERR"
	"$BPFTOOLS" "$@" >"$OUT" 2>"$ERR" &
	FPID=$!
	i=0
	until grep -q "$BANNER" "$ERR" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 $FPID 2>/dev/null; then
			kill -TERM $FPID 2>/dev/null
			wait $FPID
			fail "bpftools $1 --json did not start (exit $?)"
		fi
		sleep 0.1
	done
}
jstop() {
	[ -n "${1:-}" ] && kill -"$1" $FPID
	RC=0
	wait $FPID || RC=$?
}
# traced WORKLOAD ARGS... -- CMD ARGS...: lib.sh's traced_workload with --json, the banner on
# stderr.
traced() {
	BANNER_IN=err traced_workload "$@"
}

N=64 # direct reads for the block tools
RD=bt_json_dd
blk_setup >/dev/null

run_case() {
	case $1 in
	biolatency)
		jstart biolatency -D 30
		named_dd "$RD" if="$BLK_FILE" of=/dev/null bs=4k count=$N iflag=direct
		jstop INT
		expect_rc 0 "biolatency --json -D"
		check biolatency disk="$BLK_DISK" n=$N
		;;
	biosnoop)
		jstart biosnoop
		named_dd "$RD" if="$BLK_FILE" of=/dev/null bs=4k count=$N iflag=direct
		sleep 0.3
		jstop INT
		expect_rc 0 "biosnoop --json"
		check biosnoop comm="$RD" n=$N
		;;
	features)
		run features --json
		expect_rc 0 "features --json"
		check features
		;;
	funccount)
		# uprobes on the executable's functions, exact counts (fc_work A B L S)
		traced "$W/fc_work" 1000 2000 0 0 -- funccount --json -p @PID "$W/fc_work:bt_work_*"
		expect_rc 0 "funccount --json"
		check funccount counts=bt_work_a:1000,bt_work_b:2000
		;;
	funclatency)
		# 3 calls of 5 ms and 4 of 1.5 ms: one histogram of 7 calls, then one per function
		traced "$FL" 3 4 0 0 -- funclatency --json -p @PID "$FL:fl_sleep_*"
		expect_rc 0 "funclatency --json"
		check funclatency calls=7 min_total=$((3 * 5000000 + 4 * 1500000))
		traced "$FL" 3 4 0 0 -- funclatency --json -u -F -p @PID "$FL:fl_sleep_*"
		expect_rc 0 "funclatency --json -u -F"
		check funclatency calls=7 min_total=$((3 * 5000 + 4 * 1500)) pid="$wpid" \
			per=fl_sleep_long:3,fl_sleep_short:4
		;;
	funcslower)
		traced "$FL" 3 4 0 0 -- funcslower --json -U -m 3 -p @PID "$FL:fl_sleep_long"
		expect_rc 0 "funcslower --json"
		check funcslower n=3 pid="$wpid" function=fl_sleep_long min_ns=5000000
		;;
	hardirqs)
		jstart hardirqs -C 1 2
		named_dd "$RD" if="$BLK_FILE" of=/dev/null bs=4k count=$N iflag=direct
		jstop
		expect_rc 0 "hardirqs --json -C 1 2"
		check hardirqs outputs=2
		;;
	offcputime)
		# three 20 ms sleeps in raw system calls: every user frame is walked
		traced "$W/stack_many" sleep 1 20000 -- offcputime --json -p @PID
		expect_rc 0 "offcputime --json"
		check offcputime pid="$wpid" min_us=18000 user_fn=leaf kernel_fn=do_nanosleep
		;;
	offwaketime)
		traced "$W/stack_many" sleep 1 20000 -- offwaketime --json -p @PID
		expect_rc 0 "offwaketime --json"
		check offwaketime pid="$wpid" min_us=54000
		;;
	opensnoop)
		traced "$W/open_work" -w 3 "$T/no-such-file" -- opensnoop --json -p @PID
		expect_rc 0 "opensnoop --json"
		check opensnoop n=3 pid="$wpid" path="$T/no-such-file"
		;;
	profile)
		# 500 ms of CPU in fs_spin_loop(): ~24 samples at 49 Hz, its frame in the stacks
		BANNER='message.: .Sampling' traced "$W/fs_prof_work" spin 500 -- profile --json -p @PID
		expect_rc 0 "profile --json"
		check profile pid="$wpid" min=10 user_fn=fs_spin_loop
		;;
	smpcalls)
		"$W/tlb_shootdown" 2000 -1 >/dev/null 2>&1 &
		wl=$!
		jstart smpcalls
		tlb0=$(awk '$1 == "TLB:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i } END { print n + 0 }' /proc/interrupts)
		kill -USR1 $wl
		wait $wl || fail "tlb_shootdown exited $?"
		tlb1=$(awk '$1 == "TLB:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i } END { print n + 0 }' /proc/interrupts)
		jstop INT
		expect_rc 0 "smpcalls --json"
		# one CPU to run on: membarrier makes no cross call; the objects' shape is still checked
		min=1
		if [ "$NCPUS" -lt 2 ]; then
			min=0
			echo "skipped: smpcalls --json's ipi_mb count (one CPU to run on: CPUs $CPUS; no cross calls)"
		fi
		check smpcalls min=$min tlb=$((tlb1 - tlb0))
		;;
	softirqs)
		jstart softirqs 1 1
		jstop
		expect_rc 0 "softirqs --json 1 1"
		check softirqs outputs=1
		;;
	stackcount)
		# the workload exits before the output: names come from the process snapshot
		traced "$SP" 3 5 -1 -- stackcount --json -U -p @PID "$SP:bt_leaf"
		expect_rc 0 "stackcount --json"
		check stackcount pid="$wpid" a=3 b=5
		;;
	stacksnoop)
		traced "$SP" 3 5 -1 -- stacksnoop --json -p @PID "$SP:bt_leaf"
		expect_rc 0 "stacksnoop --json"
		check stacksnoop pid="$wpid" a=3 b=5
		;;
	exporter)
		# what it serves is Prometheus' formats, over HTTP: it takes no --json
		run exporter --json
		expect_rc 2 "exporter --json"
		grep -q "unrecognized option '--json'" "$ERR" || fail "exporter --json: $(head -1 "$ERR")"
		;;
	vfsstat)
		run vfsstat --json 1 2
		if [ "$RC" = 1 ] && [ ! -e /sys/bus/event_source/devices/kprobe/type ]; then
			# its kernel functions cannot be traced here: the refusal is one JSON line
			check vfsstat refused="cannot trace 'vfs_read'"
			ok "vfsstat --json: refused here (no kprobes, fentry refused), as one JSON line"
			return
		fi
		expect_rc 0 "vfsstat --json 1 2"
		check vfsstat outputs=2 min_reads=0
		;;
	*)
		fail "no --json case for '$1': every command of cmd/commands.def needs one here"
		;;
	esac
	ok "$1 --json"
}

cmds=$(sed -n 's/^BT_CMD(\([a-z0-9_]*\))$/\1/p' "$SRC/cmd/commands.def")
[ -n "$cmds" ] || fail "no commands in $SRC/cmd/commands.def"
for c in $cmds; do
	run_case "$c"
done

# Errors in JSON mode: one JSON line each, no usage text; exit codes as in text mode.
# (a missing binary is found when the pattern is resolved, after parsing: bad input, exit 2)
run funccount --json "$T/none:bt_nothing"
expect_rc 2 "funccount --json on a missing binary"
python3 - "$ERR" <<'EOF' || fail "runtime error in JSON mode"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
m = json.loads(lines[0])
assert m["level"] == "error" and m["command"] == "funccount" and "none" in m["message"], m
EOF
for bad in "-p x f" "-f t:sched:sched_switch" "-K -U t:sched:sched_switch" "0 1 2"; do
	c=stackcount
	[ "$bad" = "0 1 2" ] && c=vfsstat
	# shellcheck disable=SC2086
	run $c --json $bad
	expect_rc 2 "$c --json $bad"
	[ -s "$OUT" ] && fail "$c --json $bad: printed to stdout"
	python3 - "$ERR" "$c" <<'EOF' || fail "$c --json $bad: usage error not one JSON line"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
m = json.loads(lines[0])
assert m["level"] == "error" and m["command"] == sys.argv[2], m
EOF
done
ok "errors and usage errors in JSON mode: one JSON line on stderr, no usage text"
