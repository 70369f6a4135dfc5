// SPDX-License-Identifier: GPL-2.0
/*
 * funclatency's collector over fixed rows: three targets, two of one name (one row), one never
 * called.
 */
#include "funclatency.c"
#include "fake_map.h"

int golden_funclatency(FILE *out);

static int collect(void *run, struct bt_prom *p)
{
	return bt_collector_collect(&collector, run, p);
}

int golden_funclatency(FILE *out)
{
	struct bt_target tv[] = {
		{ .name = (char *)"do_sys_openat2" },
		{ .name = (char *)"vfs_fsync" },
		{ .name = (char *)"do_sys_openat2" },
	};
	struct bt_summary_opts o = sum_opts;
	struct fl_hist_key a = { 0, 0 }, b = { 2, 0 }; /* the exporter keys by function only */
	struct fake_map m = { sizeof(struct fl_hist_key), sizeof(struct fl_hist) };
	struct run c = { .s.rows.spec = "do_sys_openat2,vfs_fsync" };
	struct fl_hist *h;
	int err;

	o.running = true;
	o.what = NULL;
	c.calls.targets = (struct bt_targets){ tv, 3 };
	c.calls.n = 3;
	h = fake_add(&m, &a);
	h->total_ns = 3000;
	h->slots[11] = 1;
	h->slots[12] = 1;
	err = init_state(&c.s, &c.calls);
	c.s.sum = fake_summary(&m, &o);
	if (!err)
		err = c.s.sum ? fake_scrape(collect, &c, NULL) : -ENOMEM;
	h = fake_add(&m, &b);
	h->total_ns = 1234567;
	h->slots[20] = 1;
	h->slots[2] = 3;
	if (!err)
		err = fake_scrape(collect, &c, out);
	bt_summary__free(c.s.sum);
	bt_target_rows__free(&c.s.rows);
	return err;
}
