// SPDX-License-Identifier: GPL-2.0
/*
 * offwaketime: offcputime's blocked time, keyed by the sleeper's stacks and the stacks of the
 * thread that woke it. The waker is recorded at sched_waking, which runs in the waker's context
 * (sched_wakeup can run on the woken task's CPU, where current is not the waker); the sleeper is
 * recorded as it leaves the CPU, and the time is added in the kernel when it is switched in
 * (probes/bt_offcpu.bpf.h keeps the books).
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bt_offcpu.bpf.h"
#include "offwaketime.h"

/*
 * The last waker of each sleeping thread, by the sleeper's thread id: in-flight table 1 (0 is
 * bt_offcpu_starts).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, struct offwaketime_waker);
} wakers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, struct offwaketime_key);
	__type(value, __u64);
} counts SEC(".maps");

static __always_inline void waking(void *ctx, __u32 tgid, __u32 tid, __u32 flags, __u32 state)
{
	struct offwaketime_waker w = {};
	__u64 id = bpf_get_current_pid_tgid();

	if (!bt_offcpu_wanted(tgid, tid, flags, state))
		return;
	w.gen = bt_stack_generation();
	w.tid = (__u32)id;
	w.tgid = id >> 32;
	if (bt_offcpu_want_kernel)
		w.kernel_stack = bt_get_stack(ctx, 0, w.gen);
	if (bt_offcpu_want_user && w.tgid) {
		w.user_stack = bt_get_stack(ctx, BPF_F_USER_STACK, w.gen);
		w.cookie = bt_note_pid(ctx, w.tgid);
	}
	bpf_get_current_comm(w.comm, sizeof(w.comm));
	bt_inflight_put(&wakers, 1, &tid, &w, BPF_ANY);
}

static __always_inline void bt_offcpu_add_block(__u32 tid, const struct bt_offcpu_start *s,
						__u64 us)
{
	struct offwaketime_key key = {};
	struct offwaketime_waker *w = bpf_map_lookup_elem(&wakers, &tid);

	key.target_kernel_stack = s->kernel_stack;
	key.target_user_stack = s->user_stack;
	key.target_tid = tid;
	key.target_tgid = s->tgid;
	key.target_cookie = s->cookie;
	__builtin_memcpy(key.target, s->comm, sizeof(key.target));
	if (w) {
		key.waker_kernel_stack = w->kernel_stack;
		key.waker_user_stack = w->user_stack;
		key.waker_tid = w->tid;
		key.waker_tgid = w->tgid;
		key.waker_cookie = w->cookie;
		__builtin_memcpy(key.waker, w->comm, sizeof(key.waker));
	}
	key.gen = s->gen;
	key.target_state = s->state;
	bt_offcpu_sum(&counts, &key, us);
}

/* the next block of tid has a waker of its own */
static __always_inline void bt_offcpu_block_over(__u32 tid)
{
	bpf_map_delete_elem(&wakers, &tid);
}

BT_OFFCPU_SWITCH_PROGS(owt_switch_btf_state, owt_switch_raw_state, owt_switch_btf, owt_switch_raw)

/* sched_waking(p): p's state is still the sleeping one here, which --state looks at */
SEC("?tp_btf/sched_waking")
int BPF_PROG(owt_waking_btf, struct task_struct *p)
{
	waking(ctx, p->tgid, p->pid, p->flags, bt_task_state_btf(p));
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
