/* SPDX-License-Identifier: GPL-2.0 */
/* Map layout shared by probes/smpcalls.bpf.c and cmd/smpcalls.c. */
#ifndef BT_SMPCALLS_H
#define BT_SMPCALLS_H

#define SMPCALL_SLOTS 65	 /* log2 slots of nanoseconds: any u64 (lib/output/bt_hist.h) */
#define SMPCALL_MAX_KEYS 10240	 /* histograms kept (function x stack x process name) */
#define SMPCALL_MAX_QUEUED 16384 /* cross calls queued and not yet run, tracked at once */
#define SMPCALL_COMM_LEN 16

enum smpcall_kind {
	/* csd tracepoints: the function's run time on the target CPU; kprobes: the caller's time
	 * in smp_call_function_*(), or the IPI handler's time, as the bpftrace original */
	SMPCALL_TIME = 0,
	SMPCALL_QUEUE = 1, /* csd tracepoints only: from queued to started on the target CPU */
	/* csd tracepoints only: the run time of a function a CPU called on itself (no csd, no
	 * IPI: /proc/interrupts does not count it), kept apart from the cross calls */
	SMPCALL_LOCAL = 2,
};

struct smpcall_key {
	__u64 func;  /* the called function's address (kprobes: the IPI handler's own) */
	__u64 stack; /* -K: the caller's kernel stack id (lib/stacks/bt_stacks), else 0 */
	__u32 kind;  /* enum smpcall_kind */
	char comm[SMPCALL_COMM_LEN]; /* -K: the caller's name, as the book's variant keys it */
	__u32 pad;
};

/* Per-CPU running totals (never reset: lib/output/bt_summary reports their growth). */
struct smpcall_hist {
	__u64 total_ns;
	__u64 count;
	__u64 slots[SMPCALL_SLOTS];
};

#endif
