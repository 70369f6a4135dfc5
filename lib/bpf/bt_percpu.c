// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bt_percpu.h"

/* One buffer for all CPUs' copies, kept between calls: this runs every interval. */
static uint64_t *scratch;
static size_t scratch_n;

static uint64_t *scratch_get(size_t n, int *ncpu)
{
	*ncpu = libbpf_num_possible_cpus();
	if (*ncpu <= 0)
		return NULL;
	if (scratch_n < n * *ncpu) {
		uint64_t *p = realloc(scratch, n * *ncpu * sizeof(*p));

		if (!p)
			return NULL;
		scratch = p;
		scratch_n = n * *ncpu;
	}
	return scratch;
}

int bt_percpu_sum(int map_fd, uint32_t key, uint64_t *sum, size_t n)
{
	uint64_t *buf;
	int ncpu;

	buf = scratch_get(n, &ncpu);
	if (!buf)
		return -ENOMEM;
	if (bpf_map_lookup_elem(map_fd, &key, buf))
		return -errno;
	bt_percpu_sum_buf(buf, ncpu, n, sum);
	return 0;
}

void bt_percpu_sum_buf(const uint64_t *buf, int ncpu, size_t n, uint64_t *sum)
{
	size_t i;
	int cpu;

	memset(sum, 0, n * sizeof(*sum));
	for (cpu = 0; cpu < ncpu; cpu++)
		for (i = 0; i < n; i++)
			sum[i] += buf[(size_t)cpu * n + i];
}

int bt_percpu_zero(int map_fd, uint32_t key, size_t n)
{
	uint64_t *buf;
	int ncpu;

	buf = scratch_get(n, &ncpu);
	if (!buf)
		return -ENOMEM;
	memset(buf, 0, n * ncpu * sizeof(*buf));
	if (bpf_map_update_elem(map_fd, &key, buf, BPF_ANY))
		return -errno;
	return 0;
}
