// SPDX-License-Identifier: GPL-2.0
/*
 * The walker's calls dropped before load where it is off (bt_skel_drop_calls,
 * lib/attach/bt_skel.c), on stackcount's real object, opened and never loaded: each program
 * to load loses its calls of bt_unwind_* (the walk's loop, the request to be indexed, the
 * deferral) and keeps its others (the stack store, the process announcement); a program not
 * to load, and every program with the walker on, keep every instruction.
 */
#include <stdlib.h>
#include <string.h>

#include "bt_rodata.h"
#include "bt_skel.h"
#include "harness.h"
#include "stackcount.skel.h"

static size_t count_calls(const struct bpf_program *p)
{
	const struct bpf_insn *insns = bpf_program__insns(p);
	size_t i, n = 0;

	for (i = 0; i < bpf_program__insn_cnt(p); i++)
		n += insns[i].code == (BPF_JMP | BPF_CALL) && insns[i].src_reg == BPF_PSEUDO_CALL;
	return n;
}

static void run(bool walker)
{
	struct stackcount_bpf *skel = stackcount_bpf__open();
	size_t tp_calls, up_calls, kp_calls;
	struct bpf_insn *kp_before;

	CHECK(skel != NULL);
	if (!skel)
		return;
	CHECK_INT(bt_rodata_set(skel->obj, "bt_unwind_on", &walker, sizeof(walker)), 0);
	bpf_program__set_autoload(skel->progs.sc_tracepoint, true);
	bpf_program__set_autoload(skel->progs.sc_uprobe, true);
	tp_calls = count_calls(skel->progs.sc_tracepoint);
	up_calls = count_calls(skel->progs.sc_uprobe);
	kp_calls = count_calls(skel->progs.sc_kprobe);
	kp_before = malloc(bpf_program__insn_cnt(skel->progs.sc_kprobe) * sizeof(*kp_before));
	CHECK(kp_before != NULL);
	if (kp_before)
		memcpy(kp_before, bpf_program__insns(skel->progs.sc_kprobe),
		       bpf_program__insn_cnt(skel->progs.sc_kprobe) * sizeof(*kp_before));
	/* the store and the announcement, besides the walker's five (its loop, its request to be
	 * indexed, the copy sent to user space, the lookup and keeping of the last walk) */
	CHECK(tp_calls >= 7);
	CHECK_INT(bt_skel_drop_calls(skel->skeleton), 0);
	CHECK_INT(count_calls(skel->progs.sc_tracepoint), tp_calls - (walker ? 0 : 5));
	CHECK_INT(count_calls(skel->progs.sc_uprobe), up_calls - (walker ? 0 : 5));
	/* not chosen (autoload off): untouched */
	CHECK_INT(count_calls(skel->progs.sc_kprobe), kp_calls);
	if (kp_before)
		CHECK(!memcmp(kp_before, bpf_program__insns(skel->progs.sc_kprobe),
			      bpf_program__insn_cnt(skel->progs.sc_kprobe) * sizeof(*kp_before)));
	free(kp_before);
	stackcount_bpf__destroy(skel);
}

static void test_walker_off(void)
{
	run(false);
}

static void test_walker_on(void)
{
	run(true);
}

int main(void)
{
	BT_RUN(test_walker_off);
	BT_RUN(test_walker_on);
	return bt_test_done();
}
