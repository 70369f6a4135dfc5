/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unwind tables, x86-64 and aarch64: built from a file's .eh_frame (or its debug file's .debug_frame) by
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

/*
 * aarch64 reads the same 12 bytes otherwise. The frame pointer is x29 (BT_CFA_RBP means CFA =
 * x29 + offset, BT_CFA_RSP sp + offset, rbp_rule is x29's rule) and the return address is in
 * x30 until the prologue saves it, at no fixed offset from the CFA, so a row needs x30's rule
 * too: cfa_rule's BT_RA_SAVED bit says it was saved at CFA + its offset; without it the return
 * address is still in x30, which only the first frame's can be. A large frame saves x29 and x30
 * at its bottom, tens of KiB below the CFA, so the offsets are counted in 8-byte slots (every
 * register slot is 8-byte aligned, sp 16-byte): cfa_offset holds the CFA's offset (low 16 bits)
 * and x30's (high 16 bits), rbp_offset x29's, each signed. A rule whose offsets are not whole
 * slots, or do not fit, is BT_CFA_UNSUPPORTED (x29's: BT_RBP_UNDEFINED). No PLT rule: a PLT
 * entry moves neither sp nor x29 and returns through x30, the default row.
 */
#define BT_RA_SAVED 0x10
#define BT_A64_SLOT 8

/*
 * aarch64's fields of a rule packed into 64 bits as the walker's lookup returns it (the bytes of
 * the rule: cfa_offset, rbp_offset << 32, cfa_rule << 48, rbp_rule << 56); offsets in bytes.
 */
#define BT_A64_CFA_RULE(rule) ((__u32)((rule) >> 48) & 0xf)
#define BT_A64_RA_IS_SAVED(rule) (((rule) >> 48) & BT_RA_SAVED)
#define BT_A64_CFA_OFF(rule) (BT_A64_SLOT * (__s64)(__s16)(rule))
#define BT_A64_RA_OFF(rule) (BT_A64_SLOT * (__s64)(__s16)((rule) >> 16))
#define BT_A64_FP_OFF(rule) (BT_A64_SLOT * (__s64)(__s16)((rule) >> 32))
#define BT_A64_FP_RULE(rule) ((__u32)((rule) >> 56))

#endif
