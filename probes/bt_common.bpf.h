/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers every probe shares: the in-kernel filters (set by lib/attach/bt_skel.c in read-only data
 * before load, so the verifier prunes the unused ones) and the histogram slot rule. Checks
 * run cheapest first; a filter that is not set costs nothing, its helpers are never even
 * verified (so bpf_get_current_task_btf(), 5.11, is only needed by --mntnsmap).
 */
#ifndef BT_COMMON_BPF_H
#define BT_COMMON_BPF_H

#include "bt_log2.h"

#define BT_FILTER_COMM_LEN 16 /* TASK_COMM_LEN */

const volatile __s32 bt_filter_cpu = -1;
const volatile __u32 bt_filter_tgid = 0;
const volatile __u32 bt_filter_tid = 0;
/* the tool's own process, left out: a tool that prints each event and traces a system call
 * it makes (write) would otherwise make an event of every row it prints */
const volatile __u32 bt_filter_not_tgid = 0;
const volatile bool bt_filter_by_uid = false;
const volatile __u32 bt_filter_uid = 0;
/* comm: bt_filter_comm_len > 0 bytes of bt_filter_comm, anywhere in the task's comm (BCC's
 * -n) or, with bt_filter_comm_exact, as the whole comm */
const volatile char bt_filter_comm[BT_FILTER_COMM_LEN] = {};
const volatile __u32 bt_filter_comm_len = 0;
const volatile bool bt_filter_comm_exact = false;
/* a cgroup v2 directory and everything below it: its id and its depth below the root; that
 * cgroup alone when the root is out of sight (a cgroup namespace) */
#define BT_CGROUP_LEVEL_UNKNOWN 0xffffffffu
const volatile __u64 bt_filter_cgroup_id = 0;
const volatile __u32 bt_filter_cgroup_level = 0;
/* BCC's --cgroupmap and --mntnsmap: pinned hashes user space reuses; tiny when unused */
const volatile bool bt_filter_cgroupmap = false;
const volatile bool bt_filter_mntnsmap = false;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __u64);
} bt_cgroupmap SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __u32);
} bt_mntnsmap SEC(".maps");

static __always_inline bool bt_comm_matches(void)
{
	char comm[BT_FILTER_COMM_LEN] = {};
	__u32 len = bt_filter_comm_len, start, i;

	bpf_get_current_comm(comm, sizeof(comm));
	if (bt_filter_comm_exact) {
		for (i = 0; i < BT_FILTER_COMM_LEN; i++) {
			if (comm[i] != bt_filter_comm[i])
				return false;
			if (!comm[i])
				break;
		}
		return true;
	}
	/* comm is at most 15 bytes and a NUL: no match can start past 16 - len */
	for (start = 0; start + len < BT_FILTER_COMM_LEN; start++) {
		for (i = 0; i < len; i++)
			if (comm[(start + i) & (BT_FILTER_COMM_LEN - 1)] !=
			    bt_filter_comm[i & (BT_FILTER_COMM_LEN - 1)])
				break;
		if (i == len)
			return true;
	}
	return false;
}

static __always_inline bool bt_mntns_listed(void)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u64 inum = task->nsproxy->mnt_ns->ns.inum;

	return bpf_map_lookup_elem(&bt_mntnsmap, &inum) != NULL;
}

/* True when the current event should be dropped. */
static __always_inline bool bt_filtered_out(void)
{
	if (bt_filter_cpu >= 0 && bpf_get_smp_processor_id() != (__u32)bt_filter_cpu)
		return true;
	if (bt_filter_tgid || bt_filter_tid || bt_filter_not_tgid) {
		__u64 id = bpf_get_current_pid_tgid();

		if (bt_filter_tgid && (id >> 32) != bt_filter_tgid)
			return true;
		if (bt_filter_not_tgid && (id >> 32) == bt_filter_not_tgid)
			return true;
		if (bt_filter_tid && (__u32)id != bt_filter_tid)
			return true;
	}
	if (bt_filter_by_uid && (__u32)bpf_get_current_uid_gid() != bt_filter_uid)
		return true;
	if (bt_filter_cgroup_id) {
		__u64 cg = bt_filter_cgroup_level == BT_CGROUP_LEVEL_UNKNOWN
				   ? bpf_get_current_cgroup_id()
				   : bpf_get_current_ancestor_cgroup_id(bt_filter_cgroup_level);

		if (cg != bt_filter_cgroup_id)
			return true;
	}
	if (bt_filter_cgroupmap) {
		__u64 cg = bpf_get_current_cgroup_id();

		if (!bpf_map_lookup_elem(&bt_cgroupmap, &cg))
			return true;
	}
	if (bt_filter_mntnsmap && !bt_mntns_listed())
		return true;
	if (bt_filter_comm_len && !bt_comm_matches())
		return true;
	return false;
}

/* BCC's bpf_log2l(): slot 1 for 0 and 1, slot i for [2^(i-1), 2^i - 1]; see lib/output/bt_hist.h. */
static __always_inline __u32 bt_log2_slot(__u64 v)
{
	return bt_log2_slot_branchless(v);
}

#endif
