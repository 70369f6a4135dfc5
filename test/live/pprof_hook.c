// SPDX-License-Identifier: GPL-2.0
/*
 * The commands' pprof hook (struct bt_cmd.pprof, the exporter's /debug/pprof endpoints) called
 * as a long-running process calls it, with the command objects linked in and ASan/UBSan on
 * (test/live/pprof_hook.sh):
 *
 *	pprof_hook COMMAND SECONDS OUT [CALLS [kept [AFTER1]]]
 *
 * takes CALLS profiles (default 1) of SECONDS through bt_cmd_COMMAND.pprof, OUT rewritten by
 * each: each from a run of its own (bt_offcpu_pprof_once()), or with "kept" from one run kept
 * loaded (lib/tools/bt_offcpu_kept.h) as the exporter keeps it, which must load no program
 * after the first call (the programs this process holds are the same ones) and is freed
 * before the end (no descriptor left open). An OUT with %d in it names each call's profile by its
 * number; AFTER1, a shell command, runs between the first call and the second (processes
 * started or killed between two requests).
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
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "bt_cmd.h"
#include "bt_err.h"
#include "bt_loop.h"
#include "bt_offcpu_kept.h"

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

/* The BPF programs this process holds: how many, and the sum of their ids (new ones differ). */
static int progs(unsigned long *ids)
{
	DIR *d = opendir("/proc/self/fd");
	char path[300], link[64], line[128];
	struct dirent *e;
	int n = 0;

	*ids = 0;
	while (d && (e = readdir(d))) {
		ssize_t len;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		if (strcmp(link, "anon_inode:bpf-prog"))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%s", e->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "prog_id:", 8))
				*ids += strtoul(line + 8, NULL, 10);
		if (f)
			fclose(f);
		n++;
	}
	if (d)
		closedir(d);
	return n;
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

/*
 * The heap in use (ASan's count), less the symbols a kept run holds for the processes running
 * now: those come and go with the machine's work (a compiler's are megabytes), while what
 * this measures must not grow with the profiles taken. Symbols of files no running process
 * maps stay in it: a kept run must not keep them.
 */
static size_t kept_heap(struct bt_offcpu_kept *k)
{
	struct bt_sym_stats st = { 0 };

	if (k)
		bt_offcpu_kept__stats(k, &st);
	return __sanitizer_get_current_allocated_bytes() - (st.sym_bytes - st.sym_bytes_unused);
}

/*
 * Signal by signal: the kernel's part of a sigset_t is 8 bytes, and the rest of the 128 (what
 * memcmp would compare) is whatever the stack held
 */
static bool same_mask(const sigset_t *a, const sigset_t *b)
{
	int sig;

	for (sig = 1; sig < NSIG; sig++)
		if (sigismember(a, sig) != sigismember(b, sig))
			return false;
	return true;
}

/*
 * sh -c cmd, waited for: 0 when it exits 0. Not system(), which drops a pending SIGINT; and
 * with no signal blocked, or what it starts would outlive a kill.
 */
static int run_sh(const char *cmd)
{
	char *argv[] = { "sh", "-c", (char *)cmd, NULL };
	posix_spawnattr_t attr;
	sigset_t none;
	int status, err;
	pid_t pid;

	sigemptyset(&none);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	err = posix_spawn(&pid, "/bin/sh", NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	if (err || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
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
	int calls = argc > 4 ? atoi(argv[4]) : 1, fds0, fds1 = 0, progs1 = 0, i, err;
	/* worn: kept, and built again when its unwinder is half spent (programs loaded again) */
	bool worn = argc > 5 && !strcmp(argv[5], "worn");
	bool kept = worn || (argc > 5 && !strcmp(argv[5], "kept"));
	const char *after1 = argc > 6 ? argv[6] : NULL;
	struct bt_offcpu_kept *k = NULL;
	unsigned long ids1 = 0, ids;
	unsigned int seconds = argc > 2 ? (unsigned int)atoi(argv[2]) : 0;
	long rss1 = 0;
	size_t heap1 = 0, lo1 = SIZE_MAX, lo2 = SIZE_MAX, h;
	sigset_t mask0, mask, pending;

	if (argc > 1 && !strcmp(argv[1], "profile"))
		cmd = &bt_cmd_profile;
	else if (argc > 1 && !strcmp(argv[1], "offcputime"))
		cmd = &bt_cmd_offcputime;
	if (argc < 4 || argc > 7 || !cmd || !seconds || calls < 1 || (argc > 5 && !kept)) {
		fprintf(stderr, "usage: pprof_hook profile|offcputime SECONDS OUT [CALLS "
				"[kept|worn [AFTER1]]]\n");
		return 2;
	}
	if (!cmd->pprof) {
		fprintf(stderr, "pprof_hook: %s has no pprof hook\n", cmd->name);
		return 1;
	}
	/* BPFTOOLS_DEBUG=1: the unwinder's counts after each call, which run each call had */
	bt_set_debug(false);
	err = bt_signals_init();
	if (err) {
		fprintf(stderr, "pprof_hook: signals: %s\n", strerror(-err));
		return 1;
	}
	fds0 = open_fds();
	if (kept && bt_offcpu_kept__new(cmd->pprof, &k)) {
		fprintf(stderr, "pprof_hook: cannot keep a run\n");
		return 1;
	}
	raise(SIGINT); /* blocked: pending, as a Ctrl-C the caller has not read yet */
	sigprocmask(SIG_BLOCK, NULL, &mask0);
	for (i = 1; i <= calls; i++) {
		double t0, took;
		char path[4096];
		FILE *out;

		if (i == 2 && after1 && run_sh(after1)) {
			fprintf(stderr, "pprof_hook: %s failed\n", after1);
			return 1;
		}
		/* OUT is the caller's: a %d in it, if any, is the call's number */
		snprintf(path, sizeof(path), argv[3], i);
		out = fopen(path, "w");
		t0 = now();
		if (!out) {
			fprintf(stderr, "pprof_hook: %s: %s\n", path, strerror(errno));
			return 1;
		}
		err = k ? bt_offcpu_kept__profile(k, seconds, out)
			: bt_offcpu_pprof_once(cmd->pprof, seconds, out);
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
		if (!sigismember(&pending, SIGINT) || !same_mask(&mask, &mask0)) {
			fprintf(stderr,
				"pprof_hook: call %d read the pending SIGINT or changed the "
				"signal mask\n",
				i);
			return 1;
		}
		/* kept: what the calls after the fifth add (the machine's processes indexed) */
		if (i == (k && calls > 5 ? 5 : 1))
			heap1 = kept_heap(k);
		/*
		 * kept: the least of calls 3-5 and of the last 4, as a table built in the
		 * background for a large binary started meanwhile takes tens of MiB for a while
		 */
		h = kept_heap(k);
		if (i >= 3 && i <= 5 && h < lo1)
			lo1 = h;
		if (i > calls - 4 && h < lo2)
			lo2 = h;
		if (i == 1) {
			progs1 = progs(&ids1);
			fds1 = open_fds();
			rss1 = rss_kb();
		}
		fprintf(stderr,
			"pprof_hook: call %d: %.2f s, %d fds, %d programs, heap %zu kB (%zu kB "
			"but symbols), RSS %ld kB\n",
			i, took, open_fds(), progs(&ids),
			__sanitizer_get_current_allocated_bytes() / 1024, kept_heap(k) / 1024,
			rss_kb());
		/* kept: the programs loaded by the first call, no other */
		if (i > 1 && k && !worn && (progs(&ids) != progs1 || ids != ids1 || !progs1)) {
			fprintf(stderr,
				"pprof_hook: call %d: %d programs (ids sum %lu), after call 1 %d "
				"(%lu): a kept run loaded programs again\n",
				i, progs(&ids), ids, progs1, ids1);
			return 1;
		}
	}
	/* kept: the files of the processes running now are open; all are closed at its free */
	if (calls > 1 && !k && open_fds() != fds1) {
		fprintf(stderr, "pprof_hook: %d fds open after call %d, %d after call 1\n",
			open_fds(), calls, fds1);
		return 1;
	}
	/*
	 * The heap in use (ASan's count): what a call keeps beyond its return, reachable or not,
	 * adds up here (the resident size only says how large the largest call was)
	 */
	if (calls > 1 && !k && __sanitizer_get_current_allocated_bytes() > heap1 + (1 << 20)) {
		fprintf(stderr,
			"pprof_hook: heap %zu kB in use after call %d, %zu kB after call 1\n",
			__sanitizer_get_current_allocated_bytes() / 1024, calls, heap1 / 1024);
		return 1;
	}
	fprintf(stderr,
		"pprof_hook: %d calls of %s: fds %d -> %d, heap %zu -> %zu kB%s, RSS %ld -> %ld "
		"kB\n",
		calls, cmd->name, fds1, open_fds(), heap1 / 1024, kept_heap(k) / 1024,
		k ? " but symbols" : "", rss1, rss_kb());
	/*
	 * kept: the processes that exited are freed, with the files only they mapped, and no
	 * profile is held between calls: 20 calls that each kept 100 KiB more (1.2 MiB from
	 * call 5 to call 17) fail this; without, it grew by 300 KiB at most here
	 */
	if (k && !worn && calls >= 10 && lo2 > lo1 + (768 << 10)) {
		fprintf(stderr,
			"pprof_hook: heap but symbols at least %zu kB in the last 4 calls, %zu kB "
			"in calls 3-5\n",
			lo2 / 1024, lo1 / 1024);
		return 1;
	}
	if (k) {
		bt_offcpu_kept__put(k);
		if (progs(&ids) || open_fds() != fds0) {
			fprintf(stderr,
				"pprof_hook: the kept run freed left %d programs, %d fds (%d "
				"before)\n",
				progs(&ids), open_fds(), fds0);
			return 1;
		}
	}
	return 0;
}
