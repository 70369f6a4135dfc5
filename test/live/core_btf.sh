#!/bin/sh
# CO-RE against the small cached BTF (lib/kernel/bt_core_btf.c) relocates exactly as against the
# kernel's whole BTF: funcslower -B -U (nested task_struct reads in tp_btf programs) and
# funccount on a tracepoint, each run with BPFTOOLS_NO_CORE_BTF=1 and without, must patch
# every relocated instruction the same way (libbpf's debug lines, target type ids and access
# paths left out: those are the small BTF's own). The cache file is small and reused; a cache
# directory anyone else can write is not used.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints uprobes syscalls

W=$BT_WORKLOADS/funcslower_work
[ -x "$W" ] || fail "workload funcslower_work not built"

# relocs NAME ARGS...: the relocation results of one short run, normalized, in $T/NAME
relocs() {
	name=$1
	shift
	BPFTOOLS_DEBUG=1 BT_TIMEOUT=2 run "$@"
	grep -E 'relo #[0-9]+: (patched|substituting|poison|<)' "$ERR" |
		sed -E 's/ \[[0-9]+\]//g; s/\([0-9:]+ @/(@/' | sort >"$T/$name"
	[ "$RC" = 0 ] || [ "$RC" = 124 ] || fail "$*: exit $RC: $(grep -v '^libbpf: ' "$ERR" | head -3)"
}

check_same() { # check_same LABEL ARGS...
	label=$1
	shift
	BPFTOOLS_NO_CORE_BTF=1 relocs full "$@"
	relocs small "$@"
	[ -s "$T/full" ] || fail "$label: no relocation seen in libbpf's debug output"
	diff "$T/full" "$T/small" >"$T/diff" ||
		fail "$label: relocations differ with the small BTF: $(head -6 "$T/diff")"
	ok "$label: $(wc -l <"$T/full") relocations, the same against the small BTF"
}

check_same "funcslower -B -U" funcslower -B -U "$W:fs_work"
check_same "funccount tracepoint" funccount t:syscalls:sys_enter_getppid

# The cache: one small file per object and kernel, and a second run parses no vmlinux BTF.
ls /run/bpftools/btf/*.btf >/dev/null 2>&1 || fail "no cached BTF under /run/bpftools/btf"
for f in /run/bpftools/btf/*.btf; do
	[ "$(stat -c %s "$f")" -lt 65536 ] || fail "$f: $(stat -c %s "$f") bytes, not small"
done
if command -v strace >/dev/null; then
	timeout -s INT 1 strace -f -e trace=openat -o "$T/st" "$BPFTOOLS" funccount \
		t:syscalls:sys_enter_getppid >/dev/null 2>&1
	grep -q 'btf/vmlinux' "$T/st" && fail "funccount read /sys/kernel/btf/vmlinux with the cache in place"
	ok "a cached run reads no vmlinux BTF"
fi

# A cache directory another user could write is not trusted: the whole BTF is used instead.
chmod 0777 /run/bpftools/btf
BPFTOOLS_DEBUG=1 BT_TIMEOUT=1 run funccount t:syscalls:sys_enter_getppid
chmod 0700 /run/bpftools/btf
grep -q 'no CO-RE BTF cache' "$ERR" || fail "a world-writable cache directory was used"
grep -q '^Tracing 1 functions' "$OUT" || fail "funccount did not run without the cache"
ok "a world-writable cache directory is not used"
