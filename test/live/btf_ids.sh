#!/bin/sh
# tp_btf without the kernel's whole BTF (lib/kernel/bt_btf_ids.c): the ids of btf_trace_* typedefs
# found by the streaming scan (cache removed) and read back from the cache equal what bpftool
# finds in the whole BTF; the programs loaded by those ids count events; and a warm run of
# each tp_btf tool reads no byte of /sys/kernel/btf/vmlinux and libbpf loads no kernel BTF.
. "$(dirname "$0")/lib.sh"
require root btf tracepoints

CACHE=/run/bpftools/btf

# ids_of LABEL: "NAME ID" per BTF id line of bpftools' debug output, sorted, in $T/LABEL
ids_of() {
	sed -nE 's/.*debug: BTF id of (btf_trace_[a-z_0-9]+): (-?[0-9]+) .*/\1 \2/p' "$ERR" |
		sort -u >"$T/$1"
}

# The cold run: no cached answer, so the scan reads the raw file.
rm -f "$CACHE"/*-btf_trace_softirq_entry.id "$CACHE"/*-btf_trace_softirq_exit.id
BPFTOOLS_DEBUG=1 BT_TIMEOUT=10 run softirqs 1 1
expect_rc 0 "softirqs 1 1 (cold)"
grep -q 'BTF id of btf_trace_softirq_entry: [0-9]* (read from /sys/kernel/btf/vmlinux)' "$ERR" ||
	fail "the cold run did not scan the BTF for btf_trace_softirq_entry"
ids_of cold
grep -q '^btf_trace_softirq_entry [1-9]' "$T/cold" || fail "no id for btf_trace_softirq_entry"
grep -q "skipped loading" "$ERR" && ! grep -q "prog 'softirq_entry_raw': skipped loading" "$ERR" &&
	fail "softirqs did not choose tp_btf"
ls "$CACHE"/*-btf_trace_softirq_entry.id >/dev/null 2>&1 || fail "no cached id written"
ok "cold: $(tr '\n' ' ' <"$T/cold")"

# Warm: the same ids, from the cache, and libbpf reads no kernel BTF either.
BPFTOOLS_DEBUG=1 BT_TIMEOUT=10 run softirqs 1 1
expect_rc 0 "softirqs 1 1 (warm)"
grep -q 'BTF id of btf_trace_softirq_entry: [0-9]* (cached)' "$ERR" ||
	fail "the warm run did not use the cached id"
ids_of warm
diff "$T/cold" "$T/warm" >/dev/null || fail "cached ids differ: $(cat "$T/cold") vs $(cat "$T/warm")"
grep -q "loading kernel BTF '/sys/kernel/btf/vmlinux'" "$ERR" &&
	fail "libbpf loaded the whole vmlinux BTF in a warm run"
# the programs loaded by those ids ran: the timer softirq fires every tick
awk 'NR > 3 && $2 > 0 { n++ } END { exit !n }' "$OUT" || fail "softirqs counted nothing"
ok "warm: the same ids from the cache, events counted, no kernel BTF loaded by libbpf"

# The ids against the whole BTF, as bpftool (libbpf's parser) reads it.
if command -v bpftool >/dev/null; then
	bpftool btf dump file /sys/kernel/btf/vmlinux |
		sed -nE "s/^\[([0-9]+)\] TYPEDEF '(btf_trace_softirq_e[a-z]+)'.*/\2 \1/p" |
		sort >"$T/bpftool"
	diff "$T/bpftool" "$T/warm" >"$T/diff" || fail "ids differ from bpftool's: $(cat "$T/diff")"
	ok "the ids are bpftool's: $(tr '\n' ' ' <"$T/bpftool")"
fi

command -v strace >/dev/null || skip "no strace: the trial loads and read counts are not checked"

# A warm run loads its two tp_btf programs and nothing else of that type: whether tp_btf loads
# for an event was noted per kernel by the first run (BT_BTF_CACHE_DIR/...loads).
timeout -s INT -k 5 20 strace -f --seccomp-bpf -e trace=bpf -o "$T/st" "$BPFTOOLS" softirqs 1 1 \
	>/dev/null 2>"$T/err" || fail "softirqs under strace: $(head -3 "$T/err")"
n=$(grep -c 'prog_type=BPF_PROG_TYPE_TRACING' "$T/st")
[ "$n" = 2 ] || fail "a warm softirqs made $n BPF_PROG_TYPE_TRACING loads, not its 2 programs"
ok "a warm run makes no trial tp_btf load"

# The unwinder's probe object (--unwind=auto: does this kernel's verifier take the walker?) is
# loaded once per kernel and build: a success is noted in BT_BTF_CACHE_DIR (bt_unwind_probe_*).
probe_loads() { # $1: label; the rest: env for the run
	label=$1
	shift
	env "$@" timeout -s INT -k 5 20 strace -f --seccomp-bpf -e trace=bpf -o "$T/st" \
		"$BPFTOOLS" offcputime -p 1 1 >/dev/null 2>"$T/err" ||
		fail "offcputime ($label) under strace: $(head -3 "$T/err")"
	grep -c 'prog_name="bt_unwind_probe"' "$T/st"
}
rm -f /run/bpftools/btf/*-bt_unwind_probe_*.loads
[ "$(probe_loads cold)" = 1 ] || fail "a cold offcputime did not load the unwinder's probe"
ls /run/bpftools/btf/*-bt_unwind_probe_*.loads >/dev/null 2>&1 ||
	fail "the probe's success was not noted"
[ "$(probe_loads warm)" = 0 ] || fail "a warm offcputime loaded the unwinder's probe again"
[ "$(probe_loads no-cache BPFTOOLS_NO_BTF_IDS_CACHE=1)" = 1 ] ||
	fail "BPFTOOLS_NO_BTF_IDS_CACHE=1 did not load the unwinder's probe"
ok "the unwinder's probe loads once per kernel (cold 1, warm 0)"

# A warm run of each tp_btf tool reads nothing of the raw BTF (strace -y names each read's file;
# --seccomp-bpf stops only on the traced calls, so the symbolizer's reads run at full speed).
for tool in "biolatency 1 1" "softirqs 1 1" "hardirqs 1 1" "offcputime 1" "offwaketime 1"; do
	for pass in warmup measured; do
		# shellcheck disable=SC2086 # $tool: the command and its arguments
		timeout -s INT -k 5 20 strace -f -y --seccomp-bpf -P /sys/kernel/btf/vmlinux \
			-e trace=openat,read,pread64 -o "$T/st" "$BPFTOOLS" $tool >/dev/null 2>"$T/err" ||
			fail "$tool ($pass): $(head -3 "$T/err")"
	done
	bytes=$(awk '/btf\/vmlinux>/ && /^[0-9]+ +(read|pread64)\(/ { n += $NF } END { print n + 0 }' \
		"$T/st")
	[ "$bytes" -le 4096 ] || fail "$tool: a warm run read $bytes bytes of /sys/kernel/btf/vmlinux"
	ok "$tool: a warm run read $bytes bytes of /sys/kernel/btf/vmlinux"
done
