// SPDX-License-Identifier: GPL-2.0
/* Demangling, the printed forms, and the /proc/PID/maps line parser. */
#include <stdlib.h>
#include <unistd.h>

#include "bt_sym.h"
#include "harness.h"
#include "sym_internal.h"

static void check_demangle(const char *in, const char *want)
{
	char *out = bt_demangle(in);

	if (want)
		CHECK_STR(out, want);
	else
		CHECK(out == NULL);
	free(out);
}

static void test_demangle(void)
{
	check_demangle("_ZN3app6Widget4spinEi", "app::Widget::spin(int)");
	check_demangle("_ZNSt6vectorIiSaIiEE9push_backERKi",
		       "std::vector<int, std::allocator<int> >::push_back(int const&)");
	check_demangle("_Z3foov.cold", "foo() [clone .cold]");
	/* legacy Rust: the hash dropped, the $-escapes decoded */
	check_demangle("_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write");
	check_demangle("_ZN55_$LT$std..path..PathBuf$u20$as$u20$core..fmt..Debug$GT$"
		       "3fmt17h2b3c4d5e6f708192E",
		       "<std::path::PathBuf as core::fmt::Debug>::fmt");
	check_demangle("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h9f8e7d6c5b4a3928E",
		       "std::rt::lang_start::{{closure}}");
#ifdef BT_HAVE_LIBIBERTY
	/* Rust v0 (RFC 2603): std's lang_start_internal, the crate hashes left out */
	check_demangle("_RNvNtCs1234_3std2rt19lang_start_internal", "std::rt::lang_start_internal");
	check_demangle("_RNvMNtCs9ltgdHTiPiY_4core3fmtNtB2_9Formatter3pad",
		       "<core::fmt::Formatter>::pad");
#else
	check_demangle("_RNvNtCs1234_3std2rt19lang_start_internal", NULL);
#endif
	check_demangle("main", NULL);
	check_demangle("_Z", NULL);
	check_demangle("_ZN999999E", NULL);
	check_demangle(NULL, NULL);
}

static void test_dmcache(void)
{
	struct bt_dmcache c = { 0 };
	static const char mangled[] = "_ZN3app6Widget4spinEi";
	const char *a = bt_dmcache__get(&c, mangled), *b = bt_dmcache__get(&c, mangled);

	CHECK_STR(a, "app::Widget::spin(int)");
	CHECK(a == b); /* the second lookup is the cached string */
	CHECK(bt_dmcache__get(&c, "plain_c") != NULL);
	CHECK_STR(bt_dmcache__get(&c, "plain_c"), "plain_c");
	bt_dmcache__clear(&c);
	CHECK_INT(c.n, 0);
}

static void test_format(void)
{
	struct bt_frame f = { .addr = 0x7f00001234,
			      .name = "do_work",
			      .offset = 0x1f,
			      .module = "/usr/lib/libfoo.so.1",
			      .file = "foo.c",
			      .line = 42 };
	char buf[128], small[8];
	int n;

	bt_frame__format(&f, 0, buf, sizeof(buf));
	CHECK_STR(buf, "do_work");
	bt_frame__format(&f, BT_FMT_OFFSET, buf, sizeof(buf));
	CHECK_STR(buf, "do_work+0x1f");
	bt_frame__format(&f, BT_FMT_VERBOSE, buf, sizeof(buf));
	CHECK_STR(buf, "0x7f00001234 do_work+0x1f [libfoo.so.1]");
	bt_frame__format(&f, BT_FMT_SOURCE, buf, sizeof(buf));
	CHECK_STR(buf, "do_work at foo.c:42");
	f.inlined = 1;
	bt_frame__format(&f, BT_FMT_OFFSET | BT_FMT_SOURCE, buf, sizeof(buf));
	CHECK_STR(buf, "do_work (inlined) at foo.c:42");
	f = (struct bt_frame){ .addr = 0x10, .reason = BT_SYM_NO_SYMBOL };
	bt_frame__format(&f, BT_FMT_OFFSET, buf, sizeof(buf));
	CHECK_STR(buf, "[unknown]");
	bt_frame__format(&f, BT_FMT_VERBOSE, buf, sizeof(buf));
	CHECK_STR(buf, "0x10 [unknown] (no symbol)");
	/* truncation: like snprintf, terminated, full length returned */
	n = bt_frame__format(&f, BT_FMT_VERBOSE, small, sizeof(small));
	CHECK_INT(n, strlen("0x10 [unknown] (no symbol)"));
	CHECK_STR(small, "0x10 [u");
	CHECK_INT(bt_frame__format(&f, 0, NULL, 0), strlen("[unknown]"));
	CHECK_STR(bt_sym_reason__str(BT_SYM_STRIPPED), "stripped");
	CHECK_STR(bt_sym_reason__str(BT_SYM_PROCESS_GONE), "process gone");
}

static void test_maps_line(void)
{
	char l1[] = "55d0c2a00000-55d0c2a21000 r-xp 00001000 fd:01 1312345     /usr/bin/my app\n";
	char l2[] = "7ffd1a3f0000-7ffd1a3f2000 r-xp 00000000 00:00 0                  [vdso]\n";
	char l3[] = "7f0000000000-7f0000001000 rwxp 00000000 00:00 0 \n";
	char l4[] = "7f12-7f10 r-xp 0 0:0 0 /x\n";
	char l5[] = "garbage\n";
	char l6[] = "7f0000000000-7f0000001000 r-xp 00000000 08:02 77 /tmp/gone (deleted)\n";
	struct bt_map_line m;

	CHECK_INT(bt_procmaps__parse_line(l1, &m), 0);
	CHECK_INT(m.start, 0x55d0c2a00000);
	CHECK_INT(m.end, 0x55d0c2a21000);
	CHECK_INT(m.pgoff, 0x1000);
	CHECK_INT(m.dev_major, 0xfd);
	CHECK_INT(m.ino, 1312345);
	CHECK_STR(m.perms, "r-xp");
	CHECK_STR(m.path, "/usr/bin/my app");
	CHECK_INT(bt_procmaps__parse_line(l2, &m), 0);
	CHECK_STR(m.path, "[vdso]");
	CHECK_INT(bt_procmaps__parse_line(l3, &m), 0);
	CHECK_STR(m.path, "");
	CHECK(bt_procmaps__parse_line(l4, &m) < 0);
	CHECK(bt_procmaps__parse_line(l5, &m) < 0);
	CHECK_INT(bt_procmaps__parse_line(l6, &m), 0);
	CHECK_STR(m.path, "/tmp/gone");
}

static void test_perfmap_garbage(void)
{
	char path[] = "/tmp/bt-perfmap-XXXXXX";
	struct bt_perfmap *pm = NULL;
	uint64_t off = 0;
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	CHECK(f != NULL);
	fprintf(f, "zzzz\n1000 0 zero_size\n2000 10\n3000 10 ok_one\n\n4000 100 huge\n"
		   "5000 10 half_written");
	fclose(f);
	CHECK_INT(bt_perfmap__open_path(path, &pm), 0);
	CHECK_INT(bt_perfmap__refresh(pm), 0);
	CHECK_STR(bt_perfmap__lookup(pm, 0x3005, &off), "ok_one");
	CHECK_INT(off, 5);
	CHECK(bt_perfmap__lookup(pm, 0x1000, NULL) == NULL);
	CHECK(bt_perfmap__lookup(pm, 0x2005, NULL) == NULL);
	CHECK(bt_perfmap__lookup(pm, 0x5005, NULL) == NULL); /* no newline yet */
	CHECK_STR(bt_perfmap__lookup(pm, 0x40ff, NULL), "huge");
	bt_perfmap__free(pm);
	unlink(path);
	bt_perfmap__free(NULL);
}

int main(void)
{
	BT_RUN(test_demangle);
	BT_RUN(test_dmcache);
	BT_RUN(test_format);
	BT_RUN(test_maps_line);
	BT_RUN(test_perfmap_garbage);
	return bt_test_done();
}
