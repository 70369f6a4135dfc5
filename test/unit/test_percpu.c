// SPDX-License-Identifier: GPL-2.0
/*
 * lib/bpf/bt_percpu: the CPU-by-CPU layout summed right, and, where this process may create BPF
 * maps (root or CAP_BPF), a real per-CPU array: every CPU's copy written, summed, zeroed.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bt_percpu.h"
#include "harness.h"

static void test_sum_buf(void)
{
	/* 3 CPUs, 2 counters each */
	const uint64_t buf[] = { 1, 10, 2, 20, 4, 40 };
	uint64_t sum[2] = { 99, 99 };

	bt_percpu_sum_buf(buf, 3, 2, sum);
	CHECK_INT(sum[0], 7);
	CHECK_INT(sum[1], 70);
	bt_percpu_sum_buf(buf, 1, 2, sum); /* the first CPU only */
	CHECK_INT(sum[0], 1);
	CHECK_INT(sum[1], 10);
	bt_percpu_sum_buf(buf, 0, 2, sum); /* no CPU: zeros, not what was there */
	CHECK_INT(sum[0], 0);
	CHECK_INT(sum[1], 0);
}

/* u64 wrap-around is the counters' own arithmetic: sums are modulo 2^64, never UB. */
static void test_sum_wraps(void)
{
	const uint64_t buf[] = { UINT64_MAX, 2 };
	uint64_t sum;

	bt_percpu_sum_buf(buf, 2, 1, &sum);
	CHECK_INT(sum, 1);
}

static void test_real_map(void)
{
	int ncpu = libbpf_num_possible_cpus(), fd, cpu;
	uint64_t *vals, sum[2], want0 = 0, want1 = 0;
	uint32_t key = 1;

	CHECK(ncpu > 0);
	if (ncpu <= 0)
		return;
	fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "bt_test_pc", sizeof(key),
			    2 * sizeof(uint64_t), 2, NULL);
	if (fd < 0 && (errno == EPERM || errno == EACCES)) {
		printf("# skipped: cannot create BPF maps here (%s)\n", strerror(errno));
		return;
	}
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	vals = calloc(2 * ncpu, sizeof(*vals));
	CHECK(vals != NULL);
	if (!vals)
		goto out;
	for (cpu = 0; cpu < ncpu; cpu++) {
		vals[2 * cpu] = cpu + 1;
		vals[2 * cpu + 1] = 1000ULL * (cpu + 1);
		want0 += cpu + 1;
		want1 += 1000ULL * (cpu + 1);
	}
	CHECK_INT(bpf_map_update_elem(fd, &key, vals, BPF_ANY), 0);
	CHECK_INT(bt_percpu_sum(fd, key, sum, 2), 0);
	CHECK_INT(sum[0], want0);
	CHECK_INT(sum[1], want1);
	/* the other key was never written: zeros */
	CHECK_INT(bt_percpu_sum(fd, 0, sum, 2), 0);
	CHECK_INT(sum[0] + sum[1], 0);
	CHECK_INT(bt_percpu_zero(fd, key, 2), 0);
	CHECK_INT(bt_percpu_sum(fd, key, sum, 2), 0);
	CHECK_INT(sum[0] + sum[1], 0);
	/* out of range: the map's error comes back as -errno */
	CHECK_INT(bt_percpu_sum(fd, 7, sum, 2), -ENOENT);
	free(vals);
out:
	close(fd);
}

int main(void)
{
	BT_RUN(test_sum_buf);
	BT_RUN(test_sum_wraps);
	BT_RUN(test_real_map);
	return bt_test_done();
}
