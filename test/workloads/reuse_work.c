// SPDX-License-Identifier: GPL-2.0
/*
 * Two programs from one source (REUSE_NAME a or b) whose stacks name them: main ->
 * reuse_<name>_outer -> reuse_<name>_sleep, which sleeps 50 ms three times (or as many times as
 * the first argument says). live/lifecycle runs them one after the other as the same pid.
 */
#include <stdlib.h>
#include <time.h>

#define CAT(a, b, c) a##b##c
#define FN(name, part) CAT(reuse_, name, part)

__attribute__((noinline)) void FN(REUSE_NAME, _sleep)(void)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	__asm__ volatile("" ::: "memory"); /* not a tail call */
}

__attribute__((noinline)) void FN(REUSE_NAME, _outer)(void)
{
	FN(REUSE_NAME, _sleep)();
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	int i, n = argc > 1 ? atoi(argv[1]) : 3;

	for (i = 0; i < n; i++)
		FN(REUSE_NAME, _outer)();
	return 0;
}
