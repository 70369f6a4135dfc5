// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bt_stack_table.h"

FILE *bt_stack_table__begin(struct bt_stack_table *t)
{
	if (t->cur) {
		fclose(t->cur);
		free(t->cur_buf);
	}
	t->cur_buf = NULL;
	t->cur_len = 0;
	t->cur = open_memstream(&t->cur_buf, &t->cur_len);
	return t->cur;
}

int bt_stack_table__end(struct bt_stack_table *t, unsigned int tgid, unsigned long long value)
{
	int err = 0;

	if (!t->cur)
		return -EINVAL;
	if (fclose(t->cur))
		err = -ENOMEM;
	t->cur = NULL;
	if (!err && t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct bt_stack_row *r = realloc(t->rows, cap * sizeof(*r));

		if (!r)
			err = -ENOMEM;
		else {
			t->rows = r;
			t->cap = cap;
		}
	}
	if (err) {
		free(t->cur_buf);
		t->cur_buf = NULL;
		return err;
	}
	t->rows[t->n++] = (struct bt_stack_row){ t->cur_buf, value, tgid };
	t->cur_buf = NULL;
	return 0;
}

static int cmp_text(const void *a, const void *b)
{
	const struct bt_stack_row *x = a, *y = b;
	int c = strcmp(x->text, y->text);

	if (c)
		return c;
	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return 0;
}

static int cmp_value(const void *a, const void *b)
{
	const struct bt_stack_row *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return strcmp(x->text, y->text);
}

void bt_stack_table__sort(struct bt_stack_table *t)
{
	size_t i, out = 0;

	if (!t->n)
		return; /* no rows yet: qsort() must not be handed their NULL */
	qsort(t->rows, t->n, sizeof(*t->rows), cmp_text);
	for (i = 0; i < t->n; i++) {
		struct bt_stack_row *last = out ? &t->rows[out - 1] : NULL;

		if (last && !strcmp(last->text, t->rows[i].text)) {
			last->tgid = t->rows[i].tgid;
			last->value += t->rows[i].value;
			free(t->rows[i].text);
			continue;
		}
		t->rows[out++] = t->rows[i];
	}
	t->n = out;
	qsort(t->rows, t->n, sizeof(*t->rows), cmp_value);
}

void bt_stack_table__clear(struct bt_stack_table *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->rows[i].text);
	t->n = 0;
}

void bt_stack_table__free(struct bt_stack_table *t)
{
	if (!t)
		return;
	bt_stack_table__clear(t);
	if (t->cur)
		fclose(t->cur);
	free(t->cur_buf);
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

void bt_stack_row__json(const struct bt_stack_row *r, const char *name, FILE *out)
{
	const char *rest = r->text[0] == '{' ? r->text + 1 : r->text;

	/* the object's other members follow, "}" included */
	fprintf(out, "{\"%s\": %llu%s%s\n", name, r->value, rest[0] == '}' ? "" : ", ", rest);
}
