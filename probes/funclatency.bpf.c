// SPDX-License-Identifier: GPL-2.0
/*
 * funclatency: the time between a function's entry and its return, as a log2 histogram built
 * in the kernel. One generic program per mechanism and direction (BT_ATTACH_PROGS); the
 * target index in the attach cookie says which function fired and whether it is the entry
 * (index < nfuncs) or the return (index - nfuncs). Nothing reads arguments or return values,
 * so one fentry/fexit program verifies for every function signature.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bt_attach.bpf.h"
#include "bt_common.bpf.h"
#include "bt_inflight.bpf.h"
#include "bt_thread.bpf.h"
#include "funclatency.h"

const volatile __u32 nfuncs = 1;      /* entry targets; returns follow them */
const volatile __u32 level = 0;	      /* -l: 0 = innermost calls only, else outermost levels */
const volatile __u64 unit_div = 1;    /* ns per histogram unit: 1, 1000, 1000000 */
const volatile bool key_func = false; /* a histogram per function */
const volatile bool key_tgid = false; /* ... and per process (user functions) */

/* Calls in flight, by thread: in-flight table 0 (cmd/funclatency.c); stacks is table 1. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FL_MAX_THREADS); /* 1 when -l is used */
	__type(key, __u32);
	__type(value, struct fl_start);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FL_MAX_THREADS); /* 1 without -l */
	__type(key, __u32);
	__type(value, struct fl_stack);
} stacks SEC(".maps");

/*
 * Running totals, never reset here: user space reports each interval's growth (lib/output/bt_summary)
 * and takes keys that stayed idle for an interval out of the map. Run-time allocated:
 * per-process keys come and go, and preallocating 10240 per-CPU histograms would cost 5 MB per
 * CPU for nothing.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, FL_MAX_HISTS); /* set before load */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct fl_hist_key);
	__type(value, struct fl_hist);
} hists SEC(".maps");

/* Zeroed initial values, too big for the BPF stack. */
struct fl_stack zero_stack;
struct fl_hist zero_hist;

/* Latencies dropped because the histogram map was full. */
__u64 lost;

/* The thread's key; the idle tasks of all CPUs share pid 0, so those key by CPU. */
static __always_inline __u32 thread_key(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	return tid ? tid : 0x80000000u | bpf_get_smp_processor_id();
}

static __always_inline void record(__u32 func, __u64 delta)
{
	struct fl_hist_key key = {};
	struct fl_hist *h;
	__u32 slot;

	if (key_func)
		key.func = func;
	if (key_tgid)
		key.tgid = bpf_get_current_pid_tgid() >> 32;
	h = bpf_map_lookup_elem(&hists, &key);
	if (!h) {
		bpf_map_update_elem(&hists, &key, &zero_hist, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&hists, &key);
		if (!h) {
			__sync_fetch_and_add(&lost, 1);
			return;
		}
	}
	slot = bt_log2_slot(delta / unit_div);
	if (slot >= FL_SLOTS)
		slot = FL_SLOTS - 1;
	/*
	 * Atomic although the value is per-CPU: fentry/fexit and uprobe programs run with
	 * migration disabled but preemptible, so another task on this CPU can run this program
	 * between a plain load and store of the same slot, and one increment would be lost.
	 */
	__sync_fetch_and_add(&h->slots[slot], 1);
	__sync_fetch_and_add(&h->total_ns, delta);
}

static __always_inline int on_entry(__u32 func)
{
	__u32 tid = thread_key(), d;
	struct fl_stack *st;

	if (!level) {
		struct fl_start s = { .func = func };

		s.ts = bpf_ktime_get_ns();
		bt_inflight_put(&starts, 0, &tid, &s, BPF_ANY);
		return 0;
	}
	st = bpf_map_lookup_elem(&stacks, &tid);
	if (!st) {
		bt_inflight_put(&stacks, 1, &tid, &zero_stack, BPF_NOEXIST);
		st = bpf_map_lookup_elem(&stacks, &tid);
		if (!st)
			return 0;
	}
	d = st->depth;
	if (d < level && d < FL_MAX_LEVEL) {
		st->e[d].func = func;
		st->e[d].ts = bpf_ktime_get_ns(); /* last: the bookkeeping above is not timed */
	}
	st->depth = d + 1;
	return 0;
}

static __always_inline int on_return(__u32 func)
{
	__u64 now = bpf_ktime_get_ns(), ts;
	__u32 tid = thread_key(), d;
	struct fl_start *s;
	struct fl_stack *st;
	bool stale;

	if (!level) {
		s = bpf_map_lookup_elem(&starts, &tid);
		if (!s)
			return 0; /* entered before tracing began, or a nested call took it */
		ts = s->ts;
		/* another function's entry: its return was missed (kretprobe limit, longjmp) */
		stale = s->func != func;
		bpf_map_delete_elem(&starts, &tid);
		if (!stale)
			record(func, now - ts);
		return 0;
	}
	st = bpf_map_lookup_elem(&stacks, &tid);
	if (!st)
		return 0;
	if (!st->depth) {
		bpf_map_delete_elem(&stacks, &tid);
		return 0;
	}
	d = --st->depth;
	if (d < level && d < FL_MAX_LEVEL) {
		if (st->e[d].func != func) {
			/* out of step (a missed return): start afresh rather than mispair */
			bpf_map_delete_elem(&stacks, &tid);
			return 0;
		}
		record(func, now - st->e[d].ts);
	}
	if (!d)
		bpf_map_delete_elem(&stacks, &tid);
	return 0;
}

static __always_inline int on_hit(void *ctx, __u32 index, bool is_return)
{
	if (bt_filtered_out())
		return 0;
	if (!is_return)
		return index < nfuncs ? on_entry(index) : 0;
	return index >= nfuncs ? on_return(index - nfuncs) : 0;
}

BT_ATTACH_PROGS(on_hit)

/* a thread that exits inside a traced call leaves its start behind */
BT_THREAD_EXIT(bpf_map_delete_elem(&starts, &tid); bpf_map_delete_elem(&stacks, &tid))

char LICENSE[] SEC("license") = "GPL";
