// SPDX-License-Identifier: GPL-2.0
/*
 * symbolize/bt_procfile: files of traced processes are opened without blocking, inside the
 * process's root, as the inode that was mapped, and perf maps only when owned by root or the
 * process; the symbolizer keeps a bounded number of them open. Every case runs under alarm():
 * a regression that blocks in open() is killed and fails instead of hanging the suite.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bt_elf.h"
#include "bt_procfile.h"
#include "harness.h"
#include "sym_internal.h"

#define ALARM_S 10

static char dir[200];
static char last_debug[1024];

static void capture(const char *msg)
{
	snprintf(last_debug, sizeof(last_debug), "%s", msg);
}

static void mkdirs(const char *fmt, const char *sub)
{
	char p[512], *s;

	snprintf(p, sizeof(p), fmt, dir, sub);
	for (s = p + 1; *s; s++) {
		if (*s == '/') {
			*s = 0;
			mkdir(p, 0755);
			*s = '/';
		}
	}
	mkdir(p, 0755);
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	ssize_t n;
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	int err = in < 0 || out < 0 ? -1 : 0;

	while (!err && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			err = -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return err;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

static void rm_rf(const char *path)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	if (system(cmd))
		fprintf(stderr, "# cannot remove %s\n", path);
}

/* A FIFO where a file is expected: refused at once, by every opener, and never opened. */
static void test_fifo(void)
{
	char fifo[512], perf[64];
	struct bt_perfmap *pm = NULL;
	struct bt_symbolizer *sym = NULL;
	struct bt_elf *elf = NULL;

	alarm(ALARM_S);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	CHECK_INT(mkfifo(fifo, 0644), 0);
	last_debug[0] = 0;
	CHECK_INT(bt_procfile_open(-1, fifo, NULL, NULL), -EINVAL);
	CHECK(strstr(last_debug, "a FIFO") != NULL);
	CHECK_INT(bt_perfmap__open_path(fifo, &pm), -EINVAL);
	CHECK_INT(bt_elf__open(fifo, NULL, &elf), -EINVAL);
	CHECK_INT(bt_procfile_open_in(dir, "/fifo", NULL, NULL), -EINVAL);

	/* our own perf map a FIFO: noting the process returns, with no perf map */
	snprintf(perf, sizeof(perf), "/tmp/perf-%d.map", (int)getpid());
	unlink(perf);
	CHECK_INT(mkfifo(perf, 0644), 0);
	CHECK_INT(bt_symbolizer__new(NULL, &sym), 0);
	CHECK_INT(bt_symbolizer__note_pid(sym, getpid()), 0);
	bt_symbolizer__free(sym);
	unlink(perf);
	unlink(fifo);
	alarm(0);
}

/* A device (directly, or by a symlink to it), a directory, a socket path: refused. */
static void test_device(void)
{
	char link[512];

	alarm(ALARM_S);
	last_debug[0] = 0;
	CHECK_INT(bt_procfile_open(-1, "/dev/null", NULL, NULL), -EINVAL);
	CHECK(strstr(last_debug, "a character device") != NULL);
	snprintf(link, sizeof(link), "%s/null", dir);
	CHECK_INT(symlink("/dev/null", link), 0);
	CHECK_INT(bt_procfile_open(-1, link, NULL, NULL), -EINVAL);
	CHECK_INT(bt_procfile_open(-1, "/dev/zero", NULL, NULL), -EINVAL);
	CHECK_INT(bt_procfile_open(-1, dir, NULL, NULL), -EINVAL);
	/* a perf map may not be a symlink at all, even to a regular file */
	unlink(link);
	CHECK_INT(symlink(FX_DIR "/fx_pie", link), 0);
	CHECK_INT(bt_procfile_open(-1, link, &(struct bt_procfile_want){ .nofollow = 1 }, NULL),
		  -ELOOP);
	unlink(link);
	alarm(0);
}

/*
 * A fake root whose symlinks point out of it: absolute ones resolve inside it (and find
 * nothing), ".." stops at it; a symlinked debug link does not reach the host's debug file,
 * while a real one inside the root is found.
 */
static void test_root_escape(void)
{
	char root[300], p[700], secret[300], id[160];
	struct bt_elf *elf = NULL;
	int rootfd, fd;

	alarm(ALARM_S);
	snprintf(root, sizeof(root), "%s/root", dir);
	mkdirs("%s/root/%s", "tmp");
	mkdirs("%s/root/%s", "bin");
	snprintf(secret, sizeof(secret), "%s/secret", dir);
	CHECK_INT(copy_file(FX_DIR "/fx_pie", secret), 0);
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	CHECK(rootfd >= 0);

	snprintf(p, sizeof(p), "%s/tmp/abs", root);
	CHECK_INT(symlink(secret, p), 0); /* the host path: inside the root, nothing */
	CHECK_INT(bt_procfile_open(rootfd, "/tmp/abs", NULL, NULL), -ENOENT);
	snprintf(p, sizeof(p), "%s/tmp/up", root);
	CHECK_INT(symlink("../../secret", p), 0); /* ".." stops at the root */
	CHECK_INT(bt_procfile_open(rootfd, "/tmp/up", NULL, NULL), -ENOENT);
	CHECK_INT(bt_procfile_open(rootfd, "/../secret", NULL, NULL), -ENOENT);
	snprintf(p, sizeof(p), "%s/tmp/magic", root);
	CHECK_INT(symlink("/proc/self/root/etc/hostname", p), 0);
	CHECK(bt_procfile_open(-1, p, NULL, NULL) < 0); /* a magic link: never */
	/* a regular file inside: opened */
	snprintf(p, sizeof(p), "%s/bin/fx_stripped", root);
	CHECK_INT(copy_file(FX_DIR "/fx_stripped", p), 0);
	fd = bt_procfile_open(rootfd, "/bin/fx_stripped", NULL, NULL);
	CHECK(fd >= 0);

	/* its debug link a symlink to the host's debug file: not followed out */
	snprintf(p, sizeof(p), "%s/bin/fx_stripped.debug", root);
	CHECK_INT(symlink(FX_DIR "/fx_stripped.debug", p), 0);
	CHECK_INT(bt_elf__open_fd(fd, "/bin/fx_stripped", root, &elf), 0);
	CHECK(bt_elf__find_func(elf, "fx_level2") == NULL);
	CHECK(bt_elf__debug_file(elf) == NULL);
	CHECK(bt_elf__build_id(elf) != NULL);
	snprintf(id, sizeof(id), "%s", bt_elf__build_id(elf) ? bt_elf__build_id(elf) : "");
	bt_elf__close(elf);
	elf = NULL;
	/* the same debug file really in the root, by build-id: found */
	if (strlen(id) > 2) {
		snprintf(p, sizeof(p), "%.2s", id);
		mkdirs("%s/root/usr/lib/debug/.build-id/%s", p);
		snprintf(p, sizeof(p), "%s/usr/lib/debug/.build-id/%.2s/%s.debug", root, id,
			 id + 2);
		CHECK_INT(copy_file(FX_DIR "/fx_stripped.debug", p), 0);
		CHECK_INT(bt_elf__open_fd(fd, "/bin/fx_stripped", root, &elf), 0);
		CHECK(bt_elf__find_func(elf, "fx_level2") != NULL);
		CHECK(bt_elf__debug_file(elf) &&
		      !strncmp(bt_elf__debug_file(elf), "/usr/lib/debug/.build-id/", 25));
	}
	bt_elf__close(elf);
	if (fd >= 0)
		close(fd);
	close(rootfd);
	alarm(0);
}

/* The address of fx_pie's fx_level2 in a mapping of the file at 0x400000, offset 0. */
static uint64_t level2_addr(void)
{
	const struct bt_elf_sym *s;
	struct bt_elf *elf = NULL;
	uint64_t off = 0;

	if (bt_elf__open(FX_DIR "/fx_pie", NULL, &elf))
		return 0;
	s = bt_elf__find_func(elf, "fx_level2");
	if (!s || bt_elf__vaddr_to_offset(elf, s->vaddr, &off))
		off = 0;
	bt_elf__close(elf);
	return off ? 0x400000 + off : 0;
}

/*
 * A file replaced after its identity was taken (a process gone, its path now another file,
 * or a FIFO): refused, in the API and in the names of an exited process's stacks.
 */
static void test_replaced(void)
{
	struct bt_sym_mapping m = { .start = 0x400000, .end = 0x500000 };
	struct bt_symbolizer *sym = NULL;
	struct bt_file_id id;
	struct bt_frame fr;
	char f[512], g[512];
	uint64_t addr = level2_addr();
	struct stat st;
	int fd, pid = 0x3ffffff0;

	alarm(ALARM_S);
	CHECK(addr != 0);
	snprintf(f, sizeof(f), "%s/lib.so", dir);
	snprintf(g, sizeof(g), "%s/lib.so.new", dir);
	CHECK_INT(copy_file(FX_DIR "/fx_pie", f), 0);
	CHECK_INT(stat(f, &st), 0);
	id = (struct bt_file_id){ .dev = st.st_dev, .ino = st.st_ino };
	fd = bt_procfile_open(-1, f, &(struct bt_procfile_want){ .id = &id }, NULL);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
	m.dev_major = major(st.st_dev);
	m.dev_minor = minor(st.st_dev);
	m.ino = st.st_ino;
	m.path = f;
	/* the exited process's file as it was: named */
	CHECK_INT(bt_symbolizer__new(NULL, &sym), 0);
	CHECK_INT(bt_symbolizer__note_proc_maps(sym, pid, 1, 0, &m, 1), 0);
	CHECK_INT(bt_symbolizer__resolve_proc(sym, pid, 1, &addr, 1, 0, &fr, 1), 1);
	CHECK_STR(fr.name, "fx_level2");
	bt_symbolizer__free(sym);

	/* replaced (another inode at the path): refused */
	CHECK_INT(copy_file(FX_DIR "/fx_pie", g), 0);
	CHECK_INT(rename(g, f), 0);
	last_debug[0] = 0;
	CHECK_INT(bt_procfile_open(-1, f, &(struct bt_procfile_want){ .id = &id }, NULL), -ESTALE);
	CHECK(strstr(last_debug, "not the") != NULL);
	CHECK_INT(bt_symbolizer__new(NULL, &sym), 0);
	CHECK_INT(bt_symbolizer__note_proc_maps(sym, pid, 1, 0, &m, 1), 0);
	CHECK_INT(bt_symbolizer__resolve_proc(sym, pid, 1, &addr, 1, 0, &fr, 1), 1);
	CHECK(fr.name == NULL);
	CHECK_INT(fr.reason, BT_SYM_BAD_FILE);
	bt_symbolizer__free(sym);

	/* a FIFO at the path of the exited process's file: refused, not opened */
	unlink(f);
	CHECK_INT(mkfifo(f, 0644), 0);
	CHECK_INT(stat(f, &st), 0);
	m.ino = st.st_ino; /* even with its identity right */
	CHECK_INT(bt_symbolizer__new(NULL, &sym), 0);
	CHECK_INT(bt_symbolizer__note_proc_maps(sym, pid, 1, 0, &m, 1), 0);
	CHECK_INT(bt_symbolizer__resolve_proc(sym, pid, 1, &addr, 1, 0, &fr, 1), 1);
	CHECK(fr.name == NULL);
	bt_symbolizer__free(sym);
	unlink(f);
	alarm(0);
}

/* A perf map owned by neither root nor the process: ignored; by the process's user: read. */
static void test_perfmap_owner(void)
{
	struct bt_symbolizer *sym = NULL;
	struct bt_perfmap *pm = NULL;
	uint64_t addr = 0x1008;
	struct bt_frame fr;
	char perf[64];
	uid_t mine = 4242;
	FILE *f;

	alarm(ALARM_S);
	snprintf(perf, sizeof(perf), "/tmp/perf-%d.map", (int)getpid());
	unlink(perf);
	f = fopen(perf, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fprintf(f, "1000 100 jit_hostile\n");
	fclose(f);
	if (geteuid() != 0) {
		printf("# not root: the other-owner case needs chown\n");
		unlink(perf);
		return;
	}
	CHECK_INT(chown(perf, 65534, 65534), 0);
	last_debug[0] = 0;
	CHECK_INT(bt_perfmap__open(-1, getpid(), &mine, 1, &pm), -EPERM);
	CHECK(strstr(last_debug, "owned by uid 65534") != NULL);
	/* the symbolizer: our uids are root's, the map is nobody's */
	CHECK_INT(bt_symbolizer__new(NULL, &sym), 0);
	CHECK_INT(bt_symbolizer__resolve(sym, getpid(), &addr, 1, 0, &fr, 1), 1);
	CHECK(fr.name == NULL);
	bt_symbolizer__free(sym);
	/* owned by the process's user: read */
	CHECK_INT(chown(perf, 4242, 4242), 0);
	CHECK_INT(bt_perfmap__open(-1, getpid(), &mine, 1, &pm), 0);
	CHECK_INT(bt_perfmap__refresh(pm), 0);
	CHECK_STR(bt_perfmap__lookup(pm, 0x1008, NULL), "jit_hostile");
	bt_perfmap__free(pm);
	/* and by root, for the symbolizer */
	CHECK_INT(chown(perf, 0, 0), 0);
	CHECK_INT(bt_symbolizer__new(NULL, &sym), 0);
	CHECK_INT(bt_symbolizer__resolve(sym, getpid(), &addr, 1, 0, &fr, 1), 1);
	CHECK_STR(fr.name, "jit_hostile");
	bt_symbolizer__free(sym);
	unlink(perf);
	alarm(0);
}

/*
 * More mapped files than the symbolizer keeps open (128): the descriptors it holds stay
 * bounded, and every file still gets its names (reopened by its identity when needed).
 */
#define NFILES 300
static void test_fd_cap(void)
{
	struct bt_symbolizer *sym = NULL;
	const struct bt_elf_sym *s;
	struct bt_sym_stats st;
	struct bt_elf *elf = NULL;
	uint64_t off = 0, addrs[NFILES];
	void *maps[NFILES];
	size_t len = 0;
	char lib[512], p[600];
	int i, before, after, named = 0, fd;

	alarm(60);
	snprintf(lib, sizeof(lib), "%s/libs", FX_DIR);
	rm_rf(lib);
	mkdir(lib, 0755);
	CHECK_INT(bt_elf__open(FX_DIR "/fx_nobuildid.so", NULL, &elf), 0);
	s = elf ? bt_elf__find_func(elf, "fxlib_outer") : NULL;
	CHECK(s != NULL);
	if (!s) {
		bt_elf__close(elf);
		return;
	}
	CHECK(bt_elf__build_id(elf) == NULL); /* else the copies would be one file */
	CHECK_INT(bt_elf__vaddr_to_offset(elf, s->vaddr, &off), 0);
	bt_elf__close(elf);
	for (i = 0; i < NFILES; i++) {
		struct stat sb;

		maps[i] = MAP_FAILED;
		snprintf(p, sizeof(p), "%s/lib%d.so", lib, i);
		if (copy_file(FX_DIR "/fx_nobuildid.so", p))
			break;
		fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &sb))
			break;
		len = sb.st_size;
		maps[i] = mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		close(fd);
		if (maps[i] == MAP_FAILED)
			break;
		addrs[i] = (uint64_t)(uintptr_t)maps[i] + off;
	}
	CHECK_INT(i, NFILES);
	before = count_fds();
	CHECK_INT(bt_symbolizer__new(NULL, &sym), 0);
	CHECK_INT(bt_symbolizer__note_pid(sym, getpid()), 0);
	after = count_fds();
	bt_symbolizer__stats(sym, &st);
	printf("# %d descriptors held for %zu files (%zu parked)\n", after - before, st.files,
	       st.files_parked);
	CHECK(st.files >= NFILES);
	CHECK(after - before <= 128 + 4);
	for (i = 0; i < NFILES; i++) {
		struct bt_frame fr;

		if (bt_symbolizer__resolve(sym, getpid(), &addrs[i], 1, 0, &fr, 1) == 1 &&
		    fr.name && !strcmp(fr.name, "fxlib_outer"))
			named++;
	}
	CHECK_INT(named, NFILES);
	after = count_fds();
	/* loaded files (64) hold theirs too, within the bound */
	CHECK(after - before <= 128 + 4);
	bt_symbolizer__free(sym);
	for (i = 0; i < NFILES; i++)
		if (maps[i] != MAP_FAILED)
			munmap(maps[i], len);
	rm_rf(lib);
	alarm(0);
}

int main(void)
{
	char tmpl[] = "/tmp/bt-procfile-XXXXXX";

	if (!mkdtemp(tmpl)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s", tmpl);
	/* a case that blocks is killed by SIGALRM: the test fails, it does not hang */
	signal(SIGALRM, SIG_DFL);
	bt_procfile_set_debug(capture);
	BT_RUN(test_fifo);
	BT_RUN(test_device);
	BT_RUN(test_root_escape);
	BT_RUN(test_replaced);
	BT_RUN(test_perfmap_owner);
	BT_RUN(test_fd_cap);
	rm_rf(dir);
	return bt_test_done();
}
