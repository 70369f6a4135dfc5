// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_stack_lines.h"

/* What lines are merged by: the folded stacks, always with the "-" between them. */
static const struct bt_row_part key_row[] = {
	{ BT_ROW_USER },
	{ BT_ROW_DELIM },
	{ BT_ROW_KERNEL },
	{ BT_ROW_END },
};

/* The stacks past the slots: no stacks of their own */
static const struct bt_row_part other_row[] = {
	{ BT_ROW_MARK, .word = "[other stacks]", .line = "    [other stacks]\n", .missed = true,
	  .json = true, .json_member = "other_stacks" },
	{ BT_ROW_END },
};

void bt_stack_lines__init(struct bt_stack_lines *l, const struct bt_stack_rows *line)
{
	l->line = line;
	l->own_key = *line;
	l->own_key.parts = key_row;
	l->own_key.form = BT_ROW_FOLDED;
	l->own_other = *line;
	l->own_other.parts = other_row;
	l->key = &l->own_key;
	l->other = &l->own_other;
}

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

static struct bt_row_proc line_proc(const struct bt_stack_lines *l,
				    const struct bt_stack_line *line)
{
	return (struct bt_row_proc){ .proc = l->proc,
				     .user_stack = line->user_stack,
				     .kernel_stack = line->kernel_stack };
}

void bt_stack_lines__write(const struct bt_stack_lines *l, const struct bt_stack_line *line,
			   FILE *out, bool folded)
{
	struct bt_row_proc p = line_proc(l, line);

	fputc(folded ? ' ' : '\n', out);
	bt_stack_rows__write(line->other ? l->other : l->line, out, &p, 0);
	if (folded)
		fputs(" 1\n", out);
}

void bt_stack_lines__json(const struct bt_stack_lines *l, struct bt_json *j, const char *member,
			  bool times, uint64_t base_ns)
{
	size_t i;

	bt_json_begin_array(j, member);
	for (i = 0; i < l->n; i++) {
		const struct bt_stack_line *line = &l->v[i];
		struct bt_row_proc p = line_proc(l, line);

		bt_json_begin_object(j, NULL);
		bt_json_uint(j, "count", line->count);
		if (times) {
			bt_json_uint(j, "first_ns", line->first_ns - base_ns);
			bt_json_uint(j, "span_ns", line->last_ns - line->first_ns);
			bt_json_uint(j, "total_ns", line->total_ns);
		}
		bt_stack_rows__json(line->other ? l->other : l->line, j, &p);
		bt_json_end_object(j);
	}
	bt_json_end_array(j);
}

int bt_stack_lines__profile(const struct bt_stack_lines *l, struct bt_stack_out *out, bool by_time)
{
	size_t i;
	int err = 0;

	for (i = 0; i < l->n && !err; i++) {
		const struct bt_stack_line *line = &l->v[i];
		struct bt_row_proc p = line_proc(l, line);

		err = bt_stack_rows__profile(line->other ? l->other : l->line, out, &p,
					     by_time ? line->total_ns : line->count);
	}
	return err;
}
