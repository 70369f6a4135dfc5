/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Events to user space: a ring buffer where the kernel has one (5.8+), a perf buffer
 * otherwise. Declare an event map with BT_EVENT_MAP(name); lib/bpf/bt_events.c turns it into a
 * PERF_EVENT_ARRAY before load when ring buffers are missing and sets bt_use_ringbuf, which
 * the verifier then folds, so the unused branch is never checked against the map's type.
 * Failed outputs are counted, never silently dropped.
 */
#ifndef BT_EVENTS_BPF_H
#define BT_EVENTS_BPF_H

#include "bt_event.h"

const volatile bool bt_use_ringbuf = true;
/*
 * 0: wake the reader at every event (the default). Else only once this many bytes of the
 * tool's events (BT_EVENTS_LOST_TOOL) wait unread: a wake-up costs the traced task an
 * interrupt and a scheduler call (several microseconds), and a reader that also looks on a
 * timer (bt_events__batch(), lib/run/bt_evrun.c) loses nothing by sleeping through the rest.
 * Process announcements (BT_EVENTS_LOST_PIDS) wake it at once still: the process may be gone
 * by the next look.
 */
const volatile __u64 bt_events_wakeup_bytes = 0;

#define BT_EVENT_MAP(name, bytes)                   \
	struct {                                    \
		__uint(type, BPF_MAP_TYPE_RINGBUF); \
		__uint(max_entries, bytes);         \
	} name SEC(".maps")

/*
 * Failed outputs, per CPU, one slot per kind of event so that each is reported as what it is:
 * BT_EVENTS_LOST_TOOL for a tool's own events, BT_EVENTS_LOST_PIDS for process announcements.
 * Both paths count here (a full perf buffer makes bpf_perf_event_output() fail too).
 */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BT_EVENTS_LOST_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} bt_events_lost SEC(".maps");

/*
 * Events written, per CPU and slot as bt_events_lost: at the end, everything written was read
 * (lib/bpf/bt_events.c checks it), or the run says how many were not.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BT_EVENTS_LOST_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} bt_events_sent SEC(".maps");

/*
 * Set by the reader when the run ends (bt_events__close()): nothing is written after it, so
 * that the last read of the buffer finds every event there will be. An event after the end is
 * outside the trace, neither printed nor lost.
 */
bool bt_events_closed = false;

static __always_inline void bt_event_output_to(void *ctx, void *map, __u32 lost_slot, void *data,
					       __u64 size)
{
	__u64 *lost, *sent;

	if (bt_events_closed)
		return;

	if (bt_use_ringbuf) {
		__u64 flags = 0;

		/*
		 * Woken once, by the event that brings the unread part to the threshold (its
		 * record: size and an 8-byte header, 8-aligned): past it the reader is awake and
		 * reading, and a wake-up at every event would cost each an interrupt while it
		 * lags. One unsigned compare for avail in [threshold - rec, threshold).
		 */
		if (bt_events_wakeup_bytes && lost_slot == BT_EVENTS_LOST_TOOL) {
			__u64 rec = (size + 15) & ~7ULL, from = bt_events_wakeup_bytes - rec;

			flags = bpf_ringbuf_query(map, BPF_RB_AVAIL_DATA) - from < rec
					? BPF_RB_FORCE_WAKEUP
					: BPF_RB_NO_WAKEUP;
		}
		if (!bpf_ringbuf_output(map, data, size, flags))
			goto sent;
	} else {
		if (!bpf_perf_event_output(ctx, map, BPF_F_CURRENT_CPU, data, size))
			goto sent;
	}
	lost = bpf_map_lookup_elem(&bt_events_lost, &lost_slot);
	if (lost)
		__sync_fetch_and_add(lost, 1); /* preemptible programs share a CPU's slot */
	return;
sent:
	sent = bpf_map_lookup_elem(&bt_events_sent, &lost_slot);
	if (sent)
		__sync_fetch_and_add(sent, 1);
}

static __always_inline void bt_event_output(void *ctx, void *map, void *data, __u64 size)
{
	bt_event_output_to(ctx, map, BT_EVENTS_LOST_TOOL, data, size);
}

#endif
