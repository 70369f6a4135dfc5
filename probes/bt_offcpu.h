/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by probes/bt_offcpu.bpf.h and the off-CPU commands. */
#ifndef BT_OFFCPU_H
#define BT_OFFCPU_H

#define BT_OFFCPU_MAX_IDS 64 /* entries of a -p or -t list */
#define BT_OFFCPU_COMM_LEN 16

/*
 * A thread off-CPU now (bt_offcpu_starts): when it left, its clocks then, and its stacks and
 * name. User space holds the stacks of entries with a ts across a release: the count that
 * names them is written when the thread is switched in.
 */
struct bt_offcpu_start {
	__u64 ts;
	__u64 runtime;	/* the thread's sum_exec_runtime at switch-out */
	__u64 arrivals; /* and its sched_info.pcount */
	__u64 kernel_stack;
	__u64 user_stack;
	__u32 tgid;
	__u32 cookie; /* the process's (bt_note_pid): names its user stack after it is gone */
	__u32 gen;
	__u32 state; /* the thread's state as it left (profile --wall names it) */
	char comm[BT_OFFCPU_COMM_LEN];
};

#endif
