// SPDX-License-Identifier: GPL-2.0
/* Kernel symbols from kallsyms fixtures: modules, BPF programs, long names, hidden addresses. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "bt_sym.h"
#include "harness.h"
#include "sym_internal.h"

#define KS FX_SRC "/data/kallsyms"
#define KS_ZERO FX_SRC "/data/kallsyms.zero"
#define K(off) (0xffffffff81000000ull + (off))
#define M(off) (0xffffffffc0000000ull + (off))

static char longname[600];

static void read_longname(void)
{
	FILE *f = fopen(FX_SRC "/data/longname", "r");

	CHECK(f != NULL);
	if (f) {
		CHECK(fgets(longname, sizeof(longname), f) != NULL);
		fclose(f);
	}
}

static void test_parse(void)
{
	struct bt_ksyms *ks = NULL;
	const struct bt_ksym *k;
	uint64_t off = 0;

	CHECK_INT(bt_ksyms__load(KS, &ks), 0);
	CHECK_INT(bt_ksyms__count(ks), 20); /* 23 lines, two aliases, one absolute */
	CHECK_INT(bt_ksyms__restricted(ks), 0);
	k = bt_ksyms__lookup(ks, K(0x1115), &off);
	CHECK_STR(k ? k->name : NULL, "vfs_read");
	CHECK(k && k->module == NULL && k->type == 'T');
	CHECK_INT(off, 5);
	k = bt_ksyms__lookup(ks, K(0x1410), &off);
	CHECK_STR(k ? k->name : NULL, longname);
	CHECK(k && strlen(k->name) > 256 && k->size == 0x400);
	k = bt_ksyms__lookup(ks, M(0x1210), &off);
	CHECK_STR(k ? k->name : NULL, "ext4_file_write_iter");
	CHECK_STR(k ? k->module : NULL, "ext4");
	k = bt_ksyms__lookup(ks, M(0x3010), NULL);
	CHECK_STR(k ? k->name : NULL, "bpf_prog_6deef7357e7b4530_sd_fw_egress");
	CHECK_STR(k ? k->module : NULL, "bpf");
	/* aliases: the global, strong, least-underscored name */
	k = bt_ksyms__lookup(ks, K(0), NULL);
	CHECK_STR(k ? k->name : NULL, "startup_64");
	k = bt_ksyms__lookup(ks, K(0x1c08), NULL);
	CHECK_STR(k ? k->name : NULL, "schedule_tail");
	CHECK(bt_ksyms__lookup(ks, 0, NULL) == NULL);
	CHECK(bt_ksyms__lookup(ks, K(-1), NULL) == NULL);
	bt_ksyms__free(ks);
}

static void test_find(void)
{
	struct bt_ksyms *ks = NULL;
	const struct bt_ksym *k;

	CHECK_INT(bt_ksyms__load(KS, &ks), 0);
	k = bt_ksyms__find(ks, "vfs_read", NULL);
	CHECK(k && k->addr == K(0x1110) && !k->module);
	k = bt_ksyms__find(ks, "vfs_read", "fakemod");
	CHECK(k && k->addr == M(0x2000));
	k = bt_ksyms__find(ks, longname, NULL);
	CHECK(k && k->addr == K(0x1400));
	CHECK(bt_ksyms__find(ks, "vfs_read", "ext4") == NULL);
	CHECK(bt_ksyms__find(ks, "no_such_function", NULL) == NULL);
	bt_ksyms__free(ks);
	CHECK_INT(bt_ksyms__load("/nonexistent/kallsyms", &ks), -ENOENT);
	CHECK(ks == NULL);
}

static void test_artefacts(void)
{
	CHECK(bt_ksym__is_trace_artefact("bpf_prog_6deef7357e7b4530_x", "bpf"));
	CHECK(bt_ksym__is_trace_artefact("bpf_trampoline_6442455138", NULL));
	CHECK(bt_ksym__is_trace_artefact("__bpf_trace_sched_switch", NULL));
	CHECK(bt_ksym__is_trace_artefact("bpf_trace_run2", NULL));
	CHECK(bt_ksym__is_trace_artefact("__kretprobe_trampoline", NULL));
	CHECK(bt_ksym__is_trace_artefact("kretprobe_trampoline", NULL));
	CHECK(bt_ksym__is_trace_artefact("arch_rethook_trampoline", NULL));
	CHECK(bt_ksym__is_trace_artefact("ftrace_trampoline", "__builtin__ftrace"));
	CHECK(!bt_ksym__is_trace_artefact("schedule", NULL));
	CHECK(!bt_ksym__is_trace_artefact("bpf_map_lookup_elem", NULL));
	CHECK(!bt_ksym__is_trace_artefact("ext4_file_read_iter", "ext4"));
}

static int warnings;

static void count_warn(void *ctx, const char *msg)
{
	warnings++;
	CHECK(strstr(msg, "kptr_restrict") != NULL);
}

static void test_resolve_and_trim(void)
{
	struct bt_sym_opts o = { .kallsyms = KS, .warn = count_warn };
	uint64_t stack[] = { M(0x4010), M(0x3820), K(0x1a10), K(0x1910),
			     K(0x1b11), K(0x1001), M(0x1200) };
	struct bt_symbolizer *s = NULL;
	struct bt_frame fr[8];
	char buf[128];
	int n;

	CHECK_INT(bt_symbolizer__new(&o, &s), 0);
	CHECK_INT(bt_symbolizer__kernel_trim(s, stack, 7), 4);
	{
		/* code with no symbol first (arm64's BPF programs): trimmed when an artefact
		 * follows, kept when the kernel's own code does */
		uint64_t unnamed[] = { 8, M(0x4010), K(0x1b11), K(0x1001) };
		uint64_t plain[] = { 8, K(0x1b11), K(0x1001) };

		CHECK_INT(bt_symbolizer__kernel_trim(s, unnamed, 4), 2);
		CHECK_INT(bt_symbolizer__kernel_trim(s, plain, 3), 0);
	}
	n = bt_symbolizer__resolve(s, BT_PID_KERNEL, stack, 7, BT_RESOLVE_STACK | BT_RESOLVE_TRIM,
				   fr, 8);
	CHECK_INT(n, 3);
	CHECK_STR(fr[0].name, "schedule");
	CHECK_INT(fr[0].offset, 0x11);
	CHECK_STR(fr[1].name, "do_one_initcall");
	CHECK_INT(fr[1].offset, 1);
	/* a return address right at the start of a function belongs to the one before it */
	CHECK_STR(fr[2].name, "ext4_file_read_iter");
	CHECK_STR(fr[2].module, "ext4");
	bt_frame__format(&fr[0], BT_FMT_OFFSET, buf, sizeof(buf));
	CHECK_STR(buf, "schedule+0x11");
	bt_frame__format(&fr[2], BT_FMT_OFFSET | BT_FMT_MODULE, buf, sizeof(buf));
	CHECK_STR(buf, "ext4_file_read_iter+0x200 [ext4]");
	bt_frame__format(&fr[0], BT_FMT_ADDR, buf, sizeof(buf));
	CHECK_STR(buf, "0xffffffff81001b11 schedule");
	/* without TRIM every frame stays, BPF ones named */
	n = bt_symbolizer__resolve(s, BT_PID_KERNEL, stack, 2, 0, fr, 8);
	CHECK_INT(n, 2);
	CHECK_STR(fr[0].name, "bpf_prog_00000000deadbeef_handle_sched");
	CHECK_STR(fr[1].name, "bpf_trampoline_6442455138");
	/*
	 * a kretprobe's trampoline where it replaced a return address (kernels before 5.15):
	 * named by its own first byte, not as the end of the function before it
	 */
	stack[0] = K(0x1b11);
	stack[1] = K(0x1800);
	stack[2] = K(0x1001);
	n = bt_symbolizer__resolve(s, BT_PID_KERNEL, stack, 3, BT_RESOLVE_STACK | BT_RESOLVE_TRIM,
				   fr, 8);
	CHECK_INT(n, 3);
	CHECK_STR(fr[1].name, "arch_rethook_trampoline");
	CHECK_INT(fr[1].offset, 0);
	CHECK_STR(fr[2].name, "do_one_initcall");
	CHECK(bt_ksym__is_return_trampoline("kretprobe_trampoline"));
	CHECK(!bt_ksym__is_return_trampoline("kretprobe_trampoline_handler"));
	CHECK(!bt_ksym__is_return_trampoline(NULL));
	stack[0] = M(0x4010);
	stack[1] = M(0x3820);
	stack[2] = K(0x1a10);
	/* a stack of artefacts only is not trimmed to nothing */
	n = bt_symbolizer__resolve(s, BT_PID_KERNEL, stack, 2, BT_RESOLVE_TRIM, fr, 8);
	CHECK_INT(n, 2);
	CHECK_INT(warnings, 0);
	bt_symbolizer__free(s);
}

static void test_restricted(void)
{
	struct bt_sym_opts o = { .kallsyms = KS_ZERO, .warn = count_warn };
	struct bt_symbolizer *s = NULL;
	uint64_t a[] = { K(0x1115), M(0x1010) };
	struct bt_frame fr[2];
	char buf[128];
	int i;

	warnings = 0;
	CHECK_INT(bt_symbolizer__new(&o, &s), 0);
	for (i = 0; i < 3; i++) {
		CHECK_INT(bt_symbolizer__resolve(s, BT_PID_KERNEL, a, 2, 0, fr, 2), 2);
		CHECK(fr[0].name == NULL && fr[1].name == NULL);
		CHECK_INT(fr[0].reason, BT_SYM_NO_PERMISSION);
	}
	CHECK_INT(warnings, 1); /* said once */
	CHECK(bt_ksyms__restricted(bt_symbolizer__ksyms(s)));
	bt_frame__format(&fr[0], 0, buf, sizeof(buf));
	CHECK_STR(buf, "[unknown]");
	bt_frame__format(&fr[0], BT_FMT_REASON, buf, sizeof(buf));
	CHECK_STR(buf, "[unknown] (no permission)");
	bt_symbolizer__free(s);

	o.kallsyms = "/nonexistent/kallsyms";
	CHECK_INT(bt_symbolizer__new(&o, &s), 0);
	CHECK_INT(bt_symbolizer__resolve(s, BT_PID_KERNEL, a, 1, 0, fr, 2), 1);
	CHECK_INT(fr[0].reason, BT_SYM_NO_KSYMS);
	bt_symbolizer__free(s);
}

static char cache_dir[64], modules[96];

/* The copy in cache_dir, its path into path; how many copies there are. */
static int cache_files(char *path, size_t size)
{
	DIR *d = opendir(cache_dir);
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "ksyms-", 6))
			continue;
		if (snprintf(path, size, "%s/%s", cache_dir, e->d_name) >= (int)size)
			continue; /* not one of ours: those names are short */
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

static void write_modules(const char *text)
{
	FILE *f = fopen(modules, "w");

	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* The per-boot copy: the first load reads kallsyms and writes it; the next reads it. */
static void test_cache(void)
{
	struct bt_ksyms *ks = NULL, *live = NULL;
	const struct bt_ksym *k;
	char path[256], first[256];
	uint64_t off = 1;
	FILE *f;

	snprintf(cache_dir, sizeof(cache_dir), "/tmp/bt_ksyms_XXXXXX");
	CHECK(mkdtemp(cache_dir) != NULL);
	snprintf(modules, sizeof(modules), "%s/modules.txt", cache_dir);
	write_modules("ext4 8192 0 - Live 0xffffffffc0001000\n"
		      "fakemod 4096 0 - Live 0xffffffffc0002000\n");
	CHECK_INT(bt_ksyms__load_cached(cache_dir, KS, modules, &live), 0);
	CHECK_INT(bt_ksyms__count(live), 20); /* read whole: BPF programs too */
	CHECK_INT(cache_files(first, sizeof(first)), 1);
	CHECK_INT(bt_ksyms__load_cached(cache_dir, KS, modules, &ks), 0);
	CHECK_INT(bt_ksyms__count(ks), 17); /* from the copy: without the three [bpf] */
	k = bt_ksyms__lookup(ks, K(0x1115), &off);
	CHECK_STR(k ? k->name : NULL, "vfs_read");
	CHECK(k && !k->module && k->type == 'T' && off == 5);
	k = bt_ksyms__lookup(ks, K(0x1410), NULL);
	CHECK_STR(k ? k->name : NULL, longname);
	k = bt_ksyms__lookup(ks, M(0x1210), NULL);
	CHECK_STR(k ? k->name : NULL, "ext4_file_write_iter");
	CHECK_STR(k ? k->module : NULL, "ext4");
	/* BPF code is no module's: a tracing artefact, whatever program it is now */
	k = bt_ksyms__lookup(ks, M(0x3010), &off);
	CHECK_STR(k ? k->module : NULL, "bpf");
	CHECK(k && bt_ksym__is_trace_artefact(k->name, k->module) && off == 0);
	k = bt_ksyms__lookup(ks, M(0x9000), NULL);
	CHECK_STR(k ? k->name : NULL, "[jit]");
	/* inside vmlinux a miss stays a miss */
	CHECK(bt_ksyms__lookup(ks, K(-1), NULL) == NULL);
	k = bt_ksyms__find(ks, "vfs_read", "fakemod");
	CHECK(k && k->addr == M(0x2000));
	k = bt_ksyms__find(ks, "vfs_read", NULL); /* vmlinux's first */
	CHECK(k && k->addr == K(0x1110) && !k->module);
	CHECK(bt_ksyms__find(ks, "vfs_rea", NULL) == NULL);
	/* the copy's symbols are made once: a second lookup gives the same one */
	k = bt_ksyms__lookup(ks, K(0x1115), NULL);
	CHECK(k && k == bt_ksyms__lookup(ks, K(0x1116), NULL));
	bt_ksyms__free(ks);

	/* a damaged copy is read past: kallsyms again, and a good copy written */
	f = fopen(first, "r+");
	CHECK(f != NULL);
	if (f) {
		CHECK_INT(ftruncate(fileno(f), 100), 0);
		fclose(f);
	}
	CHECK_INT(bt_ksyms__load_cached(cache_dir, KS, modules, &ks), 0);
	CHECK_INT(bt_ksyms__count(ks), 20);
	bt_ksyms__free(ks);
	CHECK_INT(bt_ksyms__load_cached(cache_dir, KS, modules, &ks), 0);
	CHECK_INT(bt_ksyms__count(ks), 17);
	bt_ksyms__free(ks);

	/* a module loaded: another key, and the old copy goes */
	write_modules("ext4 8192 0 - Live 0xffffffffc0001000\n"
		      "fakemod 4096 0 - Live 0xffffffffc0002000\n"
		      "newmod 4096 0 - Live 0xffffffffc0005000\n");
	CHECK_INT(bt_ksyms__load_cached(cache_dir, KS, modules, &ks), 0);
	CHECK_INT(bt_ksyms__count(ks), 20);
	bt_ksyms__free(ks);
	CHECK_INT(cache_files(path, sizeof(path)), 1);
	CHECK(strcmp(path, first) != 0);
	unlink(path);
	unlink(modules);
	rmdir(cache_dir);
	bt_ksyms__free(live);
}

/*
 * This kernel's own table, where it can be read: every symbol the copy keeps resolves as the
 * whole table resolves it, and every address of run-time code is an artefact.
 */
static void test_cache_live(void)
{
	struct bt_ksyms *all = NULL, *ks = NULL;
	size_t i, kept = 0, jit = 0, bad = 0;
	const struct bt_ksym *c, *first;
	char path[256];
	uint64_t off;

	if (bt_ksyms__load(NULL, &all) || bt_ksyms__restricted(all) || !bt_ksyms__count(all)) {
		printf("# skip: /proc/kallsyms unreadable or its addresses hidden\n");
		bt_ksyms__free(all);
		return;
	}
	snprintf(cache_dir, sizeof(cache_dir), "/tmp/bt_ksyms_XXXXXX");
	CHECK(mkdtemp(cache_dir) != NULL);
	CHECK_INT(bt_ksyms__load_cached(cache_dir, NULL, NULL, &ks), 0);
	bt_ksyms__free(ks);
	ks = NULL;
	CHECK_INT(bt_ksyms__load_cached(cache_dir, NULL, NULL, &ks), 0);
	CHECK(ks && ks->from_cache && !ks->syms && ks->block_addr);
	/* looked up first, it stays where it is while thousands more are made (ASan: no move) */
	first = ks ? bt_ksyms__lookup(ks, all->syms[all->n / 2].addr, NULL) : NULL;
	CHECK(first != NULL);
	for (i = 0; ks && i < all->n; i++) {
		const struct bt_ksym *s = &all->syms[i];
		int dynamic = s->module && (!strcmp(s->module, "bpf") ||
					    !strcmp(s->module, "__builtin__ftrace") ||
					    !strcmp(s->module, "__builtin__kprobes"));

		c = bt_ksyms__lookup(ks, s->addr, &off);
		if (dynamic) {
			jit++;
			bad += !c || !bt_ksym__is_trace_artefact(c->name, c->module);
		} else {
			kept++;
			bad += !c || off || strcmp(c->name, s->name) ||
			       (s->module ? !c->module || strcmp(c->module, s->module)
					  : c->module != NULL);
		}
	}
	printf("# %zu symbols resolve alike, %zu of run-time code as artefacts, %zu otherwise\n",
	       kept, jit, bad);
	CHECK(kept > 1000);
	CHECK_INT(bad, 0);
	c = ks ? bt_ksyms__lookup(ks, all->syms[all->n / 2].addr, NULL) : NULL;
	CHECK(c && c == first && first->addr == all->syms[all->n / 2].addr &&
	      !strcmp(first->name, all->syms[all->n / 2].name));
	bt_ksyms__free(ks);
	bt_ksyms__free(all);
	if (cache_files(path, sizeof(path)))
		unlink(path);
	rmdir(cache_dir);
}

int main(void)
{
	read_longname();
	BT_RUN(test_parse);
	BT_RUN(test_find);
	BT_RUN(test_artefacts);
	BT_RUN(test_resolve_and_trim);
	BT_RUN(test_restricted);
	BT_RUN(test_cache);
	BT_RUN(test_cache_live);
	return bt_test_done();
}
