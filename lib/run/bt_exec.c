// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bt_err.h"
#include "bt_exec.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* the same on every architecture */
#endif

static int runnable(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EACCES;
	return access(path, X_OK) ? -errno : 0;
}

/* What execvp() would run, found before forking so a typo is one clear line. */
static int find_program(const char *name)
{
	const char *dirs = getenv("PATH"), *p, *end;
	char path[PATH_MAX];
	int err = -ENOENT, e;

	if (!*name)
		return -ENOENT;
	if (strchr(name, '/'))
		return runnable(name);
	if (!dirs)
		dirs = "/bin:/usr/bin";
	for (p = dirs;; p = end + 1) {
		size_t n;

		end = strchrnul(p, ':');
		n = end - p;
		if (snprintf(path, sizeof(path), "%.*s%s%s", (int)n, p, n ? "/" : "", name) <
		    (int)sizeof(path)) {
			e = runnable(path);
			if (!e)
				return 0;
			if (e == -EACCES)
				err = e; /* as execvp: report EACCES if that is all it found */
		}
		if (!*end)
			break;
	}
	return err;
}

int bt_child__start(char *const argv[], struct bt_child *c)
{
	int go[2] = { -1, -1 }, ep[2] = { -1, -1 }, err;

	*c = (struct bt_child){
		.name = argv ? argv[0] : NULL, .pid = -1, .pidfd = -1, .go_fd = -1, .err_fd = -1
	};
	if (!argv)
		return 0;
	err = find_program(argv[0]);
	if (err) {
		bt_err("cannot run '%s': %s", argv[0], strerror(-err));
		return err;
	}
	if (pipe2(go, O_CLOEXEC) || pipe2(ep, O_CLOEXEC)) {
		err = -errno;
		goto fail;
	}
	fflush(NULL); /* nothing buffered may be written twice */
	c->pid = fork();
	if (c->pid < 0) {
		err = -errno;
		goto fail;
	}
	if (c->pid == 0) {
		sigset_t none;
		char b;
		int e;

		close(go[1]);
		close(ep[0]);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		if (read(go[0], &b, 1) != 1)
			_exit(127); /* the tracer gave up before releasing it */
		execvp(argv[0], argv);
		e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(ep[1]);
	c->go_fd = go[1];
	c->err_fd = ep[0];
	c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	return 0;
fail:
	bt_err("cannot start '%s': %s", argv[0], strerror(-err));
	close(go[0]);
	close(go[1]);
	close(ep[0]);
	close(ep[1]);
	return err;
}

int bt_child__release(struct bt_child *c)
{
	ssize_t n;
	int e = 0;

	if (write(c->go_fd, "x", 1) != 1)
		return -errno;
	close(c->go_fd);
	c->go_fd = -1;
	c->released = true;
	/* EOF once exec has closed the CLOEXEC end; the errno if exec failed */
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	if (n == sizeof(e)) {
		bt_err("cannot run '%s': %s", c->name, strerror(e));
		return -e;
	}
	return 0;
}

bool bt_child__exited(struct bt_child *c)
{
	if (!c->reaped && c->pid > 0 && waitpid(c->pid, &c->status, WNOHANG) == c->pid)
		c->reaped = true;
	return c->reaped;
}

void bt_child__end(struct bt_child *c)
{
	if (c->pid > 0 && !c->released) {
		kill(c->pid, SIGKILL);
		if (waitpid(c->pid, &c->status, 0) == c->pid)
			c->reaped = true;
	}
	bt_child__exited(c); /* a released child still running is left to run */
	if (c->pidfd >= 0)
		close(c->pidfd);
	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	c->pidfd = c->go_fd = c->err_fd = -1;
}
