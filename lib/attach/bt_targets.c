// SPDX-License-Identifier: GPL-2.0
/*
 * The list of targets a probe spec expands to: below every resolver that fills it
 * (lib/attach/bt_resolve.c, lib/attach/bt_kfuncs.c) and the attach layer that reads it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_attach_internal.h"

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
