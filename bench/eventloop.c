// SPDX-License-Identifier: GPL-2.0
/*
 * The cost of one traced event, measured from the traced side: N getppid system calls (a
 * syscalls tracepoint), N calls of a user function (a uprobe), N pipe round trips between
 * two processes pinned to one CPU (two context switches each), N opens of a path that does
 * not exist (openat's entry and return), or N direct 4 KiB reads of block device DEV (one
 * block I/O each). Prints two costs per operation (per context switch for "switch"), in ns:
 * the CPU time spent (both processes' for "switch"), which the BPF programs running in the
 * traced process add to and the machine's other load does not, and the wall time, which is
 * what the loop took. For "bio" the CPU time also counts the kernel threads' and the
 * interrupts' (where the loop driver reads and completes the I/O).
 * scripts/bench runs it untraced and traced.
 *	eventloop syscall|ufunc|switch|open N
 *	eventloop bio N DEV
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static volatile unsigned long sink;

__attribute__((noinline)) void bt_bench_func(unsigned long i)
{
	sink += i;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double t0, c0;

static void start(void)
{
	t0 = now_ns();
	c0 = cpu_ns();
}

static void report(double ops, double child_cpu_ns)
{
	double c = cpu_ns() - c0 + child_cpu_ns, t = now_ns() - t0;

	printf("%.1f %.1f\n", c / ops, t / ops);
}

/* Ping-pong over two pipes on CPU 0: every byte is a switch to the other process. */
static int switches(long n)
{
	int a[2], b[2], status;
	cpu_set_t one;
	double child_ns;
	pid_t child;
	char c = 0;

	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (pipe(a) || pipe(b) || sched_setaffinity(0, sizeof(one), &one))
		return 1;
	child = fork();
	if (child < 0)
		return 1;
	if (!child) {
		double mine = 0;

		close(a[1]); /* the parent's close of a[1] is the child's end of file */
		/* the CPU time of the loop, after the first round trip (the start-up), is sent back */
		if (read(a[0], &c, 1) == 1 && write(b[1], &c, 1) == 1)
			mine = cpu_ns();
		while (read(a[0], &c, 1) == 1 && write(b[1], &c, 1) == 1)
			;
		mine = cpu_ns() - mine;
		_exit(write(b[1], &mine, sizeof(mine)) != sizeof(mine));
	}
	if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
		return 1;
	start();
	for (long i = 0; i < n; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			return 1;
	close(a[1]);
	if (read(b[0], &child_ns, sizeof(child_ns)) != sizeof(child_ns))
		return 1;
	report(2.0 * n, child_ns);
	waitpid(child, &status, 0);
	return 0;
}

/*
 * The CPU time, in ns, of every kernel thread (children of kthreadd) plus the interrupt and
 * softirq time of the machine: where a block I/O's completion runs. Clock-tick grained, so
 * the loop must run long; other load on the machine adds to it too, but little.
 */
static double kernel_cpu_ns(void)
{
	unsigned long long ut, st, sum = 0, irq = 0, sirq = 0;
	char path[300], line[512];
	struct dirent *d;
	DIR *dir;
	FILE *f;
	int ppid;

	dir = opendir("/proc");
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		/* the name, field 2, may hold spaces: parse from its closing parenthesis */
		if (fgets(line, sizeof(line), f) && strrchr(line, ')') &&
		    sscanf(strrchr(line, ')') + 2,
			   "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ppid, &ut,
			   &st) == 3 &&
		    (ppid == 2 || !strcmp(d->d_name, "2")))
			sum += ut + st;
		fclose(f);
	}
	if (dir)
		closedir(dir);
	f = fopen("/proc/stat", "r");
	if (f) {
		if (fscanf(f, "cpu %*u %*u %*u %*u %*u %llu %llu", &irq, &sirq) != 2)
			irq = sirq = 0;
		fclose(f);
	}
	return (sum + irq + sirq) * 1e9 / sysconf(_SC_CLK_TCK);
}

/* Direct reads walk the device in 4 KiB steps, so that none is merged with another. */
static int block_reads(long n, const char *dev)
{
	static char buf[4096] __attribute__((aligned(4096)));
	long blocks;
	off_t size;
	double k0;
	int fd;

	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		perror(dev);
		return 1;
	}
	size = lseek(fd, 0, SEEK_END);
	blocks = size / 4096;
	if (blocks < 1)
		return 1;
	k0 = kernel_cpu_ns();
	start();
	for (long i = 0; i < n; i++)
		if (pread(fd, buf, sizeof(buf), (i % blocks) * 4096) != sizeof(buf)) {
			perror(dev);
			return 1;
		}
	report(n, kernel_cpu_ns() - k0);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 1000000;
	int sys = argc > 1 && !strcmp(argv[1], "syscall");
	int opens = argc > 1 && !strcmp(argv[1], "open");

	if (argc < 2 || n <= 0) {
		fprintf(stderr, "usage: eventloop syscall|ufunc|switch|open N | bio N DEV\n");
		return 2;
	}
	if (!strcmp(argv[1], "switch"))
		return switches(n);
	if (!strcmp(argv[1], "bio"))
		return argc > 3 ? block_reads(n, argv[3]) : 2;
	start();
	for (long i = 0; i < n; i++) {
		if (sys)
			syscall(SYS_getppid);
		else if (opens)
			/* fails at the first component: the open's cost is the tracepoints' */
			openat(AT_FDCWD, "/nonexistent-bpftools-bench", O_RDONLY);
		else
			bt_bench_func(i);
	}
	report(n, 0);
	return 0;
}
