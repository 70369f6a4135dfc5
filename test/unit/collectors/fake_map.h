/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collectors' golden tests (test/unit/test_collectors.c): a map behind a bt_summary that
 * holds what the test puts in it (one CPU, keys in the order added), and one scrape through a
 * collector into the Prometheus text. Included by each collectors/NAME_golden.c, which includes the
 * command's own cmd/NAME.c to reach its collector.
 */
#ifndef BT_TEST_FAKE_MAP_H
#define BT_TEST_FAKE_MAP_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_prom.h"
#include "bt_summary.h"

#define FAKE_KEYS 32

/* Made with its key and value sizes: { sizeof(key), sizeof(value) }. */
struct fake_map {
	size_t key_size, value_size, n;
	unsigned char keys[FAKE_KEYS][64];
	uint64_t vals[FAKE_KEYS][80];
};

static int fake_find(const struct fake_map *m, const void *key)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!memcmp(m->keys[i], key, m->key_size))
			return (int)i;
	return -1;
}

static int fake_next(void *ctx, const void *prev, void *next)
{
	struct fake_map *m = ctx;
	size_t i = prev ? (size_t)(fake_find(m, prev) + 1) : 0;

	if (i >= m->n)
		return -ENOENT;
	memcpy(next, m->keys[i], m->key_size);
	return 0;
}

static int fake_lookup(void *ctx, const void *key, uint64_t *vals)
{
	struct fake_map *m = ctx;
	int i = fake_find(m, key);

	if (i < 0)
		return -ENOENT;
	memcpy(vals, m->vals[i], m->value_size);
	return 0;
}

/* The value of key, made (zeroed) on first use: the test adds to its u64 fields. */
static void *fake_add(struct fake_map *m, const void *key)
{
	int i = fake_find(m, key);

	if (i < 0) {
		if (m->n == FAKE_KEYS)
			abort();
		i = (int)m->n++;
		memcpy(m->keys[i], key, m->key_size);
	}
	return m->vals[i];
}

static struct bt_summary *fake_summary(struct fake_map *m, const struct bt_summary_opts *o)
{
	const struct bt_summary_map map = { 1, fake_next, fake_lookup, NULL, m };

	if (o->key_size != m->key_size || o->value_size != m->value_size ||
	    m->key_size > sizeof(m->keys[0]) || m->value_size > sizeof(m->vals[0]))
		abort();
	return bt_summary__new_map(&map, o);
}

/* One scrape of a collector: its families in the Prometheus text format to out (NULL: none). */
static int fake_scrape(int (*collect)(void *state, struct bt_prom *p), void *state, FILE *out)
{
	struct bt_prom *p = bt_prom_new(0);
	int err;

	if (!p)
		return -ENOMEM;
	err = collect(state, p);
	if (!err && out)
		err = bt_prom_write(p, out, false);
	bt_prom_free(p);
	return err;
}

#endif
