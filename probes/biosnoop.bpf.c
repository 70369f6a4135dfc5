// SPDX-License-Identifier: GPL-2.0
/*
 * biosnoop: one event per completed block request, with the process that submitted it.
 *
 * A request is followed by its address from creation to completion:
 * - created (block_io_start, 6.5+; else a kprobe on [__]blk_account_io_start): the task
 *   running then is the submitter, so pid and comm are taken there;
 * - inserted into the scheduler (block_rq_insert, with -Q): the queue start when creation
 *   was not seen;
 * - issued to the driver (block_rq_issue): latency starts; disk, sector and size are read;
 * - completed (block_rq_complete, in whatever context the interrupt or the kworker runs).
 * Without a creation probe (5.x, or 6.1 where the accounting functions are inlined), the
 * submitter is noted per bio at block_getrq and taken by the request whose first bio it is;
 * without that either, the task running at insert or issue is taken, which is the submitter
 * for plugged and directly issued I/O but a kworker for requests dispatched later.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bt_block.bpf.h"
#include "bt_common.bpf.h"
#include "bt_events.bpf.h"
#include "bt_inflight.bpf.h"
#include "biosnoop.h"

const volatile __u32 filter_dev = 0;	   /* -d: the disk, kernel encoding; 0: all */
const volatile bool task_from_bio = false; /* no creation probe: the task noted at getrq */
const volatile bool task_late = false;	   /* neither: the task running at insert/issue */
const volatile bool want_pattern = false;
const volatile __u64 min_ns = 0;
const volatile bool require_task = false; /* a process filter: only requests it let through */
/* the exporter: requests and bytes added up per disk and operation, no events */
const volatile bool aggregate = false;
/* Tests (BPFTOOLS_DROP_COMPLETIONS): every Nth completion of an issued request is ignored, as
 * the kernel sometimes runs no completion program, so that their count can be checked. */
const volatile __u32 drop_completions = 0;
__u64 completions = 0;

/* Requests in flight: in-flight table 0 (cmd/biosnoop.c). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64); /* the struct request's address */
	__type(value, struct biosnoop_req);
} reqs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);   /* disk */
	__type(value, __u64); /* the sector after the last completed request */
} last_sector SEC(".maps");

BT_EVENT_MAP(events, 256 * 1024);

/* Running totals with aggregate, per CPU, never cleared (one entry without: cmd/biosnoop.c). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, BIOSNOOP_IO_KEYS);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct biosnoop_io_key);
	__type(value, struct biosnoop_io_total);
} io_totals SEC(".maps");

static __always_inline void add_total(struct biosnoop_req *r)
{
	struct biosnoop_io_key k = { .dev = r->dev, .op = r->op };
	struct biosnoop_io_total zero = {}, *t;

	t = bpf_map_lookup_elem(&io_totals, &k);
	if (!t) {
		bpf_map_update_elem(&io_totals, &k, &zero, BPF_NOEXIST);
		t = bpf_map_lookup_elem(&io_totals, &k);
		if (!t)
			return;
	}
	/* per CPU, but a completion interrupt can preempt one in process context */
	__sync_fetch_and_add(&t->requests, 1);
	__sync_fetch_and_add(&t->bytes, r->len);
}

/*
 * Requests that were issued and then freed with no completion event seen: the kernel sometimes
 * does not run the block_rq_complete program at all (docs/biosnoop.md, "Unseen completions").
 * Found when the address is taken by the next request, so the loss is reported, not silent.
 */
__u64 unseen = 0;
/*
 * Set at exit (bt_block_left()): no new requests, so that what is still in flight can be told
 * from what was lost. Request addresses go round the whole tag space (the allocator's hint moves
 * on at each request), so a lost completion is often not met again before the end: it must be
 * counted there, or its request would vanish without a word.
 */
bool draining = false;
/* Created while tracing, completed without an issue seen (a merge, a flush's own request, or a
 * skipped issue program): BPFTOOLS_DEBUG says how many. */
__u64 not_issued = 0;

static __always_inline struct biosnoop_req *req_get(__u64 key)
{
	struct biosnoop_req *r = bpf_map_lookup_elem(&reqs, &key);
	struct biosnoop_req zero = {};

	if (r)
		return r;
	bt_inflight_put(&reqs, 0, &key, &zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&reqs, &key);
}

static __always_inline void take_task(struct biosnoop_req *r)
{
	r->pid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	r->has_task = true;
}

static __always_inline int bt_block_merged(void *ctx, __u64 key, __u64 bio)
{
	bpf_map_delete_elem(&reqs, &key);
	return 0;
}

/* not attached: a merged bio has no row of its own in biosnoop either way */
static __always_inline int bt_block_bio_merged(void *ctx)
{
	return 0;
}

/* Creation: the submitter is running. */
static __always_inline int bt_block_created(void *ctx, __u64 key)
{
	struct biosnoop_req *r;

	if (draining || bt_filtered_out())
		return 0;
	r = req_get(key);
	if (!r)
		return 0;
	if (r->issue_ts) /* the previous request here was issued; its completion never came */
		__sync_fetch_and_add(&unseen, 1);
	__builtin_memset(r, 0,
			 sizeof(*r)); /* a new request: nothing of an old one at this address */
	r->queued_ts = bpf_ktime_get_ns();
	take_task(r);
	return 0;
}

/* Without a creation probe: the submitter noted for the request's first bio, or current. */
static __always_inline void task_later(struct biosnoop_req *r, __u64 bio)
{
	struct bt_bio_task t;

	if (r->has_task)
		return;
	if (task_from_bio) {
		if (bt_bio_take(bio, &t)) {
			r->pid = t.pid;
			__builtin_memcpy(r->comm, t.comm, sizeof(r->comm));
			r->has_task = true;
		}
		return;
	}
	if (task_late && !bt_filtered_out())
		take_task(r);
}

static __always_inline int bt_block_inserted(void *ctx, __u64 key, __u64 bio)
{
	struct biosnoop_req *r;

	if (draining)
		return 0;
	r = req_get(key);

	if (!r)
		return 0;
	if (!r->queued_ts)
		r->queued_ts = bpf_ktime_get_ns();
	task_later(r, bio);
	return 0;
}

static __always_inline int bt_block_issued(void *ctx, __u64 key, struct bt_rq *rq)
{
	struct biosnoop_req *r;

	if (filter_dev && rq->dev != filter_dev) {
		bpf_map_delete_elem(&reqs, &key);
		return 0;
	}
	/* draining: nothing new, and an entry left behind stays for the count at exit */
	r = draining ? bpf_map_lookup_elem(&reqs, &key) : req_get(key);
	if (!r || (draining && r->issue_ts && r->bio != rq->bio))
		return 0;
	/* Issued again: a requeue keeps its first bio; another bio is another request (no
	 * creation probe) whose predecessor here completed unseen. */
	if (r->issue_ts && r->bio != rq->bio)
		__sync_fetch_and_add(&unseen, 1);
	task_later(r, rq->bio);
	r->issue_ts = bpf_ktime_get_ns();
	r->bio = rq->bio;
	r->sector = rq->sector;
	r->dev = rq->dev;
	r->len = rq->len;
	r->op = rq->op;
	r->flags = rq->flags;
	return 0;
}

static __always_inline int bt_block_completed(void *ctx, __u64 key)
{
	struct biosnoop_event ev = {};
	struct biosnoop_req *r = bpf_map_lookup_elem(&reqs, &key);
	__u64 now = bpf_ktime_get_ns();

	if (!r)
		return 0;
	/*
	 * A plain increment, not an atomic fetch: the verifier of kernels before 5.12 refuses an
	 * atomic whose old value is used (BPF_FETCH) even in code the switch makes dead. The test
	 * that sets the switch completes one read at a time.
	 */
	if (drop_completions && r->issue_ts && r->bio &&
	    completions++ % drop_completions == drop_completions - 1)
		return 0;   /* as if the program had not run: the entry stays */
	if (!r->issue_ts) { /* completed without being issued while we traced (a merge, a requeue) */
		__sync_fetch_and_add(&not_issued, 1);
		goto done;
	}
	/* A process filter (-c, ...) keeps only requests whose submitter passed it. */
	if (require_task && !r->has_task)
		goto done;
	if (aggregate) {
		add_total(r);
		goto done;
	}
	ev.delta = now - r->issue_ts;
	if (ev.delta < min_ns)
		goto done;
	ev.ts = now;
	ev.qdelta = r->queued_ts && r->queued_ts <= r->issue_ts ? r->issue_ts - r->queued_ts
								: BIOSNOOP_NO_QUEUE;
	ev.sector = r->sector;
	ev.len = r->len;
	ev.dev = r->dev;
	ev.op = r->op;
	ev.flags = r->flags;
	if (r->has_task) {
		ev.pid = r->pid;
		__builtin_memcpy(ev.comm, r->comm, sizeof(ev.comm));
	} else {
		ev.comm[0] = '?';
	}
	if (want_pattern) {
		__u64 *last = bpf_map_lookup_elem(&last_sector, &ev.dev);
		__u64 next = ev.sector + ev.len / 512;

		if (last)
			ev.pattern = *last == ev.sector ? BIOSNOOP_SEQUENTIAL : BIOSNOOP_RANDOM;
		bpf_map_update_elem(&last_sector, &ev.dev, &next, BPF_ANY);
	}
	bt_event_output(ctx, &events, &ev, sizeof(ev));
done:
	bpf_map_delete_elem(&reqs, &key);
	return 0;
}

#include "bt_block_progs.bpf.h"

char LICENSE[] SEC("license") = "GPL";
