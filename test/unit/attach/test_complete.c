// SPDX-License-Identifier: GPL-2.0
/*
 * Completion candidates (lib/cli/bt_complete.c) on fixtures: kernel functions from
 * available_filter_functions and, when it is unreadable, from BTF; tracepoints and syscalls
 * from an available_events file; user functions of a binary built here; PIDs from a /proc
 * made of directories. Only names starting with the prefix come back.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "bt_complete.h"
#include "bt_err.h"
#include "bt_kfuncs.h"
#include "harness.h"

#define FX BT_TEST_SRCDIR "/test/unit/attach/fixtures/"

/* The candidates of one call, "word" or "word=desc", sorted, joined by spaces. */
struct got {
	char *v[64];
	size_t n;
	char text[4096];
};

static int collect(const char *word, const char *desc, void *arg)
{
	struct got *g = arg;
	char *s;

	if (g->n == 64)
		return -E2BIG;
	if (asprintf(&s, "%s%s%s", word, desc ? "=" : "", desc ? desc : "") < 0)
		return -ENOMEM;
	g->v[g->n++] = s;
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort, join, free: the candidates as one string ("" for none). */
static const char *joined(struct got *g)
{
	size_t i, len = 0;

	qsort(g->v, g->n, sizeof(*g->v), cmp);
	g->text[0] = '\0';
	for (i = 0; i < g->n; i++) {
		len += snprintf(g->text + len, sizeof(g->text) - len, "%s%s", i ? " " : "",
				g->v[i]);
		free(g->v[i]);
	}
	g->n = 0;
	return g->text;
}

static struct btf *test_btf(void)
{
	static const char *const funcs[] = { "vfs_read", "vfs_write", "inlined_only",
					     "tcp_blocked" };
	struct btf *btf = btf__new_empty();
	size_t i;
	int proto;

	if (!btf)
		return NULL;
	proto = btf__add_func_proto(btf, 0);
	for (i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		btf__add_func(btf, funcs[i], BTF_FUNC_GLOBAL, proto);
	btf__add_int(btf, "vfs_int", 4, 0); /* not a function: never offered */
	return btf;
}

static void test_kfuncs_filter(void)
{
	struct bt_kfuncs_sources src = {
		.filter_functions = FX "available_filter_functions",
		.blacklist = FX "blacklist",
		.kallsyms = "",
	};
	struct got g = {};

	bt_kfuncs_set_sources(&src);
	CHECK_INT(bt_complete_kfuncs("vfs_", collect, &g), 0);
	CHECK_STR(joined(&g), "vfs_open vfs_read vfs_write");
	/* a compiler copy is offered under its base name */
	CHECK_INT(bt_complete_kfuncs("do_", collect, &g), 0);
	CHECK_STR(joined(&g), "do_thing");
	/* blacklisted: tcp_blocked is not offered */
	CHECK_INT(bt_complete_kfuncs("tcp_", collect, &g), 0);
	CHECK_STR(joined(&g), "tcp_recvmsg tcp_sendmsg");
	CHECK_INT(bt_complete_kfuncs("nothing", collect, &g), 0);
	CHECK_STR(joined(&g), "");
}

static void test_kfuncs_btf(void)
{
	struct btf *btf = test_btf();
	struct bt_kfuncs_sources src = {
		.filter_functions = "", /* unreadable, as under lockdown */
		.kallsyms = FX "kallsyms",
		.btf = btf,
	};
	struct got g = {};

	bt_kfuncs_set_sources(&src);
	CHECK_INT(bt_complete_kfuncs("vfs_", collect, &g), 0);
	CHECK_STR(joined(&g), "vfs_read vfs_write");
	CHECK_INT(bt_complete_kfuncs("in", collect, &g), 0);
	CHECK_STR(joined(&g), "inlined_only");
	bt_kfuncs_set_sources(NULL);
	btf__free(btf);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static void test_tracepoints(void)
{
	char dir[] = "/tmp/bt-complete.XXXXXX", path[128];
	struct got g = {};

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/available_events", dir);
	write_file(path, "sched:sched_switch\nsched:sched_wakeup\nsched:sched_swap_numa\n"
			 "syscalls:sys_enter_getppid\nsyscalls:sys_exit_getppid\n"
			 "syscalls:sys_enter_getpid\nirq:softirq_entry\n");
	CHECK_INT(bt_complete_tracepoints(path, "sched:sched_sw", collect, &g), 0);
	CHECK_STR(joined(&g), "sched:sched_swap_numa sched:sched_switch");
	CHECK_INT(bt_complete_tracepoints(path, "i", collect, &g), 0);
	CHECK_STR(joined(&g), "irq:softirq_entry");
	/* syscall:NAME, from the enter events only */
	CHECK_INT(bt_complete_syscalls(path, "getp", collect, &g), 0);
	CHECK_STR(joined(&g), "getpid getppid");
	CHECK_INT(bt_complete_tracepoints("/nonexistent/available_events", "", collect, &g),
		  -ENOENT);
	unlink(path);
	rmdir(dir);
}

static void test_pids(void)
{
	static const char *const pids[] = { "123", "1234", "45" };
	char dir[] = "/tmp/bt-complete.XXXXXX", path[128];
	struct got g = {};
	size_t i;

	CHECK(mkdtemp(dir) != NULL);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, pids[i]);
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/%s/comm", dir, pids[i]);
		write_file(path, i == 2 ? "" : i ? "worker\n" : "sleep\n");
	}
	snprintf(path, sizeof(path), "%s/self", dir); /* not a pid */
	mkdir(path, 0755);
	CHECK_INT(bt_complete_pids(dir, "12", collect, &g), 0);
	CHECK_STR(joined(&g), "1234=worker 123=sleep"); /* sorted with the "=" */
	CHECK_INT(bt_complete_pids(dir, "", collect, &g), 0);
	CHECK_STR(joined(&g), "1234=worker 123=sleep 45"); /* no comm: no description */
	CHECK_INT(bt_complete_pids(dir, "9", collect, &g), 0);
	CHECK_STR(joined(&g), "");
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s/comm", dir, pids[i]);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%s", dir, pids[i]);
		rmdir(path);
	}
	snprintf(path, sizeof(path), "%s/self", dir);
	rmdir(path);
	rmdir(dir);
}

static void test_ufuncs(void)
{
	struct got g = {};

	/* .symtab: the global, its alias and the static function */
	CHECK_INT(bt_complete_ufuncs(UA_DIR "/ua_pie", 0, "ua_", collect, &g), 0);
	CHECK_STR(joined(&g), "ua_alpha ua_alpha_longer_alias ua_beta");
	CHECK_INT(bt_complete_ufuncs(UA_DIR "/ua_pie", 0, "ua_alpha_l", collect, &g), 0);
	CHECK_STR(joined(&g), "ua_alpha_longer_alias");
	/* stripped: the symbols of its .gnu_debuglink file */
	CHECK_INT(bt_complete_ufuncs(UA_DIR "/ua_stripped", 0, "ua_b", collect, &g), 0);
	CHECK_STR(joined(&g), "ua_beta");
	/* a library that does not exist: the resolver's usage error */
	CHECK_INT(bt_complete_ufuncs("no_such_library_xyz", 0, "", collect, &g), -BT_EUSAGE);
	CHECK_STR(joined(&g), "");
}

static void test_usdt(void)
{
	struct got g = {};

	CHECK_INT(bt_complete_usdt(UA_DIR "/ua_pie", 0, "", collect, &g), 0);
	CHECK_STR(joined(&g), "ua_prov:ua_fire ua_prov:ua_other");
	CHECK_INT(bt_complete_usdt(UA_DIR "/ua_nopie", 0, "ua_prov:ua_f", collect, &g), 0);
	CHECK_STR(joined(&g), "ua_prov:ua_fire");
	CHECK_INT(bt_complete_usdt(UA_DIR "/ua_pie", 0, "other", collect, &g), 0);
	CHECK_STR(joined(&g), "");
}

int main(void)
{
	BT_RUN(test_kfuncs_filter);
	BT_RUN(test_kfuncs_btf);
	BT_RUN(test_tracepoints);
	BT_RUN(test_pids);
	BT_RUN(test_ufuncs);
	BT_RUN(test_usdt);
	bt_kfuncs_set_sources(NULL);
	return bt_test_done();
}
