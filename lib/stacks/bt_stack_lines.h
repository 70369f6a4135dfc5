/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A call's stacks as lines (funcslower -B and -S): the slots the kernel kept for one call, one
 * per pair of stack ids, merged by what their stacks print as, so that a stack is never split
 * over two lines (two slots can differ only in addresses within the same functions, or in the
 * generation of their ids); the stacks past the last slot, summed by the kernel, come last.
 *
 *	struct bt_stack_lines l = { .key = &key_rows };	// folded, user;-;kernel
 *	bt_stack_lines__clear(&l, BT_PROC(tgid, cookie));
 *	for each slot:	bt_stack_lines__add(&l, &(struct bt_stack_line){ k, u, count, ... });
 *	past them:	bt_stack_lines__add(&l, &(struct bt_stack_line){ .count = n, .other = true });
 *	bt_stack_lines__sort(&l, BT_LINES_BY_FIRST);
 *	...l.v[0..l.n)...
 *	bt_stack_lines__free(&l);
 */
#ifndef BT_STACK_LINES_H
#define BT_STACK_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_stack_row.h"

struct bt_stack_line {
	uint64_t kernel_stack, user_stack; /* stack ids (probes/bt_stack.h) */
	uint64_t count, first_ns, last_ns, total_ns;
	bool other; /* the stacks past the slots: no stacks of its own */
	char *key;  /* what its stacks print as (set by __add) */
};

enum bt_lines_order {
	BT_LINES_BY_FIRST, /* by first_ns, earliest first (B lines) */
	BT_LINES_BY_COUNT, /* by count, most first (S lines) */
};

struct bt_stack_lines {
	const struct bt_stack_rows *key; /* the form lines are merged by: one line per stack pair */
	uint64_t proc;			 /* BT_PROC(pid, cookie): whose mappings name user frames */
	struct bt_stack_line *v;
	size_t n, cap;
};

/*
 * Add a slot: counts and times merged into the line that prints the same (count and total
 * added, the earliest first and the latest last kept), else a line of its own. 0 or -ENOMEM.
 */
int bt_stack_lines__add(struct bt_stack_lines *l, const struct bt_stack_line *slot);
/* The lines in order; the one of the stacks past the slots last whatever the order. */
void bt_stack_lines__sort(struct bt_stack_lines *l, enum bt_lines_order order);
/* Drop every line (keeps the allocation), for the next call, of process proc. */
void bt_stack_lines__clear(struct bt_stack_lines *l, uint64_t proc);
void bt_stack_lines__free(struct bt_stack_lines *l); /* NULL is fine */

#endif
