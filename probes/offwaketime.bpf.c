// SPDX-License-Identifier: GPL-2.0
/*
 * offwaketime: offcputime's blocked time, keyed by the sleeper's stacks and the stacks of the
 * thread that woke it. The waker is recorded at sched_waking, which runs in the waker's context
 * (sched_wakeup can run on the woken task's CPU, where current is not the waker); the sleeper is
 * recorded as it leaves the CPU, and the time is added in the kernel when it is switched in.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bt_offcpu.bpf.h"
#include "bt_stack.bpf.h"
#include "offwaketime.h"

const volatile bool want_kernel = true;
const volatile bool want_user = true;

struct start {
	__u64 ts;
	__u64 runtime;	/* the thread's sum_exec_runtime at switch-out */
	__u64 arrivals; /* and its sched_info.pcount (probes/offcputime.bpf.c says why) */
	__u64 kernel_stack;
	__u64 user_stack;
	__u32 tgid;
	__u32 gen;
	char comm[BT_OFFCPU_COMM_LEN];
};

struct waker {
	__u64 kernel_stack;
	__u64 user_stack;
	__u32 tid, tgid;
	__u32 gen;
	char comm[BT_OFFCPU_COMM_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, struct start);
} starts SEC(".maps");

/* The last waker of each sleeping thread, by the sleeper's thread id. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, struct waker);
} wakers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, struct offwaketime_key);
	__type(value, __u64);
} counts SEC(".maps");

struct thread_clock {
	__u64 runtime;
	__u64 arrivals;
};

static __always_inline void waking(void *ctx, __u32 tgid, __u32 tid, __u32 flags, __u32 state)
{
	struct waker w = {};
	__u64 id = bpf_get_current_pid_tgid();

	if (!bt_offcpu_wanted(tgid, tid, flags, state))
		return;
	w.gen = bt_stack_generation();
	w.tid = (__u32)id;
	w.tgid = id >> 32;
	if (want_kernel)
		w.kernel_stack = bt_get_stack(ctx, 0, w.gen);
	if (want_user && w.tgid) {
		w.user_stack = bt_get_stack(ctx, BPF_F_USER_STACK, w.gen);
		bt_note_pid(ctx, w.tgid);
	}
	bpf_get_current_comm(w.comm, sizeof(w.comm));
	bpf_map_update_elem(&wakers, &tid, &w, BPF_ANY);
}

static __always_inline void add_block(__u32 tid, const struct start *s, __u64 us)
{
	struct offwaketime_key key = {};
	struct waker *w = bpf_map_lookup_elem(&wakers, &tid);
	__u64 *total;

	key.target_kernel_stack = s->kernel_stack;
	key.target_user_stack = s->user_stack;
	key.target_tid = tid;
	key.target_tgid = s->tgid;
	__builtin_memcpy(key.target, s->comm, sizeof(key.target));
	if (w) {
		key.waker_kernel_stack = w->kernel_stack;
		key.waker_user_stack = w->user_stack;
		key.waker_tid = w->tid;
		key.waker_tgid = w->tgid;
		__builtin_memcpy(key.waker, w->comm, sizeof(key.waker));
	}
	key.gen = s->gen;
	total = bpf_map_lookup_elem(&counts, &key);
	if (total) {
		__sync_fetch_and_add(total, us);
	} else if (bpf_map_update_elem(&counts, &key, &us, BPF_NOEXIST)) {
		total = bpf_map_lookup_elem(&counts, &key);
		if (total)
			__sync_fetch_and_add(total, us);
	}
}

/* A block whose end no sched_switch showed (probes/offcputime.bpf.c): closed from the
 * thread's own accounting at its next switch-out. */
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
	bpf_map_delete_elem(&wakers, &tid);
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
	bpf_map_delete_elem(&wakers, &tid);
}

SEC("?tp_btf/sched_switch")
int BPF_PROG(owt_switch_btf_state, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct thread_clock c = { prev->se.sum_exec_runtime, prev->sched_info.pcount };

	switch_out(ctx, prev->tgid, prev->pid, prev->flags, prev_state, &c);
	switch_in(next->pid);
	return 0;
}

SEC("?raw_tp/sched_switch")
int BPF_PROG(owt_switch_raw_state, bool preempt, struct task_struct *prev, struct task_struct *next,
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
int BPF_PROG(owt_switch_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct thread_clock c = { prev->se.sum_exec_runtime, prev->sched_info.pcount };

	switch_out(ctx, prev->tgid, prev->pid, prev->flags, bt_task_state(prev), &c);
	switch_in(next->pid);
	return 0;
}

SEC("?raw_tp/sched_switch")
int BPF_PROG(owt_switch_raw, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	struct thread_clock c = { BPF_CORE_READ(prev, se.sum_exec_runtime),
				  BPF_CORE_READ(prev, sched_info.pcount) };

	switch_out(ctx, BPF_CORE_READ(prev, tgid), BPF_CORE_READ(prev, pid),
		   BPF_CORE_READ(prev, flags), bt_task_state(prev), &c);
	switch_in(BPF_CORE_READ(next, pid));
	return 0;
}

/* sched_waking(p): p's state is still the sleeping one here, which --state looks at */
SEC("?tp_btf/sched_waking")
int BPF_PROG(owt_waking_btf, struct task_struct *p)
{
	waking(ctx, p->tgid, p->pid, p->flags, p->__state);
	return 0;
}

SEC("?raw_tp/sched_waking")
int BPF_PROG(owt_waking_raw, struct task_struct *p)
{
	waking(ctx, BPF_CORE_READ(p, tgid), BPF_CORE_READ(p, pid), BPF_CORE_READ(p, flags),
	       bt_task_state(p));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
