/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers every probe shares: the in-kernel filters (set by lib/bt_skel.c in read-only data
 * before load, so the verifier prunes the unused ones) and the histogram slot rule.
 */
#ifndef BT_COMMON_BPF_H
#define BT_COMMON_BPF_H

const volatile __s32 bt_filter_cpu = -1;
const volatile __u32 bt_filter_tgid = 0;
const volatile __u32 bt_filter_tid = 0;

/* True when the current event should be dropped. */
static __always_inline bool bt_filtered_out(void)
{
	if (bt_filter_cpu >= 0 && bpf_get_smp_processor_id() != (__u32)bt_filter_cpu)
		return true;
	if (bt_filter_tgid || bt_filter_tid) {
		__u64 id = bpf_get_current_pid_tgid();

		if (bt_filter_tgid && (id >> 32) != bt_filter_tgid)
			return true;
		if (bt_filter_tid && (__u32)id != bt_filter_tid)
			return true;
	}
	return false;
}

/* BCC's bpf_log2l(): slot 1 for 0 and 1, slot i for [2^(i-1), 2^i - 1]; see lib/bt_hist.h. */
static __always_inline __u32 bt_log2_slot(__u64 v)
{
	__u32 r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r + 1;
}

#endif
