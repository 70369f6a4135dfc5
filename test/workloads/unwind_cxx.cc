// SPDX-License-Identifier: GPL-2.0
/*
 * C++ frames for the unwinder, built without frame pointers: main -> uwx::run -> (inlined)
 * uwx::enter -> uwx::Level<4>::go -> ... -> uwx::Level<0>::go -> uwx_leaf, A times.
 * Usage: unwind_cxx A [DELAY_MS] (-1: wait for SIGUSR1).
 */
#include <cstdlib>

#include "unwind_work.h"
#include "wl_start.h"

extern "C" UW_FN long uwx_leaf(long x)
{
	UW_KEEP(x);
	return x + 1;
}

namespace uwx
{
template <int N> struct Level {
	UW_FN static long go(long x)
	{
		x = Level<N - 1>::go(x);
		UW_KEEP(x);
		return x + N;
	}
};

template <> struct Level<0> {
	UW_FN static long go(long x)
	{
		x = uwx_leaf(x);
		UW_KEEP(x);
		return x;
	}
};

/* inlined into run: its frame exists only in the debug information */
__attribute__((always_inline)) inline long enter(long x)
{
	x = Level<4>::go(x);
	UW_KEEP(x);
	return x * 2;
}

UW_FN long run(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++) {
		s += enter(i);
		UW_KEEP(s);
	}
	return s;
}
} // namespace uwx

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 3;

	if (wl_wait_start(argc > 2 ? atol(argv[2]) : 0))
		return 1;
	return uwx::run(n) < 0;
}
