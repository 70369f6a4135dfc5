// SPDX-License-Identifier: GPL-2.0
/*
 * One leaf function reached through two call paths a known number of times, in a PIE
 * executable, in a shared library (libbtstack.so) and, with stack_paths_cxx, in a C++ method.
 * Usage: stack_paths A B [DELAY_MS [LINGER_MS]]: sleep DELAY_MS (so a tracer can attach; -1:
 * wait for SIGUSR1 instead, which the tests send once the tracer is ready), call the leaf A times through bt_path_a and B times through bt_path_b, in the executable
 * and the library alike, then stay alive LINGER_MS.
 */
#include <stdlib.h>
#include <unistd.h>

#include "btstack.h"
#include "wl_start.h"

volatile unsigned long bt_sink;

__attribute__((noinline)) void bt_leaf(unsigned long i)
{
	bt_sink += i;
}

__attribute__((noinline)) void bt_path_a(long n)
{
	for (long i = 0; i < n; i++)
		bt_leaf(i);
}

__attribute__((noinline)) void bt_path_b(long n)
{
	for (long i = 0; i < n; i++)
		bt_leaf(i);
}

int main(int argc, char **argv)
{
	long a = argc > 1 ? atol(argv[1]) : 3;
	long b = argc > 2 ? atol(argv[2]) : 5;
	long delay = argc > 3 ? atol(argv[3]) : 0;
	long linger = argc > 4 ? atol(argv[4]) : 0;

	if (wl_wait_start(delay))
		return 1;
	bt_path_a(a);
	bt_path_b(b);
	btlib_path_a(a);
	btlib_path_b(b);
	usleep(linger * 1000);
	return 0;
}
