#!/bin/sh
# Stopping at any moment: a stop signal already pending while the tool resolves and attaches
# 320 uprobes; SIGINT, SIGTERM and SIGHUP while tracing (summary, exit 0, none of the tool's
# programs or links left); a second Ctrl-C during a slow detach (answered with what it waits
# for); a closed stdout (`| head -1`). Uprobes go on libbtmany.so, a library no other program
# loads, and the programs are found through the tool's own fds: other tracers may be running.
. "$(dirname "$0")/lib.sh"
require root btf uprobes
command -v bpftool >/dev/null || skip "no bpftool to list programs and links"

LIB=$BT_WORKLOADS/libbtmany.so
[ -f "$LIB" ] || fail "workload $LIB not built"

# bpf_ids PID: "prog N" and "link N" for every BPF program and link the process holds an fd of.
bpf_ids() {
	for f in /proc/"$1"/fdinfo/*; do
		sed -n 's/^prog_id:[[:space:]]*\([0-9]*\)/prog \1/p; s/^link_id:[[:space:]]*\([0-9]*\)/link \1/p' "$f" 2>/dev/null
	done | sort -u
}

# none_left IDS_FILE WHEN: none of the programs and links listed is still in the kernel.
none_left() {
	bpftool prog list -j >"$T/progs" || fail "bpftool prog list"
	bpftool link list -j >"$T/links" || fail "bpftool link list"
	while read -r kind id; do
		if [ "$kind" = prog ]; then
			grep -q "\"id\":$id," "$T/progs" && fail "$2: program $id still loaded"
		else
			grep -q "\"id\":$id," "$T/links" && fail "$2: link $id still attached"
		fi
	done <"$1"
	:
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
	[ "$(grep -c '^link' "$T/ids")" = 5 ] || fail "SIG$sig: expected 5 links held by funccount, got $(grep -c '^link' "$T/ids")"
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

# 3. A second Ctrl-C while 40 uprobes are being removed (the kernel takes ~0.1 s each) is
# answered with what the tool is waiting for, and the tool still finishes cleanly.
OUT=$T/twice ERR=$T/twice.err
: >"$OUT"
"$BPFTOOLS" funccount "$LIB:bt_many_1[0-3]?" >"$OUT" 2>"$ERR" &
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
grep -Eq '^funccount: still detaching: waiting for the kernel to remove [0-9]+ of 40 probes$' "$ERR" ||
	fail "second Ctrl-C during the detach: no 'still detaching' line"
[ "$(wc -l <"$ERR")" = 1 ] || fail "second Ctrl-C: expected one line on stderr"
none_left "$T/ids" "after two SIGINTs"
ok "second Ctrl-C: $(cat "$ERR")"

# 4. `| head -1`: the reader leaves after the banner; exit 0 promptly, nothing on stderr.
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
