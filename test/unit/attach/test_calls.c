// SPDX-License-Identifier: GPL-2.0
/*
 * lib/attach/bt_calls: specs with a return into entries and then their returns, paired by index
 * (target n + i returns from entry i), on the ua_pie fixture; the specs without a return
 * refused before anything is resolved; a syscall's return its sys_exit_ tracepoint.
 */
#include <string.h>

#include "bt_attach_internal.h"
#include "bt_calls.h"
#include "bt_err.h"
#include "harness.h"

#define UA_PIE UA_DIR "/ua_pie"

static void test_refused(void)
{
	/* a good spec first: nothing is resolved when a later one is refused */
	static const char *const bad[][2] = {
		{ UA_PIE ":ua_alpha", "t:sched:sched_switch" },
		{ UA_PIE ":ua_alpha", "u:" UA_PIE ":ua_fire" },
		{ UA_PIE ":ua_alpha", "r:" UA_PIE ":ua_alpha" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct bt_calls c = { 0 };

		CHECK_INT(bt_calls__resolve(&c, bad[i], 2, NULL, 0), -BT_EUSAGE);
		CHECK_INT(c.targets.n, 0);
		bt_calls__free(&c);
	}
}

static void test_pairs(void)
{
	static const char *const specs[] = { UA_PIE ":ua_alpha", UA_PIE ":ua_b*" };
	struct bt_calls c = { 0 };
	size_t i;

	CHECK_INT(bt_calls__resolve(&c, specs, 2, NULL, 0), 0);
	CHECK_INT(c.n, 2);
	CHECK_INT(c.targets.n, 4);
	for (i = 0; i < c.n && c.targets.n == 2 * c.n; i++) {
		const struct bt_target *e = &c.targets.v[i], *r = &c.targets.v[c.n + i];

		CHECK(!e->retprobe && r->retprobe);
		CHECK_INT(r->kind, e->kind);
		CHECK_STR(r->path, e->path);
		CHECK_INT(r->offset, e->offset);
	}
	/* the spec as given; a wildcard's match in the spec's form */
	CHECK_STR(c.names[0], UA_PIE ":ua_alpha");
	CHECK_STR(c.names[1], UA_PIE ":ua_beta");
	bt_calls__free(&c);
	bt_calls__free(NULL);
	/* more entries than the limit, in all */
	memset(&c, 0, sizeof(c));
	CHECK_INT(bt_calls__resolve(&c, specs, 2, NULL, 1), -BT_EUSAGE);
	bt_calls__free(&c);
}

static void test_syscall_return(void)
{
	struct bt_targets t = { 0 };

	CHECK_INT(bt_targets__add(&t, &(struct bt_target){ .kind = BT_SPEC_SYSCALL,
							   .name = "openat",
							   .category = "syscalls",
							   .event = "sys_enter_openat" }),
		  0);
	CHECK_INT(bt_targets__add(&t, &(struct bt_target){ .kind = BT_SPEC_KFUNC,
							   .name = "vfs_read",
							   .func = "vfs_read" }),
		  0);
	CHECK_INT(bt_targets__add_returns(&t), 0);
	CHECK_INT(t.n, 4);
	if (t.n == 4) {
		CHECK(t.v[2].retprobe && t.v[3].retprobe);
		CHECK_STR(t.v[2].category, "syscalls");
		CHECK_STR(t.v[2].event, "sys_exit_openat");
		CHECK_STR(t.v[2].name, "openat");
		CHECK_STR(t.v[3].func, "vfs_read");
	}
	bt_targets__free(&t);
}

int main(void)
{
	BT_RUN(test_refused);
	BT_RUN(test_pairs);
	BT_RUN(test_syscall_return);
	return bt_test_done();
}
