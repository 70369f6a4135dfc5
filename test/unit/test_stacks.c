// SPDX-License-Identifier: GPL-2.0
/*
 * lib/stacks/bt_stacks' caller splice and lib/stacks/bt_stack_table's merging, sorting, cap and
 * cost of a row.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bt_stack_table.h"
#include "bt_stacks.h"
#include "bt_unwind.h"
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
	/* a Python frame first: its two words stay together (docs/python.md) */
	ips[0] = BT_PY_CODE_WORD(0x7f0000001000ULL, 0);
	ips[1] = BT_PY_INFO_WORD(0x1234, 5);
	CHECK_INT(bt_stack_splice_caller(ips, 3, 0x40), 3);
	CHECK(BT_PY_IS_INFO(ips[1]));
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

static int add(struct bt_stack_table *t, const char *text, unsigned long long v)
{
	FILE *f = bt_stack_table__begin(t);

	CHECK(f != NULL);
	fputs(text, f);
	return bt_stack_table__end(t, v);
}

/* Row i of the print order, its text and value as "text=value". */
static const char *row(struct bt_stack_table *t, size_t i)
{
	static char buf[4096];
	struct bt_stack_row r;

	if (bt_stack_table__row(t, i, &r))
		return "(none)";
	snprintf(buf, sizeof(buf), "%s=%llu", r.text, r.value);
	return buf;
}

static void test_table_merges_alike_rows_and_sorts(void)
{
	struct bt_stack_table t = { 0 };

	CHECK_INT(add(&t, "a;b", 5), 0);
	CHECK_INT(add(&t, "c;d", 2), 0);
	CHECK_INT(add(&t, "a;b", 7), 0); /* the same stack named alike in another process: merged */
	CHECK_INT(add(&t, "x;[unknown]", 1), 0);
	/* alike within one process (other addresses, or walked two ways): one row, as printed */
	CHECK_INT(add(&t, "x;[unknown]", 4), 0);
	CHECK_INT(t.n, 3);
	CHECK_INT(bt_stack_table__sort(&t), 0);
	CHECK_INT(bt_stack_table__count(&t), 3);
	CHECK_STR(row(&t, 0), "c;d=2");
	CHECK_STR(row(&t, 1), "x;[unknown]=5");
	CHECK_STR(row(&t, 2), "a;b=12");
	CHECK_INT(bt_stack_table__sort(&t), 0); /* sorting again keeps them */
	CHECK_INT(bt_stack_table__count(&t), 3);
	CHECK_STR(row(&t, 1), "x;[unknown]=5");
	bt_stack_table__clear(&t);
	CHECK_INT(t.n, 0);
	CHECK_INT(add(&t, "again", 1), 0); /* reusable after a clear */
	CHECK_INT(t.n, 1);
	CHECK_INT(bt_stack_table__sort(&t), 0);
	CHECK_STR(row(&t, 0), "again=1");
	bt_stack_table__free(&t);
	bt_stack_table__free(NULL);
}

/*
 * Rows of one value print in strcmp() order of their whole texts, whatever pieces they are
 * cut into: a piece that ends one row's text where the other's goes on, a separator against
 * a byte below or above it, a piece repeated within a row, an empty row.
 */
static void test_table_orders_as_strcmp(void)
{
	static const char *const texts[] = {
		"a;bc",
		"a;b",
		"a!",
		"a;x",
		"a;b;b;b",
		"",
		"    f\n    g\n",
		"    f\n    g\n  h\n",
		"{\"a\": 1, \"b\": [2, 3]}",
		"a;b;",
		";a",
	};
	size_t n = sizeof(texts) / sizeof(texts[0]), i, j;
	struct bt_stack_table t = { 0 };
	const char *sorted[sizeof(texts) / sizeof(texts[0])];

	for (i = 0; i < n; i++) {
		CHECK_INT(add(&t, texts[i], 1), 0);
		sorted[i] = texts[i];
	}
	for (i = 0; i < n; i++) /* the rows again: each merged with itself */
		CHECK_INT(add(&t, texts[i], 2), 0);
	CHECK_INT(t.n, n);
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(sorted[j - 1], sorted[j]) > 0; j--) {
			const char *x = sorted[j];

			sorted[j] = sorted[j - 1];
			sorted[j - 1] = x;
		}
	CHECK_INT(bt_stack_table__sort(&t), 0);
	for (i = 0; i < n; i++) {
		char want[256];

		snprintf(want, sizeof(want), "%s=3", sorted[i]);
		CHECK_STR(row(&t, i), want);
	}
	bt_stack_table__free(&t);
}

static void test_table_begin_twice(void)
{
	struct bt_stack_table t = { 0 };

	/* a row begun and never ended is dropped by the next one */
	CHECK(bt_stack_table__begin(&t) != NULL);
	fputs("dropped;row;longer;than;the;next", t.cur);
	CHECK_INT(add(&t, "only", 3), 0);
	CHECK_INT(t.n, 1);
	CHECK_INT(bt_stack_table__sort(&t), 0);
	CHECK_STR(row(&t, 0), "only=3");
	/* ended twice: the second has no row */
	CHECK_INT(bt_stack_table__end(&t, 1), -EINVAL);
	bt_stack_table__free(&t);
}

/*
 * Past max_rows, a row unlike every row kept goes to [other], counted, with its value; a row
 * like one kept still adds to it; nothing of a row past the cap is kept (its frames are not
 * interned). [other] prints among the rows by its value, in the tool's form.
 */
static void test_table_cap_folds_into_other(void)
{
	struct bt_stack_table t = { .max_rows = 3 };
	size_t bytes;
	char text[64];
	int i;

	CHECK_INT(add(&t, "main;a", 10), 0);
	CHECK_INT(add(&t, "main;b", 20), 0);
	CHECK_INT(add(&t, "main;c", 30), 0);
	CHECK_INT(t.n, 3);
	CHECK_INT(add(&t, "main;d", 4), 1);
	CHECK_INT(add(&t, "main;a", 1), 0); /* kept already: merged, not [other] */
	CHECK_INT(bt_stack_table__other(&t, "[other]"), 0);
	bytes = bt_stack_table__bytes(&t);
	for (i = 0; i < 1000; i++) {
		snprintf(text, sizeof(text), "main;new_%d;leaf_%d", i, i);
		CHECK_INT(add(&t, text, 1), 1);
	}
	CHECK_INT(bt_stack_table__bytes(&t), bytes); /* no piece of them kept */
	CHECK_INT(t.n, 3);
	CHECK_INT(t.other_rows, 1001);
	CHECK_INT(t.other_value, 1004);
	CHECK_INT(bt_stack_table__sort(&t), 0);
	CHECK_INT(bt_stack_table__count(&t), 4);
	CHECK_STR(row(&t, 0), "main;a=11");
	CHECK_STR(row(&t, 3), "[other]=1004");
	bt_stack_table__clear(&t); /* an interval's output: [other] starts again */
	CHECK_INT(t.other_rows, 0);
	CHECK_INT(add(&t, "main;d", 4), 0);
	CHECK_INT(bt_stack_table__sort(&t), 0);
	CHECK_INT(bt_stack_table__count(&t), 1);
	bt_stack_table__free(&t);
}

/*
 * Past max_bytes held, as past max_rows: rows of frames of their own (a build's compilers)
 * stop being kept at the bytes, whatever the rows, and what is kept stays within them but
 * the last row's; a row like one kept still adds to it. The default is 1 MiB at least.
 */
static void test_table_bytes_cap(void)
{
	struct bt_stack_table t = { .max_rows = 100000, .max_bytes = 256 << 10 };
	struct bt_stack_table d = { .max_rows = 3 };
	size_t kept;
	char text[256];
	int i;

	for (i = 0; i < 20000; i++) {
		snprintf(text, sizeof(text), "main;caller_of_%d_in_a_long_name;leaf_of_%d", i, i);
		CHECK(add(&t, text, 1) >= 0);
	}
	kept = t.n;
	CHECK(kept > 1000 && kept < 20000);
	CHECK_INT(t.other_rows, 20000 - kept);
	CHECK(bt_stack_table__bytes(&t) < 2 * (256 << 10));
	CHECK_INT(add(&t, "main;caller_of_0_in_a_long_name;leaf_of_0", 5), 0);
	CHECK_INT(t.n, kept);
	CHECK_INT(add(&d, "main;a", 1), 0);
	CHECK(d.max_bytes == 1 << 20);
	bt_stack_table__free(&t);
	bt_stack_table__free(&d);
}

/*
 * A kept row costs its frames' ids and its value, each frame's text kept once: 20,000 rows of
 * 24 frames (~400 bytes of text each, ~8 MB in all) that share their frames but the leaf.
 */
static void test_table_row_cost(void)
{
	/* past the default caps (10,240 rows, 1 MiB) */
	struct bt_stack_table t = { .max_rows = 20000, .max_bytes = SIZE_MAX };
	struct bt_stack_row r;
	char text[1024];
	size_t len, bytes;
	int i, f;

	for (i = 0; i < 20000; i++) {
		len = 0;
		for (f = 0; f < 23; f++)
			len += snprintf(text + len, sizeof(text) - len, "frame_of_the_stack_%d;",
					f);
		snprintf(text + len, sizeof(text) - len, "leaf_%d", i);
		CHECK_INT(add(&t, text, 1), 0);
	}
	/* a row again, its leaf's id past 16,383 (3 bytes of code): merged, not a new row */
	CHECK_INT(add(&t, text, 1), 0);
	CHECK_INT(t.n, 20000);
	bytes = bt_stack_table__bytes(&t);
	/*
	 * 24 ids in 1-3 bytes each (was 4: 206 bytes a row), a row's 24 bytes, hashes at most
	 * half full, the leaves' names
	 */
	CHECK(bytes < 20000 * 160);
	/* the rows read back whole: the last one (value 2) first, each piece's id decoded */
	CHECK_INT(bt_stack_table__sort(&t), 0);
	CHECK_INT(bt_stack_table__row(&t, bt_stack_table__count(&t) - 1, &r), 0);
	CHECK_STR(r.text, text);
	CHECK(r.value == 2);
	CHECK_INT(bt_stack_table__row(&t, 0, &r), 0);
	CHECK(r.value == 1 && strncmp(r.text, text, strlen(text) - 5) == 0);
	fprintf(stderr, "# 20,000 rows of %zu bytes of text: %zu bytes held, %zu per row\n",
		strlen(text), bytes, bytes / 20000);
	bt_stack_table__free(&t);
}

int main(void)
{
	BT_RUN(test_splice_inserts_second);
	BT_RUN(test_splice_leaves_alone);
	BT_RUN(test_splice_single_frame);
	BT_RUN(test_splice_full_stack);
	BT_RUN(test_table_merges_alike_rows_and_sorts);
	BT_RUN(test_table_orders_as_strcmp);
	BT_RUN(test_table_begin_twice);
	BT_RUN(test_table_cap_folds_into_other);
	BT_RUN(test_table_bytes_cap);
	BT_RUN(test_table_row_cost);
	return bt_test_done();
}
