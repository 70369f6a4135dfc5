// SPDX-License-Identifier: GPL-2.0
/*
 * funccount: one counter per target, per CPU. Every mechanism has one generic program; the
 * target's index arrives as the attach cookie, so a wildcard over 1000 functions is still six
 * programs, and the per-event work is a filter check, a lookup and an increment.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#define BT_ATTACH_SYSCALLS
#include "bt_attach.bpf.h"
#include "bt_common.bpf.h"
#include "funccount.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1); /* the number of targets, set before load */
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static __always_inline int count(__u64 index)
{
	__u32 key = index;
	__u64 *v;

	if (bt_filtered_out())
		return 0;
	v = bpf_map_lookup_elem(&counts, &key);
	if (v)
		/*
		 * Atomic although per-CPU: a uprobe or fentry program can be preempted between the
		 * load and the store, and another program run on this CPU meanwhile.
		 */
		__sync_fetch_and_add(v, 1);
	return 0;
}

SEC("?fentry")
int BPF_PROG(fc_fentry)
{
	return count(bt_target_index(ctx));
}

SEC("?kprobe")
int BPF_KPROBE(fc_kprobe)
{
	return count(bt_target_index(ctx));
}

SEC("?kprobe.multi")
int BPF_KPROBE(fc_kprobe_multi)
{
	return count(bt_target_index(ctx));
}

SEC("?uprobe")
int BPF_KPROBE(fc_uprobe)
{
	return count(bt_target_index(ctx));
}

SEC("?tracepoint")
int fc_tracepoint(void *ctx)
{
	return count(bt_target_index(ctx));
}

/* every syscall: target through one link per direction (probes/bt_attach.bpf.h) */
SEC("?tp_btf/sys_enter")
int BPF_PROG(fc_sys_enter, struct pt_regs *regs, long id)
{
	long i = bt_syscall_enter_index(id);

	return i < 0 ? 0 : count(i);
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(fc_sys_exit, struct pt_regs *regs, long ret)
{
	long i = bt_syscall_exit_index(regs);

	return i < 0 ? 0 : count(i);
}

/* each t: target through a raw_tp link of its own, which detaches at once (6.10+: cookies) */
SEC("?raw_tracepoint")
int fc_raw_tp(void *ctx)
{
	return count(bt_target_index(ctx));
}

SEC("?usdt")
int BPF_USDT(fc_usdt)
{
	/* libbpf's USDT support keeps the link cookie for itself and hands ours through here */
	return count(bpf_usdt_cookie(ctx));
}

char LICENSE[] SEC("license") = "GPL";
