/* SPDX-License-Identifier: GPL-2.0 */
/* Map layout shared by probes/offcputime.bpf.c and cmd/offcputime.c. */
#ifndef BT_OFFCPUTIME_H
#define BT_OFFCPUTIME_H

#include "bt_offcpu.h"

/* Off-CPU time in microseconds is summed under this key. */
struct offcputime_key {
	__u64 kernel_stack; /* stack ids (probes/bt_stack.h) */
	__u64 user_stack;
	__u32 tid;
	__u32 tgid;
	__u32 gen;    /* the stack generation the entry was written in */
	__u32 cookie; /* which process of tgid (probes/bt_stack.h: BT_PROC) */
	__u32 state;  /* as the thread left the CPU: the graphs' "[off-cpu: S]" frame */
	__u32 pad;
	char comm[BT_OFFCPU_COMM_LEN];
};

/*
 * The exporter's offcputime (by_comm): no stacks, the time summed per command name and the
 * state the thread left the CPU in, a bounded key set however many threads come and go.
 */
#define OFFCPU_COMM_KEYS 4096
struct offcputime_comm_key {
	char comm[BT_OFFCPU_COMM_LEN];
	__u32 state; /* the switch-out state: 0 preempted (runnable), 1 sleeping, 2 disk, ... */
	__u32 pad;
};

#endif
