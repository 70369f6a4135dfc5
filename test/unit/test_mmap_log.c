// SPDX-License-Identifier: GPL-2.0
/*
 * lib/stacks/bt_mmap_log: a child that execs a program, maps nothing more and exits is found in the
 * log after it is gone, with the program's and libc's mappings as /proc/PID/maps had them; the
 * symbolizer names an address of it from those mappings alone (bt_symbolizer__note_proc_maps),
 * and not through a file that is no longer the inode mapped. A pid that two processes took
 * within milliseconds (made-up records) names each by its own mappings.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bt_mmap_log.h"
#include "bt_sym.h"
#include "harness.h"

/* The mapping of maps[0..n) whose path ends in suffix, or NULL. */
static const struct bt_sym_mapping *find(const struct bt_sym_mapping *maps, int n,
					 const char *suffix)
{
	size_t k = strlen(suffix);
	int i;

	for (i = 0; i < n; i++) {
		size_t l = strlen(maps[i].path);

		if (l >= k && !strcmp(maps[i].path + l - k, suffix))
			return &maps[i];
	}
	return NULL;
}

static void test_exec_and_exit(void)
{
	const struct bt_sym_mapping *maps = NULL, *sleep_map;
	struct bt_mmap_log *log = NULL;
	struct bt_mmap_log_stats st;
	uint64_t start = 0;
	int err, n, fds[2], status;
	pid_t child;
	char c;

	err = bt_mmap_log__open(&log);
	if (err == -EACCES || err == -EPERM) {
		fprintf(stderr, "# skip: perf events refused (%s)\n", strerror(-err));
		return;
	}
	CHECK_INT(err, 0);
	CHECK(bt_mmap_log__fd(log) >= 0);
	CHECK(pipe(fds) == 0);
	child = fork();
	if (!child) {
		/* /bin/sleep waits on the pipe's other end for nothing: we kill it */
		close(fds[1]);
		read(fds[0], &c, 1);
		execl("/bin/sleep", "sleep", "5", (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	CHECK(child > 0);
	CHECK_INT(bt_proc_start_ns(child, &start), 0);
	CHECK(write(fds[1], "x", 1) == 1);
	close(fds[1]);
	/* exec'd and mapped its libraries: /proc/PID/exe says sleep, libc is mapped */
	for (n = 0; n < 200; n++) {
		char buf[64] = "", path[64];

		snprintf(path, sizeof(path), "/proc/%d/exe", child);
		if (readlink(path, buf, sizeof(buf) - 1) > 0 && strstr(buf, "sleep")) {
			usleep(100000);
			break;
		}
		usleep(10000);
	}
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	CHECK_INT(bt_mmap_log__poll(log), 0);
	/* gone now: its mappings since the exec, as the kernel made them */
	n = bt_mmap_log__maps(log, child, start, &maps);
	CHECK(n >= 3);
	sleep_map = n > 0 ? find(maps, n, "/sleep") : NULL;
	CHECK(sleep_map != NULL);
	CHECK(n > 0 && find(maps, n, "/libc.so.6") != NULL);
	/* not the parent's: a fork copies them, the exec dropped them */
	CHECK(n > 0 && !find(maps, n, "/test_mmap_log"));
	/* another process's start time: not this one */
	CHECK_INT(bt_mmap_log__maps(log, child, start + 60000000000ULL, &maps), -ENOENT);
	bt_mmap_log__stats(log, &st);
	CHECK(st.records >= 4 && st.exited >= 1);
	bt_mmap_log__free(log);
}

/* Named from given mappings alone: the files by path, checked by inode. */
static void test_note_proc_maps(void)
{
	struct bt_sym_opts o = { 0 };
	struct bt_symbolizer *sym = NULL;
	struct bt_sym_mapping m[64];
	struct bt_frame fr[4];
	char line[4096], path[4096], perms[8];
	unsigned long long a, b, off, ino;
	unsigned int maj, min;
	uint64_t addr = (uint64_t)(uintptr_t)&test_note_proc_maps;
	const int fake = 4190000; /* a pid no process has: the names come from m[] alone */
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, got;

	CHECK(f != NULL);
	while (f && n < 64 && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %4095s", &a, &b, perms, &off, &maj,
			   &min, &ino, path) != 8 ||
		    perms[2] != 'x' || path[0] != '/')
			continue;
		m[n] = (struct bt_sym_mapping){ .start = a,
						.end = b,
						.pgoff = off,
						.dev_major = maj,
						.dev_minor = min,
						.ino = ino,
						.path = strdup(path) };
		n++;
	}
	if (f)
		fclose(f);
	CHECK(n >= 2);
	CHECK_INT(bt_symbolizer__new(&o, &sym), 0);
	CHECK_INT(bt_symbolizer__note_proc_maps(sym, fake, 7, 1, m, n), 0);
	got = bt_symbolizer__resolve_proc(sym, fake, 7, &addr, 1, 0, fr, 4);
	CHECK(got >= 1 && fr[0].name && !strcmp(fr[0].name, "test_note_proc_maps"));
	bt_symbolizer__free(sym);
	/* a path that is another inode now (replaced on disk): no names from it */
	for (got = 0; got < n; got++)
		m[got].ino ^= 1;
	CHECK_INT(bt_symbolizer__new(&o, &sym), 0);
	bt_symbolizer__note_proc_maps(sym, fake, 7, 1, m, n);
	got = bt_symbolizer__resolve_proc(sym, fake, 7, &addr, 1, 0, fr, 4);
	CHECK(got >= 1 && (!fr[0].name || strcmp(fr[0].name, "test_note_proc_maps")));
	bt_symbolizer__free(sym);
	while (n--)
		free((char *)m[n].path);
}

/* The records' layouts (linux/perf_event.h), each closed by the sample id: pid, tid, time. */
struct sample_id {
	__u32 pid, tid;
	__u64 time;
};

static void feed_task(struct bt_mmap_log *log, __u32 type, int pid, int ppid, __u64 ns)
{
	struct {
		struct perf_event_header h;
		__u32 pid, ppid, tid, ptid;
		__u64 time;
		struct sample_id id;
	} r = { { type, 0, sizeof(r) }, pid, ppid, pid, ppid, ns, { pid, pid, ns } };

	bt_mmap_log__handle(log, &r);
}

static void feed_exec(struct bt_mmap_log *log, int pid, const char *comm, __u64 ns)
{
	struct {
		struct perf_event_header h;
		__u32 pid, tid;
		char comm[16];
		struct sample_id id;
	} r = { { PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, sizeof(r) },
		pid,
		pid,
		"",
		{ pid, pid, ns } };

	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	bt_mmap_log__handle(log, &r);
}

static void feed_mmap(struct bt_mmap_log *log, int pid, __u64 addr, const char *path, __u64 ns)
{
	struct {
		struct perf_event_header h;
		__u32 pid, tid;
		__u64 addr, len, pgoff;
		__u32 maj, min;
		__u64 ino, ino_generation;
		__u32 prot, flags;
		char filename[32];
		struct sample_id id;
	} r = { { PERF_RECORD_MMAP2, 0, sizeof(r) },
		pid,
		pid,
		addr,
		0x1000,
		0,
		8,
		1,
		1234,
		0,
		5,
		2,
		"",
		{ pid, pid, ns } };

	snprintf(r.filename, sizeof(r.filename), "%s", path);
	bt_mmap_log__handle(log, &r);
}

/*
 * A shell's readlink forks at t, maps its files and exits; the fork that takes its pid 5 ms
 * later execs reuse_b and exits too. Both forks are within the 20 ms that a start time from
 * /proc is allowed: the one closest to reuse_b's start is reuse_b (the first was taken).
 */
static void test_pid_taken_twice(void)
{
	const struct bt_sym_mapping *maps = NULL;
	struct bt_mmap_log *log = NULL;
	const int pid = 4190001; /* above any pid_max: no process of the machine has it */
	const __u64 t = 5000000000000ULL, ms = 1000000;
	int err, n;

	err = bt_mmap_log__open(&log);
	if (err == -EACCES || err == -EPERM) {
		fprintf(stderr, "# skip: perf events refused (%s)\n", strerror(-err));
		return;
	}
	CHECK_INT(err, 0);
	feed_task(log, PERF_RECORD_FORK, pid, 1, t);
	feed_exec(log, pid, "readlink", t + ms / 2);
	feed_mmap(log, pid, 0x10000, "/usr/bin/readlink", t + ms);
	feed_task(log, PERF_RECORD_EXIT, pid, 1, t + 2 * ms);
	feed_task(log, PERF_RECORD_FORK, pid, 1, t + 5 * ms);
	feed_exec(log, pid, "reuse_b", t + 6 * ms);
	feed_mmap(log, pid, 0x40000, "/work/reuse_b", t + 6 * ms);
	feed_mmap(log, pid, 0x80000, "/usr/lib/libc.so.6", t + 6 * ms);
	feed_task(log, PERF_RECORD_EXIT, pid, 1, t + 9 * ms);

	n = bt_mmap_log__maps(log, pid, t + 5 * ms + 3000, &maps);
	CHECK_INT(n, 2);
	CHECK(n == 2 && find(maps, n, "/reuse_b") && find(maps, n, "/libc.so.6"));
	n = bt_mmap_log__maps(log, pid, t + 20000, &maps);
	CHECK_INT(n, 1);
	CHECK(n == 1 && find(maps, n, "/readlink"));
	bt_mmap_log__free(log);
}

int main(void)
{
	BT_RUN(test_exec_and_exit);
	BT_RUN(test_note_proc_maps);
	BT_RUN(test_pid_taken_twice);
	return bt_test_done();
}
