// SPDX-License-Identifier: GPL-2.0
/*
 * smpcalls: time SMP cross calls (functions one CPU asks others to run) per called function.
 *
 * With the csd tracepoints (6.3+): csd_queue_cpu notes when and by whom a call was queued for
 * another CPU (keyed by its csd), csd_function_entry/exit time the function where it runs, and
 * the queue-to-entry latency is kept too. A function run locally (the caller's own CPU) passes
 * a NULL csd: its entry is in the caller's context, so the filter and stack are taken there,
 * and it is counted apart from the cross calls (SMPCALL_LOCAL).
 *
 * Without them, the bpftrace original's kprobes: the caller's time inside
 * smp_call_function_single() and smp_call_function_many_cond() keyed by the function argument,
 * and the IPI handler generic_smp_call_function_single_interrupt() keyed by itself.
 *
 * Counter updates are atomic although the histograms are per-CPU. csd_function_entry/exit run
 * with interrupts disabled and kprobe programs cannot nest on a CPU, so plain adds would be
 * safe today; the lock prefix on a CPU-local line costs a few nanoseconds and keeps that true
 * whatever context a future caller of these tracepoints has.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bt_arch.bpf.h"
#include "bt_common.bpf.h"
#include "bt_inflight.bpf.h"
#include "bt_stack.bpf.h"
#include "smpcalls.h"

const volatile bool want_stack = false; /* -K */

/*
 * Set by user space once every program is attached. Attaching patches kernel text, and each
 * patch synchronises the CPUs with a cross call (do_sync_core, queued while the programs
 * attached first already run): those are the tool's own, not the traced system's. Every
 * patch has completed when the attach returns (the synchronisation waits for all CPUs).
 */
bool armed;

/* Who queued a cross call, and when: from csd_queue_cpu to csd_function_entry. */
struct queued {
	__u64 ts;
	__u64 stack;
	char comm[SMPCALL_COMM_LEN];
};

/*
 * LRU: not every queued csd reaches csd_function_entry (wake-up lists are run without it), and
 * a csd is reused for the next call anyway.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SMPCALL_MAX_QUEUED);
	__type(key, __u64);
	__type(value, struct queued);
} queued SEC(".maps");

/* The call running on this CPU (csd functions run with interrupts off: they do not nest). */
struct running {
	__u64 ts;
	__u64 func;
	struct smpcall_key key;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct running);
} running SEC(".maps");

/* kprobes: the caller's call in progress, per thread (the bpftrace original's @ts, @func). */
struct call {
	__u64 ts;
	struct smpcall_key key;
};

/* by thread: in-flight table 0 (cmd/smpcalls.c) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SMPCALL_MAX_QUEUED);
	__type(key, __u32);
	__type(value, struct call);
} calls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, SMPCALL_MAX_KEYS);
	__type(key, struct smpcall_key);
	__type(value, struct smpcall_hist);
} hists SEC(".maps");

/* Histograms dropped because the map was full. */
__u64 lost;

/*
 * The caller of a call queued or run here fails the filters (-p, -t). A call queued in an
 * interrupt (the tick's nohz_csd_func, an irq_work) is the interrupt's, not that of the thread
 * it happened to interrupt.
 */
static __always_inline bool caller_filtered_out(void *ctx)
{
	if (bt_filtered_out())
		return true;
	return (bt_filter_tgid || bt_filter_tid) && bt_in_interrupt(ctx);
}

struct smpcall_hist zero_hist;

static __always_inline void record(struct smpcall_key *key, __u64 delta)
{
	struct smpcall_hist *h = bpf_map_lookup_elem(&hists, key);
	__u32 slot;

	if (!h) {
		bpf_map_update_elem(&hists, key, &zero_hist, BPF_NOEXIST);
		h = bpf_map_lookup_elem(&hists, key);
		if (!h) {
			__sync_fetch_and_add(&lost, 1);
			return;
		}
	}
	slot = bt_log2_slot(delta);
	if (slot >= SMPCALL_SLOTS)
		slot = SMPCALL_SLOTS - 1;
	__sync_fetch_and_add(&h->slots[slot], 1);
	__sync_fetch_and_add(&h->count, 1);
	__sync_fetch_and_add(&h->total_ns, delta);
}

/* The caller's side of a key: its stack and name with -K. */
static __always_inline void caller_of(void *ctx, __u64 *stack, char *comm)
{
	if (!want_stack)
		return;
	*stack = bt_get_stack(ctx, 0, bt_stack_generation());
	bpf_get_current_comm(comm, SMPCALL_COMM_LEN);
}

/* csd tracepoints */

static __always_inline int on_queue(void *ctx, __u64 func, __u64 csd)
{
	struct queued q = {};

	if (!armed || caller_filtered_out(ctx))
		return 0;
	caller_of(ctx, &q.stack, q.comm);
	q.ts = bpf_ktime_get_ns();
	bpf_map_update_elem(&queued, &csd, &q, BPF_ANY);
	return 0;
}

static __always_inline int on_entry(void *ctx, __u64 func, __u64 csd)
{
	__u64 now = bpf_ktime_get_ns();
	struct running *r;
	struct queued *q;
	__u32 zero = 0;

	if (!armed)
		return 0;
	r = bpf_map_lookup_elem(&running, &zero);
	if (!r)
		return 0;
	r->ts = 0;
	__builtin_memset(&r->key, 0, sizeof(r->key));
	r->key.func = func;
	if (csd) {
		/* run for another CPU: counted only if its queueing passed the filters */
		q = bpf_map_lookup_elem(&queued, &csd);
		if (!q)
			return 0;
		r->key.stack = q->stack;
		__builtin_memcpy(r->key.comm, q->comm, SMPCALL_COMM_LEN);
		r->key.kind = SMPCALL_QUEUE;
		record(&r->key, now - q->ts);
		r->key.kind = SMPCALL_TIME;
		bpf_map_delete_elem(&queued, &csd);
	} else {
		/* the caller's own CPU, in the caller's context, with no IPI */
		if (caller_filtered_out(ctx))
			return 0;
		r->key.kind = SMPCALL_LOCAL;
		caller_of(ctx, &r->key.stack, r->key.comm);
	}
	r->func = func;
	r->ts = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int on_exit(__u64 func)
{
	__u64 now = bpf_ktime_get_ns();
	struct running *r;
	__u32 zero = 0;

	r = bpf_map_lookup_elem(&running, &zero);
	if (!r || !r->ts || r->func != func)
		return 0;
	record(&r->key, now - r->ts);
	r->ts = 0;
	return 0;
}

/*
 * raw_tp, not tp_btf: the verifier refuses typed access to a function-pointer argument (the
 * called function), and these programs only pass arguments on as numbers anyway.
 */
SEC("?raw_tp/csd_queue_cpu")
int BPF_PROG(csd_queue_raw, unsigned int cpu, unsigned long callsite, void *func, void *csd)
{
	return on_queue(ctx, (__u64)func, (__u64)csd);
}

SEC("?raw_tp/csd_function_entry")
int BPF_PROG(csd_entry_raw, void *func, void *csd)
{
	return on_entry(ctx, (__u64)func, (__u64)csd);
}

SEC("?raw_tp/csd_function_exit")
int BPF_PROG(csd_exit_raw, void *func, void *csd)
{
	return on_exit((__u64)func);
}

/* kprobes, where the kernel has no csd tracepoints */

static __always_inline int call_entry(void *ctx, __u64 func)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct call c = {};

	if (!armed || caller_filtered_out(ctx))
		return 0;
	c.key.func = func;
	caller_of(ctx, &c.key.stack, c.key.comm);
	c.ts = bpf_ktime_get_ns();
	bt_inflight_put(&calls, 0, &tid, &c, BPF_ANY);
	return 0;
}

static __always_inline int call_return(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 now = bpf_ktime_get_ns();
	struct call *c;

	c = bpf_map_lookup_elem(&calls, &tid);
	if (!c)
		return 0;
	record(&c->key, now - c->ts);
	bpf_map_delete_elem(&calls, &tid);
	return 0;
}

SEC("?kprobe/smp_call_function_single")
int BPF_KPROBE(kp_single, int cpu, void *func)
{
	return call_entry(ctx, (__u64)func);
}

SEC("?kretprobe/smp_call_function_single")
int BPF_KRETPROBE(kret_single)
{
	return call_return();
}

SEC("?kprobe/smp_call_function_many_cond")
int BPF_KPROBE(kp_many, void *mask, void *func)
{
	return call_entry(ctx, (__u64)func);
}

SEC("?kretprobe/smp_call_function_many_cond")
int BPF_KRETPROBE(kret_many)
{
	return call_return();
}

/*
 * The IPI handler runs whatever was queued for this CPU, in interrupt context: whichever task
 * it interrupted is not the caller, so it is keyed by itself, with no stack or name, and left
 * out under -p (the caller cannot be known here).
 */
SEC("?kprobe/generic_smp_call_function_single_interrupt")
int BPF_KPROBE(kp_ipi)
{
	struct running *r;
	__u32 zero = 0;

	if (!armed || bt_filter_tgid || bt_filter_tid)
		return 0;
	r = bpf_map_lookup_elem(&running, &zero);
	if (!r)
		return 0;
	__builtin_memset(&r->key, 0, sizeof(r->key));
	r->func = PT_REGS_IP(ctx);
	r->key.func = r->func;
	r->ts = bpf_ktime_get_ns();
	return 0;
}

SEC("?kretprobe/generic_smp_call_function_single_interrupt")
int BPF_KRETPROBE(kret_ipi)
{
	__u64 now = bpf_ktime_get_ns();
	struct running *r;
	__u32 zero = 0;

	r = bpf_map_lookup_elem(&running, &zero);
	if (!r || !r->ts)
		return 0;
	record(&r->key, now - r->ts);
	r->ts = 0;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
