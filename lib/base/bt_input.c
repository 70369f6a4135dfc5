// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_err.h"
#include "bt_escape.h"
#include "bt_input.h"

const char *bt_size_str(char *buf, size_t size, unsigned long long bytes)
{
	if (bytes && !(bytes & ((1ULL << 30) - 1)))
		snprintf(buf, size, "%llu GiB", bytes >> 30);
	else if (bytes && !(bytes & ((1ULL << 20) - 1)))
		snprintf(buf, size, "%llu MiB", bytes >> 20);
	else if (bytes && !(bytes & ((1ULL << 10) - 1)))
		snprintf(buf, size, "%llu KiB", bytes >> 10);
	else
		snprintf(buf, size, "%llu bytes", bytes);
	return buf;
}

static int stop_fd = -1;
static bool (*stop_fn)(bool pipe);

void bt_input_set_stop(int fd, bool (*stopped)(bool pipe))
{
	stop_fd = fd;
	stop_fn = stopped;
}

static const char *kind_of(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m) || S_ISBLK(m))
		return "a device";
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/*
 * path opened for reading if it is a regular file: checked before the open (a FIFO's open
 * blocks until a writer comes; a device's may act) and again on what was opened.
 */
static int open_regular(const char *path, const char *what)
{
	struct stat st;
	int fd, err;

	if (stat(path, &st)) {
		err = -errno;
		goto fail;
	}
	if (S_ISREG(st.st_mode)) {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		if (fd < 0) {
			err = -errno;
			goto fail;
		}
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
			return fd;
		close(fd); /* replaced between the two looks: st says by what */
	}
	bt_err("cannot read %s'%s': not a regular file (%s)", what, path, kind_of(st.st_mode));
	return -EINVAL;
fail:
	bt_err("cannot open %s'%s': %s", what, path, strerror(-err));
	return err;
}

#define CHUNK (64U << 10)

/* More input into l->buf at l->end: bytes read, 0 at the end, or -errno. */
static ssize_t fill(struct bt_lines *l, size_t want)
{
	ssize_t n;

	if (l->f) {
		n = fread(l->buf + l->end, 1, want, l->f);
		return !n && ferror(l->f) ? -EIO : n;
	}
	for (;;) {
		if (stop_fd >= 0 && stop_fn) {
			struct pollfd p[2] = {
				{ .fd = stop_fd, .events = POLLIN },
				{ .fd = l->fd, .events = POLLIN },
			};
			/* a pipe or terminal: wait for either; a file: only a look */
			int r = poll(p, l->pipe ? 2 : 1, l->pipe ? -1 : 0);

			if (r < 0 && errno != EINTR)
				return -errno;
			if (r > 0 && p[0].revents && stop_fn(l->pipe))
				return -EINTR;
			if (l->pipe && (r <= 0 || !p[1].revents))
				continue;
		}
		n = read(l->fd, l->buf + l->end, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN && l->pipe) {
			struct pollfd p = { .fd = l->fd, .events = POLLIN };

			poll(&p, 1, -1);
			continue;
		}
		return n < 0 ? -errno : n;
	}
}

static void lines_init(struct bt_lines *l, const char *name, size_t max_line,
		       unsigned long long max_total)
{
	memset(l, 0, sizeof(*l));
	l->name = name;
	l->fd = -1;
	l->max_line = max_line;
	l->max_total = max_total;
}

int bt_lines_open(struct bt_lines *l, const char *path, size_t max_line,
		  unsigned long long max_total)
{
	struct stat st;
	int fd;

	if (!path || !strcmp(path, "-")) {
		lines_init(l, "standard input", max_line, max_total);
		l->fd = STDIN_FILENO;
		l->pipe = fstat(STDIN_FILENO, &st) || !S_ISREG(st.st_mode);
		return 0;
	}
	fd = open_regular(path, "");
	if (fd < 0)
		return fd;
	lines_init(l, path, max_line, max_total);
	l->fd = fd;
	l->own = true;
	return 0;
}

void bt_lines_from(struct bt_lines *l, FILE *f, const char *name, size_t max_line,
		   unsigned long long max_total)
{
	lines_init(l, name, max_line, max_total);
	l->f = f;
}

void bt_lines_close(struct bt_lines *l)
{
	if (!l)
		return;
	if (l->own && l->fd >= 0)
		close(l->fd);
	l->fd = -1;
	free(l->buf);
	l->buf = NULL;
}

/* "standard input" as it is, a path quoted */
static const char *name_of(const struct bt_lines *l, char *buf, size_t size)
{
	if (l->own)
		snprintf(buf, size, "'%s'", l->name);
	else
		snprintf(buf, size, "%s", l->name);
	return buf;
}

int bt_lines_next(struct bt_lines *l, char **line, size_t *len)
{
	char size[32], name[4200], *nl;
	ssize_t n;

	for (;;) {
		nl = l->buf ? memchr(l->buf + l->start, '\n', l->end - l->start) : NULL;
		if (nl || (l->eof && l->end > l->start)) {
			size_t at = l->start;

			*len = (nl ? (size_t)(nl - l->buf) : l->end) - at;
			l->buf[at + *len] = '\0';
			l->start = at + *len + (nl ? 1 : 0);
			l->lineno++;
			if (*len > l->max_line)
				break;
			*line = l->buf + at;
			return 1;
		}
		if (l->end - l->start > l->max_line) {
			l->lineno++;
			break;
		}
		if (l->eof)
			return 0;
		if (l->start) {
			memmove(l->buf, l->buf + l->start, l->end - l->start);
			l->end -= l->start;
			l->start = 0;
		}
		if (l->cap - l->end < CHUNK + 1) {
			size_t cap = l->end + CHUNK + 1;
			char *b;

			cap = cap < 2 * l->cap ? 2 * l->cap : cap;
			if (cap > l->max_line + CHUNK + 2)
				cap = l->max_line + CHUNK + 2;
			b = realloc(l->buf, cap);
			if (!b)
				return -ENOMEM;
			l->buf = b;
			l->cap = cap;
		}
		n = fill(l, l->cap - l->end - 1 < CHUNK ? l->cap - l->end - 1 : CHUNK);
		if (n == -EINTR)
			return -EINTR;
		if (n < 0) {
			bt_err("cannot read %s: %s", name_of(l, name, sizeof(name)),
			       strerror((int)-n));
			return (int)n;
		}
		if (!n)
			l->eof = true;
		l->end += n;
		l->total += n;
		if (l->total > l->max_total) {
			bt_err("%s: more than %s of input; stopped there",
			       name_of(l, name, sizeof(name)),
			       bt_size_str(size, sizeof(size), l->max_total));
			return -EFBIG;
		}
	}
	bt_err("%s: line %ld is longer than %s; stopped there", name_of(l, name, sizeof(name)),
	       l->lineno, bt_size_str(size, sizeof(size), l->max_line));
	return -EFBIG;
}

int bt_read_file(const char *path, const char *what, size_t max, char **text, size_t *len)
{
	char size[32], *buf = NULL, *b;
	size_t n = 0, cap = 0;
	ssize_t r;
	int fd, err = 0;

	*text = NULL;
	*len = 0;
	fd = open_regular(path, what);
	if (fd < 0)
		return fd;
	for (;;) {
		if (n + CHUNK + 1 > cap) {
			cap = n + CHUNK + 1;
			if (cap > max + 2)
				cap = max + 2; /* one byte past max tells it is over */
			b = realloc(buf, cap);
			if (!b) {
				err = -ENOMEM;
				goto cleanup;
			}
			buf = b;
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			bt_err("cannot read %s'%s': %s", what, path, strerror(errno));
			goto cleanup;
		}
		if (!r)
			break;
		n += r;
		if (n > max) {
			err = -EFBIG;
			bt_err("%s'%s' is larger than %s", what, path,
			       bt_size_str(size, sizeof(size), max));
			goto cleanup;
		}
	}
	if (!buf) {
		buf = malloc(1);
		if (!buf) {
			err = -ENOMEM;
			goto cleanup;
		}
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	buf = NULL;
cleanup:
	free(buf);
	close(fd);
	return err;
}

/* Text: no NUL, no control byte but a tab or line end, UTF-8; else the message, quoting. */
static int check_text(const char *path, const char *text, size_t len)
{
	char quote[BT_ESC_SIZE(64)];
	size_t i = 0, k, bol = 0;
	unsigned int line = 1;

	while (i < len) {
		unsigned char c = text[i];

		k = c == '\t' || c == '\n' || c == '\r' ? 1 : bt_escape_keep(text + i, len - i, 0);
		if (!k) {
			size_t from = i + 1 - bol > 64 ? i + 1 - 64 : bol;

			bt_escape(quote, sizeof(quote), text + from, i + 1 - from, 0);
			/* the NUL itself ends bt_escape()'s copy: say it apart */
			bt_err("'%s' is not text (line %u, byte %zu is 0x%02x): %s%s", path, line,
			       i + 1, c, quote, c ? "" : "\\x00");
			return -BT_EUSAGE;
		}
		if (c == '\n') {
			line++;
			bol = i + 1;
		}
		i += k;
	}
	return 0;
}

int bt_read_args_file(const char *path, const char *name, char **text, char ***argv, int *argc)
{
	size_t len = 0;
	char *p;
	int err;

	*text = NULL;
	*argv = NULL;
	*argc = 1;
	/* a regular file (a FIFO or device is refused unread), of at most BT_ARGS_FILE_MAX */
	err = bt_read_file(path, "", BT_ARGS_FILE_MAX, text, &len);
	if (!err)
		err = check_text(path, *text, len);
	if (err)
		goto cleanup;
	for (p = *text; *p; p++) {
		if (*p == '#')
			while (*p && *p != '\n')
				*p++ = ' ';
		if (!*p)
			break;
	}
	*argv = calloc(strlen(*text) / 2 + 2, sizeof(**argv));
	if (!*argv) {
		err = -ENOMEM;
		goto cleanup;
	}
	(*argv)[0] = (char *)name;
	for (p = strtok(*text, " \t\r\n"); p; p = strtok(NULL, " \t\r\n"))
		(*argv)[(*argc)++] = p;
	return 0;
cleanup:
	free(*text);
	*text = NULL;
	return err;
}
