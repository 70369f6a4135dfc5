// SPDX-License-Identifier: GPL-2.0
/*
 * The C++ variant: a namespaced method reached through two paths (names must demangle).
 * Usage: stack_paths_cxx A B [DELAY_MS] (-1: wait for SIGUSR1).
 */
#include <cstdlib>
#include <unistd.h>

#include "wl_start.h"

namespace btwork
{
class Counter
{
      public:
	__attribute__((noinline)) void bump(unsigned long i);
	__attribute__((noinline)) void viaA(long n);
	__attribute__((noinline)) void viaB(long n);
	volatile unsigned long total = 0;
};

void Counter::bump(unsigned long i)
{
	total += i;
}

void Counter::viaA(long n)
{
	for (long i = 0; i < n; i++)
		bump(i);
}

void Counter::viaB(long n)
{
	for (long i = 0; i < n; i++)
		bump(i);
}
} // namespace btwork

int main(int argc, char **argv)
{
	long a = argc > 1 ? atol(argv[1]) : 3;
	long b = argc > 2 ? atol(argv[2]) : 5;
	long delay = argc > 3 ? atol(argv[3]) : 0;
	btwork::Counter c;

	if (wl_wait_start(delay))
		return 1;
	c.viaA(a);
	c.viaB(b);
	return 0;
}
