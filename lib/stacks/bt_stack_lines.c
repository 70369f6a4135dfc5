// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_stack_lines.h"

/* What a line's stacks print as; NULL (out of memory) leaves it unmerged. */
static char *key_of(const struct bt_stack_lines *l, const struct bt_stack_line *line)
{
	struct bt_row_proc p = { .proc = l->proc,
				 .user_stack = line->user_stack,
				 .kernel_stack = line->kernel_stack };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	bt_stack_rows__write(l->key, f, &p, 0);
	fclose(f);
	return buf;
}

int bt_stack_lines__add(struct bt_stack_lines *l, const struct bt_stack_line *slot)
{
	struct bt_stack_line *m = NULL;
	char *key = slot->other ? NULL : key_of(l, slot);
	size_t i;

	for (i = 0; i < l->n && key; i++)
		if (l->v[i].key && !strcmp(l->v[i].key, key)) {
			m = &l->v[i];
			break;
		}
	if (m) {
		free(key);
		m->count += slot->count;
		m->total_ns += slot->total_ns;
		if (slot->first_ns < m->first_ns)
			m->first_ns = slot->first_ns;
		if (slot->last_ns > m->last_ns)
			m->last_ns = slot->last_ns;
		return 0;
	}
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 32;
		struct bt_stack_line *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			free(key);
			return -ENOMEM;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] = *slot;
	l->v[l->n++].key = key;
	return 0;
}

static int by_first(const void *a, const void *b)
{
	const struct bt_stack_line *x = a, *y = b;

	if (x->other != y->other)
		return x->other ? 1 : -1;
	return x->first_ns < y->first_ns ? -1 : x->first_ns > y->first_ns;
}

static int by_count(const void *a, const void *b)
{
	const struct bt_stack_line *x = a, *y = b;

	if (x->other != y->other)
		return x->other ? 1 : -1;
	return x->count > y->count ? -1 : x->count < y->count;
}

void bt_stack_lines__sort(struct bt_stack_lines *l, enum bt_lines_order order)
{
	if (l->n)
		qsort(l->v, l->n, sizeof(l->v[0]),
		      order == BT_LINES_BY_FIRST ? by_first : by_count);
}

void bt_stack_lines__clear(struct bt_stack_lines *l, uint64_t proc)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i].key);
	l->n = 0;
	l->proc = proc;
}

void bt_stack_lines__free(struct bt_stack_lines *l)
{
	if (!l)
		return;
	bt_stack_lines__clear(l, 0);
	free(l->v);
	l->v = NULL;
	l->cap = 0;
}
