/* SPDX-License-Identifier: GPL-2.0 */
/* The event probes/biosnoop.bpf.c sends cmd/biosnoop.c, one per completed request. */
#ifndef BT_BIOSNOOP_H
#define BT_BIOSNOOP_H

#define BIOSNOOP_NO_QUEUE (~0ULL) /* qdelta when the request was not seen queued */

enum biosnoop_pattern {
	BIOSNOOP_UNKNOWN,
	BIOSNOOP_SEQUENTIAL,
	BIOSNOOP_RANDOM,
};

struct biosnoop_event {
	__u64 ts;     /* completion, CLOCK_MONOTONIC ns */
	__u64 delta;  /* issue to completion, ns */
	__u64 qdelta; /* queued (created or inserted) to issue, ns; BIOSNOOP_NO_QUEUE */
	__u64 sector;
	__u32 len; /* bytes */
	__u32 pid; /* the process that submitted the request; 0 when not seen */
	__u32 dev; /* the disk, kernel encoding (major << 20 | minor) */
	__u32 op;  /* enum bt_rq_op */
	__u32 flags;
	__u32 pattern; /* enum biosnoop_pattern, with -P */
	char comm[16]; /* "?" when not seen */
};

/*
 * A request in flight (the probes' map reqs), from its creation or issue to its completion;
 * read at exit too, where an entry issued and never completed is a completion not seen.
 */
struct biosnoop_req {
	__u64 queued_ts;
	__u64 issue_ts; /* 0: not issued while traced */
	__u64 bio;	/* the first bio at issue; 0 for the flush request the kernel reuses */
	__u64 sector;
	__u32 dev;
	__u32 len;
	__u32 op;
	__u32 flags;
	__u32 pid;
	__u32 has_task; /* pid and comm are the submitter's */
	char comm[16];
};

/* The exporter's totals (aggregate): per disk and operation, no events. */
struct biosnoop_io_key {
	__u32 dev;
	__u32 op;
};

struct biosnoop_io_total {
	__u64 requests;
	__u64 bytes;
};

#define BIOSNOOP_IO_KEYS 1024

#endif
