/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel BTF type ids and prototypes without parsing the kernel's whole BTF. Choosing tp_btf
 * over raw_tp and loading a tp_btf program need one thing from vmlinux BTF: the id of the
 * typedef btf_trace_NAME (and, to check a declared signature, the types its prototype names).
 * btf__load_vmlinux_btf() reads and indexes all 5.5 MB for that (~11 MiB of peak memory,
 * ~15 ms of CPU). Here the raw file is read as a stream in a fixed window: the string section
 * once to find the name, the type section once to count ids up to the typedef of that name,
 * then the few records the prototype reaches. The answer is cached per kernel under
 * /run/bpftools/btf (tmpfs: it goes away with the kernel that made it), so a warm run reads
 * one small file and not the BTF at all.
 */
#ifndef BT_BTF_IDS_H
#define BT_BTF_IDS_H

#include <stdbool.h>
#include <linux/types.h>

struct btf;

/* Where lib/kernel/bt_btf_ids and lib/kernel/bt_core_btf keep what they computed from the kernel's BTF. */
#define BT_BTF_CACHE_DIR "/run/bpftools/btf"

/*
 * The id in the kernel's vmlinux BTF of the type called name, of kind BTF_KIND_TYPEDEF or
 * BTF_KIND_FUNC (the first such, as btf__find_by_name_kind() answers). With excerpt non-NULL,
 * also a BTF holding that type and every type its prototype names (structs, unions and enums by
 * name and size only), for bt_sig_match(); the caller frees it with btf__free(). Returns the
 * id (> 0), -ENOENT when the kernel has no such type, or -errno (no vmlinux BTF, a layout this
 * cannot walk). BPFTOOLS_NO_BTF_IDS_CACHE=1 skips the cache (reads and writes).
 */
int bt_btf_id(const char *name, int kind, struct btf **excerpt);

/*
 * Whether a program attached by that type has loaded on this kernel before (noted with
 * bt_btf_id_note_loads()): a kernel that took one takes it again, so the trial load that asks
 * (a verifier pass and a search of the kernel's BTF) is made once per kernel. Only successes
 * are noted: a refusal may be passing (memory, limits).
 */
bool bt_btf_id_loads(const char *name, int kind);
void bt_btf_id_note_loads(const char *name, int kind);

/* The same from the raw BTF in file fd, never cached: what bt_btf_id() does on a miss. */
int bt_btf_scan(int fd, const char *name, int kind, struct btf **excerpt);

/* The running kernel's identity, hashed into h: its build-id note, release, version, BTF size. */
__u64 bt_btf_kernel_key(__u64 h);
/* FNV-1a over n bytes at p, continuing from h (the cache keys). */
__u64 bt_fnv(__u64 h, const void *p, size_t n);
/* Write head then data to path through a temporary file renamed over it: whole or not at all. */
int bt_btf_cache_write(const char *path, const void *head, size_t head_len, const void *data,
		       size_t len);

/* BT_BTF_CACHE_DIR, made 0700 when missing; -EPERM unless ours and writable by no one else. */
int bt_btf_cache_dir(void);
/* The same for sub, a directory in /run/bpftools (BT_BTF_CACHE_DIR, BT_UNWIND_CACHE_DIR). */
int bt_cache_subdir(const char *sub);

/*
 * Where kernel symbols keep their per-boot copy (bt_ksyms__load_cached): /run/bpftools, or
 * NULL without a usable cache directory or with BPFTOOLS_NO_KSYMS_CACHE=1.
 */
const char *bt_ksyms_cache_dir(void);

/*
 * Load tp_btf programs without libbpf reading vmlinux BTF (libbpf 1.1 parses all of it for any
 * BPF_PROG_TYPE_TRACING program, to find the attach id this file finds). Registers a libbpf
 * section handler for "tp_btf/" (process-wide; skeletons opened afterwards use it). No-op on a
 * libbpf where the handler was not verified (docs/performance.md). 0 or -errno.
 */
int bt_btf_ids_tp_btf_handler(void);

#endif
