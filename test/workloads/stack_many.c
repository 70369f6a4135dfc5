// SPDX-License-Identifier: GPL-2.0
/*
 * 2^DEPTH distinct user call paths, each taken a known number of times: path p (0 <= p <
 * 2^DEPTH) goes down DEPTH levels through sm_a or sm_b, bit d of p choosing at level d, and is
 * taken (p % 3) + 1 times. The leaf either calls sm_leaf() (for a uprobe) or blocks in a
 * raw clock_nanosleep system call of SLEEP_US (no libc frame between the leaf and the kernel,
 * so the frame-pointer walk sees every frame).
 * Usage: stack_many MODE [DEPTH [SLEEP_US [REPORT]]]: MODE "call" or "sleep"; waits for SIGUSR1
 * first. "stack_many one DEPTH SLEEP_US [N]" sleeps N times (default 1), at once, down the
 * paths its pid numbers (pid * N + i, modulo 2^DEPTH): a churn of them gives each process N
 * rows of its own (live/stack_churn). With REPORT, writes "PATH MICROSECONDS BLOCKED" lines there at the end: the wall time
 * each path really spent in its sleeps (runqueue waits included, as off-CPU time counts them),
 * and how many of its sleeps left the CPU. A short sleep need not: when the thread is held
 * between arming the timer and blocking (interrupts, or the host running another guest's vCPU)
 * until the timer has expired, the kernel returns without switching.
 */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "wl_start.h"

static int depth = 11;
static int sleeping;
static long sleep_us = 100;
volatile unsigned long sm_sink;
static unsigned long long *slept_ns; /* per path */
static unsigned int *blocked;	     /* per path: sleeps that switched out */

static long voluntary_switches(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : ru.ru_nvcsw;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

__attribute__((noinline)) void sm_leaf(unsigned long path)
{
	sm_sink += path;
}

/* The system call made right here: libc's wrappers have no frame pointer. */
static inline __attribute__((always_inline)) void raw_nanosleep(const struct timespec *ts)
{
#if defined(__x86_64__)
	register long rem __asm__("r10") = 0;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_clock_nanosleep), "D"((long)CLOCK_MONOTONIC), "S"(0L),
			   "d"(ts), "r"(rem)
			 : "rcx", "r11", "memory");
	(void)ret;
#else
	syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, ts, NULL);
#endif
}

__attribute__((noinline)) static void leaf(unsigned long path)
{
	struct timespec ts = { sleep_us / 1000000, sleep_us % 1000000 * 1000 };

	if (sleeping) {
		long switches = voluntary_switches();
		unsigned long long t0 = now_ns();

		raw_nanosleep(&ts);
		slept_ns[path] += now_ns() - t0;
		blocked[path] += voluntary_switches() != switches;
	} else
		sm_leaf(path);
	sm_sink++; /* not a tail call: this frame stays on the stack */
}

void sm_b(unsigned long path, int level);

__attribute__((noinline)) void sm_a(unsigned long path, int level)
{
	if (level == depth)
		leaf(path);
	else if (path >> level & 1)
		sm_b(path, level + 1);
	else
		sm_a(path, level + 1);
	sm_sink++;
}

__attribute__((noinline)) void sm_b(unsigned long path, int level)
{
	if (level == depth)
		leaf(path);
	else if (path >> level & 1)
		sm_b(path, level + 1);
	else
		sm_a(path, level + 1);
	sm_sink++;
}

int main(int argc, char **argv)
{
	unsigned long p, n;
	long i;

	if (argc < 2)
		return 2;
	sleeping = !strcmp(argv[1], "sleep") || !strcmp(argv[1], "one");
	if (argc > 2)
		depth = atoi(argv[2]);
	if (argc > 3)
		sleep_us = atol(argv[3]);
	if (depth < 1 || depth > 20)
		return 2;
	n = 1UL << depth;
	slept_ns = calloc(n, sizeof(*slept_ns));
	blocked = calloc(n, sizeof(*blocked));
	if (!slept_ns || !blocked)
		return 2;
	if (!strcmp(argv[1], "one")) {
		unsigned long k = argc > 4 ? strtoul(argv[4], NULL, 10) : 1;

		for (p = 0; p < k; p++)
			sm_a(((unsigned long)getpid() * k + p) % n, 0);
		return 0;
	}
	if (wl_wait_start(-1))
		return 2;
	/* root first, a path reads main;sm_a;X0;...;X(DEPTH-1);leaf: Xd is sm_b where bit d is set */
	for (p = 0; p < n; p++)
		for (i = 0; i < (long)(p % 3) + 1; i++)
			sm_a(p, 0);
	if (argc > 4) {
		FILE *f = fopen(argv[4], "w");

		if (!f)
			return 1;
		for (p = 0; p < n; p++)
			fprintf(f, "%lu %llu %u\n", p, slept_ns[p] / 1000, blocked[p]);
		if (fclose(f))
			return 1;
	}
	return 0;
}
