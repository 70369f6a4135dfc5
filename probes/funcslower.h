/* SPDX-License-Identifier: GPL-2.0 */
/* The event shared by probes/funcslower.bpf.c and cmd/funcslower.c. */
#ifndef BT_FUNCSLOWER_H
#define BT_FUNCSLOWER_H

#include "bt_call.h"

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
	__u32 index;  /* the entry target's index in struct bt_targets */
	__u32 cookie; /* which process of tgid (probes/bt_stack.h: BT_PROC), with -U */
	__u32 pad;
	char comm[FUNCSLOWER_COMM_LEN];
};

/*
 * With -B and -S: the distinct stacks at which a call blocked (switched off-CPU) and at which
 * timer samples found it running, kept in the kernel from the call's start. A fixed number of
 * stacks per call; what happened at further stacks is summed in 'other_*'.
 */
#define FUNCSLOWER_MAX_STACKS 16 /* a power of two */

struct funcslower_block {
	__u64 kernel_stack; /* where it switched out (stack ids) */
	__u64 user_stack;
	__u64 first_ns; /* the first switch-out at this stack (bpf_ktime_get_ns) */
	__u64 last_ns;	/* the last switch-in after blocking here */
	__u64 total_ns; /* off-CPU in all */
	__u64 count;
};

struct funcslower_sample {
	__u64 kernel_stack;
	__u64 user_stack;
	__u64 count;
};

/*
 * Per thread while a call runs, and sent whole for a slow call (the event first, so that a
 * record shorter than this is a plain event: the profile found no room).
 */
struct funcslower_profile {
	struct funcslower_event ev;
	__u64 off_ns; /* switched out at, 0 while on CPU */
	__u64 off_kernel_stack;
	__u64 off_user_stack;
	__u64 off_runtime;  /* the thread's sum_exec_runtime at switch-out */
	__u64 off_arrivals; /* and its sched_info.pcount */
	/* a timer sample's stacks: kept in the map, not in registers, so the verifier's paths
	 * through the two stack captures merge */
	__u64 sample_kernel_stack;
	__u64 sample_user_stack;
	__u32 nblocks;
	__u32 nsamples;
	struct funcslower_block other_blocks; /* stacks past FUNCSLOWER_MAX_STACKS */
	__u64 other_samples;
	struct funcslower_block blocks[FUNCSLOWER_MAX_STACKS];
	struct funcslower_sample samples[FUNCSLOWER_MAX_STACKS];
};

/*
 * A call in progress, per thread: what its return needs. call.cookie is the process's
 * announcement (bt_note_pid): it names the call's stacks after the process exited.
 */
struct funcslower_inflight {
	struct bt_call call; /* probes/bt_call.h */
	__u64 args[FUNCSLOWER_MAX_ARGS];
	__u64 user_caller;
	__u64 kernel_stack;
	__u64 user_stack;
};

#endif
