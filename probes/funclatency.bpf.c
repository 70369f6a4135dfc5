// SPDX-License-Identifier: GPL-2.0
/*
 * funclatency: the time between a function's (or a system call's) entry and its return, as a
 * log2 histogram built in the kernel. One generic program per mechanism (BT_ATTACH_PROGS, and
 * the raw sys_enter/sys_exit pair for many syscall: targets); the target index in the attach
 * cookie says which function fired and whether it is the entry (index < bt_call_entries) or the
 * return (probes/bt_call.bpf.h). Nothing reads arguments or return values, so one fentry/fexit
 * program verifies for every function signature, and one tracepoint program serves a syscall's
 * sys_enter_NAME and sys_exit_NAME.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define BT_ATTACH_SYSCALLS
#include "bt_attach.bpf.h"
#include "bt_call.bpf.h"
#include "bt_common.bpf.h"
#include "bt_inflight.bpf.h"
#include "bt_thread.bpf.h"
#include "funclatency.h"

const volatile __u32 level = 0;	      /* -l: 0 = innermost calls only, else outermost levels */
const volatile __u64 unit_div = 1;    /* ns per histogram unit: 1, 1000, 1000000 */
const volatile bool key_func = false; /* a histogram per function */
const volatile bool key_tgid = false; /* ... and per process (user functions) */

/*
 * Calls in flight, by thread (bt_call_thread()): in-flight table 0 (cmd/funclatency.c); stacks
 * is table 1.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FL_MAX_THREADS); /* 1 when -l is used */
	__type(key, __u64);
	__type(value, struct bt_call);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FL_MAX_THREADS); /* 1 without -l */
	__type(key, __u64);
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
	__u64 key = bt_call_thread();
	struct fl_stack *st;
	__u32 d;

	if (!level) {
		struct bt_call c = {};

		bt_call_enter(&starts, 0, key, &c, func);
		return 0;
	}
	st = bpf_map_lookup_elem(&stacks, &key);
	if (!st) {
		bt_inflight_put(&stacks, 1, &key, &zero_stack, BPF_NOEXIST);
		st = bpf_map_lookup_elem(&stacks, &key);
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

/* index: the return target's; func: its function's (the entry target's index) */
static __always_inline int on_return(__u32 index, __u32 func)
{
	__u64 now = bpf_ktime_get_ns(), key = bt_call_thread(), ts;
	struct bt_call *c;
	struct fl_stack *st;
	__u32 d;

	if (!level) {
		c = bt_call_return(&starts, key, index);
		if (!c)
			return 0;
		ts = c->start_ns;
		bt_call_done(&starts, key);
		record(func, now - ts);
		return 0;
	}
	st = bpf_map_lookup_elem(&stacks, &key);
	if (!st)
		return 0;
	if (!st->depth) {
		bpf_map_delete_elem(&stacks, &key);
		return 0;
	}
	d = --st->depth;
	if (d < level && d < FL_MAX_LEVEL) {
		if (st->e[d].func != func) {
			/* out of step (a missed return): start afresh rather than mispair */
			bpf_map_delete_elem(&stacks, &key);
			return 0;
		}
		record(func, now - st->e[d].ts);
	}
	if (!d)
		bpf_map_delete_elem(&stacks, &key);
	return 0;
}

/* The index says entry or return; a sys_exit_NAME's runs the one tracepoint program too. */
static __always_inline int on_hit(void *ctx, __u32 index, bool is_return)
{
	if (bt_filtered_out())
		return 0;
	if (!bt_call_is_return(index))
		return on_entry(index);
	return on_return(index, index - bt_call_entries);
}

BT_ATTACH_PROGS(on_hit)

/* many syscall: targets through one link per direction (probes/bt_attach.bpf.h) */
SEC("?tp_btf/sys_enter")
int BPF_PROG(fl_sys_enter, struct pt_regs *regs, long id)
{
	long i = bt_syscall_enter_index(id);

	return i < 0 ? 0 : on_hit(ctx, i, false);
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(fl_sys_exit, struct pt_regs *regs, long ret)
{
	long i = bt_syscall_exit_index(regs);

	return i < 0 ? 0 : on_hit(ctx, i, true);
}

/* a thread that exits inside a traced call leaves its start behind */
BT_THREAD_EXIT(bpf_map_delete_elem(&starts, &id); bpf_map_delete_elem(&stacks, &id))

char LICENSE[] SEC("license") = "GPL";
