/* SPDX-License-Identifier: GPL-2.0 */
/* Map layout shared by probes/profile.bpf.c and cmd/profile.c. */
#ifndef BT_PROFILE_H
#define BT_PROFILE_H

#include "bt_offcpu.h"

#define PROFILE_ON_CPU 0xffffffffU /* key.state of a sample: the thread was running */
#define PROFILE_NO_CPU 0xffffffffU /* key.cpu of --wall's off-CPU time: on no CPU */

/*
 * Samples are counted under this key (with --wall: microseconds, samples weighted by the
 * period, and the time threads spent off-CPU).
 */
struct profile_key {
	__u64 kernel_stack; /* stack ids (probes/bt_stack.h) */
	__u64 user_stack;
	/* --wall, --json, --pprof: the thread; 0 otherwise (BCC counts by process) */
	__u32 tid;
	__u32 tgid;   /* 0: the idle task (-I) */
	__u32 gen;    /* the stack generation the entry was written in */
	__u32 cookie; /* which process of tgid (probes/bt_stack.h: BT_PROC) */
	/* PROFILE_ON_CPU, or (--wall) the state the thread left the CPU in (TASK_*) */
	__u32 state;
	__u32 cpu; /* --json, --pprof: the sample's CPU (PROFILE_NO_CPU: off-CPU); 0 otherwise */
	char comm[BT_OFFCPU_COMM_LEN];
};

#endif
