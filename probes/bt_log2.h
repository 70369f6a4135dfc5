/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The log2 histogram slot, for BPF programs (probes/bt_common.bpf.h) and the unit test that
 * holds it to lib/output/bt_hist.c's: 1 for 0 and 1, i for [2^(i-1), 2^i - 1].
 *
 * Without branches: the verifier must track the slot exactly (it indexes the histogram), so
 * each branch of a branching log2 doubles the states it walks through the rest of the
 * program (biolatency's completion: 1331 instructions verified and 1.5 ms of its start-up
 * with six branches, 136 without). Each step halves the width w of what is left:
 * (x + 2^w - 1) >> w is 1 exactly when x, below 2^w, is not 0.
 */
#ifndef BT_LOG2_H
#define BT_LOG2_H

static inline __u32 bt_log2_slot_branchless(__u64 v)
{
	__u64 r, s;

	s = ((v >> 32) + 0xffffffffULL) >> 32 << 5;
	v >>= s;
	r = s;
	s = ((v >> 16) + 0xffff) >> 16 << 4;
	v >>= s;
	r |= s;
	s = ((v >> 8) + 0xff) >> 8 << 3;
	v >>= s;
	r |= s;
	s = ((v >> 4) + 0xf) >> 4 << 2;
	v >>= s;
	r |= s;
	s = ((v >> 2) + 0x3) >> 2 << 1;
	v >>= s;
	r |= s;
	r |= v >> 1;
	return r + 1;
}

#endif
