/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CO-RE without holding the kernel's whole BTF: libbpf 1.1 relocates an object against the
 * whole vmlinux BTF (5.5 MB on 6.18, read then copied: ~11 MiB of peak memory and ~15 ms of
 * CPU per run) although the object reads a few dozen fields. Here the types and members the
 * object's CO-RE relocations can reach are copied, once per kernel and object, into a small
 * BTF under /run/bpftools/btf (tmpfs: gone with the kernel that made it), and libbpf is given
 * that file as the object's btf_custom_path. docs/performance.md has the numbers.
 */
#ifndef BT_CORE_BTF_H
#define BT_CORE_BTF_H

#include <stddef.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

/*
 * Open options for a skeleton whose ELF image elf_bytes() returns (NAME_bpf__elf_bytes): with
 * btf_custom_path set to the object's cached small BTF (made now when missing), or NULL
 * (libbpf's own search: the whole vmlinux BTF) when the object has relocations this cannot
 * reduce, the kernel has no /sys/kernel/btf/vmlinux, the cache cannot be written, or
 * BPFTOOLS_NO_CORE_BTF is set. The options live until the next call. Also registers the tp_btf
 * handler of lib/kernel/bt_btf_ids.h, so that the object's tp_btf programs load without libbpf
 * reading the whole vmlinux BTF either.
 */
const struct bpf_object_open_opts *bt_core_btf_open_opts(const void *(*elf_bytes)(size_t *sz));
/* Open options for CO-RE against the whole BTF: the --btf file's, or NULL (libbpf's search). */
const struct bpf_object_open_opts *bt_core_btf_whole_opts(void);

/*
 * The reduction itself: from the relocations in an object's .BTF.ext image (ext, ext_size)
 * against its local BTF, a new BTF holding what they reach in target (the kernel's). NULL with
 * errno EOPNOTSUPP for a relocation kind that needs the target's own type ids or whole layouts
 * (bpf_core_type_id_kernel, bpf_core_type_matches), EINVAL for a malformed image.
 */
struct btf *bt_core_btf_reduce(const struct btf *local, const void *ext, size_t ext_size,
			       const struct btf *target);

#endif
