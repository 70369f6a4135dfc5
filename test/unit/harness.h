/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny assertion harness for the unit tier. Each test binary lists its cases in main():
 *
 *	int main(void) { BT_RUN(test_a); BT_RUN(test_b); return bt_test_done(); }
 *
 * A failed CHECK reports file:line and the values, marks the case failed and goes on, so one
 * run shows every broken assertion. Output is TAP-like; ctest looks only at the exit code.
 */
#ifndef BT_TEST_HARNESS_H
#define BT_TEST_HARNESS_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int bt_test_failed_cases;
static int bt_test_cases;
static int bt_test_case_failed;
static int bt_test_checks;

#define CHECK(cond)                                                                              \
	do {                                                                                     \
		bt_test_checks++;                                                                \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
			bt_test_case_failed = 1;                                                 \
		}                                                                                \
	} while (0)

#define CHECK_INT(a, b)                                                                       \
	do {                                                                                  \
		long long _a = (long long)(a), _b = (long long)(b);                           \
		bt_test_checks++;                                                             \
		if (_a != _b) {                                                               \
			fprintf(stderr, "%s:%d: %s == %lld, expected %s == %lld\n", __FILE__, \
				__LINE__, #a, _a, #b, _b);                                    \
			bt_test_case_failed = 1;                                              \
		}                                                                             \
	} while (0)

#define CHECK_STR(a, b)                                                                     \
	do {                                                                                \
		const char *_a = (a), *_b = (b);                                            \
		bt_test_checks++;                                                           \
		if (!_a || !_b || strcmp(_a, _b)) {                                         \
			fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, \
				__LINE__, #a, _a ? _a : "(null)", _b ? _b : "(null)");      \
			bt_test_case_failed = 1;                                            \
		}                                                                           \
	} while (0)

#define BT_RUN(fn)                                                                                 \
	do {                                                                                       \
		bt_test_case_failed = 0;                                                           \
		bt_test_cases++;                                                                   \
		fn();                                                                              \
		printf("%s %d - %s\n", bt_test_case_failed ? "not ok" : "ok", bt_test_cases, #fn); \
		bt_test_failed_cases += bt_test_case_failed;                                       \
	} while (0)

static inline int bt_test_done(void)
{
	printf("1..%d\n# %d checks, %d of %d cases failed\n", bt_test_cases, bt_test_checks,
	       bt_test_failed_cases, bt_test_cases);
	if (bt_test_checks == 0)
		return 1; /* a test binary that asserts nothing is a bug */
	return bt_test_failed_cases ? 1 : 0;
}

#endif
