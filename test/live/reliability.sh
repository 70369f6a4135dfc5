#!/bin/sh
# Every row of the bad-input table in docs/reliability.md, read from the table itself so the two
# cannot drift: the exit status, nothing on stdout, the first stderr line as documented ('…'
# matches any text), any further stderr lines only the usage synopsis.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints

DOC=${BT_SRC:-$(dirname "$0")/../..}/docs/reliability.md
[ -r "$DOC" ] || fail "no $DOC"

# The inputs the table names. A copy of the binary that an unprivileged user can execute.
mkdir "$T/dir" "$T/x"
printf 'hello\n' >"$T/notelf"
: >"$T/empty"
cp "$BPFTOOLS" "$T/x/bpftools"
chmod 755 "$T" "$T/x" "$T/x/bpftools"
nobody_ok=1
nobody_enters "$T/x" || nobody_ok=""
NOTELF=$T/notelf EMPTY=$T/empty DIR=$T/dir WORK=$BT_WORKLOADS/fc_work
LONG=$(head -c 5000 /dev/zero | tr '\0' a)
export NOTELF EMPTY DIR WORK

# matches ACTUAL EXPECTED: EXPECTED with its placeholders filled in, '…' matching any text.
matches() {
	A=$1 E=$2 awk 'BEGIN {
		e = ENVIRON["E"]; a = ENVIRON["A"]
		split("NOTELF EMPTY DIR WORK", ph, " ")
		for (i in ph) {
			p = "$" ph[i]; v = ENVIRON[ph[i]]
			while ((k = index(e, p)) > 0)
				e = substr(e, 1, k - 1) v substr(e, k + length(p))
		}
		n = split(e, piece, "…")
		if (n == 1) exit !(a == e)
		if (substr(a, 1, length(piece[1])) != piece[1]) exit 1
		pos = length(piece[1]) + 1
		for (i = 2; i < n; i++) {
			k = index(substr(a, pos), piece[i])
			if (!k) exit 1
			pos += k - 1 + length(piece[i])
		}
		last = piece[n]
		exit !(length(a) - pos + 1 >= length(last) && substr(a, length(a) - length(last) + 1) == last)
	}'
}

# The rows: number, run-as, command, exit, stderr, tab-separated.
awk -F'|' '/^\| [0-9]+ \|/ {
	for (i = 2; i <= 7; i++) { gsub(/^ +| +$/, "", $i) }
	cmd = $5; sub(/^`/, "", cmd); sub(/`$/, "", cmd)
	msg = $7
	if (msg ~ /^`/) { sub(/^`/, "", msg); sub(/`$/, "", msg) } else msg = ""
	printf "%s\t%s\t%s\t%s\t%s\n", $2, $4, cmd, $6, msg
}' "$DOC" >"$T/rows"
total=$(wc -l <"$T/rows")
[ "$total" -ge 45 ] || fail "docs/reliability.md has $total rows; at least 45 expected"

has_setpriv=$(command -v setpriv)
BPF_CAPS="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all,+bpf,+perfmon --ambient-caps=+bpf,+perfmon"
has_unshare=$(command -v unshare)
tab=$(printf '\t')
ran=0 skipped=0
while IFS=$tab read -r num as cmd want msg; do
	OUT=$T/out ERR=$T/err
	PID=
	case $as in
	nobody | "no tracefs" | "bpf caps")
		if [ -z "$has_setpriv" ] || { [ "$as" = "no tracefs" ] && [ -z "$has_unshare" ]; }; then
			echo "skip: row $num ($as): no setpriv/unshare"
			skipped=$((skipped + 1))
			continue
		fi
		if [ -z "$nobody_ok" ]; then
			echo "skip: row $num ($as): the user nobody (uid 65534) cannot enter $T/x (a directory above it is closed to others: TMPDIR=${TMPDIR:-/tmp})"
			skipped=$((skipped + 1))
			continue
		fi
		# those rows are about a tracefs that only root reads (its mode since 6.x)
		if [ "$as" = "bpf caps" ] && $BPF_CAPS sh -c 'ls /sys/kernel/tracing/events ||
			ls /sys/kernel/debug/tracing/events' >/dev/null 2>&1; then
			echo "skip: row $num ($as): tracefs is readable without root here"
			skipped=$((skipped + 1))
			continue
		fi
		;;
	exits)
		sleep 1 &
		PID=$!
		;;
	root) ;;
	*) fail "row $num: unknown 'as' value '$as'" ;;
	esac
	eval "set -- $cmd" || fail "row $num: cannot parse the command: $cmd"
	tool=$1
	RC=0
	case $as in
	nobody)
		timeout -k 5 30 setpriv --reuid=65534 --regid=65534 --clear-groups "$T/x/bpftools" "$@" \
			>"$OUT" 2>"$ERR" </dev/null || RC=$?
		;;
	"bpf caps")
		# shellcheck disable=SC2086
		timeout -k 5 30 $BPF_CAPS "$T/x/bpftools" "$@" >"$OUT" 2>"$ERR" </dev/null || RC=$?
		;;
	"no tracefs")
		timeout -k 5 30 unshare --mount --propagation private sh -c '
			# every instance, wherever it is: other tests (and tools that mount tracefs
			# themselves) can leave more than one, stacked on the same directory
			n=0
			while [ $n -lt 20 ] && m=$(awk "\$3 == \"tracefs\" || \$3 == \"debugfs\" { print \$2 }" /proc/self/mounts | tail -n 1) && [ -n "$m" ]; do
				umount -l "$m" 2>/dev/null
				n=$((n + 1))
			done
			grep -qE " (tracefs|debugfs) " /proc/self/mounts && exit 99
			exec setpriv --bounding-set -sys_admin "$@"' sh "$BPFTOOLS" "$@" \
			>"$OUT" 2>"$ERR" </dev/null || RC=$?
		[ "$RC" = 99 ] && fail "row $num: tracefs still mounted in the private namespace"
		;;
	*)
		timeout -k 5 30 "$BPFTOOLS" "$@" >"$OUT" 2>"$ERR" </dev/null || RC=$?
		;;
	esac
	[ -n "$PID" ] && wait "$PID"
	[ "$RC" = "$want" ] || fail "row $num: '$cmd' exited $RC, the table says $want"
	if [ -z "$msg" ]; then
		[ -s "$ERR" ] && fail "row $num: '$cmd': the table says nothing on stderr"
	else
		[ -s "$OUT" ] && fail "row $num: '$cmd' wrote to stdout"
		first=$(head -n 1 "$ERR")
		matches "$first" "$msg" || fail "row $num: '$cmd': stderr is '$first', the table says '$msg'"
		# any further lines: the usage synopsis argp prints after a usage error
		tail -n +2 "$ERR" | grep -Ev "^(Usage: $tool |Try \`$tool --help' |  +)" >"$T/extra" &&
			fail "row $num: '$cmd': more than one line: $(head -n 1 "$T/extra")"
	fi
	ran=$((ran + 1))
done <"$T/rows"
[ "$ran" -ge 45 ] || fail "only $ran rows ran"
ok "$ran of $total rows of docs/reliability.md as documented ($skipped skipped)"
