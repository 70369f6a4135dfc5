/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the architectures the probes are built for (-D__TARGET_ARCH_x86 or
 * _arm64, cmake/BpfSkeleton.cmake). Registers are read through libbpf's PT_REGS_*() macros,
 * which name each architecture's pt_regs fields; what those do not cover is here.
 */
#ifndef BT_ARCH_BPF_H
#define BT_ARCH_BPF_H

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
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

/*
 * Is this CPU in an interrupt (hardirq, NMI or softirq), whatever thread is current? ctx must
 * be on the stack of the moment (a raw tracepoint's arguments, a kprobe's registers).
 *
 * arm64: the kernel's in_irq() || in_nmi() || in_serving_softirq(), from the current thread's
 * preempt count (thread_info, CO-RE).
 *
 * x86-64 keeps that count per CPU, where a program reaches it only through a typed ksym, which
 * would make the whole object need the kernel's BTF. So by the kernel's own stack rules: an
 * interrupt that hits the kernel runs on the CPU's interrupt stack, not in the thread's
 * task->stack (the kernel's on_thread_stack() test), and one that hits user mode stays on the
 * thread's stack, whose top holds the user registers, saved with orig_ax -1 by an interrupt's
 * entry (a system call saves its number, a fault its error code). A signal that kills the thread
 * on its way back to user mode after an interrupt looks like one too.
 */
#define BT_PREEMPT_IRQ_NMI 0x00ff0000U	       /* HARDIRQ_MASK | NMI_MASK, 5.10 to now */
#define BT_PREEMPT_SERVING_SOFTIRQ 0x00000100U /* SOFTIRQ_OFFSET */

#if defined(__TARGET_ARCH_arm64)
struct thread_info___bt_arm64 {
	__u64 preempt_count;
} __attribute__((preserve_access_index));

struct task_struct___bt_arm64 {
	struct thread_info___bt_arm64 thread_info;
} __attribute__((preserve_access_index));

static __always_inline bool bt_in_interrupt(void *ctx)
{
	struct task_struct___bt_arm64 *t = (void *)bpf_get_current_task();
	__u32 count = (__u32)BPF_CORE_READ(t, thread_info.preempt_count);

	return count & (BT_PREEMPT_IRQ_NMI | BT_PREEMPT_SERVING_SOFTIRQ);
}
#else
#define BT_THREAD_SIZE 16384 /* THREAD_SIZE; 32768 with KASAN */
#define BT_USER_CS 0x33	     /* __USER_CS */
#define BT_USER32_CS 0x23    /* __USER32_CS: a 32-bit task */
#define BT_USER_DS 0x2b	     /* __USER_DS, the user ss */

/* The user registers at the top of a thread stack of size bytes from base, if they are. */
static __always_inline bool bt_user_regs_at(__u64 base, __u64 size, struct pt_regs *regs)
{
	if (bpf_probe_read_kernel(regs, sizeof(*regs), (void *)(base + size - sizeof(*regs))))
		return false;
	return (regs->cs == BT_USER_CS || regs->cs == BT_USER32_CS) && regs->ss == BT_USER_DS;
}

static __always_inline bool bt_in_interrupt(void *ctx)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	__u64 base = (__u64)BPF_CORE_READ(t, stack), here = 0;
	struct pt_regs regs;
	void *at = ctx;

	/* the address as a number: read back, as the verifier allows no arithmetic on ctx */
	if (!base || bpf_probe_read_kernel(&here, sizeof(here), &at))
		return false;
	if (here < base || here - base >= 2 * BT_THREAD_SIZE)
		return true; /* another stack: the CPU's interrupt stack */
	if (!bt_user_regs_at(base, BT_THREAD_SIZE, &regs) &&
	    !bt_user_regs_at(base, 2 * BT_THREAD_SIZE, &regs))
		return false; /* a kernel thread: its interrupts are on the interrupt stack */
	return regs.orig_ax == (unsigned long)-1;
}
#endif

#endif
