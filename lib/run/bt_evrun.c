// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bt_clock.h"
#include "bt_err.h"
#include "bt_evrun.h"
#include "bt_loop.h"

/* Without a pidfd (before 5.3), look for --exec's end this often. */
#define CHILD_POLL_MS 100

/* -b: a ring buffer's size (a perf buffer's is per CPU, sized by the kernel's default) */
static int size_buffer(struct bt_evrun *r)
{
	unsigned long bytes = r->buffer_pages * sysconf(_SC_PAGESIZE);
	int err;

	if (!r->buffer_pages || !bt_events__ringbuf())
		return 0;
	err = bpf_map__set_max_entries(r->map, bytes);
	bt_map_sized_by(bpf_map__name(r->map), "a ring buffer of %lu MiB (-b %lu)", bytes >> 20,
			r->buffer_pages);
	return err;
}

int bt_evrun__configure(struct bt_evrun *r, struct bpf_object *obj)
{
	int err = size_buffer(r);

	r->obj = obj;
	if (!err)
		err = bt_events__configure(obj, r->map);
	/* a wake-up per event would be most of what tracing costs the traced task */
	if (!err)
		err = bt_events__batch(obj, r->map);
	if (err)
		bt_err("cannot set up the event buffer: %s", strerror(-err));
	return err;
}

/*
 * A probe that fires faster than we print would keep the buffer's reader busy for good: look
 * for a stop now and then. The first one ends tracing, and what is buffered by then is still
 * printed (the loop drains it: those events happened before the Ctrl-C); a second one, while
 * that drain runs, gives the rest up.
 */
static int check_stop(struct bt_evrun *r)
{
	if (bt_output_closed()) {
		r->failed = -EPIPE;
		return -EPIPE;
	}
	if (!bt_evloop__draining(r->loop)) {
		if (!bt_stop_requested())
			return 0;
		r->stop = true;
		return -EINTR;
	}
	if (bt_stop_signals() < 2)
		return 0;
	bt_warn("stopped again: events still buffered are not printed");
	r->failed = -EINTR;
	return -EINTR;
}

static int on_event(void *ctx, const void *data, size_t size)
{
	struct bt_evrun *r = ctx;
	int err;

	/* a perf buffer hands out the rest of its events whatever a callback returns */
	if (r->failed)
		return r->failed;
	err = r->on_event(r->ctx, data, size);
	if (err < 0) {
		r->failed = err;
		return err;
	}
	if (r->stop || ++r->seen % BT_EVRUN_CHECK_EVERY)
		return 0;
	return check_stop(r);
}

int bt_evrun__consume(void *run)
{
	struct bt_evrun *r = run;
	int err = 0;

	r->failed = 0;
	r->stop = false;
	if (r->before)
		err = r->before(r->before_ctx);
	if (!err)
		err = bt_events__poll(r->events);
	if (r->failed == -EINTR) /* stopped twice */
		return BT_EVLOOP_STOP;
	if (r->failed)
		return r->failed;
	if (r->stop)
		return BT_EVLOOP_STOP;
	return err;
}

/*
 * The loop's callback: a read that found this many events or more is called again at once.
 * A batched buffer wakes no one until a quarter of it waits: a reader that slept between the
 * reads of a flood would leave those events to be lost.
 */
#define BUSY_EVENTS 256

static int on_ready(void *run)
{
	struct bt_evrun *r = run;
	unsigned long long seen = r->seen;
	int err = bt_evrun__consume(r);

	if (!err && r->tick_now && r->tick) {
		r->tick_now = false;
		r->next_tick = bt_now_ms() + (long long)r->tick_ms;
		err = r->tick(r->tick_ctx);
	}
	return !err && r->seen - seen >= BUSY_EVENTS ? BT_EVLOOP_AGAIN : err;
}

static int child_exited(void *ctx)
{
	struct bt_evrun *r = ctx;

	return bt_child__exited(r->child) ? BT_EVLOOP_STOP : 0;
}

/* The loop's tick: the tool's, and a look for --exec's end where no pidfd tells it. */
static int on_tick(void *ctx)
{
	struct bt_evrun *r = ctx;
	long long now;

	if (!r->child || r->child->pidfd >= 0)
		return r->tick(r->tick_ctx);
	if (bt_child__exited(r->child))
		return BT_EVLOOP_STOP;
	if (!r->tick_ms || (now = bt_now_ms()) < r->next_tick)
		return 0;
	r->next_tick = now + (long long)r->tick_ms;
	return r->tick(r->tick_ctx);
}

static int open_loop(struct bt_evrun *r, struct bt_events *ev)
{
	unsigned int flags = BT_EVLOOP_DRAIN;
	bool poll_child;
	int err;

	r->events = ev;
	if (bt_events__batched(ev)) /* nobody wakes the loop for these: it looks on a timer */
		flags |= BT_EVLOOP_POLL;
	err = bt_evloop__new(&r->loop);
	if (!err)
		err = bt_evloop__add_fd(r->loop, bt_events__fd(ev), on_ready, r, flags);
	if (!err && r->before && r->before_fd >= 0)
		err = bt_evloop__add_fd(r->loop, r->before_fd, on_ready, r, 0);
	if (!err && r->child && r->child->pidfd >= 0)
		err = bt_evloop__add_fd(r->loop, r->child->pidfd, child_exited, r, 0);
	if (err) {
		bt_err("cannot wait for events: %s", strerror(-err));
		return err;
	}
	poll_child = r->child && r->child->pidfd < 0;
	if (!r->tick)
		r->tick_ms = 0;
	r->next_tick = bt_now_ms() + (long long)r->tick_ms;
	/*
	 * looking for the child's end as well: at the tool's tick where it is the shorter (a
	 * tick of 30 ms ran every 100 ms, and a child ending at 200 ms left one tick run)
	 */
	if (poll_child || r->tick_ms)
		bt_evloop__set_tick(r->loop,
				    poll_child && (!r->tick_ms || r->tick_ms > CHILD_POLL_MS)
					    ? CHILD_POLL_MS
					    : r->tick_ms,
				    on_tick, r);
	bt_evloop__set_duration(r->loop, r->duration_ms);
	return 0;
}

int bt_evrun__open(struct bt_evrun *r, struct bpf_object *obj)
{
	struct bt_events *ev = NULL;
	int err;

	err = bt_events__new(obj, r->map, on_event, r, &ev);
	if (err) {
		bt_err("cannot open the event buffer: %s", strerror(-err));
		return err;
	}
	return open_loop(r, ev);
}

int bt_evrun__open_fd(struct bt_evrun *r, int map_fd, bool batched)
{
	struct bt_events *ev = NULL;
	int err;

	err = bt_events__new_fd(map_fd, batched, on_event, r, &ev);
	if (err) {
		bt_err("cannot open the event buffer: %s", strerror(-err));
		return err;
	}
	return open_loop(r, ev);
}

/*
 * After the loop's own drain: close the probes' output and read once more, so that an event
 * written between that drain and the programs' detach is printed too; then every event the
 * probes wrote has been read, which is checked. Not after a closed stdout or a second Ctrl-C.
 */
static int last_read(struct bt_evrun *r)
{
	unsigned long long unread;
	int err;

	if (bt_output_closed() || r->failed || !bt_events__close(r->events))
		return 0;
	err = bt_evrun__consume(r);
	bt_output_closed(); /* flush */
	if (err == BT_EVLOOP_STOP)
		err = 0;
	if (err || r->failed)
		return err == -EPIPE ? 0 : err;
	unread = bt_events__unread(r->events);
	if (unread)
		bt_warn("%llu events written by the probes were never read", unread);
	return 0;
}

int bt_evrun__run(struct bt_evrun *r)
{
	int err;

	if (!r->loop) {
		err = bt_evrun__open(r, r->obj);
		if (err)
			return err;
	}
	if (r->banner)
		bt_banner(stdout, "%s", r->banner);
	else if (r->header)
		r->header(r->ctx);
	if (bt_output_closed())
		return 0;
	if (r->child) {
		/* Ctrl-C while setting up: the command never runs (bt_child__end() kills it) */
		if (bt_wait(-1, 0) == BT_WAKE_SIGNAL)
			return 0;
		err = bt_child__release(r->child);
		if (err)
			return err;
	}
	err = bt_evloop__run(r->loop);
	if (!err)
		err = last_read(r);
	if (err)
		bt_err("cannot read events: %s", strerror(-err));
	if (!ferror(stdout)) /* after `| head`, events left unread are nobody's loss */
		bt_events__report_lost(r->events);
	if (r->inflight)
		bt_inflight_report(r->obj, r->inflight);
	if (r->end)
		err = r->end(r->ctx, err);
	return err;
}

void bt_evrun__free(struct bt_evrun *r)
{
	bt_evloop__free(r->loop);
	bt_events__free(r->events);
	r->loop = NULL;
	r->events = NULL;
}
