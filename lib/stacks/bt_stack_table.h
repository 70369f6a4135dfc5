/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rows of a stack summary (stackcount, offcputime, offwaketime): each row's printed text
 * and its value, merged and sorted as BCC prints them. Keys carry the process so that user
 * frames can be named; once named, the same text from several processes is one row.
 *
 *	FILE *f = bt_stack_table__begin(&t);
 *	bt_stacks__print(st, f, ...);            // the row's text
 *	bt_stack_table__end(&t, tgid, value);
 *	...
 *	bt_stack_table__sort(&t);                // merged, ascending by value
 *	for (i = 0; i < t.n; i++) printf("%s    %llu\n", t.rows[i].text, t.rows[i].value);
 *	bt_stack_table__clear(&t);
 */
#ifndef BT_STACK_TABLE_H
#define BT_STACK_TABLE_H

#include <stddef.h>
#include <stdio.h>

struct bt_stack_row {
	char *text;
	unsigned long long value;
	unsigned int tgid;
};

struct bt_stack_table {
	struct bt_stack_row *rows;
	size_t n, cap;
	FILE *cur; /* the row being written */
	char *cur_buf;
	size_t cur_len;
};

/* A stream for the next row's text, or NULL (out of memory). */
FILE *bt_stack_table__begin(struct bt_stack_table *t);
/* Close the row begun last. 0 or -ENOMEM. */
int bt_stack_table__end(struct bt_stack_table *t, unsigned int tgid, unsigned long long value);
/*
 * Merge rows of equal text (adding values), then sort ascending by value, then by text. A row
 * is what prints: two stacks that read alike (a stack walked partly by frame pointers and
 * then through tables, [unknown] frames at other addresses) are one row, as in every output.
 */
void bt_stack_table__sort(struct bt_stack_table *t);
/*
 * A row whose text is a JSON object without its value (nor a newline), printed as one line
 * with the value
 * first: {"name": value, ...}.
 */
void bt_stack_row__json(const struct bt_stack_row *r, const char *name, FILE *out);
/* Drop every row (keeps the allocation). */
void bt_stack_table__clear(struct bt_stack_table *t);
void bt_stack_table__free(struct bt_stack_table *t);

#endif
