// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel-function list (lib/attach/bt_kfuncs.c) on fixture files: both sources (tracefs
 * available_filter_functions, kallsyms + BTF), compiler-suffix aliasing, the kprobes
 * blacklist, wildcard deny lists, globs, regexes and their errors, "why not" reasons, reading
 * once per run; and the --attach mode parser.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "bt_attach_internal.h"
#include "bt_err.h"
#include "bt_kfuncs.h"
#include "harness.h"

#define FX BT_TEST_SRCDIR "/test/unit/attach/fixtures/"

static struct btf *test_btf(void)
{
	static const char *const funcs[] = {
		"vfs_read",	"vfs_write",	  "vfs_open",		"do_thing",
		"helper",	"lto_fn",	  "split_fn",		"tcp_sendmsg",
		"tcp_recvmsg",	"tcp_blocked",	  "rcu_read_lock_held", "perf_event_output",
		"dup_static",	"tcp_init_early", "entry_SYSCALL_64",	"ext4_file_read_iter",
		"inlined_only",
	};
	struct btf *btf = btf__new_empty();
	size_t i;
	int proto;

	if (!btf)
		return NULL;
	proto = btf__add_func_proto(btf, 0);
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		btf__add_func(btf, funcs[i], BTF_FUNC_GLOBAL, proto);
	return btf;
}

static struct btf *btf;

static void use_filter_path(void)
{
	struct bt_kfuncs_sources src = {
		.kallsyms = FX "kallsyms",
		.filter_functions = FX "available_filter_functions",
		.blacklist = FX "blacklist",
		.btf = btf,
	};

	bt_kfuncs_set_sources(&src);
}

static void use_kallsyms_path(void)
{
	struct bt_kfuncs_sources src = {
		.kallsyms = FX "kallsyms",
		.filter_functions = "", /* as if EPERM under lockdown */
		.blacklist = FX "blacklist",
		.btf = btf,
	};

	bt_kfuncs_set_sources(&src);
}

/* Match, return the count, and keep the targets in *t (freed by the caller). */
static int match(const char *pattern, bool regex, struct bt_targets *t)
{
	memset(t, 0, sizeof(*t));
	return bt_kfuncs_match(pattern, regex, false, t);
}

static int count(const char *pattern, bool regex)
{
	struct bt_targets t;
	int n = match(pattern, regex, &t);

	if (n >= 0)
		CHECK_INT(n, t.n); /* the return value counts what was appended */
	bt_targets__free(&t);
	return n;
}

static bool has(const struct bt_targets *t, const char *name, const char *func)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].name, name) && !strcmp(t->v[i].func, func) &&
		    t->v[i].kind == BT_SPEC_KFUNC)
			return true;
	return false;
}

static void test_base_names(void)
{
	char b[64];
	bool cold;

	CHECK_INT(bt_kfunc_base("foo.isra.0", b, sizeof(b), &cold), 3);
	CHECK_STR(b, "foo");
	CHECK(!cold);
	CHECK_INT(bt_kfunc_base("foo_bar.constprop.0.isra.0", b, sizeof(b), &cold), 7);
	CHECK_STR(b, "foo_bar");
	CHECK_INT(bt_kfunc_base("f.llvm.9876543210abcdef", b, sizeof(b), &cold), 1);
	CHECK_INT(bt_kfunc_base("split.part.12", b, sizeof(b), &cold), 5);
	CHECK_INT(bt_kfunc_base("x.cold", b, sizeof(b), &cold), 1);
	CHECK(cold);
	CHECK_INT(bt_kfunc_base("x.isra.0.cold", b, sizeof(b), &cold), 1);
	CHECK(cold);
	CHECK_INT(bt_kfunc_base("x.cold.1", b, sizeof(b), &cold), 1);
	CHECK(cold);
	CHECK_INT(bt_kfunc_base("plain", b, sizeof(b), &cold), 0);
	CHECK_INT(bt_kfunc_base("foo.isra", b, sizeof(b), &cold), 0);  /* no number */
	CHECK_INT(bt_kfunc_base("foo.bar.1", b, sizeof(b), &cold), 0); /* unknown suffix */
	CHECK_INT(bt_kfunc_base(".isra.0", b, sizeof(b), &cold), 0);
	CHECK_INT(bt_kfunc_base("foo.llvm.xyz", b, sizeof(b), &cold), 0);
}

static void test_filter_source(void)
{
	struct bt_kfuncs_info info;

	use_filter_path();
	CHECK_INT(bt_kfuncs_info(&info), 0);
	CHECK_INT(info.source, BT_KFUNCS_FILTER_FUNCTIONS);
	/* 18 lines: tcp_blocked blacklisted, __ftrace_invalid_address__ dropped, dup_static once */
	CHECK_INT(info.count, 15);
	CHECK_INT(info.blacklisted, 1);
	CHECK_INT(info.filter_err, 0);
	CHECK_INT(info.blacklist_err, 0);
}

static void test_exact(void)
{
	struct bt_targets t;

	use_filter_path();
	CHECK_INT(match("vfs_read", false, &t), 1);
	CHECK(has(&t, "vfs_read", "vfs_read"));
	CHECK(!t.v[0].retprobe);
	bt_targets__free(&t);

	/* Only a compiler copy exists: the target keeps the real symbol, prints the base. */
	CHECK_INT(match("do_thing", false, &t), 1);
	CHECK(has(&t, "do_thing", "do_thing.isra.0"));
	bt_targets__free(&t);
	CHECK_INT(match("do_thing.isra.0", false, &t), 1);
	CHECK(has(&t, "do_thing", "do_thing.isra.0"));
	bt_targets__free(&t);
	CHECK_INT(match("lto_fn", false, &t), 1);
	CHECK(has(&t, "lto_fn", "lto_fn.llvm.1234567890"));
	bt_targets__free(&t);
	CHECK_INT(count("split_fn", false), 1);

	/* The original and a clone: both are entry points, both are traced. */
	CHECK_INT(match("helper", false, &t), 2);
	CHECK(has(&t, "helper", "helper"));
	CHECK(has(&t, "helper", "helper.constprop.0"));
	bt_targets__free(&t);

	CHECK_INT(count("dup_static", false), 1);	   /* the same name twice attaches once */
	CHECK_INT(count("ext4_file_read_iter", false), 1); /* module functions */
	CHECK_INT(count("tcp_blocked", false), 0);	   /* blacklisted */
	CHECK_INT(count("no_such_function", false), 0);
	CHECK_INT(count("__ftrace_invalid_address___64", false), 0);

	/* Deny-listed for wildcards only: an exact name still works. */
	CHECK_INT(count("rcu_read_lock_held", false), 1);
	CHECK_INT(count("perf_event_output", false), 1);

	memset(&t, 0, sizeof(t));
	CHECK_INT(bt_kfuncs_match("vfs_write", false, true, &t), 1);
	CHECK(t.n == 1 && t.v[0].retprobe);
	bt_targets__free(&t);
}

/* A fixed name's compiler copies (vfsstat's list): the copies only, never the name itself. */
static void test_copies(void)
{
	const char *v[4];

	use_filter_path();
	CHECK_INT(bt_kfunc_copies("helper", v, 4), 1);
	CHECK_STR(v[0], "helper.constprop.0");
	CHECK_INT(bt_kfunc_copies("split_fn", v, 4), 1); /* only the copy is there */
	CHECK_STR(v[0], "split_fn.part.0");
	CHECK_INT(bt_kfunc_copies("helper", NULL, 0), 1); /* counted without room */
	CHECK_INT(bt_kfunc_copies("vfs_read", v, 4), 0);
	CHECK_INT(bt_kfunc_copies("helper.constprop.0", v, 4), 0); /* a copy has none */
	CHECK_INT(bt_kfunc_copies("no_such_function", v, 4), 0);
	CHECK_INT(bt_kfunc_copies("ext4_sync_fs", v, 4), 1); /* in a module */
	use_kallsyms_path();
	CHECK_INT(bt_kfunc_copies("helper", v, 4), 1);
	CHECK_STR(v[0], "helper.constprop.0");
}

static void test_globs(void)
{
	struct bt_targets t;

	use_filter_path();
	CHECK_INT(match("vfs_*", false, &t), 3);
	CHECK(has(&t, "vfs_read", "vfs_read") && has(&t, "vfs_write", "vfs_write") &&
	      has(&t, "vfs_open", "vfs_open"));
	bt_targets__free(&t);
	CHECK_INT(count("tcp_*", false), 2); /* tcp_blocked is blacklisted */
	CHECK_INT(count("vfs_?ead", false), 1);
	CHECK_INT(count("vfs_[rw]*", false), 2);
	CHECK_INT(count("*_fn", false), 2);	/* base names: lto_fn and split_fn */
	CHECK_INT(count("*.isra.*", false), 2); /* real names: do_thing, ext4_sync_fs */
	CHECK_INT(count("ext4_*", false), 2);
	CHECK_INT(count("helper*", false), 2);
	CHECK_INT(count("rcu_read_*", false), 0); /* would recurse: wildcards skip it */
	CHECK_INT(count("perf_*", false), 0);	  /* bcc: kprobes run through perf */
	CHECK_INT(count("*", false), 13);	  /* 15 minus the two deny-listed */
	CHECK_INT(count("nomatch*", false), 0);
}

static void test_regex(void)
{
	use_filter_path();
	CHECK_INT(count("vfs_(read|write)", true), 2);
	CHECK_INT(count("read", true), 0);     /* anchored to the whole name */
	CHECK_INT(count(".*read.*", true), 2); /* vfs_read, ext4_file_read_iter */
	CHECK_INT(count("tcp_.*", true), 2);
	CHECK_INT(count("do_thing\\.isra\\.[0-9]+", true), 1);
	CHECK_INT(count("rcu_.*", true), 0);
	/* Errors name the pattern and say why; -BT_EUSAGE makes main() exit 2. */
	CHECK_INT(count("vfs_(", true), -BT_EUSAGE);
	CHECK_INT(count("[z-a]", true), -BT_EUSAGE);
	CHECK_INT(count("*x", true), -BT_EUSAGE);
}

static void test_why_not_filter(void)
{
	use_filter_path();
	CHECK(bt_kfuncs_why_not("vfs_read") == NULL);
	CHECK(bt_kfuncs_why_not("do_thing") == NULL);
	CHECK_STR(bt_kfuncs_why_not("no_such_function"), "no such function");
	CHECK_STR(bt_kfuncs_why_not("tcp_blocked"),
		  "function is not traceable (blacklisted for kprobes)");
	/* In kallsyms (read only now, on the error path), not in the ftrace list. */
	CHECK_STR(bt_kfuncs_why_not("asm_only_stub"),
		  "function is not traceable (inlined, notrace, or blacklisted)");
	/* In BTF, in no symbol table: inlined everywhere. */
	CHECK_STR(bt_kfuncs_why_not("inlined_only"),
		  "function is not traceable (inlined, notrace, or blacklisted)");
	CHECK_STR(bt_kfuncs_why_not("vfs_read.cold"), "a '.cold' part is not a function entry");
}

static void test_kallsyms_source(void)
{
	struct bt_kfuncs_info info;
	struct bt_targets t;

	use_kallsyms_path();
	CHECK_INT(bt_kfuncs_info(&info), 0);
	CHECK_INT(info.source, BT_KFUNCS_KALLSYMS_BTF);
	CHECK_INT(info.filter_err, ENOENT);
	CHECK_INT(info.count, 13);
	CHECK_INT(count("vfs_*", false), 3); /* not vfs_read.cold, not the data symbol */
	CHECK_INT(match("do_thing", false, &t), 1);
	CHECK(has(&t, "do_thing", "do_thing.isra.0")); /* BTF knows the base name */
	bt_targets__free(&t);
	CHECK_INT(count("helper", false), 2);
	CHECK_INT(count("dup_static", false), 1);
	CHECK_INT(count("tcp_*", false), 2);	     /* not blacklisted, not init text */
	CHECK_INT(count("asm_only_stub", false), 0); /* no BTF: not a C function */
	CHECK_INT(count("nobtf_static", false), 0);
	CHECK_INT(count("entry_SYSCALL_64", false), 0); /* entry text, blacklisted range */
	CHECK_INT(count("ext4_*", false), 0);		/* module BTF is not consulted */
	CHECK_INT(count("__pfx_vfs_read", false), 0);
	CHECK_INT(count("vfs_data_table", false), 0);
	CHECK_STR(bt_kfuncs_why_not("tcp_init_early"),
		  "function is not traceable (init, entry or noinstr code)");
	CHECK_STR(bt_kfuncs_why_not("entry_SYSCALL_64"),
		  "function is not traceable (blacklisted for kprobes)");
	CHECK(strstr(bt_kfuncs_why_not("ext4_file_read_iter"), "module functions") != NULL);
	CHECK_STR(bt_kfuncs_why_not("asm_only_stub"),
		  "function is not traceable (inlined, notrace, or blacklisted)");
	CHECK_STR(bt_kfuncs_why_not("nothing_at_all"), "no such function");
}

static void test_no_blacklist(void)
{
	struct bt_kfuncs_sources src = {
		.filter_functions = FX "available_filter_functions",
		.blacklist = FX "does-not-exist",
		.kallsyms = FX "kallsyms",
		.btf = btf,
	};
	struct bt_kfuncs_info info;

	bt_kfuncs_set_sources(&src);
	CHECK_INT(bt_kfuncs_info(&info), 0);
	CHECK_INT(info.blacklist_err, ENOENT);
	CHECK_INT(info.count, 16);
	CHECK_INT(count("tcp_blocked", false), 1);
}

static void test_nothing_readable(void)
{
	struct bt_kfuncs_sources src = {
		.filter_functions = "",
		.blacklist = "",
		.kallsyms = FX "does-not-exist",
		.btf = btf,
	};
	struct bt_kfuncs_info info;

	bt_kfuncs_set_sources(&src);
	CHECK_INT(bt_kfuncs_info(&info), -ENOENT);
	CHECK_INT(info.err, ENOENT);
	CHECK_INT(count("vfs_read", false), -ENOENT);
}

/* Read once per run: after the first match, the files are not looked at again. */
static void test_read_once(void)
{
	char tmp[] = "/tmp/bt-kfuncs-XXXXXX", cmd[256];
	struct bt_kfuncs_sources src = { .kallsyms = FX "kallsyms", .blacklist = "", .btf = btf };
	int fd = mkstemp(tmp);

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", FX "available_filter_functions", tmp);
	CHECK_INT(system(cmd), 0);
	src.filter_functions = tmp;
	bt_kfuncs_set_sources(&src);
	CHECK_INT(count("vfs_*", false), 3);
	unlink(tmp);
	CHECK_INT(count("vfs_*", false), 3);
	CHECK_INT(count("tcp_recvmsg", false), 1);
}

static void test_attach_modes(void)
{
	enum bt_attach_mode m = BT_ATTACH_KPROBE;

	CHECK_INT(bt_attach_mode_parse("auto", &m), 0);
	CHECK_INT(m, BT_ATTACH_AUTO);
	CHECK_INT(bt_attach_mode_parse("fentry", &m), 0);
	CHECK_INT(m, BT_ATTACH_FENTRY);
	CHECK_INT(bt_attach_mode_parse("kprobe", &m), 0);
	CHECK_INT(m, BT_ATTACH_KPROBE);
	CHECK_INT(bt_attach_mode_parse("kprobes", &m), -BT_EUSAGE);
	CHECK_INT(bt_attach_mode_parse("", &m), -BT_EUSAGE);
	CHECK_INT(bt_attach_mode_parse("FENTRY", &m), -BT_EUSAGE);
	CHECK_INT(m, BT_ATTACH_KPROBE); /* untouched on error */
	CHECK_STR(bt_attach_mode_name(BT_ATTACH_AUTO), "auto");
	CHECK_STR(bt_attach_mode_name(BT_ATTACH_FENTRY), "fentry");
	CHECK_STR(bt_attach_mode_name(BT_ATTACH_KPROBE), "kprobe");
}

static void test_wildcard_deny(void)
{
	CHECK(bt_kfunc_wildcard_denied("rcu_read_lock"));
	CHECK(bt_kfunc_wildcard_denied("rcu_read_unlock_strict"));
	CHECK(bt_kfunc_wildcard_denied("__rcu_read_lock"));
	CHECK(bt_kfunc_wildcard_denied("preempt_count_add"));
	CHECK(bt_kfunc_wildcard_denied("migrate_disable"));
	CHECK(bt_kfunc_wildcard_denied("__bpf_prog_enter_recur"));
	CHECK(bt_kfunc_wildcard_denied("bpf_trampoline_link_prog"));
	CHECK(bt_kfunc_wildcard_denied("bpf_spin_lock"));
	CHECK(bt_kfunc_wildcard_denied("__perf_event_overflow"));
	CHECK(bt_kfunc_wildcard_denied("_kbl_addr_foo"));
	CHECK(bt_kfunc_wildcard_denied("__SCT__tp_func_sched_switch"));
	CHECK(!bt_kfunc_wildcard_denied("vfs_read"));
	CHECK(!bt_kfunc_wildcard_denied("tcp_sendmsg"));
	CHECK(!bt_kfunc_wildcard_denied("rcu_core"));
}

int main(void)
{
	btf = test_btf();
	CHECK(btf != NULL);
	BT_RUN(test_base_names);
	BT_RUN(test_filter_source);
	BT_RUN(test_exact);
	BT_RUN(test_copies);
	BT_RUN(test_globs);
	BT_RUN(test_regex);
	BT_RUN(test_why_not_filter);
	BT_RUN(test_kallsyms_source);
	BT_RUN(test_no_blacklist);
	BT_RUN(test_nothing_readable);
	BT_RUN(test_read_once);
	BT_RUN(test_attach_modes);
	BT_RUN(test_wildcard_deny);
	bt_kfuncs_set_sources(NULL);
	btf__free(btf);
	return bt_test_done();
}
