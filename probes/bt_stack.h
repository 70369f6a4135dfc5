/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by probes/bt_stack.bpf.h and lib/bt_stacks.c. */
#ifndef BT_STACK_H
#define BT_STACK_H

#define BT_MAX_STACK_DEPTH 127 /* PERF_MAX_STACK_DEPTH */

enum bt_stack_lost_kind {
	BT_STACK_LOST_COLLISION, /* -EEXIST: two stacks hashed to one slot */
	BT_STACK_LOST_FULL,	 /* -ENOMEM: the stack map is full */
	BT_STACK_LOST_OTHER,
	BT_STACK_LOST_KINDS,
};

#endif
