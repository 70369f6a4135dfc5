// SPDX-License-Identifier: GPL-2.0
/*
 * A workload with known latencies for funclatency's tests:
 *
 *	funclatency_work L S R G
 *
 * waits for SIGUSR1 (so the tracer can attach first), then calls
 *   fl_sleep_long()  L times: sleeps 5 ms   (usecs 4096 -> 8191, msecs 4 -> 7)
 *   fl_sleep_short() S times: sleeps 1.5 ms (usecs 1024 -> 2047, msecs 1)
 *   fl_nest(3)       R times: recurses 4 levels deep, each level sleeping 1.5 ms after its
 *                    inner call returns, so level k (0 = innermost) takes (k + 1) * 1.5 ms
 * and makes G getppid system calls, then exits. Every sleep is one clock_nanosleep system
 * call (kernel: hrtimer_nanosleep, do_nanosleep). Without a signal within 90 s it exits 3.
 */
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile int sink;

static void sleep_us(long us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = us % 1000000 * 1000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts))
		;
}

__attribute__((noinline)) void fl_sleep_long(void)
{
	sleep_us(5000);
	sink++;
}

__attribute__((noinline)) void fl_sleep_short(void)
{
	sleep_us(1500);
	sink++;
}

/* Not a tail call: the sleep comes after the inner call returns. */
__attribute__((noinline)) void fl_nest(int n)
{
	if (n > 0)
		fl_nest(n - 1);
	sleep_us(1500);
	sink++;
}

int main(int argc, char **argv)
{
	long l, s, r, g, i;
	sigset_t set;
	int sig;

	if (argc != 5)
		return 2;
	l = atol(argv[1]);
	s = atol(argv[2]);
	r = atol(argv[3]);
	g = atol(argv[4]);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	alarm(90); /* past the guest tests' 60 s wait for a tool under TCG */
	if (sigwait(&set, &sig) || sig != SIGUSR1)
		return 3;
	for (i = 0; i < l; i++)
		fl_sleep_long();
	for (i = 0; i < s; i++)
		fl_sleep_short();
	for (i = 0; i < r; i++)
		fl_nest(3);
	for (i = 0; i < g; i++)
		syscall(SYS_getppid);
	return 0;
}
