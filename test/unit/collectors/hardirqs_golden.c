// SPDX-License-Identifier: GPL-2.0
/*
 * hardirqs' collector over fixed rows, with the fake sysfs's handlers (timer, acpi, ahci,
 * virtio1-req.0): one counted that sysfs has, one it does not, a name of all 32 bytes.
 */
#include "hardirqs.c"
#include "fake_map.h"

int golden_hardirqs(FILE *out);

static int collect(void *run, struct bt_prom *p)
{
	return bt_collector_collect(&collector, run, p);
}

int golden_hardirqs(FILE *out)
{
	const struct bt_summary_opts o = {
		.key_size = sizeof(struct hardirq_key),
		.value_size = sizeof(struct hardirq_total),
		.running = true,
	};
	struct hardirq_key timer = { "timer" }, gone = { "nvme0q1" }, big;
	struct fake_map m = { sizeof(struct hardirq_key), sizeof(struct hardirq_total) };
	struct state c = { 0 };
	struct hardirq_total *t;
	int err;

	memset(big.name, 'x', sizeof(big.name));
	t = fake_add(&m, &timer);
	t->time_ns = 2500000;
	t->count = 1000;
	c.totals = fake_summary(&m, &o);
	err = c.totals ? fake_scrape(collect, &c, NULL) : -ENOMEM;
	t = fake_add(&m, &gone);
	t->time_ns = 1000;
	t->count = 1;
	t = fake_add(&m, &big);
	t->time_ns = 3;
	t->count = 3;
	if (!err)
		err = fake_scrape(collect, &c, out);
	bt_summary__free(c.totals);
	return err;
}
