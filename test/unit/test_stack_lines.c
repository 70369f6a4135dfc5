// SPDX-License-Identifier: GPL-2.0
/*
 * lib/stacks/bt_stack_lines: a call's slots merged by what their stacks print as (no BPF here: no user
 * stacks taken, and the kernel stacks left out of the key, so slots of any kernel stack ids
 * print alike), the stacks past the slots kept apart and last, and both orders.
 */
#include <stdlib.h>

#include "bt_stack_lines.h"
#include "harness.h"

static const struct bt_row_part key_row[] = {
	{ BT_ROW_USER },
	{ BT_ROW_DELIM },
	{ BT_ROW_KERNEL },
	{ BT_ROW_END },
};

static void test_merge(void)
{
	struct bt_stack_rows key = { .parts = key_row,
				     .form = BT_ROW_FOLDED,
				     .hide = BT_ROW_HIDE(BT_ROW_KERNEL) };
	struct bt_stack_lines l = { .key = &key };
	size_t i;

	bt_stack_lines__clear(&l, 42);
	/* three slots of other ids that print the same: one line */
	CHECK_INT(bt_stack_lines__add(&l, &(struct bt_stack_line){ 32, 0, 3, 200, 900, 70 }), 0);
	CHECK_INT(bt_stack_lines__add(&l, &(struct bt_stack_line){ 33, 0, 1, 100, 400, 20 }), 0);
	CHECK_INT(bt_stack_lines__add(&l, &(struct bt_stack_line){ 64, 0, 2, 300, 500, 10 }), 0);
	/* the stacks past the slots: never merged, last in either order */
	CHECK_INT(bt_stack_lines__add(
			  &l, &(struct bt_stack_line){ .count = 9, .first_ns = 50, .other = true }),
		  0);
	CHECK_INT(l.n, 2);
	bt_stack_lines__sort(&l, BT_LINES_BY_FIRST);
	CHECK(!l.v[0].other && l.v[1].other);
	CHECK_INT(l.v[0].count, 6);
	CHECK_INT(l.v[0].first_ns, 100); /* the earliest first */
	CHECK_INT(l.v[0].last_ns, 900);	 /* the latest last */
	CHECK_INT(l.v[0].total_ns, 100);
	CHECK_INT(l.v[0].kernel_stack, 32); /* the first slot's ids print for the line */
	bt_stack_lines__sort(&l, BT_LINES_BY_COUNT);
	CHECK(!l.v[0].other && l.v[1].other && l.v[1].count == 9);
	/* cleared for the next call: nothing left to merge into */
	bt_stack_lines__clear(&l, 43);
	CHECK_INT(l.n, 0);
	CHECK_INT(l.proc, 43);
	for (i = 0; i < 40; i++)
		CHECK_INT(bt_stack_lines__add(&l,
					      &(struct bt_stack_line){ .count = i, .other = true }),
			  0);
	CHECK_INT(l.n, 40);
	bt_stack_lines__sort(&l, BT_LINES_BY_COUNT);
	CHECK_INT(l.v[0].count, 39);
	bt_stack_lines__free(&l);
	bt_stack_lines__free(NULL);
}

int main(void)
{
	BT_RUN(test_merge);
	return bt_test_done();
}
