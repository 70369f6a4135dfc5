/* SPDX-License-Identifier: GPL-2.0 */
/* Map layout shared by probes/hardirqs.bpf.c and cmd/hardirqs.c. */
#ifndef BT_HARDIRQS_H
#define BT_HARDIRQS_H

#define HARDIRQ_NAME_LEN 32    /* BCC's irq_key_t name */
#define HARDIRQ_SLOTS 65       /* log2 slots: any u64 (lib/output/bt_hist.h) */
#define HARDIRQ_MAX_NAMES 1024 /* distinct handler names kept */

/* The handler's action name, zero-padded: the key of both maps. */
struct hardirq_key {
	char name[HARDIRQ_NAME_LEN];
};

/* Per-CPU running totals per name (never reset: lib/output/bt_summary reports their growth). */
struct hardirq_total {
	__u64 time_ns; /* 0 with -C */
	__u64 count;
};

/* -d: per-CPU log2 slots of the handler time in the chosen unit. */
struct hardirq_dist {
	__u64 slots[HARDIRQ_SLOTS];
};

#endif
