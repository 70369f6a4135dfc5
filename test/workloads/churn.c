// SPDX-License-Identifier: GPL-2.0
/*
 * Processes that come and go, for the lifecycle tests: churn N [PROG [ARGS...]] runs PROG
 * (default /bin/true) N times, one after another, and waits for each. With PID=P in the
 * environment it runs PROG once, as pid P: the kernel's last pid is set to P - 1 just before
 * the fork (root, /proc/sys/kernel/ns_last_pid), tried until the fork gets P (another fork on
 * the machine may take it in between); exit 3 when P could not be had. With CHURN_PIDS=FILE,
 * the pid of each process it ran is appended to FILE, one per line. With CHURN_STOP set it
 * stops itself (SIGSTOP) before the first, for a tool to be started on its pid.
 */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int set_last_pid(long pid)
{
	FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
	int err;

	if (!f)
		return -errno;
	err = fprintf(f, "%ld", pid) < 0;
	return fclose(f) || err ? -EIO : 0;
}

static pid_t run_as(long want, char **argv)
{
	int tries;

	for (tries = 0; tries < 1000; tries++) {
		pid_t pid;

		if (set_last_pid(want - 1))
			return -1;
		pid = fork();
		if (pid == 0) {
			if (getpid() != want)
				_exit(111); /* not ours to run */
			execv(argv[0], argv);
			_exit(127);
		}
		if (pid < 0)
			return -1;
		waitpid(pid, NULL, 0);
		if (pid == want)
			return pid;
	}
	return -1;
}

int main(int argc, char **argv)
{
	char *def[] = { "/bin/true", NULL };
	char **prog = argc > 2 ? argv + 2 : def;
	const char *want = getenv("PID"), *pids_path = getenv("CHURN_PIDS");
	long i, n = argc > 1 ? atol(argv[1]) : 1;
	FILE *pids = NULL;

	if (want) {
		if (run_as(atol(want), prog) < 0) {
			fprintf(stderr, "churn: could not run as pid %s\n", want);
			return 3;
		}
		return 0;
	}
	if (pids_path && !(pids = fopen(pids_path, "a"))) {
		fprintf(stderr, "churn: %s: %s\n", pids_path, strerror(errno));
		return 1;
	}
	if (getenv("CHURN_STOP"))
		raise(SIGSTOP);
	for (i = 0; i < n; i++) {
		pid_t pid;
		int err = posix_spawn(&pid, prog[0], NULL, NULL, prog, environ);

		if (err) {
			fprintf(stderr, "churn: %s: %s\n", prog[0], strerror(err));
			return 1;
		}
		waitpid(pid, NULL, 0);
		if (pids)
			fprintf(pids, "%d\n", (int)pid);
	}
	if (pids && fclose(pids)) {
		fprintf(stderr, "churn: %s: %s\n", pids_path, strerror(errno));
		return 1;
	}
	return 0;
}
