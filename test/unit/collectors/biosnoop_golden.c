// SPDX-License-Identifier: GPL-2.0
/* biosnoop's collector over fixed rows: disk 254:0 is the fake sysfs's vda, 8:16 is none. */
#include "biosnoop.c"
#include "fake_map.h"

int golden_biosnoop(FILE *out);

static int collect(void *run, struct bt_prom *p)
{
	return bt_collector_collect(&collector, run, p);
}

int golden_biosnoop(FILE *out)
{
	const struct bt_summary_opts o = {
		.key_size = sizeof(struct biosnoop_io_key),
		.value_size = sizeof(struct biosnoop_io_total),
		.running = true,
	};
	struct biosnoop_io_key wr = { bt_kdev(254, 0), BT_OP_WRITE },
			       dis = { bt_kdev(8, 16), BT_OP_DISCARD };
	struct fake_map m = { sizeof(struct biosnoop_io_key), sizeof(struct biosnoop_io_total) };
	struct state c = { 0 };
	struct biosnoop_io_total *t;
	int err;

	c.disks = bt_disk_cache__new();
	t = fake_add(&m, &wr);
	t->requests = 4;
	t->bytes = 16384;
	c.sum = fake_summary(&m, &o);
	err = c.sum ? fake_scrape(collect, &c, NULL) : -ENOMEM;
	t = fake_add(&m, &wr);
	t->requests += 2;
	t->bytes += 1048576;
	t = fake_add(&m, &dis);
	t->requests = 1;
	t->bytes = 4096;
	if (!err)
		err = fake_scrape(collect, &c, out);
	bt_summary__free(c.sum);
	bt_disk_cache__free(c.disks);
	return err;
}
