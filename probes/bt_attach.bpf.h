/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF side of the attach layer (lib/attach/bt_attach.h, docs/attach.md). A command that traces
 * targets the user names (funccount, stackcount, ...) declares one generic program per
 * mechanism, none autoloaded, no target in the section name:
 *
 *	SEC("?fentry")       int BPF_PROG(bt_fentry)         { return on_hit(bt_target_index(ctx)); }
 *	SEC("?fexit")        int BPF_PROG(bt_fexit)          { ... }
 *	SEC("?kprobe")       int BPF_KPROBE(bt_kprobe)       { ... }
 *	SEC("?kretprobe")    int BPF_KRETPROBE(bt_kretprobe) { ... }
 *	SEC("?kprobe.multi") int BPF_KPROBE(bt_kprobe_multi) { ... }
 *	SEC("?uprobe")       int BPF_KPROBE(bt_uprobe)       { ... }
 *	SEC("?tracepoint")   int bt_tracepoint(void *ctx)    { ... }
 *
 * or all of them at once with BT_ATTACH_PROGS(on_hit) below; lib/attach/bt_trace.c finds them by
 * their '?' sections (bt_attach_progs__find()). The attach layer enables the ones it uses, sets the fentry/fexit
 * target (libbpf 1.1 accepts a bare SEC("fentry") when bpf_program__set_attach_target() runs
 * before load; it refuses to load one without a target, hence the '?'), clones fentry
 * programs per function, and puts each target's index in struct bt_targets into the link's
 * attach cookie. The programs read it back with bt_target_index().
 *
 * Generic kernel-function programs must not read function arguments or the return value from
 * their context: one program (and its fentry clones) serves functions of every signature, and
 * the fentry verifier checks argument accesses against each function's BTF. bt_fentry_args()
 * and bt_fexit_ret() read them.
 */
#ifndef BT_ATTACH_BPF_H
#define BT_ATTACH_BPF_H

#include <bpf/bpf_core_read.h>

#include "bt_attach_index.h"

/*
 * The index of the target that fired: the attach cookie, set on every link (kprobe,
 * kprobe.multi, fentry/fexit on 5.19+, uprobe, tracepoint perf links; USDT programs use
 * bpf_usdt_cookie() instead, which carries the same index).
 */
/*
 * The number of targets, set by the attach layer before load (0: not known). With one target
 * the index is 0 and the verifier drops the helper call: a call and a return are ~30 ns per
 * event on a kernel whose returns go through a mitigation thunk (SRSO's safe RET), a fifth of
 * the price of the tracepoint itself (docs/performance.md).
 */
const volatile __u32 bt_attach_ntargets = 0;

/*
 * Set by the attach layer on kernels without attach cookies for the mechanism it uses
 * (fentry before 5.19, kprobes before 5.15): every target then gets a program of its own, and
 * the index is the low half of the 64-bit constant below, tagged in its high half, which the
 * attach layer patches in each copy (lib/attach/bt_attach_kernel.c). The verifier never walks
 * the arm the kernel would refuse.
 */
const volatile bool bt_attach_index_inline = false;

static __always_inline __u32 bt_target_index(void *ctx)
{
	__u64 k;

	if (bt_attach_ntargets == 1)
		return 0;
	if (bt_attach_index_inline) {
		asm volatile("%0 = " BT_ATTACH_INDEX_TAG_STR " ll" : "=r"(k));
		return (__u32)k;
	}
	return (__u32)bpf_get_attach_cookie(ctx);
}

/* The traced function's number of arguments (probes/bt_attach_index.h), in fentry and fexit. */
static __always_inline __u32 bt_fentry_nargs(void)
{
	__u64 n;

	asm volatile("%0 = " BT_ATTACH_NARGS_TAG_STR " ll" : "=r"(n));
	return (__u32)n;
}

/*
 * Word i of an fentry/fexit context, by a load the compiler cannot merge with the others: a
 * load at an offset computed from the argument count is refused, each at a constant is not.
 */
#define BT_CTX_WORD(ctx, i)                                                           \
	({                                                                            \
		__u64 _w;                                                             \
		asm volatile("%0 = *(u64 *)(%1 + " #i " * 8)" : "=r"(_w) : "r"(ctx)); \
		_w;                                                                   \
	})

/*
 * The traced function's first max (up to 6) arguments in an fentry/fexit program serving
 * functions of any signature; those past its own are left as they were. Through
 * bpf_get_func_arg() (5.17), else from the context, up to the argument count the attach layer
 * patched in: the verifier knows it, walks only the loads below it, and checks them against
 * the function's BTF.
 */
static __always_inline void bt_fentry_args(void *ctx, __u64 *args, const int max)
{
	__u32 n;
	int i;

	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_func_arg)) {
		for (i = 0; i < max; i++)
			bpf_get_func_arg(ctx, i, &args[i]);
		return;
	}
	n = bt_fentry_nargs();
	if (n > 0 && max > 0)
		args[0] = BT_CTX_WORD(ctx, 0);
	if (n > 1 && max > 1)
		args[1] = BT_CTX_WORD(ctx, 1);
	if (n > 2 && max > 2)
		args[2] = BT_CTX_WORD(ctx, 2);
	if (n > 3 && max > 3)
		args[3] = BT_CTX_WORD(ctx, 3);
	if (n > 4 && max > 4)
		args[4] = BT_CTX_WORD(ctx, 4);
	if (n > 5 && max > 5)
		args[5] = BT_CTX_WORD(ctx, 5);
}

/* The traced function's return value in an fexit program (see bt_fentry_args()). */
static __always_inline __u64 bt_fexit_ret(void *ctx)
{
	__u64 ret = 0;

	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_func_ret)) {
		bpf_get_func_ret(ctx, &ret);
		return ret;
	}
	/* after the arguments: fexit's context holds them, then the return value */
	switch (bt_fentry_nargs()) {
	case 0:
		return BT_CTX_WORD(ctx, 0);
	case 1:
		return BT_CTX_WORD(ctx, 1);
	case 2:
		return BT_CTX_WORD(ctx, 2);
	case 3:
		return BT_CTX_WORD(ctx, 3);
	case 4:
		return BT_CTX_WORD(ctx, 4);
	case 5:
		return BT_CTX_WORD(ctx, 5);
	case 6:
		return BT_CTX_WORD(ctx, 6);
	}
	return 0;
}

/*
 * Declare the generic kernel-function, uprobe and tracepoint programs, each calling
 * handler(ctx, index, is_return). Names: bt_fentry, bt_fexit, bt_kprobe, bt_kretprobe,
 * bt_kprobe_multi, bt_kretprobe_multi, bt_uprobe, bt_uretprobe, bt_tracepoint.
 */
#define BT_ATTACH_PROGS(handler)                                  \
	SEC("?fentry") int bt_fentry(void *ctx)                   \
	{                                                         \
		return handler(ctx, bt_target_index(ctx), false); \
	}                                                         \
	SEC("?fexit") int bt_fexit(void *ctx)                     \
	{                                                         \
		return handler(ctx, bt_target_index(ctx), true);  \
	}                                                         \
	SEC("?kprobe") int bt_kprobe(void *ctx)                   \
	{                                                         \
		return handler(ctx, bt_target_index(ctx), false); \
	}                                                         \
	SEC("?kretprobe") int bt_kretprobe(void *ctx)             \
	{                                                         \
		return handler(ctx, bt_target_index(ctx), true);  \
	}                                                         \
	SEC("?kprobe.multi") int bt_kprobe_multi(void *ctx)       \
	{                                                         \
		return handler(ctx, bt_target_index(ctx), false); \
	}                                                         \
	SEC("?kretprobe.multi") int bt_kretprobe_multi(void *ctx) \
	{                                                         \
		return handler(ctx, bt_target_index(ctx), true);  \
	}                                                         \
	SEC("?uprobe") int bt_uprobe(void *ctx)                   \
	{                                                         \
		return handler(ctx, bt_target_index(ctx), false); \
	}                                                         \
	SEC("?uretprobe") int bt_uretprobe(void *ctx)             \
	{                                                         \
		return handler(ctx, bt_target_index(ctx), true);  \
	}                                                         \
	SEC("?tracepoint") int bt_tracepoint(void *ctx)           \
	{                                                         \
		return handler(ctx, bt_target_index(ctx), false); \
	}

/*
 * syscall: targets on the raw sys_enter/sys_exit tracepoints (define BT_ATTACH_SYSCALLS before
 * including this file, and declare SEC("?tp_btf/sys_enter") and SEC("?tp_btf/sys_exit")
 * programs that call bt_syscall_enter_index() / bt_syscall_exit_index()): one link for every
 * system call traced instead of a perf event each, which the kernel takes ~75 ms to remove
 * (6.18: a tracepoint grace period per event, under its event_mutex), 27 s for 360 of them.
 * The attach layer fills bt_syscall_targets (probes/bt_syscall.h) before attaching.
 */
#ifdef BT_ATTACH_SYSCALLS
#include "bt_syscall.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2 * BT_SYSCALL_NR_MAX);
	__type(key, __u32);
	__type(value, __u32);
} bt_syscall_targets SEC(".maps");

/* where each architecture keeps the number of the system call under way */
struct pt_regs___x86 {
	unsigned long orig_ax;
} __attribute__((preserve_access_index));
struct pt_regs___bt_arm64 { /* libbpf's bpf_tracing.h has a pt_regs___arm64 of its own */
	int syscallno;
} __attribute__((preserve_access_index));

/*
 * The syscalls:sys_enter_NAME events leave out 32-bit system calls (ia32 emulation, x32: the
 * kernel's arch_trace_is_compat_syscall()), whose numbers mean other calls: so do we. x32
 * numbers carry bit 30 and fall outside the map anyway.
 */
static __always_inline bool bt_syscall_compat(void)
{
#if defined(__TARGET_ARCH_arm64)
	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_current_task_btf)) {
		struct task_struct *task = bpf_get_current_task_btf();

		return task->thread_info.flags & (1UL << 22); /* arm64 TIF_32BIT: an AArch32 task */
	}
#else
	if (bpf_core_enum_value_exists(enum bpf_func_id, BPF_FUNC_get_current_task_btf) &&
	    bpf_core_field_exists(struct thread_info, status)) {
		struct task_struct *task = bpf_get_current_task_btf();

		return task->thread_info.status & 0x0002; /* x86 TS_COMPAT */
	}
#endif
	return false;
}

static __always_inline long bt_syscall_index(long nr, __u32 dir)
{
	__u32 key, *v;

	if (nr < 0 || nr >= BT_SYSCALL_NR_MAX)
		return -1;
	key = dir * BT_SYSCALL_NR_MAX + (__u32)nr;
	v = bpf_map_lookup_elem(&bt_syscall_targets, &key);
	if (!v || !*v || bt_syscall_compat())
		return -1;
	return *v - 1;
}

/* tp_btf/sys_enter: (struct pt_regs *regs, long id) */
static __always_inline long bt_syscall_enter_index(long id)
{
	return bt_syscall_index(id, 0);
}

/* tp_btf/sys_exit: (struct pt_regs *regs, long ret); the number is in the saved registers */
static __always_inline long bt_syscall_exit_index(struct pt_regs *regs)
{
	long nr = -1;

	if (bpf_core_field_exists(struct pt_regs___x86, orig_ax))
		nr = ((struct pt_regs___x86 *)regs)->orig_ax;
	else if (bpf_core_field_exists(struct pt_regs___bt_arm64, syscallno))
		nr = ((struct pt_regs___bt_arm64 *)regs)->syscallno;
	return bt_syscall_index(nr, 1);
}
#endif

#endif
