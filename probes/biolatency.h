/* SPDX-License-Identifier: GPL-2.0 */
/* Map layout shared by probes/biolatency.bpf.c and cmd/biolatency.c. */
#ifndef BT_BIOLATENCY_H
#define BT_BIOLATENCY_H

#define BIOLAT_SLOTS 65

/* With neither -D nor -F every request has the key {0, 0}. */
struct biolat_key {
	__u32 dev;   /* -D: the disk, kernel encoding (major << 20 | minor) */
	__u32 flags; /* -F: enum bt_rq_op | enum bt_rq_flag << 8 (probes/bt_block.h) */
};

/*
 * A request from creation to completion, keyed by its address. User space reads what is left
 * at exit: requests issued and never seen to complete.
 */
struct biolat_start {
	__u64 ts;    /* 0: not started yet (created, without -Q) */
	bool queued; /* ts is the creation or insertion, kept when the request is issued */
	bool passed; /* the creating task passed the process filter (-c) */
	bool issued; /* the fields below are read */
	__u32 dev;   /* read at issue, as the completion's key: the request does not move */
	__u32 op_flags;
	__u64 bio; /* the first bio at issue: a requeued request keeps it, another one has its own */
};

/* Running totals, never cleared (lib/output/bt_summary.h): per CPU. */
struct biolat_val {
	__u64 total; /* in the histogram's unit, as BCC's -e */
	__u64 count;
	__u64 slots[BIOLAT_SLOTS];
};

#endif
