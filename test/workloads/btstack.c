// SPDX-License-Identifier: GPL-2.0
/* libbtstack.so: the library half of stack_paths. */
#include "btstack.h"

volatile unsigned long btlib_sink;

__attribute__((noinline)) void btlib_leaf(unsigned long i)
{
	btlib_sink += i;
}

__attribute__((noinline)) void btlib_path_a(long n)
{
	for (long i = 0; i < n; i++)
		btlib_leaf(i);
}

__attribute__((noinline)) void btlib_path_b(long n)
{
	for (long i = 0; i < n; i++)
		btlib_leaf(i);
}
