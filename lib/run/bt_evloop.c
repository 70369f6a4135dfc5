// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bt_clock.h"
#include "bt_evloop.h"
#include "bt_loop.h"

/* epoll tags of the two descriptors the loop watches itself; sources are tagged by index. */
#define TAG_SIGNAL UINT32_MAX
#define TAG_STDOUT (UINT32_MAX - 1)

struct source {
	int fd;
	bt_evloop_fn ready;
	void *ctx;
	unsigned int flags;
};

struct bt_evloop {
	int epfd;
	struct source *src;
	size_t n;
	unsigned long long duration_ms;
	unsigned long long tick_ms;
	bt_evloop_fn tick;
	void *tick_ctx;
	bool poll;     /* some source has BT_EVLOOP_POLL */
	bool draining; /* bt_evloop__run() has ended and is draining the sources */
};

static int watch(struct bt_evloop *loop, int fd, uint32_t events, uint32_t tag)
{
	struct epoll_event ev = { .events = events, .data.u32 = tag };

	return epoll_ctl(loop->epfd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

int bt_evloop__new(struct bt_evloop **out)
{
	struct bt_evloop *loop;
	struct stat st;
	int err;

	loop = calloc(1, sizeof(*loop));
	if (!loop)
		return -ENOMEM;
	loop->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (loop->epfd < 0) {
		err = -errno;
		free(loop);
		return err;
	}
	if (bt_signals_fd() >= 0) {
		err = watch(loop, bt_signals_fd(), EPOLLIN, TAG_SIGNAL);
		if (err)
			goto fail;
	}
	/*
	 * The write end of a pipe reports EPOLLERR once its reader has closed: stop then, not
	 * at the next row. Other kinds of stdout (a file, a terminal) find out when written.
	 */
	if (fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode)) {
		err = watch(loop, STDOUT_FILENO, 0, TAG_STDOUT);
		if (err)
			goto fail;
	}
	*out = loop;
	return 0;
fail:
	bt_evloop__free(loop);
	return err;
}

void bt_evloop__free(struct bt_evloop *loop)
{
	if (!loop)
		return;
	close(loop->epfd);
	free(loop->src);
	free(loop);
}

int bt_evloop__add_fd(struct bt_evloop *loop, int fd, bt_evloop_fn ready, void *ctx,
		      unsigned int flags)
{
	struct source *src;
	int err;

	if (fd < 0 || !ready)
		return -EINVAL;
	src = realloc(loop->src, (loop->n + 1) * sizeof(*src));
	if (!src)
		return -ENOMEM;
	loop->src = src;
	err = watch(loop, fd, EPOLLIN, (uint32_t)loop->n);
	if (err)
		return err;
	src[loop->n++] = (struct source){ fd, ready, ctx, flags };
	loop->poll |= flags & BT_EVLOOP_POLL;
	return 0;
}

void bt_evloop__set_duration(struct bt_evloop *loop, unsigned long long ms)
{
	loop->duration_ms = ms;
}

void bt_evloop__set_tick(struct bt_evloop *loop, unsigned long long ms, bt_evloop_fn tick,
			 void *ctx)
{
	loop->tick_ms = tick ? ms : 0;
	loop->tick = tick;
	loop->tick_ctx = ctx;
}

enum outcome {
	GO_ON,
	STOP,	/* a normal end: drain the buffers */
	CLOSED, /* stdout's reader has gone: nothing more can be printed */
	FAILED,
};

/* What a callback's return value means for the loop; *err keeps a failure. */
static enum outcome judge(int rc, int *err)
{
	if (rc == BT_EVLOOP_STOP)
		return STOP;
	if (rc == -EPIPE)
		return CLOSED;
	if (rc < 0) {
		*err = rc;
		return FAILED;
	}
	return GO_ON;
}

static enum outcome worse(enum outcome a, enum outcome b)
{
	return a > b ? a : b;
}

static long long deadline_of(long long a, long long b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}

/* Call a source; *again when a BT_EVLOOP_POLL source asks to be called again at once. */
static enum outcome call(struct source *src, int *err, bool *again)
{
	int rc = src->ready(src->ctx);

	if (rc == BT_EVLOOP_AGAIN && (src->flags & BT_EVLOOP_POLL) && again)
		*again = true;
	return judge(rc, err);
}

/* Call every source with one of flags; the worst outcome. */
static enum outcome call_flagged(struct bt_evloop *loop, unsigned int flags, int *err, bool *again)
{
	enum outcome out = GO_ON;
	size_t i;

	for (i = 0; i < loop->n && out < CLOSED; i++)
		if (loop->src[i].flags & flags)
			out = worse(out, call(&loop->src[i], err, again));
	return out;
}

bool bt_evloop__draining(const struct bt_evloop *loop)
{
	return loop && loop->draining;
}

static int drain(struct bt_evloop *loop)
{
	int err = 0;
	enum outcome out;

	loop->draining = true;
	out = call_flagged(loop, BT_EVLOOP_DRAIN, &err, NULL);

	bt_output_closed(); /* flush; a reader gone by now changes nothing */
	return out == FAILED ? err : 0;
}

int bt_evloop__run(struct bt_evloop *loop)
{
	long long start = bt_now_ms();
	long long end = loop->duration_ms ? start + (long long)loop->duration_ms : -1;
	long long next_tick = loop->tick_ms ? start + (long long)loop->tick_ms : -1;
	long long next_poll = loop->poll ? start + BT_EVENTS_BATCH_MS : -1;
	enum outcome out = bt_stop_requested() ? STOP : GO_ON;
	struct epoll_event evs[16];
	int err = 0;

	while (out == GO_ON) {
		long long deadline = deadline_of(deadline_of(end, next_tick), next_poll), now;
		bool again = false;
		int timeout = -1, n, i;

		if (deadline >= 0) {
			long long left = deadline - bt_now_ms();

			timeout = left < 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left;
		}
		n = epoll_wait(loop->epfd, evs, sizeof(evs) / sizeof(evs[0]), timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (i = 0; i < n && out < CLOSED; i++) {
			uint32_t tag = evs[i].data.u32;
			struct source *src;

			if (tag == TAG_SIGNAL) {
				if (bt_wait(-1, 0) == BT_WAKE_SIGNAL)
					out = worse(out, STOP);
				continue;
			}
			if (tag == TAG_STDOUT) {
				if (evs[i].events & (EPOLLERR | EPOLLHUP))
					out = CLOSED;
				continue;
			}
			src = &loop->src[tag];
			out = worse(out, call(src, &err, &again));
		}
		/*
		 * A source may have read the stop signal off the signalfd itself (to leave a
		 * flood), and a perf buffer's callback cannot pass its -EINTR on: the flag
		 * stays, the signalfd does not wake us again.
		 */
		if (out == GO_ON && bt_stop_requested())
			out = STOP;
		now = bt_now_ms();
		if (out < CLOSED && next_poll >= 0 && now >= next_poll) {
			out = worse(out, call_flagged(loop, BT_EVLOOP_POLL, &err, &again));
			next_poll = now + BT_EVENTS_BATCH_MS;
		}
		if (again) /* a flood: read on at once, after a look at signals and timers */
			next_poll = now;
		if (out < CLOSED && next_tick >= 0 && now >= next_tick) {
			out = worse(out, judge(loop->tick(loop->tick_ctx), &err));
			next_tick += (long long)loop->tick_ms;
			if (next_tick <= now) /* a slow tick: skip the missed ones */
				next_tick = now + (long long)loop->tick_ms;
		}
		if (end >= 0 && now >= end)
			out = worse(out, STOP);
		if (out < CLOSED && bt_output_closed())
			out = CLOSED;
	}
	if (out == FAILED)
		return err;
	if (out == CLOSED)
		return 0;
	return drain(loop);
}
