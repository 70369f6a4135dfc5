// SPDX-License-Identifier: GPL-2.0
/*
 * Two processes handing a byte back and forth over two pipes, N times: "bt_ping" writes and
 * then blocks reading the answer, "bt_pong" blocks reading and answers. Each wakes the other
 * from pipe_write. Usage: pingpong N (waits for SIGUSR1 before the first byte); prints the
 * child's pid.
 *
 * Each runs on a CPU of its own when two are allowed: on one CPU the woken bt_ping may preempt
 * bt_pong on its way back from write, write the next byte before bt_pong reads again, and
 * bt_pong then never blocks in pipe_read (a CI kernel did so on every round).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wl_start.h"

__attribute__((noinline)) static int pong_round(int in, int out)
{
	char c;

	if (read(in, &c, 1) != 1)
		return -1;
	return write(out, &c, 1) == 1 ? 0 : -1;
}

__attribute__((noinline)) static int ping_round(int out, int in)
{
	char c = 'x';

	if (write(out, &c, 1) != 1)
		return -1;
	return read(in, &c, 1) == 1 ? 0 : -1;
}

/* Pins the caller to the NTH CPU (0 or 1) it may run on, if it may run on two. */
static void pin_to_nth_cpu(int nth)
{
	cpu_set_t allowed, one;
	int cpu, seen = 0;

	if (sched_getaffinity(0, sizeof(allowed), &allowed) || CPU_COUNT(&allowed) < 2)
		return;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed) || seen++ != nth)
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		sched_setaffinity(0, sizeof(one), &one);
		return;
	}
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i;
	int to_pong[2], to_ping[2], status;
	sigset_t set;
	pid_t child;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (pipe(to_pong) || pipe(to_ping))
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		/* only the parent writes to_pong: its close is our end of file */
		close(to_pong[1]);
		close(to_ping[0]);
		prctl(PR_SET_NAME, "bt_pong");
		pin_to_nth_cpu(1);
		while (pong_round(to_pong[0], to_ping[1]) == 0)
			;
		return 0;
	}
	close(to_pong[0]);
	close(to_ping[1]);
	prctl(PR_SET_NAME, "bt_ping");
	pin_to_nth_cpu(0);
	printf("%d\n", (int)child);
	fflush(stdout);
	if (wl_wait_start(-1))
		return 1;
	for (i = 0; i < n; i++)
		if (ping_round(to_pong[1], to_ping[0]))
			return 1;
	close(to_pong[1]);
	waitpid(child, &status, 0);
	return 0;
}
