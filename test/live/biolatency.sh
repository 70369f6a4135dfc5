#!/bin/sh
# biolatency on this kernel: direct-I/O reads of a file we wrote are counted in BCC's
# histogram layout, per disk (-D), per flags (-F), with the queue time (-Q); -d and -c keep a
# concurrent second reader out; -j is JSON; interval and count; bad input exits 2.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/block.inc"
require root btf tracepoints
need python3

blk_setup
N=64
RD=blrd_$$

# hist_total: the sum of the counts of the histogram rows in $OUT (optionally after the
# section line matching $1 only, up to the next blank line).
hist_total() {
	awk -v sec="${1:-}" '
		sec != "" && $0 == sec { on = 1; next }
		sec != "" && /^$/ { on = 0 }
		(sec == "" || on) && / -> .*: [0-9]+ +\|/ { split($0, a, ":"); n += a[2] + 0 }
		END { print n + 0 }' "$OUT"
}

# reads_then_stop ARGS...: biolatency ARGS while our dd makes $N direct 4 KiB reads; Ctrl-C.
reads_then_stop() {
	start_tool biolatency "$@"
	named_dd "$RD" if="$BLK_FILE" of=/dev/null bs=4k count=$N iflag=direct
	sleep 0.5
	stop_tool
	expect_rc 0 "biolatency $*, then SIGINT"
}

# Per disk: a section for the file's disk holding at least our reads, BCC's layout.
reads_then_stop -D
[ "$(head -1 "$OUT")" = "Tracing block device I/O... Hit Ctrl-C to end." ] || fail "banner"
expect_line "^disk = $BLK_DISK\$"
expect_line '^     usecs               : count     distribution$'
grep -E ' -> ' "$OUT" | grep -Evq '^ {0,9}[0-9]+ -> [0-9]+ +: [0-9]+ +\|[*+ ]{40}\|$' &&
	fail "histogram row not in BCC's '%10d -> %-10d : %-8d |%-40s|' layout"
n=$(hist_total "disk = $BLK_DISK")
# (but those the tool reported ended unseen: docs/biosnoop.md, "Unseen completions")
[ "$n" -ge $((N - $(unseen))) ] || fail "-D: $n requests on $BLK_DISK, expected at least our $N reads ($(unseen) reported unseen)"
ok "-D: $n requests on $BLK_DISK"

# Per flags: direct reads are some "...Read" set of BCC's flag names.
reads_then_stop -F
grep '^flags = ' "$OUT" | grep -Evq '^flags = ((NoWait|Background|ReadAhead|Idle|NoMerge|Priority|ForcedUnitAccess|Metadata|Sync)-)*(Read|Write|Flush|Discard|SecureErase|ZoneReset|WriteSame|WriteZeros|ZoneAppend|Unknown)$' &&
	fail "-F: a section name is not made of BCC's flag names"
n=0
for sec in $(sed -n 's/^flags = \(.*Read\)$/\1/p' "$OUT"); do
	n=$((n + $(hist_total "flags = $sec")))
done
[ "$n" -ge $((N - $(unseen))) ] || fail "-F: $n requests in '...Read' sections, expected at least our $N reads ($(unseen) reported unseen)"
ok "-F: $n reads"

# ft_check WHAT COUNT: every request the reader inside the cgroup made and every bio it merged
# into a request (the kernel's count, from ftrace) is counted, reported merged, or reported
# unseen: none lost silently.
ft_check() {
	[ -n "$FT" ] || return 0
	k=$(($(ft_made) + $(ft_merged)))
	d=$((k - $2 - $(merged)))
	[ $d -ge 0 ] && [ $d -le "$(unseen)" ] ||
		fail "$1: the reader made $(ft_made) requests and merged $(ft_merged) bios; $2 counted, $(merged) reported merged, $(unseen) unseen"
}

# -c, with -Q and -e: only the reader inside the cgroup counts, while one outside reads too;
# -e's count is exact. A read that joins a request the other reader made (they read the same
# blocks at once) is not that request's, and is reported.
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)/bt_biolatency_$$
RDC=blcg_$$
if [ "$CG" != "/bt_biolatency_$$" ] && mkdir "$CG" 2>/dev/null; then
	BLK_CG=$CG
	ft_start "$RDC" || echo "note: no ftrace instance; -c checked without the kernel's count"
	# the last round without block_io_start: the submitter noted per bio at block_getrq
	for q in "" -Q getrq; do
		if [ "$q" = getrq ]; then
			q= && export BPFTOOLS_SKIP_PROGS=start_btf,start_raw BPFTOOLS_DEBUG=1
		fi
		start_tool biolatency -e $q -c "$CG"
		[ -z "$FT" ] || ft_reset
		"$(dd_as "$RD")" if="$BLK_FILE" of=/dev/null bs=4k count=$N iflag=direct 2>/dev/null &
		p1=$!
		sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$CG" "$(dd_as "$RDC")" \
			if="$BLK_FILE" of=/dev/null bs=4k count=16 iflag=direct 2>/dev/null
		wait $p1
		sleep 0.5
		stop_tool
		expect_rc 0 "biolatency -e $q -c $CG"
		expect_line '^avg = [0-9]+ usecs, total: [0-9]+ usecs, count: [0-9]+$'
		c=$(sed -n 's/^avg = .*, count: \([0-9]*\)$/\1/p' "$OUT")
		reads_ok "$c" 16 || fail "-e $q -c: count $c, expected 16 ($(unseen) reported unseen, $(merged) merged)"
		ft_check "-e $q -c" "$c"
		[ -z "${BPFTOOLS_SKIP_PROGS:-}" ] || grep -q "noted per bio" "$ERR" ||
			fail "-c: block_getrq path not taken"
		[ -z "${BPFTOOLS_SKIP_PROGS:-}" ] || grep -q "'issue_raw' in place of 'issue_btf'" "$ERR" ||
			fail "-c: tp_btf loaded where raw_tp reads the request for less"
		h=$(hist_total)
		reads_ok "$h" 16 || fail "-c $q: the histogram holds $h requests, expected 16 ($(unseen) reported unseen, $(merged) merged)"
		ok "-c $q ${BPFTOOLS_SKIP_PROGS:+(block_getrq)}: the 16 reads from inside the cgroup, none from outside ($c counted, $(merged) merged)"
	done
	unset BPFTOOLS_SKIP_PROGS BPFTOOLS_DEBUG

	# 8 adjacent direct reads in one io_submit(), under one plug: the first makes a request,
	# the other 7 join it (bio merges) and make none of their own. They are the cgroup's I/O,
	# so they are reported, not lost.
	PR=$BT_WORKLOADS/plug_reads
	[ -x "$PR" ] || fail "workload $PR not built"
	# under the reader's name, which the ftrace instance follows
	mkdir -p "$T/aio" && cp "$PR" "$T/aio/$RDC" && PR=$T/aio/$RDC
	start_tool biolatency -e -c "$CG"
	[ -z "$FT" ] || ft_reset
	sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' sh "$CG" "$PR" "$BLK_FILE" 8 ||
		fail "plug_reads exited $?"
	sleep 0.5
	stop_tool
	expect_rc 0 "biolatency -e -c $CG"
	c=$(sed -n 's/^avg = .*, count: \([0-9]*\)$/\1/p' "$OUT")
	reads_ok "${c:-0}" 8 ||
		fail "-c, 8 reads in one plug: ${c:-0} counted, $(merged) reported merged, $(unseen) unseen"
	ft_check "-c, 8 reads in one plug" "${c:-0}"
	ok "-c, 8 reads in one plug: ${c:-0} requests counted, $(merged) reads reported merged${FT:+ (the kernel: $(ft_made) made, $(ft_merged) merged)}"
	rmdir "$CG"
else
	echo "note: no cgroup v2 hierarchy to create a cgroup in; -c not tested"
fi

# -d: the second disk only, while both are read.
if blk_loop; then
	start_tool biolatency -D -d "$LOOP_NAME"
	"$(dd_as "$RD")" if="$BLK_FILE" of=/dev/null bs=4k count=$N iflag=direct 2>/dev/null &
	p1=$!
	named_dd "$RD" if="$LOOP_DEV" of=/dev/null bs=4k count=16 iflag=direct
	wait $p1
	sleep 0.5
	stop_tool
	expect_rc 0 "biolatency -D -d $LOOP_NAME"
	[ "$(grep -c '^disk = ' "$OUT")" -eq 1 ] || fail "-d $LOOP_NAME: sections of other disks"
	n=$(hist_total "disk = $LOOP_NAME")
	[ "$n" -ge $((16 - $(unseen))) ] || fail "-d $LOOP_NAME: $n requests, expected our 16 ($(unseen) reported unseen)"
	ok "-d $LOOP_NAME: $n requests, no other disk"
else
	echo "note: no loop device; -d against a second disk not tested"
fi

# -j: one JSON object per interval; with -D the file's disk holds our reads.
start_tool biolatency -j -D -m 1 30
named_dd "$RD" if="$BLK_FILE" of=/dev/null bs=4k count=$N iflag=direct
sleep 1.2
stop_tool
expect_rc 0 "biolatency -j -D -m 1 30"
python3 - "$OUT" "$BLK_DISK" $((N - $(unseen))) <<'EOF' || fail "-j output"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
assert len(objs) >= 2, "fewer than two intervals"
n = 0
for o in objs:
    assert o["val_type"] == "msecs" and "ts" in o, o
    for d in o["disks"]:
        if d["disk"] == sys.argv[2]:
            n += sum(b["count"] for b in d["hist"])
assert n >= int(sys.argv[3]), "%d requests on %s" % (n, sys.argv[2])
EOF
ok "-j"

# interval and count, -T: two outputs, each with a time line, then exit by itself.
run biolatency -T 1 2
expect_rc 0 "biolatency -T 1 2"
[ "$(grep -Ec '^[0-9]{2}:[0-9]{2}:[0-9]{2}$' "$OUT")" -eq 2 ] || fail "-T 1 2: not two time lines"
ok "interval and count"

# Kernels where tp_btf cannot be loaded take raw_tp (forced here).
export BPFTOOLS_NO_TP_BTF=1 BPFTOOLS_DEBUG=1
reads_then_stop -D
unset BPFTOOLS_NO_TP_BTF BPFTOOLS_DEBUG
grep -q "using 'complete_raw' instead of 'complete_btf'" "$ERR" || fail "raw_tp fallback not taken"
n=$(hist_total "disk = $BLK_DISK")
[ "$n" -ge $((N - $(unseen))) ] || fail "raw_tp: $n requests on $BLK_DISK, expected at least $N ($(unseen) reported unseen)"
ok "raw_tp fallback: $n requests"

# Bad input: one line naming the problem, exit 2.
for bad in "-d nosuchdisk" "-c /nonexistent/cgroup" "0" "abc" "1 0" "1 2 3" "-D -F" "--nope"; do
	# shellcheck disable=SC2086
	run biolatency $bad
	expect_rc 2 "biolatency $bad"
	[ -s "$OUT" ] && fail "biolatency $bad printed to stdout"
	head -1 "$ERR" | grep -q '^biolatency: ' || fail "biolatency $bad: first stderr line does not name the tool"
done
ok "bad input"
