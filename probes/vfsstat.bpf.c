// SPDX-License-Identifier: GPL-2.0
/*
 * vfsstat: one counter per VFS function, per CPU. The target's index in user space's list is
 * the attach cookie and that function's column (probes/vfsstat.h), so three generic programs
 * (fentry, kprobe, kprobe.multi) serve all eight functions; the attach layer loads the ones
 * it uses and clones the fentry one per function.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "bt_attach.bpf.h"
#include "bt_common.bpf.h"
#include "vfsstat.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, VFSSTAT_NCOLS);
	__type(key, __u32);
	__type(value, __u64);
} counts SEC(".maps");

static __always_inline int count(__u32 col)
{
	__u64 *v;

	if (bt_filtered_out())
		return 0;
	v = bpf_map_lookup_elem(&counts, &col);
	if (v)
		__sync_fetch_and_add(v, 1); /* fentry programs are preemptible: see funccount */
	return 0;
}

/* No argument is read: one program (and its fentry clones) fits every signature. */
SEC("?fentry")
int BPF_PROG(vfs_fentry)
{
	return count(bt_target_index(ctx));
}

SEC("?kprobe")
int BPF_KPROBE(vfs_kprobe)
{
	return count(bt_target_index(ctx));
}

SEC("?kprobe.multi")
int BPF_KPROBE(vfs_kprobe_multi)
{
	return count(bt_target_index(ctx));
}

char LICENSE[] SEC("license") = "GPL";
