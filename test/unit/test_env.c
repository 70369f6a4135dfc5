// SPDX-License-Identifier: GPL-2.0
/* lib/base/bt_env: every boolean BPFTOOLS_* switch reads its value the same way. */
#include <stdlib.h>

#include "bt_env.h"
#include "harness.h"

#define VAR "BPFTOOLS_TEST_SWITCH"

static bool with(const char *value)
{
	setenv(VAR, value, 1);
	return bt_env_flag(VAR);
}

static void test_off(void)
{
	unsetenv(VAR);
	CHECK(!bt_env_flag(VAR));
	CHECK(!with(""));
	CHECK(!with("0"));
	CHECK(!with("no"));
	CHECK(!with("NO"));
	CHECK(!with("false"));
	CHECK(!with("False"));
	CHECK(!with("off"));
}

static void test_on(void)
{
	CHECK(with("1"));
	CHECK(with("yes"));
	CHECK(with("true"));
	CHECK(with("on"));
	CHECK(with("2"));
}

int main(void)
{
	BT_RUN(test_off);
	BT_RUN(test_on);
	return bt_test_done();
}
