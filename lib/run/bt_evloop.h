/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One event loop for the per-event tools: every ring/perf buffer, the stop signal (the
 * signalfd of lib/run/bt_loop.h), a closed stdout, an optional duration and an optional periodic
 * tick, all waited for in one epoll set.
 *
 *	struct bt_evloop *loop = NULL;
 *
 *	err = bt_evloop__new(&loop);   // a per-event tool's: lib/run/bt_evrun.h
 *	if (!err)
 *		err = bt_evloop__add_fd(loop, bt_events__fd(ev), read_events, &s,
 *					BT_EVLOOP_DRAIN);
 *	if (!err)
 *		err = bt_evloop__add_fd(loop, pidfd, child_exited, &s, 0);  // any readable fd
 *	bt_evloop__set_duration(loop, opts.duration * 1000);          // 0: none
 *	bt_evloop__set_tick(loop, 1000, print_interval, &s);          // 0: none
 *	if (!err)
 *		err = bt_evloop__run(loop);   // 0 on every normal end, Ctrl-C and `| head` too
 *	bt_evloop__free(loop);
 *
 * Callbacks (a source's ready(), the tick) return 0 to go on, BT_EVLOOP_STOP to end the loop
 * normally, or -errno to end it with that error; -EPIPE from a callback means the reader of
 * stdout has gone and is a normal end. After each round of callbacks the loop flushes stdout,
 * so rows show as they come, and ends normally when the flush finds the reader gone (EPIPE);
 * a pipe on stdout is also watched, so a reader that leaves while nothing is printed ends the
 * loop at once rather than at the next row.
 *
 * At a normal end (stop signal, duration over, BT_EVLOOP_STOP, but not a closed stdout) the
 * sources added with BT_EVLOOP_DRAIN (every event buffer) get one last ready() call, so that
 * events already in the buffers are printed. The tick is not called at the end: a tool
 * that prints a final summary does it after bt_evloop__run() returns.
 */
#ifndef BT_EVLOOP_H
#define BT_EVLOOP_H

#include "bt_events.h"

#define BT_EVLOOP_STOP 1
/*
 * From a BT_EVLOOP_POLL source: it found many events (a flood its writers wake no one for),
 * call it again at once rather than in BT_EVENTS_BATCH_MS, after a look at the stop signal,
 * the duration and the tick. Otherwise as 0.
 */
#define BT_EVLOOP_AGAIN 2

/* Call the source once more when the loop ends normally (buffers: print what is left). */
#define BT_EVLOOP_DRAIN (1u << 0)
/* Also call it every BT_EVENTS_BATCH_MS, readable or not (a buffer that wakes no one for
 * each event: bt_events__batch()). */
#define BT_EVLOOP_POLL (1u << 1)

struct bt_evloop;

typedef int (*bt_evloop_fn)(void *ctx);

int bt_evloop__new(struct bt_evloop **out);
void bt_evloop__free(struct bt_evloop *loop); /* NULL is fine; does not close added fds */

/* Call ready(ctx) whenever fd is readable (level-triggered). 0 or -errno. */
int bt_evloop__add_fd(struct bt_evloop *loop, int fd, bt_evloop_fn ready, void *ctx,
		      unsigned int flags);

/* End normally after ms milliseconds from bt_evloop__run(); 0: no limit. */
void bt_evloop__set_duration(struct bt_evloop *loop, unsigned long long ms);
/* Call tick(ctx) every ms milliseconds from bt_evloop__run(); ms 0: no tick. */
void bt_evloop__set_tick(struct bt_evloop *loop, unsigned long long ms, bt_evloop_fn tick,
			 void *ctx);

/*
 * Wait and dispatch until a stop signal, the duration, a closed stdout or a callback's
 * BT_EVLOOP_STOP: 0. A callback's -errno (other than -EPIPE) or a failed wait: that -errno.
 */
int bt_evloop__run(struct bt_evloop *loop);
/*
 * Whether the run has ended and the BT_EVLOOP_DRAIN sources are being read one last time: a
 * source that checks for Ctrl-C while a flood keeps it busy stops at the first one while
 * running, and only at a second one while draining (what was buffered by the first happened
 * before it, and is printed).
 */
bool bt_evloop__draining(const struct bt_evloop *loop);

#endif
