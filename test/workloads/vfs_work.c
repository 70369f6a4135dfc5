// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with exact VFS call counts for vfsstat's tests:
 *
 *	vfs_work R W O M
 *
 * sets up a directory and a file in $TMPDIR (default /tmp), waits for SIGUSR1 (so the tracer
 * can attach first), then makes R reads (pread: vfs_read), W writes (pwrite: vfs_write), O
 * opens of the file (open + close: vfs_open), M fsyncs (vfs_fsync_range), M creates (mknod of
 * a regular file: vfs_create; open(O_CREAT) does not go through vfs_create), M unlinks, M
 * mkdirs and M rmdirs, then removes its own file and directory: one more unlink and one more
 * rmdir. Nothing else it does after the signal reaches those functions. Without a signal
 * within 90 s it exits with status 3; a failed call exits 1.
 */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[PATH_MAX], file[PATH_MAX + 8];

static int entry(char *buf, size_t size, const char *kind, long i)
{
	return snprintf(buf, size, "%s/%s%ld", dir, kind, i) >= (int)size ? -1 : 0;
}

static int work(int fd, long r, long w, long o, long m)
{
	char buf[PATH_MAX + 32], c = 'x';
	long i;
	int f;

	for (i = 0; i < r; i++)
		if (pread(fd, &c, 1, 0) != 1)
			return -1;
	for (i = 0; i < w; i++)
		if (pwrite(fd, &c, 1, 0) != 1)
			return -1;
	for (i = 0; i < o; i++) {
		f = open(file, O_RDONLY);
		if (f < 0)
			return -1;
		close(f);
	}
	for (i = 0; i < m; i++) {
		if (fsync(fd))
			return -1;
		if (entry(buf, sizeof(buf), "c", i) || mknod(buf, S_IFREG | 0600, 0) || unlink(buf))
			return -1;
		if (entry(buf, sizeof(buf), "d", i) || mkdir(buf, 0700) || rmdir(buf))
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR");
	long r, w, o, m;
	int fd, sig, err;
	sigset_t set;

	if (argc != 5)
		return 2;
	r = atol(argv[1]);
	w = atol(argv[2]);
	o = atol(argv[3]);
	m = atol(argv[4]);
	snprintf(dir, sizeof(dir), "%s/vfs_work.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		return 1;
	snprintf(file, sizeof(file), "%s/f", dir);
	fd = open(file, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0 || pwrite(fd, "x", 1, 0) != 1) {
		rmdir(dir);
		return 1;
	}

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	alarm(90); /* past the guest tests' 60 s wait for a tool under TCG */
	if (sigwait(&set, &sig) || sig != SIGUSR1) {
		err = 3;
	} else {
		alarm(0);
		err = work(fd, r, w, o, m) ? 1 : 0;
	}
	close(fd);
	unlink(file);
	rmdir(dir);
	return err;
}
