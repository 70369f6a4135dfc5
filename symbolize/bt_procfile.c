// SPDX-License-Identifier: GPL-2.0
/*
 * Opening a traced process's files without letting it hang us, point us at a host file, or swap
 * the file we meant (bt_procfile.h). The order matters: nothing but an O_PATH open, which
 * cannot block on a FIFO or wake a device, happens before the file is known to be regular.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bt_procfile.h"

static void (*debug_fn)(const char *msg);

void bt_procfile_set_debug(void (*fn)(const char *msg))
{
	debug_fn = fn;
}

void bt_procfile_debug(const char *fmt, ...)
{
	char raw[512], out[1024];
	size_t i, o = 0;
	va_list ap;

	if (!debug_fn)
		return;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	/* paths come from the traced side: a control byte must not reach a terminal raw */
	for (i = 0; raw[i] && o + 5 < sizeof(out); i++) {
		unsigned char c = raw[i];

		if (c < 0x20 || c == 0x7f)
			o += snprintf(out + o, sizeof(out) - o, "\\x%02x", c);
		else
			out[o++] = c;
	}
	out[o] = 0;
	debug_fn(out);
}

static const char *kind_of(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFIFO:
		return "a FIFO";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFSOCK:
		return "a socket";
	case S_IFDIR:
		return "a directory";
	case S_IFLNK:
		return "a symlink";
	default:
		return "not a regular file";
	}
}

/* How the kernel prints the mapping of fd: the form /proc/PID/maps and mmap records use. */
static int mapped_id(int fd, struct bt_file_id *out)
{
	unsigned long long start, ino;
	unsigned int maj, min;
	char *line = NULL;
	size_t cap = 0;
	void *p;
	FILE *f;
	int err = -ENOENT;

	p = mmap(NULL, 1, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	f = fopen("/proc/self/maps", "re");
	while (f && getline(&line, &cap, f) > 0) {
		if (sscanf(line, "%llx-%*x %*s %*x %x:%x %llu", &start, &maj, &min, &ino) == 4 &&
		    start == (uintptr_t)p) {
			out->dev = makedev(maj, min);
			out->ino = ino;
			err = 0;
			break;
		}
	}
	free(line);
	if (f)
		fclose(f);
	munmap(p, 1);
	return err;
}

int bt_procfile_is(int fd, const struct stat *st, const struct bt_file_id *id)
{
	struct bt_file_id k = { 0 };

	if (!id)
		return 1;
	if (st->st_ino == id->ino && st->st_dev == id->dev)
		return 1;
	/* the same inode may stat otherwise than it maps (btrfs subvolumes, overlayfs) */
	return !mapped_id(fd, &k) && k.ino == id->ino && k.dev == id->dev;
}

static int owned_ok(const struct stat *st, const struct bt_procfile_want *w)
{
	size_t i;

	if (!w->owners || st->st_uid == 0)
		return 1;
	for (i = 0; i < w->nowners; i++)
		if (st->st_uid == w->owners[i])
			return 1;
	return 0;
}

/* From an O_PATH descriptor (consumed) of what stands at what: the real open, or a refusal. */
static int finish(int pfd, const char *what, const struct bt_procfile_want *w, struct stat *out)
{
	static const struct bt_procfile_want none;
	struct stat ps, st;
	char self[64];
	int fd = -1, err;

	if (!w)
		w = &none;
	if (fstat(pfd, &ps)) {
		err = -errno;
		goto cleanup;
	}
	if (!S_ISREG(ps.st_mode)) {
		err = S_ISLNK(ps.st_mode) ? -ELOOP : -EINVAL;
		bt_procfile_debug("refused %s: %s", what, kind_of(ps.st_mode));
		goto cleanup;
	}
	if (!owned_ok(&ps, w)) {
		err = -EPERM;
		bt_procfile_debug("ignored %s: owned by uid %u, neither root nor the process's",
				  what, (unsigned int)ps.st_uid);
		goto cleanup;
	}
	/* the inode just checked, not whatever the path names by now */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		err = -errno;
		goto cleanup;
	}
	if (fstat(fd, &st) || st.st_dev != ps.st_dev || st.st_ino != ps.st_ino) {
		err = -ESTALE;
		bt_procfile_debug("refused %s: changed while it was opened", what);
		goto cleanup;
	}
	if (!bt_procfile_is(fd, &st, w->id)) {
		err = -ESTALE;
		bt_procfile_debug("refused %s: inode %" PRIu64 " on %u:%u, not the %" PRIu64
				  " on %u:%u that was mapped",
				  what, (uint64_t)st.st_ino, major(st.st_dev), minor(st.st_dev),
				  w->id->ino, major(w->id->dev), minor(w->id->dev));
		goto cleanup;
	}
	if (out)
		*out = st;
	close(pfd);
	return fd;
cleanup:
	if (fd >= 0)
		close(fd);
	close(pfd);
	return err;
}

int bt_procfile_open(int rootfd, const char *path, const struct bt_procfile_want *want,
		     struct stat *st)
{
	int nofollow = want && want->nofollow ? O_NOFOLLOW : 0;
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | nofollow,
		/* a magic link (/proc/N/fd/M) would reach files of any process, as root */
		.resolve = RESOLVE_NO_MAGICLINKS | (rootfd >= 0 ? RESOLVE_IN_ROOT : 0),
	};
	int pfd;

	if (!path || !*path)
		return -ENOENT;
	pfd = syscall(SYS_openat2, rootfd >= 0 ? rootfd : AT_FDCWD, path, &how, sizeof(how));
	if (pfd < 0 && (errno == ENOSYS || errno == EPERM)) {
		/*
		 * No openat2 (before 5.6, or refused by seccomp): in another root, an absolute
		 * symlink would resolve on the host, so nothing is opened there
		 */
		if (rootfd >= 0) {
			bt_procfile_debug(
				"refused %s: no openat2 (%s) to stay in the process's root", path,
				strerror(errno));
			return -EOPNOTSUPP;
		}
		pfd = open(path, O_PATH | O_CLOEXEC | nofollow);
	}
	if (pfd < 0)
		return -errno;
	return finish(pfd, path, want, st);
}

int bt_procfile_open_in(const char *root, const char *path, const struct bt_procfile_want *want,
			struct stat *st)
{
	int rootfd, fd;

	if (!root || !*root || !strcmp(root, "/"))
		return bt_procfile_open(-1, path, want, st);
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	fd = bt_procfile_open(rootfd, path, want, st);
	close(rootfd);
	return fd;
}

int bt_procfile_open_mapped(int pid, uint64_t start, uint64_t end,
			    const struct bt_procfile_want *want, struct stat *st)
{
	char mf[96];
	int pfd;

	snprintf(mf, sizeof(mf), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, pid, start, end);
	/* the kernel's own link to the file mapped: followed on purpose */
	pfd = open(mf, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	return finish(pfd, mf, want, st);
}

int bt_procfile_uids(int pid, uid_t uids[4])
{
	char path[64], *line = NULL;
	unsigned int u[4];
	size_t cap = 0;
	int err = -ENOENT, i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "Uid:", 4))
			continue;
		if (sscanf(line + 4, "%u %u %u %u", &u[0], &u[1], &u[2], &u[3]) == 4) {
			for (i = 0; i < 4; i++)
				uids[i] = u[i];
			err = 0;
		}
		break;
	}
	free(line);
	fclose(f);
	return err;
}
