// SPDX-License-Identifier: GPL-2.0
/*
 * lib/run/bt_loop: bt_wait's wake reasons, the interval loop's count, errors and stop, BCC's
 * -i/-d pair, the hand-off that does not start once stdout's reader has gone, and stop
 * signals seen without waiting (pending in the signalfd) as the attach paths need them, and a
 * one-shot run's wait that no stop cuts short.
 * Signals are process-wide and sticky, so the cases that send one run last, in order.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bt_loop.h"
#include "harness.h"

static long long ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void test_wait_timeout(void)
{
	long long t0 = ms_now();

	CHECK_INT(bt_wait(-1, 60), BT_WAKE_TIMEOUT);
	CHECK(ms_now() - t0 >= 60);
	CHECK(ms_now() - t0 < 1000);
	CHECK(!bt_stop_requested());
}

static void test_wait_fd(void)
{
	int p[2];
	long long t0;

	CHECK_INT(pipe(p), 0);
	CHECK_INT(write(p[1], "x", 1), 1);
	t0 = ms_now();
	CHECK_INT(bt_wait(p[0], 5000), BT_WAKE_FD);
	CHECK(ms_now() - t0 < 1000);
	close(p[0]);
	close(p[1]);
}

struct printer {
	int calls;
	int fail_at; /* return -EIO on this call; 0: never */
	int stop_at; /* raise SIGINT during this call; 0: never */
};

static int print_cb(void *ctx)
{
	struct printer *p = ctx;

	p->calls++;
	if (p->stop_at && p->calls == p->stop_at)
		raise(SIGINT);
	return p->fail_at && p->calls == p->fail_at ? -EIO : 0;
}

static void test_interval_count(void)
{
	struct bt_interval iv = { .interval = 1, .count = 2 };
	struct printer p = { 0 };
	long long t0 = ms_now();

	CHECK_INT(bt_interval_loop(&iv, print_cb, &p), 0);
	CHECK_INT(p.calls, 2);
	CHECK(ms_now() - t0 >= 2000 - 20);
	CHECK(ms_now() - t0 < 3500);
}

static void test_interval_error(void)
{
	struct bt_interval iv = { .interval = 1, .count = 5 };
	struct printer p = { .fail_at = 1 };

	CHECK_INT(bt_interval_loop(&iv, print_cb, &p), -EIO);
	CHECK_INT(p.calls, 1);
}

/* -d cuts the last interval short: interval 1 s, duration 1 s, one output after 1 s. */
static void test_interval_duration(void)
{
	struct bt_interval iv = { .interval = 5, .duration = 1 };
	struct printer p = { 0 };
	long long t0 = ms_now();

	CHECK_INT(bt_interval_loop(&iv, print_cb, &p), 0);
	CHECK_INT(p.calls, 1);
	CHECK(ms_now() - t0 >= 1000 - 20);
	CHECK(ms_now() - t0 < 2500);
}

/* BCC's -i/-d: either alone, both, or neither (one output at Ctrl-C). */
static void test_interval_every(void)
{
	struct bt_interval iv = bt_interval_every(0, 0);

	CHECK_INT(iv.interval, BT_FOREVER);
	CHECK_INT(iv.duration, 0);
	CHECK_INT(iv.count, 0);
	iv = bt_interval_every(0, 10);
	CHECK_INT(iv.interval, 10);
	CHECK_INT(iv.duration, 10);
	iv = bt_interval_every(2, 10);
	CHECK_INT(iv.interval, 2);
	CHECK_INT(iv.duration, 10);
	iv = bt_interval_every(3, 0);
	CHECK_INT(iv.interval, 3);
	CHECK_INT(iv.duration, 0);
}

/*
 * bt_interval_run: with stdout's reader gone before the first interval (the banner's flush
 * fails), -EPIPE and no output at all; with it there, the loop.
 */
static void test_interval_run(void)
{
	struct bt_interval iv = { .interval = 1, .count = 1 };
	struct printer p = { 0 };
	int fds[2], saved = dup(STDOUT_FILENO);

	CHECK(saved >= 0 && !pipe(fds));
	if (saved < 0)
		return;
	fflush(stdout);
	close(fds[0]);
	dup2(fds[1], STDOUT_FILENO);
	close(fds[1]);
	printf("Tracing... Hit Ctrl-C to end.\n");
	CHECK_INT(bt_interval_run(&iv, print_cb, &p), -EPIPE);
	CHECK_INT(p.calls, 0);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	clearerr(stdout);
	CHECK_INT(bt_interval_run(&iv, print_cb, &p), 0);
	CHECK_INT(p.calls, 1);
}

/* From here on a stop signal has arrived. */
/* A daemon's SIGHUP: a reload, once for two, and no stop; off again, it stops as before. */
static void test_hup_reloads(void)
{
	long long t0;

	bt_signals_hup_reloads(true);
	raise(SIGHUP);
	raise(SIGHUP);
	t0 = ms_now();
	CHECK_INT(bt_wait(-1, 5000), BT_WAKE_RELOAD);
	CHECK(ms_now() - t0 < 1000);
	CHECK(!bt_stop_requested());
	CHECK_INT(bt_stop_signals(), 0);
	CHECK_INT(bt_wait(-1, 50), BT_WAKE_TIMEOUT);
	/* seen by bt_stop_requested() first: bt_wait() still reports it */
	raise(SIGHUP);
	CHECK(!bt_stop_requested());
	CHECK_INT(bt_wait(-1, 5000), BT_WAKE_RELOAD);
	bt_signals_hup_reloads(false);
	CHECK(!bt_stop_requested());
}

static void *stop_from_a_thread(void *arg)
{
	long long *seen_at = arg, t0;

	usleep(100 * 1000); /* the loop's thread is in bt_wait() by now */
	kill(getpid(), SIGTERM);
	for (t0 = ms_now(); ms_now() - t0 < 3000;) {
		if (bt_stop_requested()) {
			*seen_at = ms_now();
			break;
		}
	}
	return NULL;
}

/*
 * A stop that a worker thread asks about while the loop's thread waits: the loop wakes with
 * it at once, and the worker sees it too. When the worker's bt_stop_requested() read the
 * signalfd, the loop's poll() found nothing left to read and slept on (stackcount waited
 * forever). In a child: stops are sticky.
 */
static void test_stop_beside_a_thread(void)
{
	pid_t pid = fork();
	int status = 0;

	CHECK(pid >= 0);
	if (pid == 0) {
		long long seen_at = 0, t0 = ms_now();
		pthread_t t;
		int r;

		if (pthread_create(&t, NULL, stop_from_a_thread, &seen_at))
			_exit(3);
		r = bt_wait(-1, 3000);
		pthread_join(t, NULL);
		_exit(r != BT_WAKE_SIGNAL ? 1 : ms_now() - t0 > 1500 ? 2 : !seen_at ? 4 : 0);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status));
	CHECK_INT(WEXITSTATUS(status), 0);
}

static void test_stop_seen_without_waiting(void)
{
	unsigned int before = bt_stop_signals();

	CHECK_INT(before, 0);
	CHECK(!bt_stop_requested());
	/* blocked, so pending in the signalfd: no bt_wait() is needed to see it */
	raise(SIGTERM);
	CHECK(bt_stop_requested());
	CHECK_INT(bt_stop_signals(), 1);
	raise(SIGHUP);
	CHECK_INT(bt_stop_signals(), 2);
	CHECK(bt_stop_requested()); /* sticky */
}

static void test_wait_after_stop(void)
{
	long long t0 = ms_now();

	CHECK_INT(bt_wait(-1, 5000), BT_WAKE_SIGNAL);
	CHECK(ms_now() - t0 < 1000);
}

/* After a stop: one final output at once (the summary), then return 0. */
static void test_interval_after_stop(void)
{
	struct bt_interval iv = { .interval = BT_FOREVER };
	struct printer p = { 0 };
	long long t0 = ms_now();

	CHECK_INT(bt_interval_loop(&iv, print_cb, &p), 0);
	CHECK_INT(p.calls, 1);
	CHECK(ms_now() - t0 < 1000);
}

/* A signal during the output ends the loop after that output, not one interval later. */
static void test_stop_during_print(void)
{
	struct bt_interval iv = { .interval = BT_FOREVER };
	struct printer p = { .stop_at = 1 };
	unsigned int n = bt_stop_signals();

	CHECK_INT(bt_interval_loop(&iv, print_cb, &p), 0);
	CHECK_INT(p.calls, 1);
	CHECK_INT(bt_stop_signals(), n + 1);
}

/* A pipe's reader for bt_poll_for(): reads what is there, counts the calls. */
static int drain_pipe(void *ctx)
{
	int *fd_calls = ctx;
	char buf[64];

	fd_calls[1]++;
	return read(fd_calls[0], buf, sizeof(buf)) < 0 ? -errno : 0;
}

/*
 * bt_poll_for(), a one-shot run's wait: after a stop (signals are stopped here by now), it
 * still lasts its whole time, servicing its descriptor meanwhile, and leaves the stop signals
 * unread.
 */
static void test_poll_for_after_stop(void)
{
	int p[2], fd_calls[2];
	unsigned int n = bt_stop_signals();
	struct bt_poll poll;
	long long t0;

	CHECK_INT(pipe(p), 0);
	fd_calls[0] = p[0];
	fd_calls[1] = 0;
	poll = (struct bt_poll){ p[0], drain_pipe, fd_calls };
	raise(SIGINT); /* pending in the signalfd, unread */
	CHECK_INT(write(p[1], "x", 1), 1);
	t0 = ms_now();
	CHECK_INT(bt_poll_for(200, &poll), 0);
	CHECK(ms_now() - t0 >= 200);
	CHECK(ms_now() - t0 < 2000);
	CHECK_INT(fd_calls[1], 1);
	t0 = ms_now();
	CHECK_INT(bt_poll_for(50, NULL), 0);
	CHECK(ms_now() - t0 >= 50);
	CHECK_INT(bt_stop_signals(), n + 1); /* read only now */
	close(p[0]);
	close(p[1]);
}

/* bt_detach_note: one line per new signal, nothing otherwise. */
static void test_detach_note(void)
{
	char path[] = "/tmp/bt-loop-XXXXXX", buf[512] = "";
	int fd = mkstemp(path), saved = dup(STDERR_FILENO);
	unsigned int seen = bt_stop_signals();
	ssize_t n;

	CHECK(fd >= 0 && saved >= 0);
	if (fd < 0 || saved < 0)
		return;
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	bt_detach_note(&seen, 7, 9, "probes"); /* no new signal: silent */
	raise(SIGINT);
	bt_detach_note(&seen, 5, 9, "probes");
	bt_detach_note(&seen, 4, 9, "probes"); /* the same signal: silent */
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	CHECK(n > 0);
	CHECK_STR(buf,
		  "bpftools: still detaching: waiting for the kernel to remove 5 of 9 probes\n");
	close(fd);
	unlink(path);
}

int main(void)
{
	if (bt_signals_init()) {
		fprintf(stderr, "bt_signals_init failed\n");
		return 1;
	}
	BT_RUN(test_wait_timeout);
	BT_RUN(test_wait_fd);
	BT_RUN(test_interval_count);
	BT_RUN(test_interval_error);
	BT_RUN(test_interval_duration);
	BT_RUN(test_interval_every);
	BT_RUN(test_interval_run);
	BT_RUN(test_hup_reloads);
	BT_RUN(test_stop_beside_a_thread);
	BT_RUN(test_stop_seen_without_waiting);
	BT_RUN(test_wait_after_stop);
	BT_RUN(test_interval_after_stop);
	BT_RUN(test_stop_during_print);
	BT_RUN(test_poll_for_after_stop);
	BT_RUN(test_detach_note);
	return bt_test_done();
}
