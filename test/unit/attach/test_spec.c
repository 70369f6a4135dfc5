// SPDX-License-Identifier: GPL-2.0
/* The probe grammar (lib/attach/bt_probe_spec.c): every form of lib/attach/bt_attach.h and the bad ones. */
#include <stdio.h>

#include "bt_attach.h"
#include "bt_err.h"
#include "bt_uprobe.h"
#include "harness.h"

#define NOMOD ((const char *)0)

static void check_ok(const char *text, enum bt_spec_kind kind, bool ret, const char *module,
		     const char *pattern)
{
	struct bt_probe_spec s;
	int err = bt_probe_spec__parse(text, &s);

	CHECK_INT(err, 0);
	if (err) {
		fprintf(stderr, "  spec '%s'\n", text);
		return;
	}
	CHECK_INT(s.kind, kind);
	CHECK_INT(s.retprobe, ret);
	if (module)
		CHECK_STR(s.module, module);
	else
		CHECK(s.module == NULL);
	CHECK_STR(s.pattern, pattern);
	CHECK_STR(s.text, text);
	bt_probe_spec__free(&s);
}

static void check_bad(const char *text)
{
	struct bt_probe_spec s;

	CHECK_INT(bt_probe_spec__parse(text, &s), -BT_EUSAGE);
	CHECK(s.pattern == NULL && s.module == NULL && s.text == NULL);
	bt_probe_spec__free(&s); /* harmless after a failure */
}

static void test_kernel(void)
{
	check_ok("vfs_read", BT_SPEC_KFUNC, false, NOMOD, "vfs_read");
	check_ok("vfs_*", BT_SPEC_KFUNC, false, NOMOD, "vfs_*");
	check_ok("p:vfs_read", BT_SPEC_KFUNC, false, NOMOD, "vfs_read");
	check_ok("p::vfs_read", BT_SPEC_KFUNC, false, NOMOD, "vfs_read");
	check_ok("r:vfs_read", BT_SPEC_KFUNC, true, NOMOD, "vfs_read");
	check_ok("r::vfs_*", BT_SPEC_KFUNC, true, NOMOD, "vfs_*");
}

static void test_user(void)
{
	check_ok("c:malloc", BT_SPEC_UFUNC, false, "c", "malloc");
	check_ok("p:c:malloc", BT_SPEC_UFUNC, false, "c", "malloc");
	check_ok("r:c:malloc", BT_SPEC_UFUNC, true, "c", "malloc");
	check_ok("pthread:pthread_*", BT_SPEC_UFUNC, false, "pthread", "pthread_*");
	check_ok("/usr/bin/bash:readline", BT_SPEC_UFUNC, false, "/usr/bin/bash", "readline");
	check_ok("./test:read*", BT_SPEC_UFUNC, false, "./test", "read*");
	check_ok("bash:readline", BT_SPEC_UFUNC, false, "bash", "readline");
	check_ok("c:memcpy@@GLIBC_2.14", BT_SPEC_UFUNC, false, "c", "memcpy@@GLIBC_2.14");
	/* a ':' inside a bracket expression is the pattern's, not a separator */
	check_ok("c:[[:alpha:]]+mem", BT_SPEC_UFUNC, false, "c", "[[:alpha:]]+mem");
	check_ok("p:c:mem[[:alpha:][:digit:]]*", BT_SPEC_UFUNC, false, "c",
		 "mem[[:alpha:][:digit:]]*");
	check_ok("c:x[]:]y", BT_SPEC_UFUNC, false, "c", "x[]:]y");
	check_ok("c:x[^:]y", BT_SPEC_UFUNC, false, "c", "x[^:]y");
	check_ok("t:sched:sched_[[:lower:]]*", BT_SPEC_TRACEPOINT, false, "sched",
		 "sched_[[:lower:]]*");
	/* an unclosed '[' is an ordinary character: the ':' after it still separates */
	check_ok("c:x[", BT_SPEC_UFUNC, false, "c", "x[");
	check_ok("a[b:x", BT_SPEC_UFUNC, false, "a[b", "x");
}

static void test_tracepoints(void)
{
	check_ok("t:sched:sched_switch", BT_SPEC_TRACEPOINT, false, "sched", "sched_switch");
	check_ok("tracepoint:block:*", BT_SPEC_TRACEPOINT, false, "block", "*");
	check_ok("t:sys*:sys_enter_getpp*", BT_SPEC_TRACEPOINT, false, "sys*", "sys_enter_getpp*");
	check_ok("syscall:getppid", BT_SPEC_SYSCALL, false, "syscalls", "getppid");
	check_ok("syscall:read*", BT_SPEC_SYSCALL, false, "syscalls", "read*");
}

static void test_usdt(void)
{
	check_ok("u:node:gc*", BT_SPEC_USDT, false, "node", "gc*");
	check_ok("usdt:/usr/lib/libc.so.6:setjmp", BT_SPEC_USDT, false, "/usr/lib/libc.so.6",
		 "setjmp");
	/* a provider can be named too */
	check_ok("u:c:libc:setjmp", BT_SPEC_USDT, false, "c", "libc:setjmp");
}

static void test_malformed(void)
{
	check_bad("");
	check_bad(NULL);
	check_bad("p:a:b:c"); /* too many colons */
	check_bad("a:b:c:d:e");
	check_bad("t:a:b:c");
	check_bad("syscall:a:b");
	check_bad("x:lib:func"); /* unknown type */
	check_bad("k:lib:func");
	check_bad("t:sched"); /* t: without event */
	check_bad("tracepoint:sched");
	check_bad("t::sched_switch");
	check_bad("t:sched:");
	check_bad("u:node"); /* usdt without probe */
	check_bad("u::probe");
	check_bad("u:node:");
	check_bad("u:c:libc:");
	check_bad("p:"); /* empty names */
	check_bad("p::");
	check_bad("r:");
	check_bad("lib:");
	check_bad(":func");
	check_bad(":");
	check_bad("syscall:");
	check_bad("p:lib:");
}

static void test_match(void)
{
	struct bt_match m;

	CHECK_INT(bt_match__init(&m, "vfs_*", false), 0);
	CHECK(bt_match__test(&m, "vfs_read"));
	CHECK(!bt_match__test(&m, "do_vfs_read"));
	bt_match__fini(&m);
	CHECK_INT(bt_match__init(&m, "getpid", false), 0);
	CHECK(bt_match__test(&m, "getpid"));
	CHECK(!bt_match__test(&m, "getpid2"));
	bt_match__fini(&m);
	/* regular expressions match the whole name */
	CHECK_INT(bt_match__init(&m, "vfs_(read|write)", true), 0);
	CHECK(bt_match__test(&m, "vfs_read"));
	CHECK(!bt_match__test(&m, "vfs_readv"));
	CHECK(!bt_match__test(&m, "do_vfs_read"));
	bt_match__fini(&m);
	CHECK_INT(bt_match__init(&m, "a|b", true), 0); /* alternation stays inside the anchors */
	CHECK(bt_match__test(&m, "a"));
	CHECK(!bt_match__test(&m, "ab"));
	bt_match__fini(&m);
	CHECK_INT(bt_match__init(&m, "sched_(s", true), -BT_EUSAGE);
	bt_match__fini(&m);
	CHECK_INT(bt_match__init(&m, "x{2,1}", true), -BT_EUSAGE);
	bt_match__fini(&m);
	/*
	 * The user's groups keep their numbers: no wrapper group is added for the anchoring
	 * (wrapped as "^(...)$", "\2" below would name "(a)", and "\2" in "(mem)\2" would be
	 * accepted).
	 */
	CHECK_INT(bt_match__init(&m, "(mem)\\1", true), 0);
	CHECK(bt_match__test(&m, "memmem"));
	CHECK(!bt_match__test(&m, "memmemx"));
	CHECK(!bt_match__test(&m, "xmemmem"));
	CHECK(!bt_match__test(&m, "mem"));
	bt_match__fini(&m);
	CHECK_INT(bt_match__init(&m, "(a)?(mem)\\2", true), 0);
	CHECK(bt_match__test(&m, "memmem"));
	CHECK(bt_match__test(&m, "amemmem"));
	CHECK(!bt_match__test(&m, "amema"));
	bt_match__fini(&m);
	CHECK_INT(bt_match__init(&m, "(mem)\\2", true), -BT_EUSAGE);
	bt_match__fini(&m);
	/* leftmost-longest: a shorter alternative first still lets the whole name match */
	CHECK_INT(bt_match__init(&m, "mem|memmem", true), 0);
	CHECK(bt_match__test(&m, "memmem"));
	bt_match__fini(&m);
	CHECK_INT(bt_match__init(&m, "[[:alpha:]]+mem", true), 0);
	CHECK(bt_match__test(&m, "memmem"));
	CHECK(!bt_match__test(&m, "mem"));
	bt_match__fini(&m);
}

int main(void)
{
	/* The error paths print to stderr; that is their job, not noise. */
	BT_RUN(test_kernel);
	BT_RUN(test_user);
	BT_RUN(test_tracepoints);
	BT_RUN(test_usdt);
	BT_RUN(test_malformed);
	BT_RUN(test_match);
	return bt_test_done();
}
