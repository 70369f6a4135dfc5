/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one way to open a file that a traced process controls: the binaries it maps, their debug
 * files, its perf map, the files unwind tables and uprobe offsets are read from. We run as
 * root; the process may be hostile. Every open here:
 *
 *   - never blocks: the path is opened O_PATH and fstat'ed first, anything but a regular file
 *     (a FIFO, a device, a socket, a directory) is refused before any real open, which then
 *     reopens that very inode (checked by dev and inode) O_RDONLY|O_NONBLOCK|O_NOCTTY;
 *   - never leaves the process's root: /proc/PID/map_files/START-END where the kernel lets us,
 *     else openat2(root, path, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS), so that an absolute
 *     symlink in a container resolves in the container; without openat2 (seccomp, a kernel
 *     before 5.6) a file in another root is refused, never opened on the host;
 *   - checks identity: a file expected to be a given (dev, inode), as /proc/PID/maps or the
 *     mmap log had it while the process lived, is refused when it is another;
 *   - checks ownership where asked (perf maps): root or one of the process's uids.
 *
 * A refusal says why in a debug line (bt_procfile_set_debug) and returns -errno:
 *   -EINVAL not a regular file, -ELOOP a symlink where none may be, -ESTALE not the file
 *   expected, -EPERM owned by someone else, -EOPNOTSUPP no openat2 for another root.
 */
#ifndef BT_PROCFILE_H
#define BT_PROCFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* A file as the kernel names it in /proc/PID/maps and mmap records: device and inode. */
struct bt_file_id {
	uint64_t dev; /* makedev(major, minor) */
	uint64_t ino;
};

struct bt_procfile_want {
	const struct bt_file_id *id; /* NULL: any file */
	const uid_t *owners;	     /* NULL: any owner; else root or one of nowners */
	size_t nowners;
	int nofollow; /* the last component must not be a symlink */
};

/*
 * Open path inside the root rootfd (an O_PATH descriptor of /proc/PID/root; -1: our own root)
 * for reading, as above. Returns the descriptor (O_CLOEXEC) or -errno; *st (may be NULL) gets
 * its fstat.
 */
int bt_procfile_open(int rootfd, const char *path, const struct bt_procfile_want *want,
		     struct stat *st);
/*
 * The same with the root given as a path we trust ("/proc/PID/root", "/proc/self/fd/N"; NULL
 * or "/" for our own).
 */
int bt_procfile_open_in(const char *root, const char *path, const struct bt_procfile_want *want,
			struct stat *st);
/* The file mapped at [start, end) of pid, through /proc/PID/map_files (needs CAP_SYS_ADMIN). */
int bt_procfile_open_mapped(int pid, uint64_t start, uint64_t end,
			    const struct bt_procfile_want *want, struct stat *st);
/*
 * Whether the open fd (fstat'ed into *st) is the file id names. st_dev is not always the
 * device maps print (btrfs subvolumes, overlayfs): then the kernel is asked how it prints fd's
 * mapping (a page mapped and never touched).
 */
int bt_procfile_is(int fd, const struct stat *st, const struct bt_file_id *id);
/* A process's uids (real, effective, saved, filesystem) from /proc/PID/status; 0 or -errno. */
int bt_procfile_uids(int pid, uid_t uids[4]);

/* Where refusals are told (bt_debug in the tools); NULL: nowhere. Process-wide. */
void bt_procfile_set_debug(void (*fn)(const char *msg));
void bt_procfile_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
