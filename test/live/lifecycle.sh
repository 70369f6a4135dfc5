#!/bin/sh
# Processes that come and go during a trace (docs/symbolize.md "Memory"): memory and the BPF
# maps keyed by pid stay at their level through 3,000-5,000 short processes; a thread id reused by a
# new process never closes a block the thread before it began; rows that print alike are one.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints
command -v bpftool >/dev/null || skip "needs bpftool (to count the tool's map entries)"
CHURN=$BT_WORKLOADS/churn

rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

# map_id NAME: the id of the tool's ($FPID) map NAME, found through its descriptors, from one
# listing of the machine's maps (not one bpftool per descriptor: the soak looks up 24 maps);
# empty and "no map NAME" on stderr when it has none. Small programs only, as before: a tool
# tracing every process also indexes these (a python3 here grew funcslower's RSS by 16 MiB).
map_id() {
	# (grep goes on past a descriptor closed since the glob; mawk would stop there)
	grep -h '^map_id:' /proc/"$FPID"/fdinfo/* 2>/dev/null | cut -f2 >"$T/map_ids"
	# Tried again where the listing failed: a map of another process that goes while bpftool
	# lists them can end it with an error. The kernel keeps 15 characters of a map's name.
	for try in 1 2 3 4 5; do
		listed=0
		bpftool map show >"$T/maps" 2>/dev/null || listed=$?
		id=$(awk -v want="$(echo "$1" | cut -c1-15)" '
			NR == FNR { ids[$1] = 1; next }
			/^[0-9]+:/ {
				id = $1
				sub(/:$/, "", id)
				for (i = 2; i < NF; i++)
					if ($i == "name" && $(i + 1) == want && id in ids) {
						print id
						exit
					}
			}' "$T/map_ids" "$T/maps")
		[ -n "$id" ] || [ "$listed" = 0 ] && break
		echo "map_id $1: listing the maps failed (try $try)" >&2
	done
	[ -n "$id" ] || echo "no map $1" >&2
	echo "$id"
}

# entries NAME: entries in the tool's map NAME.
entries() {
	id=$(map_id "$1")
	if [ -z "$id" ]; then
		echo missing # (a number test on it fails)
		return
	fi
	bpftool map dump id "$id" 2>/dev/null | grep -c '"key"\|^key' || true
}

# stale NAME PIDS: entries of the tool's map NAME keyed by (the low 32 bits: a tid, or a tgid and
# tid) one of the pids in file PIDS that is gone. A pid another process took since holds its
# own entry rightly.
stale() {
	id=$(map_id "$1")
	if [ -z "$id" ]; then
		echo missing # (a number test on it fails)
		return
	fi
	bpftool map dump id "$id" -j 2>/dev/null | python3 -c '
import json, os, sys
pids = set(open(sys.argv[1]).read().split())
def key(e):
    k = e.get("formatted", e)["key"]
    if isinstance(k, list):
        k = int.from_bytes(bytes(int(b, 16) for b in k[:4]), "little")
    return str(k & 0xffffffff)
print(sum(1 for e in json.load(sys.stdin)
          if key(e) in pids and not os.path.exists("/proc/" + key(e))))' "$2"
}

# The churn soaks, each of tools observing one churn at once: processes to warm up, then
# 5,000 where the tools take several stacks a process (offcputime, offwaketime: kept past being
# named, they would fill the stack map's 16,384 entries), 3,000 where they take one or none
# (10,000 until the suite had to fit in 25 minutes; the warm-ups 1,000 each, from 6,000 and
# 2,000; a fork and exec cost 9 ms here, and two at once no less). Per tool: RSS within 1 MiB,
# and in the maps named with it (keyed by pid or tid) no entry of any of the churn's processes. The maps' sizes are shown, not compared: what else runs on the
# machine holds entries of its own. What each tool is checked on is its own (its RSS, its maps),
# so one churn under two tools asserts what two churns did one tool at a time: three churns for
# five tools. Not all five at once: beside the busier others, offcputime's and offwaketime's RSS
# (they see every thread's blocks) grew 1.6-3.1 MiB, funcslower's 7-17 MiB; in these groups
# 0.1-1.0 MiB. The churn runs /bin/echo -n, which calls setlocale (for funcslower; /bin/true
# does only with an argument, and funcslower saw none of its processes).
#
# soak_start WHAT MAPS TOOL ARGS...: start_tool, the tool's output kept as $T/out.N, $T/err.N.
SOAKS="" SOAK_PIDS=""
soak_start() {
	n=$(($(echo "$SOAKS" | wc -w) + 1))
	eval "WHAT_$n=\$1 MAPS_$n=\$2"
	shift 2
	start_tool "$@"
	mv "$OUT" "$T/out.$n"
	mv "$ERR" "$T/err.$n"
	eval "PID_$n=\$FPID"
	SOAKS="$SOAKS $n" SOAK_PIDS="$SOAK_PIDS $FPID"
}
# soak_tool N: FPID, OUT, ERR, WHAT and MAPS of soak tool N.
soak_tool() {
	eval "FPID=\$PID_$1 WHAT=\$WHAT_$1 MAPS=\$MAPS_$1"
	OUT=$T/out.$1 ERR=$T/err.$1
}
# soak_measure WHEN: each tool's RSS into R<WHEN>_N, then its maps' sizes into E<WHEN>_N (every
# RSS before the programs that look at the maps run, which the tools see too)
soak_measure() {
	for n in $SOAKS; do
		soak_tool $n
		eval "R$1_$n=\$(rss \$FPID)"
	done
	for n in $SOAKS; do
		soak_tool $n
		e=""
		for m in $MAPS; do e="$e $(entries $m)"; done
		eval "E$1_$n=\$e"
	done
}
# soak_churn WARM N: the soak of the tools started: WARM processes to warm up, then N; all
# stopped, then each checked.
soak_churn() {
	NCHURN=$2
	# the map readers (bpftool, awk, grep) run once before the warm-up: started first between
	# the two measures, their indexing would count as the churn's
	soak_measure W
	$CHURN "$1" /bin/echo -n || fail "churn failed"
	sleep 1
	soak_measure 0
	: >"$T/churned"
	CHURN_PIDS=$T/churned $CHURN "$NCHURN" /bin/echo -n || fail "churn failed"
	sleep 1
	soak_measure 1
	for n in $SOAKS; do
		soak_tool $n
		eval "LEFT_$n=\"\$(for m in \$MAPS; do stale \$m \"\$T/churned\"; done | tr '\n' ' ')\""
	done
	# all at once: each detach waits for RCU grace periods, in parallel
	kill -INT $SOAK_PIDS
	for n in $SOAKS; do
		soak_tool $n
		finish_tool
		eval "RC_$n=\$RC"
	done
	SOAK_PIDS=""
	[ "$(wc -l <"$T/churned")" = "$NCHURN" ] || fail "churn did not list its $NCHURN pids"
	for n in $SOAKS; do
		soak_tool $n
		RC="" r0="" r1="" e0="" e1="" left=""
		eval "RC=\$RC_$n r0=\$R0_$n r1=\$R1_$n e0=\$E0_$n e1=\$E1_$n left=\$LEFT_$n"
		[ "$RC" = 0 ] || fail "$WHAT exited $RC"
		for c in $left; do
			[ "$c" = 0 ] || fail "$WHAT: entries of processes gone in $MAPS: $left(entries$e0 ->$e1)"
		done
		[ $((r1 - r0)) -le 1024 ] || fail "$WHAT: RSS grew from $r0 to $r1 KiB over $NCHURN processes"
		# every process's stacks are distinct (its own addresses): kept past being named,
		# they fill the 16384 entries of the stack map within the churn
		! grep -q 'the stack map was full' "$ERR" ||
			fail "$WHAT: stacks kept after they were named (the stack map filled)"
		ok "$WHAT: RSS $r0 -> $r1 KiB, none of $NCHURN processes left in $MAPS (entries$e0 ->$e1)"
	done
	SOAKS=""
}
# a failure in between stops them all
trap 'kill -INT $SOAK_PIDS 2>/dev/null; [ -z "${SCRAPER:-}" ] || kill $SCRAPER 2>/dev/null; rm -rf "$T"' EXIT

# per event, with the user stack of every process's one call of setlocale (most of them sent
# as copies before the process is indexed, some unwound from the log of its mappings): its
# calls in flight by thread. The warm-up: 1,000 processes (6,000 once, for rings touched by
# degrees; they are whole in RssFile from the start now: 10504 KiB before and after, and the
# heap grew 2,000 KiB in the first 1,000 processes, 260 KiB in the 5,000 after).
if [ -e /sys/bus/event_source/devices/uprobe/type ]; then
	soak_start "funcslower -U" "bt_seen_pids entries" funcslower -U -m 0 c:setlocale
	soak_churn 1000 3000
fi
# Blocks of 1000 s or more only: nothing is counted, so no row of whatever else the machine
# runs loads its symbols in the middle of the measure, and no row of the churn's own is kept
# (each process's stacks are its own, a row each: stack_churn bounds those), while every
# process is still announced, snapshotted and indexed at its first switch (the filter applies
# when a block ends). -M 2 (blocks of 1-2 us) was not enough: CI's machine had 739 such blocks
# in 478 of the churn's processes, 1.4 MiB of rows. The two side by side.
BANNER_IN=err soak_start "offcputime -f" "bt_seen_pids bt_offcpu_starts" \
	offcputime -f -m 1000000000
BANNER_IN=err soak_start "offwaketime -f" "bt_seen_pids bt_offcpu_starts wakers" \
	offwaketime -f -m 1000000000
soak_churn 1000 5000
soak_start "stackcount -U" bt_seen_pids stackcount -U t:sched:sched_process_exec
# per event, no stacks: its in-flight opens by thread, and whatever it keeps per process; the
# churn's opens only (-n echo: three each), printed
BANNER="^PID" soak_start opensnoop starts opensnoop -n echo
# the exporter with every default collector, scraped three times a second through the churn:
# its offcputime collector sees every thread's blocks (a series per command and state), its
# summaries' totals are kept in user space from scrape to scrape
if command -v curl >/dev/null; then
	EXPORT_PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	BANNER=serving BANNER_IN=err soak_start exporter bt_offcpu_starts exporter \
		--listen "127.0.0.1:$EXPORT_PORT"
	(while :; do
		curl -s -o /dev/null "http://127.0.0.1:$EXPORT_PORT/metrics"
		sleep 0.3
	done) &
	SCRAPER=$!
fi
soak_churn 1000 3000
[ -z "${SCRAPER:-}" ] || kill $SCRAPER
SCRAPER=""
trap 'rm -rf "$T"' EXIT
unset BANNER BANNER_IN

# A call that never returns (libc's exit(), called by every process of the churn) leaves its
# entry only until its thread exits: funclatency's starts (a hash: full, it took no new call)
# and funcslower's entries stay at their level. 49c5c45 kept one per process.
if [ -e /sys/bus/event_source/devices/uprobe/type ]; then
	for t in "funclatency starts" "funcslower entries"; do
		set -- $t
		BANNER="^Tracing" start_tool "$1" c:exit
		e0=$(entries "$2")
		$CHURN 1000 || fail "churn failed"
		sleep 0.5
		e1=$(entries "$2")
		finish_tool INT
		[ "$RC" = 0 ] || fail "$1 exited $RC"
		[ "$e1" -le $((e0 + 64)) ] || fail "$1: $2 held $e0 entries, then $e1 after 1,000 exits in a traced call"
		ok "$1 c:exit: $2 held $e0 entries, $e1 after 1,000 processes exited inside the call"
	done
else
	echo "skipped the exit-in-a-call case: no uprobes (no uprobe PMU)"
fi

# A file named in the probe is indexed before the tool says it traces: five processes of a
# binary built without frame pointers, started after it and living 20 ms, have every stack
# whole (49c5c45 walked the first ones by frame pointers: 'uw_3a;uw_4' beside the whole stack).
if [ -e /sys/bus/event_source/devices/uprobe/type ]; then
	BANNER_IN=err start_tool stackcount -U -f "$BT_WORKLOADS/unwind_work:uw_4"
	for i in 1 2 3 4 5; do "$BT_WORKLOADS/unwind_work" call 2 1 0 20; done
	sleep 0.3
	finish_tool INT
	[ "$RC" = 0 ] || fail "stackcount exited $RC"
	for p in "a 10" "b 5"; do
		set -- $p
		grep -qx "_start;__libc_start_main;__libc_start_call_main;main;uw_run;uw_1;uw_2;uw_3$1;uw_4 $2" "$OUT" ||
			fail "path $1: not $2 whole stacks"
	done
	[ "$(wc -l <"$OUT")" = 2 ] || fail "stacks walked partly: $(wc -l <"$OUT") rows, not 2"
	ok "5 processes started after stackcount -U, 20 ms each: 15 whole stacks in 2 rows"
fi

# A program started after the tool whose files nothing indexed before (a fresh copy: a new
# inode, and not named in any probe), living about 15 ms, built without frame pointers: every
# stack whole and named, in offcputime, stackcount at a tracepoint and funcslower -U. Its first
# stacks are taken before it is indexed and sent as copies (docs/unwind.md); a process gone
# before it was read is named and unwound from the kernel's log of its mappings.
SHORT=$T/short
mkdir -p "$SHORT"
cp "$BT_WORKLOADS/unwind_work" "$SHORT/uwshort"
cp "$BT_WORKLOADS/libunwind_worklib.so" "$SHORT/"
BOTTOM='_start;__libc_start_main[a-z_]*;__libc_start_call_main;main'
CHAIN='uw_run;uw_1;uw_2;uw_3X;uw_4;uwl_1;uwl_2;uwl_3;uwl_4;uwl_leaf'
short_runs() {
	for i in 1 2 3; do
		LD_LIBRARY_PATH=$SHORT "$SHORT/uwshort" sleep 3 2 0 2 || fail "uwshort exited $?"
	done
	sleep 0.5
}
# check_short FILE PREFIX SUFFIX WHAT MIN_A MIN_B: the rows of FILE naming the program's
# functions are two, the whole chain through path a and path b, with values of at least MIN_A
# and MIN_B (a stack walked partly prints as a row of its own, 'uwshort;uwl_leaf;...')
check_short() {
	rows=$(grep 'uw_run\|uwl_\|uw_[1-4]' "$1")
	a="$2$BOTTOM;$(echo "$CHAIN" | sed s/X/a/)$3"
	b="$2$BOTTOM;$(echo "$CHAIN" | sed s/X/b/)$3"
	echo "$rows" | grep -Eq "^$a [0-9]+$" && echo "$rows" | grep -Eq "^$b [0-9]+$" &&
		[ "$(echo "$rows" | wc -l)" = 2 ] ||
		fail "$4: not the two whole chains alone: $(echo "$rows" | tr '\n' '|')"
	va=$(echo "$rows" | grep -E "^$a " | awk '{print $NF}')
	vb=$(echo "$rows" | grep -E "^$b " | awk '{print $NF}')
	[ "$va" -ge "$5" ] && [ "$vb" -ge "$6" ] || fail "$4: values $va and $vb, not at least $5 and $6"
}
BANNER_IN=err start_tool offcputime -f -U
short_runs
finish_tool INT
[ "$RC" = 0 ] || fail "offcputime exited $RC"
# its wait for the start signal: whole too (a row taken during its exec, in the image before,
# may print [unknown]: that image is gone)
w=$(grep '^uwshort;.*wl_wait_start' "$OUT")
echo "$w" | grep -Eqx "uwshort;$BOTTOM;wl_wait_start;usleep;__nanosleep;clock_nanosleep [0-9]+" ||
	fail "offcputime: the wait not one whole row: $(echo "$w" | tr '\n' '|')"
# 3 processes: path a sleeps 3 times 2 ms, path b twice
check_short "$OUT" 'uwshort;' ';clock_nanosleep' offcputime 18000 12000
ok "offcputime: 3 processes of 15 ms started after it, files never indexed: 2 whole rows"
BANNER_IN=err start_tool stackcount -f -U t:syscalls:sys_enter_clock_nanosleep
short_runs
finish_tool INT
[ "$RC" = 0 ] || fail "stackcount exited $RC"
check_short "$OUT" '' ';clock_nanosleep' "stackcount at a tracepoint" 9 6
grep -E "^$BOTTOM;uw_run" "$OUT" | awk '{print $NF}' | tr '\n' ' ' | grep -qx '9 6 \|6 9 ' ||
	fail "stackcount: counts not exactly 9 and 6: $(grep uw_run "$OUT" | tr '\n' '|')"
ok "stackcount at a tracepoint: the same, exact counts (9 and 6)"
if [ -e /sys/bus/event_source/devices/uprobe/type ]; then
	# -f prints no banner: -v says when the probe is attached
	BANNER=uprobe BANNER_IN=err start_tool funcslower -v -f -U -m 1 "$SHORT/libunwind_worklib.so:uwl_leaf"
	short_runs
	finish_tool INT
	[ "$RC" = 0 ] || fail "funcslower exited $RC"
	# one line per slow call: fold them by stack to compare
	sort "$OUT" | uniq -c | awk '{c=$1; $1=""; sub(/^ /, ""); sub(/ 1$/, ""); print $0 " " c}' >"$T/short_folded"
	check_short "$T/short_folded" 'uwshort;' '' "funcslower -U" 9 6
	ok "funcslower -U: 15 slow calls, each with its whole stack"
fi

# 2,048 distinct paths of a process started after a system-wide stackcount, its first stacks
# taken before it is indexed: every path once, with its exact count (49c5c45 printed a path
# walked both by frame pointers and through tables as two rows, counts split between them).
WM=$BT_WORKLOADS/stack_many
if [ -e /sys/bus/event_source/devices/uprobe/type ]; then
	BANNER_IN=err start_tool stackcount -U -f "$WM:sm_leaf"
	"$WM" call 11 &
	W=$!
	sleep 0.02 # its SIGUSR1 blocked: it waits for the signal (test/workloads/wl_start.h)
	kill -USR1 $W
	wait $W
	sleep 0.3
	finish_tool INT
	[ "$RC" = 0 ] || fail "stackcount exited $RC"
	python3 "$(dirname "$0")/stack_many_check.py" "$OUT" || fail "2048 paths started after the tool: a path missing, split or miscounted"
	ok "2048 paths of a process started after stackcount -U: each once, exact counts"
fi

# A process's last switch-out leaves nothing a new thread of the same id could close: phantomA
# blocks 50 ms and exits; 1.5 s later a new process is made to take its pid. Before, that
# process's first switch-in closed a "block" of phantomA 1.5 s long.
cp /bin/sleep "$T/phantomA"
BANNER_IN=err start_tool offcputime -f -K
"$T/phantomA" 0.05 &
A=$!
wait $A
sleep 1.5
PID=$A $CHURN 1 || { finish_tool INT; skip "could not have pid $A again (ns_last_pid)"; }
finish_tool INT
[ "$RC" = 0 ] || fail "offcputime exited $RC"
grep -q '^phantomA' "$OUT" || fail "no off-CPU row of phantomA"
max=$(awk '/^phantomA/ {if ($NF > m) m = $NF} END {print m + 0}' "$OUT")
[ "$max" -lt 1000000 ] || fail "phantomA shown off-CPU for $max us after its pid was reused"
ok "pid $A reused 1.5 s after its process exited: its longest block is $max us"

# Two tracers on sched_switch: the kernel adds a frame (__traceiter_sched_switch) to stacks
# taken while both are attached, trimmed before printing; the rows then read alike and are one.
sh -c 'while :; do sleep 0.01; done' &
W=$!
BANNER_IN=err start_tool offcputime -f -p $W
sleep 1
"$BPFTOOLS" offcputime -K 1 >/dev/null 2>&1
sleep 1
finish_tool INT
kill $W
[ "$RC" = 0 ] || fail "offcputime exited $RC"
dups=$(sed 's/ [0-9]*$//' "$OUT" | sort | uniq -d | head -3)
[ -z "$dups" ] || fail "rows printed twice: $dups"
ok "a second tracer on sched_switch: every row once ($(wc -l <"$OUT") rows)"

# A pid that a new process takes names each process by its own binary: reuse_a sleeps and exits,
# reuse_b is made to take its pid; both are printed at the end, reuse_a from its snapshot (kept
# under its cookie), reuse_b from its own.
BANNER_IN=err start_tool offcputime -f
"$BT_WORKLOADS/reuse_a" &
A=$!
wait $A
PID=$A $CHURN 1 "$BT_WORKLOADS/reuse_b" || { finish_tool INT; skip "could not have pid $A again (ns_last_pid)"; }
sleep 0.5
finish_tool INT
[ "$RC" = 0 ] || fail "offcputime exited $RC"
for n in a b; do
	# (a stack taken before the process is indexed skips reuse_N_sleep: frame pointers)
	grep "^reuse_$n;" "$OUT" | grep -q ";main;reuse_${n}_outer;" ||
		fail "reuse_$n (pid $A) not named by its own binary: $(grep "^reuse_$n;" "$OUT" | head -3)"
	other=$( [ $n = a ] && echo b || echo a)
	! grep "^reuse_$n;" "$OUT" | grep -q "reuse_${other}_" ||
		fail "reuse_$n (pid $A) named by reuse_$other's binary"
done
ok "pid $A run by reuse_a, then reuse_b: each named by its own binary"

# funcslower -U names a call's user stack by its process's cookie, not by its pid alone: once it
# has snapshotted reuse_a the tool is stopped while reuse_a's calls return and it exits, and
# reuse_b takes its pid and enters its first call; running again, the tool reads reuse_b's
# announcement (its mappings noted under the pid) before it prints reuse_a's calls, which
# reuse_a's own snapshot, kept under its cookie, must name. By pid alone they were named from
# reuse_b's mappings ([unknown], 6 of 6). -B: the stacks where each call blocked, the same.
if [ -e /sys/bus/event_source/devices/uprobe/type ]; then
	for o in -U "-U -B"; do
		# shellcheck disable=SC2086
		# BPFTOOLS_DEBUG: the tool says on stderr when it has snapshotted a process
		BPFTOOLS_DEBUG=1 start_tool funcslower $o -m 10 "$BT_WORKLOADS/reuse_a:reuse_a_sleep" "$BT_WORKLOADS/reuse_b:reuse_b_sleep"
		"$BT_WORKLOADS/reuse_a" 6 &
		A=$!
		i=0
		until grep -q "process $A (.*mappings noted" "$ERR"; do
			i=$((i + 1))
			[ $i -lt 300 ] || fail "funcslower $o: reuse_a ($A) never snapshotted"
			sleep 0.01
		done
		kill -STOP $FPID
		wait $A
		PID=$A $CHURN 1 "$BT_WORKLOADS/reuse_b" 10 &
		C=$!
		i=0
		until [ "$(readlink /proc/$A/exe 2>/dev/null)" = "$(readlink -f "$BT_WORKLOADS/reuse_b")" ]; do
			i=$((i + 1))
			if [ $i -gt 200 ] || ! kill -0 $C 2>/dev/null; then
				kill -CONT $FPID
				finish_tool INT
				skip "could not have pid $A again (ns_last_pid)"
			fi
			sleep 0.01
		done
		sleep 0.1 # in its first call: announced
		kill -CONT $FPID
		wait $C || fail "churn exited $?"
		sleep 0.3
		finish_tool INT
		[ "$RC" = 0 ] || fail "funcslower $o exited $RC"
		# each row's stacks: the indented lines below it (with -B, below its B line); a block
		# before the process is indexed may skip reuse_N_sleep (libc has no frame pointers)
		awk '/^reuse_/ { row = $1; n[row]++; next }
			/^    / && row { s[row, n[row]] = s[row, n[row]] ";" $1 }
			END {
				for (r in n) for (i = 1; i <= n[r]; i++) print r, s[r, i]
			}' "$OUT" >"$T/stacks"
		for p in "a 6" "b 10"; do
			set -- $p
			rows=$(grep -c "^reuse_$1 " "$T/stacks")
			[ "$rows" = "$2" ] || fail "funcslower $o: $rows slow calls of reuse_$1, not $2"
			named=$(grep "^reuse_$1 " "$T/stacks" | grep -c ";reuse_${1}_outer;main;")
			[ "$named" = "$2" ] || fail "funcslower $o: $named of $2 calls of reuse_$1 (pid $A) named by its own binary: $(grep "^reuse_$1 " "$T/stacks" | grep -v ";reuse_${1}_outer;main;" | head -2)"
		done
		ok "funcslower $o: pid $A run by reuse_a, then reuse_b, reuse_a's last calls printed after: each named by its own binary"
	done
fi
