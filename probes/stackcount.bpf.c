// SPDX-License-Identifier: GPL-2.0
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/usdt.bpf.h>

#define BT_ATTACH_SYSCALLS
#include "bt_arch.bpf.h"
#include "bt_attach.bpf.h"
#include "bt_common.bpf.h"
#include "bt_stack.bpf.h"
#include "stackcount.h"

const volatile bool want_kernel = true;
const volatile bool want_user = true;
const volatile bool per_pid = false;

/* Stacks are counted here, in the kernel; user space only reads the summary. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 10240);
	__type(key, struct stackcount_key);
	__type(value, __u64);
} counts SEC(".maps");

static __always_inline int count_stack(void *ctx, __u64 user_caller)
{
	struct stackcount_key key = {};
	__u64 one = 1, *v;

	if (bt_filtered_out())
		return 0;
	key.tgid = bpf_get_current_pid_tgid() >> 32;
	key.gen = bt_stack_generation();
	if (per_pid)
		bpf_get_current_comm(key.comm, sizeof(key.comm));
	if (want_kernel)
		key.kernel_stack = bt_get_stack(ctx, 0, key.gen);
	if (want_user) {
		key.user_stack = bt_get_stack(ctx, BPF_F_USER_STACK, key.gen);
		key.user_caller = BT_STACK_STORED(key.user_stack) ? user_caller : 0;
		key.cookie = bt_note_pid(ctx, key.tgid);
	}
	v = bpf_map_lookup_elem(&counts, &key);
	if (v) {
		__sync_fetch_and_add(v, 1);
		return 0;
	}
	if (bpf_map_update_elem(&counts, &key, &one, BPF_NOEXIST)) {
		/* Another CPU inserted it first. */
		v = bpf_map_lookup_elem(&counts, &key);
		if (v)
			__sync_fetch_and_add(v, 1);
	}
	return 0;
}

/* One generic program per mechanism; the attach layer enables those it uses. */
SEC("?fentry/placeholder")
int BPF_PROG(sc_fentry)
{
	return count_stack(ctx, 0);
}

SEC("?kprobe")
int BPF_KPROBE(sc_kprobe)
{
	return count_stack(ctx, 0);
}

SEC("?kprobe.multi")
int BPF_KPROBE(sc_kprobe_multi)
{
	return count_stack(ctx, 0);
}

SEC("?uprobe")
int BPF_KPROBE(sc_uprobe)
{
	__u64 caller = 0;

	if (want_user)
		bt_entry_caller(ctx, &caller);
	return count_stack(ctx, caller);
}

SEC("?tracepoint")
int sc_tracepoint(void *ctx)
{
	return count_stack(ctx, 0);
}

/* every syscall: target through one link per direction (probes/bt_attach.bpf.h) */
SEC("?tp_btf/sys_enter")
int BPF_PROG(sc_sys_enter, struct pt_regs *regs, long id)
{
	long i = bt_syscall_enter_index(id);

	return i < 0 ? 0 : count_stack(ctx, 0);
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(sc_sys_exit, struct pt_regs *regs, long ret)
{
	long i = bt_syscall_exit_index(regs);

	return i < 0 ? 0 : count_stack(ctx, 0);
}

/* each t: target through a raw_tp link of its own, which detaches at once (6.10+: cookies) */
SEC("?raw_tracepoint")
int sc_raw_tp(void *ctx)
{
	return count_stack(ctx, 0);
}

SEC("?usdt")
int BPF_USDT(sc_usdt)
{
	return count_stack(ctx, 0);
}

char LICENSE[] SEC("license") = "GPL";
