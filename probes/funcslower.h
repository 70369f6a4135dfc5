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
	__u64 user_caller; /* uprobe entry: the return address the stack walk cannot see yet */
	__u32 tgid;
	__u32 index;	       /* the entry target's index in struct bt_targets */
	__s32 kernel_stack_id; /* -1: not captured */
	__s32 user_stack_id;
	char comm[FUNCSLOWER_COMM_LEN];
};

#endif
