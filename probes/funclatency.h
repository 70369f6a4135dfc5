/* SPDX-License-Identifier: GPL-2.0 */
/* What probes/funclatency.bpf.c and cmd/funclatency.c share. */
#ifndef BT_FUNCLATENCY_H
#define BT_FUNCLATENCY_H

#define FL_SLOTS 65	     /* log2 slots: enough for any u64 (lib/output/bt_hist.h) */
#define FL_MAX_LEVEL 32	     /* -l: entry timestamps kept per thread */
#define FL_MAX_HISTS 10240   /* histograms per (function, process): BCC's default map size */
#define FL_MAX_THREADS 10240 /* threads inside a traced function at one time */

/*
 * The target list holds every function twice: entries at 0..n-1, returns at n..2n-1
 * (lib/attach/bt_calls.h). A histogram is keyed by the entry index of the function (-F, or user
 * functions without -p) and the process (user functions: BCC prints "NAME [PID]"); unused
 * parts of the key are 0.
 */
struct fl_hist_key {
	__u32 func;
	__u32 tgid;
};

/* One histogram, per CPU: slots of the latency in the chosen unit, and the sum in ns. */
struct fl_hist {
	__u64 total_ns;
	__u64 slots[FL_SLOTS];
};

/* With -l: one level's entry (without it, each thread's call is a struct bt_call). */
struct fl_start {
	__u64 ts;
	__u32 func;
	__u32 pad;
};

/*
 * With -l: a per-thread stack. depth counts every traced call in progress, also the ones
 * deeper than 'level' that have no slot, so returns pop the right entry (BCC's stack stops
 * counting when full and then pairs deep returns with outer entries).
 */
struct fl_stack {
	__u32 depth;
	__u32 pad;
	struct fl_start e[FL_MAX_LEVEL];
};

#endif
