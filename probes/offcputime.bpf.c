// SPDX-License-Identifier: GPL-2.0
/*
 * offcputime: at sched_switch, a thread going off-CPU (current == prev) leaves its time and
 * its stacks (only it can take its own user stack); when it is switched in again, the time it
 * spent off-CPU is added in the kernel to a count keyed by those stacks. User space reads
 * the sums once, at the end.
 *
 * This kernel (6.18) sometimes runs a thread again without a sched_switch event naming it as
 * next (seen: 0.1-0.5% of a sleeping thread's wake-ups). The thread's own accounting tells:
 * at its next switch-out, a start still pending with fewer arrivals on a CPU (sched_info.pcount)
 * than now means it ran in between, for sum_exec_runtime's growth, and was off-CPU the rest.
 *
 * One program per form of sched_switch: tp_btf (BTF pointers read directly, which lockdown
 * allows) or raw_tp (reads through CO-RE), each with the switch-out state as an argument
 * (5.18+) or read from the task.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bt_offcpu.bpf.h"
#include "bt_stack.bpf.h"
#include "offcputime.h"

const volatile bool want_kernel = true;
const volatile bool want_user = true;

struct start {
	__u64 ts;
	__u64 runtime;	/* the thread's sum_exec_runtime at switch-out */
	__u64 arrivals; /* and its sched_info.pcount */
	__u64 kernel_stack;
	__u64 user_stack;
	__u32 tgid;
	__u32 gen;
	char comm[BT_OFFCPU_COMM_LEN];
};

/* Threads off-CPU now, by thread id. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, struct start);
} starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, struct offcputime_key);
	__type(value, __u64);
} counts SEC(".maps");

/* The thread's clocks at a switch, read by each program its own way. */
struct thread_clock {
	__u64 runtime;
	__u64 arrivals;
};

static __always_inline void add_block(__u32 tid, const struct start *s, __u64 us)
{
	struct offcputime_key key = {};
	__u64 *total;

	key.kernel_stack = s->kernel_stack;
	key.user_stack = s->user_stack;
	key.tid = tid;
	key.tgid = s->tgid;
	key.gen = s->gen;
	__builtin_memcpy(key.comm, s->comm, sizeof(key.comm));
	total = bpf_map_lookup_elem(&counts, &key);
	if (total) {
		__sync_fetch_and_add(total, us);
	} else if (bpf_map_update_elem(&counts, &key, &us, BPF_NOEXIST)) {
		/* another CPU added it first */
		total = bpf_map_lookup_elem(&counts, &key);
		if (total)
			__sync_fetch_and_add(total, us);
	}
}

/* A block whose end no event showed: off-CPU is the time since, less what the thread ran. */
static __always_inline void close_unseen(__u32 tid, const struct thread_clock *c, __u64 now)
{
	struct start *s = bpf_map_lookup_elem(&starts, &tid);
	__u64 ran, us;

	if (!s || !c->arrivals || c->arrivals <= s->arrivals || c->runtime < s->runtime)
		return;
	ran = c->runtime - s->runtime;
	if (now <= s->ts + ran)
		return;
	us = bt_offcpu_delta_us(s->ts + ran, now);
	if (us)
		add_block(tid, s, us);
}

static __always_inline void switch_out(void *ctx, __u32 tgid, __u32 tid, __u32 flags, __u32 state,
				       const struct thread_clock *c)
{
	struct start s = {};

	if (!bt_offcpu_wanted(tgid, tid, flags, state))
		return;
	/* first: the thread stops running its own code here, stack walks included */
	s.ts = bpf_ktime_get_ns();
	s.gen = bt_stack_generation();
	if (want_kernel)
		s.kernel_stack = bt_get_stack(ctx, 0, s.gen);
	/* a kernel thread has no user stack to take */
	if (want_user && !(flags & BT_PF_KTHREAD)) {
		s.user_stack = bt_get_stack(ctx, BPF_F_USER_STACK, s.gen);
		bt_note_pid(ctx, tgid);
	}
	s.tgid = tgid;
	bpf_get_current_comm(s.comm, sizeof(s.comm));
	s.runtime = c->runtime;
	s.arrivals = c->arrivals;
	close_unseen(tid, c, s.ts);
	bpf_map_update_elem(&starts, &tid, &s, BPF_ANY);
}

static __always_inline void switch_in(__u32 tid)
{
	struct start *s = bpf_map_lookup_elem(&starts, &tid);
	__u64 us;

	if (!s)
		return;
	us = bt_offcpu_delta_us(s->ts, bpf_ktime_get_ns());
	if (us)
		add_block(tid, s, us);
	bpf_map_delete_elem(&starts, &tid);
}

SEC("?tp_btf/sched_switch")
int BPF_PROG(offcpu_btf_state, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct thread_clock c = { prev->se.sum_exec_runtime, prev->sched_info.pcount };

	switch_out(ctx, prev->tgid, prev->pid, prev->flags, prev_state, &c);
	switch_in(next->pid);
	return 0;
}

SEC("?raw_tp/sched_switch")
int BPF_PROG(offcpu_raw_state, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct thread_clock c = { BPF_CORE_READ(prev, se.sum_exec_runtime),
				  BPF_CORE_READ(prev, sched_info.pcount) };

	switch_out(ctx, BPF_CORE_READ(prev, tgid), BPF_CORE_READ(prev, pid),
		   BPF_CORE_READ(prev, flags), prev_state, &c);
	switch_in(BPF_CORE_READ(next, pid));
	return 0;
}

SEC("?tp_btf/sched_switch")
int BPF_PROG(offcpu_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct thread_clock c = { prev->se.sum_exec_runtime, prev->sched_info.pcount };

	switch_out(ctx, prev->tgid, prev->pid, prev->flags, bt_task_state(prev), &c);
	switch_in(next->pid);
	return 0;
}

SEC("?raw_tp/sched_switch")
int BPF_PROG(offcpu_raw, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct thread_clock c = { BPF_CORE_READ(prev, se.sum_exec_runtime),
				  BPF_CORE_READ(prev, sched_info.pcount) };

	switch_out(ctx, BPF_CORE_READ(prev, tgid), BPF_CORE_READ(prev, pid),
		   BPF_CORE_READ(prev, flags), bt_task_state(prev), &c);
	switch_in(BPF_CORE_READ(next, pid));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
