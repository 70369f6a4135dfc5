// SPDX-License-Identifier: GPL-2.0
/* softirqs' collector over fixed rows: two vectors counted, the rest at 0. */
#include "softirqs.c"
#include "fake_map.h"

int golden_softirqs(FILE *out);

static int collect(void *run, struct bt_prom *p)
{
	return bt_collector_collect(&collector, run, p);
}

int golden_softirqs(FILE *out)
{
	const struct bt_summary_opts o = {
		.key_size = sizeof(__u32),
		.value_size = sizeof(struct softirq_stat),
		.running = true,
	};
	__u32 timer = 1, rcu = 9;
	struct fake_map m = { sizeof(__u32), sizeof(struct softirq_stat) };
	struct state c = { 0 };
	struct softirq_stat *st;
	int err;

	st = fake_add(&m, &rcu);
	st->total_ns = 123456789;
	st->count = 10;
	c.sum = fake_summary(&m, &o);
	err = c.sum ? fake_scrape(collect, &c, NULL) : -ENOMEM;
	st = fake_add(&m, &timer);
	st->total_ns = 5000;
	st->count = 2;
	st = fake_add(&m, &rcu);
	st->total_ns += 1000000001;
	st->count += 5;
	if (!err)
		err = fake_scrape(collect, &c, out);
	bt_summary__free(c.sum);
	return err;
}
