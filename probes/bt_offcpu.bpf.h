/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What offcputime and offwaketime share: which threads count (BCC's -p/-t lists, -u, -k,
 * --state) and the block-time window (-m/-M). All read-only data, set before load, so the
 * verifier drops the filters that are not in use.
 */
#ifndef BT_OFFCPU_BPF_H
#define BT_OFFCPU_BPF_H

#include "bt_offcpu.h"

#define BT_PF_KTHREAD 0x00200000 /* include/linux/sched.h */

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

#endif
