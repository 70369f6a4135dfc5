/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Signals and the waiting loops. SIGINT, SIGTERM and SIGHUP are blocked and read from a
 * signalfd, so a Ctrl-C never interrupts a half-printed table: the loop wakes, the tool prints
 * its final summary and returns normally, and the skeleton's destructor detaches every probe.
 * SIGPIPE is ignored; a write to a closed pipe (`| head`) then fails with EPIPE, which the
 * print paths report as "stop" (bt_output_closed()).
 */
#ifndef BT_LOOP_H
#define BT_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "bt_argp.h"

int bt_signals_init(void);
/*
 * The signalfd (-1 before bt_signals_init()), for loops that wait in their own epoll set
 * (lib/run/bt_evloop.h). When it polls readable, bt_wait(-1, 0) drains it and reports the stop.
 */
int bt_signals_fd(void);
/*
 * True once SIGINT, SIGTERM or SIGHUP has arrived; sees a pending one without blocking, so
 * long phases (resolving, attaching hundreds of probes) can check it between steps and return
 * -EINTR, which main() turns into exit 0 once a stop was requested.
 */
bool bt_stop_requested(void);
/* How many stop signals have arrived so far (a second Ctrl-C is news during a detach). */
unsigned int bt_stop_signals(void);
/*
 * In a detach loop that may be slow (hundreds of uprobes): when a stop signal arrived since
 * *seen (start it at bt_stop_signals()), print one line saying what is still being removed,
 * so a second Ctrl-C is answered rather than ignored.
 */
void bt_detach_note(unsigned int *seen, size_t left, size_t total, const char *what);

enum bt_wake {
	BT_WAKE_TIMEOUT = 0,
	BT_WAKE_SIGNAL = 1,
	BT_WAKE_FD = 2,
	BT_WAKE_RELOAD = 3, /* SIGHUP, after bt_signals_hup_reloads() */
};

/*
 * For a daemon (the exporter), on: SIGHUP is no stop but a request to re-read its
 * configuration, which bt_wait() reports as BT_WAKE_RELOAD (several arriving before it looks
 * count once). Off (the default): SIGHUP stops, as SIGINT and SIGTERM do.
 */
void bt_signals_hup_reloads(bool on);

/*
 * Wait up to timeout_ms (< 0: forever) for a stop signal or for fd (< 0: none) to become
 * readable. Returns an enum bt_wake, or -errno.
 */
int bt_wait(int fd, long timeout_ms);

/* Flush stdout; true when the reader has gone away (EPIPE) and the tool should stop. */
bool bt_output_closed(void);

/*
 * The summary loop of BCC's interval tools: every iv->interval seconds (or at Ctrl-C) call
 * print(ctx); stop after iv->count outputs, when iv->duration has passed (the last interval
 * cut short, so the trace lasts exactly that), after the output following a stop signal, or
 * as soon as the reader of a piped stdout has gone (`| head`), without waiting for the next
 * output to fail. Returns 0, or the first negative value print() returned.
 */
typedef int (*bt_print_fn)(void *ctx);
int bt_interval_loop(const struct bt_interval *iv, bt_print_fn print, void *ctx);

/*
 * BCC's -i/-d pair as an interval loop's: print every interval seconds; with a duration alone
 * the one interval is the duration; with both, stop at the duration (the last interval cut
 * short, so the trace lasts exactly that: BCC overshoots to the next multiple of the interval).
 * 0 is "not given" for either; neither: one output, at Ctrl-C.
 */
struct bt_interval bt_interval_every(unsigned long interval, unsigned long duration);

/*
 * An interval tool's hand-off once its probes are in and its banner printed: stdout flushed,
 * which also tells a reader of a file or pipe that the probes are in, then
 * bt_interval_loop(). -EPIPE without tracing when stdout has failed or its reader has gone
 * already (main judges which; what the tool reports after a run that ended well is then not
 * said), else the loop's result.
 */
int bt_interval_run(const struct bt_interval *iv, bt_print_fn print, void *ctx);

/* A descriptor to service while waiting (a ring buffer, say): ready(ctx) runs when readable. */
struct bt_poll {
	int fd;
	int (*ready)(void *ctx);
	void *ctx;
};
int bt_interval_loop_poll(const struct bt_interval *iv, bt_print_fn print, void *ctx,
			  const struct bt_poll *poll);

/* "%H:%M:%S" of now, as the -T lines print it. */
void bt_print_time(FILE *out, const char *fmt);
/* The same into buf (len bytes): a JSON member's value, say. */
void bt_format_time(char *buf, size_t len, const char *fmt);
/* Before an interval's summary, in BCC's layout: a blank line, and with -T the time of day. */
void bt_print_interval_head(bool timestamp);

#endif
