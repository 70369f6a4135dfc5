// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with known slow calls for funcslower's tests:
 *
 *	funcslower_work N SLOW_MS [F]
 *
 * waits for SIGUSR1 (so the tracer can attach first), then calls fs_work(i, 0x1000 + i)
 * for i = 1..N through fs_caller(): odd i sleep SLOW_MS (nanosleep), even i return at once;
 * every call returns 2 * i. Then fs_fail() F times, each sleeping SLOW_MS and returning -1.
 * Without a signal within 90 s it exits with status 3. No inlining, frame pointers on.
 */
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile long sink;
static long slow_ms;

static void nap(void)
{
	struct timespec ts = { slow_ms / 1000, (slow_ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

__attribute__((noinline)) long fs_work(long x, long y)
{
	sink += y;
	if (x & 1)
		nap();
	return 2 * x;
}

__attribute__((noinline)) long fs_caller(long x)
{
	long r = fs_work(x, 0x1000 + x);

	__asm__ volatile("" ::: "memory"); /* keeps the call a call, not a tail jump */
	return r;
}

__attribute__((noinline)) long fs_fail(void)
{
	nap();
	__asm__ volatile("" ::: "memory");
	return -1;
}

int main(int argc, char **argv)
{
	long n, f, i;
	sigset_t set;
	int sig;

	if (argc < 3 || argc > 4)
		return 2;
	n = atol(argv[1]);
	slow_ms = atol(argv[2]);
	f = argc > 3 ? atol(argv[3]) : 0;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	alarm(90); /* past the guest tests' 60 s wait for a tool under TCG */
	if (sigwait(&set, &sig) || sig != SIGUSR1)
		return 3;
	for (i = 1; i <= n; i++)
		sink += fs_caller(i);
	for (i = 0; i < f; i++)
		sink += fs_fail();
	return 0;
}
