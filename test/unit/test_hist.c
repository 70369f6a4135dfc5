// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include <linux/types.h>

#include "bt_hist.h"
#include "bt_log2.h"
#include "harness.h"

static char *render(const uint64_t *vals, int n, const char *label)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	bt_hist_print_log2(f, vals, n, label);
	fclose(f);
	return buf;
}

static void test_slots_match_bcc(void)
{
	/* bcc's bpf_log2l(): 0 and 1 -> 1, 2..3 -> 2, 4..7 -> 3, 2^63 -> 64 */
	CHECK_INT(bt_log2_slot(0), 1);
	CHECK_INT(bt_log2_slot(1), 1);
	CHECK_INT(bt_log2_slot(2), 2);
	CHECK_INT(bt_log2_slot(3), 2);
	CHECK_INT(bt_log2_slot(4), 3);
	CHECK_INT(bt_log2_slot(1023), 10);
	CHECK_INT(bt_log2_slot(1024), 11);
	CHECK_INT(bt_log2_slot(1ULL << 63), 64);
	CHECK_INT(bt_log2_slot(~0ULL), 64);
}

/* The probes' branch-free slot (probes/bt_log2.h) against this one, at every edge. */
static void test_bpf_slots_match(void)
{
	uint64_t v, x = 0x9e3779b97f4a7c15ULL;
	int bit, n;

	for (v = 0; v < 4096; v++)
		CHECK_INT(bt_log2_slot_branchless(v), bt_log2_slot(v));
	for (bit = 0; bit < 64; bit++) {
		v = 1ULL << bit;
		CHECK_INT(bt_log2_slot_branchless(v), bt_log2_slot(v));
		CHECK_INT(bt_log2_slot_branchless(v - 1), bt_log2_slot(v - 1));
		CHECK_INT(bt_log2_slot_branchless(v + 1), bt_log2_slot(v + 1));
		CHECK_INT(bt_log2_slot_branchless(v | (v - 1)), bt_log2_slot(v | (v - 1)));
	}
	for (n = 0; n < 100000; n++) { /* xorshift: values of every width */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = x >> (x & 63);
		CHECK_INT(bt_log2_slot_branchless(v), bt_log2_slot(v));
	}
}

static void test_bcc_python_format(void)
{
	uint64_t vals[BT_HIST_SLOTS] = { 0 };
	char *out;

	vals[1] = 1;
	vals[3] = 4;
	vals[4] = 3;
	out = render(vals, BT_HIST_SLOTS, "usecs");
	/* Bytes as bcc/table.py _print_log2_hist prints them. */
	CHECK_STR(
		out,
		"     usecs               : count     distribution\n"
		"         0 -> 1          : 1        |**********                              |\n"
		"         2 -> 3          : 0        |                                        |\n"
		"         4 -> 7          : 4        |****************************************|\n"
		"         8 -> 15         : 3        |******************************          |\n");
	free(out);
}

static void test_empty_prints_nothing(void)
{
	uint64_t vals[BT_HIST_SLOTS] = { 0 };
	char *out = render(vals, BT_HIST_SLOTS, "nsecs");

	CHECK_STR(out, "");
	free(out);
}

static void test_wide_layout_past_slot_32(void)
{
	uint64_t vals[BT_HIST_SLOTS] = { 0 };
	char *out, *last;

	vals[33] = 2;
	vals[64] = 1;
	out = render(vals, BT_HIST_SLOTS, "nsecs");
	CHECK(!strncmp(out,
		       "               nsecs                         : count     distribution\n",
		       70));
	last = strstr(
		out,
		"9223372036854775808 -> 18446744073709551615 : 1        |**********          |\n");
	CHECK(last != NULL);
	CHECK(strstr(out, "          4294967296 -> 8589934591           : 2        "
			  "|********************|\n") != NULL);
	free(out);
}

static void test_star_rounding_floors(void)
{
	uint64_t vals[BT_HIST_SLOTS] = { 0 };
	char *out;

	vals[1] = 3;
	vals[2] = 1; /* 40 * 1 / 3 = 13.33 -> 13 stars */
	out = render(vals, BT_HIST_SLOTS, "usecs");
	CHECK(strstr(out, ": 1        |*************                           |\n") != NULL);
	free(out);
}

/* funclatency's and biolatency -e's line: nothing without a count, the average truncated. */
static void test_avg_line(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	bt_hist_print_avg(f, 0, 0, "usecs");
	bt_hist_print_avg(f, 265309, 237, "usecs");
	bt_hist_print_avg(f, 7, 2, "msecs");
	fclose(f);
	CHECK_STR(buf, "\navg = 1119 usecs, total: 265309 usecs, count: 237\n\n"
		       "\navg = 3 msecs, total: 7 msecs, count: 2\n\n");
	free(buf);
}

int main(void)
{
	BT_RUN(test_slots_match_bcc);
	BT_RUN(test_bpf_slots_match);
	BT_RUN(test_bcc_python_format);
	BT_RUN(test_empty_prints_nothing);
	BT_RUN(test_wide_layout_past_slot_32);
	BT_RUN(test_star_rounding_floors);
	BT_RUN(test_avg_line);
	return bt_test_done();
}
