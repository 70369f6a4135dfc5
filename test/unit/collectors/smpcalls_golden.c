// SPDX-License-Identifier: GPL-2.0
/*
 * smpcalls' collector over fixed rows, without kernel symbols (functions named by address:
 * the names through /proc/kallsyms are not tested here), in the order the tool sorts them.
 */
#include "smpcalls.c"
#include "fake_map.h"

int golden_smpcalls(FILE *out);

static int collect(void *run, struct bt_prom *p)
{
	return bt_collector_collect(&collector, run, p);
}

int golden_smpcalls(FILE *out)
{
	struct bt_summary_opts o = sum_opts;
	struct smpcall_key t = { .func = 0xffffffff81100000ull, .kind = SMPCALL_TIME },
			   q = { .func = 0xffffffff81100000ull, .kind = SMPCALL_QUEUE },
			   l = { .func = 0xffffffff81200000ull, .kind = SMPCALL_LOCAL },
			   t2 = { .func = 0xffffffff81000000ull, .kind = SMPCALL_TIME };
	struct fake_map m = { sizeof(struct smpcall_key), sizeof(struct smpcall_hist) };
	struct state c = { 0 };
	struct smpcall_hist *h;
	int err;

	o.running = true;
	h = fake_add(&m, &t);
	h->total_ns = 4000;
	h->count = 2;
	h->slots[11] = 2;
	c.sum = fake_summary(&m, &o);
	err = c.sum ? fake_scrape(collect, &c, NULL) : -ENOMEM;
	h = fake_add(&m, &q);
	h->total_ns = 900;
	h->count = 3;
	h->slots[8] = 3;
	h = fake_add(&m, &l);
	h->total_ns = 70;
	h->count = 1;
	h->slots[7] = 1;
	h = fake_add(&m, &t2);
	h->total_ns = 5000000;
	h->count = 3;
	h->slots[21] = 3;
	if (!err)
		err = fake_scrape(collect, &c, out);
	bt_summary__free(c.sum);
	return err;
}
