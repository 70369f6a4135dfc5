// SPDX-License-Identifier: GPL-2.0
/*
 * The target index inside a program's code, for kernels without attach cookies
 * (bt_attach_patch_index, lib/attach/bt_attach_kernel.c): only the tagged constant is set, it
 * can be set again on already patched code (each copy of a loaded template), and every generic
 * program of a real command carries exactly one (funccount's skeleton, opened, never loaded).
 */
#include <stdlib.h>

#include "bt_attach_index.h"
#include "bt_attach_internal.h"
#include "funccount.skel.h"
#include "harness.h"

#define LD64(dst, src, lo, hi)                                                            \
	{ .code = BPF_LD | BPF_IMM | BPF_DW, .dst_reg = dst, .src_reg = src, .imm = lo }, \
	{                                                                                 \
		.imm = (__s32)(hi)                                                        \
	}

static void test_only_the_tag(void)
{
	struct bpf_insn insns[] = {
		LD64(1, 1, 7, BT_ATTACH_INDEX_TAG), /* a map's fd (src_reg 1): never touched */
		LD64(2, 0, 0, 0x12345678),	    /* another constant */
		LD64(3, 0, 0, BT_ATTACH_INDEX_TAG), /* the index */
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K,
		  .dst_reg = 0,
		  .imm = (__s32)BT_ATTACH_INDEX_TAG }, /* a plain move of the same value */
	};
	size_t n = sizeof(insns) / sizeof(insns[0]);

	CHECK_INT(bt_attach_patch_index(insns, n, 41), 1);
	CHECK_INT(insns[0].imm, 7);
	CHECK_INT(insns[2].imm, 0);
	CHECK_INT(insns[4].imm, 41);
	CHECK_INT((__u32)insns[5].imm, BT_ATTACH_INDEX_TAG);
	/* a copy of the patched code for the next target */
	CHECK_INT(bt_attach_patch_index(insns, n, 3), 1);
	CHECK_INT(insns[4].imm, 3);
	/* a truncated load at the end is not read past */
	CHECK_INT(bt_attach_patch_index(insns + 4, 1, 9), 0);
	CHECK_INT(insns[4].imm, 3);
}

/* Each generic program of a command has the index constant once, where the compiler put it. */
static void test_real_programs(void)
{
	static const char *const names[] = { "fc_fentry", "fc_kprobe", "fc_uprobe",
					     "fc_tracepoint" };
	struct funccount_bpf *skel = funccount_bpf__open();
	size_t i;

	CHECK(skel != NULL);
	if (!skel)
		return;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct bpf_program *p = bpf_object__find_program_by_name(skel->obj, names[i]);
		size_t n = p ? bpf_program__insn_cnt(p) : 0;
		struct bpf_insn *insns = malloc(n * sizeof(*insns) + 1);

		CHECK(p != NULL);
		if (p && insns) {
			memcpy(insns, bpf_program__insns(p), n * sizeof(*insns));
			CHECK_INT(bt_attach_patch_index(insns, n, 5), 1);
		}
		free(insns);
	}
	funccount_bpf__destroy(skel);
}

int main(void)
{
	BT_RUN(test_only_the_tag);
	BT_RUN(test_real_programs);
	return bt_test_done();
}
