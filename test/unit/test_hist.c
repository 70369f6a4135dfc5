// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "bt_hist.h"
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

int main(void)
{
	BT_RUN(test_slots_match_bcc);
	BT_RUN(test_bcc_python_format);
	BT_RUN(test_empty_prints_nothing);
	BT_RUN(test_wide_layout_past_slot_32);
	BT_RUN(test_star_rounding_floors);
	return bt_test_done();
}
