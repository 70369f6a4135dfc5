// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_output.h"

struct ostream {
	FILE *f;
	int fd;
	int err; /* the first write's -errno */
	struct ostream *next;
};

static struct ostream *streams;

static struct ostream *find(FILE *f)
{
	struct ostream *o;

	for (o = streams; o; o = o->next)
		if (o->f == f)
			return o;
	return NULL;
}

static ssize_t o_write(void *cookie, const char *buf, size_t n)
{
	struct ostream *o = cookie;
	size_t done = 0;
	ssize_t r;

	while (done < n) {
		r = write(o->fd, buf + done, n - done);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (!o->err)
				o->err = r < 0 ? -errno : -ENOSPC;
			errno = -o->err;
			/*
			 * Short, never negative (glibc would count -1 as bytes): stdio sets the
			 * stream's error flag, which the print paths test.
			 */
			return done;
		}
		done += r;
	}
	return done;
}

static int o_seek(void *cookie, off64_t *off, int whence)
{
	struct ostream *o = cookie;
	off_t r = lseek(o->fd, *off, whence);

	if (r < 0)
		return -1;
	*off = r;
	return 0;
}

static int o_close(void *cookie)
{
	struct ostream *o = cookie, **p;
	int err = 0;

	for (p = &streams; *p; p = &(*p)->next) {
		if (*p == o) {
			*p = o->next;
			break;
		}
	}
	/* stdout's descriptor stays: a child run by bt_exec() may share it */
	if (o->fd > STDERR_FILENO)
		err = close(o->fd);
	free(o);
	return err;
}

static FILE *wrap(int fd)
{
	cookie_io_functions_t io = { .write = o_write, .seek = o_seek, .close = o_close };
	struct ostream *o = calloc(1, sizeof(*o));

	if (!o) {
		errno = ENOMEM;
		return NULL;
	}
	o->fd = fd;
	o->f = fopencookie(o, "w", io);
	if (!o->f) {
		free(o);
		return NULL;
	}
	o->next = streams;
	streams = o;
	return o->f;
}

int bt_output_init(void)
{
	FILE *f;
	int fd;

	if (find(stdout))
		return 0;
	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		/* read-only for stdout and stderr, write-only for stdin: each fails as if closed */
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", (fd ? O_RDONLY : O_WRONLY) | O_CLOEXEC) < 0)
			return -errno;
	}
	f = wrap(STDOUT_FILENO);
	if (!f)
		return -errno;
	if (isatty(STDOUT_FILENO))
		setvbuf(f, NULL, _IOLBF, 0);
	/* glibc's stdout is a plain variable: everything printed from here on goes through f */
	stdout = f;
	return 0;
}

FILE *bt_output_open(const char *path)
{
	FILE *f;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);

	if (fd < 0)
		return NULL;
	f = wrap(fd);
	if (!f) {
		int err = errno;

		close(fd);
		errno = err;
	}
	return f;
}

int bt_output_fd(FILE *f)
{
	struct ostream *o = find(f);

	return o ? o->fd : fileno(f);
}

int bt_output_flush(FILE *f)
{
	struct ostream *o = find(f);
	int err = fflush(f) ? -errno : 0;

	if (o && o->err)
		return o->err;
	if (!err && ferror(f))
		err = -EIO;
	return err;
}

int bt_output_close(FILE *f)
{
	int err = bt_output_flush(f);

	if (fclose(f) && !err)
		err = -errno;
	return err;
}

int bt_output_replace(const char *path, int (*fill)(FILE *f, void *ctx), void *ctx)
{
	const char *slash = strrchr(path, '/');
	char *tmp = NULL;
	FILE *f = NULL;
	int fd = -1, err, cerr;

	if (asprintf(&tmp, "%.*s.%s.XXXXXX", slash ? (int)(slash - path + 1) : 0, path,
		     slash ? slash + 1 : path) < 0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(tmp);
		return err;
	}
	if (fchmod(fd, 0644)) {
		err = -errno;
		goto cleanup;
	}
	f = wrap(fd);
	if (!f) {
		err = -errno;
		goto cleanup;
	}
	fd = -1; /* the stream's now */
	err = fill(f, ctx);
	if (!err)
		err = bt_output_flush(f);
	if (!err && fsync(bt_output_fd(f)))
		err = -errno;
	cerr = bt_output_close(f);
	f = NULL;
	if (!err)
		err = cerr;
	if (!err && rename(tmp, path))
		err = -errno;
cleanup:
	if (f)
		bt_output_close(f);
	if (fd >= 0)
		close(fd);
	if (err)
		unlink(tmp);
	free(tmp);
	return err;
}
