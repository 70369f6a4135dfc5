// SPDX-License-Identifier: GPL-2.0
/*
 * vfsstat's collector over fixed counts. It reads its per-CPU array itself, which needs BPF:
 * the read is replaced here by one of these counts.
 */
#include <bpf/libbpf.h>

#include "bt_percpu.h"

int fake_percpu_sum(int map_fd, uint32_t key, uint64_t *sum, size_t n);
#define bt_percpu_sum fake_percpu_sum
#define bpf_map__fd(map) ((void)(map), 3)
#include "vfsstat.c"
#undef bt_percpu_sum

int golden_vfsstat(FILE *out);

static uint64_t counts[VFSSTAT_NCOLS];

int fake_percpu_sum(int map_fd, uint32_t key, uint64_t *sum, size_t n)
{
	(void)map_fd;
	(void)n;
	*sum = counts[key];
	return 0;
}

int golden_vfsstat(FILE *out)
{
	struct vfsstat_bpf skel = { 0 };
	struct collector c = { .skel = &skel };
	struct bt_prom *p = bt_prom_new(0);
	int err;

	if (!p)
		return -ENOMEM;
	counts[VFSSTAT_READ] = 123;
	counts[VFSSTAT_WRITE] = 45;
	counts[VFSSTAT_RMDIR] = 1;
	err = collector_collect(&c, p) ?: bt_prom_write(p, out, false);
	bt_prom_free(p);
	return err;
}
