// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of every per-event figure in scripts/bench: empty programs, attached the way the
 * measured tools attach theirs (bench/floor.c picks which load), so that what a tool costs
 * beyond the kernel's own price of running a BPF program at that point is the difference.
 * No program here reads a kernel structure: one CO-RE relocation anywhere in the object
 * makes libbpf parse the vmlinux BTF (floor_core.bpf.c is that case).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* funccount t:syscalls:sys_enter_getppid: a perf-event tracepoint link */
SEC("?tracepoint/syscalls/sys_enter_getppid")
int floor_tp(void *ctx)
{
	return 0;
}

/* funccount, funcslower PROG:FUNC: uprobe.multi where the kernel has it, else a uprobe */
SEC("?uprobe")
int floor_uprobe(void *ctx)
{
	return 0;
}

/* offcputime: BTF-typed sched_switch, raw where the kernel has no BTF */
SEC("?tp_btf/sched_switch")
int floor_switch_btf(void *ctx)
{
	return 0;
}

SEC("?raw_tp/sched_switch")
int floor_switch_raw(void *ctx)
{
	return 0;
}

/* biolatency (no -Q): issue and completion */
SEC("?tp_btf/block_rq_issue")
int floor_issue_btf(void *ctx)
{
	return 0;
}

SEC("?tp_btf/block_rq_complete")
int floor_complete_btf(void *ctx)
{
	return 0;
}

SEC("?raw_tp/block_rq_issue")
int floor_issue_raw(void *ctx)
{
	return 0;
}

SEC("?raw_tp/block_rq_complete")
int floor_complete_raw(void *ctx)
{
	return 0;
}

/* opensnoop: entry and return of openat */
SEC("?tracepoint/syscalls/sys_enter_openat")
int floor_open_enter(void *ctx)
{
	return 0;
}

SEC("?tracepoint/syscalls/sys_exit_openat")
int floor_open_exit(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
