/* SPDX-License-Identifier: GPL-2.0 */
/* Map layout shared by probes/stackcount.bpf.c and cmd/stackcount.c. */
#ifndef BT_STACKCOUNT_H
#define BT_STACKCOUNT_H

#define STACKCOUNT_COMM_LEN 16

struct stackcount_key {
	__u64 kernel_stack; /* stack ids (probes/bt_stack.h) */
	__u64 user_stack;
	/*
	 * At a uprobe on a function's first instruction the frame-pointer walk cannot see the
	 * caller yet (its return address is only on the stack): recorded here, spliced in by
	 * user space.
	 */
	__u64 user_caller;
	__u32 tgid;			/* always recorded: user frames are named per process */
	__u32 cookie;			/* which process of tgid (probes/bt_stack.h: BT_PROC) */
	__u32 gen;			/* the stack generation the entry was written in */
	char comm[STACKCOUNT_COMM_LEN]; /* only with -P (keeps keys fewer otherwise) */
};

#endif
