/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a struct request for the block tools (biosnoop, biolatency), on any kernel:
 * - the disk is rq->q->disk since 5.16-ish and rq->rq_disk before (CO-RE field check);
 * - operation and flag bits are found by their enumerator names in the kernel's BTF
 *   (bpf_core_enum_value), not by the numbers of the kernel we were compiled against.
 * Two readers: BPF_CORE_READ (raw_tp and kprobe programs get plain numbers), and a direct
 * walk of tp_btf's BTF pointers, which also works under lockdown=confidentiality, where
 * bpf_probe_read_kernel is refused.
 */
#ifndef BT_BLOCK_BPF_H
#define BT_BLOCK_BPF_H

#include <bpf/bpf_core_read.h>

#include "bt_block.h"
#include "bt_common.bpf.h"

/* Before 5.16-ish: the disk hung off the request itself. */
struct request___old {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

struct bt_rq {
	__u64 bio; /* the request's first bio (the one that created it, or a front merge) */
	__u64 sector;
	__u32 dev; /* the whole disk, the kernel's MKDEV(major, first_minor) */
	__u32 len; /* bytes */
	__u32 op;  /* enum bt_rq_op */
	__u32 flags;
};

#define BT_REQ_OP_MASK 0xff /* REQ_OP_BITS has been 8 since 4.10 */

#define BT_OP_IS(raw, name)                               \
	(bpf_core_enum_value_exists(enum req_op, name) && \
	 (raw) == bpf_core_enum_value(enum req_op, name))

static __always_inline __u32 bt_rq_op(__u32 cmd_flags)
{
	__u32 raw = cmd_flags & BT_REQ_OP_MASK;

	if (bpf_core_type_exists(enum req_op)) { /* 5.19+: look each operation up by name */
		if (BT_OP_IS(raw, REQ_OP_READ))
			return BT_OP_READ;
		if (BT_OP_IS(raw, REQ_OP_WRITE))
			return BT_OP_WRITE;
		if (BT_OP_IS(raw, REQ_OP_FLUSH))
			return BT_OP_FLUSH;
		if (BT_OP_IS(raw, REQ_OP_DISCARD))
			return BT_OP_DISCARD;
		if (BT_OP_IS(raw, REQ_OP_SECURE_ERASE))
			return BT_OP_SECURE_ERASE;
		if (BT_OP_IS(raw, REQ_OP_WRITE_ZEROES))
			return BT_OP_WRITE_ZEROES;
		if (BT_OP_IS(raw, REQ_OP_ZONE_RESET))
			return BT_OP_ZONE_RESET;
		if (BT_OP_IS(raw, REQ_OP_ZONE_APPEND))
			return BT_OP_ZONE_APPEND;
		return BT_OP_UNKNOWN;
	}
	/* 4.10 - 5.18 (enum req_opf): these numbers did not move in that time. */
	switch (raw) {
	case 0:
		return BT_OP_READ;
	case 1:
		return BT_OP_WRITE;
	case 2:
		return BT_OP_FLUSH;
	case 3:
		return BT_OP_DISCARD;
	case 5:
		return BT_OP_SECURE_ERASE;
	case 6:
		return BT_OP_ZONE_RESET;
	case 7:
		return BT_OP_WRITE_SAME;
	case 9:
		return BT_OP_WRITE_ZEROES;
	default:
		return BT_OP_UNKNOWN;
	}
}

#define BT_RQ_FLAG(flags, name, bit)                                           \
	((bpf_core_enum_value_exists(enum req_flag_bits, name) &&              \
	  ((flags) & (1ULL << bpf_core_enum_value(enum req_flag_bits, name)))) \
		 ? (bit)                                                       \
		 : 0)

static __always_inline __u32 bt_rq_flags(__u32 f)
{
	return BT_RQ_FLAG(f, __REQ_SYNC, BT_RQ_SYNC) | BT_RQ_FLAG(f, __REQ_META, BT_RQ_META) |
	       BT_RQ_FLAG(f, __REQ_PRIO, BT_RQ_PRIO) | BT_RQ_FLAG(f, __REQ_NOMERGE, BT_RQ_NOMERGE) |
	       BT_RQ_FLAG(f, __REQ_IDLE, BT_RQ_IDLE) | BT_RQ_FLAG(f, __REQ_FUA, BT_RQ_FUA) |
	       BT_RQ_FLAG(f, __REQ_RAHEAD, BT_RQ_RAHEAD) |
	       BT_RQ_FLAG(f, __REQ_BACKGROUND, BT_RQ_BACKGROUND) |
	       BT_RQ_FLAG(f, __REQ_NOWAIT, BT_RQ_NOWAIT);
}

/*
 * tp_btf: rq is a BTF pointer the verifier lets us walk. These programs load only where
 * bpf_probe_read_kernel is refused (lib/tools/bt_block_probes.c): the walk makes the verifier
 * search the kernel's ~126,000 types by name for a trusted variant at each pointer followed
 * (btf_nested_type_is_trusted), and since 6.10 each tp_btf load searches them once more for
 * the tracepoint's __bpf_trace function; raw_tp programs pay neither.
 */
static __always_inline void bt_rq_read_btf(struct request *rq, struct bt_rq *r)
{
	struct gendisk *disk;
	__u32 cmd_flags = rq->cmd_flags;

	if (bpf_core_field_exists(((struct request___old *)rq)->rq_disk))
		disk = ((struct request___old *)rq)->rq_disk;
	else
		disk = rq->q->disk;
	r->dev = disk ? ((__u32)disk->major << 20) | (__u32)disk->first_minor : 0;
	r->bio = (__u64)rq->bio;
	r->sector = rq->__sector;
	r->len = rq->__data_len;
	r->op = bt_rq_op(cmd_flags);
	r->flags = bt_rq_flags(cmd_flags);
}

/* raw_tp, kprobe: rq is a number; read through bpf_probe_read_kernel. */
static __always_inline void bt_rq_read_raw(struct request *rq, struct bt_rq *r)
{
	struct gendisk *disk;
	__u32 cmd_flags = BPF_CORE_READ(rq, cmd_flags);

	if (bpf_core_field_exists(((struct request___old *)rq)->rq_disk))
		disk = BPF_CORE_READ((struct request___old *)rq, rq_disk);
	else
		disk = BPF_CORE_READ(rq, q, disk);
	r->dev = disk ? ((__u32)BPF_CORE_READ(disk, major) << 20) |
				 (__u32)BPF_CORE_READ(disk, first_minor)
		      : 0;
	r->bio = (__u64)BPF_CORE_READ(rq, bio);
	r->sector = BPF_CORE_READ(rq, __sector);
	r->len = BPF_CORE_READ(rq, __data_len);
	r->op = bt_rq_op(cmd_flags);
	r->flags = bt_rq_flags(cmd_flags);
}

/*
 * Who submitted a request, on kernels with no probe where requests are created
 * (block_io_start is 6.5+; the accounting functions before it are inlined in some builds):
 * block_getrq(bio) runs in the submitter when a bio needs a new request, and that bio becomes
 * the request's first (rq->bio). Noted here by bio, taken by the request at insert or issue.
 * LRU: a noted bio whose request is never seen (a failed allocation) must not stay.
 */
struct bt_bio_task {
	__u32 pid;
	char comm[16];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64); /* struct bio address */
	__type(value, struct bt_bio_task);
} bt_bio_tasks SEC(".maps");

/* At block_getrq: the submitter is running (bt_filtered_out() applies its filters). */
static __always_inline void bt_bio_note(__u64 bio)
{
	struct bt_bio_task t = {};

	if (bt_filtered_out())
		return;
	t.pid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(t.comm, sizeof(t.comm));
	bpf_map_update_elem(&bt_bio_tasks, &bio, &t, BPF_ANY);
}

/* At insert or issue: the submitter of the request whose first bio is bio, if noted. */
static __always_inline bool bt_bio_take(__u64 bio, struct bt_bio_task *out)
{
	struct bt_bio_task *t = bio ? bpf_map_lookup_elem(&bt_bio_tasks, &bio) : NULL;

	if (!t)
		return false;
	*out = *t;
	bpf_map_delete_elem(&bt_bio_tasks, &bio);
	return true;
}

#endif
