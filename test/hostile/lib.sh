# Shared helpers of the hostile tier (sourced; docs/security.md). A hostile test lays one trap
# of issue 33's list for the tracer, as a traced process could without any privilege: as the
# user nobody on the host, or as nobody inside a "container" built here (its own mount and PID
# namespaces, pivot_root into a tmpfs with the host's /usr read-only and a /tmp of its own).
# It then runs every stack tool that applies, and the exporter's profile, against it, each under
# a guard (the test kills what outlives its bound, so a regression fails, never hangs the suite),
# and checks of each run: it ended within its bound, exit 0 or one line on stderr, peak RSS
# within its budget, no host secret and no raw control byte in what it wrote, and the victim's
# own frames named where they should be. Failures are collected; the test fails at the end
# naming each (hdone), so one run lists every tool a trap defeats.
# Exit 0 = pass, 1 = fail, 77 = this kernel or machine lacks what the trap needs (printed).
. "$(dirname "$0")/../live/lib.sh"
HDIR=$(cd "$(dirname "$0")" && pwd)

require root tracepoints syscalls
for c in cc unshare setpriv pivot_root mkfifo python3 curl; do
	command -v $c >/dev/null || skip "no $c on this machine"
done
# the system's python: a version manager's shim (pyenv) costs seconds a call on a loaded machine
PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
chmod 755 "$T" # the victims run as nobody, from here
nobody_enters "$T" || skip "the user nobody (uid 65534) cannot enter $T: a directory above it is closed to others (TMPDIR=${TMPDIR:-/tmp})"

# What a run may take (seconds): to print its banner (loading BTF and attaching on a loaded
# 2-core machine), to collect once started, and to exit once told to (issue 33: within 1 s
# of SIGINT/SIGTERM; the slack is for a loaded machine, not for a blocked call).
H_START=${HOSTILE_START:-20}
H_DUR=${HOSTILE_DUR:-1}
H_STOP=${HOSTILE_STOP:-2}
# RSS budget (KiB) of a stack tool's run on a victim: what it needs for its tables and the
# victim's files, far below what an unbounded read takes (GiBs).
H_RSS=${HOSTILE_RSS:-196608}
# the secret planted in root-only host files: never in any output
SECRET=HOSTSECRET_c0ffee
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups --"

: >"$T/failures"
VPIDS=""
hcleanup() {
	for p in $VPIDS; do
		kill -KILL "$p" 2>/dev/null
	done
	for p in $VPIDS; do
		wait "$p" 2>/dev/null
		# a victim's perf map on the host (nobody's): it would trap the next machine-wide tool
		[ "$(stat -c %u "/tmp/perf-$p.map" 2>/dev/null)" = 65534 ] && rm -f "/tmp/perf-$p.map"
	done
	rm -rf "$T"
}
trap hcleanup EXIT
trap 'exit 1' INT TERM HUP
# and a victim that outlives a test killed outright (ctest's timeout) ends by itself
H_LIFE=${HOSTILE_VICTIM_MS:-300000}

# hfail MESSAGE: one more failure; the test goes on with the next run.
hfail() {
	echo "FAIL: $*"
	echo "$*" >>"$T/failures"
}

# hdone: the test's end: exit 1 listing every failure, else 0.
hdone() {
	if [ -s "$T/failures" ]; then
		echo "$(wc -l <"$T/failures") failure(s):" >&2
		sed 's/^/  /' "$T/failures" >&2
		exit 1
	fi
	echo "ok: every run held"
	exit 0
}

# build_victim: $T/victim and $T/libhv.so from victim.c, readable by nobody.
build_victim() {
	cc -O1 -g -fno-omit-frame-pointer -o "$T/victim" "$HDIR/victim.c" -ldl ||
		fail "cannot build the victim"
	cc -O1 -g -fno-omit-frame-pointer -shared -fPIC -DHV_LIB -o "$T/libhv.so" "$HDIR/victim.c" ||
		fail "cannot build the victim's library"
	chmod 755 "$T/victim" "$T/libhv.so"
}

# wait_ready OUTFILE PID: the victim's "ready NSPID STUB" line; sets VNSPID and VSTUB.
wait_ready() {
	i=0
	until grep -q '^ready ' "$1" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 "$2" 2>/dev/null; then
			cat "$1.err" 2>/dev/null
			fail "the victim did not start"
		fi
		sleep 0.05
	done
	VNSPID=$(awk '/^ready/ { print $2 }' "$1")
	VSTUB=$(awk '/^ready/ { print $3 }' "$1")
}

# victim NAME [ARGS...]: the victim ($VBIN, default $T/victim) on the host, as nobody, in $T
# (its cwd); its pid in VPID
# (and $NAME.out/$NAME.out.err hold what it said).
victim() {
	n=$1
	shift
	# shellcheck disable=SC2086
	(cd "$T" && exec $NOBODY "${VBIN:-$T/victim}" -x "$H_LIFE" "$@") >"$T/$n.out" 2>"$T/$n.out.err" &
	VPID=$!
	VPIDS="$VPIDS $VPID"
	wait_ready "$T/$n.out" "$VPID"
}

# container NAME SETUP [ARGS...]: the victim as nobody in a container of its own: new mount
# and PID namespaces, root a tmpfs (pivot_root, the host's root unmounted) holding /hv (the
# victim, its library), the host's /usr read-only (and /bin, /lib... as the host's links to
# it), /dev/null, /proc of its namespace, and /tmp (1777) unless SETUP, shell code run as root
# in the new root before the pivot ($R: its host path, $T as here), made it something else.
# Its host pid in VPID, its own in VNSPID.
container() {
	n=$1 setup=$2
	shift 2
	mkdir -p "$T/$n.root"
	unshare --mount --pid --fork --propagation private sh -c '
		set -e
		R=$1 T=$2 setup=$3
		shift 3
		mount -t tmpfs -o mode=755 hv-root "$R"
		cd "$R"
		mkdir usr proc dev hv .old
		for l in bin sbin lib lib64; do
			[ -L /$l ] && ln -s "$(readlink /$l)" $l
		done
		mount --rbind /usr usr
		mount -o remount,bind,ro usr
		touch dev/null
		mount --bind /dev/null dev/null
		cp "$T/victim" "$T/libhv.so" hv/
		eval "$setup"
		[ -e tmp ] || [ -L tmp ] || mkdir -m 1777 tmp
		cd "$R"
		pivot_root . .old
		cd /
		mount -t proc proc /proc
		umount -l /.old
		rmdir /.old
		exec setpriv --reuid=65534 --regid=65534 --clear-groups -- /hv/victim "$@"
	' sh "$T/$n.root" "$T" "$setup" -x "$H_LIFE" "$@" >"$T/$n.out" 2>"$T/$n.out.err" &
	upid=$!
	VPIDS="$VPIDS $upid"
	VPID=
	i=0
	while [ -z "$VPID" ] && [ $i -le 100 ]; do
		VPID=$(cat /proc/$upid/task/$upid/children 2>/dev/null | awk '{ print $1 }')
		i=$((i + 1))
		sleep 0.05
	done
	if [ -z "$VPID" ]; then
		# a victim told to exit at once may have come and gone
		grep -q '^ready ' "$T/$n.out" || fail "container $n did not start: $(cat "$T/$n.out.err")"
		VPID=$upid
	fi
	VPIDS="$VPIDS $VPID"
	wait_ready "$T/$n.out" "$VPID"
	# (a victim told to exit soon may be gone already)
	pidns=$(readlink /proc/$VPID/ns/pid) mntns=$(readlink /proc/$VPID/ns/mnt)
	uid=$(stat -c %u /proc/$VPID 2>/dev/null)
	if [ -n "$uid" ]; then
		[ "$pidns" != "$(readlink /proc/self/ns/pid)" ] ||
			fail "container $n: not in a PID namespace of its own"
		[ "$mntns" != "$(readlink /proc/self/ns/mnt)" ] ||
			fail "container $n: not in a mount namespace of its own"
		[ "$uid" = 65534 ] || fail "container $n: the victim is not nobody"
	fi
}

# peak_of PID: the process's peak RSS (KiB), 0 once it is gone.
peak_of() {
	awk '/^VmHWM:/ { print $2; f = 1 } END { if (!f) print 0 }' /proc/"$1"/status 2>/dev/null ||
		echo 0
}

# watch_for SECONDS [FILES REGEX]: wait SECONDS (fractions allowed) while $BPID lives, or until
# one of FILES (a list) has a line matching REGEX; keep its peak RSS in $PEAK and its peak
# descriptor count in $PEAKFD ($H_FDS set), and kill it (failing the run) once over $BUDGET
# KiB. Returns 0 when REGEX matched, 1 when the process ended, 2 when the time ran out.
watch_for() {
	echo "$PEAK $PEAKFD" >"$T/watch"
	# shellcheck disable=SC2086
	if [ -n "${2:-}" ]; then
		"$PY" "$HDIR/watch.py" "$BPID" "$BUDGET" "$1" "$T/watch" "$3" $2
	else
		"$PY" "$HDIR/watch.py" "$BPID" "$BUDGET" "$1" "$T/watch"
	fi
	w=$?
	read -r PEAK PEAKFD <"$T/watch"
	if [ $w = 3 ]; then
		OVER=1
		return 1
	fi
	return $w
}

# hrun LABEL EXPECT [--] ARGS...: bpftools ARGS in the background ($HPREFIX before it: e.g. a
# setpriv dropping a capability), as a user would: wait for its banner (Tracing, Sampling, or
# stacksnoop's header), let it collect $H_DUR s, Ctrl-C it (SIG$HSIG: INT by default); it must
# be gone $H_STOP s later.
# Then the checks of the tier (see the top); EXPECT, an extended regex, must match some line
# of its output (the victim's own frames: proof that it was traced and named, not just left
# out), "" for none. $HAFTER: shell code run once the banner is out (a victim that starts
# then). Output in $OUT, stderr in $ERR, status in $RC, peak RSS in $PEAK. $BUDGET (KiB;
# default $H_RSS).
hrun() {
	label=$1 expect=$2
	shift 2
	[ "$1" = -- ] && shift
	OUT=$T/out ERR=$T/err
	: >"$OUT"
	: >"$ERR"
	BUDGET=${BUDGET:-$H_RSS} PEAK=0 PEAKFD=0 OVER=0
	# shellcheck disable=SC2086
	${HPREFIX:-} "$BPFTOOLS" "$@" >"$OUT" 2>"$ERR" &
	BPID=$!
	t0=$(date +%s%N)
	phase="starting"
	watch_for "$H_START" "$OUT $ERR" '^(Tracing|Sampling|TIME\(s\))|"Tracing|"Sampling'
	case $? in
	0)
		phase="tracing"
		eval "${HAFTER:-}" # what the trap does once the tool runs
		watch_for "$H_DUR" # let it collect
		;;
	1) phase="exited" ;;
	2) hfail "$label: no banner within $H_START s (blocked before it printed anything?)" ;;
	esac
	stopped=""
	if kill -0 "$BPID" 2>/dev/null; then
		kill -"${HSIG:-INT}" "$BPID" 2>/dev/null
		watch_for "$H_STOP"
		if kill -0 "$BPID" 2>/dev/null && [ $OVER = 0 ]; then
			# where it is stuck: the kernel function it waits in (fifo_open...), its file
			wchan=$(cat /proc/"$BPID"/wchan 2>/dev/null)
			kill -KILL "$BPID" 2>/dev/null
			stopped="killed"
			hfail "$label: still running $H_STOP s after SIG${HSIG:-INT} ($phase; waiting in ${wchan:-?}), killed"
		fi
	fi
	RC=0
	wait "$BPID" 2>/dev/null || RC=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ $OVER = 1 ] && hfail "$label: peak RSS over its budget of $BUDGET KiB ($PEAK KiB seen), killed"
	if [ -z "$stopped" ] && [ $OVER = 0 ]; then
		if [ "$RC" != 0 ]; then
			[ "$(wc -l <"$ERR")" = 1 ] ||
				hfail "$label: exit $RC with $(wc -l <"$ERR") lines on stderr (one clear line expected): $(head -c 300 "$ERR" | tr -c '[:print:]\n' '?')"
		elif [ -n "$expect" ] && ! grep -Eq -- "$expect" "$OUT"; then
			hfail "$label: exit 0, but no line of its output matches /$expect/ (the victim not traced or not named): $(head -c 300 "$ERR" | tr -c '[:print:]\n' '?')"
		fi
	fi
	check_leaks "$label" "$OUT" "$ERR"
	echo "run: $label: exit $RC, $phase, ${ms} ms, peak RSS $PEAK KiB${H_FDS:+, peak fds $PEAKFD}"
	unset BUDGET HSIG
}

# check_leaks LABEL FILE...: no host secret, no raw control byte, nothing but UTF-8 in any
# FILE (leaks.py).
check_leaks() {
	l=$1
	shift
	"$PY" "$HDIR/leaks.py" "$SECRET" "$@" >"$T/leaks" || while read -r m; do
		hfail "$l: $m"
	done <"$T/leaks"
}

# The stack tools on PID (their -p), EXPECT as hrun's; $SC_EXPECT instead for stackcount,
# whose -p prints no comm line (-P or not) where EXPECT is the comm. funcslower times the
# victim's 2 ms sleeps (-u 500).
stack_tools() {
	pid=$1 expect=$2
	hrun "profile -p" "$expect" profile -F 199 -p "$pid"
	hrun "offcputime -p" "$expect" offcputime -p "$pid"
	hrun "stackcount -P -p" "${SC_EXPECT:-$expect}" stackcount -P -p "$pid" t:syscalls:sys_enter_clock_nanosleep
	hrun "stacksnoop -v -U -p" "$expect" stacksnoop -v -U -p "$pid" t:syscalls:sys_enter_clock_nanosleep
	hrun "funcslower -U -p" "$expect" funcslower -U -u 500 -p "$pid" syscall:clock_nanosleep
}

# exporter_profile LABEL [SECONDS]: the exporter (one light collector) on a free loopback port,
# asked for /debug/pprof/profile?seconds=SECONDS (default 1, the whole machine: every victim
# of the test), then for a second one: each must answer within its seconds + 10 (the profile's
# deadline) + 3: 200, or 503 past the deadline (never 429, never silence), the profile free of secrets and control bytes; then
# /metrics, in the text format and free of them too ($H_COLLECT: the collector, softirqs); then
# SIGTERM ends the exporter within $H_STOP s.
exporter_profile() {
	label=$1 secs=${2:-1}
	port=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	OUT=$T/exp.out ERR=$T/exp.err
	# shellcheck disable=SC2086
	${HPREFIX:-} "$BPFTOOLS" exporter --collect ${H_COLLECT:-softirqs} --listen 127.0.0.1:"$port" >"$OUT" 2>"$ERR" &
	BPID=$!
	BUDGET=${BUDGET:-$H_RSS} PEAK=0 PEAKFD=0 OVER=0
	i=0
	until curl -s -o /dev/null -m 2 "http://127.0.0.1:$port/metrics"; do
		i=$((i + 1))
		if [ $i -gt $((H_START * 5)) ] || ! kill -0 $BPID 2>/dev/null; then
			hfail "$label: the exporter did not answer within $H_START s: $(head -c 300 "$ERR")"
			kill -KILL $BPID 2>/dev/null
			wait $BPID
			return
		fi
		sleep 0.2
	done
	for k in 1 2; do
		code=$(curl -s -o "$T/prof.pb.gz" -w '%{http_code}' -m $((secs + 13)) \
			"http://127.0.0.1:$port/debug/pprof/profile?seconds=$secs")
		case $code in
		200)
			gzip -dc "$T/prof.pb.gz" >"$T/prof.pb" 2>/dev/null ||
				hfail "$label: exporter profile $k is not gzip"
			"$PY" "$HDIR/pprof_strings.py" "$T/prof.pb" >"$T/prof.strings" 2>/dev/null &&
				check_leaks "$label: exporter profile $k (its strings)" "$T/prof.strings"
			;;
		503) ;; # its deadline passed (a machine too loaded to name every process in time)
		*) hfail "$label: exporter /debug/pprof/profile?seconds=$secs (request $k): HTTP ${code:-none} (000: no answer within $((secs + 13)) s, its deadline and 3 s)" ;;
		esac
	done
	# the metrics too: a traced name in a label must not break the text format
	curl -s -m 10 -o "$T/metrics" "http://127.0.0.1:$port/metrics" ||
		hfail "$label: exporter /metrics did not answer"
	check_leaks "$label: exporter /metrics" "$T/metrics"
	bad=$(grep -cvE '^(#.*|[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? [-+0-9.eEInfaN]+( [0-9]+)?)$' "$T/metrics")
	[ "$bad" = 0 ] || hfail "$label: exporter /metrics: $bad lines not in the text format"
	r=$(peak_of $BPID)
	[ "$r" -gt "$BUDGET" ] && hfail "$label: exporter: peak RSS $r KiB, over $BUDGET KiB"
	kill -TERM $BPID
	watch_for "$H_STOP"
	if kill -0 $BPID 2>/dev/null; then
		kill -KILL $BPID
		hfail "$label: exporter still running $H_STOP s after SIGTERM, killed"
	fi
	wait $BPID 2>/dev/null
	echo "run: $label: exporter profile x2, last HTTP ${code:-none}"
	unset BUDGET HSIG
}
