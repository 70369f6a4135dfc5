// SPDX-License-Identifier: GPL-2.0
/*
 * A JIT frame: main -> jw_caller -> jit_stub_fn (machine code written into an anonymous
 * executable mapping, named only by /tmp/perf-PID.map) -> jw_probed (the probe). The stub keeps
 * a frame pointer (push rbp; mov rbp, rsp; mov rax, jw_probed; call rax; pop rbp; ret), so a
 * frame-pointer walk passes through it. Usage: jit_work N: writes the map, waits for SIGUSR1,
 * makes N calls through the stub, and removes the map on exit.
 * x86-64 only; elsewhere it exits 77.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "wl_start.h"

volatile unsigned long jw_sink;

__attribute__((noinline, noclone)) unsigned long jw_probed(void)
{
	return ++jw_sink;
}

typedef unsigned long (*stub_fn)(void);

__attribute__((noinline, noclone)) unsigned long jw_caller(stub_fn stub)
{
	unsigned long r = stub();

	jw_sink += r; /* not a tail call */
	return r;
}

int main(int argc, char **argv)
{
#if defined(__x86_64__)
	long n = argc > 1 ? atol(argv[1]) : 1, i, pg = sysconf(_SC_PAGESIZE);
	uint64_t target = (uint64_t)(uintptr_t)jw_probed;
	/* push %rbp; mov %rsp,%rbp; movabs $jw_probed,%rax; call *%rax; pop %rbp; ret */
	unsigned char code[18] = {
		0x55, 0x48, 0x89, 0xe5, 0x48, 0xb8, [14] = 0xff, 0xd0, 0x5d, 0xc3
	};
	char path[64];
	unsigned char *mem;
	FILE *f;
	int rc = 0;

	memcpy(code + 6, &target, sizeof(target));
	mem = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	memcpy(mem, code, sizeof(code));
	if (mprotect(mem, pg, PROT_READ | PROT_EXEC))
		return 1;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return 1;
	fprintf(f, "%lx %zx jit_stub_fn\n", (unsigned long)(uintptr_t)mem, sizeof(code));
	if (fclose(f))
		rc = 1;
	if (!rc && wl_wait_start(-1))
		rc = 2;
	for (i = 0; !rc && i < n; i++)
		jw_caller((stub_fn)(uintptr_t)mem);
	unlink(path);
	return rc;
#else
	(void)argc;
	(void)argv;
	return 77;
#endif
}
