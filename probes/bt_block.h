/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Block requests as the block tools report them, the same on every kernel: probes/bt_block.bpf.h
 * turns the kernel's request operation and flag bits (whose numbers moved between kernels)
 * into these, and user space names them.
 */
#ifndef BT_BLOCK_H
#define BT_BLOCK_H

/* The operation, by name (REQ_OP_*). */
enum bt_rq_op {
	BT_OP_READ,
	BT_OP_WRITE,
	BT_OP_FLUSH,
	BT_OP_DISCARD,
	BT_OP_SECURE_ERASE,
	BT_OP_ZONE_RESET,
	BT_OP_WRITE_SAME,
	BT_OP_WRITE_ZEROES,
	BT_OP_ZONE_APPEND,
	BT_OP_UNKNOWN,
};

/* The flags BCC's biolatency -F names (REQ_*). */
enum bt_rq_flag {
	BT_RQ_SYNC = 1 << 0,
	BT_RQ_META = 1 << 1,
	BT_RQ_PRIO = 1 << 2,
	BT_RQ_NOMERGE = 1 << 3,
	BT_RQ_IDLE = 1 << 4,
	BT_RQ_FUA = 1 << 5,
	BT_RQ_RAHEAD = 1 << 6,
	BT_RQ_BACKGROUND = 1 << 7,
	BT_RQ_NOWAIT = 1 << 8,
};

#endif
