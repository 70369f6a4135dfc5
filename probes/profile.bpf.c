// SPDX-License-Identifier: GPL-2.0
/*
 * profile: a cpu-clock (or cycles) perf event on each CPU runs profile_sample(), which counts
 * the interrupted thread's stacks in the kernel; user space reads the counts once, at the end.
 * With --wall the sched_switch programs of probes/bt_offcpu.bpf.h also sum the time the
 * selected threads spend off-CPU, by stack and state, and a sample counts its period rather
 * than 1: the two add up to each thread's wall time in one unit (microseconds).
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bt_common.bpf.h"
#include "bt_offcpu.bpf.h"
#include "profile.h"

const volatile bool include_idle = false; /* -I */
const volatile bool wall = false;	  /* --wall: a key per thread, state in it */
const volatile __u64 sample_value = 1;	  /* what a sample adds: 1, or its period in us */
/* --json, --pprof: a count per thread and CPU, which they show (text and -f merge them) */
const volatile bool by_thread = false;

/* BCC's --hash-storage-size default */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 40960);
	__type(key, struct profile_key);
	__type(value, __u64);
} counts SEC(".maps");

SEC("perf_event")
int profile_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32, tid = (__u32)id;
	struct profile_key key = {};
	bool kthread;

	/* the idle task: pid 0 on every CPU, a CPU with nothing to run (BCC leaves it out) */
	if (!tid && !include_idle)
		return 0;
	/* the trace's window: the clock is read only once user space has set one */
	if ((bt_offcpu_from || bt_offcpu_until) && bt_offcpu_outside(bpf_ktime_get_ns()))
		return 0;
	if (bt_offcpu_ntgids && !bt_offcpu_listed(bt_offcpu_tgids, bt_offcpu_ntgids, tgid))
		return 0;
	if (bt_offcpu_ntids && !bt_offcpu_listed(bt_offcpu_tids, bt_offcpu_ntids, tid))
		return 0;
	if (bt_filtered_out())
		return 0;
	/* bpf_get_current_task_btf() came with 5.11: a CO-RE read loads on 5.10 too */
	kthread = !tid || (BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), flags) &
			   BT_PF_KTHREAD);
	key.gen = bt_stack_generation();
	key.kernel_stack = bt_offcpu_want_kernel ? bt_get_stack(ctx, 0, key.gen) : BT_STACK_NONE;
	/* a kernel thread (and the idle task) has no user stack to take */
	if (bt_offcpu_want_user && !kthread) {
		key.user_stack = bt_get_stack(ctx, BPF_F_USER_STACK, key.gen);
		key.cookie = bt_note_pid(ctx, tgid);
	}
	key.tgid = tgid;
	key.tid = wall || by_thread ? tid : 0;
	key.cpu = by_thread ? bpf_get_smp_processor_id() : 0;
	key.state = PROFILE_ON_CPU;
	bpf_get_current_comm(key.comm, sizeof(key.comm));
	bt_offcpu_sum(&counts, &key, sample_value);
	return 0;
}

/* --wall: a block of a selected thread, under its stacks and the state it left in. */
static __always_inline void bt_offcpu_add_block(__u32 tid, const struct bt_offcpu_start *s,
						__u64 us)
{
	struct profile_key key = {};

	key.kernel_stack = s->kernel_stack;
	key.user_stack = s->user_stack;
	key.tid = tid;
	key.tgid = s->tgid;
	key.cookie = s->cookie;
	key.gen = s->gen;
	key.state = s->state;
	key.cpu = PROFILE_NO_CPU;
	__builtin_memcpy(key.comm, s->comm, sizeof(key.comm));
	bt_offcpu_sum(&counts, &key, us);
}

static __always_inline void bt_offcpu_block_over(__u32 tid)
{
}

BT_OFFCPU_SWITCH_PROGS(wall_btf_state, wall_raw_state, wall_btf, wall_raw)

char LICENSE[] SEC("license") = "GPL";
