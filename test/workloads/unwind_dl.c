// SPDX-License-Identifier: GPL-2.0
/*
 * A library unwind_work dlopen()s while traced (libunwind_dl.so): uwd_1 -> ... -> uwd_6 ->
 * uwd_leaf -> clock_gettime(CLOCK_PROCESS_CPUTIME_ID), built -O2 -fomit-frame-pointer, each call kept a call. Its frames walk whole only
 * once the unwinder has indexed the process again with the library mapped.
 */
#include <time.h>

#include "unwind_work.h"

UW_FN long uwd_leaf(long x)
{
	struct timespec ts;

	/* a system call from the vdso: the tests trace it, not this library */
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	x += ts.tv_nsec & 1;
	UW_KEEP(x);
	return x + 1;
}

#define UWD(name, next)          \
	UW_FN long name(long x); \
	UW_FN long name(long x)  \
	{                        \
		x = next(x);     \
		UW_KEEP(x);      \
		return x + 1;    \
	}

UWD(uwd_6, uwd_leaf)
UWD(uwd_5, uwd_6)
UWD(uwd_4, uwd_5)
UWD(uwd_3, uwd_4)
UWD(uwd_2, uwd_3)
UWD(uwd_1, uwd_2)
