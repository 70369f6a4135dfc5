// SPDX-License-Identifier: GPL-2.0
/*
 * The hostile tier's traced process, built at test time (test/hostile/lib.sh): it lays one
 * trap for the tracer, then runs on and off the CPU (hv_spin, hv_nap) until killed or -x.
 * Built twice: the program, and with -DHV_LIB a library (-l) whose hv_lib_work does the same,
 * so that its frames are in a file the trap names.
 *
 *   -c COMM     the comm (prctl PR_SET_NAME, at most 15 bytes: the rest is cut)
 *   -f          /tmp/perf-PID.map made a FIFO (PID as this process sees it)
 *   -m FILE     FILE mapped executable (repeatable: -M LIST maps every line of LIST)
 *   -D FILE:TO  FILE mapped executable, then removed and replaced by a symlink to TO
 *   -l LIB      LIB dlopened and its hv_lib_work run instead of the loop here
 *   -j          each round called through a stub in an anonymous executable mapping (a JIT's
 *               code, named only by a perf map; x86-64)
 *   -x MS       exit after MS milliseconds
 * Once the trap is set it prints "ready PID STUB" (its own pid, the stub's address or 0).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

__attribute__((noinline)) static void hv_spin(void)
{
	long long end = now_ms() + 2;
	volatile unsigned long x = 0;

	while (now_ms() < end)
		x++;
}

__attribute__((noinline)) static void hv_nap(void)
{
	struct timespec ts = { 0, 2000000 };

	nanosleep(&ts, NULL);
}

#ifdef HV_LIB
__attribute__((noinline)) void hv_lib_work(long long until)
{
	while (!until || now_ms() < until) {
		hv_spin();
		hv_nap();
	}
}
#else
__attribute__((noinline)) static unsigned long hv_round(void)
{
	hv_spin();
	hv_nap();
	return 0;
}

/* push rbp; mov rbp, rsp; movabs rax, hv_round; call rax; pop rbp; ret */
static unsigned long (*make_stub(void))(void)
{
	static const unsigned char head[] = { 0x55, 0x48, 0x89, 0xe5, 0x48, 0xb8 };
	static const unsigned char tail[] = { 0xff, 0xd0, 0x5d, 0xc3 };
	uint64_t target = (uint64_t)(uintptr_t)hv_round;
	unsigned char *p;

#if !defined(__x86_64__)
	return NULL;
#endif
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, head, sizeof(head));
	memcpy(p + sizeof(head), &target, sizeof(target));
	memcpy(p + sizeof(head) + sizeof(target), tail, sizeof(tail));
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC))
		return NULL;
	return (unsigned long (*)(void))p;
}

static int map_one(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *p;

	if (fd < 0 || fstat(fd, &st)) {
		perror(path);
		return -1;
	}
	/* the first MiB at most: a sparse file of GiBs is mapped for its name, not its size */
	p = mmap(NULL, st.st_size && st.st_size < (1 << 20) ? st.st_size : 4096 * 256,
		 PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		perror(path);
		return -1;
	}
	return 0;
}

static int map_list(const char *list)
{
	char line[4096];
	FILE *f = fopen(list, "r");
	int n = 0;

	if (!f) {
		perror(list);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (map_one(line)) {
			fclose(f);
			return -1;
		}
		n++;
	}
	fclose(f);
	return n ? 0 : -1;
}

int main(int argc, char **argv)
{
	void (*work)(long long) = NULL;
	unsigned long (*stub)(void) = NULL;
	long long until = 0;
	char path[64], *to;
	void *h;
	int c;

	while ((c = getopt(argc, argv, "c:fjm:M:D:l:x:")) != -1) {
		switch (c) {
		case 'c':
			prctl(PR_SET_NAME, optarg);
			break;
		case 'f':
			snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
			if (mkfifo(path, 0644)) {
				perror(path);
				return 1;
			}
			break;
		case 'm':
			if (map_one(optarg))
				return 1;
			break;
		case 'M':
			if (map_list(optarg))
				return 1;
			break;
		case 'D':
			to = strchr(optarg, ':');
			if (!to)
				return 2;
			*to++ = 0;
			if (map_one(optarg) || unlink(optarg) || symlink(to, optarg)) {
				perror(optarg);
				return 1;
			}
			break;
		case 'l':
			h = dlopen(optarg, RTLD_NOW);
			work = h ? (void (*)(long long))dlsym(h, "hv_lib_work") : NULL;
			if (!work) {
				fprintf(stderr, "%s\n", dlerror());
				return 1;
			}
			break;
		case 'j':
			stub = make_stub();
			if (!stub) {
				fprintf(stderr, "no JIT stub on this machine\n");
				return 77;
			}
			break;
		case 'x':
			until = now_ms() + atoll(optarg);
			break;
		default:
			return 2;
		}
	}
	printf("ready %d %#lx\n", getpid(), (unsigned long)(uintptr_t)stub);
	fflush(stdout);
	if (work) {
		work(until);
		return 0;
	}
	while (!until || now_ms() < until) {
		if (stub) {
			stub();
		} else {
			hv_spin();
			hv_nap();
		}
	}
	return 0;
}
#endif
