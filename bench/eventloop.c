// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of one traced event, measured from the traced side: N getppid system calls (a
 * syscalls tracepoint), N calls of a user function (a uprobe), or N pipe round trips between
 * two processes pinned to one CPU (two context switches each), timed, in ns per operation
 * (per context switch for "switch"). scripts/bench runs it untraced and traced.
 *	eventloop syscall|ufunc|switch N
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

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

/* Ping-pong over two pipes on CPU 0: every byte is a switch to the other process. */
static int switches(long n)
{
	int a[2], b[2], status;
	cpu_set_t one;
	double t0;
	pid_t child;
	char c = 0;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (pipe(a) || pipe(b) || sched_setaffinity(0, sizeof(one), &one))
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		close(a[1]); /* the parent's close of a[1] is the child's end of file */
		while (read(a[0], &c, 1) == 1 && write(b[1], &c, 1) == 1)
			;
		_exit(0);
	}
	t0 = now_ns();
	for (long i = 0; i < n; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			return 1;
	printf("%.1f\n", (now_ns() - t0) / (2.0 * n));
	close(a[1]);
	waitpid(child, &status, 0);
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 1000000;
	int sys = argc > 1 && !strcmp(argv[1], "syscall");
	double t0;

	if (argc < 2 || n <= 0) {
		fprintf(stderr, "usage: eventloop syscall|ufunc|switch N\n");
		return 2;
	}
	if (!strcmp(argv[1], "switch"))
		return switches(n);
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
