/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The programs of the block tools (biolatency, biosnoop): every point of a request's life, in
 * every form a kernel may offer, calling the including tool's handlers, which it defines
 * before including this file:
 *
 *   bt_block_created(ctx, key)          the request exists; its submitter is running
 *   bt_block_inserted(ctx, key, bio)    queued in the I/O scheduler (attached for -Q)
 *   bt_block_issued(ctx, key, &rq)      handed to the driver; disk, sector, size read
 *   bt_block_completed(ctx, key)        done, in whatever context the completion runs
 *   bt_block_merged(ctx, key, bio)      joined another request and freed without
 *                                       completing: forget it (the address is reused by the
 *                                       next request); bio is its first
 *   bt_block_bio_merged(ctx)            a bio joined a request already made instead of
 *                                       making one; its submitter is running (attached
 *                                       only on request: bt_block_count_bio_merges())
 *
 * key is the struct request's address. Which forms load is lib/tools/bt_block_probes.c's choice
 * (bt_block_choose()): creation is block_io_start (6.5+) or the accounting function it
 * replaced; insert, issue and merge take (rq) since 5.11 and (q, rq) before; each has a
 * tp_btf form and a raw_tp fallback. block_getrq notes the submitter per bio on kernels with
 * no creation probe.
 */
#ifndef BT_BLOCK_PROGS_BPF_H
#define BT_BLOCK_PROGS_BPF_H

#include "bt_block.bpf.h"

SEC("tp_btf/block_io_start")
int BPF_PROG(start_btf, struct request *rq)
{
	return bt_block_created(ctx, (__u64)rq);
}

SEC("raw_tp/block_io_start")
int BPF_PROG(start_raw, struct request *rq)
{
	return bt_block_created(ctx, (__u64)rq);
}

SEC("?kprobe/__blk_account_io_start")
int BPF_KPROBE(start_kp, struct request *rq)
{
	return bt_block_created(ctx, (__u64)rq);
}

SEC("?kprobe/blk_account_io_start")
int BPF_KPROBE(start_kp_old, struct request *rq)
{
	return bt_block_created(ctx, (__u64)rq);
}

SEC("tp_btf/block_getrq")
int BPF_PROG(getrq_btf, struct bio *bio)
{
	bt_bio_note((__u64)bio);
	return 0;
}

SEC("raw_tp/block_getrq")
int BPF_PROG(getrq_raw, struct bio *bio)
{
	bt_bio_note((__u64)bio);
	return 0;
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(insert_btf, struct request *rq)
{
	return bt_block_inserted(ctx, (__u64)rq, (__u64)rq->bio);
}

SEC("raw_tp/block_rq_insert")
int BPF_PROG(insert_raw, struct request *rq)
{
	return bt_block_inserted(ctx, (__u64)rq, (__u64)BPF_CORE_READ(rq, bio));
}

SEC("tp_btf/block_rq_insert")
int BPF_PROG(insert_btf_q, void *q, struct request *rq)
{
	return bt_block_inserted(ctx, (__u64)rq, (__u64)rq->bio);
}

SEC("raw_tp/block_rq_insert")
int BPF_PROG(insert_raw_q, void *q, struct request *rq)
{
	return bt_block_inserted(ctx, (__u64)rq, (__u64)BPF_CORE_READ(rq, bio));
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(issue_btf, struct request *rq)
{
	struct bt_rq r;

	bt_rq_read_btf(rq, &r);
	return bt_block_issued(ctx, (__u64)rq, &r);
}

SEC("raw_tp/block_rq_issue")
int BPF_PROG(issue_raw, struct request *rq)
{
	struct bt_rq r;

	bt_rq_read_raw(rq, &r);
	return bt_block_issued(ctx, (__u64)rq, &r);
}

SEC("tp_btf/block_rq_issue")
int BPF_PROG(issue_btf_q, void *q, struct request *rq)
{
	struct bt_rq r;

	bt_rq_read_btf(rq, &r);
	return bt_block_issued(ctx, (__u64)rq, &r);
}

SEC("raw_tp/block_rq_issue")
int BPF_PROG(issue_raw_q, void *q, struct request *rq)
{
	struct bt_rq r;

	bt_rq_read_raw(rq, &r);
	return bt_block_issued(ctx, (__u64)rq, &r);
}

SEC("tp_btf/block_rq_complete")
int BPF_PROG(complete_btf, struct request *rq)
{
	return bt_block_completed(ctx, (__u64)rq);
}

SEC("raw_tp/block_rq_complete")
int BPF_PROG(complete_raw, struct request *rq)
{
	return bt_block_completed(ctx, (__u64)rq);
}

SEC("tp_btf/block_rq_merge")
int BPF_PROG(merge_btf, struct request *rq)
{
	return bt_block_merged(ctx, (__u64)rq, (__u64)rq->bio);
}

SEC("raw_tp/block_rq_merge")
int BPF_PROG(merge_raw, struct request *rq)
{
	return bt_block_merged(ctx, (__u64)rq, (__u64)BPF_CORE_READ(rq, bio));
}

SEC("tp_btf/block_rq_merge")
int BPF_PROG(merge_btf_q, void *q, struct request *rq)
{
	return bt_block_merged(ctx, (__u64)rq, (__u64)rq->bio);
}

SEC("raw_tp/block_rq_merge")
int BPF_PROG(merge_raw_q, void *q, struct request *rq)
{
	return bt_block_merged(ctx, (__u64)rq, (__u64)BPF_CORE_READ(rq, bio));
}

/*
 * Bio merges (a bio added to the front or back of a request in the submitter's plug or the I/O
 * scheduler): no request is made for it, so a tool that filters by who made each request does
 * not see it. The arguments are not read, so one form fits every kernel's signature.
 */
SEC("?raw_tp/block_bio_backmerge")
int BPF_PROG(bio_backmerge_raw)
{
	return bt_block_bio_merged(ctx);
}

SEC("?raw_tp/block_bio_frontmerge")
int BPF_PROG(bio_frontmerge_raw)
{
	return bt_block_bio_merged(ctx);
}

#endif
