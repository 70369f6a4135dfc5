/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's whole BTF, parsed once and shared: below lib/kernel/bt_btf_ids.h, which falls back on
 * it, and lib/kernel/bt_kernel.h, which asks both.
 */
#ifndef BT_VMLINUX_BTF_H
#define BT_VMLINUX_BTF_H

struct btf;

/*
 * The file the kernel's types are read from when they are not the kernel's own: --btf FILE, else
 * BPFTOOLS_BTF; NULL when none was given (the kernel's /sys/kernel/btf/vmlinux, or a vmlinux
 * libbpf finds under /boot or /usr/lib/debug). Kernels built without BTF need one: BTFHub ships
 * them per distribution kernel.
 */
const char *bt_vmlinux_btf_file(void);
/* --btf FILE: takes precedence over BPFTOOLS_BTF; the string is kept, not copied. */
void bt_vmlinux_btf_set_file(const char *path);
/*
 * 0 when the kernel's types can be had (from the kernel, a vmlinux libbpf finds, or the file
 * given); else prints the one line that says how to give them, and returns -ENOENT (or the
 * file's error).
 */
int bt_vmlinux_btf_check(void);

/* The shared vmlinux BTF (from the file given, if any), loaded on first use; NULL if none. */
struct btf *bt_vmlinux_btf(void);
/*
 * Drop it (a later bt_vmlinux_btf() loads it again). Called once the attach decisions are
 * made, before libbpf loads its own copy for CO-RE: the parsed BTF is most of a tool's memory.
 */
void bt_vmlinux_btf_release(void);

#endif
