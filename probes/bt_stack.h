/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by probes/bt_stack.bpf.h and lib/bt_stacks.c. */
#ifndef BT_STACK_H
#define BT_STACK_H

#define BT_MAX_STACK_DEPTH 127 /* PERF_MAX_STACK_DEPTH */

/*
 * A stack id is the key of a stored stack: a 64-bit hash of its frames with the low bits
 * replaced by the generation (bit 0) and the probe slot taken when two different stacks share
 * a hash (bits 1-2). Ids below 8 are never stored stacks:
 */
#define BT_STACK_NONE 0ULL /* not wanted, or nothing to take (a kernel thread's user stack) */
#define BT_STACK_LOST 1ULL /* taken, but not stored (the map was full) or not capturable */
#define BT_STACK_GEN(id) ((unsigned int)((id)&1))
#define BT_STACK_SLOTS 4
#define BT_STACK_STORED(id) ((id) >= 8)

/* The value of a stored stack; frames past nr are undefined. */
struct bt_stack_value {
	__u32 nr;
	__u32 pad;
	__u64 ips[BT_MAX_STACK_DEPTH];
};

enum bt_stack_lost_kind {
	BT_STACK_LOST_FULL,    /* the stack map is full (--stack-storage-size) */
	BT_STACK_LOST_CAPTURE, /* bpf_get_stack failed, or scratch space was busy */
	BT_STACK_LOST_KINDS,
};

#endif
