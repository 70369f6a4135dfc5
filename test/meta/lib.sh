# Shared helpers for the meta tests (sourced): checks derived from the registry.
BPFTOOLS=${BPFTOOLS:?BPFTOOLS must point at the bpftools binary}
BT_SRC=${BT_SRC:?BT_SRC must point at the source tree}
T=$(mktemp -d "${TMPDIR:-/tmp}/bt-meta.XXXXXX")
trap 'rm -rf "$T"' EXIT
FAILED=0

bad() {
	echo "FAIL: $*" >&2
	FAILED=1
}

commands() {
	"$BPFTOOLS" --list | awk '{ print $1 }'
}

# The long options of a command, from its own --help (the argp table is the source).
long_options() {
	"$BPFTOOLS" "$1" --help | grep -oE -- '--[a-z][a-z0-9_-]*' | sort -u |
		grep -vxE -- '--(help|usage)'
}

finish() {
	[ "$FAILED" = 0 ] && echo "ok: $1"
	exit "$FAILED"
}
