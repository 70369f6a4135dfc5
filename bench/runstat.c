// SPDX-License-Identifier: GPL-2.0
/*
 * runstat: run one command and say what it cost, for scripts/bench.
 *	runstat [-w|-W SECONDS] [-s SECONDS] [-t SECONDS] [-o FILE] [-e FILE] -- CMD [ARG...]
 * The command's first byte on stdout is "ready" (every tool prints its banner or header once
 * attached). -w: SIGINT it that long after ready (else it ends by itself); -W: that long
 * after the start, for commands that print nothing before the end; -s: sample its
 * resident set that long after ready (default 0.5; the steady RSS); -t: give up after that
 * long (SIGINT, then SIGKILL 5 s later; default 120). Its stdout lines are counted (and
 * copied to -o), stderr goes to -e (default /dev/null). Prints one line:
 *	status=0 wall_ms=1075.3 ready_ms=70.1 window_ms=1000.2 cpu_ms=12.3 user_ms=8.1
 *	sys_ms=4.2 maxrss_kb=15000 steady_kb=4500 lines=3 stop_ms=20.5
 * wall is exec to exit, window the time between ready and the SIGINT (0 without -w), so
 * wall - window is what the command took beyond the time it was asked to trace for; stop is
 * from the SIGINT to the exit (the final print and the detach), -1 if none was sent.
 * If runstat is interrupted it passes SIGTERM on and waits, so the command cleans up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long rss_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: runstat [-w|-W SECONDS] [-s SECONDS] [-t SECONDS] [-o FILE] [-e FILE] "
		"-- CMD [ARG...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	double wait_s = 0, abs_wait_s = 0, steady_s = 0.5, timeout_s = 120, t0, ready = 0, sent = 0,
	       killed_at = 0;
	double steady_at = 0, end;
	const char *out_path = NULL, *err_path = "/dev/null";
	int opt, pfd[2], out = -1, status = 0, eof = 0, timed_out = 0;
	long steady = -1, lines = 0;
	struct rusage ru;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+w:W:s:t:o:e:")) != -1) {
		switch (opt) {
		case 'w':
			wait_s = atof(optarg);
			break;
		case 'W':
			abs_wait_s = atof(optarg);
			break;
		case 's':
			steady_s = atof(optarg);
			break;
		case 't':
			timeout_s = atof(optarg);
			break;
		case 'o':
			out_path = optarg;
			break;
		case 'e':
			err_path = optarg;
			break;
		default:
			return usage();
		}
	}
	if (optind >= argc)
		return usage();
	if (out_path) {
		out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (out < 0) {
			fprintf(stderr, "runstat: %s: %s\n", out_path, strerror(errno));
			return 1;
		}
	}
	if (pipe2(pfd, O_CLOEXEC)) {
		perror("runstat: pipe");
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	t0 = now();
	pid = fork();
	if (pid < 0) {
		perror("runstat: fork");
		return 1;
	}
	if (!pid) {
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		/* a background job of a shell without job control starts with SIGINT ignored */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (e < 0 || dup2(pfd[1], 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		execvp(argv[optind], argv + optind);
		fprintf(stderr, "runstat: %s: %s\n", argv[optind], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		double t = now(), next = t0 + timeout_s;
		struct pollfd p = { pfd[0], POLLIN, 0 };
		pid_t w;
		int ms;

		if (interrupted && !sent) {
			kill(pid, SIGTERM);
			sent = t;
			killed_at = t + 5;
		}
		if (ready && !steady_at && t >= ready + steady_s) {
			steady_at = t;
			steady = rss_kb(pid);
		}
		if (ready && wait_s > 0 && !sent && t >= ready + wait_s) {
			kill(pid, SIGINT);
			sent = t;
			killed_at = t + 60;
		}
		if (abs_wait_s > 0 && !sent && t >= t0 + abs_wait_s) {
			kill(pid, SIGINT);
			sent = t;
			killed_at = t + 60;
		}
		if (!sent && t >= t0 + timeout_s) {
			kill(pid, SIGINT);
			sent = t;
			killed_at = t + 5;
			timed_out = 1;
		}
		if (killed_at && t >= killed_at) {
			kill(pid, SIGKILL);
			killed_at = 0;
			timed_out = 1;
		}
		w = wait4(pid, &status, WNOHANG, &ru);
		if (w == pid)
			break;
		if (ready && !steady_at && ready + steady_s < next)
			next = ready + steady_s;
		if (ready && wait_s > 0 && !sent && ready + wait_s < next)
			next = ready + wait_s;
		if (abs_wait_s > 0 && !sent && t0 + abs_wait_s < next)
			next = t0 + abs_wait_s;
		if (killed_at && killed_at < next)
			next = killed_at;
		ms = (int)((next - t) * 1000) + 1;
		if (eof || ms > 5)
			ms = eof ? 2
				 : (ms > 20 ? 20 : ms); /* the exit is polled for, not signalled */
		if (!eof && poll(&p, 1, ms) > 0) {
			char buf[65536];
			ssize_t n = read(pfd[0], buf, sizeof(buf));

			if (n <= 0) {
				eof = 1;
				continue;
			}
			if (!ready)
				ready = now();
			for (ssize_t i = 0; i < n; i++)
				lines += buf[i] == '\n';
			if (out >= 0 && write(out, buf, n) != n)
				out = -1;
		} else if (eof) {
			poll(NULL, 0, ms);
		}
	}
	end = now();
	/* what is still in the pipe after the exit */
	for (;;) {
		char buf[65536];
		ssize_t n = read(pfd[0], buf, sizeof(buf));

		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
		if (out >= 0 && write(out, buf, n) != n)
			out = -1;
	}
	printf("status=%d wall_ms=%.1f ready_ms=%.1f window_ms=%.1f cpu_ms=%.1f user_ms=%.1f "
	       "sys_ms=%.1f maxrss_kb=%ld steady_kb=%ld lines=%ld stop_ms=%.1f%s\n",
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), (end - t0) * 1e3,
	       ready ? (ready - t0) * 1e3 : -1.0,
	       ready && sent && wait_s > 0 ? (sent - ready) * 1e3 : 0.0,
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3,
	       ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3,
	       ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3, ru.ru_maxrss, steady, lines,
	       sent ? (end - sent) * 1e3 : -1.0, timed_out ? " timeout=1" : "");
	return interrupted ? 128 + interrupted : 0;
}
