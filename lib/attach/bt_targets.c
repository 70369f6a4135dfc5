// SPDX-License-Identifier: GPL-2.0
/*
 * The list of targets a probe spec expands to: below every resolver that fills it
 * (lib/attach/bt_resolve.c, lib/attach/bt_kfuncs.c) and the attach layer that reads it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_attach_internal.h"
#include "bt_collector.h"

static void target_free(struct bt_target *t)
{
	free(t->name);
	free(t->func);
	free(t->path);
	free(t->category);
	free(t->event);
	free(t->usdt_provider);
	free(t->usdt_name);
}

void bt_targets__free(struct bt_targets *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->n; i++)
		target_free(&t->v[i]);
	free(t->v);
	t->v = NULL;
	t->n = 0;
}

static int dup_str(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

int bt_targets__add(struct bt_targets *t, const struct bt_target *tmpl)
{
	struct bt_target *nt;
	int err = 0;

	/* The list only knows its length: 16 slots, then double at each power of two. */
	if (t->n == 0 || (t->n >= 16 && (t->n & (t->n - 1)) == 0)) {
		size_t cap = t->n ? t->n * 2 : 16;
		struct bt_target *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
	}
	nt = &t->v[t->n];
	*nt = *tmpl;
	err |= dup_str(&nt->name, tmpl->name);
	err |= dup_str(&nt->func, tmpl->func);
	err |= dup_str(&nt->path, tmpl->path);
	err |= dup_str(&nt->category, tmpl->category);
	err |= dup_str(&nt->event, tmpl->event);
	err |= dup_str(&nt->usdt_provider, tmpl->usdt_provider);
	err |= dup_str(&nt->usdt_name, tmpl->usdt_name);
	if (err) {
		target_free(nt);
		return -ENOMEM;
	}
	t->n++;
	return 0;
}

void bt_targets__truncate(struct bt_targets *t, size_t n)
{
	while (t->n > n)
		target_free(&t->v[--t->n]);
}

int bt_targets__add_returns(struct bt_targets *t)
{
	size_t n = t->n, i;
	int err = 0;

	for (i = 0; i < n && !err; i++) {
		struct bt_target r = t->v[i]; /* by value: v may move, the strings do not */
		char exit_event[300];

		r.retprobe = true;
		/* a system call returns through its own tracepoint, made with the entry's */
		if (r.kind == BT_SPEC_SYSCALL && r.event && !strncmp(r.event, "sys_enter_", 10)) {
			snprintf(exit_event, sizeof(exit_event), "sys_exit_%s", r.event + 10);
			r.event = exit_event;
		}
		err = bt_targets__add(t, &r);
	}
	return err;
}

static int cmp_name_idx(const void *a, const void *b, void *arg)
{
	const struct bt_targets *t = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(t->v[x].name, t->v[y].name);

	return c ? c : (x < y ? -1 : 1);
}

int bt_target_rows__init(struct bt_target_rows *r, const struct bt_targets *t, size_t n)
{
	size_t *order, i;

	r->targets = t;
	r->n = n;
	order = calloc(n, sizeof(*order));
	r->row_of = calloc(n, sizeof(*r->row_of));
	if (!order || !r->row_of) {
		free(order);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_name_idx, (void *)t);
	for (i = 0; i < n; i++) {
		bool same = i && !strcmp(t->v[order[i]].name, t->v[order[i - 1]].name);

		r->row_of[order[i]] = same ? r->row_of[order[i - 1]] : order[i];
	}
	free(order);
	return 0;
}

void bt_target_rows__free(struct bt_target_rows *r)
{
	free(r->row_of);
	r->row_of = NULL;
}

static size_t row_of(const struct bt_target_rows *r, const void *key)
{
	uint32_t i;

	memcpy(&i, key, sizeof(i));
	return i < r->n ? r->row_of[i] : 0;
}

const char *bt_target_rows__name(const struct bt_target_rows *r, size_t target)
{
	return r->targets->v[target < r->n ? r->row_of[target] : 0].name;
}

int bt_target_rows_cmp(const void *a, const void *b, void *run)
{
	const struct bt_target_rows *r = run;
	size_t x = row_of(r, a), y = row_of(r, b);

	if (r->by_name && x != y)
		return strcmp(r->targets->v[x].name, r->targets->v[y].name);
	return x < y ? -1 : x > y;
}

void bt_target_rows_label(void *run, const void *key, struct bt_labels *l)
{
	const struct bt_target_rows *r = run;

	l->v[0] = r->spec;
	l->v[1] = r->targets->v[row_of(r, key)].name;
}

int bt_target_rows_zeros(void *run, struct bt_keys *k)
{
	const struct bt_target_rows *r = run;
	uint32_t key[16] = { 0 }; /* the rest of a key 0: funclatency's process */
	size_t i;
	int err = 0;

	for (i = 0; !err && i < r->n; i++) {
		key[0] = (uint32_t)i;
		if (r->row_of[i] == i)
			err = bt_keys_add(k, key);
	}
	return err;
}
