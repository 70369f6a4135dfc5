// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bt_env.h"
#include "bt_err.h"
#include "bt_events.h"
#include "bt_percpu.h"
#include "bt_rodata.h"

#define PERF_PAGES 64 /* per CPU, as BCC */

struct bt_events {
	struct ring_buffer *rb;
	struct perf_buffer *pb;
	bt_event_fn fn;
	void *ctx;
	int lost_fd;
	int sent_fd; /* the probes' bt_events_sent, -1: none */
	unsigned int lost_slot;
	unsigned long long perf_lost;
	unsigned long long read; /* events handed to fn */
	bool *closed;		 /* the probes' bt_events_closed, NULL: none */
	bool batched;
};

bool bt_events__ringbuf(void)
{
	static int cached = -1;

	if (cached < 0) {
		cached = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1;
		if (bt_env_flag("BPFTOOLS_NO_RINGBUF")) /* lets the tests exercise the perf path */
			cached = 0;
	}
	return cached;
}

int bt_events__configure(struct bpf_object *obj, struct bpf_map *map)
{
	bool ringbuf = bt_events__ringbuf();
	int err;

	err = bt_rodata_set(obj, "bt_use_ringbuf", &ringbuf, sizeof(ringbuf));
	if (err && err != -ENOENT)
		return err;
	if (ringbuf)
		return 0;
	bt_debug("no ring buffer in this kernel: '%s' becomes a perf buffer", bpf_map__name(map));
	err = bpf_map__set_type(map, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	if (!err)
		err = bpf_map__set_key_size(map, sizeof(int));
	if (!err)
		err = bpf_map__set_value_size(map, sizeof(int));
	if (!err)
		err = bpf_map__set_max_entries(map, 0); /* libbpf sizes it to the CPUs */
	return err;
}

int bt_events__batch(struct bpf_object *obj, struct bpf_map *map)
{
	__u64 bytes = bpf_map__max_entries(map) / 4;

	if (bpf_map__type(map) != BPF_MAP_TYPE_RINGBUF)
		return 0;
	return bt_rodata_set(obj, "bt_events_wakeup_bytes", &bytes, sizeof(bytes));
}

bool bt_events__batched(const struct bt_events *ev)
{
	return ev->batched;
}

static int on_ring(void *ctx, void *data, size_t size)
{
	struct bt_events *ev = ctx;

	ev->read++;
	return ev->fn(ev->ctx, data, size);
}

static void on_perf(void *ctx, int cpu, void *data, __u32 size)
{
	struct bt_events *ev = ctx;

	ev->read++;
	ev->fn(ev->ctx, data, size);
}

static void on_perf_lost(void *ctx, int cpu, __u64 n)
{
	struct bt_events *ev = ctx;

	ev->perf_lost += n;
}

static int events_new(int map_fd, bool ringbuf, int lost_fd, bool batched, bt_event_fn fn,
		      void *ctx, struct bt_events **out)
{
	struct bt_events *ev;
	int err;

	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ev->fn = fn;
	ev->ctx = ctx;
	ev->lost_fd = lost_fd;
	ev->sent_fd = -1;
	ev->batched = ringbuf && batched;
	if (ringbuf)
		ev->rb = ring_buffer__new(map_fd, on_ring, ev, NULL);
	else
		ev->pb = perf_buffer__new(map_fd, PERF_PAGES, on_perf, on_perf_lost, ev, NULL);
	if (!ev->rb && !ev->pb) {
		err = -errno;
		free(ev);
		return err;
	}
	*out = ev;
	return 0;
}

int bt_events__new(struct bpf_object *obj, struct bpf_map *map, bt_event_fn fn, void *ctx,
		   struct bt_events **out)
{
	struct bpf_map *lost = bpf_object__find_map_by_name(obj, "bt_events_lost");
	struct bpf_map *sent = bpf_object__find_map_by_name(obj, "bt_events_sent");
	__u64 bytes = 0;
	int err;

	bt_rodata_get(obj, "bt_events_wakeup_bytes", &bytes, sizeof(bytes));
	err = events_new(bpf_map__fd(map), bpf_map__type(map) == BPF_MAP_TYPE_RINGBUF,
			 lost ? bpf_map__fd(lost) : -1, bytes != 0, fn, ctx, out);
	if (err)
		return err;
	(*out)->sent_fd = sent ? bpf_map__fd(sent) : -1;
	(*out)->closed = bt_bss_var(obj, "bt_events_closed", sizeof(bool));
	return 0;
}

int bt_events__new_fd(int map_fd, bool batched, bt_event_fn fn, void *ctx, struct bt_events **out)
{
	struct bpf_map_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(map_fd, &info, &len))
		return -errno;
	return events_new(map_fd, info.type == BPF_MAP_TYPE_RINGBUF, -1, batched, fn, ctx, out);
}

void bt_events__free(struct bt_events *ev)
{
	if (!ev)
		return;
	ring_buffer__free(ev->rb);
	perf_buffer__free(ev->pb);
	free(ev);
}

void bt_events__set_lost_slot(struct bt_events *ev, unsigned int slot)
{
	ev->lost_slot = slot;
}

int bt_events__fd(const struct bt_events *ev)
{
	return ev->rb ? ring_buffer__epoll_fd(ev->rb) : perf_buffer__epoll_fd(ev->pb);
}

int bt_events__poll(void *ctx)
{
	struct bt_events *ev = ctx;
	int n;

	n = ev->rb ? ring_buffer__consume(ev->rb) : perf_buffer__consume(ev->pb);
	return n < 0 ? n : 0;
}

unsigned long long bt_events_lost_count(int lost_fd, unsigned int slot,
					unsigned long long perf_lost)
{
	uint64_t lost = 0;

	/* The kernel counts every failed output, a full perf buffer's too; its lost-sample
	 * records count the same losses again, so they only stand in for a missing counter. */
	if (lost_fd < 0 || bt_percpu_sum(lost_fd, slot, &lost, 1))
		return perf_lost;
	return lost;
}

unsigned long long bt_events__lost(const struct bt_events *ev)
{
	return bt_events_lost_count(ev->lost_fd, ev->lost_slot, ev->perf_lost);
}

void bt_events__reset_lost(struct bt_events *ev)
{
	if (!ev)
		return;
	if (ev->lost_fd >= 0)
		bt_percpu_zero(ev->lost_fd, ev->lost_slot, 1);
	ev->perf_lost = 0;
}

void bt_events__report_lost(const struct bt_events *ev)
{
	unsigned long long lost = ev ? bt_events__lost(ev) : 0;

	if (lost)
		bt_warn("%llu events lost", lost);
}

/*
 * A program that read bt_events_closed just before it was set may still be writing its event:
 * programs run for microseconds, a preempted one (a preemptible kernel) for a time slice.
 */
#define CLOSE_WAIT_MS 20

bool bt_events__close(struct bt_events *ev)
{
	const struct timespec wait = { 0, CLOSE_WAIT_MS * 1000000L };

	if (!ev || !ev->closed)
		return false;
	if (*(volatile bool *)ev->closed)
		return true;
	*(volatile bool *)ev->closed = true;
	nanosleep(&wait, NULL);
	return true;
}

unsigned long long bt_events__unread(const struct bt_events *ev)
{
	uint64_t sent = 0;

	if (!ev || ev->sent_fd < 0 || bt_percpu_sum(ev->sent_fd, ev->lost_slot, &sent, 1))
		return 0;
	bt_debug("events: %llu written, %llu read, %llu lost", (unsigned long long)sent, ev->read,
		 bt_events__lost(ev));
	return sent > ev->read ? sent - ev->read : 0;
}
