#!/bin/sh
# bench/unwind.sh [BUILD_DIR [EVENTS]]: the cost per event of a user stack walked through unwind
# tables (--unwind=dwarf) against the kernel's frame-pointer walk (--unwind=fp), in the same
# run, on the same 16 frames: unwind_fp (frame pointers on) recursing 13 deep into uw_leaf,
# probed by stackcount -U (uw_leaf, 13 x uw_recurse, main, __libc_start_call_main; the tables
# also find __libc_start_main and _start). The figure is the BPF program's own run time per
# event (kernel.bpf_stats_enabled, on for the run only), so the uprobe's trap is left out.
# Prints one line: "unwind16 fp_us=X dwarf_us=Y ratio=Z"; exit 1 if either run fails.
set -u
B=${1:-build}
N=${2:-100000}
BPFTOOLS=${BPFTOOLS:-$B/bpftools}
W=$B/test/workloads/unwind_fp
[ -x "$W" ] && [ -x "$BPFTOOLS" ] || { echo "bench/unwind.sh: build first ($W, $BPFTOOLS)" >&2; exit 2; }
T=$(mktemp -d)
old=$(sysctl -n kernel.bpf_stats_enabled)
trap 'sysctl -qw kernel.bpf_stats_enabled=$old; rm -rf "$T"' EXIT
sysctl -qw kernel.bpf_stats_enabled=1

# per_event MODE: ns per run of this run's sc_uprobe program
per_event() {
	"$W" deep 13 -1 "$N" &
	wpid=$!
	"$BPFTOOLS" stackcount --unwind="$1" -U -p $wpid "$W:uw_leaf" >"$T/out" 2>"$T/err" &
	tpid=$!
	i=0
	until grep -q '^Tracing' "$T/out"; do
		i=$((i + 1))
		[ $i -lt 300 ] && kill -0 $tpid 2>/dev/null || { kill $wpid; echo "stackcount --unwind=$1 did not start" >&2; return 1; }
		sleep 0.1
	done
	kill -USR1 $wpid
	wait $wpid
	bpftool -j prog show name sc_uprobe >"$T/prog.json"
	kill -INT $tpid
	wait $tpid
	python3 - "$T/prog.json" <<'PY'
import json, sys
progs = json.load(open(sys.argv[1]))
progs = [p for p in (progs if isinstance(progs, list) else [progs]) if p.get("run_cnt")]
if progs:
    p = max(progs, key=lambda p: p["id"])  # this run's: the newest
    print(p["run_time_ns"] / p["run_cnt"])
PY
}

fp=$(per_event fp) && dw=$(per_event dwarf) || exit 1
[ -n "$fp" ] && [ -n "$dw" ] || { echo "bench/unwind.sh: no run statistics" >&2; exit 1; }
grep -q ' uw_recurse$' "$T/out" 2>/dev/null
awk -v f="$fp" -v d="$dw" 'BEGIN { printf "unwind16 fp_us=%.2f dwarf_us=%.2f ratio=%.2f\n", f / 1000, d / 1000, d / f }'
