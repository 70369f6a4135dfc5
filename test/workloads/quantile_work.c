// SPDX-License-Identifier: GPL-2.0
/*
 * A known latency mix for the exporter's histogram_quantile test:
 *
 *	quantile_work FAST FAST_US SLOW SLOW_US
 *
 * waits for SIGUSR1 (so the tracer can attach first), then calls qw_fast() FAST times, each
 * sleeping FAST_US microseconds, and qw_slow() SLOW times, each sleeping SLOW_US, and prints
 * how long each call took, as it measured it, one nanosecond count a line: on a loaded machine
 * a sleep ends late, and the test wants the true median, not the one asked for. Without a
 * signal within 90 s, SIGALRM ends it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "wl_start.h"

static volatile int sink;

static void sleep_us(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts))
		;
}

__attribute__((noinline)) void qw_fast(long us)
{
	sleep_us(us);
	sink++;
}

__attribute__((noinline)) void qw_slow(long us)
{
	sleep_us(us);
	sink++;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long fast, fast_us, slow, slow_us, i;
	long long t;

	if (argc != 5)
		return 2;
	fast = atol(argv[1]);
	fast_us = atol(argv[2]);
	slow = atol(argv[3]);
	slow_us = atol(argv[4]);
	alarm(90); /* past the guest tests' 60 s wait for a tool under TCG */
	if (wl_wait_start(-1))
		return 3;
	alarm(0);
	for (i = 0; i < fast + slow; i++) {
		t = now_ns();
		if (i < fast)
			qw_fast(fast_us);
		else
			qw_slow(slow_us);
		printf("%lld\n", now_ns() - t);
	}
	return 0;
}
