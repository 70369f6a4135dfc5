/* SPDX-License-Identifier: GPL-2.0 */
/* The shared-library half of unwind_work's call chains (libunwind_worklib.so). */
#ifndef UNWIND_WORK_H
#define UNWIND_WORK_H

enum uw_leaf_kind {
	UW_CALL,  /* return at once: the leaf is what is probed */
	UW_SLEEP, /* clock_nanosleep */
	UW_PIPE,  /* read one byte from a pipe */
	UW_CLOCK, /* clock_gettime(CLOCK_PROCESS_CPUTIME_ID): a system call from the vdso */
};

void uwl_setup(enum uw_leaf_kind kind, long sleep_ms, int fd);
long uwl_1(long x);
long uwl_leaf(long x);

/* a real function under its own name: not inlined, not cloned (gcc's .isra/.constprop) */
#define UW_FN __attribute__((noinline, noipa))

/* after every call: keeps the call a call (no tail call) and its result used */
#define UW_KEEP(x) __asm__ volatile("" : "+r"(x) : : "memory")

#endif
