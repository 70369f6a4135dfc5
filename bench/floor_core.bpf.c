// SPDX-License-Identifier: GPL-2.0
/*
 * bench/floor.bpf.c's tracepoint floor with one CO-RE field read, in an object of its own:
 * a relocation anywhere in an object makes libbpf parse the kernel's whole vmlinux BTF when
 * it loads. The difference to the floor is what reading any kernel structure costs a tool.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

SEC("tracepoint/syscalls/sys_enter_getppid")
int floor_tp_core(void *ctx)
{
	struct task_struct *task = (void *)bpf_get_current_task();

	return BPF_CORE_READ(task, tgid) == 0;
}

char LICENSE[] SEC("license") = "GPL";
