// SPDX-License-Identifier: GPL-2.0
#include <limits.h>
#include <stdio.h>

#include "bt_args.h"
#include "bt_err.h"
#include "harness.h"

static void test_ulong(void)
{
	unsigned long v = 7;

	CHECK_INT(bt_parse_ulong("5", "interval", 1, 100, &v), 0);
	CHECK_INT(v, 5);
	CHECK_INT(bt_parse_ulong("0", "interval", 1, 100, &v), -BT_EUSAGE);
	CHECK_INT(bt_parse_ulong("-1", "interval", 0, 100, &v), -BT_EUSAGE);
	CHECK_INT(bt_parse_ulong("", "interval", 0, 100, &v), -BT_EUSAGE);
	CHECK_INT(bt_parse_ulong(NULL, "interval", 0, 100, &v), -BT_EUSAGE);
	CHECK_INT(bt_parse_ulong("1x", "interval", 0, 100, &v), -BT_EUSAGE);
	CHECK_INT(bt_parse_ulong("101", "interval", 0, 100, &v), -BT_EUSAGE);
	CHECK_INT(bt_parse_ulong("99999999999999999999999", "count", 0, ULONG_MAX, &v), -BT_EUSAGE);
	CHECK_INT(v, 5); /* untouched on error */
}

static void test_long(void)
{
	long v = 0;

	CHECK_INT(bt_parse_long("-3", "cpu", -5, 5, &v), 0);
	CHECK_INT(v, -3);
	CHECK_INT(bt_parse_long("-6", "cpu", -5, 5, &v), -BT_EUSAGE);
	CHECK_INT(bt_parse_long("6", "cpu", -5, 5, &v), -BT_EUSAGE);
	CHECK_INT(bt_parse_long("0x10", "cpu", 0, 100, &v), -BT_EUSAGE);
}

static void test_exit_codes(void)
{
	CHECK_INT(bt_exit_code(0), 0);
	CHECK_INT(bt_exit_code(-BT_EUSAGE), 2);
	CHECK_INT(bt_exit_code(-1), 1);
	CHECK_INT(bt_exit_code(-22), 1);
}

int main(void)
{
	/* The error paths print to stderr; that is their job, not noise. */
	BT_RUN(test_ulong);
	BT_RUN(test_long);
	BT_RUN(test_exit_codes);
	return bt_test_done();
}
