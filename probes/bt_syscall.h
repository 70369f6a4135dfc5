/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the attach layer (lib/attach/bt_attach_user.c) and probes/bt_attach.bpf.h share about the
 * syscall targets attached on the raw sys_enter/sys_exit tracepoints: the bt_syscall_targets
 * array holds, at [dir * BT_SYSCALL_NR_MAX + nr] (dir 0: entry, 1: return), the target index
 * plus one of system call nr; 0 where nothing is traced.
 */
#ifndef BT_SYSCALL_H
#define BT_SYSCALL_H

#define BT_SYSCALL_NR_MAX 1024

#endif
