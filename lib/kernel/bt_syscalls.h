/* SPDX-License-Identifier: GPL-2.0 */
/*
 * System call numbers by the names of their tracepoints (syscalls:sys_enter_NAME), for the
 * attach layer's one-link path: every syscall: target on the raw sys_enter/sys_exit
 * tracepoints, told apart in the kernel by number (probes/bt_attach.bpf.h).
 */
#ifndef BT_SYSCALLS_H
#define BT_SYSCALLS_H

#include "bt_syscall.h" /* BT_SYSCALL_NR_MAX: larger numbers are not mapped */

/*
 * The number of the system call whose tracepoints are named NAME (sys_enter_NAME), on the
 * architecture bpftools was built for; -1 when not known (a system call newer than both the
 * build's kernel headers and the table here: the caller keeps its own tracepoint for it).
 */
int bt_syscall_nr(const char *name);

#endif
