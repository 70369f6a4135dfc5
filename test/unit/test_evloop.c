// SPDX-License-Identifier: GPL-2.0
/* lib/run/bt_evloop: sources, drain at the end, tick, duration, errors, closed stdout, signals. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bt_evloop.h"
#include "bt_loop.h"
#include "harness.h"

static long long ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

struct src {
	int fd;
	int calls;
	int bytes;
	int stop_after; /* return this after so many calls with data; 0: never */
	int ret;
};

/* Read what is there (non-blocking when drained at the end). */
static int pipe_ready(void *ctx)
{
	struct src *s = ctx;
	char buf[64];
	ssize_t n;

	s->calls++;
	n = read(s->fd, buf, sizeof(buf));
	if (n > 0)
		s->bytes += (int)n;
	if (s->stop_after && s->calls >= s->stop_after)
		return s->ret;
	return 0;
}

static void make_pipe(int p[2])
{
	CHECK(pipe2(p, O_NONBLOCK | O_CLOEXEC) == 0);
}

static void test_pipe_source_and_stop(void)
{
	struct bt_evloop *loop = NULL;
	struct src s = { .stop_after = 1, .ret = BT_EVLOOP_STOP };
	int p[2];

	make_pipe(p);
	s.fd = p[0];
	CHECK(write(p[1], "abc", 3) == 3);
	CHECK_INT(bt_evloop__new(&loop), 0);
	CHECK_INT(bt_evloop__add_fd(loop, p[0], pipe_ready, &s, 0), 0);
	CHECK_INT(bt_evloop__run(loop), 0);
	CHECK_INT(s.calls, 1); /* no drain flag: not called again at the end */
	CHECK_INT(s.bytes, 3);
	bt_evloop__free(loop);
	close(p[0]);
	close(p[1]);
}

static void test_drain_at_stop(void)
{
	struct bt_evloop *loop = NULL;
	struct src buf = { 0 }, stopper = { .stop_after = 1, .ret = BT_EVLOOP_STOP };
	uint64_t one = 1;
	int p[2], efd;

	make_pipe(p);
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	CHECK(efd >= 0);
	buf.fd = p[0];
	stopper.fd = efd;
	CHECK(write(efd, &one, sizeof(one)) == sizeof(one));
	CHECK_INT(bt_evloop__new(&loop), 0);
	CHECK_INT(bt_evloop__add_fd(loop, p[0], pipe_ready, &buf, BT_EVLOOP_DRAIN), 0);
	CHECK_INT(bt_evloop__add_fd(loop, efd, pipe_ready, &stopper, 0), 0);
	CHECK_INT(bt_evloop__run(loop), 0);
	CHECK_INT(stopper.calls, 1);
	CHECK_INT(buf.calls, 1); /* never readable: called once, by the drain */
	bt_evloop__free(loop);
	close(p[0]);
	close(p[1]);
	close(efd);
}

struct ticker {
	int ticks;
	int stop_at;
};

static int on_tick(void *ctx)
{
	struct ticker *t = ctx;

	return ++t->ticks >= t->stop_at ? BT_EVLOOP_STOP : 0;
}

static void test_tick(void)
{
	struct bt_evloop *loop = NULL;
	struct ticker t = { .stop_at = 3 };
	long long start, took;

	CHECK_INT(bt_evloop__new(&loop), 0);
	bt_evloop__set_tick(loop, 30, on_tick, &t);
	start = ms_now();
	CHECK_INT(bt_evloop__run(loop), 0);
	took = ms_now() - start;
	CHECK_INT(t.ticks, 3);
	CHECK(took >= 90);
	CHECK(took < 2000);
	bt_evloop__free(loop);
}

static void test_duration_with_tick(void)
{
	struct bt_evloop *loop = NULL;
	struct ticker t = { .stop_at = 1000 };
	long long start, took;

	CHECK_INT(bt_evloop__new(&loop), 0);
	bt_evloop__set_tick(loop, 20, on_tick, &t);
	bt_evloop__set_duration(loop, 300);
	start = ms_now();
	CHECK_INT(bt_evloop__run(loop), 0);
	took = ms_now() - start;
	CHECK(took >= 300);
	CHECK(took < 3000);
	/*
	 * Ticks run beside the duration, at most one per 20 ms that passed (a late wake-up skips
	 * the missed ones rather than bunching them). How many is up to the scheduler: on a
	 * loaded machine a 20 ms timer can wake 60 ms late, so no lower bound but one.
	 */
	CHECK(t.ticks >= 1);
	CHECK(t.ticks <= 15 && t.ticks <= took / 20);
	bt_evloop__free(loop);
}

static void test_error_ends_without_drain(void)
{
	struct bt_evloop *loop = NULL;
	struct src bad = { .stop_after = 1, .ret = -EIO }, buf = { 0 };
	int p[2], q[2];

	make_pipe(p);
	make_pipe(q);
	bad.fd = p[0];
	buf.fd = q[0];
	CHECK(write(p[1], "x", 1) == 1);
	CHECK_INT(bt_evloop__new(&loop), 0);
	CHECK_INT(bt_evloop__add_fd(loop, q[0], pipe_ready, &buf, BT_EVLOOP_DRAIN), 0);
	CHECK_INT(bt_evloop__add_fd(loop, p[0], pipe_ready, &bad, 0), 0);
	CHECK_INT(bt_evloop__run(loop), -EIO);
	CHECK_INT(buf.calls, 0);
	bt_evloop__free(loop);
	close(p[0]);
	close(p[1]);
	close(q[0]);
	close(q[1]);
}

static void test_epipe_from_callback_is_normal(void)
{
	struct bt_evloop *loop = NULL;
	struct src s = { .stop_after = 1, .ret = -EPIPE }, buf = { 0 };
	int p[2], q[2];

	make_pipe(p);
	make_pipe(q);
	s.fd = p[0];
	buf.fd = q[0];
	CHECK(write(p[1], "x", 1) == 1);
	CHECK_INT(bt_evloop__new(&loop), 0);
	CHECK_INT(bt_evloop__add_fd(loop, q[0], pipe_ready, &buf, BT_EVLOOP_DRAIN), 0);
	CHECK_INT(bt_evloop__add_fd(loop, p[0], pipe_ready, &s, 0), 0);
	CHECK_INT(bt_evloop__run(loop), 0);
	CHECK_INT(buf.calls, 0); /* nothing can be printed any more: no drain */
	bt_evloop__free(loop);
	close(p[0]);
	close(p[1]);
	close(q[0]);
	close(q[1]);
}

static void test_bad_fd(void)
{
	struct bt_evloop *loop = NULL;
	struct src s = { 0 };

	CHECK_INT(bt_evloop__new(&loop), 0);
	CHECK_INT(bt_evloop__add_fd(loop, -1, pipe_ready, &s, 0), -EINVAL);
	CHECK_INT(bt_evloop__add_fd(loop, 12345, pipe_ready, &s, 0), -EBADF);
	bt_evloop__free(loop);
	bt_evloop__free(NULL);
}

/* BT_EVLOOP_POLL: called on the timer though never readable (a batched ring buffer). */
static void test_poll_on_timer(void)
{
	struct bt_evloop *loop = NULL;
	struct src quiet = { 0 };
	int p[2];

	make_pipe(p);
	quiet.fd = p[0];
	CHECK_INT(bt_evloop__new(&loop), 0);
	CHECK_INT(bt_evloop__add_fd(loop, p[0], pipe_ready, &quiet, BT_EVLOOP_POLL), 0);
	bt_evloop__set_duration(loop, 6 * BT_EVENTS_BATCH_MS);
	CHECK_INT(bt_evloop__run(loop), 0);
	/*
	 * every BT_EVENTS_BATCH_MS: 5 times in 6 periods, fewer if the machine is busy (a starved
	 * one wakes the first timer past the end: once); never readable, so any call is a timer's
	 */
	CHECK(quiet.calls >= 1 && quiet.calls <= 6);
	bt_evloop__free(loop);
	close(p[0]);
	close(p[1]);
}

/*
 * BT_EVLOOP_AGAIN: a polled source that found a flood is called again at once. Five AGAINs,
 * then a stop: the six calls come without the loop once sleeping in between (no voluntary
 * context switch of the thread), where without AGAIN each waits for the next period. Told by
 * the thread's sleeps, not by calls per period: a starved machine wakes the first timer past
 * any duration a test can afford (CI: 1 call in 3 periods).
 */
struct flood {
	int calls;
	long sleeps_first; /* the thread's voluntary switches at the first call */
	long sleeps_last;  /* and at the last */
};

static long thread_sleeps(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nvcsw;
}

static int flooded(void *ctx)
{
	struct flood *f = ctx;

	if (++f->calls == 1)
		f->sleeps_first = thread_sleeps();
	if (f->calls < 6)
		return BT_EVLOOP_AGAIN;
	f->sleeps_last = thread_sleeps();
	return BT_EVLOOP_STOP;
}

static void test_poll_again(void)
{
	struct bt_evloop *loop = NULL;
	struct flood f = { 0 };
	int p[2];

	make_pipe(p);
	CHECK_INT(bt_evloop__new(&loop), 0);
	CHECK_INT(bt_evloop__add_fd(loop, p[0], flooded, &f, BT_EVLOOP_POLL), 0);
	/* a bound only: the stop ends it after the first period */
	bt_evloop__set_duration(loop, 60000);
	CHECK_INT(bt_evloop__run(loop), 0);
	CHECK_INT(f.calls, 6);
	CHECK(f.sleeps_first >= 0);
	CHECK_INT(f.sleeps_last - f.sleeps_first, 0);
	bt_evloop__free(loop);
	close(p[0]);
	close(p[1]);
}

/* stdout a pipe whose reader has gone: the loop ends at once, exit status 0. */
static void test_closed_stdout_pipe(void)
{
	struct bt_evloop *loop = NULL;
	int saved, p[2];
	long long start, took;
	int rc;

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	CHECK(pipe(p) == 0);
	CHECK(dup2(p[1], STDOUT_FILENO) == STDOUT_FILENO);
	close(p[1]);
	close(p[0]);
	rc = bt_evloop__new(&loop);
	start = ms_now();
	if (!rc)
		rc = bt_evloop__run(loop); /* no source, no duration: only the pipe can end it */
	took = ms_now() - start;
	bt_evloop__free(loop);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	clearerr(stdout);
	CHECK_INT(rc, 0);
	CHECK(took < 1000);
}

/* Last: once a stop signal has arrived, bt_stop_requested() stays true in this process. */
static void test_stop_signal_drains(void)
{
	struct bt_evloop *loop = NULL;
	struct src buf = { 0 };
	int p[2];

	make_pipe(p);
	buf.fd = p[0];
	CHECK_INT(bt_signals_init(), 0);
	CHECK(bt_signals_fd() >= 0);
	CHECK_INT(bt_evloop__new(&loop), 0);
	CHECK_INT(bt_evloop__add_fd(loop, p[0], pipe_ready, &buf, BT_EVLOOP_DRAIN), 0);
	CHECK(raise(SIGTERM) == 0); /* blocked: waits in the signalfd */
	CHECK_INT(bt_evloop__run(loop), 0);
	CHECK(bt_stop_requested());
	CHECK_INT(buf.calls, 1);
	/* a signal that came before the loop started ends it at once, still draining */
	CHECK_INT(bt_evloop__run(loop), 0);
	CHECK_INT(buf.calls, 2);
	bt_evloop__free(loop);
	close(p[0]);
	close(p[1]);
}

/* A flood-checking source that reads the stop signal itself, then goes on (returns 0). */
static int swallow_stop(void *ctx)
{
	char buf[64];

	while (read(*(int *)ctx, buf, sizeof(buf)) > 0)
		;
	raise(SIGINT);
	(void)bt_stop_requested(); /* takes it off the signalfd */
	return 0;
}

/*
 * The loop ends on a stop that a source took off the signalfd: the signalfd never wakes it
 * again (a perf buffer's callbacks cannot pass on their -EINTR). In a child, as the stop is
 * for good.
 */
static void test_stop_taken_by_source(void)
{
	struct bt_evloop *loop = NULL;
	int p[2], status = -1;
	pid_t child;

	child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		alarm(3);
		if (bt_signals_init() || pipe2(p, O_NONBLOCK) || bt_evloop__new(&loop) ||
		    bt_evloop__add_fd(loop, p[0], swallow_stop, &p[0], BT_EVLOOP_DRAIN) ||
		    write(p[1], "x", 1) != 1)
			_exit(2);
		_exit(bt_evloop__run(loop) == 0 ? 0 : 1);
	}
	CHECK(waitpid(child, &status, 0) == child);
	CHECK(WIFEXITED(status)); /* not killed by the alarm: the loop saw the stop */
	CHECK_INT(WEXITSTATUS(status), 0);
}

int main(void)
{
	alarm(20); /* a hung loop fails the test instead of stalling the tier */
	BT_RUN(test_pipe_source_and_stop);
	BT_RUN(test_drain_at_stop);
	BT_RUN(test_tick);
	BT_RUN(test_duration_with_tick);
	BT_RUN(test_error_ends_without_drain);
	BT_RUN(test_epipe_from_callback_is_normal);
	BT_RUN(test_bad_fd);
	BT_RUN(test_poll_on_timer);
	BT_RUN(test_poll_again);
	BT_RUN(test_closed_stdout_pipe);
	BT_RUN(test_stop_taken_by_source);
	BT_RUN(test_stop_signal_drains);
	return bt_test_done();
}
