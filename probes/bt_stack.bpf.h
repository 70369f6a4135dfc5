/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stack capture shared by the tools that print stacks (lib/bt_stacks.c is the user side).
 * Stacks are deduplicated in the kernel by the stack map; lost stacks are counted by cause so
 * the tool can say which limit to raise. Processes are announced the first time they are
 * seen, so user space can snapshot their mappings before they exit.
 */
#ifndef BT_STACK_BPF_H
#define BT_STACK_BPF_H

#include "bt_events.bpf.h"
#include "bt_stack.h"

/* vmlinux.h has no errno values */
#define BT_ENOMEM 12
#define BT_EFAULT 14
#define BT_EEXIST 17

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1024); /* --stack-storage-size, set before load */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, BT_MAX_STACK_DEPTH * sizeof(__u64));
} bt_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BT_STACK_LOST_KINDS);
	__type(key, __u32);
	__type(value, __u64);
} bt_stack_lost SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u8);
} bt_seen_pids SEC(".maps");

BT_EVENT_MAP(bt_new_pids, 64 * 1024);

const volatile bool bt_announce_pids = false; /* set when user stacks are symbolized */

static __always_inline void bt_stack_count_lost(long err)
{
	__u32 kind = err == -BT_EEXIST	 ? BT_STACK_LOST_COLLISION
		     : err == -BT_ENOMEM ? BT_STACK_LOST_FULL
					 : BT_STACK_LOST_OTHER;
	__u64 *n = bpf_map_lookup_elem(&bt_stack_lost, &kind);

	if (n)
		(*n)++;
}

/*
 * A stack id, or -1. An empty user stack (kernel threads, -EFAULT) is not a loss; a full map
 * or a hash collision is.
 */
static __always_inline __s32 bt_get_stack_id(void *ctx, __u64 flags)
{
	long id = bpf_get_stackid(ctx, &bt_stacks, flags);

	if (id >= 0)
		return id;
	if (id != -BT_EFAULT)
		bt_stack_count_lost(id);
	return -1;
}

/* Announce tgid once (per LRU lifetime) through the bt_new_pids event map. */
static __always_inline void bt_note_pid(void *ctx, __u32 tgid)
{
	__u8 one = 1;

	if (!bt_announce_pids || !tgid || bpf_map_lookup_elem(&bt_seen_pids, &tgid))
		return;
	if (bpf_map_update_elem(&bt_seen_pids, &tgid, &one, BPF_NOEXIST))
		return;
	bt_event_output_to(ctx, &bt_new_pids, BT_EVENTS_LOST_PIDS, &tgid, sizeof(tgid));
}

#endif
