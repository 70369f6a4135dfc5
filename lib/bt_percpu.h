/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU maps are how the probes count without atomics or contention; user space sums the
 * CPUs' copies when it prints.
 */
#ifndef BT_PERCPU_H
#define BT_PERCPU_H

#include <stddef.h>
#include <stdint.h>

/* Sum the per-CPU copies of a value made of n u64 counters into sum[0..n). */
int bt_percpu_sum(int map_fd, uint32_t key, uint64_t *sum, size_t n);
/* Zero every CPU's copy of the value of n u64 counters. */
int bt_percpu_zero(int map_fd, uint32_t key, size_t n);

#endif
