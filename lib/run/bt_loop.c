// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bt_clock.h"
#include "bt_err.h"
#include "bt_loop.h"
#include "bt_input.h"

static int signal_fd = -1;
/*
 * Read from any thread (a worker's long read checks it between chunks), written by the
 * thread that waits in the loops only: a signal read from the signalfd elsewhere would leave
 * that thread polling a descriptor with nothing more to say, for the rest of its wait (a
 * table read in the unwind worker took a Ctrl-C from stackcount's loop, which then waited
 * on forever: live/unwind's kept runs, twice in one day).
 */
static bool stop_requested;
static pthread_t loop_thread;
static unsigned int stop_signals; /* how many have arrived */
static bool hup_reloads;	  /* SIGHUP is a reload, not a stop */
static bool reload_requested;
/* the last stop signal: a terminal's Ctrl-C (SI_KERNEL) went to the whole pipeline */
static unsigned int last_signo;
static int last_code;

static bool input_stopped(bool pipe);

int bt_signals_init(void)
{
	sigset_t set;

	if (signal_fd >= 0)
		return 0;
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	signal_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (signal_fd < 0)
		return -errno;
	loop_thread = pthread_self();
	bt_input_set_stop(signal_fd, input_stopped);
	return 0;
}

int bt_signals_fd(void)
{
	return signal_fd;
}

/* The signalfd to wait on in this thread: the loop's only (another sees the flag it sets). */
static int signal_fd_here(void)
{
	return pthread_equal(pthread_self(), loop_thread) ? signal_fd : -1;
}

static void drain_signals(void)
{
	struct signalfd_siginfo si;

	if (signal_fd < 0 || !pthread_equal(pthread_self(), loop_thread))
		return;
	while (read(signal_fd, &si, sizeof(si)) == sizeof(si)) {
		if (hup_reloads && si.ssi_signo == SIGHUP) {
			reload_requested = true;
			continue;
		}
		__atomic_store_n(&stop_requested, true, __ATOMIC_RELEASE);
		stop_signals++;
		last_signo = si.ssi_signo;
		last_code = si.ssi_code;
	}
}

/*
 * For the reads of lib/base/bt_input.h. Reading a pipe, the first Ctrl-C typed at the terminal
 * does not stop: the writer before the '|' got it too and is printing its last output
 * (`stackcount -f | bpftools flamegraph`), whose end ends the read. A second one, SIGTERM, or
 * a signal sent to this process alone (kill) stops at once.
 */
static bool input_stopped(bool pipe)
{
	drain_signals();
	if (!stop_requested)
		return false;
	return !(pipe && stop_signals == 1 && last_signo == SIGINT && last_code == SI_KERNEL);
}

void bt_signals_hup_reloads(bool on)
{
	hup_reloads = on;
	reload_requested = false;
}

/*
 * The signals stay blocked and queued in the signalfd until read: a non-blocking read here
 * sees a Ctrl-C in any phase (resolving, loading, between two attaches), not only in the
 * wait loops.
 */
bool bt_stop_requested(void)
{
	if (!__atomic_load_n(&stop_requested, __ATOMIC_ACQUIRE))
		drain_signals();
	return __atomic_load_n(&stop_requested, __ATOMIC_ACQUIRE);
}

unsigned int bt_stop_signals(void)
{
	drain_signals();
	return stop_signals;
}

void bt_detach_note(unsigned int *seen, size_t left, size_t total, const char *what)
{
	unsigned int now = bt_stop_signals();

	if (now == *seen)
		return;
	*seen = now;
	bt_note("still detaching: waiting for the kernel to remove %zu of %zu %s", left, total,
		what);
}

int bt_wait(int fd, long timeout_ms)
{
	struct pollfd pfd[2] = {
		{ .fd = signal_fd_here(), .events = POLLIN },
		{ .fd = fd, .events = POLLIN },
	};
	long long deadline = timeout_ms < 0 ? -1 : bt_now_ms() + timeout_ms;
	int n;

	if (__atomic_load_n(&stop_requested, __ATOMIC_ACQUIRE))
		return BT_WAKE_SIGNAL;
	if (reload_requested) { /* drained by a bt_stop_requested() meanwhile */
		reload_requested = false;
		return BT_WAKE_RELOAD;
	}
	for (;;) {
		long wait = -1;

		if (deadline >= 0) {
			wait = deadline - bt_now_ms();
			if (wait < 0)
				wait = 0;
		}
		n = poll(pfd, fd >= 0 ? 2 : 1, wait > 1000000 ? 1000000 : wait);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (pfd[0].revents) {
			drain_signals();
			if (stop_requested)
				return BT_WAKE_SIGNAL;
			if (reload_requested) {
				reload_requested = false;
				return BT_WAKE_RELOAD;
			}
		}
		if (fd >= 0 && pfd[1].revents)
			return BT_WAKE_FD;
		if (deadline >= 0 && bt_now_ms() >= deadline)
			return BT_WAKE_TIMEOUT;
	}
}

bool bt_output_closed(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return false;
	return errno == EPIPE || ferror(stdout);
}

int bt_interval_loop(const struct bt_interval *iv, bt_print_fn print, void *ctx)
{
	return bt_interval_loop_poll(iv, print, ctx, NULL);
}

struct bt_interval bt_interval_every(unsigned long interval, unsigned long duration)
{
	return (struct bt_interval){
		.interval = interval ? interval : (duration ? duration : BT_FOREVER),
		.duration = duration,
	};
}

int bt_interval_run(const struct bt_interval *iv, bt_print_fn print, void *ctx)
{
	if (bt_output_closed())
		return -EPIPE;
	return bt_interval_loop(iv, print, ctx);
}

/* stdout when it is a pipe: its write end polls POLLERR once the reader has closed. */
static int stdout_pipe(void)
{
	struct stat st;

	return fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode) ? STDOUT_FILENO : -1;
}

/*
 * Wait until deadline (ms, CLOCK_MONOTONIC) servicing poll->fd meanwhile. Returns
 * BT_WAKE_TIMEOUT, BT_WAKE_SIGNAL, 1 + BT_WAKE_FD when the pipe reader left, or -errno.
 */
static int wait_until(long long deadline, const struct bt_poll *poll_fd, int *pipe_fd)
{
	for (;;) {
		struct pollfd pfd[3] = {
			{ .fd = signal_fd_here(), .events = POLLIN },
			{ .fd = poll_fd ? poll_fd->fd : -1, .events = POLLIN },
			{ .fd = *pipe_fd, .events = 0 },
		};
		long long left = deadline - bt_now_ms();
		int n, err;

		if (__atomic_load_n(&stop_requested, __ATOMIC_ACQUIRE))
			return BT_WAKE_SIGNAL;
		if (left <= 0)
			return BT_WAKE_TIMEOUT;
		n = poll(pfd, 3, left > 1000000 ? 1000000 : (int)left);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (pfd[0].revents)
			drain_signals();
		if (pfd[2].revents & (POLLERR | POLLHUP))
			return BT_WAKE_FD + 1;
		if (pfd[2].revents)
			*pipe_fd = -1; /* anything else is spurious: stop watching */
		if (pfd[1].revents) {
			err = poll_fd->ready(poll_fd->ctx);
			if (err < 0)
				return err;
		}
	}
}

int bt_interval_loop_poll(const struct bt_interval *iv, bt_print_fn print, void *ctx,
			  const struct bt_poll *poll_fd)
{
	long long end = iv->duration ? bt_now_ms() + (long long)iv->duration * 1000 : -1;
	unsigned long left = iv->count ? iv->count : BT_FOREVER;
	int pipe_fd = stdout_pipe();
	int err;

	if (poll_fd && poll_fd->fd < 0)
		poll_fd = NULL;
	for (;;) {
		long long deadline = bt_now_ms() + (long long)iv->interval * 1000;
		bool last = false;

		if (end >= 0 && deadline >= end) {
			deadline = end;
			last = true;
		}
		err = wait_until(deadline, poll_fd, &pipe_fd);
		if (err < 0)
			return err;
		if (err == BT_WAKE_FD + 1)
			return 0;
		if (poll_fd) {
			/* Announcements that raced with the timeout still get their snapshot. */
			err = poll_fd->ready(poll_fd->ctx);
			if (err < 0)
				return err;
		}
		err = print(ctx);
		if (err < 0)
			return err;
		if (bt_output_closed())
			return 0;
		if (last || bt_stop_requested() || --left == 0)
			return 0;
	}
}

int bt_poll_for(unsigned long long ms, const struct bt_poll *poll_fd)
{
	long long deadline = bt_now_ms() + (long long)ms;
	struct pollfd pfd = { .fd = poll_fd ? poll_fd->fd : -1, .events = POLLIN };
	long long left;
	int n, err;

	/* what is readable when the time is up is the caller's to read, after it stops tracing */
	while ((left = deadline - bt_now_ms()) > 0) {
		n = poll(&pfd, 1, left > 1000000 ? 1000000 : (int)left);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0 && pfd.revents) {
			err = poll_fd->ready(poll_fd->ctx);
			if (err < 0)
				return err;
		}
	}
	return 0;
}

void bt_format_time(char *buf, size_t len, const char *fmt)
{
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(buf, len, fmt, &tm);
}

void bt_print_time(FILE *out, const char *fmt)
{
	char buf[64];

	bt_format_time(buf, sizeof(buf), fmt);
	fputs(buf, out);
}

void bt_print_interval_head(bool timestamp)
{
	printf("\n");
	if (timestamp) {
		bt_print_time(stdout, "%H:%M:%S");
		printf("\n");
	}
}
