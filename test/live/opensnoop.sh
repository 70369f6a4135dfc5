#!/bin/sh
# opensnoop on this kernel: two paused workloads (different pid, comm and uid) open a file that
# exists and one that does not; the rows of each are counted exactly, with FD and ERR right, in
# BCC's byte layout. Every filter (-p, -t, -n, -u, -x, -f, --cgroupmap, --mntnsmap) must keep
# one workload and drop the other. --exec traces its child alone and ends with it; -d ends the
# trace; -T -U -e columns; -F full paths (working directory, directory fd, mount crossing);
# --json parses; the perf buffer path; bad input.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints
need python3
tfs=/sys/kernel/tracing
[ -d $tfs/events ] || tfs=/sys/kernel/debug/tracing
[ -d $tfs/events/syscalls/sys_enter_openat ] ||
	skip "no syscalls:sys_enter_openat tracepoint (kernel built without CONFIG_FTRACE_SYSCALLS)"

WORK=$BT_WORKLOADS/open_work
[ -x "$WORK" ] || fail "workloads not built"
chmod 755 "$T" # the second workload runs as nobody
nobody_enters "$T" || skip "the user nobody (uid 65534) cannot enter $T: a directory above it is closed to others (TMPDIR=${TMPDIR:-/tmp})"
OK=$T/exists
MISS=$T/missing
echo x >"$OK"
chmod 644 "$OK"
NA=3 # opens of each path by workload A (comm bt_open_a, root)
NB=5 # by workload B (comm bt_open_b, uid 65534)

# snoop ARGS...: start A and B paused, run opensnoop ARGS ("@A", "@B" become their pids), release
# both once the header is out, wait for them, then Ctrl-C. $HOOK runs with $A and $B set before
# the tool starts; $A_PREFIX prefixes workload A's command. Output in $OUT, status in $RC.
snoop() {
	OUT=$T/out ERR=$T/err
	: >"$OUT"
	${A_PREFIX:-} "$WORK" -c bt_open_a -w $NA "$OK" "$MISS" &
	A=$!
	"$WORK" -c bt_open_b -u 65534 -w $NB "$OK" "$MISS" &
	B=$!
	# named (so exec'd, and unshared with $A_PREFIX) before anything looks at them
	i=0
	until [ "$(cat /proc/$A/comm 2>/dev/null)" = bt_open_a ] &&
		[ "$(cat /proc/$B/comm 2>/dev/null)" = bt_open_b ]; do
		i=$((i + 1))
		[ $i -gt 200 ] && fail "the workloads did not start"
		sleep 0.05
	done
	[ -n "${HOOK:-}" ] && eval "$HOOK"
	args=""
	for a in "$@"; do
		case $a in
		@A) a=$A ;;
		@B) a=$B ;;
		esac
		args="$args $a"
	done
	# shellcheck disable=SC2086
	"$BPFTOOLS" opensnoop $args >"$OUT" 2>"$ERR" &
	spid=$!
	i=0
	until [ -s "$OUT" ]; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 $spid 2>/dev/null; then
			kill -TERM $A $B $spid 2>/dev/null
			wait $spid
			RC=$?
			return
		fi
		sleep 0.1
	done
	kill -USR1 $A $B
	wait $A || fail "workload A exited $?"
	wait $B || fail "workload B exited $?"
	sleep 0.2
	kill -INT $spid
	RC=0
	wait $spid || RC=$?
}

# rows PID COMM FD ERR PATH: how many lines are exactly BCC's "%-6d %-16s %4d %3d %s".
rows() {
	grep -Fxc -- "$(printf '%-6d %-16s %4d %3d %s' "$1" "$2" "$3" "$4" "$5")" "$OUT"
}
# opened PID COMM N: N successful opens of $OK (any fd >= 0, ERR 0) and N of $MISS failing ENOENT
opened() {
	n=$(grep -Ec -- "^$(printf '%-6d %-16s' "$1" "$2") +[0-9]+   0 $OK\$" "$OUT")
	[ "$n" = "$3" ] || fail "expected $3 rows of pid $1 ($2) opening $OK with an fd and ERR 0, got $n"
	n=$(rows "$1" "$2" -1 2 "$MISS")
	[ "$n" = "$3" ] || fail "expected $3 rows of pid $1 ($2) failing on $MISS with FD -1 ERR 2, got $n"
}
absent() {
	n=$(grep -c -- "$1" "$OUT")
	[ "$n" = 0 ] || fail "$2: $n rows of $1 should have been filtered out"
}

snoop
expect_rc 0 "opensnoop"
[ "$(head -1 "$OUT")" = "PID    COMM               FD ERR PATH" ] || fail "header"
opened $A bt_open_a $NA
opened $B bt_open_b $NB
[ -s "$ERR" ] && fail "something on stderr"
ok "every open of both workloads, FD and ERR right, BCC's columns; Ctrl-C exits 0"

snoop -p @A
expect_rc 0 "opensnoop -p"
opened $A bt_open_a $NA
absent bt_open_b "-p"
[ "$(grep -cv "^$A " "$OUT")" = 1 ] || fail "-p: rows of other processes"
ok "-p: only the given process, the concurrent one filtered out"

snoop -t @B
expect_rc 0 "opensnoop -t"
[ "$(head -1 "$OUT")" = "TID    COMM               FD ERR PATH" ] || fail "-t: the header names TID"
opened $B bt_open_b $NB
absent bt_open_a "-t"
ok "-t: only the given thread, header TID"

snoop -n open_b
expect_rc 0 "opensnoop -n"
opened $B bt_open_b $NB
absent bt_open_a "-n"
grep -v '^PID ' "$OUT" | awk '{ print $2 }' | grep -vq open_b && fail "-n: a process whose name lacks 'open_b'"
ok "-n: only names containing the string"

snoop -u 65534
expect_rc 0 "opensnoop -u"
opened $B bt_open_b $NB
absent bt_open_a "-u"
ok "-u: only the given user"

snoop -x -p @A
expect_rc 0 "opensnoop -x"
[ "$(rows $A bt_open_a -1 2 "$MISS")" = $NA ] || fail "-x: the failures"
[ "$(grep -c " $OK\$" "$OUT")" = 0 ] || fail "-x: a successful open shown"
ok "-x: only the failures"

snoop -f O_WRONLY -f O_RDWR -p @A
expect_rc 0 "opensnoop -f O_WRONLY -f O_RDWR"
[ "$(wc -l <"$OUT")" = 1 ] || fail "-f O_WRONLY: read-only opens shown"
snoop -f O_RDONLY -p @A
expect_rc 0 "opensnoop -f O_RDONLY"
opened $A bt_open_a $NA
ok "-f: flags filter (O_RDONLY matches read-only opens, unlike BCC's mask of 0)"

snoop -T -U -e -p @A
expect_rc 0 "opensnoop -T -U -e"
[ "$(head -1 "$OUT")" = "TIME(s)       UID   PID    COMM               FD ERR FLAGS    MODE PATH" ] ||
	fail "-T -U -e header"
# "%-14.9f" time, "%-6d" uid, the row, "%08o n/a  " flags without a mode
n=$(grep -Ec "^[0-9]+\.[0-9]{9} +0 {5}$(printf '%-6d %-16s' $A bt_open_a) +-1   2 00000000 n/a  $MISS\$" "$OUT")
[ "$n" = $NA ] || fail "-T -U -e rows"
awk 'NR > 1 && length($1) < 11 { bad = 1 } NR > 1 && $1 + 0 < last { bad = 1 } { last = $1 + 0 } END { exit bad }' "$OUT" ||
	fail "-T: times not %-14.9f or decreasing"
ok "-T -U -e: time, uid, flags and mode columns"

# -F: relative paths resolved in the kernel against the working directory and a directory fd.
mkdir -p "$T/sub"
real=$(cd "$T" && pwd -P)
OUT=$T/out ERR=$T/err
RC=0
"$BPFTOOLS" opensnoop -F --exec "$WORK" -C "$T/sub" 2 ../exists nothere "@$T:sub/../exists" /proc/self/../x >"$OUT" 2>"$ERR" || RC=$?
expect_rc 0 "opensnoop -F --exec"
for p in "$real/sub/../exists" "$real/sub/nothere" "$real/sub/../exists" "/proc/self/../x"; do
	grep -q " $p\$" "$OUT" || fail "-F: no row with $p"
done
[ "$(grep -c " $real/sub/../exists\$" "$OUT")" = 4 ] || fail "-F: cwd and directory-fd paths"
# from inside another mount (procfs): the walk crosses to the mount point
RC=0
"$BPFTOOLS" opensnoop -F --exec "$WORK" -C /proc/self 1 nothere >"$OUT" 2>"$ERR" || RC=$?
expect_rc 0 "opensnoop -F --exec (in /proc)"
grep -Eq " /proc/[0-9]+/nothere\$" "$OUT" || fail "-F: no row with /proc/PID/nothere"
ok "-F: full paths from the working directory, a directory fd, across a mount"

# -F's other form, kernel reads (5.17 to 6.1), chosen by lib/ from the table's needs: taken here
# by making the BTF form unfit. The same path where lockdown allows kernel reads, else the one
# line saying what -F needs.
lockdown=$(grep -o '\[[a-z]*\]' /sys/kernel/security/lockdown 2>/dev/null || echo unknown)
RC=0
BPFTOOLS_SKIP_PROGS=exit_open_full,exit_openat_full,exit_openat2_full BPFTOOLS_DEBUG=1 \
	"$BPFTOOLS" opensnoop -F --exec "$WORK" -C "$T/sub" 1 ../exists >"$OUT" 2>"$ERR" || RC=$?
if [ "$lockdown" = "[confidentiality]" ]; then
	expect_rc 1 "opensnoop -F, no BTF form, lockdown=confidentiality"
	grep -Fxq "opensnoop: -F needs bpf_loop() (Linux 5.17) and bpf_rdonly_cast() (6.2), or kernel reads, which lockdown=confidentiality refuses" "$ERR" ||
		fail "-F without its BTF form under lockdown: not the one line saying what it needs"
	ok "-F without its BTF form: refused in one line under lockdown=confidentiality"
else
	expect_rc 0 "opensnoop -F through kernel reads (lockdown $lockdown)"
	grep -q "using 'exit_openat_fullr' instead of 'exit_openat_full'" "$ERR" ||
		fail "-F: the kernel-reads form not taken"
	grep -q " $real/sub/../exists\$" "$OUT" || fail "-F through kernel reads: no row with $real/sub/../exists"
	ok "-F through kernel reads (the 5.17-6.1 form): the same full path"
fi

# --exec: its child alone (a busy process opening the same files runs meanwhile), to its end.
(while :; do "$WORK" -c bt_open_b 1000 "$OK"; done) &
busy=$!
OUT=$T/out ERR=$T/err
start=$(date +%s)
RC=0
timeout 20 "$BPFTOOLS" opensnoop --exec "$WORK" -c bt_exec_kid 2 "$OK" "$MISS" >"$OUT" 2>"$ERR" || RC=$?
kill $busy 2>/dev/null
wait $busy 2>/dev/null
expect_rc 0 "opensnoop --exec"
kid=$(awk '$2 == "bt_exec_kid" { print $1; exit }' "$OUT")
[ -n "$kid" ] || fail "--exec: no row of the child"
opened "$kid" bt_exec_kid 2
[ "$(grep -vc "^$kid " "$OUT")" = 1 ] || fail "--exec: rows of other processes"
ok "--exec: only the child, which ran to its end ($(($(date +%s) - start)) s)"

# open(2) and openat2(2) as well as openat(2), where the kernel has them; -e's MODE of a
# creating open.
RC=0
"$BPFTOOLS" opensnoop -e --exec "$WORK" -c bt_kinds 1 "open:$OK" "openat2:$MISS" "creat:$T/new" \
	>"$OUT" 2>"$ERR" || RC=$?
expect_rc 0 "opensnoop -e --exec (open, openat2, creat)"
kid=$(awk '$2 == "bt_kinds" { print $1; exit }' "$OUT")
[ -n "$kid" ] || fail "no row of the open/openat2/creat workload"
pre=$(printf '%-6d %-16s' "$kid" bt_kinds)
if [ -d $tfs/events/syscalls/sys_enter_open ]; then
	grep -Eq "^$pre +[0-9]+   0 00000000 n/a  $OK\$" "$OUT" || fail "open(2): no row"
fi
if [ -d $tfs/events/syscalls/sys_enter_openat2 ]; then
	grep -Fxq "$pre   -1   2 00000000 n/a  $MISS" "$OUT" || fail "openat2(2): no failing row"
fi
grep -Eq "^$pre +[0-9]+   0 00001101 0640 $T/new\$" "$OUT" ||
	fail "-e: no row with FLAGS 00001101 (O_WRONLY|O_CREAT|O_TRUNC) and MODE 0640"
ok "open(2), openat2(2), and -e's mode of a creating open"

# --json: one object per line, the failure's errno by name.
RC=0
"$BPFTOOLS" opensnoop --json --exec "$WORK" -c bt_json_kid 1 "$OK" "$MISS" >"$OUT" 2>"$ERR" || RC=$?
expect_rc 0 "opensnoop --json"
python3 - "$OUT" "$OK" "$MISS" <<'EOF' || fail "--json"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
kid = [r for r in rows if r["comm"] == "bt_json_kid"]
ok = [r for r in kid if r["path"] == sys.argv[2]]
miss = [r for r in kid if r["path"] == sys.argv[3]]
assert len(ok) == 1 and ok[0]["fd"] >= 0 and ok[0]["err"] == 0 and ok[0]["errno"] is None, ok
assert len(miss) == 1 and miss[0]["fd"] == -1 and miss[0]["err"] == 2, miss
assert miss[0]["errno"] == "ENOENT" and miss[0]["pid"] == miss[0]["tid"], miss
assert all(set(r) >= {"time", "uid", "pid", "comm", "fd", "err", "flags", "path"} for r in rows)
EOF
ok "--json: objects that parse, fd, err and errno right"

# -d ends the trace by itself.
start=$(date +%s)
run opensnoop -d 2 -p $$
expect_rc 0 "opensnoop -d 2"
took=$(($(date +%s) - start))
[ $took -ge 2 ] && [ $took -le 6 ] || fail "-d 2 took $took s"
ok "-d 2: ended after $took s"

# Stopped in the middle of a flood of opens: the last read comes after the probes stop writing,
# so every event written was read (printed) or counted lost, none left behind in the buffer.
# On both buffers: a perf buffer's events are counted the same way.
for rb in "" 1; do
	sh -c 'while :; do : </dev/null; done' &
	opener=$!
	# 2 s from its header (a loaded machine may take longer than that to attach)
	BPFTOOLS_DEBUG=1 BPFTOOLS_NO_RINGBUF=$rb BANNER='^PID' start_tool opensnoop -p $opener
	sleep 2
	finish_tool INT
	kill $opener
	wait $opener 2>/dev/null
	expect_rc 0 "opensnoop -p (a flood of opens${rb:+, perf buffer})"
	counts=$(sed -n 's/.*debug: events: \([0-9]*\) written, \([0-9]*\) read, \([0-9]*\) lost$/\1 \2 \3/p' "$ERR")
	set -- $counts
	[ $# = 3 ] && [ "$1" -gt 1000 ] && [ "$1" = "$2" ] && ! grep -q "never read" "$ERR" ||
		fail "a flood stopped${rb:+ (perf buffer)}: events written, read, lost: ${counts:-none said}; $(grep -v debug "$ERR" | head -3)"
	rows=$(grep -c "^$opener  *sh " "$OUT")
	[ "$rows" = "$2" ] || fail "a flood stopped: $rows rows, $2 events read"
	ok "a flood stopped${rb:+ (perf buffer)}: all $1 events written were read and printed ($3 lost)"
done

# The perf buffer (kernels without ring buffers) gives the same rows.
BPFTOOLS_NO_RINGBUF=1 snoop -p @B
expect_rc 0 "opensnoop (perf buffer)"
opened $B bt_open_b $NB
ok "perf buffer"

# A full table of opens in flight: 10,400 threads of one process blocked opening a FIFO hold its
# 10,240 entries, so the opens after them (the other 160, and the writer's that lets them go) are
# not traced: every open is either a row or counted in the one line at the end. (The first run
# above, system-wide, shows that a run whose table never fills says nothing.)
BANNER="^PID" flood_opens "opens not traced" opensnoop -b 2048 -p @PID
traced=$(grep -c "^$wpid  *open_flood " "$OUT")
[ $((traced + LOST)) = $((FLOOD + 1)) ] ||
	fail "$FLOOD opens in flight: $traced rows and $LOST not traced, not $((FLOOD + 1)) in all"
[ "$(wc -l <"$ERR")" = 1 ] || fail "$FLOOD opens in flight: more than the one line on stderr"
ok "a full table of opens in flight: $traced opens traced, $LOST said not traced"

# --cgroupmap: BCC's pinned hash of cgroup ids; workload A moved into a cgroup of its own.
cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [ -n "$cg2" ] && command -v bpftool >/dev/null && mkdir -p "$T/bpffs" &&
	mount -t bpf bpf "$T/bpffs" 2>/dev/null; then
	CG=$cg2/bt-opensnoop-$$
	mkdir "$CG" || fail "cannot make a cgroup"
	id=$(stat -c %i "$CG")
	key=$(printf '%016x' "$id" | sed 's/\(..\)/\1 /g' | awk '{ for (i = NF; i > 0; i--) printf "%s ", $i }')
	bpftool map create "$T/bpffs/cgmap" type hash key 8 value 8 entries 16 name cgmap ||
		fail "bpftool map create"
	# shellcheck disable=SC2086
	bpftool map update pinned "$T/bpffs/cgmap" key hex $key value hex 0 0 0 0 0 0 0 0 ||
		fail "bpftool map update"
	HOOK='echo $A >"$CG/cgroup.procs"' snoop --cgroupmap "$T/bpffs/cgmap"
	expect_rc 0 "opensnoop --cgroupmap"
	opened $A bt_open_a $NA
	absent bt_open_b "--cgroupmap"
	rmdir "$CG"
	ok "--cgroupmap: only tasks of the cgroups in the map"

	if command -v unshare >/dev/null; then
		bpftool map create "$T/bpffs/nsmap" type hash key 8 value 4 entries 16 name nsmap ||
			fail "bpftool map create"
		HOOK='ns=$(stat -L -c %i /proc/$A/ns/mnt); key=$(printf "%016x" $ns | sed "s/\(..\)/\1 /g" | awk "{ for (i = NF; i > 0; i--) printf \"%s \", \$i }"); bpftool map update pinned $T/bpffs/nsmap key hex $key value hex 0 0 0 0' \
			A_PREFIX="unshare -m" snoop --mntnsmap "$T/bpffs/nsmap"
		expect_rc 0 "opensnoop --mntnsmap"
		opened $A bt_open_a $NA
		absent bt_open_b "--mntnsmap"
		ok "--mntnsmap: only tasks of the mount namespaces in the map"
	fi
	umount "$T/bpffs"
else
	echo "note: no cgroup v2, bpftool or bpffs here: --cgroupmap and --mntnsmap not run"
fi

# Bad input: one line on stderr naming the tool, nothing on stdout, exit 2 (usage) or 1.
check_bad() {
	want=$1
	shift
	run opensnoop "$@"
	expect_rc "$want" "opensnoop $*"
	[ -s "$OUT" ] && fail "opensnoop $* printed to stdout"
	head -1 "$ERR" | grep -q '^opensnoop: ' || fail "opensnoop $*: stderr does not name the tool"
	[ "$(grep -vc '^Usage\|^ ' "$ERR")" = 1 ] || fail "opensnoop $*: more than one error line"
}
check_bad 2 -f O_NOSUCHFLAG
check_bad 2 -f rdonly
check_bad 2 -p abc
check_bad 2 -p 0
check_bad 2 -u -1
check_bad 2 -d 0
check_bad 2 -d 1x
check_bad 2 -b 3
check_bad 2 -n 0123456789abcdef
check_bad 2 --exec
check_bad 2 -p 1 --exec true
check_bad 2 stray
check_bad 1 --exec /no/such/program
check_bad 1 --exec no-such-program-xyz
check_bad 2 --cgroupmap /no/such/map
check_bad 2 --mntnsmap "$T"
ok "bad input"
