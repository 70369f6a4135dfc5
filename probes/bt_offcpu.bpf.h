/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What offcputime and offwaketime share: which threads count (BCC's -p/-t lists, -u, -k,
 * --state), the block-time window (-m/-M) and the stacks wanted (-U/-K), all read-only data
 * set before load (lib/tools/bt_offcpu_opts.c) so that the verifier drops what is not in use; and
 * the sched_switch bookkeeping: at switch-out a thread leaves its time, clocks and stacks (only
 * it can take its own user stack) in bt_offcpu_starts; when it is switched in again, the tool's
 * bt_offcpu_add_block() sums the time it was off-CPU under the tool's own key.
 *
 * This kernel (6.18) sometimes runs a thread again without a sched_switch event naming it as
 * next (seen: 0.1-0.5% of a sleeping thread's wake-ups). The thread's own accounting tells: at
 * its next switch-out, a start still pending with fewer arrivals on a CPU (sched_info.pcount)
 * than now means it ran in between, for sum_exec_runtime's growth, and was off-CPU the rest.
 *
 * A tool defines bt_offcpu_add_block() and bt_offcpu_block_over() (declared below) and its
 * four sched_switch programs with BT_OFFCPU_SWITCH_PROGS: tp_btf (BTF pointers read directly,
 * which lockdown allows) or raw_tp (reads through CO-RE), each with the switch-out state as an
 * argument (5.18+) or read from the task.
 */
#ifndef BT_OFFCPU_BPF_H
#define BT_OFFCPU_BPF_H

#include "bt_offcpu.h"
#include "bt_common.bpf.h"
#include "bt_inflight.bpf.h"
#include "bt_stack.bpf.h"

#define BT_PF_KTHREAD 0x00200000 /* include/linux/sched.h */
#define BT_TASK_DEAD 0x00000080	 /* the same value from 4.14 on */

const volatile __u32 bt_offcpu_ntgids = 0;
const volatile __u32 bt_offcpu_tgids[BT_OFFCPU_MAX_IDS] = {};
const volatile __u32 bt_offcpu_ntids = 0;
const volatile __u32 bt_offcpu_tids[BT_OFFCPU_MAX_IDS] = {};
const volatile bool bt_offcpu_user_threads = false;
const volatile bool bt_offcpu_kernel_threads = false;
const volatile bool bt_offcpu_by_state = false;
const volatile __u32 bt_offcpu_state = 0;
const volatile __u64 bt_offcpu_min_us = 1;
const volatile __u64 bt_offcpu_max_us = ~0ULL;
const volatile bool bt_offcpu_want_kernel = true; /* not -U */
const volatile bool bt_offcpu_want_user = true;	  /* not -K */

/*
 * The trace's window (bpf_ktime_get_ns(); 0: open), set by user space once every program is
 * attached, as its duration starts: a block counts when it begins and ends inside it. Before
 * it, the time attaching the rest (a starved CI machine took a third of a second) would be
 * counted beyond the seconds asked for; after it, however late a starved tool gets round to
 * stopping its programs. A block still going on at the end is not counted, as one is when a
 * tool detaches.
 */
__u64 bt_offcpu_from = 0;
__u64 bt_offcpu_until = 0;

static __always_inline bool bt_offcpu_outside(__u64 now)
{
	return now < bt_offcpu_from || (bt_offcpu_until && now >= bt_offcpu_until);
}

static __always_inline bool bt_offcpu_listed(const volatile __u32 *ids, __u32 n, __u32 id)
{
	__u32 i;

	for (i = 0; i < BT_OFFCPU_MAX_IDS; i++) {
		if (i >= n)
			break;
		if (ids[i] == id)
			return true;
	}
	return false;
}

/* Whether a thread going off-CPU (or being woken) is one the user asked about. */
static __always_inline bool bt_offcpu_wanted(__u32 tgid, __u32 tid, __u32 flags, __u32 state)
{
	if (!tid)
		return false; /* the idle task is not blocked */
	/* the tool's own blocks (system-wide) are the tracing's, not the system's */
	if (bt_filter_not_tgid && tgid == bt_filter_not_tgid)
		return false;
	if (bt_offcpu_ntgids && !bt_offcpu_listed(bt_offcpu_tgids, bt_offcpu_ntgids, tgid))
		return false;
	if (bt_offcpu_ntids && !bt_offcpu_listed(bt_offcpu_tids, bt_offcpu_ntids, tid))
		return false;
	if (bt_offcpu_user_threads && (flags & BT_PF_KTHREAD))
		return false;
	if (bt_offcpu_kernel_threads && !(flags & BT_PF_KTHREAD))
		return false;
	/* BCC: 0 means exactly TASK_RUNNING (preempted), anything else is a mask */
	if (bt_offcpu_by_state && (bt_offcpu_state ? !(state & bt_offcpu_state) : state != 0))
		return false;
	return true;
}

/* Block time in microseconds when it falls in [-m, -M], else 0. */
static __always_inline __u64 bt_offcpu_delta_us(__u64 start_ns, __u64 now_ns)
{
	__u64 us;

	if (now_ns <= start_ns)
		return 0;
	us = (now_ns - start_ns) / 1000;
	return us >= bt_offcpu_min_us && us <= bt_offcpu_max_us ? us : 0;
}

/* Before 5.14 the field was 'state'; 5.18 added the switch-out state to sched_switch. */
struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

static __always_inline __u32 bt_task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___pre514 *)t, state);
}

/* The same by plain loads, for a task a tp_btf program was given (lockdown allows those). */
static __always_inline __u32 bt_task_state_btf(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return t->__state;
	return ((struct task_struct___pre514 *)t)->state;
}

/*
 * Each thread's last block, by thread id, from its first switch-out to its exit (ts 0 once the
 * block is over): a switch writes the entry in place, where an insert and a delete per block
 * cost ~0.3 us more (the hash's free list and bucket lock, twice). In-flight table 0
 * (probes/bt_inflight.bpf.h): a thread that finds the table full is not timed.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, struct bt_offcpu_start);
} bt_offcpu_starts SEC(".maps");

/*
 * A start is built here, not on the stack: with the unwinder's calls below it the switch-out
 * would need more than the 512 bytes of stack Linux 6.1 allows (meta/bpf_stack). One program
 * at a time runs on a CPU (sched_switch does not nest).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bt_offcpu_start);
} bt_offcpu_scratch SEC(".maps");

/* The thread's clocks at a switch, read by each program its own way. */
struct bt_offcpu_clock {
	__u64 runtime;
	__u64 arrivals;
};

/* The tool's: sum us, the block thread tid just ended (s: how it began), under its key. */
static __always_inline void bt_offcpu_add_block(__u32 tid, const struct bt_offcpu_start *s,
						__u64 us);
/* The tool's: tid's block is over, counted or not. */
static __always_inline void bt_offcpu_block_over(__u32 tid);

/* Add us to the total of key in a hash map of __u64 sums. */
static __always_inline void bt_offcpu_sum(void *counts, const void *key, __u64 us)
{
	__u64 *total = bpf_map_lookup_elem(counts, key);

	if (total) {
		__sync_fetch_and_add(total, us);
	} else if (bpf_map_update_elem(counts, key, &us, BPF_NOEXIST)) {
		/* another CPU added it first */
		total = bpf_map_lookup_elem(counts, key);
		if (total)
			__sync_fetch_and_add(total, us);
	}
}

/* A block (s) whose end no event showed: off-CPU is the time since, less what the thread ran. */
static __always_inline void bt_offcpu_close_unseen(__u32 tid, const struct bt_offcpu_start *s,
						   const struct bt_offcpu_clock *c, __u64 now)
{
	__u64 ran, us;

	if (!c->arrivals || c->arrivals <= s->arrivals || c->runtime < s->runtime)
		return;
	ran = c->runtime - s->runtime;
	if (now <= s->ts + ran)
		return;
	us = bt_offcpu_delta_us(s->ts + ran, now);
	if (us)
		bt_offcpu_add_block(tid, s, us);
	bt_offcpu_block_over(tid);
}

static __always_inline void bt_offcpu_switch_out(void *ctx, __u32 tgid, __u32 tid, __u32 flags,
						 __u32 state, const struct bt_offcpu_clock *c)
{
	struct bt_offcpu_start *s, *e;
	__u32 zero = 0;
	__u64 now;

	/*
	 * The thread's last switch: it never comes back, and its id may soon name another
	 * thread, whose first switch-in must not close a block begun here. A block whose end
	 * no event showed is closed first: a process that sleeps once and exits (a sleep(1)
	 * run by a script) has no other switch-out to close it at, and lost its one block.
	 */
	if (state & BT_TASK_DEAD) {
		e = bpf_map_lookup_elem(&bt_offcpu_starts, &tid);
		now = bpf_ktime_get_ns();
		if (e && e->ts && !bt_offcpu_outside(now))
			bt_offcpu_close_unseen(tid, e, c, now);
		bpf_map_delete_elem(&bt_offcpu_starts, &tid);
		bt_offcpu_block_over(tid);
		return;
	}
	if (!bt_offcpu_wanted(tgid, tid, flags, state))
		return;
	/* first: the thread stops running its own code here, stack walks included */
	now = bpf_ktime_get_ns();
	if (bt_offcpu_outside(now))
		return;
	s = bpf_map_lookup_elem(&bt_offcpu_scratch, &zero);
	if (!s)
		return;
	s->ts = now;
	s->gen = bt_stack_generation();
	s->kernel_stack = bt_offcpu_want_kernel ? bt_get_stack(ctx, 0, s->gen) : 0;
	s->user_stack = 0;
	s->cookie = 0;
	/* a kernel thread has no user stack to take */
	if (bt_offcpu_want_user && !(flags & BT_PF_KTHREAD)) {
		s->user_stack = bt_get_stack(ctx, BPF_F_USER_STACK, s->gen);
		s->cookie = bt_note_pid(ctx, tgid);
	}
	s->tgid = tgid;
	s->state = state;
	bpf_get_current_comm(s->comm, sizeof(s->comm));
	s->runtime = c->runtime;
	s->arrivals = c->arrivals;
	/*
	 * The thread's entry is written over in place: only its own switch-in reads it, which
	 * cannot come before this switch-out is over. One still pending is a block whose end no
	 * event showed: closed first.
	 */
	e = bpf_map_lookup_elem(&bt_offcpu_starts, &tid);
	if (!e) {
		bt_inflight_put(&bt_offcpu_starts, 0, &tid, s, BPF_NOEXIST);
		return;
	}
	if (e->ts)
		bt_offcpu_close_unseen(tid, e, c, s->ts);
	__builtin_memcpy(e, s, sizeof(*s));
}

static __always_inline void bt_offcpu_switch_in(__u32 tid)
{
	struct bt_offcpu_start *s = bpf_map_lookup_elem(&bt_offcpu_starts, &tid);
	__u64 now, us;

	if (!s || !s->ts)
		return;
	now = bpf_ktime_get_ns();
	if (bt_offcpu_outside(now))
		return;
	us = bt_offcpu_delta_us(s->ts, now);
	if (us)
		bt_offcpu_add_block(tid, s, us);
	s->ts = 0; /* over; the entry stays the thread's until it exits */
	bt_offcpu_block_over(tid);
}

/* The four forms of sched_switch, as programs named by the tool (its probe table's names). */
#define BT_OFFCPU_SWITCH_PROGS(btf_state, raw_state, btf, raw)                                     \
	SEC("?tp_btf/sched_switch")                                                                \
	int BPF_PROG(btf_state, bool preempt, struct task_struct *prev, struct task_struct *next,  \
		     unsigned int prev_state)                                                      \
	{                                                                                          \
		struct bt_offcpu_clock c = { prev->se.sum_exec_runtime, prev->sched_info.pcount }; \
                                                                                                   \
		bt_offcpu_switch_out(ctx, prev->tgid, prev->pid, prev->flags, prev_state, &c);     \
		bt_offcpu_switch_in(next->pid);                                                    \
		return 0;                                                                          \
	}                                                                                          \
	SEC("?raw_tp/sched_switch")                                                                \
	int BPF_PROG(raw_state, bool preempt, struct task_struct *prev, struct task_struct *next,  \
		     unsigned int prev_state)                                                      \
	{                                                                                          \
		struct bt_offcpu_clock c = { BPF_CORE_READ(prev, se.sum_exec_runtime),             \
					     BPF_CORE_READ(prev, sched_info.pcount) };             \
                                                                                                   \
		bt_offcpu_switch_out(ctx, BPF_CORE_READ(prev, tgid), BPF_CORE_READ(prev, pid),     \
				     BPF_CORE_READ(prev, flags), prev_state, &c);                  \
		bt_offcpu_switch_in(BPF_CORE_READ(next, pid));                                     \
		return 0;                                                                          \
	}                                                                                          \
	SEC("?tp_btf/sched_switch")                                                                \
	int BPF_PROG(btf, bool preempt, struct task_struct *prev, struct task_struct *next)        \
	{                                                                                          \
		struct bt_offcpu_clock c = { prev->se.sum_exec_runtime, prev->sched_info.pcount }; \
                                                                                                   \
		bt_offcpu_switch_out(ctx, prev->tgid, prev->pid, prev->flags, bt_task_state(prev), \
				     &c);                                                          \
		bt_offcpu_switch_in(next->pid);                                                    \
		return 0;                                                                          \
	}                                                                                          \
	SEC("?raw_tp/sched_switch")                                                                \
	int BPF_PROG(raw, bool preempt, struct task_struct *prev, struct task_struct *next)        \
	{                                                                                          \
		struct bt_offcpu_clock c = { BPF_CORE_READ(prev, se.sum_exec_runtime),             \
					     BPF_CORE_READ(prev, sched_info.pcount) };             \
                                                                                                   \
		bt_offcpu_switch_out(ctx, BPF_CORE_READ(prev, tgid), BPF_CORE_READ(prev, pid),     \
				     BPF_CORE_READ(prev, flags), bt_task_state(prev), &c);         \
		bt_offcpu_switch_in(BPF_CORE_READ(next, pid));                                     \
		return 0;                                                                          \
	}

#endif
