/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log2 histograms printed byte-for-byte as BCC's Python tools print them, because people
 * parse that output. Slot i (i >= 1) holds values in [2^(i-1), 2^i - 1]; slot 1 also holds 0.
 * The BPF side computes slots with bt_log2_slot() from probes/bt_common.bpf.h.
 */
#ifndef BT_HIST_H
#define BT_HIST_H

#include <stdint.h>
#include <stdio.h>

#define BT_HIST_SLOTS 65 /* enough for any u64 */

/* Prints nothing when every slot is zero, as BCC does. */
void bt_hist_print_log2(FILE *out, const uint64_t *vals, int nslots, const char *val_type);

/*
 * BCC's print_linear_hist: slot i holds the value i; prints nothing when every slot is zero.
 */
void bt_hist_print_linear(FILE *out, const uint64_t *vals, int nslots, const char *val_type);

/*
 * The line BCC prints under a latency histogram (funclatency; biolatency -e) when anything was
 * counted: "avg = A UNIT, total: T UNIT, count: N", blank lines around it; A is T / N, truncated.
 */
void bt_hist_print_avg(FILE *out, uint64_t total, uint64_t count, const char *unit);

/* The range [*low, *high] a log2 slot prints (slot >= 1). */
void bt_hist_log2_range(int slot, uint64_t *low, uint64_t *high);

/* The same slot rule on the host side (tests, user-space aggregation). */
unsigned int bt_log2_slot(uint64_t v);

#endif
