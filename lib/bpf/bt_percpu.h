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
/*
 * The summing itself: buf holds ncpu copies of n u64 counters, CPU after CPU, as a per-CPU
 * map lookup returns them (each copy rounded up to 8 bytes, which u64s already are).
 */
void bt_percpu_sum_buf(const uint64_t *buf, int ncpu, size_t n, uint64_t *sum);
/* Zero every CPU's copy of the value of n u64 counters. */
int bt_percpu_zero(int map_fd, uint32_t key, size_t n);

#endif
