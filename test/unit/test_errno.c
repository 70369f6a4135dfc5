// SPDX-License-Identifier: GPL-2.0
/* lib/base/bt_errno: names of kernel error numbers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bt_errno.h"
#include "harness.h"

static void test_names(void)
{
	CHECK_STR(bt_errno_name(ENOENT), "ENOENT");
	CHECK_STR(bt_errno_name(-ENOENT), "ENOENT"); /* as a syscall returns it */
	CHECK_STR(bt_errno_name(1), "EPERM");
	CHECK_STR(bt_errno_name(EACCES), "EACCES");
	CHECK_STR(bt_errno_name(EAGAIN), "EAGAIN"); /* not its alias EWOULDBLOCK */
	CHECK_STR(bt_errno_name(EOPNOTSUPP), "EOPNOTSUPP");
	CHECK_STR(bt_errno_name(EHWPOISON), "EHWPOISON");
	CHECK(bt_errno_name(0) == NULL);
	CHECK(bt_errno_name(41) == NULL);  /* a hole in the numbering */
	CHECK(bt_errno_name(512) == NULL); /* ERESTARTSYS: kernel-internal, never user-visible */
	CHECK(bt_errno_name(-2147483647) == NULL);
}

/* Every number below the last one that has a name either has its own name or is a hole. */
static void test_every_name_is_its_own(void)
{
	int e, named = 0;

	for (e = 1; e < 200; e++) {
		const char *n = bt_errno_name(e);

		if (!n)
			continue;
		named++;
		CHECK(n[0] == 'E');
	}
	CHECK(named >= 130);
}

/* The kernel's internal numbers in words, not "Unknown error 524"; the others as strerror(). */
static void test_strerror(void)
{
	char *want;

	CHECK_STR(bt_strerror(-524), "operation not supported by the kernel (ENOTSUPP)");
	CHECK_STR(bt_strerror(524), "operation not supported by the kernel (ENOTSUPP)");
	CHECK_STR(bt_strerror(-ENOENT), strerror(ENOENT));
	/* no name in the kernel either: glibc's words (its buffer is reused: compare copies) */
	want = strdup(strerror(520));
	CHECK_STR(bt_strerror(520), want);
	free(want);
}

int main(void)
{
	BT_RUN(test_names);
	BT_RUN(test_strerror);
	BT_RUN(test_every_name_is_its_own);
	return bt_test_done();
}
