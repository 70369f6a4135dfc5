// SPDX-License-Identifier: GPL-2.0
/*
 * Known user call chains built without frame pointers (-O2 -fomit-frame-pointer), for the
 * unwinder's tests: main -> uw_run -> uw_1 -> uw_2 -> uw_3a|uw_3b -> uw_4 -> (library) uwl_1 ->
 * uwl_2 -> uwl_3 -> uwl_4 -> uwl_leaf, which returns (call), sleeps in clock_nanosleep (sleep)
 * or reads a pipe a child writes to (pipe). Path a is taken A times, path b B times.
 *
 * Usage: unwind_work call|sleep|pipe|clock A B [DELAY_MS [SLEEP_MS]]
 *        (call: SLEEP_MS, when given, is how long the process stays after its calls)
 *        (clock: the leaf calls clock_gettime(CLOCK_PROCESS_CPUTIME_ID), a system call made
 *        from the vdso)
 *        unwind_work dlopen LIB N     at each SIGUSR1: call clock_gettime(CLOCK_PROCESS_CPUTIME_ID)
 *                                     from main; dlopen LIB (libunwind_dl.so) and call its chain
 *                                     (which ends in the same call) once through uw_dl; call it
 *                                     N times
 *        unwind_work deep N [DELAY_MS [REPEAT]]  recursion N deep, then uw_leaf; REPEAT times
 *        unwind_work badsp [DELAY_MS]     uw_leaf on a stack whose caller's frame is unmapped,
 *                                         then uw_leaf once from main
 * DELAY_MS -1 waits for SIGUSR1 (test/workloads/wl_start.h).
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unwind_work.h"
#include "wl_start.h"

UW_FN long uw_leaf(long x)
{
	UW_KEEP(x);
	return x + 1;
}

UW_FN static long uw_4(long x)
{
	x = uwl_1(x);
	UW_KEEP(x);
	return x + 1;
}

UW_FN static long uw_3a(long x)
{
	x = uw_4(x);
	UW_KEEP(x);
	return x + 1;
}

UW_FN static long uw_3b(long x)
{
	x = uw_4(x);
	UW_KEEP(x);
	return x + 2;
}

UW_FN static long uw_2(long x, int path_b)
{
	x = path_b ? uw_3b(x) : uw_3a(x);
	UW_KEEP(x);
	return x + 1;
}

UW_FN static long uw_1(long x, int path_b)
{
	x = uw_2(x, path_b);
	UW_KEEP(x);
	return x + 1;
}

UW_FN static long uw_run(long n, int path_b)
{
	long x = 0;

	for (long i = 0; i < n; i++) {
		x += uw_1(i, path_b);
		UW_KEEP(x);
	}
	return x;
}

UW_FN static long uw_recurse(long n)
{
	long x = n ? uw_recurse(n - 1) : uw_leaf(n);

	UW_KEEP(x);
	return x + 1;
}

/* the chain of a library loaded with dlopen(), called through a pointer */
UW_FN static long uw_dl(long (*fn)(long), long x)
{
	x = fn(x);
	UW_KEEP(x);
	return x + 1;
}

static int run_dlopen(const char *lib, long n)
{
	long (*fn)(long), x = 0;
	struct timespec ts;
	void *h;

	if (wl_wait_start(-1))
		return 1;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* seen, and indexed, before the dlopen */
	if (wl_wait_start(-1))
		return 1;
	h = dlopen(lib, RTLD_NOW);
	fn = h ? (long (*)(long))dlsym(h, "uwd_1") : NULL;
	if (!fn)
		return 1;
	x += uw_dl(fn, 0);
	if (wl_wait_start(-1))
		return 1;
	for (long i = 0; i < n; i++) {
		x += uw_dl(fn, i);
		UW_KEEP(x);
	}
	return x < 0;
}

/*
 * uw_badsp(top): call uw_leaf with rsp at top, the end of a mapped page whose next page is
 * unmapped, without telling the call frame information: the unwinder finds uw_badsp's frame
 * (CFA = rsp + 16) in the unmapped page, and rbp points there too.
 */
#if defined(__x86_64__)
long uw_badsp(void *top);
__asm__(".text\n"
	".globl uw_badsp\n"
	".type uw_badsp,@function\n"
	"uw_badsp:\n"
	".cfi_startproc\n"
	"	push %rbx\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbx, -16\n"
	"	push %rbp\n"
	".cfi_def_cfa_offset 24\n"
	".cfi_offset %rbp, -24\n"
	"	mov %rsp, %rbx\n"
	"	mov %rdi, %rsp\n"
	"	mov %rdi, %rbp\n"
	"	xor %edi, %edi\n"
	"	call uw_leaf\n"
	"	mov %rbx, %rsp\n"
	"	pop %rbp\n"
	".cfi_def_cfa_offset 16\n"
	"	pop %rbx\n"
	".cfi_def_cfa_offset 8\n"
	"	ret\n"
	".cfi_endproc\n"
	".size uw_badsp, .-uw_badsp\n");

static int run_badsp(void)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED || munmap(p + page, page))
		return 1;
	uw_badsp(p + page);
	uw_leaf(1);
	return 0;
}
#else
static int run_badsp(void)
{
	return 2; /* the frame set up by hand above is x86-64's */
}
#endif

/* The pipe's writer: one byte each SLEEP_MS, A + B in all. */
static int start_writer(long n, long ms, int *fd)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

		close(p[0]);
		for (long i = 0; i < n; i++) {
			nanosleep(&ts, NULL);
			if (write(p[1], "x", 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	*fd = p[0];
	return pid;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "call";
	long a = argc > 2 ? atol(argv[2]) : 3;
	long b = argc > 3 ? atol(argv[3]) : 5;
	long delay = argc > 4 ? atol(argv[4]) : 0;
	long ms = argc > 5 ? atol(argv[5]) : 10;
	int fd = -1, writer = 0;

	if (!strcmp(mode, "deep")) {
		long repeat = argc > 4 ? atol(argv[4]) : 1, x = 0;

		if (wl_wait_start(argc > 3 ? atol(argv[3]) : 0))
			return 1;
		for (long i = 0; i < repeat; i++) {
			x += uw_recurse(a);
			UW_KEEP(x);
		}
		return x < 0;
	}
	if (!strcmp(mode, "badsp")) {
		if (wl_wait_start(argc > 2 ? atol(argv[2]) : 0))
			return 1;
		return run_badsp();
	}
	if (!strcmp(mode, "dlopen"))
		return argc > 3 ? run_dlopen(argv[2], atol(argv[3])) : 2;
	if (!strcmp(mode, "sleep"))
		uwl_setup(UW_SLEEP, ms, -1);
	else if (!strcmp(mode, "clock"))
		uwl_setup(UW_CLOCK, 0, -1);
	else if (!strcmp(mode, "pipe"))
		uwl_setup(UW_PIPE, 0, -1);
	else if (strcmp(mode, "call"))
		return 2;
	if (wl_wait_start(delay))
		return 1;
	if (!strcmp(mode, "pipe")) {
		writer = start_writer(a + b, ms, &fd);
		if (writer < 0)
			return 1;
		uwl_setup(UW_PIPE, 0, fd);
	}
	uw_run(a, 0);
	uw_run(b, 1);
	if (writer > 0)
		waitpid(writer, NULL, 0);
	if (!strcmp(mode, "call") && argc > 5) {
		struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

		nanosleep(&ts, NULL);
	}
	return 0;
}
