/* SPDX-License-Identifier: GPL-2.0 */
/* The event probes/stacksnoop.bpf.c sends and cmd/stacksnoop.c prints, one per call. */
#ifndef BT_STACKSNOOP_H
#define BT_STACKSNOOP_H

#define STACKSNOOP_COMM_LEN 16

struct stacksnoop_event {
	__u64 ts; /* bpf_ktime_get_ns() (CLOCK_MONOTONIC) at the call */
	/*
	 * At a uprobe on a function's first instruction the frame-pointer walk cannot see the
	 * caller yet (its return address is only on the stack): recorded here, spliced in by
	 * user space.
	 */
	__u64 user_caller;
	__u64 kernel_stack; /* stack ids (probes/bt_stack.h) */
	__u64 user_stack;
	__u32 tgid;
	__u32 cpu;
	__u32 index;  /* the target that fired (its FUNCTION name) */
	__u32 cookie; /* which process of tgid (probes/bt_stack.h: BT_PROC) */
	char comm[STACKSNOOP_COMM_LEN];
};

#endif
