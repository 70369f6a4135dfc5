// SPDX-License-Identifier: GPL-2.0
/*
 * funccount's collector over fixed rows: four targets, two of one name (a function and its
 * compiler copy print as one row), one never called.
 */
#include "funccount.c"
#include "fake_map.h"

int golden_funccount(FILE *out);

static int collect(void *run, struct bt_prom *p)
{
	return bt_collector_collect(&collector, run, p);
}

int golden_funccount(FILE *out)
{
	struct bt_target tv[] = {
		{ .name = (char *)"vfs_write" },
		{ .name = (char *)"vfs_read" },
		{ .name = (char *)"vfs_open" },
		{ .name = (char *)"vfs_read" },
	};
	struct bt_summary_opts o = counts_opts;
	__u32 k0 = 0, k1 = 1, k3 = 3;
	struct fake_map m = { sizeof(__u32), sizeof(__u64) };
	struct run c = { .rows = { .spec = "vfs_[rwo]*\"\\", .by_name = true },
			 .targets = { tv, 4 } };
	int err;

	o.running = true;
	*(uint64_t *)fake_add(&m, &k1) = 5;
	err = bt_target_rows__init(&c.rows, &c.targets, 4);
	c.counts = fake_summary(&m, &o);
	if (!err)
		err = c.counts ? fake_scrape(collect, &c, NULL) : -ENOMEM;
	*(uint64_t *)fake_add(&m, &k0) += 7;
	*(uint64_t *)fake_add(&m, &k1) += 1;
	*(uint64_t *)fake_add(&m, &k3) += 100;
	if (!err)
		err = fake_scrape(collect, &c, out);
	bt_summary__free(c.counts);
	bt_target_rows__free(&c.rows);
	return err;
}
