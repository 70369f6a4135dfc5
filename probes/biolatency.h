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

/* Running totals, never cleared (lib/bt_summary.h): per CPU. */
struct biolat_val {
	__u64 total; /* in the histogram's unit, as BCC's -e */
	__u64 count;
	__u64 slots[BIOLAT_SLOTS];
};

#endif
