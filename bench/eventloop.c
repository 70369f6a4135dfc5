// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of one traced event, measured from the traced side: N getppid system calls (a
 * syscalls tracepoint) or N calls of a user function (a uprobe), timed, in ns per operation.
 * scripts/bench runs it untraced and traced and prints the difference.
 *	eventloop syscall|ufunc N
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

__attribute__((noinline)) void bt_bench_func(unsigned long i)
{
	sink += i;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 1000000;
	int sys = argc > 1 && !strcmp(argv[1], "syscall");
	double t0;

	if (argc < 2 || n <= 0) {
		fprintf(stderr, "usage: eventloop syscall|ufunc N\n");
		return 2;
	}
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		if (sys)
			syscall(SYS_getppid);
		else
			bt_bench_func(i);
	}
	printf("%.1f\n", (now_ns() - t0) / n);
	return 0;
}
