#!/bin/sh
# scripts/bench: the refusals (no build, bad argument, not root), a quick run of two figures
# whose table has the shape the docs and the readers rely on (a floor beside the tool, a
# ratio, a verdict), and a Ctrl-C in the middle that leaves no process of it behind.
. "$(dirname "$0")/lib.sh"
require root tracepoints syscalls

BT_SRC=${BT_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
BT_BUILD=${BT_BUILD:-$(dirname "$BPFTOOLS")}
BENCH=$BT_SRC/scripts/bench
command -v bash >/dev/null || skip "scripts/bench needs bash"
[ -x "$BT_BUILD/bench/floor" ] || fail "$BT_BUILD/bench/floor is not built"

# No build: exit 1, saying so.
RC=0
BT_BUILD_DIR=$T/nobuild "$BENCH" --quick >"$T/out" 2>"$T/err" || RC=$?
[ "$RC" = 1 ] || fail "without a build: exit $RC, not 1"
grep -q 'no build' "$T/err" || fail "without a build: says '$(cat "$T/err")'"
# A bad argument: exit 2.
RC=0
BT_BUILD_DIR=$BT_BUILD "$BENCH" --only nosuchfigure >"$T/out" 2>"$T/err" || RC=$?
[ "$RC" = 2 ] || fail "--only nosuchfigure: exit $RC, not 2"
grep -q "no figure 'nosuchfigure'" "$T/err" || fail "--only nosuchfigure says '$(cat "$T/err")'"
# Not root: exit 1, saying so.
if ! command -v setpriv >/dev/null; then
	echo "skipped: the refusal as nobody (no setpriv on this machine)"
elif ! nobody_enters "$(dirname "$BENCH")"; then
	echo "skipped: the refusal as nobody (the user nobody, uid 65534, cannot enter $(dirname "$BENCH"))"
else
	RC=0
	BT_BUILD_DIR=$BT_BUILD setpriv --reuid=65534 --regid=65534 --clear-groups "$BENCH" --quick \
		>"$T/out" 2>"$T/err" || RC=$?
	[ "$RC" = 1 ] || fail "as nobody: exit $RC, not 1"
	grep -q 'needs root' "$T/err" || fail "as nobody: says '$(cat "$T/err")'"
fi
ok "refusals: no build (1), bad figure (2), not root (1)"

# The table: a header, then one row per figure with 9 columns; the tracepoint row has the
# tool's and the floor's added cost, their ratio and a verdict.
RC=0
BT_BUILD_DIR=$BT_BUILD "$BENCH" --quick --no-peer --only event-tp,size >"$T/out" 2>"$T/err" || RC=$?
OUT=$T/out ERR=$T/err
[ "$RC" = 0 ] || fail "scripts/bench --quick: exit $RC"
head -1 "$OUT" | grep -Eq '^figure +unit +bpftools +floor +bpftrace +libbpf-tools +ratio +target +result$' ||
	fail "no table header"
row=$(grep '^per event: getppid tracepoint, funccount ' "$OUT") || fail "no tracepoint row"
echo "$row" | grep -Eq ' \+ns/call +-?[0-9.]+ +-?[0-9.]+ +- +- +-?[0-9.]+ +x<=1\.15 +(PASS|FAIL)$' ||
	fail "tracepoint row malformed: $row"
grep -Eq '^binary size: bpftools, stripped, dynamic +MB +[0-9.]+ .* <=3 +(PASS|FAIL)$' "$OUT" ||
	fail "no binary size row"
[ "$(grep -Ec ' (PASS|FAIL|SKIP|-)$' "$OUT")" -ge 2 ] || fail "rows without a verdict"
grep -q '^note: bpftrace: left out (--no-peer)' "$OUT" || fail "no note that bpftrace was left out"
grep -q 'WARNING: left attached' "$ERR" && fail "the run left probes attached"
ok "quick table: $(echo "$row" | tr -s ' ')"

# Stopped while a tracer runs: exit 143, and nothing the bench started is left. (SIGTERM: a
# background job of a non-interactive shell ignores SIGINT, and bash cannot trap it then.)
BT_BUILD_DIR=$BT_BUILD "$BENCH" --quick --no-peer --runs 3 --only event-tp >"$T/out" 2>"$T/err" &
BPID=$!
i=0
until pgrep -f "$BT_BUILD/bench/runstat" >/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || fail "the bench started no tracer in 10 s"
	sleep 0.1
done
kill -TERM $BPID
RC=0
wait $BPID || RC=$?
[ "$RC" = 143 ] || fail "terminated bench: exit $RC, not 143"
sleep 0.2
pgrep -af "$BT_BUILD/bench/" && fail "processes of the bench left after SIGTERM"
pgrep -af "$BPFTOOLS funccount t:syscalls:sys_enter_getppid" && fail "funccount left after SIGTERM"
grep -q 'terminated; stopping' "$T/err" || fail "terminated bench says nothing: $(cat "$T/err")"
ok "SIGTERM: exit 143, nothing left"
