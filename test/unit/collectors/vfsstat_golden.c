// SPDX-License-Identifier: GPL-2.0
/* vfsstat's collector over fixed counts: three columns counted, the rest at 0. */
#include "vfsstat.c"
#include "fake_map.h"

int golden_vfsstat(FILE *out);

static int collect(void *run, struct bt_prom *p)
{
	return bt_collector_collect(&collector, run, p);
}

int golden_vfsstat(FILE *out)
{
	const struct bt_summary_opts o = {
		.key_size = sizeof(__u32),
		.value_size = sizeof(__u64),
		.running = true,
	};
	__u32 rd = VFSSTAT_READ, wr = VFSSTAT_WRITE, rm = VFSSTAT_RMDIR;
	struct fake_map m = { sizeof(__u32), sizeof(__u64) };
	struct run r = { 0 };
	int err;

	*(uint64_t *)fake_add(&m, &rd) = 123;
	*(uint64_t *)fake_add(&m, &wr) = 45;
	*(uint64_t *)fake_add(&m, &rm) = 1;
	r.sum = fake_summary(&m, &o);
	err = r.sum ? fake_scrape(collect, &r, out) : -ENOMEM;
	bt_summary__free(r.sum);
	return err;
}
