// SPDX-License-Identifier: GPL-2.0
/*
 * A workload for funcslower -B and -S:
 *
 *	fs_prof_work sleep N MS     fs_sleepy(): N nanosleeps of MS ms, one call
 *	fs_prof_work spin MS        fs_spin(): spins in fs_spin_loop() until the thread has used
 *	                            MS ms of CPU, one call
 *
 * waits for SIGUSR1 first (the tracer attaches meanwhile), then prints what it measured:
 * "slept MS_TOTAL" (wall time inside nanosleep, ms with two decimals) or "spun MS_CPU" (the
 * thread's CPU time in the call). Without a signal within 90 s it exits with status 3. No
 * inlining, frame pointers on, so the user stacks name fs_sleepy/fs_spin_loop.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double now_ms(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) double fs_nap(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	double t0 = now_ms(CLOCK_MONOTONIC);

	while (nanosleep(&ts, &ts))
		;
	return now_ms(CLOCK_MONOTONIC) - t0;
}

__attribute__((noinline)) double fs_sleepy(long n, long ms)
{
	double slept = 0;
	long i;

	for (i = 0; i < n; i++)
		slept += fs_nap(ms);
	__asm__ volatile("" ::: "memory");
	return slept;
}

__attribute__((noinline)) void fs_spin_loop(double until)
{
	unsigned long i;

	while (now_ms(CLOCK_THREAD_CPUTIME_ID) < until)
		for (i = 0; i < 100000; i++)
			sink += i;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) double fs_spin(long ms)
{
	double t0 = now_ms(CLOCK_THREAD_CPUTIME_ID);

	fs_spin_loop(t0 + ms);
	__asm__ volatile("" ::: "memory");
	return now_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
}

int main(int argc, char **argv)
{
	sigset_t set;
	int sig;

	if (argc < 3)
		return 2;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	alarm(90); /* past the guest tests' 60 s wait for a tool under TCG */
	if (sigwait(&set, &sig) || sig != SIGUSR1)
		return 3;
	alarm(0);
	if (!strcmp(argv[1], "sleep") && argc == 4)
		printf("slept %.2f\n", fs_sleepy(atol(argv[2]), atol(argv[3])));
	else if (!strcmp(argv[1], "spin") && argc == 3)
		printf("spun %.2f\n", fs_spin(atol(argv[2])));
	else
		return 2;
	return 0;
}
