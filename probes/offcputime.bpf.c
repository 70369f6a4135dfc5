// SPDX-License-Identifier: GPL-2.0
/*
 * offcputime: the time each thread spends off-CPU, summed in the kernel under its stacks at
 * switch-out (probes/bt_offcpu.bpf.h keeps the books). User space reads the sums once, at the
 * end.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bt_offcpu.bpf.h"
#include "offcputime.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, struct offcputime_key);
	__type(value, __u64);
} counts SEC(".maps");

/* by_comm: the counts map gets one entry, comm_counts its room (cmd/offcputime.c) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct offcputime_comm_key);
	__type(value, __u64);
} comm_counts SEC(".maps");

const volatile bool by_comm = false;

static __always_inline void bt_offcpu_add_block(__u32 tid, const struct bt_offcpu_start *s,
						__u64 us)
{
	struct offcputime_key key = {};

	if (by_comm) {
		struct offcputime_comm_key ck = { .state = s->state };

		__builtin_memcpy(ck.comm, s->comm, sizeof(ck.comm));
		bt_offcpu_sum(&comm_counts, &ck, us);
		return;
	}

	key.kernel_stack = s->kernel_stack;
	key.user_stack = s->user_stack;
	key.tid = tid;
	key.tgid = s->tgid;
	key.cookie = s->cookie;
	key.gen = s->gen;
	key.state = s->state;
	__builtin_memcpy(key.comm, s->comm, sizeof(key.comm));
	bt_offcpu_sum(&counts, &key, us);
}

static __always_inline void bt_offcpu_block_over(__u32 tid)
{
}

BT_OFFCPU_SWITCH_PROGS(offcpu_btf_state, offcpu_raw_state, offcpu_btf, offcpu_raw)

char LICENSE[] SEC("license") = "GPL";
