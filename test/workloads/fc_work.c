// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with exact call counts for funccount's live test:
 *
 *	fc_work A B L S
 *
 * waits for SIGUSR1 (so the tracer can attach first), then calls bt_work_a() A times,
 * bt_work_b() B times, bt_lib_work() (in libfc_worklib.so) L times, makes S getppid system
 * calls, fires the USDT probe fc_work:tick A times (fc_work:tock never), and exits. Without
 * a signal within 90 s it exits with status 3.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fc_sdt.h"

int bt_lib_work(int x);

static volatile int sink;

__attribute__((noinline)) void bt_work_a(void)
{
	__asm__ volatile("" ::: "memory");
	sink++;
}

__attribute__((noinline)) void bt_work_b(void)
{
	__asm__ volatile("" ::: "memory");
	sink += 2;
}

#if defined(__x86_64__)
/*
 * Never called: a function whose first instruction (VEX-encoded vmovd, as in glibc's AVX2
 * strchr) x86 uprobes cannot single-step, so the kernel refuses it (ENOTSUPP), and with it a
 * whole uprobe.multi batch (live/funccount).
 */
__asm__(".text\n"
	".globl bt_vex_refused\n"
	".type bt_vex_refused, @function\n"
	"bt_vex_refused:\n"
	"\tvmovd %esi, %xmm0\n"
	"\tret\n"
	".size bt_vex_refused, .-bt_vex_refused\n");
#endif

int main(int argc, char **argv)
{
	long a, b, l, s, i;
	sigset_t set;
	int sig;

	if (argc != 5)
		return 2;
	a = atol(argv[1]);
	b = atol(argv[2]);
	l = atol(argv[3]);
	s = atol(argv[4]);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	alarm(90); /* past the guest tests' 60 s wait for a tool under TCG */
	if (sigwait(&set, &sig) || sig != SIGUSR1)
		return 3;
	for (i = 0; i < a; i++) {
		bt_work_a();
		FC_SDT_PROBE(fc_work, tick);
	}
	if (a < 0)
		FC_SDT_PROBE(fc_work, tock);
	for (i = 0; i < b; i++)
		bt_work_b();
	for (i = 0; i < l; i++)
		sink = bt_lib_work(sink);
	/* the raw system call: glibc may not cache getppid, but be explicit */
	for (i = 0; i < s; i++)
		syscall(SYS_getppid);
	return 0;
}
