#!/bin/sh
# vfsstat on this kernel. Its probes are kernel functions: where the kernel has neither kprobes
# nor a usable fentry (this machine: no CONFIG_KPROBES, fentry refused under lockdown), it must
# refuse with one line naming why, print nothing on stdout, exit 1 and leave no probe behind.
# Where it can attach, the counting test runs instead: exact counts of a workload's VFS calls
# with -p, the BCC layout, Ctrl-C. Bad input exits 2 either way.
. "$(dirname "$0")/lib.sh"
require root btf
need python3

HEADER='TIME         READ/s  WRITE/s  FSYNC/s   OPEN/s CREATE/s UNLINK/s  MKDIR/s  RMDIR/s'
KPROBE_EVENTS=/sys/kernel/tracing/kprobe_events

# Bad input: nothing on stdout, exit 2, one "vfsstat: " line first on stderr.
check_bad() {
	run vfsstat "$@"
	expect_rc 2 "vfsstat $*"
	[ -s "$OUT" ] && fail "vfsstat $* printed to stdout"
	head -1 "$ERR" | grep -q '^vfsstat: ' || fail "vfsstat $*: stderr does not start with 'vfsstat: '"
	[ "$(grep -c '^vfsstat: ' "$ERR")" = 1 ] || fail "vfsstat $*: more than one error line"
}
check_bad -1
check_bad x
check_bad 1 2 3
check_bad 0
check_bad 1 0
check_bad --attach=bogus
check_bad -p -3
check_bad -p x
check_bad -p 999999999
ok "bad input"

no_probes_left() {
	[ ! -e "$KPROBE_EVENTS" ] || [ -z "$(cat "$KPROBE_EVENTS" 2>/dev/null)" ] ||
		fail "kprobe_events not empty after $1: $(head -1 "$KPROBE_EVENTS")"
}

has_kprobes() { [ -e /sys/bus/event_source/devices/kprobe/type ]; }

run vfsstat 1 1
if [ "$RC" = 1 ] && ! has_kprobes; then
	# The attach layer's one line: what was tried for the first function and why it failed.
	[ -s "$OUT" ] && fail "refused, but printed to stdout"
	[ "$(wc -l <"$ERR")" = 1 ] || fail "expected exactly one line on stderr"
	grep -Eq "^vfsstat: cannot trace 'vfs_read' \(and 7 more\): fentry .+; kernel built without kprobes$" "$ERR" ||
		fail "the reason does not name fentry and kprobes"
	no_probes_left "a refused run"
	ok "refused: $(cat "$ERR")"

	run vfsstat --attach=kprobe 1 1
	expect_rc 1 "vfsstat --attach=kprobe"
	[ "$(cat "$ERR")" = "vfsstat: cannot trace 'vfs_read' (and 7 more): kernel built without kprobes" ] ||
		fail "--attach=kprobe: unexpected reason"
	run vfsstat --attach=fentry 1 1
	expect_rc 1 "vfsstat --attach=fentry"
	grep -Eq "^vfsstat: cannot trace 'vfs_read' \(and 7 more\): fentry .+$" "$ERR" &&
		! grep -q kprobes "$ERR" || fail "--attach=fentry: unexpected reason (only fentry's)"
	[ -s "$OUT" ] && fail "--attach=fentry: printed to stdout"
	[ "$(wc -l <"$ERR")" = 1 ] || fail "--attach=fentry: expected one line on stderr"
	no_probes_left "--attach=fentry|kprobe"
	ok "--attach=kprobe and --attach=fentry refused with their own reason"

	# --json: the same refusal as one JSON line on stderr, nothing on stdout
	run vfsstat --json 1 1
	expect_rc 1 "vfsstat --json 1 1"
	[ -s "$OUT" ] && fail "--json: refused, but printed to stdout"
	python3 - "$ERR" <<'EOF' || fail "--json: the refusal is not one JSON error line"
import json, sys
lines = open(sys.argv[1]).read().splitlines()
assert len(lines) == 1, lines
m = json.loads(lines[0])
assert m["level"] == "error" and m["command"] == "vfsstat", m
assert m["message"].startswith("cannot trace 'vfs_read' (and 7 more): fentry"), m
EOF
	ok "--json: refused with one JSON error line"
	exit 0
fi

# This kernel can trace kernel functions: count a workload's calls exactly.
expect_rc 0 "vfsstat 1 1"
[ "$(head -1 "$OUT")" = "$HEADER" ] || fail "header differs from BCC's"
[ "$(wc -l <"$OUT")" = 2 ] || fail "vfsstat 1 1: expected the header and one row"
# BCC's "%-8s: " and eight " %8d"
tail -1 "$OUT" | grep -Eq '^[0-9]{2}:[0-9]{2}:[0-9]{2}: ( {1,8}[0-9]{1,8}){8}$' &&
	[ "$(tail -1 "$OUT" | wc -c)" = 83 ] || fail "row layout"
no_probes_left "vfsstat 1 1"
ok "vfsstat 1 1"

WORK=$BT_WORKLOADS/vfs_work
[ -x "$WORK" ] || fail "workload $WORK not built"
R=300 W=200 O=100 M=20

# col N: the sum of column N (2 = READ/s ... 9 = RMDIR/s) over every row.
col() {
	awk -v c="$1" '/^[0-9][0-9]:/ { s += $c } END { print s + 0 }' "$OUT"
}

modes=auto
has_kprobes && modes="$modes kprobe"
for mode in $modes; do
	OUT=$T/out ERR=$T/err
	: >"$OUT"
	TMPDIR=$T "$WORK" $R $W $O $M &
	wpid=$!
	# a second copy, released with the traced one: -p must leave its calls out
	TMPDIR=$T "$WORK" $R $W $O $M &
	other=$!
	# their start-up (the loader's opens and reads) must be over before counting: wait for
	# them to sleep in sigwait
	for p in $wpid $other; do
		i=0
		until [ "$(sed 's/.*) \([A-Z]\).*/\1/' /proc/$p/stat 2>/dev/null)" = S ]; do
			i=$((i + 1))
			[ $i -lt 100 ] || fail "vfs_work did not reach its sigwait"
			sleep 0.05
		done
	done
	"$BPFTOOLS" vfsstat -p $wpid --attach=$mode 1 3 >"$OUT" 2>"$ERR" &
	vpid=$!
	i=0
	until grep -q '^TIME' "$OUT" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 $vpid 2>/dev/null; then
			kill -TERM $wpid $other $vpid 2>/dev/null
			fail "--attach=$mode: no header"
		fi
		sleep 0.1
	done
	kill -USR1 $wpid $other
	wait $wpid || fail "workload exited $?"
	wait $other || fail "the other workload exited $?"
	RC=0
	wait $vpid || RC=$?
	expect_rc 0 "vfsstat -p PID --attach=$mode 1 3"
	[ "$(head -1 "$OUT")" = "$HEADER" ] || fail "--attach=$mode: header"
	[ "$(grep -c '^[0-9]' "$OUT")" = 3 ] || fail "--attach=$mode: expected 3 rows"
	[ -s "$ERR" ] && fail "--attach=$mode: unexpected stderr"
	for c in "2 READ $R" "3 WRITE $W" "4 FSYNC $M" "5 OPEN $O" "6 CREATE $M" \
		"7 UNLINK $((M + 1))" "8 MKDIR $M" "9 RMDIR $((M + 1))"; do
		set -- $c
		[ "$(col "$1")" = "$3" ] || fail "--attach=$mode: $2/s summed to $(col "$1"), expected $3"
	done
	no_probes_left "vfsstat --attach=$mode"
	ok "--attach=$mode: exact counts with -p"
done

# Ctrl-C: one more row for the time so far, exit 0.
OUT=$T/int ERR=$T/interr
"$BPFTOOLS" vfsstat 5 >"$OUT" 2>"$ERR" &
vpid=$!
i=0
until grep -q '^TIME' "$OUT" 2>/dev/null || [ $i -gt 100 ]; do i=$((i + 1)); sleep 0.1; done
kill -INT $vpid
RC=0
wait $vpid || RC=$?
expect_rc 0 "vfsstat, then SIGINT"
[ "$(wc -l <"$OUT")" = 2 ] || fail "SIGINT: expected the header and one row"
no_probes_left "SIGINT"
ok "sigint"
