// SPDX-License-Identifier: GPL-2.0
/*
 * An inlined frame between two real ones: main -> il_outer (a real call) -> il_middle (always
 * inlined into il_outer) -> il_leaf (a real call, the probe). il_leaf's result is used after
 * the call, so the call is no tail call and its return address lies in il_middle's inlined
 * code. il_outer2 -> il_middle2 (inlined) -> il_leaf is the same, except that the call ends
 * il_middle2's inlined code: only the address before the return address lies in it.
 * Usage: inline_work N: after SIGUSR1, N calls through il_outer and 2N through il_outer2.
 * Built -O2 -g with frame pointers.
 */
#include <stdlib.h>

#include "wl_start.h"

volatile unsigned long il_sink;

__attribute__((noinline, noclone)) unsigned long il_leaf(unsigned long v)
{
	il_sink += v;
	return il_sink;
}

static inline __attribute__((always_inline)) unsigned long il_middle(unsigned long v)
{
	unsigned long r = il_leaf(v * 3);

	il_sink ^= r; /* after the call: the return address is still il_middle's */
	return r + 1;
}

__attribute__((noinline, noclone)) unsigned long il_outer(unsigned long v)
{
	unsigned long r = il_middle(v);

	il_sink += r;
	return r;
}

/* The call is il_middle2's last act: its return address is already il_outer2's own code. */
static inline __attribute__((always_inline)) unsigned long il_middle2(unsigned long v)
{
	return il_leaf(v + 7);
}

__attribute__((noinline, noclone)) unsigned long il_outer2(unsigned long v)
{
	unsigned long r = il_middle2(v);

	il_sink += r * 5;
	return r;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1, i;

	if (wl_wait_start(-1))
		return 2;
	for (i = 0; i < n; i++)
		il_outer(i);
	for (i = 0; i < 2 * n; i++)
		il_outer2(i);
	return 0;
}
