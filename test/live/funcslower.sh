#!/bin/sh
# funcslower on this kernel: a user function that sleeps 3 ms for odd arguments and returns
# 2 * its argument (uprobes), exact rows, return values and arguments, -p, -T/-t, user stacks
# and folded output, a syscall's kernel stack, both event buffers, the refusal of kernel
# functions where the kernel cannot trace them, and bad input.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints uprobes

W=$BT_WORKLOADS/funcslower_work
[ -x "$W" ] || fail "workload funcslower_work not built"
F=$W:fs_work
FAIL=$W:fs_fail
N=7 # fs_work(1..7): 1, 3, 5 and 7 sleep
COMM=funcslower_wor
ALSO= # other workload processes that start with the traced one

# trace N_CALLS N_FAIL ARGS...: start the workload, trace it with ARGS until it has finished,
# then Ctrl-C. Sets OUT, ERR, RC and WPID. ARGS may use $WPID through the word @PID@.
trace() {
	n=$1 nf=$2
	shift 2
	"$W" $n 3 $nf &
	WPID=$!
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

# Kernel functions: traced where the kernel can (VM tier); refused with the reason here.
run funcslower vfs_read
if [ "$RC" = 1 ]; then
	head -1 "$ERR" | grep -q "^funcslower: cannot trace 'vfs_read'" ||
		fail "kernel function refused without saying why"
	ok "kernel function refused: $(head -1 "$ERR")"
fi

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
