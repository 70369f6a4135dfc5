#!/bin/sh
# funcslower on this kernel: a user function that sleeps 3 ms for odd arguments and returns
# 2 * its argument (uprobes), exact rows, return values and arguments, -p, -T/-t, user stacks
# and folded output, a syscall's kernel stack, both event buffers, the refusal of kernel
# functions where the kernel cannot trace them, -B (where slow calls blocked) and -S (where
# they ran) with --json, and bad input.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints uprobes syscalls

W=$BT_WORKLOADS/funcslower_work
[ -x "$W" ] || fail "workload funcslower_work not built"
F=$W:fs_work
FAIL=$W:fs_fail
N=7 # fs_work(1..7): 1, 3, 5 and 7 sleep
COMM=funcslower_wor
ALSO= # other workload processes that start with the traced one

# started PATH: wait until $WPID runs PATH. A process the tool snapshots before its exec keeps
# the shell's mappings (lib/stacks/bt_stacks, being fixed there): its frames would be [unknown].
started() {
	i=0 exe=$(readlink -f "$1")
	until [ "$(readlink "/proc/$WPID/exe" 2>/dev/null)" = "$exe" ]; do
		i=$((i + 1))
		[ $i -lt 200 ] || fail "workload $1 did not start"
		sleep 0.01
	done
}

# trace N_CALLS N_FAIL ARGS...: start the workload, trace it with ARGS until it has finished,
# then Ctrl-C. Sets OUT, ERR, RC and WPID. ARGS may use $WPID through the word @PID@.
trace() {
	n=$1 nf=$2
	shift 2
	"$W" $n 3 $nf &
	WPID=$!
	started "$W"
	OUT=$T/out ERR=$T/err
	: >"$OUT"
	: >"$ERR"
	args=
	for a in "$@"; do
		[ "$a" = @PID@ ] && a=$WPID
		args="$args $a"
	done
	# shellcheck disable=SC2086
	"$BPFTOOLS" funcslower -v $args >"$OUT" 2>"$ERR" &
	tpid=$!
	i=0
	until grep -q 'uprobe\|tracepoint' "$ERR"; do # -v says how it attached: tracing now
		i=$((i + 1))
		[ $i -lt 100 ] && kill -0 $tpid 2>/dev/null || {
			kill -INT $tpid $WPID 2>/dev/null
			wait $tpid
			fail "funcslower$args did not start"
		}
		sleep 0.1
	done
	kill -USR1 $WPID $ALSO
	wait $WPID || fail "workload exited with $?"
	sleep 0.3
	kill -INT $tpid
	RC=0
	wait $tpid || RC=$?
	expect_rc 0 "funcslower$args"
}

rows() { grep -c "^$COMM " "$OUT"; }

# Exactly the slow calls, in order, with exact return values; BCC's banner, header and row
# layout (the trailing space after FUNC is BCC's "%s %s" with no arguments).
for events in ringbuf perfbuf; do
	if [ $events = perfbuf ]; then
		BPFTOOLS_NO_RINGBUF=1 trace $N 0 -u 1000 "$F"
	else
		trace $N 0 -u 1000 "$F"
	fi
	[ "$(sed -n 1p "$OUT")" = "Tracing function calls slower than 1000 us... Ctrl+C to quit." ] ||
		fail "banner ($events)"
	[ "$(sed -n 2p "$OUT")" = "COMM           PID    LAT(us)             RVAL FUNC" ] ||
		fail "header ($events)"
	[ "$(rows)" = 4 ] || fail "-u 1000 ($events): expected 4 slow calls, got $(rows)"
	[ "$(awk -v c=$COMM '$1 == c { printf "%s,", $4 }' "$OUT")" = "2,6,a,e," ] ||
		fail "-u 1000 ($events): return values are not 2,6,a,e"
	[ "$(grep -c "^$COMM $WPID  *[0-9][0-9]*\.[0-9][0-9]  *[0-9a-f]* $F \$" "$OUT")" = 4 ] ||
		fail "-u 1000 ($events): rows not laid out as BCC's"
	awk -v c=$COMM '$1 == c && ($3 < 3000 || $3 > 100000) { exit 1 }' "$OUT" ||
		fail "-u 1000 ($events): a latency is not around 3000 us"
	ok "slow calls exactly, $events"
done

# -m 0 is a threshold of 0 (BCC falls back to 1 ms): every call.
trace $N 0 -m 0 "$F"
[ "$(rows)" = $N ] || fail "-m 0: expected all $N calls, got $(rows)"
expect_line '^Tracing function calls slower than 0 ms\.\.\. Ctrl\+C to quit\.$'
ok "-m 0 shows every call"

# A user function's entry and return: one uprobe.session link where the kernel has it (6.13+;
# the exit then removes one link, not two), else an entry link and a return link. Both show
# every call with its return value; the runs above and below take the default.
if "$BPFTOOLS" features | grep -q '^uprobe.session *yes'; then
	grep -q ": uprobe.session + uprobe.session (return)\$" "$ERR" ||
		fail "-v: not attached as one uprobe.session: $(head -1 "$ERR")"
	(
		BPFTOOLS_NO_UPROBE_SESSION=1
		export BPFTOOLS_NO_UPROBE_SESSION
		trace $N 0 -m 0 "$F"
	) || fail "funcslower with separate entry and return links"
	grep -q ": uprobe + uretprobe\$" "$ERR" ||
		fail "BPFTOOLS_NO_UPROBE_SESSION=1 -v: not an entry and a return link: $(head -1 "$ERR")"
	[ "$(rows)" = $N ] || fail "entry and return links: expected all $N calls, got $(rows)"
	ok "a user function through one uprobe.session link, and through an entry and a return link"
else
	echo "note: no uprobe.session on this kernel (older than 6.13): entry and return links only"
fi

# -a 2: the arguments in hex; two functions, FUNC as given; -1 is ffffffffffffffff.
trace $N 2 -m 0.5 -a 2 "$F" "$FAIL"
expect_line '^COMM           PID    LAT\(ms\)             RVAL FUNC ARGS$'
expect_line '^Tracing function calls slower than 0\.5 ms'
for i in 1 3 5 7; do
	expect_line "^$COMM $WPID  *[0-9.]+  *$(printf %x $((2 * i))) $F 0x$i 0x100$i\$"
done
[ "$(grep -c "^$COMM $WPID  *[0-9.]*  *ffffffffffffffff $FAIL 0x" "$OUT")" = 2 ] ||
	fail "-a 2: expected 2 fs_fail rows returning -1"
[ "$(rows)" = 6 ] || fail "-a 2: expected 6 rows, got $(rows)"
ok "arguments, several functions, negative return values"

# -p: a second instance of the workload runs at the same time and is not shown.
"$W" $N 3 &
other=$!
ALSO=$other
trace $N 0 -p @PID@ "$F"
ALSO=
wait $other
[ "$(rows)" = 4 ] || fail "-p: expected the 4 slow calls of one process, got $(rows)"
[ "$(awk -v c=$COMM '$1 == c { print $2 }' "$OUT" | sort -u)" = "$WPID" ] ||
	fail "-p $WPID: rows of another process"
ok "-p filters"

# -T: wall-clock column; -t: seconds since the first call, increasing.
trace $N 0 -T "$F"
expect_line '^TIME       COMM           PID    LAT\(ms\)             RVAL FUNC$'
[ "$(grep -cE "^[0-9]{2}:[0-9]{2}:[0-9]{2}   $COMM " "$OUT")" = 4 ] || fail "-T: no HH:MM:SS column"
trace $N 0 -t "$F"
[ "$(grep -cE "^[0-9]+\.[0-9]{6} +$COMM " "$OUT")" = 4 ] || fail "-t: no seconds column"
awk -v c=$COMM '$2 == c { if (n++ == 0 && $1 != "0.000000") exit 1; if ($1 < last) exit 1; last = $1 }' \
	"$OUT" || fail "-t: not 0.000000 first, then increasing"
ok "-T and -t columns"

# -U: user stacks captured at entry name the caller (spliced in: the entry's frame walk cannot
# see it) and main.
trace $N 0 -U "$F"
[ "$(awk '/^    fs_work$/ { w = NR } /^    fs_caller$/ && NR == w + 1 { n++ } END { print n + 0 }' "$OUT")" = 4 ] ||
	fail "-U: not 4 stacks 'fs_work <- fs_caller'"
expect_line '^    main$'
ok "user stacks"

# Folded: comm;outermost;...;innermost 1 per slow call, no banner; -f alone implies -U -K.
for f in "-f -U" "-f"; do
	# shellcheck disable=SC2086
	trace $N 0 $f "$F"
	[ "$(grep -c "^funcslower_work;.*;main;fs_caller;fs_work 1\$" "$OUT")" = 4 ] ||
		fail "$f: expected 4 folded lines ending main;fs_caller;fs_work 1"
	grep -q 'Tracing\|COMM' "$OUT" && fail "$f: banner in folded output"
	[ "$(wc -l <"$OUT")" = 4 ] || fail "$f: extra lines"
done
ok "folded output"

# A system call through its tracepoints: kernel stack of the entry, return value 0.
trace 4 1 -K -a 2 -p @PID@ syscall:clock_nanosleep
[ "$(rows)" = 3 ] || fail "syscall: expected 3 slow clock_nanosleep calls, got $(rows)"
[ "$(grep -c "^$COMM $WPID  *[0-9.]*  *0 syscall:clock_nanosleep 0x0 0x0\$" "$OUT")" = 3 ] ||
	fail "syscall: rows, return value 0, arguments (CLOCK_REALTIME, 0)"
expect_line '^    do_syscall_64$'
expect_line '^    entry_SYSCALL_64'
grep -q 'bpf_prog_\|bpf_trace_run\|__bpf_trace' "$OUT" && fail "tracing artefacts in kernel stacks"
ok "syscall entry and exit, kernel stacks"

# A system call with no arguments: its sys_enter record ends before sys_exit's ret, so the
# entry and the return need programs of their own (one program reading ret is refused at
# sys_enter_getppid). fc_work makes exactly 7 getppid calls.
traced_workload "$BT_WORKLOADS/fc_work" 0 0 0 7 -- funcslower -u 0 -p @PID syscall:getppid
expect_rc 0 "funcslower -u 0 syscall:getppid"
[ "$(grep -c "^fc_work  *$wpid  *[0-9.]*  *[0-9a-f]* syscall:getppid \$" "$OUT")" = 7 ] ||
	fail "syscall:getppid: expected 7 rows of fc_work ($wpid), got: $(head -n 5 "$OUT")"
ok "a system call with no arguments"

# A full table of calls in flight: 10,400 threads of one process blocked in openat on a FIFO
# hold its 10,240 entries; the calls after them (the other 160, and the writer's open that lets
# them go) are not timed, and said so at the end: every call is a row or counted. (An LRU table
# dropped the oldest calls instead, the slowest in flight, unsaid.)
flood_opens "calls not timed" funcslower -u 0 -p @PID syscall:openat
timed=$(grep -c "^open_flood  *$wpid " "$OUT")
# a burst of 10,240 events may overflow the 1 MiB ring buffer: those are said lost too
dropped=$(sed -n 's/^funcslower: warning: \([0-9]*\) events lost$/\1/p' "$ERR")
[ $((timed + ${dropped:-0} + LOST)) = $((FLOOD + 1)) ] ||
	fail "$FLOOD calls in flight: $timed rows, ${dropped:-0} events lost and $LOST not timed, not $((FLOOD + 1)) in all"
ok "a full table of calls in flight: $timed calls timed, $LOST said not timed"

# Kernel functions: traced where the kernel can (then stopped by the timeout's Ctrl-C, exit 0
# with the header); refused with the reason where it cannot (this machine: exit 1).
BT_TIMEOUT=3 run funcslower vfs_read
case $RC in
0)
	expect_line '^COMM +PID +LAT\(ms\) +RVAL FUNC$'
	ok "kernel function traced"
	;;
1)
	[ "$(wc -l <"$ERR")" = 1 ] || fail "kernel function refused: expected one line of error"
	head -1 "$ERR" | grep -q "^funcslower: cannot trace 'vfs_read': " ||
		fail "kernel function refused without saying why"
	[ -s "$OUT" ] && fail "kernel function refused, yet something printed"
	ok "kernel function refused: $(head -1 "$ERR")"
	;;
*) fail "funcslower vfs_read: exit $RC (expected 0 traced, or 1 refused)" ;;
esac

# -B and -S: one call of fs_sleepy() that sleeps N times, or of fs_spin() that spins; the
# workload prints what it measured ("slept MS" or "spun MS") to $T/wl.
P=$BT_WORKLOADS/fs_prof_work
[ -x "$P" ] || fail "workload fs_prof_work not built"
PCOMM=fs_prof_work

# prof WORKLOAD_ARGS... -- FUNCSLOWER_ARGS...: as trace, with fs_prof_work; $ALSO are released
# at the same time as the traced workload.
prof() {
	wl=
	while [ "$1" != -- ]; do
		wl="$wl $1"
		shift
	done
	shift
	# shellcheck disable=SC2086
	"$P" $wl >"$T/wl" &
	WPID=$!
	started "$P"
	OUT=$T/out ERR=$T/err
	: >"$OUT"
	: >"$ERR"
	args=
	for a in "$@"; do
		[ "$a" = @PID@ ] && a=$WPID
		args="$args $a"
	done
	# shellcheck disable=SC2086
	"$BPFTOOLS" funcslower -v $args >"$OUT" 2>"$ERR" &
	tpid=$!
	i=0
	until grep -q 'uprobe\|tracepoint' "$ERR"; do # loading the stack walks takes seconds
		i=$((i + 1))
		[ $i -lt 600 ] && kill -0 $tpid 2>/dev/null || {
			kill -INT $tpid $WPID 2>/dev/null
			wait $tpid
			fail "funcslower$args did not start"
		}
		sleep 0.1
	done
	kill -USR1 $WPID $ALSO
	wait $WPID || fail "workload exited with $?"
	sleep 0.3
	kill -INT $tpid
	RC=0
	wait $tpid || RC=$?
	expect_rc 0 "funcslower$args"
}

measured() { awk '{ print $2 }' "$T/wl"; }

# lines KIND: each KIND (B or S) line of multi-line output as "COUNT FIRST SPAN TOTAL ;frame;..."
# (leaf first, kernel then user frames, as printed below it).
lines() {
	awk -v k="$1" '
		function flush() { if (have) print line; have = 0 }
		/^    / { if (have) line = line ";" substr($0, 5); next }
		{ flush() }
		$1 == k { have = 1; line = $2 " " $3 " " $4 " " $5 " " }
		END { flush() }' "$OUT"
}

# within A B PCT: A is within PCT percent of B.
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= b * p / 100) }'; }

# A user function that sleeps N times: one B line under the nanosleep path, kernel and user
# frames, with COUNT N and TOTAL within 10% of the sleeps the workload measured.
N=5
prof sleep $N 20 -- -UKB -p @PID@ "$P:fs_sleepy"
[ "$(grep -c "^$PCOMM " "$OUT")" = 1 ] || fail "-UKB: expected one slow fs_sleepy call"
expect_line "^B +$N +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2}\$"
sl=$(lines B | grep ';do_nanosleep;' | grep ';fs_sleepy;main;')
[ "$(echo "$sl" | grep -c .)" = 1 ] || fail "-UKB: not one B line under do_nanosleep..fs_sleepy;main"
set -- $sl
[ "$1" = $N ] || fail "-UKB: the nanosleep line counts $1 blocks, not $N"
within "$4" "$(measured)" 10 || fail "-UKB: blocked $4 ms in all, the workload slept $(measured) ms"
awk -v f="$2" -v s="$3" -v t="$4" 'BEGIN { exit !(f < 5 && s >= t) }' ||
	fail "-UKB: FIRST $2 (expected < 5 ms) or SPAN $3 (expected >= TOTAL $4)"
grep -q 'bpf_prog_\|bpf_trace_run\|__traceiter' "$OUT" && fail "-UKB: tracing artefacts in stacks"
grep -q 'Missed' "$OUT" && fail "-UKB: a stack was lost"
ok "-B on a user function: $N blocks, $4 ms of $(measured) ms slept, under the nanosleep path"

# The fallbacks older kernels take: raw_tp for sched_switch, a perf buffer for the records.
BPFTOOLS_NO_RINGBUF=1 BPFTOOLS_NO_TP_BTF=1 prof sleep 3 10 -- -KB -p @PID@ "$P:fs_sleepy"
grep -q '^funcslower: -B: raw_tp/sched_switch$' "$ERR" || fail "BPFTOOLS_NO_TP_BTF: -B not on raw_tp"
[ "$(lines B | grep ';do_nanosleep;' | awk '{ print $1 }')" = 3 ] ||
	fail "raw_tp, perf buffer: not one B line of 3 blocks under do_nanosleep"
ok "-B through raw_tp and a perf buffer"

# A system call: each slow clock_nanosleep blocked once, for about the whole call; folded.
prof sleep 3 20 -- -f -KB -p @PID@ syscall:clock_nanosleep
[ "$(grep -c "^$PCOMM  *$WPID  *[0-9.]*  *0 syscall:clock_nanosleep \$" "$OUT")" = 3 ] ||
	fail "-f -KB: expected 3 rows of slow clock_nanosleep calls"
grep -q 'Tracing\|COMM' "$OUT" && fail "-f -KB: banner or header in folded output"
bl='^B [ 0-9]{8} [ 0-9.]{7} [ 0-9.]{7} [ 0-9.]{7} ;[^ ]*;hrtimer_nanosleep;do_nanosleep;schedule;__schedule 1$'
[ "$(grep -Ec "$bl" "$OUT")" = 3 ] || fail "-f -KB: expected 3 folded B lines ending in the nanosleep path"
awk -v c=$PCOMM '$1 == c { lat = $3 } $1 == "B" && ($2 != 1 || $5 < 19.5 || $5 < lat * 0.9) { exit 1 }' \
	"$OUT" || fail "-f -KB: each call should block once, for its 20 ms sleep and most of its LAT"
sum=$(awk '$1 == "B" { n += $5 } END { print n }' "$OUT")
within "$sum" "$(measured)" 10 || fail "-f -KB: blocked $sum ms in all, the workload slept $(measured) ms"
ok "-B on syscall:clock_nanosleep, folded"

# -f implies -U -K, with -B too (it was refused as "-B needs -K and/or -U").
prof sleep 3 20 -- -f -B -p @PID@ syscall:clock_nanosleep
[ "$(grep -c "^$PCOMM  *$WPID  *[0-9.]*  *0 syscall:clock_nanosleep \$" "$OUT")" = 3 ] ||
	fail "-f -B: expected 3 rows of slow clock_nanosleep calls: $(head -1 "$ERR")"
bl='^B [ 0-9]{8} [ 0-9.]{7} [ 0-9.]{7} [ 0-9.]{7} ;[^ ]*;-;[^ ]*;hrtimer_nanosleep;do_nanosleep;schedule;__schedule 1$'
[ "$(grep -Ec "$bl" "$OUT")" = 3 ] || fail "-f -B: expected 3 folded B lines, user;-;kernel"
ok "-f -B: both stacks, as -f -UKB"

# -p: a second process sleeping the same way at the same time is not followed.
"$P" sleep 2 20 >/dev/null &
other=$!
ALSO=$other
prof sleep 2 20 -- -KB -p @PID@ syscall:clock_nanosleep
ALSO=
wait $other
[ "$(grep -c "^$PCOMM " "$OUT")" = 2 ] || fail "-KB -p: expected the 2 calls of one process"
[ "$(awk -v c=$PCOMM '$1 == c { print $2 }' "$OUT" | sort -u)" = "$WPID" ] ||
	fail "-KB -p $WPID: rows of another process"
[ "$(lines B | grep -c ';do_nanosleep;')" = 2 ] || fail "-KB -p: expected 2 B lines"
ok "-B with -p: another process excluded"

# -S: timer samples of a spinning call, under the spinning stack, about HZ per CPU second.
prof spin 500 -- -US -F 99 -p @PID@ "$P:fs_spin"
[ "$(grep -c "^$PCOMM " "$OUT")" = 1 ] || fail "-US: expected one slow fs_spin call"
total=$(lines S | awk '{ n += $1 } END { print n + 0 }')
spin=$(lines S | grep ';fs_spin_loop;fs_spin;main;' | awk '{ n += $1 } END { print n + 0 }')
want=$(awk -v ms="$(measured)" 'BEGIN { printf "%d", ms * 99 / 1000 }')
awk -v n="$spin" -v w="$want" 'BEGIN { exit !(n >= w * 0.6 && n <= w * 1.3) }' ||
	fail "-US -F 99: $spin samples under fs_spin_loop for $(measured) ms of CPU (expected ~$want)"
awk -v n="$spin" -v t="$total" 'BEGIN { exit !(n >= t * 0.8) }' ||
	fail "-US: only $spin of $total samples under fs_spin_loop"
[ "$(lines S | grep -Ec '^[0-9]+ +;fs_spin_loop;fs_spin;main;')" = 1 ] ||
	fail "-US: the spinning stack is split over several S lines"
ok "-S: $spin samples of ~$want expected under fs_spin_loop ($(measured) ms of CPU at 99 Hz)"

# --json: one object per slow call, its B entries with frames as arrays.
if ! command -v jq >/dev/null; then
	echo "skipped: --json with -B (no jq on this machine to read the objects)"
else
	prof sleep 3 10 -- --json -UB -p @PID@ "$P:fs_sleepy"
	# (a preemption at the uprobe itself may add a line under fs_sleepy alone: not the sleeps)
	jq -e --arg pid "$WPID" '.pid == ($pid | tonumber) and .comm == "fs_prof_work" and
		.latency_ns > 30000000 and
		([.blocked[] | select(any(.user_stack[]; (.name // "") | test("nanosleep"))) |
			select(any(.user_stack[]; .name == "fs_sleepy")) | [.count, .total_ns > 27000000]] ==
			[[3, true]])' "$OUT" >/dev/null ||
		fail "--json: not one object with 3 blocks of ~10 ms under nanosleep from fs_sleepy"
	[ "$(jq -s length "$OUT")" = 1 ] || fail "--json: expected exactly one object"
	ok "--json: the slow call with its blocked stacks"
fi

# Usage errors of -B, -S and -F: exit 2, one line.
for bad in "-B $F" "-S $F" "-S -F 0 -K $F" "-S -F abc -K $F" "-S -F 99999 -K $F" "-F 49 -K $F" \
	"--json -f $F"; do
	# shellcheck disable=SC2086
	run funcslower $bad
	expect_rc 2 "funcslower $bad"
	[ "$(grep -vc '^Usage\|^Try\|^ ' "$ERR")" = 1 ] || fail "funcslower $bad: not one line of error"
	# (with --json the message is a JSON line naming the tool: docs/json.md)
	head -1 "$ERR" | grep -q '^funcslower: \|^{"level": "error", "command": "funcslower"' ||
		fail "funcslower $bad: message does not name the tool"
	[ -s "$OUT" ] && fail "funcslower $bad: printed to stdout"
done
ok "usage errors of -B, -S, -F, --json"

# Bad input: one line naming it, exit 2 (usage) or 1 (runtime).
for bad in "" "-m 1 -u 1 $F" "-m -1 $F" "-u abc $F" "-m nan $F" "-a 7 $F" "-p 0 $F" \
	"--attach=bogus $F" "r:c:open" "t:sched:sched_switch" "u:c:foo" "a:b:c:d" \
	"$W:no_such_function_xyz" "no_such_lib_xyz:foo" "no_such_kernel_function_xyz"; do
	# shellcheck disable=SC2086
	run funcslower $bad
	[ "$RC" = 1 ] || [ "$RC" = 2 ] || fail "funcslower $bad: exit $RC"
	[ "$(wc -l <"$ERR")" -ge 1 ] || fail "funcslower $bad: no error message"
	head -1 "$ERR" | grep -q '^funcslower: ' || fail "funcslower $bad: message does not name the tool"
done
ok "bad input"
