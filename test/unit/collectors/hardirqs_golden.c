// SPDX-License-Identifier: GPL-2.0
/*
 * hardirqs' collector over fixed rows, with the fake sysfs's handlers (timer, acpi, ahci,
 * virtio1-req.0): one counted that sysfs has, one it does not, a name of all 32 bytes.
 */
#include "hardirqs.c"
#include "fake_map.h"

int golden_hardirqs(FILE *out);

int golden_hardirqs(FILE *out)
{
	struct bt_summary_opts o = totals_opts;
	struct hardirq_key timer = { "timer" }, gone = { "nvme0q1" }, big;
	struct fake_map m = { sizeof(struct hardirq_key), sizeof(struct hardirq_total) };
	struct collector c = { 0 };
	struct hardirq_total *t;
	int err;

	memset(big.name, 'x', sizeof(big.name));
	o.running = true;
	c.known = calloc(HARDIRQ_MAX_NAMES, sizeof(*c.known));
	t = fake_add(&m, &timer);
	t->time_ns = 2500000;
	t->count = 1000;
	c.sum = fake_summary(&m, &o);
	err = c.sum && c.known ? fake_scrape(collector_collect, &c, NULL) : -ENOMEM;
	t = fake_add(&m, &gone);
	t->time_ns = 1000;
	t->count = 1;
	t = fake_add(&m, &big);
	t->time_ns = 3;
	t->count = 3;
	if (!err)
		err = fake_scrape(collector_collect, &c, out);
	bt_summary__free(c.sum);
	free(c.known);
	return err;
}
