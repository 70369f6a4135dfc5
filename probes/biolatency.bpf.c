// SPDX-License-Identifier: GPL-2.0
/*
 * biolatency: block request latency as log2 histograms, from issue to completion, or with
 * -Q from creation (block_io_start, or the accounting kprobes) or insertion into the I/O
 * scheduler, whichever is seen first. Keyed by disk (-D) or by operation and flags (-F).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bt_block.bpf.h"
#include "bt_common.bpf.h"
#include "bt_inflight.bpf.h"
#include "biolatency.h"

const volatile __u32 filter_dev = 0; /* -d: the disk, kernel encoding; 0: all */
const volatile bool per_disk = false;
const volatile bool per_flags = false;
const volatile bool op_only = false; /* per_flags keyed by the operation alone (the exporter) */
const volatile __u64 unit_ns = 1000;
const volatile bool require_task = false;  /* -c: only requests created by a task it passes */
const volatile bool queued = false;	   /* -Q */
const volatile bool task_from_bio = false; /* -c, no creation probe: the task noted at getrq */

/* Requests in flight: in-flight table 0 (cmd/biolatency.c). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64); /* the struct request's address */
	__type(value, struct biolat_start);
} starts SEC(".maps");

/* One entry without -D or -F; with them allocated as keys appear (cmd/biolatency.c). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 1024);
	__type(key, struct biolat_key);
	__type(value, struct biolat_val);
} dist SEC(".maps");

static const struct biolat_val zero_val; /* too big for the stack */

/* Requests freed with no completion probe run for them (docs/biosnoop.md, "Unseen
 * completions"), found when the next request takes the address. */
__u64 unseen = 0;
/* Requests left out of the histograms: a new key found dist full, or no memory for it. */
__u64 uncounted = 0;
/*
 * With a process filter (-c): I/O of the processes it passes that made no request of its own,
 * a bio added to a request already made, or a request that joined another one. It completes
 * in that request, which counts only if its own maker passes the filter.
 */
__u64 merged = 0;
/* Set at exit: no new requests, so that what is still in flight can be told from the lost. */
bool draining = false;

/*
 * Creation (attached with -Q or -c) and insertion (with -Q): the submitter is running at
 * creation, so the process filter is decided there; without creation probes, at insertion
 * or issue. With -Q the first of them starts the clock.
 */
static __always_inline bool submitter_passes(__u64 bio)
{
	struct bt_bio_task t;

	if (task_from_bio)
		return bt_bio_take(bio, &t); /* noted only when it passed */
	return !bt_filtered_out();
}

static __always_inline int bt_block_merged(void *ctx, __u64 key, __u64 bio)
{
	struct biolat_start *s = bpf_map_lookup_elem(&starts, &key);

	/* merged at insertion, before any probe saw it, its submitter is known by its bio only */
	if (require_task && (s ? s->passed : task_from_bio && submitter_passes(bio)))
		__sync_fetch_and_add(&merged, 1);
	bpf_map_delete_elem(&starts, &key);
	return 0;
}

/* Attached with -c only: the submitter is running. */
static __always_inline int bt_block_bio_merged(void *ctx)
{
	if (require_task && !draining && !bt_filtered_out())
		__sync_fetch_and_add(&merged, 1);
	return 0;
}

/* The entry at key is an earlier request's, issued and never completed: count it. */
static __always_inline bool stale(struct biolat_start *s, __u64 bio, bool created)
{
	if (!s || !s->issued || (!created && s->bio == bio))
		return false;
	__sync_fetch_and_add(&unseen, 1);
	return true;
}

static __always_inline int on_queue(__u64 key, __u64 bio, bool created)
{
	struct biolat_start *s = bpf_map_lookup_elem(&starts, &key);
	struct biolat_start st = {};

	if (draining)
		return 0;
	if (stale(s, bio, created))
		s = NULL;
	if (s && !created) {
		if (queued && !s->queued) {
			s->ts = bpf_ktime_get_ns();
			s->queued = true;
		}
		return 0;
	}
	st.passed = require_task && submitter_passes(bio);
	if (queued) {
		st.ts = bpf_ktime_get_ns();
		st.queued = true;
	}
	bt_inflight_put(&starts, 0, &key, &st, BPF_ANY);
	return 0;
}

static __always_inline int bt_block_created(void *ctx, __u64 key)
{
	return on_queue(key, 0, true);
}

static __always_inline int bt_block_inserted(void *ctx, __u64 key, __u64 bio)
{
	return on_queue(key, bio, false);
}

static __always_inline int bt_block_issued(void *ctx, __u64 key, struct bt_rq *rq)
{
	struct biolat_start *s = bpf_map_lookup_elem(&starts, &key);
	struct biolat_start st = {};

	if (filter_dev && rq->dev != filter_dev) {
		if (s)
			bpf_map_delete_elem(&starts, &key);
		return 0;
	}
	/* draining: nothing new, and an entry left behind stays for the count at exit */
	if (draining && (!s || (s->issued && s->bio != rq->bio)))
		return 0;
	if (stale(s, rq->bio, false))
		s = NULL;
	if (!s) {
		st.passed = require_task && submitter_passes(rq->bio);
		bt_inflight_put(&starts, 0, &key, &st, BPF_ANY);
		s = bpf_map_lookup_elem(&starts, &key);
		if (!s)
			return 0;
	}
	if (!s->queued) /* -Q: the time runs from the queue start */
		s->ts = bpf_ktime_get_ns();
	s->dev = rq->dev;
	s->op_flags = rq->op | rq->flags << 8;
	s->bio = rq->bio;
	s->issued = true;
	return 0;
}

static __always_inline int bt_block_completed(void *ctx, __u64 key)
{
	struct biolat_start *s = bpf_map_lookup_elem(&starts, &key);
	struct biolat_key k = {};
	struct biolat_val *v;
	__u64 delta;
	__u32 slot;

	if (!s)
		return 0; /* issued before tracing began, or filtered out */
	if (!s->ts || !s->issued || (require_task && !s->passed)) {
		bpf_map_delete_elem(&starts, &key);
		return 0;
	}
	delta = bpf_ktime_get_ns() - s->ts;
	if (per_disk)
		k.dev = s->dev;
	if (per_flags)
		k.flags = op_only ? s->op_flags & 0xff : s->op_flags;
	bpf_map_delete_elem(&starts, &key);
	v = bpf_map_lookup_elem(&dist, &k);
	if (!v) {
		bpf_map_update_elem(&dist, &k, &zero_val, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&dist, &k);
		if (!v) {
			__sync_fetch_and_add(&uncounted, 1);
			return 0;
		}
	}
	delta /= unit_ns;
	slot = bt_log2_slot(delta);
	if (slot >= BIOLAT_SLOTS)
		slot = BIOLAT_SLOTS - 1;
	/* per-CPU, but a completion interrupt can preempt a completion in process context */
	__sync_fetch_and_add(&v->slots[slot], 1);
	__sync_fetch_and_add(&v->total, delta);
	__sync_fetch_and_add(&v->count, 1);
	return 0;
}

#include "bt_block_progs.bpf.h"

char LICENSE[] SEC("license") = "GPL";
