// SPDX-License-Identifier: GPL-2.0
/*
 * stacksnoop: one event per call, carrying the ids of its stacks in the shared stack map.
 * The process filter runs first, so a filtered-out call costs a comparison; a kept one costs
 * one or two stack walks and a ring buffer (or perf buffer) output.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#define BT_ATTACH_SYSCALLS
#include "bt_arch.bpf.h"
#include "bt_attach.bpf.h"
#include "bt_common.bpf.h"
#include "bt_events.bpf.h"
#include "bt_stack.bpf.h"
#include "stacksnoop.h"

const volatile bool want_kernel = true;
const volatile bool want_user = false;

/* 4 MiB: bursts of a few tens of thousands of calls are printed, not lost. */
BT_EVENT_MAP(events, 4 * 1024 * 1024);

static __always_inline int snoop(void *ctx, __u32 index, __u64 user_caller)
{
	struct stacksnoop_event e = {};
	__u32 gen;

	if (bt_filtered_out())
		return 0;
	e.ts = bpf_ktime_get_ns();
	e.tgid = bpf_get_current_pid_tgid() >> 32;
	e.cpu = bpf_get_smp_processor_id();
	e.index = index;
	bpf_get_current_comm(e.comm, sizeof(e.comm));
	gen = bt_stack_generation();
	if (want_kernel)
		e.kernel_stack = bt_get_stack(ctx, 0, gen);
	if (want_user) {
		e.user_stack = bt_get_stack(ctx, BPF_F_USER_STACK, gen);
		if (BT_STACK_STORED(e.user_stack))
			e.user_caller = user_caller;
		e.cookie = bt_note_pid(ctx, e.tgid);
	}
	bt_event_output(ctx, &events, &e, sizeof(e));
	return 0;
}

/* One generic program per mechanism; the attach layer enables those it uses. */
SEC("?fentry")
int BPF_PROG(ss_fentry)
{
	return snoop(ctx, bt_target_index(ctx), 0);
}

SEC("?kprobe")
int BPF_KPROBE(ss_kprobe)
{
	return snoop(ctx, bt_target_index(ctx), 0);
}

SEC("?kprobe.multi")
int BPF_KPROBE(ss_kprobe_multi)
{
	return snoop(ctx, bt_target_index(ctx), 0);
}

SEC("?uprobe")
int BPF_KPROBE(ss_uprobe)
{
	__u64 caller = 0;

	if (want_user)
		bt_entry_caller(ctx, &caller);
	return snoop(ctx, bt_target_index(ctx), caller);
}

SEC("?tracepoint")
int ss_tracepoint(void *ctx)
{
	return snoop(ctx, bt_target_index(ctx), 0);
}

/* every syscall: target through one link per direction (probes/bt_attach.bpf.h) */
SEC("?tp_btf/sys_enter")
int BPF_PROG(ss_sys_enter, struct pt_regs *regs, long id)
{
	long i = bt_syscall_enter_index(id);

	return i < 0 ? 0 : snoop(ctx, i, 0);
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(ss_sys_exit, struct pt_regs *regs, long ret)
{
	long i = bt_syscall_exit_index(regs);

	return i < 0 ? 0 : snoop(ctx, i, 0);
}

/* each t: target through a raw_tp link of its own, which detaches at once (6.10+: cookies) */
SEC("?raw_tracepoint")
int ss_raw_tp(void *ctx)
{
	return snoop(ctx, bt_target_index(ctx), 0);
}

SEC("?usdt")
int BPF_USDT(ss_usdt)
{
	return snoop(ctx, bpf_usdt_cookie(ctx), 0);
}

char LICENSE[] SEC("license") = "GPL";
