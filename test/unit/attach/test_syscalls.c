// SPDX-License-Identifier: GPL-2.0
/*
 * System call numbers by tracepoint name (bt_syscall_nr), which route syscall: targets through
 * one raw sys_enter link: the build's headers, the events named after their kernel function,
 * the numbers shared by every architecture from 424, and names nobody knows.
 */
#include <sys/syscall.h>

#include "bt_syscalls.h"
#include "harness.h"

static void test_headers(void)
{
	CHECK_INT(bt_syscall_nr("read"), __NR_read);
	CHECK_INT(bt_syscall_nr("getppid"), __NR_getppid);
	CHECK_INT(bt_syscall_nr("exit_group"), __NR_exit_group);
	CHECK_INT(bt_syscall_nr("openat"), __NR_openat);
}

/* sys_enter_newfstat is fstat's event, sys_enter_umount umount2's: not other calls. */
static void test_aliases(void)
{
	CHECK_INT(bt_syscall_nr("newfstat"), __NR_fstat);
	CHECK_INT(bt_syscall_nr("newuname"), __NR_uname);
	CHECK_INT(bt_syscall_nr("umount"), __NR_umount2);
	CHECK_INT(bt_syscall_nr("sendfile64"), __NR_sendfile);
#ifdef __NR_stat
	CHECK_INT(bt_syscall_nr("newstat"), __NR_stat);
#endif
}

/* Newer than Debian 12's headers: the same number on x86-64 and arm64. */
static void test_shared(void)
{
	CHECK_INT(bt_syscall_nr("cachestat"), 451);
	CHECK_INT(bt_syscall_nr("futex_wait"), 455);
	CHECK_INT(bt_syscall_nr("file_setattr"), 469);
}

static void test_unknown(void)
{
	CHECK_INT(bt_syscall_nr("no_such_call"), -1);
	CHECK_INT(bt_syscall_nr(""), -1);
	CHECK_INT(bt_syscall_nr("syscalls"), -1); /* asm-generic's count, not a call */
}

int main(void)
{
	BT_RUN(test_headers);
	BT_RUN(test_aliases);
	BT_RUN(test_shared);
	BT_RUN(test_unknown);
	return bt_test_done();
}
