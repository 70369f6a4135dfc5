// SPDX-License-Identifier: GPL-2.0
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bt_common.bpf.h"
#include "softirqs.h"

const volatile bool count_only = false; /* -C: count events, no timing */
const volatile bool want_dist = false;	/* -d */
const volatile __u64 hist_unit_ns = 1000;

/*
 * Why per-CPU values without atomics are safe here: these programs run only from the
 * softirq_entry/exit tracepoints, i.e. in softirq context on the CPU that runs the softirq,
 * with preemption disabled (tracepoints call tp_btf/raw_tp programs under preempt-off), so they
 * cannot migrate or be preempted by another task; softirqs do not nest on a CPU, and a hardirq
 * that interrupts them runs no softirq (irq_exit defers it while in_interrupt()). Nothing else
 * writes these maps. So each CPU's copy has exactly one writer at a time: one start slot per CPU
 * is enough, and the counters need no lock prefix.
 *
 * The stats are running totals, never reset here or in user space: lib/output/bt_summary reports
 * what each interval added, so no event is lost between a read and a clear.
 */
struct start {
	__u64 ts;
	__u32 vec;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct start);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SOFTIRQ_VECS);
	__type(key, __u32);
	__type(value, struct softirq_stat);
} stats SEC(".maps");

static __always_inline int on_entry(unsigned int vec)
{
	__u32 zero = 0;
	struct start *s;

	if (vec >= SOFTIRQ_VECS || bt_filtered_out())
		return 0;
	if (count_only) {
		struct softirq_stat *st = bpf_map_lookup_elem(&stats, &vec);

		if (st) {
			st->total_ns++;
			st->count++;
		}
		return 0;
	}
	s = bpf_map_lookup_elem(&starts, &zero);
	if (s) {
		s->ts = bpf_ktime_get_ns();
		s->vec = vec;
	}
	return 0;
}

static __always_inline int on_exit(unsigned int vec)
{
	struct softirq_stat *st;
	__u32 zero = 0;
	struct start *s;
	__u64 delta;

	if (count_only || vec >= SOFTIRQ_VECS || bt_filtered_out())
		return 0;
	s = bpf_map_lookup_elem(&starts, &zero);
	if (!s || !s->ts || s->vec != vec)
		return 0; /* missed the entry (tracing started inside the softirq) */
	delta = bpf_ktime_get_ns() - s->ts;
	s->ts = 0;
	st = bpf_map_lookup_elem(&stats, &vec);
	if (!st)
		return 0;
	st->total_ns += delta;
	st->count++;
	if (want_dist) {
		__u32 slot = bt_log2_slot(delta / hist_unit_ns);

		if (slot < SOFTIRQ_SLOTS)
			st->slots[slot]++;
	}
	return 0;
}

SEC("tp_btf/softirq_entry")
int BPF_PROG(softirq_entry_btf, unsigned int vec)
{
	return on_entry(vec);
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(softirq_exit_btf, unsigned int vec)
{
	return on_exit(vec);
}

SEC("raw_tp/softirq_entry")
int BPF_PROG(softirq_entry_raw, unsigned int vec)
{
	return on_entry(vec);
}

SEC("raw_tp/softirq_exit")
int BPF_PROG(softirq_exit_raw, unsigned int vec)
{
	return on_exit(vec);
}

char LICENSE[] SEC("license") = "GPL";
