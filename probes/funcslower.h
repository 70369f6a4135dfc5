/* SPDX-License-Identifier: GPL-2.0 */
/* The event shared by probes/funcslower.bpf.c and cmd/funcslower.c. */
#ifndef BT_FUNCSLOWER_H
#define BT_FUNCSLOWER_H

#define FUNCSLOWER_COMM_LEN 16
#define FUNCSLOWER_MAX_ARGS 6 /* what BCC records (x86-64 passes six in registers) */

/* One slow call, sent when it returns. */
struct funcslower_event {
	__u64 start_ns;	   /* bpf_ktime_get_ns() at entry (-t) */
	__u64 duration_ns; /* entry to return */
	__u64 retval;
	__u64 args[FUNCSLOWER_MAX_ARGS]; /* only with -a */
	__u64 user_caller;  /* uprobe entry: the return address the stack walk cannot see yet */
	__u64 kernel_stack; /* stack ids (probes/bt_stack.h) */
	__u64 user_stack;
	__u32 tgid;
	__u32 index; /* the entry target's index in struct bt_targets */
	char comm[FUNCSLOWER_COMM_LEN];
};

/* A call in progress, per thread: what its return needs. */
struct funcslower_inflight {
	__u64 start_ns;
	__u64 args[FUNCSLOWER_MAX_ARGS];
	__u64 user_caller;
	__u64 kernel_stack;
	__u64 user_stack;
	__u32 index;
	__u32 pad;
};

#endif
