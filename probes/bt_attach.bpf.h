/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPF side of the attach layer (lib/bt_attach.h, docs/attach.md). A command that traces
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
 * or all of them at once with BT_ATTACH_PROGS(on_hit) below; lib/bt_trace.c finds them by
 * their '?' sections (bt_attach_progs__find()). The attach layer enables the ones it uses, sets the fentry/fexit
 * target (libbpf 1.1 accepts a bare SEC("fentry") when bpf_program__set_attach_target() runs
 * before load; it refuses to load one without a target, hence the '?'), clones fentry
 * programs per function, and puts each target's index in struct bt_targets into the link's
 * attach cookie. The programs read it back with bt_target_index().
 *
 * Generic kernel-function programs must not read function arguments or the return value:
 * one program (and its fentry clones) serves functions of every signature, and the fentry
 * verifier checks argument accesses against each function's BTF.
 */
#ifndef BT_ATTACH_BPF_H
#define BT_ATTACH_BPF_H

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

static __always_inline __u32 bt_target_index(void *ctx)
{
	if (bt_attach_ntargets == 1)
		return 0;
	return (__u32)bpf_get_attach_cookie(ctx);
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

#endif
