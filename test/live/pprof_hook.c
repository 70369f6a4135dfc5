// SPDX-License-Identifier: GPL-2.0
/*
 * The commands' pprof hook (struct bt_cmd.pprof, the exporter's /debug/pprof endpoints) called
 * as a long-running process calls it, with the command objects linked in and ASan/UBSan on
 * (test/live/pprof_hook.sh):
 *
 *	pprof_hook COMMAND SECONDS OUT [CALLS]
 *
 * calls bt_cmd_COMMAND.pprof(SECONDS, OUT) CALLS times (default 1), OUT rewritten by each.
 * Before the first, signals are set up as bpftools' main sets them and a SIGINT is made
 * pending, as a Ctrl-C of the caller's process would be: every call must still run its whole
 * time and leave the signal pending (the hook neither looks at the stop flag nor reads the
 * signals), and the signal mask must be as it was. With CALLS > 1 the open descriptors after
 * the last call must be those after the first (probes, maps and perf events closed), and the
 * heap in use within 1 MiB of it (memory kept, reachable or not; ASan's leak check at exit
 * also catches memory lost). Exit 0 or 1, saying why on stderr; nothing on stdout, which must
 * stay empty.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bt_cmd.h"
#include "bt_loop.h"

extern const struct bt_cmd bt_cmd_profile, bt_cmd_offcputime;
/* ASan's runtime (sanitizer/allocator_interface.h, not installed with gcc here) */
size_t __sanitizer_get_current_allocated_bytes(void);

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* the directory's own */
}

static long rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const struct bt_cmd *cmd = NULL;
	int calls = argc > 4 ? atoi(argv[4]) : 1, fds1 = 0, i, err;
	unsigned int seconds = argc > 2 ? (unsigned int)atoi(argv[2]) : 0;
	long rss1 = 0;
	size_t heap1 = 0;
	sigset_t mask0, mask, pending;

	if (argc > 1 && !strcmp(argv[1], "profile"))
		cmd = &bt_cmd_profile;
	else if (argc > 1 && !strcmp(argv[1], "offcputime"))
		cmd = &bt_cmd_offcputime;
	if (argc < 4 || argc > 5 || !cmd || !seconds || calls < 1) {
		fprintf(stderr, "usage: pprof_hook profile|offcputime SECONDS OUT [CALLS]\n");
		return 2;
	}
	if (!cmd->pprof) {
		fprintf(stderr, "pprof_hook: %s has no pprof hook\n", cmd->name);
		return 1;
	}
	err = bt_signals_init();
	if (err) {
		fprintf(stderr, "pprof_hook: signals: %s\n", strerror(-err));
		return 1;
	}
	raise(SIGINT); /* blocked: pending, as a Ctrl-C the caller has not read yet */
	sigprocmask(SIG_BLOCK, NULL, &mask0);
	for (i = 1; i <= calls; i++) {
		FILE *out = fopen(argv[3], "w");
		double t0 = now(), took;

		if (!out) {
			fprintf(stderr, "pprof_hook: %s: %s\n", argv[3], strerror(errno));
			return 1;
		}
		err = cmd->pprof(seconds, out);
		took = now() - t0;
		if (fclose(out) && !err)
			err = -errno;
		if (err) {
			fprintf(stderr, "pprof_hook: call %d: %s\n", i, strerror(-err));
			return 1;
		}
		if (took < seconds) {
			fprintf(stderr, "pprof_hook: call %d took %.2f s, not %u\n", i, took,
				seconds);
			return 1;
		}
		sigpending(&pending);
		sigprocmask(SIG_BLOCK, NULL, &mask);
		if (!sigismember(&pending, SIGINT) || memcmp(&mask, &mask0, sizeof(mask))) {
			fprintf(stderr,
				"pprof_hook: call %d read the pending SIGINT or changed the "
				"signal mask\n",
				i);
			return 1;
		}
		if (i == 1) {
			fds1 = open_fds();
			rss1 = rss_kb();
			heap1 = __sanitizer_get_current_allocated_bytes();
		}
		fprintf(stderr, "pprof_hook: call %d: %.2f s, %d fds, heap %zu kB, RSS %ld kB\n", i,
			took, open_fds(), __sanitizer_get_current_allocated_bytes() / 1024,
			rss_kb());
	}
	if (calls > 1 && open_fds() != fds1) {
		fprintf(stderr, "pprof_hook: %d fds open after call %d, %d after call 1\n",
			open_fds(), calls, fds1);
		return 1;
	}
	/*
	 * The heap in use (ASan's count): what a call keeps beyond its return, reachable or not,
	 * adds up here (the resident size only says how large the largest call was)
	 */
	if (calls > 1 && __sanitizer_get_current_allocated_bytes() > heap1 + (1 << 20)) {
		fprintf(stderr,
			"pprof_hook: heap %zu kB in use after call %d, %zu kB after call 1\n",
			__sanitizer_get_current_allocated_bytes() / 1024, calls, heap1 / 1024);
		return 1;
	}
	fprintf(stderr,
		"pprof_hook: %d calls of %s: fds %d -> %d, heap %zu -> %zu kB, RSS %ld -> %ld kB\n",
		calls, cmd->name, fds1, open_fds(), heap1 / 1024,
		__sanitizer_get_current_allocated_bytes() / 1024, rss1, rss_kb());
	return 0;
}
