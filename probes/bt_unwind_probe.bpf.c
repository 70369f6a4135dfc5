// SPDX-License-Identifier: GPL-2.0
/*
 * The unwinder alone, for `bpftools features` and --unwind=auto: whether this kernel's verifier
 * accepts it (lib/stacks/bt_unwinder.c loads it with the walker on; it is never attached).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "bt_stack.bpf.h"

SEC("raw_tp")
int bt_unwind_probe(void *ctx)
{
	return bt_get_stack(ctx, BPF_F_USER_STACK, bt_stack_generation()) == BT_STACK_LOST;
}

char LICENSE[] SEC("license") = "GPL";
