/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The run of a per-event tool (opensnoop, biosnoop, stacksnoop, funcslower), written once: the
 * tool's event buffer, woken in batches (bt_events__batch()) and read in one loop
 * (lib/run/bt_evloop.h) beside what must be read before the events (process announcements), a
 * tick, a duration, a command run under --exec, Ctrl-C and a closed stdout; then the lost
 * events and the tool's final summary. Every tool says the same things when it fails.
 *
 *	struct bt_evrun run = { .map = skel->maps.events, .on_event = on_event, .ctx = &s,
 *				.duration_ms = opts.duration * 1000ULL, .header = print_header,
 *				.end = summary };
 *
 *	err = bt_evrun__configure(&run, skel->obj);   // before load
 *	... load, attach ...
 *	err = bt_evrun__run(&run);   // opens the buffer, prints the header, reads until Ctrl-C,
 *				     // the duration, --exec's end or `| head`
 *	bt_evrun__free(&run);        // in the cleanup path; a run never opened is fine
 *
 * Batching: the BPF side wakes the reader only once a quarter of the ring waits unread, and
 * the loop looks every BT_EVENTS_BATCH_MS besides, so an event is printed at most that much
 * after it happened, and at the end (Ctrl-C, the duration) every event still buffered is
 * printed before the summary. A perf buffer (kernels without ring buffers) wakes the reader
 * at every event, as before.
 */
#ifndef BT_EVRUN_H
#define BT_EVRUN_H

#include <stdbool.h>
#include <bpf/libbpf.h>

#include "bt_events.h"
#include "bt_evloop.h"
#include "bt_exec.h"
#include "bt_inflight.h"

/* Look for Ctrl-C and a closed stdout this often while a buffer keeps refilling. */
#define BT_EVRUN_CHECK_EVERY 256

struct bt_evrun {
	struct bpf_map *map; /* the tool's BT_EVENT_MAP */
	/*
	 * One event: 0, or -errno to end the run (-EPIPE: stdout's reader has gone, a normal
	 * end). Called in the order the buffer holds the events.
	 */
	bt_event_fn on_event;
	void *ctx;
	/*
	 * Read before the events at every wake-up, e.g. bt_stacks__poll (a process is
	 * snapshotted before its event is printed), and woken by before_fd when that is >= 0.
	 */
	bt_evloop_fn before;
	void *before_ctx;
	int before_fd;
	/* Every tick_ms (0: never): a tool's periodic work (bt_stacks__cycle()). */
	unsigned long long tick_ms;
	bt_evloop_fn tick;
	void *tick_ctx;
	/*
	 * Set by before(): the tick is due now, after this read (what it frees has piled up
	 * faster than its period, e.g. the snapshots of processes that exited under a churn)
	 */
	bool tick_now;
	unsigned long long duration_ms; /* 0: until Ctrl-C */
	/* --exec: released once tracing starts; its exit ends the run. NULL: none. */
	struct bt_child *child;
	/* -b: the ring buffer's size in pages (a power of two); 0: as the tool declares it */
	unsigned long buffer_pages;
	/*
	 * Once the buffer is open, before the first event and before --exec's command runs: the
	 * tool's banner and column heads (gets ctx). NULL: none.
	 */
	void (*header)(void *ctx);
	/*
	 * Set: this line (bt_banner(): an info line on stderr in JSON mode) instead of the
	 * header, for a JSON run, which has no column heads but says the probes are in.
	 */
	const char *banner;
	/*
	 * After a run that began (Ctrl-C and the duration included, not a stdout closed before
	 * it or a Ctrl-C before --exec's command ran), after the lost events are reported: the
	 * final summary. Gets the run's result and returns the tool's. NULL: none.
	 */
	int (*end)(void *ctx, int err);
	/*
	 * The tool's in-flight tables (probes/bt_inflight.bpf.h, in slot order), reported after
	 * the lost events and before end(), in the object bt_evrun__configure() was given. NULL:
	 * none.
	 */
	const struct bt_inflight_table *inflight;

	/* The run's own (zero before bt_evrun__configure() and bt_evrun__open()). */
	struct bpf_object *obj;
	struct bt_events *events;
	struct bt_evloop *loop;
	unsigned long long seen;
	long long next_tick;
	int failed; /* an event's -errno: the events after it are not printed */
	bool stop;  /* a stop request seen between events */
};

/* Before load: the event map becomes a perf buffer where the kernel has no ring buffer, and
 * wakes its reader in batches; a ring buffer of buffer_pages when set. "cannot set up the
 * event buffer: ..." on failure. */
int bt_evrun__configure(struct bt_evrun *r, struct bpf_object *obj);
/* After load: the buffer's reader and the loop (bt_evrun__run() opens a run not opened yet).
 * "cannot open the event buffer: ..." or "cannot wait for events: ..." on failure. */
int bt_evrun__open(struct bt_evrun *r, struct bpf_object *obj);
/* The same for a buffer known by its descriptor alone (tests; see bt_events__new_fd()). */
int bt_evrun__open_fd(struct bt_evrun *r, int map_fd, bool batched);
/*
 * After load: open the run unless it is (the object bt_evrun__configure() was given), print
 * the header, release --exec's command and read events until the end: 0 (Ctrl-C, the
 * duration, the command's exit, a closed stdout all end normally) or -errno ("cannot read
 * events: ...").
 */
int bt_evrun__run(struct bt_evrun *r);
/*
 * Read what waits, announcements (before) first, then the events: the loop's callback, and
 * the consume step of a tool's stack generation cycle (every event that may hold a closed
 * generation's stacks is printed). 0, BT_EVLOOP_STOP, or -errno (-EPIPE: stdout closed).
 */
int bt_evrun__consume(void *run);
void bt_evrun__free(struct bt_evrun *r);

#endif
