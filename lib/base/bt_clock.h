/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Milliseconds on the monotonic clock, and timed waits on it: a deadline that setting the
 * wall clock back or forth does not stretch or cut short.
 */
#ifndef BT_CLOCK_H
#define BT_CLOCK_H

#include <pthread.h>
#include <time.h>

static inline long long bt_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Nanoseconds on the same clock: bpf_ktime_get_ns()'s, to compare with a probe's times. */
static inline unsigned long long bt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Seconds on the same clock, to the nanosecond: what a step took. */
static inline double bt_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A time of bt_now_ms() as pthread_cond_timedwait() takes it, for a bt_cond_init_monotonic() cond. */
static inline struct timespec bt_abs_ms(long long ms)
{
	return (struct timespec){ .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 };
}

static inline void bt_cond_init_monotonic(pthread_cond_t *cond)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(cond, &attr);
	pthread_condattr_destroy(&attr);
}

#endif
