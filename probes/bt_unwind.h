/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unwind tables, x86-64 and aarch64: built from a file's .eh_frame (or its debug file's .debug_frame) by
 * symbolize/unwind_table.c, loaded by lib/stacks/bt_unwinder.c, walked by probes/bt_unwind.bpf.h.
 *
 * A table is an array of rows sorted by pc; a row holds from its pc up to the next row's pc.
 * Only what a walk needs is kept: where the canonical frame address (CFA) is, and where the
 * caller's rbp was saved. The return address is always at CFA - 8 on x86-64 (the builder marks
 * a row BT_CFA_UNSUPPORTED where a file says otherwise).
 *
 * Below them, the other thing the walker and user space share: how it finds and writes a
 * CPython process's Python frames (symbolize/bt_python.c decodes them).
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

/*
 * A CPython process (docs/python.md): where the walker finds the thread's Python frames and
 * how it reads them, filled by lib/stacks/bt_unwinder.c from the interpreter's file and its
 * version's row (symbolize/bt_python.h). tss 0: not Python, or not to be read (--no-python).
 * Where the native walk meets a frame in eval[], the evaluator, it writes the thread's Python
 * frames in its place, two words each (BT_PY_CODE_WORD, BT_PY_INFO_WORD), up to and including
 * the frame that entered it (3.11: is_entry; 3.12+: up to the one the call put on the chain,
 * BT_PY_ENTRY_OWNER; 3.9, 3.10: the one frame object of the call, BT_PY_FRAME_OBJECT).
 */
#define BT_PY_MAX_FRAMES 32 /* Python frames per stack: two words each of the 127 */
#define BT_PY_CODE_READ 128 /* bytes of a code object the walker reads for its check */
struct bt_unwind_py {
	__u64 tss;	     /* the Py_tss_t of the thread-state key (_PyRuntime + row) */
	__u64 code_type;     /* PyCode_Type's address: a frame's code must be one */
	__u64 eval_start[2]; /* _PyEval_EvalFrameDefault and its .cold part */
	__u64 eval_end[2];   /* (end 0: none) */
	__u16 tstate_frame;  /* tstate -> the frame pointer (3.11, 3.12: tstate->cframe) */
	__u16 cframe_frame;  /* ... -> current_frame, with BT_PY_TWO_STEPS */
	__u16 frame_code;    /* _PyInterpreterFrame: f_code (3.13: f_executable) */
	__u16 frame_back;    /* previous (3.9, 3.10: PyFrameObject.f_back) */
	__u16 frame_instr;   /* prev_instr (3.13: instr_ptr; 3.9, 3.10: f_lasti, an int) */
	__u16 frame_entry;   /* is_entry, or with BT_PY_ENTRY_OWNER owner (a byte) */
	__u16 code_insns;    /* the code object's first instruction (co_code_adaptive) */
	__u16 code_check;    /* 32 bytes of fields fixed at creation, hashed (bt_py_check) */
	__u16 frame_read;    /* bytes of a frame read: its fields above are within them */
	__u16 row;	     /* the version's row, for user space to decode with */
	__u16 flags;	     /* BT_PY_* below */
	__u16 pad;
	__s32 tls_base; /* glibc: thread pointer + tls_base + key * 16 + 8 holds the value */
	__u32 pad2;
};
/* the thread state points to a frame through one more pointer (3.11, 3.12: the cframe) */
#define BT_PY_TWO_STEPS 1
/*
 * 3.12+: the frame that entered an evaluator call is not a Python function's but one the call
 * put on the chain for itself, owned by the C stack (owner 3, FRAME_OWNED_BY_CSTACK): it is
 * not written, and ends the call's frames. Without the flag (3.11), the entering frame is the
 * function's own, marked is_entry, and is written last.
 */
#define BT_PY_ENTRY_OWNER 2
#define BT_PY_OWNED_BY_CSTACK 3
/*
 * 3.9, 3.10: the thread state's frame is a PyFrameObject, one per evaluator call, chained by
 * f_back: each evaluator frame of the native stack, innermost first, takes the next one, and
 * only that one. Its instruction is f_lasti, an int at frame_instr (not a pointer): the offset
 * of the instruction last begun in code units (3.10), in bytes with BT_PY_LASTI_BYTES (3.9);
 * -1 before the first one (then BT_PY_INSN_UNKNOWN: the code object's first line).
 */
#define BT_PY_FRAME_OBJECT 4
#define BT_PY_LASTI_BYTES 8

/*
 * A Python frame in a stored stack (probes/bt_unwind.bpf.h), leaf first like the native
 * frames: the code object's address with the tag and the version row, then its check and the
 * index of the instruction it is at. Bits 56-61: no user address (47/48 bits) and no kernel
 * one (all of 48-63 set) has them, and the unwinder's marks are bits 62-63.
 */
#define BT_PY_TAG_MASK (0x3fULL << 56)
#define BT_PY_CODE_TAG (0x2aULL << 56)
#define BT_PY_INFO_TAG (0x2bULL << 56)
#define BT_PY_CODE_WORD(code, row) (BT_PY_CODE_TAG | (__u64)((row)&0xff) << 48 | (code))
#define BT_PY_INFO_WORD(check, insn) \
	(BT_PY_INFO_TAG | (__u64)(__u32)(check) << 24 | ((insn)&0xffffff))
#define BT_PY_IS_CODE(w) (((w)&BT_PY_TAG_MASK) == BT_PY_CODE_TAG)
#define BT_PY_IS_INFO(w) (((w)&BT_PY_TAG_MASK) == BT_PY_INFO_TAG)
#define BT_PY_CODE_ADDR(w) ((w)&0xffffffffffffULL)
#define BT_PY_CODE_ROW(w) ((__u32)((w) >> 48) & 0xff)
#define BT_PY_INFO_CHECK(w) ((__u32)((w) >> 24))
#define BT_PY_INFO_INSN(w) ((__u32)(w)&0xffffff)
/*
 * The marker where an evaluator call's Python frames could not all be read (the chain longer
 * than BT_PY_MAX_FRAMES, memory paged out, a frame changing as it was read): a frame of no
 * code object, printed as [python: frames unread] (docs/python.md).
 */
#define BT_PY_UNREAD_CODE BT_PY_CODE_WORD(0, 0)
#define BT_PY_UNREAD_INFO BT_PY_INFO_WORD(0, BT_PY_INSN_UNKNOWN)
#define BT_PY_IS_UNREAD(w) ((w) == BT_PY_UNREAD_CODE)
#define BT_PY_INSN_UNKNOWN 0xffffff

/*
 * The check of a code object: its type pointer (the word at 8) and 32 bytes at code_check,
 * fields set when it is made (counts, the first line), mixed. A code object freed and another
 * made at its address between the sample and the print is then not named as the new one
 * (unless every such field is equal too). words: the BT_PY_CODE_READ bytes from the object.
 */
static inline __attribute__((always_inline)) __u32 bt_py_check(const __u64 *words, __u32 code_check)
{
	__u64 h = words[1] * 0x9e3779b97f4a7c15ULL;
	__u32 i, k = (code_check >> 3) & 7;

	for (i = 0; i < 4; i++) {
		h ^= words[(k + i) & 15];
		h *= 0xff51afd7ed558ccdULL;
		h ^= h >> 33;
	}
	return (__u32)h;
}

#endif
