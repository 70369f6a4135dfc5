#!/bin/sh
# The user-stack unwinder (docs/unwind.md) on this kernel: chains of 10 functions built without
# frame pointers, in a PIE executable and a shared library, walked whole through unwind tables
# by stackcount (uprobe), offcputime (clock_nanosleep, pipe read) and funcslower, from the leaf
# to _start in order with exact counts; --unwind=fp on the same workload shows the broken
# stacks; C++ template and inlined frames; a corrupt stack and recursion past the frame limit
# end the walk marked truncated while the tool goes on; system-wide indexing in the background;
# the [vdso]; a library dlopen()ed while traced; a binary replaced on disk while traced.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints uprobes syscalls

W=$BT_WORKLOADS/unwind_work
LIB=$BT_WORKLOADS/libunwind_worklib.so
WXX=$BT_WORKLOADS/unwind_cxx
[ -x "$W" ] && [ -x "$WXX" ] && [ -f "$LIB" ] || fail "workloads not built"
# a kernel without the walker's facilities skips; a walker this kernel's verifier refuses is ours
uw=$("$BPFTOOLS" features | grep '^unwinder')
case $uw in
*yes*) ;;
*verifier*) fail "the verifier refused the unwinder: $uw" ;;
*) skip "this kernel cannot run the unwinder: $uw" ;;
esac

# Each stack of $OUT as one line, leaf first: "frame;frame;...;frame COUNT" (-v addresses and
# offcputime's "- comm (pid)" line dropped).
stacks() {
	awk '
		/^$/ { if (n) print s " " c; n = 0; s = ""; c = ""; next }
		{ sub(/^ +/, "") }
		/^[0-9]+$/ { c = $0; next }
		/^- / { next }
		{ sub(/^[0-9a-f]+ +/, ""); s = n++ ? s ";" $0 : $0 }
		END { if (n) print s " " c }' "$OUT"
}

expect_stack() {
	stacks | grep -Eqx -- "$1" || fail "$2: no stack matches /$1/ (stacks: $(stacks | tr '\n' '|'))"
}

BOTTOM='main;__libc_start_call_main;__libc_start_main[a-z_]*;_start'
EXE_A='uw_4;uw_3a;uw_2;uw_1;uw_run'
EXE_B='uw_4;uw_3b;uw_2;uw_1;uw_run'
LIBC='uwl_leaf;uwl_4;uwl_3;uwl_2;uwl_1'
CHAIN_A="$LIBC;$EXE_A;$BOTTOM"
CHAIN_B="$LIBC;$EXE_B;$BOTTOM"

# The workload waits for the tool, runs, and exits long before the output at the end.
trace() {
	args=$1
	shift
	# shellcheck disable=SC2086
	traced_workload "$W" $args -- "$@"
	expect_rc 0 "$*"
}

# 1. stackcount at a uprobe: every frame, in order, the two paths apart with their counts
trace "call 3 5 -1" stackcount -p @PID -D 3 -U "$LIB:uwl_leaf"
expect_stack "$CHAIN_A 3" "stackcount -U"
expect_stack "$CHAIN_B 5" "stackcount -U"
ok "stackcount -U: 14 frames from uwl_leaf through the library and the executable to _start"

# 2. the same with frame pointers: the walk loses the chain (so the test above proves tables)
trace "call 3 5 -1" stackcount --unwind=fp -p @PID -D 3 -U "$LIB:uwl_leaf"
stacks | grep -q '^uwl_leaf;' || fail "--unwind=fp: no uwl_leaf stack at all"
stacks | grep -q ';uw_1;' && fail "--unwind=fp: the frame-pointer walk found the whole chain"
ok "--unwind=fp: the same stacks broken ($(stacks | grep '^uwl_leaf' | head -1))"

# 3. -v: addresses, no frame marked as found by frame pointers, and the unwinder's counts
trace "call 3 5 -1" stackcount -v -p @PID -D 3 -U "$LIB:uwl_leaf"
expect_stack "$CHAIN_A 3" "stackcount -v -U"
grep -q '\[fp\]\|\[truncated\]' "$OUT" && fail "-v: frames marked though every one had a table"
grep -q '^unwind: 8 user stacks, 104 frames through tables, 0 by frame pointers, 0 stacks truncated, 0 from processes not indexed yet' "$ERR" ||
	fail "-v: not the unwinder's counts for 8 stacks of 14 frames: $(grep unwind "$ERR")"
# the same thread at the same place with the same words on its stack takes its last walk's
# stack (probes/bt_unwind.bpf.h, bt_unwind_memo_find); the first of path b, the same registers
# with other return addresses, must not: test 1's exact counts per path say it did not
grep -Eq "^unwind: .* [1-9][0-9]* stacks found unchanged since the thread's last walk, [0-9]+ mappings found at an exec\$" "$ERR" ||
	fail "-v: no stack found unchanged of 8 in two loops: $(grep unwind "$ERR")"
ok "-v: 104 frames through tables, none by frame pointers, $(sed -n "s/^unwind: .* \([0-9]*\) stacks found unchanged.*/\1/p" "$ERR") stacks not walked again"

# 3b. a stack found unchanged is taken only within the generation it was stored in: calls 2.1 s
# apart under -i 1 fall in every other interval, whose generations share the low bit, and the
# stack of the one before was freed when its interval was printed
trace "sleep 3 0 -1 2100" stackcount -i 1 -p @PID -U "$LIB:uwl_leaf"
n=$(stacks | grep -Ecx -- "$CHAIN_A 1")
[ "$n" = 3 ] && ! grep -q 'Missed' "$OUT" && ! grep -q 'freed' "$ERR" ||
	fail "-i 1: not 3 intervals of one whole stack each: $(stacks | tr '\n' '|') $(cat "$ERR")"
ok "-i 1: the same stack 2 intervals apart walked again, not taken from a freed generation"

# 4. offcputime in clock_nanosleep: 3 and 5 sleeps of 10 ms on the two paths
trace "sleep 3 5 -1 10" offcputime -U -p @PID 3
expect_stack "clock_nanosleep;$CHAIN_A [0-9]+" "offcputime -U"
expect_stack "clock_nanosleep;$CHAIN_B [0-9]+" "offcputime -U"
ta=$(stacks | grep -E "^clock_nanosleep;$CHAIN_A " | awk '{print $NF}')
tb=$(stacks | grep -E "^clock_nanosleep;$CHAIN_B " | awk '{print $NF}')
# (off-CPU includes the wait for a CPU after each wake-up: 3 x 10 ms came to 63 ms with four
# busy loops on the two CPUs, so the upper bounds only catch gross misattribution)
[ "$ta" -ge 30000 ] && [ "$ta" -lt 300000 ] && [ "$tb" -ge 50000 ] && [ "$tb" -lt 500000 ] ||
	fail "offcputime: path a ${ta}us (3 x 10 ms), path b ${tb}us (5 x 10 ms)"
ok "offcputime -U: clock_nanosleep under the whole chain, ${ta}us and ${tb}us"

trace "sleep 3 5 -1 10" offcputime --unwind=fp -U -p @PID 3
stacks | grep -q ';uw_1;' && fail "offcputime --unwind=fp: the whole chain without tables"
ok "offcputime --unwind=fp: broken ($(stacks | grep '^clock_nanosleep' | head -1))"

# 5. a pipe read
trace "pipe 2 3 -1 20" offcputime -U -p @PID 4
expect_stack "[_a-z]*read;$CHAIN_A [0-9]+" "offcputime -U, pipe read"
expect_stack "[_a-z]*read;$CHAIN_B [0-9]+" "offcputime -U, pipe read"
ok "offcputime -U: a pipe read under the whole chain"

# 6. funcslower: each slow call with its whole stack
trace "sleep 2 1 -1 10" funcslower -U -m 5 -p @PID "$LIB:uwl_leaf"
calls=$(awk '/^unwind_work/ { if (s != "") print s; s = ""; next }
	/^    / { sub(/^ +/, ""); s = s == "" ? $0 : s ";" $0 }
	END { if (s != "") print s }' "$OUT")
[ "$(echo "$calls" | grep -Ecx "$CHAIN_A")" = 2 ] && [ "$(echo "$calls" | grep -Ecx "$CHAIN_B")" = 1 ] ||
	fail "funcslower -U: not 2 calls on path a and 1 on path b with whole stacks"
ok "funcslower -U: three slow calls, whole stacks"

# 7. C++: template frames, and the inlined frame with --debuginfo
traced_workload "$WXX" 3 -1 -- stackcount --debuginfo -p @PID -D 3 -U "$WXX:uwx_leaf"
expect_rc 0 "stackcount --debuginfo C++"
sed -i 's/ at [^ ]*:[0-9]*$//' "$OUT"
expect_stack "uwx_leaf;uwx::Level<0>::go\(long\);uwx::Level<1>::go\(long\);uwx::Level<2>::go\(long\);uwx::Level<3>::go\(long\);uwx::Level<4>::go\(long\);uwx::enter\(long\) \(inlined\);uwx::run\(long\);$BOTTOM 3" "C++"
ok "C++: template frames and an inlined frame"

# 8. recursion past the frame limit: 127 frames, the last marked truncated, the tool goes on
traced_workload "$W" deep 200 -1 -- stackcount -v -p @PID -D 3 -U "$W:uw_leaf"
expect_rc 0 "stackcount, deep recursion"
s=$(stacks | grep '^uw_leaf;uw_recurse;')
[ "$(echo "$s" | tr ';' '\n' | wc -l)" = 127 ] || fail "deep recursion: not 127 frames"
echo "$s" | grep -q 'uw_recurse \[truncated\] 1$' || fail "deep recursion: not marked truncated"
ok "recursion 200 deep: 127 frames, marked truncated"

# 9. a stack pointer into unmapped memory: the walk ends there, the next event is whole
traced_workload "$W" badsp -1 -- stackcount -v -p @PID -D 3 -U "$W:uw_leaf"
expect_rc 0 "stackcount, bad stack pointer"
expect_stack 'uw_leaf;uw_badsp \[truncated\] 1' "unmapped stack"
expect_stack "uw_leaf;main;__libc_start_call_main;__libc_start_main[a-z_]*;_start 1" "after the unmapped stack"
ok "unmapped stack: walk ends marked truncated, the next stack is whole"

# 10. system-wide: running processes are indexed in the background (events before that fall
# back to frame pointers); once done, a process started before the tool unwinds whole. The
# scan runs at nice 19: ~1.4 s here idle, 7.5 s with four busy loops on the two CPUs.
BANNER_WAIT=600 BANNER='indexed [0-9]* running processes' BANNER_IN=err trace "call 3 5 -1" stackcount --debug -D 60 -U "$LIB:uwl_leaf"
expect_stack "$CHAIN_A 3" "system-wide"
expect_stack "$CHAIN_B 5" "system-wide"
ok "system-wide: $(grep -o 'indexed [0-9]* running processes in [0-9]* ms' "$ERR")"

# --json -v: each user frame says whether frame pointers found it ("fp"), each stack whether
# its walk was cut short ("user_stack_truncated")
if ! command -v jq >/dev/null; then
	echo "skipped: --json -v (no jq on this machine to read the stacks)"
else
	BANNER_IN=err traced_workload "$W" badsp -1 -- stackcount --json -v -p @PID -U "$W:uw_leaf"
	expect_rc 0 "stackcount --json -v, bad stack pointer"
	j=$(jq -c '.stacks[] | [.user_stack_truncated, ([.user_stack[] | .name + (if .fp then " fp" else "" end)] | join(";"))]' "$OUT" | sort | tr '\n' '|')
	[ "$j" = '[false,"uw_leaf;main;__libc_start_call_main;__libc_start_main;_start"]|[true,"uw_leaf;uw_badsp"]|' ] ||
		fail "--json -v: not one whole stack and one truncated, no frame by frame pointers: $j"
	# stderr is JSON Lines too, the unwinder's counts an info message
	jq -e 'select(.message | startswith("unwind: 2 user stacks")) | .level == "info"' "$ERR" >/dev/null ||
		fail "--json -v: the unwinder's counts not a JSON info message: $(cat "$ERR")"
	# a JIT frame (anonymous code, no table): its caller is found by frame pointers, and the
	# mapping being known to have no table, the walker does not ask for the process again
	JIT=$BT_WORKLOADS/jit_work
	BANNER_IN=err traced_workload "$JIT" 3 -- stackcount --json -v -p @PID -U "$JIT:jw_probed"
	expect_rc 0 "stackcount --json -v, JIT frame"
	j=$(jq -c '.stacks[] | [.user_stack_truncated, ([.user_stack[] | .name + (if .fp then " fp" else "" end)] | join(";"))]' "$OUT" | tr '\n' '|')
	echo "$j" | grep -Eq '^\[false,"jw_probed;[^;]*;jw_caller fp;main;__libc_start_call_main;__libc_start_main;_start"\]\|$' ||
		fail "--json -v: not jw_probed, the JIT frame, then jw_caller found by frame pointers: $j"
	jq -r .message "$ERR" | grep -q '^unwind: 3 user stacks, .* 3 by frame pointers, .* 0 requests to index one,' ||
		fail "JIT: not 3 frames by frame pointers and no request: $(grep 'unwind:' "$ERR")"
	ok "--json -v: \"fp\" per frame, \"user_stack_truncated\" per stack; a JIT frame asks nothing"
fi

# a process started after the tool, whose program has no table yet (the probe's library was
# indexed before the probes attached, the program was not): the walker sends the stacks it
# cannot follow (registers, the top of the stack) and they are unwound here once the process
# is indexed: whole stacks and exact counts from its first event, no warning. Without the
# copy, its first stacks (at least) are partly walked and counted apart (uwl_leaf;...;uw_4 1).
start_tool stackcount -v -U "$LIB:uwl_leaf"
"$W" call 3 5 0 300 || fail "workload exited $?"
finish_tool INT
expect_rc 0 "stackcount, a process started after the tool"
expect_stack "$CHAIN_A 3" "unwound later"
expect_stack "$CHAIN_B 5" "unwound later"
grep -q '\[fp\]\|\[truncated\]' "$OUT" && fail "unwound later: frames marked: $(stacks | tr '\n' '|')"
sent=$(sed -n 's/^unwind: .* not indexed yet (\([0-9]*\) of them sent to be unwound later, \([0-9]*\) unwound whole;.*/\1 \2/p' "$ERR")
set -- $sent
[ $# = 2 ] && [ "$1" -ge 1 ] && [ "$1" = "$2" ] ||
	fail "unwound later: not every stack sent unwound whole: $(grep '^unwind:' "$ERR")"
grep -q 'walked partly' "$ERR" && fail "unwound later: a warning: $(cat "$ERR")"
ok "not indexed yet: $1 stacks sent as copies, unwound whole in user space, exact counts"

# a frame without CFI (glibc's clone3 after its syscall, where posix_spawn's parent waits for
# the child's exec) steps by frame pointers to a word in no code mapping: that is no mapping
# the process's table lacks, so neither a request to index the process again nor a copy to
# unwind later. Each of 200 such waits once took a copy, and the process's 64 (its quota) were
# gone after a third of them; a shell loop forking like this kept a short process beside it
# partly walked (live/lifecycle).
CHURN_STOP=1 "$BT_WORKLOADS/churn" 200 /bin/true &
cpid=$!
for i in $(seq 100); do
	[ "$(awk '{print $3}' /proc/$cpid/stat 2>/dev/null)" = T ] && break
	sleep 0.05
done
BANNER_IN=err start_tool offcputime --debug -f -U -p $cpid
kill -CONT $cpid
wait $cpid || fail "churn exited $?"
finish_tool INT
expect_rc 0 "offcputime -p, a loop of posix_spawn"
grep -q '^churn;.*clone3 [0-9]*$' "$OUT" || fail "posix_spawn: no wait in clone3: $(grep '^churn' "$OUT" | tr '\n' '|')"
quota=$(sed -n "s/^unwind: .*not sent: \([0-9]*\) past the process's quota.*/\1/p" "$ERR")
[ "$quota" = 0 ] || fail "posix_spawn: stacks kept past the process's quota: $(grep '^unwind:' "$ERR")"
ok "posix_spawn's wait in clone3 (no CFI): no copy sent for it, no quota spent"

# tables kept across runs (docs/unwind.md): a root-owned copy of the library, its kept table
# removed first: the first run builds and keeps it, the second reads it back, with the same
# whole stacks and exact counts; a kept file cut short, or with rows out of order, is removed
# and the table built again; BPFTOOLS_NO_UNWIND_CACHE=1 neither reads nor keeps one.
KDIR=$T/kept
mkdir -p "$KDIR"
cp "$LIB" "$KDIR/"
chmod 755 "$KDIR/libunwind_worklib.so"
KLIB=$KDIR/libunwind_worklib.so
kind=x64
[ "$(uname -m)" = aarch64 ] && kind=a64
bid=$(readelf -n "$KLIB" | sed -n 's/^ *Build ID: *//p')
[ -n "$bid" ] || fail "no build-id in $KLIB"
KEPT=/run/bpftools/unwind/$bid-$(printf %x "$(stat -c %s "$KLIB")")-$kind.uwt
rm -f "$KEPT"
kept_run() { # kept_run WHAT [ENV=VALUE]: stackcount on the copy, the workload through it
	# emptied here, not by the background job's redirection: until its shell opens the file,
	# the last run's banner is still in it, and the Ctrl-C below reached a process that did
	# not block it yet, where a background job ignores it (the run hung, 3 clean runs in 3)
	: >"$T/out"
	: >"$T/err"
	env ${2:-BT_NONE=1} "$BPFTOOLS" stackcount --debug -v -U "$KLIB:uwl_leaf" >"$T/out" 2>"$T/err" &
	kpid=$!
	i=0
	until grep -q '^Tracing' "$T/out" 2>/dev/null; do
		i=$((i + 1))
		[ $i -le 600 ] && kill -0 $kpid 2>/dev/null || fail "$1: stackcount did not start"
		sleep 0.1
	done
	LD_LIBRARY_PATH=$KDIR "$W" call 3 5 0 || fail "$1: workload exited $?"
	kill -INT $kpid
	wait_tool $kpid
	[ "$RC" = 0 ] || fail "$1: stackcount exited $RC"
	OUT=$T/out ERR=$T/err
	expect_stack "$CHAIN_A 3" "$1"
	expect_stack "$CHAIN_B 5" "$1"
}
kept_run "cache cold"
built=$(sed -n "s|^stackcount: debug: unwind: $KLIB: table built (\([0-9]*\) rows), kept for the next run\$|\1|p" "$ERR")
[ -n "$built" ] && [ -f "$KEPT" ] || fail "cache cold: no table kept: $(grep "$KLIB" "$ERR" | tr '\n' '|')"
[ "$(stat -c '%u %a' "$KEPT")" = "0 600" ] || fail "cache: kept file is $(stat -c '%u %a' "$KEPT")"
kept_run "cache warm"
grep -qx "stackcount: debug: unwind: $KLIB: table read from the cache ($built rows)" "$ERR" ||
	fail "cache warm: not read back: $(grep "$KLIB" "$ERR" | tr '\n' '|')"
truncate -s -12 "$KEPT"
kept_run "cache cut short"
grep -q "not a table kept by this version: removed" "$ERR" && grep -q "$KLIB: table built ($built rows)" "$ERR" ||
	fail "cache cut short: not refused and rebuilt: $(grep 'unwind:.*\(kept\|cache\)' "$ERR" | tr '\n' '|')"
python3 -c '
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
h = 56
b[h:h + 12], b[h + 12:h + 24] = b[h + 12:h + 24], b[h:h + 12]
open(p, "wb").write(b)' "$KEPT"
kept_run "cache unsorted"
grep -q "not a table kept by this version: removed" "$ERR" && grep -q "$KLIB: table built ($built rows)" "$ERR" ||
	fail "cache unsorted: not refused and rebuilt: $(grep 'unwind:.*\(kept\|cache\)' "$ERR" | tr '\n' '|')"
rm -f "$KEPT"
kept_run "cache off" BPFTOOLS_NO_UNWIND_CACHE=1
[ ! -e "$KEPT" ] && ! grep -q 'read from the cache\|kept for the next run' "$ERR" ||
	fail "cache off: a table kept or read: $(grep 'read from the cache\|kept for the next' "$ERR" | tr '\n' '|')"
ok "tables kept across runs: built and kept ($built rows), read back with the same stacks; a kept file cut short or unsorted removed and rebuilt; off with BPFTOOLS_NO_UNWIND_CACHE"

# the bound: five old 15 MiB files (sparse) put the directory past its 64 MiB; keeping the
# library's table removes the least recently used first, until it holds 64 MiB again: as many
# of the fillers as that takes, oldest first (the directory's other files are newer)
UDIR=/run/bpftools/unwind
trap 'rm -f "$UDIR"/bt-test-fill-*.uwt; rm -rf "$T"' EXIT
others=$(find "$UDIR" -maxdepth 1 -type f -printf '%s\n' | awk '{ t += $1 } END { print t + 0 }')
for i in 1 2 3 4 5; do
	truncate -s 15M "$UDIR/bt-test-fill-$i.uwt"
	touch -d "2001-01-0$i" "$UDIR/bt-test-fill-$i.uwt"
done
kept_run "cache trim"
[ -f "$KEPT" ] || fail "cache trim: the new table was not kept"
total=$(find "$UDIR" -maxdepth 1 -type f -printf '%s\n' | awk '{ t += $1 } END { print t + 0 }')
[ "$total" -le $((64 << 20)) ] || fail "cache trim: the directory holds $total bytes, over 64 MiB"
room=$(((64 << 20) - others - $(stat -c %s "$KEPT")))
want=$((room < 0 ? 0 : room / (15 << 20)))
[ $want -le 5 ] || want=5
left=""
for i in 1 2 3 4 5; do
	[ -e "$UDIR/bt-test-fill-$i.uwt" ] && left="$left $i"
done
expect=""
for i in $(seq $((6 - want)) 5); do
	[ $want -gt 0 ] && expect="$expect $i"
done
[ "$left" = "$expect" ] ||
	fail "cache trim: fillers left [$left ], expected the $want newest [$expect ] ($others bytes of other tables)"
rm -f "$UDIR"/bt-test-fill-*.uwt
ok "tables kept across runs: past 64 MiB the least recently used go first ($((5 - want)) of 5 old fillers removed, $total bytes left)"

# a process started after the tool whose files already have tables (another process mapping
# them was indexed): whole stacks from its first event, through the tables found by file
"$W" call 3 5 -1 &
other=$!
BANNER='indexed [0-9]* running processes' BANNER_IN=err start_tool stackcount --debug -v -U "$LIB:uwl_leaf"
# it stays 300 ms after its calls: names need the process noted before it exits, which a
# process gone within a millisecond of its first event may not be (docs/symbolize.md)
"$W" call 3 5 0 300 || fail "workload exited $?"
kill -TERM $other
wait $other
finish_tool INT
expect_rc 0 "stackcount, a new process through tables found by file"
expect_stack "$CHAIN_A 3" "found by file"
expect_stack "$CHAIN_B 5" "found by file"
grep -q '\[fp\]\|\[truncated\]' "$OUT" && fail "found by file: frames marked: $(stacks | tr '\n' '|')"
grep -Eq '^unwind: 8 user stacks, 104 frames through tables, 0 by frame pointers, 0 stacks truncated, 0 from processes not indexed yet \(0 of them.*; .* [1-9][0-9]* mappings found by file, [0-9]+ stacks found unchanged since the thread.s last walk, [0-9]+ mappings found at an exec$' "$ERR" ||
	fail "found by file: not 8 whole stacks through tables: $(grep '^unwind:' "$ERR")"
# the walks ask the kernel once per mapping of the process, not once per frame or walk (in the
# scheduler's context each bpf_find_vma() costs a self-interrupt: docs/unwind.md), and only
# for those not found at its exec: of its stacks' mappings (the program, its library, libc),
# the program was found at the exec with the loader and the vdso (bt_unwind_find_at_exec),
# so 2 at most. How many walks come before the process is indexed (and so how many mappings
# are found by file, from the kernel or the process's cache) is timing.
asked=$(sed -n 's/^unwind: .* \([0-9]*\) mappings asked of the kernel, \([0-9]*\) mappings found by file,.* \([0-9]*\) mappings found at an exec$/\1 \2 \3/p' "$ERR")
set -- $asked
[ $# = 3 ] && [ "$1" -le 2 ] && [ "$2" -ge "$1" ] && [ "$3" -ge 2 ] ||
	fail "found by file: the walks asked for more than the mappings not found at the exec: $(grep '^unwind:' "$ERR")"
ok "a process not indexed yet: whole stacks through tables found by file (bpf_find_vma), $1 mappings asked of the kernel for $2 found, $3 found at execs"

# 11. the vdso: its table is built from our own vdso and used for every process's [vdso]; the
# leaf is the system call the vdso's clock_gettime makes for the process CPU clock
trace "clock 3 5 -1" stackcount -v -p @PID -U t:syscalls:sys_enter_clock_gettime
VDSO='__vdso_clock_gettime;clock_gettime'
expect_stack "$VDSO;$CHAIN_A 3" "vdso"
expect_stack "$VDSO;$CHAIN_B 5" "vdso"
grep -q '\[fp\]\|\[truncated\]' "$OUT" && fail "vdso: frames marked: $(stacks | tr '\n' '|')"
ok "[vdso]: through the vdso's table, 16 frames"

# dlopen_trace LIB WORKLOAD...: run WORKLOAD... dlopen LIB 3 under stackcount -v -U at the
# clock_gettime system call. Release it three times: a call from main (the process is seen and
# indexed), then LIB is loaded and its chain called once (walked by frame pointers there: the
# walker asks for the process to be indexed again), then, once it was indexed with one more
# mapping with a table, 3 calls. $BEFORE_DL runs just before the dlopen.
index_lines() {
	grep -o "unwind: process $wpid: [0-9]*" "$ERR" | awk '{print $NF}'
}
wait_index() { # wait_index AWK-CONDITION-ON-THE-LINES WHAT
	i=0
	until index_lines | awk "$1"; do
		i=$((i + 1))
		if [ $i -gt 100 ]; then
			kill -TERM $wpid
			finish_tool INT
			fail "dlopen: $2 (indexings: $(index_lines | tr '\n' ' '))"
		fi
		sleep 0.1
	done
}
dlopen_trace() {
	dl=$1
	shift
	"$@" dlopen "$dl" 3 &
	wpid=$!
	start_tool stackcount --debug -v -p $wpid -U t:syscalls:sys_enter_clock_gettime
	kill -USR1 $wpid
	wait_index 'END { exit NR < 2 }' "process $wpid not indexed on its first event"
	${BEFORE_DL:-:}
	kill -USR1 $wpid
	wait_index 'NR == 1 { f = $1 } $1 > f { x = 1 } END { exit !x }' \
		"process $wpid never indexed again with the library"
	kill -USR1 $wpid
	wait $wpid || fail "dlopen workload exited $?"
	finish_tool INT
	expect_rc 0 "stackcount, dlopen"
}

# 12. a library dlopen()ed while traced: the walker meets code its table lacks, asks for the
# process to be indexed again, and the next calls walk whole (not one frame by frame pointers)
DL=$BT_WORKLOADS/libunwind_dl.so
DLCHAIN="$VDSO;uwd_leaf;uwd_6;uwd_5;uwd_4;uwd_3;uwd_2;uwd_1;uw_dl;$BOTTOM"
dlopen_trace "$DL" "$W"
expect_stack "$DLCHAIN 3" "dlopen"
expect_stack "$VDSO;$BOTTOM 1" "dlopen, the call before"
grep -q '^unwind: .* [1-9][0-9]* requests to index one,' "$ERR" || fail "dlopen: no request counted: $(grep '^unwind:' "$ERR")"
ok "dlopen: indexed again on request, then 3 whole stacks"

# 13. a binary replaced on disk (renamed over, other content) while the process runs: tables
# and names come from the file the process maps (/proc/PID/map_files), not from the path.
mkdir -p "$T/rep"
cp "$W" "$T/rep/unwind_work"
"$T/rep/unwind_work" call 3 5 -1 &
wpid=$!
i=0
until grep -q "$T/rep/unwind_work" /proc/$wpid/maps 2>/dev/null || [ $i -gt 100 ]; do
	i=$((i + 1))
	sleep 0.01
done
cp "$WXX" "$T/rep/new" && mv "$T/rep/new" "$T/rep/unwind_work"
start_tool stackcount -v -p $wpid -U "$LIB:uwl_leaf"
kill -USR1 $wpid
wait $wpid || fail "replaced workload exited $?"
finish_tool INT
expect_rc 0 "stackcount, binary replaced before the tool started"
expect_stack "$CHAIN_A 3" "binary replaced"
expect_stack "$CHAIN_B 5" "binary replaced"
# replaced after the tool indexed it, then indexed again (dlopen): still the old file's table
cp "$W" "$T/rep/unwind_work"
BEFORE_DL='eval cp "$WXX" "$T/rep/new" \&\& mv "$T/rep/new" "$T/rep/unwind_work"' \
	dlopen_trace "$DL" "$T/rep/unwind_work"
expect_stack "$DLCHAIN 3" "binary replaced while traced, then indexed again"
ok "binary replaced on disk: the mapped file's tables and names, before and while traced"

# 14. bad input
run stackcount --unwind=bogus -U c:malloc
expect_rc 2 "--unwind=bogus"
grep -q "invalid --unwind 'bogus'" "$ERR" || fail "--unwind=bogus: no message naming it"
ok "--unwind=bogus: usage error"
