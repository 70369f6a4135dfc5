/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel lets us do, probed once per run and cached. Commands never test
 * kernel features themselves: they declare probes (struct bt_probe) and the attach layer
 * chooses.
 */
#ifndef BT_KERNEL_H
#define BT_KERNEL_H

#include <stdbool.h>
#include <linux/bpf.h>

/* 0 when root or holding CAP_BPF + CAP_PERFMON (or CAP_SYS_ADMIN); -EPERM otherwise. */
int bt_check_privileges(void);

/*
 * Raise the open-file limit to its hard limit: every probe link, map and program is a file
 * descriptor, and one link per function (kprobes without kprobe.multi, fentry) for a
 * thousand functions needs over a thousand (the usual soft limit is 1024). Best effort.
 */
void bt_raise_fd_limit(void);

/* Whether vmlinux BTF exists (/sys/kernel/btf/vmlinux). */
bool bt_kernel_has_btf(void);

/* Whether a BTF-typed raw tracepoint (tp_btf/NAME) can be loaded for this event. */
bool bt_kernel_tp_btf_ok(const char *event);

/* Whether vmlinux BTF has this kfunc (bpf_rdonly_cast, ...): programs calling it can load. */
bool bt_kernel_has_kfunc(const char *name);

/* Whether programs of this type may call this helper here (libbpf's probe load). */
bool bt_kernel_has_helper(enum bpf_prog_type type, enum bpf_func_id id);

/* Mount point of tracefs, mounting it on /sys/kernel/tracing when nothing is mounted. */
const char *bt_tracefs(void);
/*
 * 0 when tracefs's tracepoints can be read (or there is no tracefs: said elsewhere). When they
 * cannot for want of a permission (tracefs is root's, mode 700, and CAP_BPF with CAP_PERFMON
 * do not open it), one line saying so, "cannot read the tracepoints in /sys/kernel/tracing:
 * Permission denied (tracefs needs root or its mode changed)", printed once per run, and
 * -EACCES or -EPERM. For every reader of tracefs, so that a tracepoint it cannot see is not
 * reported as one the kernel lacks.
 */
int bt_tracefs_denied(void);

#endif
