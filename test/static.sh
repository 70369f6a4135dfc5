#!/bin/sh
# The static binary (cmake/Static.cmake) is one self-contained file: `file` calls it statically
# linked, it needs no shared library, and it runs: the registry, and features (which loads BPF
# and reads the kernel's BTF through the libbpf and libelf linked in).
BPFTOOLS=${BPFTOOLS:?BPFTOOLS must point at the static bpftools}
T=$(mktemp -d "${TMPDIR:-/tmp}/bt-static.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

file -L "$BPFTOOLS" | grep -q 'statically linked' || fail "not statically linked: $(file -L "$BPFTOOLS")"
readelf -l "$BPFTOOLS" | grep -q INTERP && fail "has a program interpreter (dynamic loader)"
readelf -d "$BPFTOOLS" 2>/dev/null | grep -q NEEDED && fail "needs shared libraries: $(readelf -d "$BPFTOOLS" | grep NEEDED)"
"$BPFTOOLS" --list >"$T/list" || fail "--list fails"
grep -q '^softirqs ' "$T/list" || fail "--list lacks softirqs"
# Dispatch by link name works for the static file too.
ln -s "$BPFTOOLS" "$T/softirqs"
"$T/softirqs" --help | grep -q '^Usage: softirqs ' || fail "a link named softirqs does not run softirqs"
"$BPFTOOLS" --version | grep -q 'libbpf' || fail "--version"
if [ "$(id -u)" = 0 ]; then
	"$BPFTOOLS" features >"$T/f" 2>"$T/err" || fail "features fails: $(cat "$T/err")"
	grep -Eq '^BTF +yes' "$T/f" || grep -Eq '^BTF +no' "$T/f" || fail "features prints no BTF line"
	grep -Eq '^softirqs +(yes|partly|no)' "$T/f" || fail "features has no verdict for softirqs"
fi
echo "ok: static binary: $(stat -c %s "$BPFTOOLS") bytes, no interpreter, no NEEDED, runs"
