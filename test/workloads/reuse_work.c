// SPDX-License-Identifier: GPL-2.0
/*
 * Two programs from one source (REUSE_NAME a or b) whose stacks name them: main ->
 * reuse_<name>_outer -> reuse_<name>_sleep, which sleeps 50 ms three times. live/lifecycle runs
 * them one after the other as the same pid.
 */
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

int main(void)
{
	int i;

	for (i = 0; i < 3; i++)
		FN(REUSE_NAME, _outer)();
	return 0;
}
