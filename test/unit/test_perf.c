// SPDX-License-Identifier: GPL-2.0
/* lib/attach/bt_perf: the kernel's CPU list format. */
#include <errno.h>
#include <stdbool.h>

#include "bt_perf.h"
#include "harness.h"

static void test_cpulist(void)
{
	bool m[16];

	CHECK(bt_cpulist_parse("0\n", m, 16) == 1);
	CHECK(m[0] && !m[1]);
	CHECK(bt_cpulist_parse("0-3,8,10-11\n", m, 16) == 7);
	CHECK(m[0] && m[3] && !m[4] && m[8] && !m[9] && m[10] && m[11] && !m[12]);
	CHECK(bt_cpulist_parse("2-3", m, 16) == 2); /* no newline */
	CHECK(!m[0] && m[2] && m[3]);
	CHECK(bt_cpulist_parse("1,1,0-1", m, 16) == 2); /* overlaps count once */
	CHECK(bt_cpulist_parse("15", m, 16) == 1);
}

static void test_cpulist_bad(void)
{
	bool m[4];

	CHECK(bt_cpulist_parse("", m, 4) == -EINVAL);
	CHECK(bt_cpulist_parse("\n", m, 4) == -EINVAL);
	CHECK(bt_cpulist_parse("4", m, 4) == -EINVAL);	 /* past the possible CPUs */
	CHECK(bt_cpulist_parse("3-1", m, 4) == -EINVAL); /* reversed */
	CHECK(bt_cpulist_parse("0-", m, 4) == -EINVAL);
	CHECK(bt_cpulist_parse("a", m, 4) == -EINVAL);
	CHECK(bt_cpulist_parse("0;1", m, 4) == -EINVAL);
	CHECK(bt_cpulist_parse("-1", m, 4) == -EINVAL);
	CHECK(bt_cpulist_parse("99999999999999999999", m, 4) == -EINVAL);
}

int main(void)
{
	BT_RUN(test_cpulist);
	BT_RUN(test_cpulist_bad);
	return bt_test_done();
}
