// SPDX-License-Identifier: GPL-2.0
/*
 * User stacks of live fixture processes: each prints its own frame-pointer chain and waits;
 * the test notes it, kills it, and only then symbolizes, so every name here had to survive
 * the process's exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include "bt_sym.h"
#include "fx_util.h"
#include "harness.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);

	return s && a >= b && !strcmp(s + a - b, suffix);
}

/* Run name, note it, kill it, resolve its captured stack; returns the frame count. */
static int run_resolve(struct bt_symbolizer *s, const char *name, struct bt_frame *fr, size_t cap)
{
	struct fx_run r;
	int n;

	if (fx_start(name, &r)) {
		CHECK(0);
		fx_stop(&r);
		return 0;
	}
	CHECK_INT(bt_symbolizer__note_pid(s, r.pid), 0);
	CHECK_INT(bt_symbolizer__note_pid(s, r.pid), 0); /* idempotent */
	fx_stop(&r);
	n = bt_symbolizer__resolve(s, r.pid, r.addrs, r.n, BT_RESOLVE_STACK, fr, cap);
	CHECK(r.n > 0 && n >= (int)r.n); /* one frame per address at least */
	bt_symbolizer__forget_pid(s, r.pid);
	return n;
}

static void expect_names(const char *fixture, const struct bt_sym_opts *o, const char *const *names,
			 int count, const char *module_suffix)
{
	struct bt_symbolizer *s = NULL;
	struct bt_frame fr[16];
	int n, i;

	CHECK_INT(bt_symbolizer__new(o, &s), 0);
	n = run_resolve(s, fixture, fr, 16);
	CHECK_INT(n, count);
	for (i = 0; i < n && i < count; i++) {
		if (names[i]) {
			CHECK_STR(fr[i].name, names[i]);
			CHECK_INT(fr[i].reason, BT_SYM_OK);
		}
	}
	if (module_suffix && n > 0)
		CHECK(ends_with(fr[n - 1].module, module_suffix));
	bt_symbolizer__free(s);
}

static const char *const fx_main_names[] = { "fx_capture", "fx_leaf", "fx_level2", "fx_level1",
					     "main" };

static void test_pie_after_exit(void)
{
	expect_names("fx_pie", NULL, fx_main_names, 5, "/fx_pie");
}

static void test_nopie_after_exit(void)
{
	expect_names("fx_nopie", NULL, fx_main_names, 5, "/fx_nopie");
}

/*
 * A process's identity is its pid, its cookie and its start time: an exited snapshot names its
 * own cookie's stacks until released, never another cookie's; a process announced with a
 * start time it does not have (another process took its pid) is not snapshotted.
 */
static void test_process_identity(void)
{
	struct bt_symbolizer *s = NULL;
	struct bt_sym_stats st;
	struct bt_frame fr[16];
	uint64_t start = 0;
	struct fx_run r;
	int n;

	CHECK_INT(bt_symbolizer__new(NULL, &s), 0);
	CHECK_INT(fx_start("fx_pie", &r), 0);
	CHECK_INT(bt_proc_start_ns(r.pid, &start), 0);
	CHECK(start > 0);
	/* announced as started a second earlier: some other process of that pid */
	CHECK_INT(bt_symbolizer__note_proc(s, r.pid, 7, start - 1000000000ULL), -ESRCH);
	CHECK_INT(bt_symbolizer__note_proc(s, r.pid, 7, start), 0);
	CHECK_INT(bt_symbolizer__note_proc(s, r.pid, 7, start), 0); /* idempotent */
	fx_stop(&r);
	bt_symbolizer__exit_pid(s, r.pid, 7);
	bt_symbolizer__stats(s, &st);
	CHECK_INT(st.procs, 0);
	CHECK_INT(st.exited, 1);
	CHECK_INT(bt_symbolizer__exits(s), 1);
	/* exited, still named by its cookie (and by pid alone) */
	n = bt_symbolizer__resolve_proc(s, r.pid, 7, r.addrs, r.n, BT_RESOLVE_STACK, fr, 16);
	CHECK_INT(n, 5);
	CHECK_STR(fr[n - 1].name, "main");
	n = bt_symbolizer__resolve(s, r.pid, r.addrs, r.n, BT_RESOLVE_STACK, fr, 16);
	CHECK_STR(fr[n - 1].name, "main");
	/* another cookie of the pid: not this snapshot's to name, nor to be snapshotted now */
	n = bt_symbolizer__resolve_proc(s, r.pid, 8, r.addrs, r.n, BT_RESOLVE_STACK, fr, 16);
	CHECK(n >= 1 && fr[0].name == NULL);
	CHECK_INT(fr[0].reason, BT_SYM_PROCESS_GONE);
	/* released once the output that may name it is out */
	bt_symbolizer__release_exited(s, 0);
	bt_symbolizer__stats(s, &st);
	CHECK_INT(st.exited, 1);
	bt_symbolizer__release_exited(s, 1);
	bt_symbolizer__stats(s, &st);
	CHECK_INT(st.exited, 0);
	n = bt_symbolizer__resolve_proc(s, r.pid, 7, r.addrs, r.n, BT_RESOLVE_STACK, fr, 16);
	CHECK(n >= 1 && fr[0].name == NULL);
	CHECK_INT(fr[0].reason, BT_SYM_PROCESS_GONE);
	/*
	 * its files' symbols, mapped by no process now: kept below the bytes given while they
	 * were mapped within the period just ended (for a loop's next process of the binary),
	 * freed after a whole period idle (a binary that ran once)
	 */
	CHECK(st.sym_bytes_unused > 0);
	CHECK_INT(bt_symbolizer__drop_unused(s, st.sym_bytes_unused + 1), 0);
	bt_symbolizer__stats(s, &st);
	CHECK(st.sym_bytes_unused > 0);
	CHECK(bt_symbolizer__drop_unused(s, st.sym_bytes_unused + 1) > 0);
	bt_symbolizer__stats(s, &st);
	CHECK_INT(st.sym_bytes_unused, 0);
	/* and past the bytes given, at once */
	CHECK_INT(fx_start("fx_pie", &r), 0);
	CHECK_INT(bt_proc_start_ns(r.pid, &start), 0);
	CHECK_INT(bt_symbolizer__note_proc(s, r.pid, 9, start), 0);
	n = bt_symbolizer__resolve_proc(s, r.pid, 9, r.addrs, r.n, BT_RESOLVE_STACK, fr, 16);
	CHECK(n >= 1 && fr[n - 1].name && !strcmp(fr[n - 1].name, "main"));
	fx_stop(&r);
	bt_symbolizer__exit_pid(s, r.pid, 9);
	bt_symbolizer__release_exited(s, bt_symbolizer__exits(s));
	bt_symbolizer__stats(s, &st);
	CHECK(st.sym_bytes_unused > 0);
	CHECK(bt_symbolizer__drop_unused(s, st.sym_bytes_unused) > 0);
	bt_symbolizer__stats(s, &st);
	CHECK_INT(st.sym_bytes_unused, 0);
	bt_symbolizer__free(s);
}

static void test_shared_library(void)
{
	static const char *const names[] = { "fx_capture", "fxlib_inner", "fxlib_outer",
					     "fx_level1", "main" };
	struct bt_symbolizer *s = NULL;
	struct bt_frame fr[8];
	int n;

	expect_names("fx_uselib", NULL, names, 5, "/fx_uselib");
	CHECK_INT(bt_symbolizer__new(NULL, &s), 0);
	n = run_resolve(s, "fx_uselib", fr, 8);
	CHECK_INT(n, 5);
	if (n == 5) {
		CHECK(ends_with(fr[1].module, "/libfx.so"));
		CHECK(ends_with(fr[2].module, "/libfx.so"));
		CHECK(ends_with(fr[3].module, "/fx_uselib"));
	}
	bt_symbolizer__free(s);
}

static void test_cxx_demangled(void)
{
	static const char *const names[] = { "fx_capture", "void app::detail::helper<int>(int)",
					     "app::Widget::spin(int)", "main" };
	static const char *const raw[] = { "fx_capture", "_ZN3app6detail6helperIiEEvT_",
					   "_ZN3app6Widget4spinEi", "main" };
	struct bt_sym_opts o = { .no_demangle = 1 };

	expect_names("fx_cxx", NULL, names, 4, "/fx_cxx");
	expect_names("fx_cxx", &o, raw, 4, "/fx_cxx");
}

static void test_stripped_variants(void)
{
	struct bt_symbolizer *s = NULL;
	struct bt_frame fr[8];
	char buf[128];
	int n;

	expect_names("fx_stripped", NULL, fx_main_names, 5, "/fx_stripped");
	expect_names("fx_minidebug", NULL, fx_main_names, 5, "/fx_minidebug");

	CHECK_INT(bt_symbolizer__new(NULL, &s), 0);
	n = run_resolve(s, "fx_stripped_nolink", fr, 8);
	CHECK_INT(n, 5);
	if (n == 5) {
		CHECK(fr[2].name == NULL);
		CHECK_INT(fr[2].reason, BT_SYM_STRIPPED);
		bt_frame__format(&fr[2], 0, buf, sizeof(buf));
		CHECK_STR(buf, "[unknown]");
		bt_frame__format(&fr[2], BT_FMT_REASON | BT_FMT_MODULE, buf, sizeof(buf));
		CHECK_STR(buf, "[unknown] [fx_stripped_nolink] (stripped)");
	}
	bt_symbolizer__free(s);
}

static void test_inlined_frames(void)
{
	struct bt_sym_opts o = { .debuginfo = 1 };
	struct bt_symbolizer *s = NULL;
	struct bt_frame fr[32];
	char buf[256];
	int n;

	CHECK_INT(bt_symbolizer__new(&o, &s), 0);
	n = run_resolve(s, "fx_inline", fr, 32);
	/* fx_capture, then the return into fx_outer expands to three frames, then main */
	CHECK_INT(n, 5);
	if (n == 5) {
		CHECK_STR(fr[0].name, "fx_capture");
		CHECK_STR(fr[1].name, "fx_inl_b");
		CHECK_INT(fr[1].inlined, 1);
		CHECK_INT(fr[1].line, fx_line_of("fx_inline.c", "MARK_B"));
		CHECK_STR(fr[2].name, "fx_inl_a");
		CHECK_INT(fr[2].inlined, 1);
		CHECK_INT(fr[2].line, fx_line_of("fx_inline.c", "MARK_A"));
		CHECK_STR(fr[3].name, "fx_outer");
		CHECK_INT(fr[3].inlined, 0);
		CHECK_INT(fr[3].line, fx_line_of("fx_inline.c", "MARK_OUTER"));
		CHECK(ends_with(fr[3].file, "fx_inline.c"));
		CHECK_STR(fr[4].name, "main");
		CHECK_INT(fr[4].line, fx_line_of("fx_inline.c", "MARK_MAIN"));
		CHECK_INT(fr[1].addr, fr[3].addr);
		bt_frame__format(&fr[1], BT_FMT_SOURCE | BT_FMT_OFFSET, buf, sizeof(buf));
		CHECK(!strncmp(buf, "fx_inl_b (inlined) at ", 22) && strstr(buf, "fx_inline.c:"));
	}
	bt_symbolizer__free(s);

	/* without debuginfo: one frame per address */
	CHECK_INT(bt_symbolizer__new(NULL, &s), 0);
	n = run_resolve(s, "fx_inline", fr, 32);
	CHECK_INT(n, 3);
	CHECK_STR(fr[1].name, "fx_outer");
	CHECK(fr[1].file == NULL);
	bt_symbolizer__free(s);
}

static void test_process_gone(void)
{
	struct bt_symbolizer *s = NULL;
	uint64_t a[2] = { 0x401000, 0x401010 };
	struct bt_sym_stats stats;
	struct bt_frame fr[2];
	char buf[64];
	pid_t pid = fork();

	if (!pid)
		_exit(0);
	waitpid(pid, NULL, 0);
	CHECK_INT(bt_symbolizer__new(NULL, &s), 0);
	CHECK_INT(bt_symbolizer__note_pid(s, pid), -ESRCH);
	CHECK_INT(bt_symbolizer__resolve(s, pid, a, 2, BT_RESOLVE_STACK, fr, 2), 2);
	CHECK_INT(fr[0].reason, BT_SYM_PROCESS_GONE);
	CHECK_INT(fr[1].reason, BT_SYM_PROCESS_GONE);
	bt_frame__format(&fr[0], BT_FMT_REASON | BT_FMT_ADDR, buf, sizeof(buf));
	CHECK_STR(buf, "0x401000 [unknown] (process gone)");
	/* remembered as gone for later stacks, but not counted, and tried again when noted */
	CHECK_INT(bt_symbolizer__resolve(s, pid, a, 1, BT_RESOLVE_STACK, fr, 1), 1);
	CHECK_INT(fr[0].reason, BT_SYM_PROCESS_GONE);
	bt_symbolizer__stats(s, &stats);
	CHECK_INT(stats.procs, 0);
	CHECK_INT(bt_symbolizer__note_pid(s, pid), -ESRCH);
	CHECK_INT(bt_symbolizer__note_pid(s, 0), -EINVAL);
	CHECK_INT(bt_symbolizer__resolve(NULL, pid, a, 2, 0, fr, 2), -EINVAL);
	bt_symbolizer__free(s);
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n;
	int err = in < 0 || out < 0;

	while (!err && (n = read(in, buf, sizeof(buf))) > 0)
		err = write(out, buf, n) != n;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return err ? -1 : 0;
}

/* The binary is replaced on disk after it was mapped: names come from the mapped inode. */
static void test_replaced_on_disk(void)
{
	char dir[] = "/tmp/bt-sym-XXXXXX", exe[256], other[256], src[512];
	struct bt_symbolizer *s = NULL;
	struct bt_frame fr[8];
	struct fx_run r;
	int n, i;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(exe, sizeof(exe), "%s/app", dir);
	snprintf(other, sizeof(other), "%s/app.new", dir);
	snprintf(src, sizeof(src), "%s/fx_pie", FX_DIR);
	CHECK_INT(copy_file(src, exe), 0);
	snprintf(src, sizeof(src), "%s/fx_cxx", FX_DIR);
	CHECK_INT(copy_file(src, other), 0);
	/* fx_start wants a fixture name; run the copy through a path relative to FX_DIR */
	snprintf(src, sizeof(src), "../../../../../../../../../..%s", exe);
	CHECK_INT(fx_start(src, &r), 0);
	CHECK_INT(rename(other, exe), 0);
	CHECK_INT(bt_symbolizer__new(NULL, &s), 0);
	CHECK_INT(bt_symbolizer__note_pid(s, r.pid), 0);
	fx_stop(&r);
	n = bt_symbolizer__resolve(s, r.pid, r.addrs, r.n, BT_RESOLVE_STACK, fr, 8);
	CHECK_INT(n, 5);
	for (i = 0; i < n && i < 5; i++)
		CHECK_STR(fr[i].name, fx_main_names[i]);
	bt_symbolizer__free(s);
	unlink(exe);
	rmdir(dir);
}

static void test_perf_map(void)
{
	struct bt_symbolizer *s = NULL;
	uint64_t a[3] = { 0x7f0000001010, 0x7f0000002000, 0x7f0000003000 };
	struct bt_frame fr[3];
	char path[64], buf[128];
	struct fx_run r;
	FILE *f;

	CHECK_INT(fx_start("fx_pie", &r), 0);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", r.pid);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fprintf(f, "7f0000001000 100 jitted_fn_a\n7f0000002000 80 LazyCompile:*foo "
			   "bar.js:1\n");
		fclose(f);
	}
	CHECK_INT(bt_symbolizer__new(NULL, &s), 0);
	CHECK_INT(bt_symbolizer__note_pid(s, r.pid), 0);
	fx_stop(&r);
	unlink(path); /* the map was opened when the process was noted */
	CHECK_INT(bt_symbolizer__resolve(s, r.pid, a, 3, 0, fr, 3), 3);
	CHECK_STR(fr[0].name, "jitted_fn_a");
	CHECK_INT(fr[0].offset, 0x10);
	CHECK_STR(fr[0].module, "[perf-map]");
	CHECK_STR(fr[1].name, "LazyCompile:*foo bar.js:1");
	CHECK(fr[2].name == NULL);
	CHECK_INT(fr[2].reason, BT_SYM_NO_MAPPING);
	bt_frame__format(&fr[0], BT_FMT_OFFSET | BT_FMT_MODULE, buf, sizeof(buf));
	CHECK_STR(buf, "jitted_fn_a+0x10 [[perf-map]]");
	bt_symbolizer__free(s);
}

/* Our own vDSO: some address in it must come out as a __vdso_ or clock function. */
static void test_vdso(void)
{
	uint64_t base = getauxval(AT_SYSINFO_EHDR), a[1];
	struct bt_symbolizer *s = NULL;
	struct bt_frame fr[1];
	int found = 0, off;

	CHECK(base != 0);
	CHECK_INT(bt_symbolizer__new(NULL, &s), 0);
	CHECK_INT(bt_symbolizer__note_pid(s, getpid()), 0);
	for (off = 0; off < 8192 && !found; off += 4) {
		a[0] = base + off;
		if (bt_symbolizer__resolve(s, getpid(), a, 1, 0, fr, 1) == 1 && fr[0].name) {
			CHECK_STR(fr[0].module, "[vdso]");
			found = strstr(fr[0].name, "gettime") || strstr(fr[0].name, "getcpu");
		}
	}
	CHECK(found);
	bt_symbolizer__free(s);
}

/* max_files bounds loaded symbol tables; evicted files reload and still name right. */
static void test_lru_and_sharing(void)
{
	struct bt_sym_opts o = { .max_files = 1 };
	struct bt_symbolizer *s = NULL;
	struct fx_run a, b, c;
	struct bt_sym_stats st, st2;
	struct bt_frame fr[8];
	int i;

	CHECK_INT(fx_start("fx_pie", &a), 0);
	CHECK_INT(fx_start("fx_nopie", &b), 0);
	CHECK_INT(fx_start("fx_pie", &c), 0);
	CHECK_INT(bt_symbolizer__new(&o, &s), 0);
	CHECK_INT(bt_symbolizer__note_pid(s, a.pid), 0);
	CHECK_INT(bt_symbolizer__note_pid(s, b.pid), 0);
	bt_symbolizer__stats(s, &st);
	CHECK_INT(bt_symbolizer__note_pid(s, c.pid), 0);
	bt_symbolizer__stats(s, &st2);
	CHECK_INT(st2.files, st.files); /* a second fx_pie shares every file */
	CHECK_INT(st2.procs, 3);
	fx_stop(&a);
	fx_stop(&b);
	fx_stop(&c);
	for (i = 0; i < 3; i++) {
		CHECK_INT(bt_symbolizer__resolve(s, a.pid, a.addrs, a.n, BT_RESOLVE_STACK, fr, 8),
			  5);
		CHECK_STR(fr[2].name, "fx_level2");
		CHECK_INT(bt_symbolizer__resolve(s, b.pid, b.addrs, b.n, BT_RESOLVE_STACK, fr, 8),
			  5);
		CHECK_STR(fr[2].name, "fx_level2");
	}
	bt_symbolizer__stats(s, &st);
	CHECK_INT(st.files_loaded, 1);
	CHECK(st.evictions >= 5);
	bt_symbolizer__forget_pid(s, a.pid);
	bt_symbolizer__forget_pid(s, b.pid);
	bt_symbolizer__stats(s, &st);
	CHECK_INT(st.procs, 1);
	CHECK_INT(bt_symbolizer__resolve(s, c.pid, c.addrs, c.n, BT_RESOLVE_STACK, fr, 8), 5);
	CHECK_STR(fr[4].name, "main");
	bt_symbolizer__free(s);
}

/* A small frame array: every address still gets a frame, inlined ones are dropped first. */
static void test_small_cap(void)
{
	struct bt_sym_opts o = { .debuginfo = 1 };
	struct bt_symbolizer *s = NULL;
	struct bt_frame fr[3];
	struct fx_run r;

	CHECK_INT(fx_start("fx_inline", &r), 0);
	CHECK_INT(bt_symbolizer__new(&o, &s), 0);
	CHECK_INT(bt_symbolizer__note_pid(s, r.pid), 0);
	fx_stop(&r);
	CHECK_INT(bt_symbolizer__resolve(s, r.pid, r.addrs, r.n, BT_RESOLVE_STACK, fr, 3), 3);
	CHECK_STR(fr[0].name, "fx_capture");
	CHECK_STR(fr[1].name, "fx_outer");
	CHECK_STR(fr[2].name, "main");
	CHECK_INT(bt_symbolizer__resolve(s, r.pid, r.addrs, r.n, BT_RESOLVE_STACK, fr, 1), 1);
	bt_symbolizer__free(s);
}

int main(void)
{
	BT_RUN(test_pie_after_exit);
	BT_RUN(test_nopie_after_exit);
	BT_RUN(test_process_identity);
	BT_RUN(test_shared_library);
	BT_RUN(test_cxx_demangled);
	BT_RUN(test_stripped_variants);
	BT_RUN(test_inlined_frames);
	BT_RUN(test_process_gone);
	BT_RUN(test_replaced_on_disk);
	BT_RUN(test_perf_map);
	BT_RUN(test_vdso);
	BT_RUN(test_lru_and_sharing);
	BT_RUN(test_small_cap);
	return bt_test_done();
}
