// SPDX-License-Identifier: GPL-2.0
/* offcputime's collector over fixed rows: two raw states of one letter make one series. */
#include "offcputime.c"
#include "fake_map.h"

int golden_offcputime(FILE *out);

static int collect(void *run, struct bt_prom *p)
{
	return bt_collector_collect(&collector, run, p);
}

int golden_offcputime(FILE *out)
{
	const struct bt_summary_opts o = {
		.key_size = sizeof(struct offcputime_comm_key),
		.value_size = sizeof(__u64),
		.running = true,
	};
	struct offcputime_comm_key s1 = { "bash", 1 }, s2 = { "bash", 0x101 },
				   d = { "kworker/0:1", 2 }, r = { "cc1plus-and-more", 0 };
	struct fake_map m = { sizeof(struct offcputime_comm_key), sizeof(__u64) };
	struct bt_offcpu_comm c = { 0 };
	int err;

	*(uint64_t *)fake_add(&m, &s1) = 1000000;
	c.sum = fake_summary(&m, &o);
	err = c.sum ? fake_scrape(collect, &c, NULL) : -ENOMEM;
	*(uint64_t *)fake_add(&m, &s2) = 250000;
	*(uint64_t *)fake_add(&m, &d) = 12345;
	*(uint64_t *)fake_add(&m, &r) = 3;
	if (!err)
		err = fake_scrape(collect, &c, out);
	bt_summary__free(c.sum);
	return err;
}
