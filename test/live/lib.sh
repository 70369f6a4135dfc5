# Shared helpers for the live tests (sourced). A live test runs the real binary on this
# machine's kernel and asserts on what it printed. Exit 0 = pass, 1 = fail, 77 = skipped
# because the kernel lacks a facility (printed as the reason; ctest shows it).

BPFTOOLS=${BPFTOOLS:?BPFTOOLS must point at the bpftools binary}
BT_WORKLOADS=${BT_WORKLOADS:-$(dirname "$BPFTOOLS")/test/workloads}
T=$(mktemp -d "${TMPDIR:-/tmp}/bt-live.XXXXXX")
trap 'rm -rf "$T"' EXIT

skip() {
	echo "SKIP: $*"
	exit 77
}

fail() {
	echo "FAIL: $*" >&2
	[ -n "${OUT:-}" ] && [ -f "$OUT" ] && { echo "--- output:" >&2; cat "$OUT" >&2; }
	[ -n "${ERR:-}" ] && [ -s "$ERR" ] && { echo "--- stderr:" >&2; cat "$ERR" >&2; }
	exit 1
}

ok() {
	echo "ok: $*"
}

# require FACILITY...: skip unless the kernel (and we) have it.
require() {
	for f in "$@"; do
		case $f in
		root) [ "$(id -u)" = 0 ] || skip "needs root" ;;
		btf) [ -r /sys/kernel/btf/vmlinux ] || skip "kernel has no BTF (/sys/kernel/btf/vmlinux)" ;;
		tracepoints)
			[ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ] ||
				mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null ||
				skip "no tracefs: kernel built without tracepoints"
			;;
		uprobes) [ -e /sys/bus/event_source/devices/uprobe/type ] || skip "kernel has no uprobes (no uprobe PMU)" ;;
		kprobes) [ -e /sys/bus/event_source/devices/kprobe/type ] || skip "kernel built without kprobes (no kprobe PMU)" ;;
		*) fail "unknown facility '$f' in require" ;;
		esac
	done
}

# run ARGS...: run bpftools with a timeout, output in $OUT, stderr in $ERR, status in $RC.
run() {
	OUT=$T/out ERR=$T/err
	RC=0
	timeout -s INT -k 5 "${BT_TIMEOUT:-30}" "$BPFTOOLS" "$@" >"$OUT" 2>"$ERR" || RC=$?
}

expect_rc() {
	[ "$RC" = "$1" ] || fail "expected exit $1, got $RC: bpftools $2"
}

# expect_line REGEX: some output line matches the extended regex.
expect_line() {
	grep -Eq -- "$1" "$OUT" || fail "no output line matches /$1/"
}

# value_of NAME: the number in the row "NAME   123" of a two-column table.
value_of() {
	awk -v n="$1" '$1 == n { v = $NF } END { print v + 0 }' "$OUT"
}
