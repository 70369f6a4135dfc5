// SPDX-License-Identifier: GPL-2.0
/*
 * Processes that sleep once and exit, for the off-CPU tools' accounting at exit:
 * exit_sleepers N PAR MS forks N children, PAR at a time; each sleeps MS ms in one nanosleep,
 * measured around the call on CLOCK_MONOTONIC, and exits at once. Prints the sum of the N
 * measured sleeps in microseconds: an upper bound of the off-CPU time a tracer can see in them
 * (the call's own entry and exit are on the CPU).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000LL + t.tv_nsec / 1000;
}

static void child(int fd, long ms)
{
	struct timespec nap = { ms / 1000, ms % 1000 * 1000000L };
	long long t0, slept;

	t0 = now_us();
	nanosleep(&nap, NULL);
	slept = now_us() - t0;
	/* one write of 8 bytes to a pipe is atomic */
	_exit(write(fd, &slept, sizeof(slept)) == sizeof(slept) ? 0 : 1);
}

int main(int argc, char **argv)
{
	long n, par, ms, i, running = 0, failed = 0, got = 0;
	long long total = 0, slept;
	int fds[2], st;

	/* N at most 8,000: their 8-byte results fit the pipe's 64 KiB, read after the last exit */
	if (argc != 4 || (n = atol(argv[1])) < 1 || n > 8000 || (par = atol(argv[2])) < 1 ||
	    (ms = atol(argv[3])) < 1) {
		fprintf(stderr, "usage: exit_sleepers N PAR MS (N <= 8000)\n");
		return 2;
	}
	if (pipe(fds))
		return 1;
	for (i = 0; i < n; i++) {
		if (running == par) {
			if (wait(&st) < 0)
				return 1;
			failed += !WIFEXITED(st) || WEXITSTATUS(st);
			running--;
		}
		switch (fork()) {
		case -1:
			return 1;
		case 0:
			close(fds[0]);
			child(fds[1], ms);
		}
		running++;
	}
	while (running && wait(&st) > 0) {
		failed += !WIFEXITED(st) || WEXITSTATUS(st);
		running--;
	}
	close(fds[1]);
	while (read(fds[0], &slept, sizeof(slept)) == sizeof(slept)) {
		total += slept;
		got++;
	}
	if (failed || got != n) {
		fprintf(stderr, "exit_sleepers: %ld children failed, %ld of %ld results\n", failed,
			got, n);
		return 1;
	}
	printf("%lld\n", total);
	return 0;
}
