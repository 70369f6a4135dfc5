/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the architectures the probes are built for (-D__TARGET_ARCH_x86 or
 * _arm64, cmake/BpfSkeleton.cmake). Registers are read through libbpf's PT_REGS_*() macros,
 * which name each architecture's pt_regs fields; what those do not cover is here.
 */
#ifndef BT_ARCH_BPF_H
#define BT_ARCH_BPF_H

#include <bpf/bpf_tracing.h>

/* The end of user address space: 47 bits on x86-64, 48 on arm64 (4K pages, 48-bit VA). */
#if defined(__TARGET_ARCH_arm64)
#define BT_USER_TOP 0x1000000000000ULL
#else
#define BT_USER_TOP 0x800000000000ULL
#endif

/*
 * The caller's address at a user function's first instruction (a uprobe on its entry), into
 * *caller: on x86-64 the call pushed it on the stack, on arm64 it is in the link register
 * (x30) until the function saves it.
 */
static __always_inline void bt_entry_caller(struct pt_regs *ctx, __u64 *caller)
{
#if defined(__TARGET_ARCH_arm64)
	*caller = PT_REGS_RET(ctx);
#else
	bpf_probe_read_user(caller, sizeof(*caller), (void *)PT_REGS_SP(ctx));
#endif
}

/*
 * A user return address without its pointer authentication code (code built with
 * -mbranch-protection=pac-ret on a CPU that has it signs x30 before saving it): the code sits
 * in the bits above the virtual address size, which no user address reaches, so they are
 * cleared, as the kernel's ptrauth_clear_pac() does for user pointers (xpaclri in newer
 * kernels). x86-64 has nothing to strip.
 */
static __always_inline __u64 bt_arch_strip_pac(__u64 ra)
{
#if defined(__TARGET_ARCH_arm64)
	return ra & (BT_USER_TOP - 1);
#else
	return ra;
#endif
}

/* The link register (aarch64's x30) of user registers regs; x86-64 has none: 0. */
static __always_inline __u64 bt_arch_link_reg(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_arm64)
	return PT_REGS_RET(regs);
#else
	return 0;
#endif
}

#endif
