// SPDX-License-Identifier: GPL-2.0
/* The exporter's one collector over the commands' declared families (see bt_collector.h). */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bt_clock.h"
#include "bt_collector.h"
#include "bt_err.h"

struct bt_keys {
	const struct bt_collector *c;
	const struct bt_summary *s;
	void *run;
	size_t key_size, n, cap;
	unsigned char *v;
};

static const void *key_at(const struct bt_keys *k, size_t i)
{
	return k->v + i * k->key_size;
}

static int cmp_keys(const struct bt_keys *k, const void *a, const void *b)
{
	return k->c->cmp ? k->c->cmp(a, b, k->run) : bt_summary__cmp_keys(k->s, a, b);
}

static int qsort_cmp(const void *a, const void *b, void *ctx)
{
	return cmp_keys(ctx, a, b);
}

/* In cmp's order, each once: the keys merge with the rows, sorted the same way. */
static void keys_unique(struct bt_keys *k)
{
	size_t i, n = 0;

	if (!k->n)
		return;
	qsort_r(k->v, k->n, k->key_size, qsort_cmp, k);
	for (i = 1; i < k->n; i++)
		if (cmp_keys(k, key_at(k, n), key_at(k, i)))
			memmove(k->v + ++n * k->key_size, key_at(k, i), k->key_size);
	k->n = n + 1;
}

void bt_label_key_string(void *run, const void *key, struct bt_labels *l)
{
	(void)run;
	snprintf(l->buf[0], sizeof(l->buf[0]), "%.*s", (int)l->key_size, (const char *)key);
	l->v[0] = l->buf[0];
}

int bt_keys_add(struct bt_keys *k, const void *key)
{
	size_t max = k->c->max_zeros;
	unsigned char *v;

	if (max && k->n == max) {
		keys_unique(k);
		if (k->n == max)
			return 1; /* as many as the map holds: the rest come when they have events */
	}
	if (k->n == k->cap) {
		v = realloc(k->v, (k->cap ? 2 * k->cap : 16) * k->key_size);
		if (!v)
			return -ENOMEM;
		k->v = v;
		k->cap = k->cap ? 2 * k->cap : 16;
	}
	memcpy(k->v + k->n++ * k->key_size, key, k->key_size);
	return 0;
}

/* One series: the key's labels, its row's value (vals NULL: a key at 0). */
static int put(const struct bt_keys *k, const struct bt_family *f, struct bt_prom *p,
	       const void *key, const uint64_t *vals)
{
	static const uint64_t none[128];
	const struct bt_collector *c = k->c;
	const char *lv[2 * BT_LABELS_MAX + 1] = { NULL };
	struct bt_labels l = { .key_size = k->key_size };
	double x = vals ? (double)vals[f->field] : 0;
	size_t i;

	if (c->names && c->index_keys && *(const uint32_t *)key >= c->index_keys)
		return 0; /* a key past the table's names: none in the map the table is for */
	if (c->names)
		l.v[0] = c->names[*(const uint32_t *)key];
	else
		c->label(k->run, key, &l);
	for (i = 0; i < BT_LABELS_MAX && c->labels[i]; i++) {
		lv[2 * i] = c->labels[i];
		lv[2 * i + 1] = l.v[i];
	}
	if (f->div)
		x = x / f->div;
	if (f->type != BT_PROM_HISTOGRAM)
		return f->type == BT_PROM_GAUGE ? bt_prom_gauge(p, lv[0] ? lv : NULL, x)
						: bt_prom_counter(p, lv[0] ? lv : NULL, x);
	if (!vals && f->nslots > sizeof(none) / sizeof(none[0]))
		return -EINVAL;
	return bt_prom_log2_hist(p, lv[0] ? lv : NULL, vals ? vals + f->slots : none, f->nslots,
				 f->unit, x);
}

/* Rows and keys at 0 in one order: the keys' place is where cmp puts them. */
static int put_merged(const struct bt_keys *k, const struct bt_family *f, struct bt_prom *p)
{
	size_t i = 0, j = 0, n = bt_summary__len(k->s);
	int err = 0, order;

	while (err >= 0 && (i < n || j < k->n)) {
		const void *key = i < n ? bt_summary__key(k->s, i) : NULL;
		const uint64_t *vals = NULL;

		order = !key ? 1 : j == k->n ? -1 : cmp_keys(k, key, key_at(k, j));
		if (order <= 0) {
			vals = bt_summary__value(k->s, i++);
			j += !order;
		} else {
			key = key_at(k, j++);
		}
		err = put(k, f, p, key, vals);
	}
	return err;
}

/* Rows, then the keys at 0 that no row has, as added. */
static int put_after(const struct bt_keys *k, const struct bt_family *f, struct bt_prom *p)
{
	size_t i, j, n = bt_summary__len(k->s);
	int err = 0;

	for (i = 0; err >= 0 && i < n; i++)
		err = put(k, f, p, bt_summary__key(k->s, i), bt_summary__value(k->s, i));
	for (j = 0; err >= 0 && j < k->n; j++) {
		for (i = 0; i < n && cmp_keys(k, bt_summary__key(k->s, i), key_at(k, j)); i++)
			;
		if (i == n)
			err = put(k, f, p, key_at(k, j), NULL);
	}
	return err;
}

int bt_collector_collect(const struct bt_collector *c, void *run, struct bt_prom *p)
{
	struct bt_summary *s = *(struct bt_summary **)((char *)run + c->sum_off);
	struct bt_keys k = { c, s, run, bt_summary__key_size(s), 0, 0, NULL };
	const struct bt_family *f;
	uint32_t i;
	int err;

	err = bt_summary__collect(s);
	if (err)
		return err;
	if (c->sort)
		bt_summary__sort(s, c->sort, run);
	else
		bt_summary__sort_by_key(s, c->cmp, run, c->merge);
	for (i = 0; !err && i < c->index_keys; i++)
		err = bt_keys_add(&k, &i);
	if (!err && c->zeros)
		err = c->zeros(run, &k);
	if (err >= 0 && !c->zeros_after)
		keys_unique(&k);
	for (f = c->families; err >= 0 && f < c->families + BT_FAMILIES_MAX && f->name; f++) {
		err = bt_prom_family(p, f->name, f->type, f->help);
		if (err >= 0)
			err = c->zeros_after ? put_after(&k, f, p) : put_merged(&k, f, p);
	}
	free(k.v);
	return err < 0 ? err : 0; /* 1: the bound dropped a series, counted by the writer */
}

int bt_collector_start(const struct bt_collector *c, const char *spec, void **run)
{
	void *r = calloc(1, c->size);
	int err;

	*run = NULL;
	if (!r)
		return -ENOMEM;
	err = c->start(r, spec);
	if (err) {
		c->stop(r);
		free(r);
		return err;
	}
	*run = r;
	return 0;
}

void bt_collector_stop(const struct bt_collector *c, void *run)
{
	if (!run)
		return;
	c->stop(run);
	free(run);
}

void bt_collector_runs_collect(struct bt_collector_run *v, size_t n, struct bt_prom *p)
{
	size_t i;

	for (i = 0; i < n; i++) {
		double t0 = bt_now_s();
		int err = bt_collector_collect(v[i].c, v[i].run, p);

		v[i].seconds = bt_now_s() - t0;
		v[i].ok = err == 0;
		if (err) /* counted in bpftools_exporter_collector_success */
			bt_debug("collector %s: %s", v[i].label, strerror(-err));
	}
}

/* A gauge per run by its label: its last collect's seconds, or (ok) whether it read. */
static int runs_gauge(const struct bt_collector_run *v, size_t n, struct bt_prom *p,
		      const char *name, const char *help, bool ok)
{
	int err = bt_prom_family(p, name, BT_PROM_GAUGE, help);
	size_t i;

	for (i = 0; err >= 0 && i < n; i++)
		err = bt_prom_gauge(p, (const char *[]){ "collector", v[i].label, NULL },
				    ok ? v[i].ok : v[i].seconds);
	return err;
}

int bt_collector_runs_families(const struct bt_collector_run *v, size_t n, struct bt_prom *p)
{
	int err = runs_gauge(v, n, p, "bpftools_exporter_collector_duration_seconds",
			     "How long each collector took in this scrape.", false);

	return err < 0 ? err
		       : runs_gauge(v, n, p, "bpftools_exporter_collector_success",
				    "1 when the collector's maps were read in this scrape, else 0.",
				    true);
}
