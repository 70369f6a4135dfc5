// SPDX-License-Identifier: GPL-2.0
/*
 * hardirqs: time (or count) hard interrupt handlers by action name, from irq_handler_entry and
 * irq_handler_exit.
 *
 * Why per-CPU values without atomics are safe: the two tracepoints fire in hardirq context
 * around each handler, with interrupts disabled (handlers run with IRQs off; the kernel warns
 * and disables them again if one enables them), and tp_btf/raw_tp programs run with preemption
 * disabled. A program here therefore runs to completion on its CPU before any other program
 * touching these maps can run there, so each CPU's copy has one writer at a time. The start
 * slot keeps the action it timed: a handler that enabled interrupts and let another one nest
 * makes the outer exit mismatch, which drops that one sample rather than mis-timing it.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bt_common.bpf.h"
#include "hardirqs.h"

const volatile bool count_only = false; /* -C */
const volatile bool want_dist = false;	/* -d */
const volatile __u64 hist_unit_ns = 1000;

struct start {
	__u64 ts;
	const void *action;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct start);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, HARDIRQ_MAX_NAMES);
	__type(key, struct hardirq_key);
	__type(value, struct hardirq_total);
} totals SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, HARDIRQ_MAX_NAMES); /* 1 without -d, set before load */
	__type(key, struct hardirq_key);
	__type(value, struct hardirq_dist);
} dists SEC(".maps");

/* Names that did not fit in the maps. */
__u64 lost;

/* Zeroed initial value, too big for the BPF stack. */
struct hardirq_dist zero_dist;

static __always_inline void *get_or_add(void *map, struct hardirq_key *key, const void *zero)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	v = bpf_map_lookup_elem(map, key);
	if (!v)
		__sync_fetch_and_add(&lost, 1);
	return v;
}

static __always_inline int on_entry(struct irqaction *action)
{
	__u32 zero = 0;
	struct start *s;

	if (count_only || bt_filtered_out())
		return 0;
	s = bpf_map_lookup_elem(&starts, &zero);
	if (s) {
		s->action = action;
		s->ts = bpf_ktime_get_ns();
	}
	return 0;
}

static __always_inline int on_exit(struct irqaction *action, int ret)
{
	struct hardirq_total zero_total = {}, *t;
	struct hardirq_key key = {};
	struct hardirq_dist *d;
	__u64 delta = 0;
	__u32 zero = 0;
	struct start *s;

	if (bt_filtered_out())
		return 0;
	if (!count_only) {
		s = bpf_map_lookup_elem(&starts, &zero);
		if (!s || !s->ts || s->action != action)
			return 0; /* missed the entry: tracing began inside the handler */
		delta = bpf_ktime_get_ns() - s->ts;
		s->ts = 0;
	}
	/* BCC counts only handlers that claimed the interrupt (shared lines call every one) */
	if (ret == IRQ_NONE)
		return 0;
	bpf_probe_read_kernel_str(key.name, sizeof(key.name), BPF_CORE_READ(action, name));
	t = get_or_add(&totals, &key, &zero_total);
	if (!t)
		return 0;
	t->count++;
	t->time_ns += delta;
	if (want_dist) {
		__u32 slot = bt_log2_slot(delta / hist_unit_ns);

		d = get_or_add(&dists, &key, &zero_dist);
		if (d && slot < HARDIRQ_SLOTS)
			d->slots[slot]++;
	}
	return 0;
}

SEC("tp_btf/irq_handler_entry")
int BPF_PROG(irq_entry_btf, int irq, struct irqaction *action)
{
	return on_entry(action);
}

SEC("tp_btf/irq_handler_exit")
int BPF_PROG(irq_exit_btf, int irq, struct irqaction *action, int ret)
{
	return on_exit(action, ret);
}

SEC("raw_tp/irq_handler_entry")
int BPF_PROG(irq_entry_raw, int irq, struct irqaction *action)
{
	return on_entry(action);
}

SEC("raw_tp/irq_handler_exit")
int BPF_PROG(irq_exit_raw, int irq, struct irqaction *action, int ret)
{
	return on_exit(action, ret);
}

char LICENSE[] SEC("license") = "GPL";
