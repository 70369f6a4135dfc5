// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with known opens for opensnoop's tests:
 *
 *	open_work [-c COMM] [-u UID] [-C DIR] [-w] COUNT PATH...
 *
 * takes the name COMM (prctl), the user id UID (setuid) and the working directory DIR when
 * given, waits for SIGUSR1 with -w (so the tracer can attach first; exit 3 without one within
 * 30 s), then COUNT times opens each PATH read-only with openat(AT_FDCWD, PATH) and closes what
 * opened. A PATH of the form @DIR:REL is opened as openat(fd of DIR, REL); open:PATH with
 * open(2), openat2:PATH with openat2(2) (both read-only), creat:PATH with
 * openat(O_WRONLY | O_CREAT | O_TRUNC, 0640). Exits 0; a failed open is expected (the tests
 * want failures) and not an error.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/openat2.h>
#include <time.h>
#include <unistd.h>

static int open_one(const char *spec)
{
	const char *colon;
	char dir[4096];
	int dfd = AT_FDCWD, fd;

	if (spec[0] == '@' && (colon = strchr(spec, ':')) && colon - spec < (int)sizeof(dir)) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(colon - spec - 1), spec + 1);
		dfd = open(dir, O_RDONLY | O_DIRECTORY);
		if (dfd < 0)
			return -1;
		spec = colon + 1;
	}
	if (!strncmp(spec, "open:", 5)) {
#ifdef SYS_open
		fd = (int)syscall(SYS_open, spec + 5, O_RDONLY);
#else
		fd = openat(AT_FDCWD, spec + 5, O_RDONLY); /* no open(2) here (arm64) */
#endif
	} else if (!strncmp(spec, "openat2:", 8)) {
		struct open_how how = { .flags = O_RDONLY };

		fd = (int)syscall(SYS_openat2, AT_FDCWD, spec + 8, &how, sizeof(how));
	} else if (!strncmp(spec, "creat:", 6)) {
		fd = openat(dfd, spec + 6, O_WRONLY | O_CREAT | O_TRUNC, 0640);
	} else {
		fd = openat(dfd, spec, O_RDONLY);
	}
	if (fd >= 0)
		close(fd);
	if (dfd >= 0)
		close(dfd);
	return 0;
}

int main(int argc, char **argv)
{
	struct timespec limit = { .tv_sec = 30 };
	bool wait_signal = false;
	sigset_t set;
	long count, i;
	int opt, p;

	while ((opt = getopt(argc, argv, "c:u:C:w")) != -1) {
		switch (opt) {
		case 'c':
			prctl(PR_SET_NAME, optarg);
			break;
		case 'u':
			if (setuid(atoi(optarg)))
				return 1;
			break;
		case 'C':
			if (chdir(optarg))
				return 1;
			break;
		case 'w':
			wait_signal = true;
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc)
		return 2;
	count = atol(argv[optind++]);
	if (wait_signal) {
		sigemptyset(&set);
		sigaddset(&set, SIGUSR1);
		sigprocmask(SIG_BLOCK, &set, NULL);
		if (sigtimedwait(&set, NULL, &limit) != SIGUSR1)
			return 3;
	}
	for (i = 0; i < count; i++)
		for (p = optind; p < argc; p++)
			if (open_one(argv[p]))
				return 1;
	return 0;
}
