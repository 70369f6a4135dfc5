// SPDX-License-Identifier: GPL-2.0
/*
 * funcslower: time each call from entry to return, per thread, and send only the calls slower
 * than the threshold to user space. Targets [0, n) are the entry probes, target n + i is the
 * return probe of entry target i (lib/attach/bt_calls.h lays them out, probes/bt_call.bpf.h pairs
 * them).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "bt_arch.bpf.h"
#include "bt_attach.bpf.h"
#include "bt_call.bpf.h"
#include "bt_common.bpf.h"
#include "bt_thread.bpf.h"
#include "bt_stack.bpf.h"
#include "bt_inflight.bpf.h"
#include "funcslower.h"

const volatile __u64 min_ns = 1000000;
const volatile bool want_args = false;
const volatile bool want_kernel = false;
const volatile bool want_user = false;
/* -B: blocking stacks from sched_switch; -S: timer samples. The stacks above are theirs then. */
const volatile bool want_block = false;
const volatile bool want_samples = false;

/* libbpf 1.1 has PT_REGS_PARM1..5 only. */
#if defined(__TARGET_ARCH_x86)
#define FS_PARM6(x) (__PT_REGS_CAST(x)->r9)
#elif defined(__TARGET_ARCH_arm64)
#define FS_PARM6(x) (((const struct user_pt_regs *)(x))->regs[5])
#else
#define FS_PARM6(x) 0
#endif

/*
 * Keyed by thread (bt_call_thread()), so a nested call of a traced function replaces the outer
 * one (the innermost call is timed, as BCC). A thread that exits inside a call takes its entry
 * with it (BT_THREAD_EXIT); one that leaves a call otherwise (longjmp) holds it until its next
 * call, so the entries are at most the threads. A hash, not an LRU: full, an LRU makes room by
 * dropping the call that began longest ago, the slowest in flight, which is what this tool is
 * for, and nothing says so; a hash refuses the new call, and that is counted (in-flight table
 * 0, cmd/funcslower.c).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, __u64);
	__type(value, struct funcslower_inflight); /* begins with struct bt_call */
} entries SEC(".maps");

/*
 * With -B or -S, per thread with a call in flight, by the same key (and only then: a switch of
 * any other thread costs one failed lookup). max_entries is set by user space (1 when unused).
 * A hash for the same reason as entries: a call it has no room for is printed without its
 * -B/-S lines, and user space counts those.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct funcslower_profile);
} profiles SEC(".maps");

static const struct funcslower_profile zero_profile;

BT_EVENT_MAP(events, 1024 * 1024);

/* Two ids of one stack: equal, or the same stored stack taken in both generations. */
static __always_inline bool same_stack(__u64 a, __u64 b)
{
	return a == b || (BT_STACK_STORED(a) && BT_STACK_STORED(b) && (a ^ b) == 1);
}

static __always_inline int on_entry(void *ctx, __u32 index, struct funcslower_inflight *e,
				    __u64 user_caller)
{
	__u64 key = bt_call_thread();
	__u32 gen = bt_stack_generation();

	/* with -B or -S the stacks shown are where the call blocked or ran, not its entry */
	if (want_kernel && !want_block && !want_samples)
		e->kernel_stack = bt_get_stack(ctx, 0, gen);
	if (want_user) {
		if (!want_block && !want_samples) {
			e->user_stack = bt_get_stack(ctx, BPF_F_USER_STACK, gen);
			e->user_caller = BT_STACK_STORED(e->user_stack) ? user_caller : 0;
		}
		e->call.cookie = bt_note_pid(ctx, bpf_get_current_pid_tgid() >> 32);
	}
	/* the start time last, so the stack walks are not part of the latency */
	bt_call_enter(&entries, 0, key, &e->call, index);
	/* after the start time: no switch is ever accounted before the call began */
	if (want_block || want_samples)
		bpf_map_update_elem(&profiles, &key, &zero_profile, BPF_ANY);
	return 0;
}

/*
 * -B: sched_switch runs on the CPU giving up prev (current), before the switch. A thread with
 * a call in flight records where it stopped; when it is switched back in (next), the interval
 * goes to that stack's line of its call.
 */
static __always_inline void block_add(struct funcslower_profile *p, __u64 now)
{
	__u64 k = p->off_kernel_stack, u = p->off_user_stack, start = p->off_ns;
	struct funcslower_block *b = NULL;
	__u32 i, n = p->nblocks;

	for (i = 0; i < FUNCSLOWER_MAX_STACKS; i++) {
		if (i >= n)
			break;
		if (same_stack(p->blocks[i].kernel_stack, k) &&
		    same_stack(p->blocks[i].user_stack, u)) {
			b = &p->blocks[i];
			break;
		}
	}
	if (!b && n < FUNCSLOWER_MAX_STACKS) {
		b = &p->blocks[n & (FUNCSLOWER_MAX_STACKS - 1)];
		b->kernel_stack = k;
		b->user_stack = u;
		b->first_ns = start;
		p->nblocks = n + 1;
	} else if (!b) {
		b = &p->other_blocks;
		if (!b->count)
			b->first_ns = start;
	}
	b->count++;
	b->total_ns += now - start;
	b->last_ns = now;
}

/*
 * This kernel (6.18) sometimes runs a thread again without a sched_switch naming it as next
 * (as offcputime found). The thread's own accounting closes such a block: more arrivals on a
 * CPU than at its switch-out mean it ran in between, for sum_exec_runtime's growth, and was
 * off-CPU until then.
 */
static __always_inline void close_unseen(struct funcslower_profile *p, struct task_struct *t,
					 __u64 now)
{
	__u64 runtime = BPF_CORE_READ(t, se.sum_exec_runtime);
	__u64 arrivals = BPF_CORE_READ(t, sched_info.pcount);
	__u64 ran;

	if (arrivals > p->off_arrivals && runtime >= p->off_runtime) {
		ran = runtime - p->off_runtime;
		if (now > p->off_ns + ran)
			block_add(p, now - ran);
	}
	p->off_ns = 0;
}

static __always_inline int on_return(void *ctx, __u32 index, __u64 ret)
{
	__u64 now = bpf_ktime_get_ns(), key = bt_call_thread(), id = bpf_get_current_pid_tgid();
	struct funcslower_event ev = {};
	struct funcslower_inflight *e;

	e = bt_call_return(&entries, key, index);
	if (!e) {
		/* no call of this thread in flight: nor is its profile */
		if (want_block || want_samples)
			bpf_map_delete_elem(&profiles, &key);
		return 0;
	}
	ev.duration_ns = now - e->call.start_ns;
	if (ev.duration_ns < min_ns) {
		bt_call_done(&entries, key);
		if (want_block || want_samples)
			bpf_map_delete_elem(&profiles, &key);
		return 0;
	}
	ev.start_ns = e->call.start_ns;
	ev.retval = ret;
	ev.index = e->call.index;
	ev.kernel_stack = e->kernel_stack;
	ev.user_stack = e->user_stack;
	ev.user_caller = e->user_caller;
	if (want_args)
		__builtin_memcpy(ev.args, e->args, sizeof(ev.args));
	ev.tgid = id >> 32;
	ev.cookie = e->call.cookie;
	bpf_get_current_comm(ev.comm, sizeof(ev.comm));
	/* Output, then delete: user space holds the stacks of the calls it finds in flight and
	 * prints every event already sent, so each stack is either held or printed. */
	if (want_block || want_samples) {
		struct funcslower_profile *p = bpf_map_lookup_elem(&profiles, &key);

		if (p) {
			/* a block whose switch-in no event showed ends before this return */
			if (want_block && p->off_ns)
				close_unseen(p, (struct task_struct *)bpf_get_current_task(), now);
			__builtin_memcpy(&p->ev, &ev, sizeof(ev));
			bt_event_output(ctx, &events, p, sizeof(*p));
			bt_call_done(&entries, key);
			bpf_map_delete_elem(&profiles, &key);
			return 0;
		}
	}
	bt_event_output(ctx, &events, &ev, sizeof(ev));
	bt_call_done(&entries, key);
	return 0;
}

/* next_key: the thread switched in, as bt_call_key() gives it */
static __always_inline int on_switch(void *ctx, struct task_struct *prev, __u64 next_key)
{
	__u64 key = bt_call_thread();
	struct funcslower_profile *p;

	p = bpf_map_lookup_elem(&profiles, &key);
	if (p) {
		__u32 gen = bt_stack_generation();

		if (p->off_ns)
			close_unseen(p, prev, bpf_ktime_get_ns());
		p->off_kernel_stack = want_kernel ? bt_get_stack(ctx, 0, gen) : BT_STACK_NONE;
		p->off_user_stack =
			want_user ? bt_get_stack(ctx, BPF_F_USER_STACK, gen) : BT_STACK_NONE;
		p->off_runtime = BPF_CORE_READ(prev, se.sum_exec_runtime);
		p->off_arrivals = BPF_CORE_READ(prev, sched_info.pcount);
		p->off_ns = bpf_ktime_get_ns();
	}
	p = bpf_map_lookup_elem(&profiles, &next_key);
	if (p && p->off_ns) {
		block_add(p, bpf_ktime_get_ns());
		p->off_ns = 0;
	}
	return 0;
}

/* tp_btf: next read directly (BTF pointers), no helper call per switch */
SEC("tp_btf/sched_switch")
int BPF_PROG(fs_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return on_switch(ctx, prev, bt_call_key(next->tgid, next->pid));
}

SEC("raw_tp/sched_switch")
int BPF_PROG(fs_switch_raw, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	return on_switch(ctx, prev,
			 bt_call_key(BPF_CORE_READ(next, tgid), BPF_CORE_READ(next, pid)));
}

/* -S: a cpu-clock sample on every CPU; only a thread with a call in flight is counted. */
SEC("perf_event")
int fs_sample(struct bpf_perf_event_data *ctx)
{
	__u64 key = bt_call_thread(), k, u;
	struct funcslower_profile *p;
	struct funcslower_sample *smp = NULL;
	__u32 gen, i, n;

	p = bpf_map_lookup_elem(&profiles, &key);
	if (!p)
		return 0;
	gen = bt_stack_generation();
	p->sample_kernel_stack = want_kernel ? bt_get_stack(ctx, 0, gen) : BT_STACK_NONE;
	p->sample_user_stack = want_user ? bt_get_stack(ctx, BPF_F_USER_STACK, gen) : BT_STACK_NONE;
	k = p->sample_kernel_stack;
	u = p->sample_user_stack;
	n = p->nsamples;
	for (i = 0; i < FUNCSLOWER_MAX_STACKS; i++) {
		if (i >= n)
			break;
		if (same_stack(p->samples[i].kernel_stack, k) &&
		    same_stack(p->samples[i].user_stack, u)) {
			smp = &p->samples[i];
			break;
		}
	}
	if (!smp && n >= FUNCSLOWER_MAX_STACKS) {
		__sync_fetch_and_add(&p->other_samples, 1);
		return 0;
	}
	if (!smp) {
		smp = &p->samples[n & (FUNCSLOWER_MAX_STACKS - 1)];
		smp->kernel_stack = k;
		smp->user_stack = u;
		p->nsamples = n + 1;
	}
	__sync_fetch_and_add(&smp->count, 1);
	return 0;
}

static __always_inline int regs_entry(struct pt_regs *ctx, __u64 user_caller)
{
	struct funcslower_inflight e = {};

	if (bt_filtered_out())
		return 0;
	if (want_args) {
		e.args[0] = PT_REGS_PARM1(ctx);
		e.args[1] = PT_REGS_PARM2(ctx);
		e.args[2] = PT_REGS_PARM3(ctx);
		e.args[3] = PT_REGS_PARM4(ctx);
		e.args[4] = PT_REGS_PARM5(ctx);
		e.args[5] = FS_PARM6(ctx);
	}
	return on_entry(ctx, bt_target_index(ctx), &e, user_caller);
}

/*
 * fentry/fexit: one program (and its clones) serves every signature, so arguments and the
 * return value come through bt_fentry_args()/bt_fexit_ret() (bpf_get_func_arg() and
 * bpf_get_func_ret() where the kernel has them, 5.17); arguments past the function's own are
 * left 0.
 */
SEC("?fentry")
int fs_fentry(void *ctx)
{
	struct funcslower_inflight e = {};

	if (bt_filtered_out())
		return 0;
	if (want_args)
		bt_fentry_args(ctx, e.args, FUNCSLOWER_MAX_ARGS);
	return on_entry(ctx, bt_target_index(ctx), &e, 0);
}

SEC("?fexit")
int fs_fexit(void *ctx)
{
	return on_return(ctx, bt_target_index(ctx), bt_fexit_ret(ctx));
}

SEC("?kprobe")
int fs_kprobe(struct pt_regs *ctx)
{
	return regs_entry(ctx, 0);
}

SEC("?kretprobe")
int fs_kretprobe(struct pt_regs *ctx)
{
	return on_return(ctx, bt_target_index(ctx), PT_REGS_RC(ctx));
}

SEC("?kprobe.multi")
int fs_kprobe_multi(struct pt_regs *ctx)
{
	return regs_entry(ctx, 0);
}

SEC("?kretprobe.multi")
int fs_kretprobe_multi(struct pt_regs *ctx)
{
	return on_return(ctx, bt_target_index(ctx), PT_REGS_RC(ctx));
}

SEC("?uprobe")
int fs_uprobe(struct pt_regs *ctx)
{
	__u64 caller = 0;

	/* On the first instruction the caller's address is not in a frame yet (bt_entry_caller). */
	if (want_user)
		bt_entry_caller(ctx, &caller);
	return regs_entry(ctx, caller);
}

SEC("?uretprobe")
int fs_uretprobe(struct pt_regs *ctx)
{
	return on_return(ctx, bt_target_index(ctx), PT_REGS_RC(ctx));
}

/*
 * Entry and return in one program through one link (6.13+; lib/attach/bt_attach.h, usession): the
 * exit then removes one link, not two, each removal waiting out the kernel's uprobe grace
 * periods. At the entry the probed address is the pc; at the return the pc is the caller's.
 * The index is the entry target's; its return target is bt_call_entries further.
 */
SEC("?uprobe.session")
int fs_usession(struct pt_regs *ctx)
{
	__u64 caller = 0;

	if (PT_REGS_IP(ctx) != bpf_get_func_ip(ctx)) {
		on_return(ctx, bt_target_index(ctx) + bt_call_entries, PT_REGS_RC(ctx));
		return 0;
	}
	/* filtered out: 1 spares this call the return probe too */
	if (bt_filtered_out())
		return 1;
	if (want_user)
		bt_entry_caller(ctx, &caller);
	regs_entry(ctx, caller);
	return 0;
}

/*
 * syscall:NAME: sys_enter_NAME is the entry, sys_exit_NAME the return, each with its own
 * program: the kernel refuses a program that reads past a tracepoint's record, and
 * sys_enter_getppid's ends before sys_exit's ret.
 */
SEC("?tracepoint")
int fs_tracepoint(void *ctx)
{
	struct funcslower_inflight e = {};

	if (bt_filtered_out())
		return 0;
	/* a copy, not ctx->args[i]: clang turns the loop into ctx pointer arithmetic */
	if (want_args)
		bpf_probe_read_kernel(e.args, sizeof(e.args),
				      ((struct trace_event_raw_sys_enter *)ctx)->args);
	return on_entry(ctx, bt_target_index(ctx), &e, 0);
}

SEC("?tracepoint/return")
int fs_tracepoint_ret(void *ctx)
{
	return on_return(ctx, bt_target_index(ctx), ((struct trace_event_raw_sys_exit *)ctx)->ret);
}

/* a thread that exits inside a traced call leaves its entry behind */
BT_THREAD_EXIT(bpf_map_delete_elem(&entries, &id); bpf_map_delete_elem(&profiles, &id))

char LICENSE[] SEC("license") = "GPL";
