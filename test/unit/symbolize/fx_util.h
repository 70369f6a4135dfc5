/* SPDX-License-Identifier: GPL-2.0 */
/* Running a fixture: start it, read the addresses it prints, keep its pid. */
#ifndef FX_UTIL_H
#define FX_UTIL_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct fx_run {
	pid_t pid; /* kept after fx_stop(): tests symbolize the dead process by it */
	int running;
	uint64_t addrs[16];
	size_t n;
};

/* Start FX_DIR/name; returns 0 once it printed "ready". */
static inline int fx_start(const char *name, struct fx_run *r)
{
	char path[1024], line[128];
	int pfd[2];
	FILE *f;

	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "%s/%s", FX_DIR, name);
	if (pipe(pfd))
		return -1;
	r->pid = fork();
	if (r->pid < 0)
		return -1;
	if (!r->pid) {
		dup2(pfd[1], 1);
		close(pfd[0]);
		close(pfd[1]);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	r->running = 1;
	close(pfd[1]);
	f = fdopen(pfd[0], "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "ready", 5)) {
			fclose(f);
			return 0;
		}
		if (r->n < 16)
			r->addrs[r->n++] = strtoull(line, NULL, 16);
	}
	if (f)
		fclose(f);
	return -1;
}

static inline void fx_stop(struct fx_run *r)
{
	if (r->running) {
		kill(r->pid, SIGKILL);
		waitpid(r->pid, NULL, 0);
		r->running = 0;
	}
}

/* Line number of the first line of FX_SRC/fixtures/file containing mark; 0 if none. */
static inline unsigned int fx_line_of(const char *file, const char *mark)
{
	char path[512], line[512];
	unsigned int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/fixtures/%s", FX_SRC, file);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, mark)) {
			fclose(f);
			return n;
		}
	}
	if (f)
		fclose(f);
	return 0;
}

#endif
