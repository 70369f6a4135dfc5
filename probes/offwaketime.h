/* SPDX-License-Identifier: GPL-2.0 */
/* Map layout shared by probes/offwaketime.bpf.c and cmd/offwaketime.c. */
#ifndef BT_OFFWAKETIME_H
#define BT_OFFWAKETIME_H

#include "bt_offcpu.h"

/* Blocked time in microseconds is summed under this key: who slept where, who woke it how. */
struct offwaketime_key {
	__u64 target_kernel_stack; /* stack ids (probes/bt_stack.h) */
	__u64 target_user_stack;
	__u64 waker_kernel_stack;
	__u64 waker_user_stack;
	__u32 target_tid, target_tgid;
	__u32 waker_tid, waker_tgid;
	__u32 gen;			   /* the stack generation the entry was written in */
	__u32 target_cookie, waker_cookie; /* which process of each tgid (BT_PROC) */
	__u32 target_state; /* as the sleeper left the CPU: the graphs' "[off-cpu: S]" frame */
	char target[BT_OFFCPU_COMM_LEN];
	char waker[BT_OFFCPU_COMM_LEN];
};

/*
 * The last waker of a sleeping thread (the wakers map, by the sleeper's thread id): its stacks
 * are held across a release until the sleeper's count names them.
 */
struct offwaketime_waker {
	__u64 kernel_stack;
	__u64 user_stack;
	__u32 tid, tgid;
	__u32 cookie;
	__u32 gen;
	char comm[BT_OFFCPU_COMM_LEN];
};

#endif
