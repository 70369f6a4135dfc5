// SPDX-License-Identifier: GPL-2.0
/*
 * The library half of unwind_work: uwl_1 -> uwl_2 -> uwl_3 -> uwl_4 -> uwl_leaf, built
 * -O2 -fomit-frame-pointer like a distribution's libraries, each call kept a call.
 */
#include <time.h>
#include <unistd.h>

#include "unwind_work.h"

static enum uw_leaf_kind leaf_kind;
static struct timespec leaf_sleep;
static int leaf_fd = -1;

void uwl_setup(enum uw_leaf_kind kind, long sleep_ms, int fd)
{
	leaf_kind = kind;
	leaf_sleep.tv_sec = sleep_ms / 1000;
	leaf_sleep.tv_nsec = sleep_ms % 1000 * 1000000L;
	leaf_fd = fd;
}

UW_FN long uwl_leaf(long x)
{
	char c;

	if (leaf_kind == UW_SLEEP)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &leaf_sleep, NULL);
	else if (leaf_kind == UW_PIPE && read(leaf_fd, &c, 1) == 1)
		x += c;
	else if (leaf_kind == UW_CLOCK) {
		struct timespec ts;

		/* the vdso's clock_gettime makes the system call itself for this clock */
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		x += ts.tv_nsec & 1;
	}
	UW_KEEP(x);
	return x + 1;
}

UW_FN static long uwl_4(long x)
{
	x = uwl_leaf(x);
	UW_KEEP(x);
	return x + 1;
}

UW_FN static long uwl_3(long x)
{
	x = uwl_4(x);
	UW_KEEP(x);
	return x + 1;
}

UW_FN static long uwl_2(long x)
{
	x = uwl_3(x);
	UW_KEEP(x);
	return x + 1;
}

UW_FN long uwl_1(long x)
{
	x = uwl_2(x);
	UW_KEEP(x);
	return x + 1;
}
