#!/bin/sh
# biosnoop on this kernel: direct-I/O reads of a file we wrote are listed one per request,
# attributed to the reading process (comm and pid) on the file's disk, with BCC's columns;
# -Q adds the queue time; -d and -c keep a concurrent second reader out; --json is JSON;
# a duration ends the trace; bad input is one line and exit 2.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/block.inc"
require root btf tracepoints
need python3

blk_setup
N=32

# disk_rows: the rows on the test's disk, for a failure message.
disk_rows() {
	awk -v d="$BLK_DISK" '$4 == d' "$OUT" | head -n 30
}
RD=bsrd_$$

# BCC's header, and one row per 4 KiB read by our dd, with its pid and the disk's name.
start_tool biosnoop
"$(dd_as "$RD")" if="$BLK_FILE" of=/dev/null bs=4k count=$N iflag=direct 2>/dev/null &
ddpid=$!
wait $ddpid
sleep 0.5
stop_tool
expect_rc 0 "biosnoop, then SIGINT"
[ "$(head -1 "$OUT")" = "TIME(s)     COMM           PID     DISK      T SECTOR     BYTES  LAT(ms)" ] ||
	fail "header differs from BCC's"
rows=$(file_reads '$2 == c')
n=$(printf '%s\n' "$rows" | grep -c .)
reads_ok "$n" $N || fail "$n rows for $RD, expected $N (one per direct read; $(unseen) reported unseen)"
printf '%s\n' "$rows" | awk -v p=$ddpid -v d="$BLK_DISK" \
	'$3 != p || $4 != d || $5 != "R" || $7 != 4096 || $8 !~ /^[0-9]+\.[0-9][0-9]$/ { exit 1 }' ||
	fail "a $RD row is not 'pid $ddpid, disk $BLK_DISK, R, 4096 bytes, latency'"
# The reads are consecutive sectors of the file, 8 sectors apart.
printf '%s\n' "$rows" | awk 'NR > 1 && $6 != prev + 8 { exit 1 } { prev = $6 }' ||
	fail "sectors of consecutive 4 KiB reads are not 8 apart"
# BCC's row layout: "%-11.6f %-14.14s %-7s %-9s %-1s %-10s %-7s" then "%7.2f"
printf '%s\n' "$rows" | grep -Evq '^[0-9]+\.[0-9]{6} +.{14} .{7} .{9} [RW] .{10} .{7} *[0-9]+\.[0-9]{2}$' &&
	fail "row not in BCC's layout"
ok "$n reads by $RD (pid $ddpid) on $BLK_DISK"

# -Q: the queue time column, numeric for our reads.
start_tool biosnoop -Q
named_dd "$RD" if="$BLK_FILE" of=/dev/null bs=4k count=8 iflag=direct
sleep 0.5
stop_tool
expect_rc 0 "biosnoop -Q"
expect_line '^TIME\(s\)     COMM           PID     DISK      T SECTOR     BYTES  QUE\(ms\) LAT\(ms\)$'
n=$(file_reads '$2 == c && $8 ~ /^[0-9]+\.[0-9][0-9]$/ && $9 ~ /^[0-9]+\.[0-9][0-9]$/' | grep -c .)
reads_ok "$n" 8 || fail "-Q: $n $RD rows with QUE(ms) and LAT(ms), expected 8 ($(unseen) reported unseen)"
ok "-Q queue time"

# -d: trace the other disk only, while both disks are read at once.
if blk_loop; then
	LR=bslp_$$
	start_tool biosnoop -d "$LOOP_NAME"
	"$(dd_as "$RD")" if="$BLK_FILE" of=/dev/null bs=4k count=$N iflag=direct 2>/dev/null &
	p1=$!
	named_dd "$LR" if="$LOOP_DEV" of=/dev/null bs=4k count=16 iflag=direct
	wait $p1
	sleep 0.5
	stop_tool
	expect_rc 0 "biosnoop -d $LOOP_NAME"
	other=$(awk -v c="$RD" '$2 == c' "$OUT" | grep -c .)
	here=$(awk -v c="$LR" -v d="$LOOP_NAME" '$2 == c && $4 == d' "$OUT" | grep -c .)
	reads_ok "$here" 16 && [ "$other" -eq 0 ] ||
		fail "-d $LOOP_NAME: $here rows of $LR there (expected 16), $other of $RD on $BLK_DISK (expected 0)"
	awk 'NR > 1 && $4 != d { exit 1 }' d="$LOOP_NAME" "$OUT" || fail "-d $LOOP_NAME: a row of another disk"
	ok "-d $LOOP_NAME: $here rows of $LR, none of $RD"

	# A completion the kernel runs no program for (forced: every 4th ignored) is no silent
	# loss: request addresses go round the whole tag space, so no later request meets most
	# of those left behind; the count at exit finds them. Alone on the loop device, our 32
	# reads are the only requests: 24 rows and exactly 8 unseen.
	export BPFTOOLS_DROP_COMPLETIONS=4
	start_tool biosnoop -d "$LOOP_NAME"
	named_dd "$LR" if="$LOOP_DEV" of=/dev/null bs=4k count=32 iflag=direct
	sleep 0.5
	stop_tool
	unset BPFTOOLS_DROP_COMPLETIONS
	expect_rc 0 "biosnoop -d $LOOP_NAME, every 4th completion dropped"
	here=$(awk -v c="$LR" -v d="$LOOP_NAME" '$2 == c && $4 == d' "$OUT" | grep -c .)
	[ "$here" -eq 24 ] && [ "$(unseen)" -eq 8 ] ||
		fail "dropped completions: $here rows of $LR (expected 24), $(unseen) reported unseen (expected 8)"
	ok "8 dropped completions of 32: 24 rows, 8 reported unseen"
else
	echo "note: no loop device; -d against a second disk not tested"
fi

# -c: only I/O submitted from inside the cgroup, while a reader outside runs too.
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)/bt_biosnoop_$$
if [ "$CG" != "/bt_biosnoop_$$" ] && mkdir "$CG" 2>/dev/null; then
	CR=bscg_$$
	start_tool biosnoop -c "$CG"
	"$(dd_as "$RD")" if="$BLK_FILE" of=/dev/null bs=4k count=$N iflag=direct 2>/dev/null &
	p1=$!
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$CG" "$T/$RD" \
		if="$BLK_FILE" of=/dev/null bs=4k count=16 iflag=direct 2>/dev/null
	wait $p1
	sleep 0.5
	stop_tool
	rmdir "$CG"
	expect_rc 0 "biosnoop -c $CG"
	# Both readers are the same binary; only the one inside may show, and nothing else.
	inside=$(file_reads '$2 == c' | grep -c .)
	reads_ok "$inside" 16 ||
		fail "-c: $inside rows of $RD, expected the 16 reads from inside the cgroup only ($(unseen) reported unseen)"
	awk -v c="$RD" 'NR > 1 && $2 != c { exit 1 }' "$OUT" || fail "-c: a row from outside the cgroup"
	ok "-c: 16 reads from inside the cgroup, none from outside"
else
	echo "note: no cgroup v2 hierarchy to create a cgroup in; -c not tested"
fi

# --json: one object per line, each valid JSON, our reads with comm, pid and disk.
# (JSON has no header to wait for: read until our rows show, within the 3 s duration)
OUT=$T/out ERR=$T/err
"$BPFTOOLS" biosnoop --json -Q -P 3 >"$OUT" 2>"$ERR" &
TPID=$!
i=0
while [ $i -lt 20 ] && ! grep -q "\"$RD\"" "$OUT"; do
	named_dd "$RD" if="$BLK_FILE" of=/dev/null bs=4k count=4 iflag=direct
	sleep 0.2
	i=$((i + 1))
done
wait $TPID
RC=$?
expect_rc 0 "biosnoop --json 3"
python3 - "$OUT" "$RD" "$BLK_DISK" <<'EOF' || fail "--json output"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ours = [r for r in rows if r["comm"] == sys.argv[2]]
assert ours, "no rows of our reader"
for r in ours:
    assert r["disk"] == sys.argv[3] and r["op"] == "read" and r["bytes"] == 4096, r
    assert r["pid"] > 0 and r["latency_ms"] > 0 and r["pattern"] in ("sequential", "random", None), r
    assert "queue_ms" in r, r
EOF
ok "--json"

# fallback_reads WHAT AWK-CONDITION: the file's rows of dd's 8 reads through a fallback path:
# every one attributed to dd (comm and pid) and meeting the condition, all 8 of them but those
# the tool reported ended unseen.
fallback_reads() {
	bad=$(file_reads "\$2 != c || \$3 != p || !($2)" | grep -c .)
	n=$(file_reads '$2 == c && $3 == p' | grep -c .)
	[ "$bad" -eq 0 ] || fail "$1: $bad rows of the file not $RD (pid $ddpid) as expected: $(disk_rows)"
	reads_ok "$n" 8 ||
		fail "$1: $n rows of $RD (pid $ddpid) on $BLK_DISK, expected 8 ($(unseen) reported unseen): $(disk_rows)"
}

# Kernels where tp_btf cannot be loaded take raw_tp (forced here): the same rows.
export BPFTOOLS_NO_TP_BTF=1 BPFTOOLS_DEBUG=1
start_tool biosnoop
"$(dd_as "$RD")" if="$BLK_FILE" of=/dev/null bs=4k count=8 iflag=direct 2>/dev/null &
ddpid=$!
wait $ddpid
sleep 0.5
stop_tool
unset BPFTOOLS_NO_TP_BTF BPFTOOLS_DEBUG
expect_rc 0 "biosnoop without tp_btf"
grep -q "using 'issue_raw' instead of 'issue_btf'" "$ERR" || fail "raw_tp fallback not taken"
fallback_reads "raw_tp" '1'
ok "raw_tp fallback"

# Under lockdown=confidentiality (no probe reads) tp_btf programs walk the request directly
# (forced here): the same rows, from the same disk and sectors.
export BPFTOOLS_BLOCK_DIRECT=1 BPFTOOLS_DEBUG=1
start_tool biosnoop
"$(dd_as "$RD")" if="$BLK_FILE" of=/dev/null bs=4k count=8 iflag=direct 2>/dev/null &
ddpid=$!
wait $ddpid
sleep 0.5
stop_tool
unset BPFTOOLS_BLOCK_DIRECT BPFTOOLS_DEBUG
expect_rc 0 "biosnoop reading requests directly"
grep -q "read the request directly" "$ERR" || fail "direct reads not taken"
! grep -q "in place of 'issue_btf'" "$ERR" || fail "raw_tp taken though direct reads were forced"
fallback_reads "direct reads" '1'
ok "tp_btf reading requests directly"

# Kernels without block_io_start (and without kprobes): the submitter is noted per bio at
# block_getrq and taken by the request it made (forced here by skipping block_io_start).
export BPFTOOLS_SKIP_PROGS=start_btf,start_raw BPFTOOLS_DEBUG=1
start_tool biosnoop -Q
"$(dd_as "$RD")" if="$BLK_FILE" of=/dev/null bs=4k count=8 iflag=direct 2>/dev/null &
ddpid=$!
wait $ddpid
sleep 0.5
stop_tool
unset BPFTOOLS_SKIP_PROGS BPFTOOLS_DEBUG
expect_rc 0 "biosnoop -Q without block_io_start"
grep -q "the issuing task is noted per bio" "$ERR" || fail "block_getrq path not taken"
fallback_reads "block_getrq" '$8 ~ /^[0-9]/'
ok "submitter through block_getrq"

# A duration: the trace ends by itself.
run biosnoop 1
expect_rc 0 "biosnoop 1"
expect_line '^TIME\(s\) '
ok "duration"

# Bad input: one line naming the problem, exit 2.
for bad in "-d nosuchdisk" "-c /nonexistent/cgroup" "0" "abc" "1 2" "-m x" "--nope"; do
	# shellcheck disable=SC2086
	run biosnoop $bad
	expect_rc 2 "biosnoop $bad"
	[ -s "$OUT" ] && fail "biosnoop $bad printed to stdout"
	head -1 "$ERR" | grep -q '^biosnoop: ' || fail "biosnoop $bad: first stderr line does not name the tool"
done
ok "bad input"
