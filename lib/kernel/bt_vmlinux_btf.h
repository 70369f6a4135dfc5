/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's whole BTF, parsed once and shared: below lib/kernel/bt_btf_ids.h, which falls back on
 * it, and lib/kernel/bt_kernel.h, which asks both.
 */
#ifndef BT_VMLINUX_BTF_H
#define BT_VMLINUX_BTF_H

struct btf;

/* The shared vmlinux BTF, loaded on first use; NULL when the kernel has none. */
struct btf *bt_vmlinux_btf(void);
/*
 * Drop it (a later bt_vmlinux_btf() loads it again). Called once the attach decisions are
 * made, before libbpf loads its own copy for CO-RE: the parsed BTF is most of a tool's memory.
 */
void bt_vmlinux_btf_release(void);

#endif
