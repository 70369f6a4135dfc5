#!/bin/sh
# test/vm/tier.sh, which ctest uses to run the VM tiers beside the live tests, with stand-ins
# for the two tiers (no guest boots): `start` returns at once with both jobs running 10 nice levels
# down in sessions of their own (their autogroup too), on copies of the binary and workloads; `wait` prints a job's log
# and passes on 0, skips on 77, fails on anything else saying so; `stop` ends a job that still
# runs with everything it started.
. "$(dirname "$0")/lib.sh"
TIER=$BT_SRC/test/vm/tier.sh

mkdir "$T/work"
echo bin >"$T/bpftools"
echo wl >"$T/work/one"
# the x86 stand-in: its arguments, its nice value and session, then waits for a file
cat >"$T/x86" <<'EOS'
#!/bin/sh
echo "args: $*"
awk '{ print "nice:", $19 }' /proc/$$/stat
# its session's autogroup, where the kernel has them: "/autogroup-N nice K"
[ -r /proc/self/autogroup ] && echo "autogroup: $(cat /proc/self/autogroup)"
# (the session id is field 6 of /proc/PID/stat; the stand-in's name has no space)
echo "session leader: $(($(awk '{ print $6 }' /proc/$$/stat) == PPID))"
while [ ! -e "$(dirname "$0")/go" ]; do sleep 0.1; done
echo "x86 done"
exit "$(cat "$(dirname "$0")/go")"
EOS
# the arm64 stand-in starts a grandchild that would outlive a stop aimed at it alone
cat >"$T/arm64" <<'EOS'
#!/bin/sh
sleep 300 &
echo $! >"$(dirname "$0")/grandchild"
wait
EOS
chmod +x "$T/x86" "$T/arm64"
export BT_VM_TIER_X86="$T/x86" BT_VM_TIER_ARM64="$T/arm64"

s=$(date +%s)
sh "$TIER" start "$T/state" "$T/bpftools" "$T/work" >"$T/start.out" 2>&1 || bad "start failed: $(cat "$T/start.out")"
[ $(($(date +%s) - s)) -le 2 ] || bad "start did not return at once"
[ "$(cat "$T/state/stage/bpftools" 2>/dev/null)" = bin ] || bad "the binary was not copied"
[ "$(cat "$T/state/stage/workloads/one" 2>/dev/null)" = wl ] || bad "the workloads were not copied"
i=0
while ! grep -q '^session' "$T/state/x86.log" 2>/dev/null || [ ! -s "$T/grandchild" ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || { bad "the jobs did not start: $(cat "$T/state/x86.log" 2>&1)"; finish vm_tier; }
	sleep 0.1
done
grep -q "^args: --bpftools $T/state/stage/bpftools --workloads $T/state/stage/workloads " "$T/state/x86.log" ||
	bad "the x86 tier does not run the copies: $(head -1 "$T/state/x86.log")"
# 10 above this test's own (ctest runs it at nice 10 itself: then 19, the most there is)
own=$(awk '{ print $19 }' /proc/$$/stat)
want=$((own + 10 > 19 ? 19 : own + 10))
grep -qx "nice: $want" "$T/state/x86.log" || bad "the x86 tier is not at nice $want (this test's + 10): $(grep nice "$T/state/x86.log")"
grep -qx 'session leader: 1' "$T/state/x86.log" || bad "the x86 tier is not in a session of its own"
# with autogroups the scheduler shares CPUs between sessions before nice counts: the tier's
# session itself is 10 levels down (BT_VM_NICE), else the nice above weighs nothing
if [ -r /proc/self/autogroup ]; then
	grep -q '^autogroup: .* nice 10$' "$T/state/x86.log" ||
		bad "the x86 tier's session (autogroup) is not at nice 10: $(grep autogroup "$T/state/x86.log")"
fi

# wait: a job that fails fails, and says so after its log
echo 1 >"$T/go"
sh "$TIER" wait "$T/state" x86 >"$T/wait.out" 2>&1
rc=$?
[ $rc = 1 ] || bad "wait on a failed tier exited $rc, not 1"
grep -q '^x86 done$' "$T/wait.out" || bad "wait did not print the tier's log"
grep -q '^FAIL: the x86 VM tier ended with 1$' "$T/wait.out" || bad "wait did not say the tier failed: $(tail -1 "$T/wait.out")"

# stop: the running arm64 job ends, with its grandchild
g=$(cat "$T/grandchild")
kill -0 "$g" 2>/dev/null || bad "the arm64 stand-in's grandchild is not running"
sh "$TIER" stop "$T/state" >"$T/stop.out" 2>&1
grep -q '^arm64 VM tier still running: ended$' "$T/stop.out" || bad "stop did not end the arm64 tier: $(cat "$T/stop.out")"
i=0
while kill -0 "$g" 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 50 ] || { bad "stop left the tier's grandchild $g running"; kill "$g"; break; }
	sleep 0.1
done

# 0 passes, 77 skips
for want in 0 77; do
	echo "$want" >"$T/go"
	sh "$TIER" start "$T/state" "$T/bpftools" "$T/work" >/dev/null 2>&1
	sh "$TIER" wait "$T/state" x86 >"$T/wait.out" 2>&1
	rc=$?
	[ $rc = "$want" ] || bad "wait on a tier that exited $want exited $rc"
	sh "$TIER" stop "$T/state" >/dev/null 2>&1
done
rm -f "$T/go"
sh "$TIER" wait "$T/nothing" x86 >"$T/wait.out" 2>&1 && bad "wait on a tier never started passed"
finish "test/vm/tier.sh: start returns with both tiers running at nice 10 in their sessions on copies; wait passes, skips and fails with them; stop ends a tier with what it started"
