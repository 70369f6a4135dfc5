// SPDX-License-Identifier: GPL-2.0
/* lib/stacks/bt_stacks' caller splice and lib/stacks/bt_stack_table's merging and sorting. */
#include <stdlib.h>
#include <string.h>

#include "bt_stack_table.h"
#include "bt_stacks.h"
#include "harness.h"

static void test_splice_inserts_second(void)
{
	uint64_t ips[BT_MAX_STACK_DEPTH] = { 0x10, 0x30, 0x40 };

	CHECK_INT(bt_stack_splice_caller(ips, 3, 0x20), 4);
	CHECK_INT(ips[0], 0x10); /* the probed function stays the leaf */
	CHECK_INT(ips[1], 0x20);
	CHECK_INT(ips[2], 0x30);
	CHECK_INT(ips[3], 0x40);
}

static void test_splice_leaves_alone(void)
{
	uint64_t ips[BT_MAX_STACK_DEPTH] = { 0x10, 0x20, 0x30 };

	CHECK_INT(bt_stack_splice_caller(ips, 3, 0), 3);    /* no caller read */
	CHECK_INT(bt_stack_splice_caller(ips, 3, 0x20), 3); /* the walk saw it already */
	CHECK_INT(ips[1], 0x20);
	CHECK_INT(ips[2], 0x30);
	CHECK_INT(bt_stack_splice_caller(ips, 0, 0x20), 0); /* no stack, nothing to splice into */
}

static void test_splice_single_frame(void)
{
	uint64_t ips[BT_MAX_STACK_DEPTH] = { 0x10 };

	CHECK_INT(bt_stack_splice_caller(ips, 1, 0x20), 2);
	CHECK_INT(ips[0], 0x10);
	CHECK_INT(ips[1], 0x20);
}

static void test_splice_full_stack(void)
{
	uint64_t ips[BT_MAX_STACK_DEPTH];
	int i;

	for (i = 0; i < BT_MAX_STACK_DEPTH; i++)
		ips[i] = 0x1000 + i;
	CHECK_INT(bt_stack_splice_caller(ips, BT_MAX_STACK_DEPTH, 0x20), BT_MAX_STACK_DEPTH);
	CHECK_INT(ips[0], 0x1000);
	CHECK_INT(ips[1], 0x20);
	CHECK_INT(ips[2], 0x1001);
	/* the outermost frame made room */
	CHECK_INT(ips[BT_MAX_STACK_DEPTH - 1], 0x1000 + BT_MAX_STACK_DEPTH - 2);
}

static void add(struct bt_stack_table *t, const char *text, unsigned int tgid, unsigned long long v)
{
	FILE *f = bt_stack_table__begin(t);

	CHECK(f != NULL);
	fputs(text, f);
	CHECK_INT(bt_stack_table__end(t, tgid, v), 0);
}

static void test_table_merges_alike_rows_and_sorts(void)
{
	struct bt_stack_table t = { 0 };

	add(&t, "a;b", 1, 5);
	add(&t, "c;d", 1, 2);
	add(&t, "a;b", 2, 7); /* the same stack named alike in another process: merged */
	add(&t, "x;[unknown]", 3, 1);
	/* alike within one process (other addresses, or walked two ways): one row, as printed */
	add(&t, "x;[unknown]", 3, 4);
	bt_stack_table__sort(&t);
	CHECK_INT(t.n, 3);
	CHECK_STR(t.rows[0].text, "c;d");
	CHECK_INT(t.rows[0].value, 2);
	CHECK_STR(t.rows[1].text, "x;[unknown]");
	CHECK_INT(t.rows[1].value, 5);
	CHECK_STR(t.rows[2].text, "a;b");
	CHECK_INT(t.rows[2].value, 12);
	bt_stack_table__sort(&t); /* sorting again (a collection, then the output) keeps them */
	CHECK_INT(t.n, 3);
	CHECK_INT(t.rows[1].value, 5);
	bt_stack_table__clear(&t);
	CHECK_INT(t.n, 0);
	add(&t, "again", 1, 1); /* reusable after a clear */
	CHECK_INT(t.n, 1);
	bt_stack_table__free(&t);
	bt_stack_table__free(NULL);
}

static void test_table_begin_twice(void)
{
	struct bt_stack_table t = { 0 };

	/* a row begun and never ended is dropped, not leaked, by the next one */
	CHECK(bt_stack_table__begin(&t) != NULL);
	add(&t, "only", 1, 3);
	CHECK_INT(t.n, 1);
	CHECK_STR(t.rows[0].text, "only");
	bt_stack_table__free(&t);
}

int main(void)
{
	BT_RUN(test_splice_inserts_second);
	BT_RUN(test_splice_leaves_alone);
	BT_RUN(test_splice_single_frame);
	BT_RUN(test_splice_full_stack);
	BT_RUN(test_table_merges_alike_rows_and_sorts);
	BT_RUN(test_table_begin_twice);
	return bt_test_done();
}
