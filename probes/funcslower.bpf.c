// SPDX-License-Identifier: GPL-2.0
/*
 * funcslower: time each call from entry to return, per thread, and send only the calls slower
 * than the threshold to user space. Targets [0, nr_entries) are the entry probes, target
 * nr_entries + i is the return probe of entry target i (cmd/funcslower.c lays them out so).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bt_attach.bpf.h"
#include "bt_common.bpf.h"
#include "bt_stack.bpf.h"
#include "funcslower.h"

const volatile __u64 min_ns = 1000000;
const volatile __u32 nr_entries = 0;
const volatile bool want_args = false;
const volatile bool want_kernel = false;
const volatile bool want_user = false;

/* libbpf 1.1 has PT_REGS_PARM1..5 only. */
#if defined(__TARGET_ARCH_x86)
#define FS_PARM6(x) (__PT_REGS_CAST(x)->r9)
#elif defined(__TARGET_ARCH_arm64)
#define FS_PARM6(x) (((const struct user_pt_regs *)(x))->regs[5])
#else
#define FS_PARM6(x) 0
#endif

/*
 * Keyed by thread, so a nested call of a traced function replaces the outer one (the
 * innermost call is timed, as BCC). LRU: a thread that never returns (exit, longjmp) must
 * not keep a slot forever.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 10240);
	__type(key, __u64);
	__type(value, struct funcslower_inflight);
} entries SEC(".maps");

BT_EVENT_MAP(events, 256 * 1024);

static __always_inline int on_entry(void *ctx, __u32 index, struct funcslower_inflight *e,
				    __u64 user_caller)
{
	__u64 id = bpf_get_current_pid_tgid();

	__u32 gen = bt_stack_generation();

	e->index = index;
	if (want_kernel)
		e->kernel_stack = bt_get_stack(ctx, 0, gen);
	if (want_user) {
		e->user_stack = bt_get_stack(ctx, BPF_F_USER_STACK, gen);
		e->user_caller = BT_STACK_STORED(e->user_stack) ? user_caller : 0;
		bt_note_pid(ctx, id >> 32);
	}
	/* Last, so the stack walks are not part of the latency. */
	e->start_ns = bpf_ktime_get_ns();
	bpf_map_update_elem(&entries, &id, e, BPF_ANY);
	return 0;
}

static __always_inline int on_return(void *ctx, __u32 index, __u64 ret)
{
	__u64 now = bpf_ktime_get_ns(), id = bpf_get_current_pid_tgid();
	struct funcslower_event ev = {};
	struct funcslower_inflight *e;

	e = bpf_map_lookup_elem(&entries, &id);
	/* Not the call this return belongs to (its entry was replaced by a nested one). */
	if (!e || index < nr_entries || e->index != index - nr_entries)
		return 0;
	ev.duration_ns = now - e->start_ns;
	if (ev.duration_ns < min_ns) {
		bpf_map_delete_elem(&entries, &id);
		return 0;
	}
	ev.start_ns = e->start_ns;
	ev.retval = ret;
	ev.index = e->index;
	ev.kernel_stack = e->kernel_stack;
	ev.user_stack = e->user_stack;
	ev.user_caller = e->user_caller;
	if (want_args)
		__builtin_memcpy(ev.args, e->args, sizeof(ev.args));
	bpf_map_delete_elem(&entries, &id);
	ev.tgid = id >> 32;
	bpf_get_current_comm(ev.comm, sizeof(ev.comm));
	bt_event_output(ctx, &events, &ev, sizeof(ev));
	return 0;
}

static __always_inline int regs_entry(struct pt_regs *ctx, __u64 user_caller)
{
	struct funcslower_inflight e = {};

	if (bt_filtered_out())
		return 0;
	if (want_args) {
		e.args[0] = PT_REGS_PARM1(ctx);
		e.args[1] = PT_REGS_PARM2(ctx);
		e.args[2] = PT_REGS_PARM3(ctx);
		e.args[3] = PT_REGS_PARM4(ctx);
		e.args[4] = PT_REGS_PARM5(ctx);
		e.args[5] = FS_PARM6(ctx);
	}
	return on_entry(ctx, bt_target_index(ctx), &e, user_caller);
}

/*
 * fentry/fexit: one program (and its clones) serves every signature, so arguments and the
 * return value come through bpf_get_func_arg()/bpf_get_func_ret(), which the verifier checks
 * against no particular prototype; arguments past the function's own are left 0.
 */
SEC("?fentry")
int fs_fentry(void *ctx)
{
	struct funcslower_inflight e = {};
	int i;

	if (bt_filtered_out())
		return 0;
	if (want_args) {
		for (i = 0; i < FUNCSLOWER_MAX_ARGS; i++)
			bpf_get_func_arg(ctx, i, &e.args[i]);
	}
	return on_entry(ctx, bt_target_index(ctx), &e, 0);
}

SEC("?fexit")
int fs_fexit(void *ctx)
{
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	return on_return(ctx, bt_target_index(ctx), ret);
}

SEC("?kprobe")
int fs_kprobe(struct pt_regs *ctx)
{
	return regs_entry(ctx, 0);
}

SEC("?kretprobe")
int fs_kretprobe(struct pt_regs *ctx)
{
	return on_return(ctx, bt_target_index(ctx), PT_REGS_RC(ctx));
}

SEC("?kprobe.multi")
int fs_kprobe_multi(struct pt_regs *ctx)
{
	return regs_entry(ctx, 0);
}

SEC("?kretprobe.multi")
int fs_kretprobe_multi(struct pt_regs *ctx)
{
	return on_return(ctx, bt_target_index(ctx), PT_REGS_RC(ctx));
}

SEC("?uprobe")
int fs_uprobe(struct pt_regs *ctx)
{
	__u64 caller = 0;

	/* On the first instruction the caller's address is only on the stack. */
	if (want_user)
		bpf_probe_read_user(&caller, sizeof(caller), (void *)PT_REGS_SP(ctx));
	return regs_entry(ctx, caller);
}

SEC("?uretprobe")
int fs_uretprobe(struct pt_regs *ctx)
{
	return on_return(ctx, bt_target_index(ctx), PT_REGS_RC(ctx));
}

/* syscall:NAME: sys_enter_NAME is the entry, sys_exit_NAME the return. */
SEC("?tracepoint")
int fs_tracepoint(void *ctx)
{
	__u32 index = bt_target_index(ctx);
	struct funcslower_inflight e = {};

	if (index >= nr_entries)
		return on_return(ctx, index, ((struct trace_event_raw_sys_exit *)ctx)->ret);
	if (bt_filtered_out())
		return 0;
	/* a copy, not ctx->args[i]: clang turns the loop into ctx pointer arithmetic */
	if (want_args)
		bpf_probe_read_kernel(e.args, sizeof(e.args),
				      ((struct trace_event_raw_sys_enter *)ctx)->args);
	return on_entry(ctx, index, &e, 0);
}

char LICENSE[] SEC("license") = "GPL";
