// SPDX-License-Identifier: GPL-2.0
/*
 * How the attach layer chooses fentry or kprobe for a kernel function (bt_kfunc_choose): the
 * preference under auto, --attach forcing one mechanism, and everything fentry needs (the
 * tool's program, the kernel taking it, attach cookies, BTF for the function).
 */
#include "bt_attach_internal.h"
#include "harness.h"

/* Everything works: fentry and kprobes alike. */
static const struct bt_kfunc_facts all = {
	.fentry_prog = true,
	.fentry_works = true,
	.fentry_cookie = true,
	.has_btf = true,
	.kprobe_prog = true,
	.kprobes_work = true,
};

static void test_modes_when_all_work(void)
{
	CHECK_INT(bt_kfunc_choose(BT_ATTACH_AUTO, &all), BT_KFUNC_FENTRY);
	CHECK_INT(bt_kfunc_choose(BT_ATTACH_FENTRY, &all), BT_KFUNC_FENTRY);
	CHECK_INT(bt_kfunc_choose(BT_ATTACH_KPROBE, &all), BT_KFUNC_KPROBE);
}

/* Each thing fentry needs, missing alone: auto falls back to kprobe, fentry mode fails. */
static void test_fentry_needs(void)
{
	struct bt_kfunc_facts f;
	int i;

	for (i = 0; i < 4; i++) {
		f = all;
		switch (i) {
		case 0:
			f.fentry_prog = false; /* the tool has no fentry/fexit program */
			break;
		case 1:
			f.fentry_works = false; /* refused: lockdown, no BTF, old kernel */
			break;
		case 2:
			f.fentry_cookie = false; /* before 5.19 */
			break;
		case 3:
			f.has_btf = false; /* a ".isra.0" copy */
			break;
		}
		CHECK_INT(bt_kfunc_choose(BT_ATTACH_AUTO, &f), BT_KFUNC_KPROBE);
		CHECK_INT(bt_kfunc_choose(BT_ATTACH_FENTRY, &f), BT_KFUNC_NONE);
		CHECK_INT(bt_kfunc_choose(BT_ATTACH_KPROBE, &f), BT_KFUNC_KPROBE);
	}
}

/* No kprobes (this build machine's kernel): fentry or nothing, whatever the mode says. */
static void test_no_kprobes(void)
{
	struct bt_kfunc_facts f = all;

	f.kprobes_work = false;
	CHECK_INT(bt_kfunc_choose(BT_ATTACH_AUTO, &f), BT_KFUNC_FENTRY);
	CHECK_INT(bt_kfunc_choose(BT_ATTACH_KPROBE, &f), BT_KFUNC_NONE);
	f.fentry_works = false;
	CHECK_INT(bt_kfunc_choose(BT_ATTACH_AUTO, &f), BT_KFUNC_NONE);
	f = all;
	f.kprobe_prog = false; /* a tool with fentry programs only */
	f.has_btf = false;
	CHECK_INT(bt_kfunc_choose(BT_ATTACH_AUTO, &f), BT_KFUNC_NONE);
}

/* Nothing known (facts left zero, as for a mode that rules a mechanism out): nothing. */
static void test_nothing(void)
{
	const struct bt_kfunc_facts none = { 0 };

	CHECK_INT(bt_kfunc_choose(BT_ATTACH_AUTO, &none), BT_KFUNC_NONE);
	CHECK_INT(bt_kfunc_choose(BT_ATTACH_FENTRY, &none), BT_KFUNC_NONE);
	CHECK_INT(bt_kfunc_choose(BT_ATTACH_KPROBE, &none), BT_KFUNC_NONE);
}

int main(void)
{
	BT_RUN(test_modes_when_all_work);
	BT_RUN(test_fentry_needs);
	BT_RUN(test_no_kprobes);
	BT_RUN(test_nothing);
	return bt_test_done();
}
