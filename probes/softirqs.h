/* SPDX-License-Identifier: GPL-2.0 */
/* Map layout shared by probes/softirqs.bpf.c and cmd/softirqs.c. */
#ifndef BT_SOFTIRQS_H
#define BT_SOFTIRQS_H

#define SOFTIRQ_VECS 10 /* NR_SOFTIRQS since 3.x: hi .. rcu */
#define SOFTIRQ_SLOTS 65

/* Per-CPU value of the 'stats' array, one entry per vector: running totals, never zeroed. */
struct softirq_stat {
	__u64 total_ns; /* time spent, or events with -C */
	__u64 count;
	__u64 slots[SOFTIRQ_SLOTS];
};

#endif
