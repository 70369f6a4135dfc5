#!/bin/sh
# The one-shot profiles the exporter serves (/debug/pprof/profile and its off-CPU twin): the
# pprof hook of profile and offcputime (struct bt_cmd.pprof), called in-process by pprof_hook
# (test/live/pprof_hook.c: the two commands' objects, ASan/UBSan on) while a workload runs
# hookwl_spin in one process and sleeps in hookwl_nap in another. The profiles, decoded by
# flamegraph.py, name those functions with their sample types and thread labels; nothing is
# written on stdout; a pending SIGINT neither cuts a call short nor is read by it; 6 calls in
# one process leave no descriptor open, no more heap in use and no memory leaked (ASan's
# leak check at exit). Kept as the exporter keeps them (lib/tools/bt_offcpu_kept.h), while
# short processes of new binaries come and go: 20 calls of one run load programs in the first
# only, the heap after the 20th (less the running processes' symbols) is within 1 MiB of that
# after the fifth, and freeing it closes every descriptor. Kept while 20 new binaries a second
# without frame pointers come and go, ids for few files: the run is built again before its
# unwinder's ids run out, and the last profile still walks the new binaries whole.
. "$(dirname "$0")/lib.sh"
require root btf

CHECK="python3 $(dirname "$0")/flamegraph.py"
HOOK=${BT_BUILD:?BT_BUILD must point at the build tree}/test/pprof_hook
[ -x "$HOOK" ] || fail "no $HOOK (scripts/build builds it)"
need gcc python3 # to build the workload, to read the profile back
export ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# hookwl spin|nap SECS: hookwl_spin on a CPU, or hookwl_nap asleep 10 ms at a time, for SECS
cat >"$T/hookwl.c" <<'C'
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile unsigned long sink;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

__attribute__((noinline)) void hookwl_spin(double end)
{
	while (now() < end)
		for (int i = 0; i < 100000; i++)
			sink += i;
}

__attribute__((noinline)) void hookwl_nap(double end)
{
	struct timespec nap = { 0, 10000000 };

	while (now() < end)
		nanosleep(&nap, NULL);
}

int main(int argc, char **argv)
{
	double end = now() + atof(argv[2]);

	if (!strcmp(argv[1], "spin"))
		hookwl_spin(end);
	else
		hookwl_nap(end);
	return 0;
}
C
gcc -O2 -o "$T/hookwl" "$T/hookwl.c" || fail "cannot build the workload"

# hook COMMAND SECONDS OUT [CALLS]: pprof_hook, its stderr in $ERR; stdout must stay empty
hook() {
	OUT=$T/out ERR=$T/err
	RC=0
	timeout -k 5 300 "$HOOK" "$@" >"$OUT" 2>"$ERR" || RC=$?
	[ "$RC" = 0 ] || fail "pprof_hook $*: exit $RC"
	[ ! -s "$OUT" ] || fail "pprof_hook $*: the hook wrote on stdout"
}

"$T/hookwl" spin 60 &
spin=$!
"$T/hookwl" nap 60 &
nap=$!
sleep 0.5
hook profile 2 "$T/on.pb.gz"
$CHECK samples "$T/on.pb.gz" samples/count,cpu/nanoseconds hookwl_spin pid=$spin \
	thread_id=$spin thread_name=hookwl cpu='*' || fail "profile's hook: no hookwl_spin samples"
ok "profile's hook: 2 s of the whole machine as pprof, hookwl_spin labelled with its thread"

hook offcputime 2 "$T/off.pb.gz"
$CHECK samples "$T/off.pb.gz" off_cpu/nanoseconds hookwl_nap pid=$nap thread_id=$nap \
	thread_name=hookwl cpu='!' >"$T/check" || fail "offcputime's hook: no hookwl_nap samples"
cat "$T/check"
# asleep nearly all the 2 s, in blocks of 10 ms: the blocks the window (attached to detached:
# 2 s, and the time a late wake-up adds) holds whole: at least 1.5 s, at most the call's time
ns=$(sed -n 's/.*through hookwl_nap (\([0-9]*\)).*/\1/p' "$T/check")
took=$(sed -n 's/^pprof_hook: call 1: \([0-9]*\)\.\([0-9]*\) s.*/\1\20000000/p' "$ERR")
[ "${ns:-0}" -ge 1500000000 ] && [ "$ns" -le "${took:-0}" ] ||
	fail "offcputime's hook: hookwl_nap off-CPU ${ns:-?} ns in 2 s (the call took ${took:-?} ns)"
ok "offcputime's hook: hookwl_nap off-CPU $((ns / 1000000)) ms of 2 s, in nanoseconds"
kill $spin $nap
wait $spin $nap 2>/dev/null

# 6 calls in one process: the same descriptors open after the last as after the first, the
# heap in use within 1 MiB
for c in profile offcputime; do
	hook $c 1 "$T/loop.pb.gz" 6
	grep -q '^pprof_hook: 6 calls' "$ERR" || fail "$c: $(tail -1 "$ERR")"
	ok "$c: $(sed -n 's/^pprof_hook: 6 calls of [a-z]*: //p' "$ERR"), no leak (ASan)"
done

# The kept parts hold the run through their calls only while its unwinder is under half spent
# (lib/stacks/bt_unwinder.h): a host running clang (libLLVM's tables are tens of MiB) would
# have it built again after each call under the default 64 MiB, and "worn" below reaches the
# limit on purpose; 256 MiB here, so that what the machine runs does not decide it.
export BPFTOOLS_UNWIND_TABLES_MB=256

# kept, between two requests: A, running during the first, is killed and B started; the second
# names B's stacks whole (indexed before its seconds, or unwound late: through main, nothing
# [unknown]), and has none of A's
for c in profile offcputime; do
	if [ $c = profile ]; then w=spin types=samples/count,cpu/nanoseconds; else
		w=nap types=off_cpu/nanoseconds; fi
	"$T/hookwl" $w 60 &
	a=$!
	hook $c 2 "$T/two%d.pb.gz" 2 kept \
		"kill $a; \"$T/hookwl\" $w 60 >/dev/null 2>&1 & echo \$! >\"$T/b.pid\""
	b=$(cat "$T/b.pid")
	kill $b
	wait $a 2>/dev/null
	$CHECK samples "$T/two1.pb.gz" $types hookwl_$w pid=$a >/dev/null ||
		fail "$c kept: A (pid $a) not in the first profile"
	$CHECK absent "$T/two2.pb.gz" pid=$a >/dev/null ||
		fail "$c kept: A (pid $a), killed before the second profile, is in it"
	$CHECK samples "$T/two2.pb.gz" $types hookwl_$w pid=$b through=main >"$T/check" ||
		fail "$c kept: B (pid $b), started between the profiles, not whole in the second"
	ok "$c kept: a process started between two profiles whole in the second, one killed absent ($(cat "$T/check"))"
done

# churn: a new binary every 0.2 s, 10,000 symbols each (over 1 MiB once loaded), on a CPU for
# 0.1 s and asleep for 0.1 s, so that both profiles name it, then gone: a kept run that held
# the files of processes gone grew by 7 MiB a call. No build-id, or the copies would share the
# first one's symbols (symbolize/dso.c); each is left on disk for 4 s, as a binary that ran once
# stays installed, so that its file can still be read when its stacks are named.
{
	i=0
	while [ $i -lt 10000 ]; do
		echo "void hookwl_pad$i(void) {}"
		i=$((i + 1))
	done
} >"$T/pad.c"
cat "$T/hookwl.c" >>"$T/pad.c"
gcc -O0 -Wl,--build-id=none -o "$T/churnwl" "$T/pad.c" || fail "cannot build the churn workload"
churn() {
	i=0
	while [ -d "$T" ] && [ ! -e "$T/churn.stop" ]; do
		i=$((i + 1))
		cp "$T/churnwl" "$T/c$i" && "$T/c$i" spin 0.1 && "$T/c$i" nap 0.1
		rm -f "$T/c$((i - 20))"
	done
}

# kept: one run for 20 calls, its programs loaded once (pprof_hook compares the ids it holds)
rm -f "$T/churn.stop"
churn &
churner=$!
trap 'touch "$T/churn.stop"; kill $churner 2>/dev/null; wait $churner; rm -rf "$T"' EXIT
# Each of these binaries' tables takes about 0.5 MiB: past half of the 64 MiB the run would be
# built again (lib/stacks/bt_unwinder.h), which the "worn" part below checks; 256 MiB (above)
for c in profile offcputime; do
	hook $c 1 "$T/kept.pb.gz" 20 kept
	grep -q '^pprof_hook: 20 calls' "$ERR" || fail "$c kept: $(grep -v warning "$ERR" | tail -1)"
	ok "$c kept: $(sed -n 's/^pprof_hook: call 20: .* s, [0-9]* fds, \([0-9]*\) programs.*/\1 programs, the same ids as in call 1/p' "$ERR"); $(sed -n 's/^pprof_hook: 20 calls of [a-z]*: //p' "$ERR"), no leak (ASan)"
done
touch "$T/churn.stop"
wait $churner
unset BPFTOOLS_UNWIND_TABLES_MB

# worn: a kept run's unwinder never gives a table id back (lib/stacks/bt_unwinder.h), so a run
# kept past its ids walks every binary met later by frame pointers. With ids for N files
# (BPFTOOLS_UNWIND_TABLES: twice the files of the machine's processes, plus 200) and 20 new binaries a second
# built without frame pointers, the last of 25 calls still walks theirs
# whole (through main): the run is built again after a call that left over half of the ids
# spent. Without that, the calls after the ids ran out name them [fpless_spin, ...] alone.
cat >"$T/fpless.c" <<'C'
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

__attribute__((noinline)) void fpless_spin(double end)
{
	while (now() < end)
		for (int i = 0; i < 100000; i++)
			sink += i;
}

__attribute__((noinline)) void fpless_outer(double end)
{
	fpless_spin(end);
	sink++;
}

int main(int argc, char **argv)
{
	fpless_outer(now() + atof(argv[1]));
	return 0;
}
C
gcc -O2 -fomit-frame-pointer -Wl,--build-id=none -o "$T/fpless" "$T/fpless.c" ||
	fail "cannot build the frame-pointer-less workload"
export BPFTOOLS_DEBUG=1
hook profile 1 "$T/t0.pb.gz" 1 kept
t0=$(sed -n 's/^.*unwind: .*; \([0-9]*\) tables (.*$/\1/p' "$ERR" | tail -1)
[ -n "$t0" ] || fail "worn: no unwinder counts in pprof_hook's debug output"
n=$((2 * t0 + 200))
# fpchurn K: a new copy of fpless every 0.2 s, on a CPU all the time
fpchurn() {
	i=0
	while [ -d "$T" ] && [ ! -e "$T/churn.stop" ]; do
		i=$((i + 1))
		cp "$T/fpless" "$T/f$1.$i" && "$T/f$1.$i" 0.2
		rm -f "$T/f$1.$((i - 10))"
	done
}
rm -f "$T/churn.stop"
fpchurn 1 &
f1=$!
fpchurn 2 &
f2=$!
fpchurn 3 &
f3=$!
fpchurn 4 &
f4=$!
trap 'touch "$T/churn.stop"; kill $f1 $f2 $f3 $f4 2>/dev/null; wait; rm -rf "$T"' EXIT
export BPFTOOLS_UNWIND_TABLES=$n
hook profile 1 "$T/worn%d.pb.gz" ${WORN_CALLS:-25} worn
touch "$T/churn.stop"
wait $f1 $f2 $f3 $f4
unset BPFTOOLS_DEBUG BPFTOOLS_UNWIND_TABLES
tables=$(sed -n 's/^.*unwind: .*; \([0-9]*\) tables (.*$/\1/p' "$ERR" | tr '\n' ' ')
built=$(grep -c 'pprof: a new run' "$ERR")
echo "worn: ids for $n files ($t0 the machine's), tables after each call: $tables; $built runs built"
$CHECK samples "$T/worn${WORN_CALLS:-25}.pb.gz" samples/count,cpu/nanoseconds fpless_spin \
	through=main >"$T/check" ||
	fail "worn: the last call's binaries not walked whole with ids for $n files"
[ "$built" -ge 2 ] || fail "worn: one run for all the calls, its ids for $n files"
ok "worn: ids for $n files, the run built $built times, the last call's new binaries whole ($(cat "$T/check"))"
