/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unwind tables, x86-64: built from a file's .eh_frame (or its debug file's .debug_frame) by
 * symbolize/unwind_table.c, loaded by lib/stacks/bt_unwinder.c, walked by probes/bt_unwind.bpf.h.
 *
 * A table is an array of rows sorted by pc; a row holds from its pc up to the next row's pc.
 * Only what a walk needs is kept: where the canonical frame address (CFA) is, and where the
 * caller's rbp was saved. The return address is always at CFA - 8 on x86-64 (the builder marks
 * a row BT_CFA_UNSUPPORTED where a file says otherwise).
 */
#ifndef BT_UNWIND_H
#define BT_UNWIND_H

enum bt_cfa_rule {
	BT_CFA_NONE = 0,	/* no unwind information here (a gap between FDEs) */
	BT_CFA_RSP = 1,		/* CFA = rsp + cfa_offset */
	BT_CFA_RBP = 2,		/* CFA = rbp + cfa_offset */
	BT_CFA_PLT = 3,		/* a PLT entry: CFA = rsp + 8, and 8 more once (pc & 15) >= 11 */
	BT_CFA_END = 4,		/* the outermost frame (return address undefined): the walk ends */
	BT_CFA_SIGNAL = 5,	/* a signal trampoline (__restore_rt): the walk ends cleanly */
	BT_CFA_UNSUPPORTED = 6, /* an expression or register we do not follow */
};

enum bt_rbp_rule {
	BT_RBP_SAME = 0,      /* the caller's rbp is still in rbp */
	BT_RBP_CFA = 1,	      /* saved at CFA + rbp_offset */
	BT_RBP_UNDEFINED = 2, /* lost (an expression, or saved in another register) */
};

struct bt_unwind_row {
	__u32 pc; /* the file's link-time virtual address (files above 4 GiB get no table) */
	__s32 cfa_offset;
	__s16 rbp_offset;
	__u8 cfa_rule; /* enum bt_cfa_rule */
	__u8 rbp_rule; /* enum bt_rbp_rule */
};

#endif
