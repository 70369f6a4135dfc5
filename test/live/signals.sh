#!/bin/sh
# Stopping at any moment: a stop signal already pending while the tool resolves and attaches
# 320 uprobes, and at the start of every command; SIGINT, SIGTERM and SIGHUP while tracing (summary, exit 0, none of the tool's
# programs or links left); a second Ctrl-C during a slow detach (answered with what it waits
# for); Ctrl-C on 320 uprobes within 2 s; a closed stdout (`| head -1`). Uprobes go on libbtmany.so, a library no other program
# loads, and the programs are found through the tool's own fds: other tracers may be running.
. "$(dirname "$0")/lib.sh"
require root btf uprobes
command -v bpftool >/dev/null || skip "no bpftool to list programs and links"

# a failed check must not leave a tracer behind
pid=""
trap '[ -n "$pid" ] && kill -KILL $pid 2>/dev/null; rm -rf "$T"' EXIT

LIB=$BT_WORKLOADS/libbtmany.so
[ -f "$LIB" ] || fail "workload $LIB not built"

# bpf_ids PID: "prog N" and "link N" for every BPF program and link the process holds an fd of.
bpf_ids() {
	for f in /proc/"$1"/fdinfo/*; do
		sed -n 's/^prog_id:[[:space:]]*\([0-9]*\)/prog \1/p; s/^link_id:[[:space:]]*\([0-9]*\)/link \1/p' "$f" 2>/dev/null
	done | sort -u
}

# none_left IDS_FILE WHEN: none of the links listed is still in the kernel, and none of the
# programs a moment later (a uprobe.multi link detaches at close, but the kernel frees the link
# object, and with it its hold on the program, after an RCU grace period).
none_left() {
	bpftool link list -j >"$T/links" || fail "bpftool link list"
	while read -r kind id; do
		[ "$kind" = link ] && grep -q "\"id\":$id," "$T/links" && fail "$2: link $id still attached"
	done <"$1"
	i=0
	while :; do
		bpftool prog list -j >"$T/progs" || fail "bpftool prog list"
		left=""
		while read -r kind id; do
			[ "$kind" = prog ] && grep -q "\"id\":$id," "$T/progs" && left="$left $id"
		done <"$1"
		[ -z "$left" ] && break
		i=$((i + 1))
		[ $i -lt 30 ] || fail "$2: program(s)$left still loaded 3 s after the tool exited"
		sleep 0.1
	done
}

# now_ms: milliseconds since the epoch.
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# 1. A stop signal pending before the tool starts (blocked signals and pending ones survive
# exec): it must be seen while resolving or attaching, not only once the wait loop runs.
# Without that, all 320 uprobes attach, the summary prints and detaching takes ~40 s.
OUT=$T/pending ERR=$T/pendingerr
start=$(now_ms)
RC=0
timeout -s KILL 30 perl -e 'use POSIX; sigprocmask(SIG_BLOCK, POSIX::SigSet->new(SIGINT));
	kill "INT", $$; exec @ARGV or die "exec: $!"' \
	"$BPFTOOLS" funccount "$LIB:bt_many_*" >"$OUT" 2>"$ERR" || RC=$?
took=$(($(now_ms) - start))
expect_rc 0 "funccount with SIGINT pending from the start"
[ "$took" -lt 2000 ] || fail "stop pending from the start: took $took ms (attached and detached everything?)"
grep -q '^Tracing' "$OUT" && fail "stop pending from the start: the tool attached and traced"
[ -s "$ERR" ] && fail "stop pending from the start: stderr: $(head -1 "$ERR")"
ok "a pending stop is seen before attaching: exit 0 in $took ms"

# 1b. The same for every command of the registry (cmd/commands.def), each through its shared
# load/attach path: exit 0 at once, nothing printed, rather than attaching and printing a
# summary of what it saw. A new command needs its arguments here; `features` traces nothing
# and its report is all it does, so it may print that.
DEF=${BT_SRC:-$(dirname "$0")/../..}/cmd/commands.def
[ -r "$DEF" ] || fail "no $DEF"
n=0
for c in $(sed -n 's/^BT_CMD(\([a-z_0-9]*\))$/\1/p' "$DEF"); do
	case $c in
	funccount | stackcount | stacksnoop) args="t:sched:sched_switch" ;;
	funclatency | funcslower) args="$LIB:bt_many_100" ;;
	exporter) args="--listen 127.0.0.1:0" ;;
	biolatency | biosnoop | features | hardirqs | offcputime | offwaketime | opensnoop | profile | \
		smpcalls | softirqs | vfsstat) args="" ;;
	*) fail "signals.sh: no arguments known for the new command '$c'; add them" ;;
	esac
	OUT=$T/pending.$c ERR=$T/pendingerr.$c
	start=$(now_ms)
	RC=0
	# shellcheck disable=SC2086 # the arguments' words
	timeout -s KILL 30 perl -e 'use POSIX; sigprocmask(SIG_BLOCK, POSIX::SigSet->new(SIGINT));
		kill "INT", $$; exec @ARGV or die "exec: $!"' \
		"$BPFTOOLS" "$c" $args >"$OUT" 2>"$ERR" </dev/null || RC=$?
	took=$(($(now_ms) - start))
	expect_rc 0 "$c $args with SIGINT pending from the start"
	[ "$took" -lt 2000 ] || fail "$c: stop pending from the start: took $took ms"
	[ -s "$ERR" ] && fail "$c: stop pending from the start: stderr: $(head -1 "$ERR")"
	[ "$c" != features ] && [ -s "$OUT" ] &&
		fail "$c: stop pending from the start: it traced and printed: $(head -1 "$OUT")"
	n=$((n + 1))
done
[ "$n" -ge 15 ] || fail "only $n commands in $DEF"
ok "a pending stop is honoured by all $n commands of the registry"

# 2. SIGINT, SIGTERM, SIGHUP while tracing: summary, Detaching..., exit 0, nothing left.
for sig in INT TERM HUP; do
	OUT=$T/$sig ERR=$T/$sig.err
	: >"$OUT"
	"$BPFTOOLS" funccount "$LIB:bt_many_10[0-4]" >"$OUT" 2>"$ERR" &
	pid=$!
	i=0
	until grep -q '^Tracing' "$OUT" 2>/dev/null; do
		i=$((i + 1))
		[ $i -le 100 ] && kill -0 $pid 2>/dev/null || fail "SIG$sig: funccount did not start"
		sleep 0.1
	done
	bpf_ids $pid >"$T/ids"
	# one uprobe.multi link for the five, or five perf-event links on older kernels
	grep -q '^link' "$T/ids" || fail "SIG$sig: no link held by funccount"
	grep -q '^prog' "$T/ids" || fail "SIG$sig: no program held by funccount"
	kill -$sig $pid
	RC=0
	wait $pid || RC=$?
	expect_rc 0 "funccount, then SIG$sig"
	expect_line '^FUNC +COUNT$'
	[ "$(tail -1 "$OUT")" = "Detaching..." ] || fail "SIG$sig: no final Detaching..."
	[ -s "$ERR" ] && fail "SIG$sig: stderr: $(head -1 "$ERR")"
	none_left "$T/ids" "after SIG$sig"
	ok "SIG$sig: summary, exit 0, $(wc -l <"$T/ids") programs and links gone"
done

# 3. Ctrl-C while tracing 320 functions: detached and exited within 2 s. One uprobe.multi link
# goes in one step; perf-event uprobes go one by one, ~0.13 s each on 6.18 (40 s for these).
OUT=$T/many ERR=$T/many.err
: >"$OUT"
"$BPFTOOLS" funccount "$LIB:bt_many_*" >"$OUT" 2>"$ERR" &
pid=$!
i=0
until grep -q '^Tracing 320 functions' "$OUT" 2>/dev/null; do
	i=$((i + 1))
	[ $i -le 100 ] && kill -0 $pid 2>/dev/null || fail "320 functions: funccount did not start"
	sleep 0.1
done
if "$BPFTOOLS" features | grep -q '^uprobe.multi  *yes'; then
	bpf_ids $pid >"$T/ids"
	start=$(now_ms)
	kill -INT $pid
	RC=0
	wait $pid || RC=$?
	took=$(($(now_ms) - start))
	expect_rc 0 "funccount on 320 functions, then SIGINT"
	[ "$took" -lt 2000 ] || fail "320 functions: Ctrl-C took $took ms to detach and exit"
	expect_line '^FUNC +COUNT$'
	none_left "$T/ids" "after SIGINT on 320 functions"
	ok "Ctrl-C on 320 uprobes: summary, exit 0 in $took ms"
else
	kill -KILL $pid
	wait $pid
	echo "skip: Ctrl-C on 320 uprobes within 2 s needs uprobe.multi (kernel 6.6)"
fi

# 4. Ctrl-C while 40 perf-event uprobes are being removed (the kernel takes ~0.13 s each) is
# answered with what the tool is waiting for, the first at once and the second again, and the
# tool still finishes cleanly.
OUT=$T/twice ERR=$T/twice.err
: >"$OUT"
BPFTOOLS_NO_UPROBE_MULTI=1 "$BPFTOOLS" funccount "$LIB:bt_many_1[0-3]?" >"$OUT" 2>"$ERR" &
pid=$!
i=0
until grep -q '^Tracing 40 functions' "$OUT" 2>/dev/null; do
	i=$((i + 1))
	[ $i -le 100 ] && kill -0 $pid 2>/dev/null || fail "twice: funccount did not start"
	sleep 0.1
done
bpf_ids $pid >"$T/ids"
kill -INT $pid
sleep 0.5
kill -INT $pid
RC=0
wait $pid || RC=$?
expect_rc 0 "funccount, then SIGINT twice"
grep -Eq '^funccount: still detaching: waiting for the kernel to remove 40 of 40 probes$' "$ERR" ||
	fail "first Ctrl-C before a slow detach: no 'still detaching' line"
grep -Eq '^funccount: still detaching: waiting for the kernel to remove [0-9]+ of 40 probes$' "$ERR" ||
	fail "second Ctrl-C during the detach: no 'still detaching' line"
[ "$(wc -l <"$ERR")" = 2 ] || fail "two Ctrl-Cs: expected two lines on stderr"
none_left "$T/ids" "after two SIGINTs"
ok "second Ctrl-C: $(cat "$ERR")"

# 5. `| head -1`: the reader leaves after the banner; exit 0 promptly, nothing on stderr.
start=$(now_ms)
{
	RC=0
	timeout -s KILL 20 "$BPFTOOLS" funccount -i 1 "$LIB:bt_many_100" 2>"$T/pipe.err" || RC=$?
	echo $RC >"$T/pipe.rc"
} | head -1 >"$T/pipe.out"
took=$(($(now_ms) - start))
RC=$(cat "$T/pipe.rc")
expect_rc 0 "funccount | head -1"
grep -q '^Tracing 1 functions' "$T/pipe.out" || fail "| head -1: no banner read"
[ -s "$T/pipe.err" ] && fail "| head -1: stderr: $(head -1 "$T/pipe.err")"
[ "$took" -lt 3000 ] || fail "| head -1: took $took ms"
ok "| head -1: exit 0, quiet, in $took ms"
