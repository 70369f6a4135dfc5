/* SPDX-License-Identifier: GPL-2.0 */
/* How a workload waits for its tracer: DELAY_MS of sleep, or with -1 until SIGUSR1 arrives. */
#ifndef WL_START_H
#define WL_START_H

#include <signal.h>
#include <unistd.h>

static inline int wl_wait_start(long delay_ms)
{
	sigset_t set;
	int sig;

	if (delay_ms >= 0)
		return usleep(delay_ms * 1000);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	return sigwait(&set, &sig);
}

#endif
