// SPDX-License-Identifier: GPL-2.0
/* biolatency's collector over fixed rows: disk 254:0 is the fake sysfs's vda, 8:16 is none. */
#include "biolatency.c"
#include "fake_map.h"

int golden_biolatency(FILE *out);

static int collect(void *run, struct bt_prom *p)
{
	return bt_collector_collect(&collector, run, p);
}

int golden_biolatency(FILE *out)
{
	struct bt_summary_opts o = sum_opts;
	struct biolat_key rd = { bt_kdev(254, 0), BT_OP_READ },
			  fl = { bt_kdev(8, 16), BT_OP_FLUSH };
	struct fake_map m = { sizeof(struct biolat_key), sizeof(struct biolat_val) };
	struct state c = { 0 };
	struct biolat_val *v;
	int err;

	o.running = true;
	c.disks = bt_disk_cache__new();
	v = fake_add(&m, &rd);
	v->total = 1500;
	v->count = 3;
	v->slots[1] = 1;
	v->slots[10] = 2;
	c.sum = fake_summary(&m, &o);
	err = c.sum ? fake_scrape(collect, &c, NULL) : -ENOMEM;
	v = fake_add(&m, &rd);
	v->total += 2000000;
	v->count++;
	v->slots[21]++;
	v = fake_add(&m, &fl);
	v->total = 7;
	v->count = 1;
	v->slots[3] = 1;
	if (!err)
		err = fake_scrape(collect, &c, out);
	bt_summary__free(c.sum);
	bt_disk_cache__free(c.disks);
	return err;
}
