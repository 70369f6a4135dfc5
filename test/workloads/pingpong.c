// SPDX-License-Identifier: GPL-2.0
/*
 * Two processes handing a byte back and forth over two pipes, N times: "bt_ping" writes and
 * then blocks reading the answer, "bt_pong" blocks reading and answers. Each wakes the other
 * from pipe_write. Usage: pingpong N (waits for SIGUSR1 before the first byte); prints the
 * child's pid.
 */
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
		while (pong_round(to_pong[0], to_ping[1]) == 0)
			;
		return 0;
	}
	close(to_pong[0]);
	close(to_ping[1]);
	prctl(PR_SET_NAME, "bt_ping");
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
