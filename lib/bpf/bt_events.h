/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user side of probes/bt_events.bpf.h: one API over ring buffers and perf buffers, with
 * lost events counted and reported ("N events lost"), never silently dropped.
 */
#ifndef BT_EVENTS_H
#define BT_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <bpf/libbpf.h>

#include "bt_event.h"

struct bt_events;

typedef int (*bt_event_fn)(void *ctx, const void *data, size_t size);

/* Before load: make 'map' a perf event array when the kernel has no ring buffer. */
int bt_events__configure(struct bpf_object *obj, struct bpf_map *map);
/*
 * Before load, after bt_events__configure(): wake the reader only once a quarter of the ring
 * buffer waits unread, not at every event; the reader looks every BT_EVENTS_BATCH_MS anyway
 * (lib/run/bt_evrun.h sees to it). Events then show up to that much later, and a traced
 * task pays about a quarter of the cost per event (a wake-up is an interrupt and a scheduler
 * call). Nothing changes on a perf buffer.
 */
#define BT_EVENTS_BATCH_MS 50
int bt_events__batch(struct bpf_object *obj, struct bpf_map *map);
/* Whether this buffer waits to be looked at on a timer (see bt_events__batch()). */
bool bt_events__batched(const struct bt_events *ev);

/* After load. */
int bt_events__new(struct bpf_object *obj, struct bpf_map *map, bt_event_fn fn, void *ctx,
		   struct bt_events **out);
/*
 * The same for a ring or perf buffer known by its descriptor alone (tests): batched says that
 * its writers wake no one for each event; no kernel counter of lost events.
 */
int bt_events__new_fd(int map_fd, bool batched, bt_event_fn fn, void *ctx, struct bt_events **out);
void bt_events__free(struct bt_events *ev); /* NULL is fine */
/* Which slot of bt_events_lost counts this map's failures (BT_EVENTS_LOST_*; default 0). */
void bt_events__set_lost_slot(struct bt_events *ev, unsigned int slot);

/* A descriptor that becomes readable when events wait (for bt_wait / struct bt_poll). */
int bt_events__fd(const struct bt_events *ev);
/* Hand every waiting event to fn without blocking; 0 or -errno. Takes a struct bt_events. */
int bt_events__poll(void *ev);
/* Events lost so far: the kernel's failed outputs plus the perf buffer's lost samples. */
unsigned long long bt_events__lost(const struct bt_events *ev);
/* Those back to 0: a run kept between outputs reports each output's own. */
void bt_events__reset_lost(struct bt_events *ev);
/*
 * The count behind bt_events__lost(): slot 'slot' of the per-CPU counter map lost_fd (the
 * probes' bt_events_lost), summed over CPUs; perf_lost (the perf buffer's lost-sample
 * records) only when that map is missing (-1) or unreadable, never added to it.
 */
unsigned long long bt_events_lost_count(int lost_fd, unsigned int slot,
					unsigned long long perf_lost);
/*
 * The end of a run: the probes write no more events (their bt_events_closed), so that one more
 * read finds every event written. False when the probes have no such switch.
 */
bool bt_events__close(struct bt_events *ev);
/*
 * After that last read: events the probes wrote that were never handed to fn (0 where the
 * probes do not count them). Anything but 0 is a fault of the reader: an event seen and
 * neither printed nor counted as lost.
 */
unsigned long long bt_events__unread(const struct bt_events *ev);
/* Print "N events lost" on stderr when there were any. */
void bt_events__report_lost(const struct bt_events *ev);
/* Whether this run uses a ring buffer (else a perf buffer). */
bool bt_events__ringbuf(void);

#endif
