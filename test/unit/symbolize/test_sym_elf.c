// SPDX-License-Identifier: GPL-2.0
/* The bt_elf.h contract, on the fixture binaries and on broken files. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_elf.h"
#include "harness.h"

static struct bt_elf *fx_open(const char *name)
{
	char path[512];
	struct bt_elf *elf = NULL;
	int err;

	snprintf(path, sizeof(path), "%s/%s", FX_DIR, name);
	err = bt_elf__open(path, NULL, &elf);
	CHECK_INT(err, 0);
	return elf;
}

static void check_lookup_roundtrip(struct bt_elf *elf, const char *name)
{
	const struct bt_elf_sym *s = bt_elf__find_func(elf, name), *l;
	uint64_t off = 99, foff = 0, v = 0;

	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(s->size > 0);
	l = bt_elf__lookup(elf, s->vaddr, &off);
	CHECK(l != NULL);
	CHECK_STR(l ? l->name : NULL, name);
	CHECK_INT(off, 0);
	l = bt_elf__lookup(elf, s->vaddr + s->size - 1, &off);
	CHECK_STR(l ? l->name : NULL, name);
	CHECK_INT(off, s->size - 1);
	CHECK_INT(bt_elf__vaddr_to_offset(elf, s->vaddr, &foff), 0);
	CHECK_INT(bt_elf__offset_to_vaddr(elf, foff, &v), 0);
	CHECK_INT(v, s->vaddr);
}

static void test_pie(void)
{
	struct bt_elf *elf = fx_open("fx_pie");
	const struct bt_elf_sym *s;

	if (!elf)
		return;
	CHECK_INT(bt_elf__type(elf), ET_DYN);
	CHECK(bt_elf__build_id(elf) != NULL);
	CHECK_INT(strlen(bt_elf__build_id(elf)), 40);
	CHECK(bt_elf__has_symbols(elf));
	CHECK_INT(bt_elf__symbol_source(elf), BT_ELF_SRC_SYMTAB);
	check_lookup_roundtrip(elf, "fx_level1");
	check_lookup_roundtrip(elf, "fx_level2");
	check_lookup_roundtrip(elf, "main");
	s = bt_elf__find_func(elf, "fx_level2");
	CHECK(s && s->bind == 0 /* STB_LOCAL */ && s->kind == BT_ELF_FUNC && !s->from_debug_file);
	s = bt_elf__find_func(elf, "fx_level1");
	CHECK(s && s->bind == 1 /* STB_GLOBAL */);
	CHECK(bt_elf__find_func(elf, "printf") == NULL);  /* undefined: not a definition */
	CHECK(bt_elf__find_func(elf, "fx_sink") == NULL); /* an object, not a function */
	CHECK(bt_elf__lookup(elf, 0, NULL) == NULL);
	CHECK(bt_elf__lookup(elf, ~0ull, NULL) == NULL);
	bt_elf__close(elf);
}

static void test_nopie(void)
{
	struct bt_elf *elf = fx_open("fx_nopie");

	if (!elf)
		return;
	CHECK_INT(bt_elf__type(elf), ET_EXEC);
	check_lookup_roundtrip(elf, "fx_level2");
	check_lookup_roundtrip(elf, "main");
	/* non-PIE code starts at 0x400000 or above; PIE code near 0 */
	CHECK(bt_elf__find_func(elf, "main")->vaddr >= 0x400000);
	bt_elf__close(elf);
}

static void test_shared_lib(void)
{
	struct bt_elf *elf = fx_open("libfx.so");
	const struct bt_elf_sym *s;

	if (!elf)
		return;
	CHECK_INT(bt_elf__type(elf), ET_DYN);
	check_lookup_roundtrip(elf, "fxlib_outer");
	check_lookup_roundtrip(elf, "fxlib_inner");
	s = bt_elf__find_func(elf, "fxlib_outer");
	CHECK(s && s->version == NULL);
	bt_elf__close(elf);
}

struct count_ctx {
	int total, main_seen, stop_at;
};

static int count_cb(const struct bt_elf_sym *s, void *ctx)
{
	struct count_ctx *c = ctx;

	c->total++;
	if (!strcmp(s->name, "main"))
		c->main_seen++;
	if (!s->vaddr || !s->name[0])
		return -1;
	return c->stop_at && c->total == c->stop_at ? 42 : 0;
}

static void test_foreach(void)
{
	struct bt_elf *elf = fx_open("fx_pie");
	struct count_ctx c = { 0 };

	if (!elf)
		return;
	CHECK_INT(bt_elf__foreach_func(elf, count_cb, &c), 0);
	CHECK_INT(c.main_seen, 1); /* .symtab and .dynsym agree: listed once */
	CHECK(c.total >= 5);
	CHECK_INT(c.total, bt_elf__nsyms(elf));
	c = (struct count_ctx){ .stop_at = 2 };
	CHECK_INT(bt_elf__foreach_func(elf, count_cb, &c), 42);
	CHECK_INT(c.total, 2);
	bt_elf__close(elf);
}

static void test_stripped(void)
{
	struct bt_elf *plain = fx_open("fx_pie"), *elf = fx_open("fx_stripped_nolink");

	if (!elf || !plain)
		goto out;
	CHECK(bt_elf__find_func(elf, "fx_level2") == NULL);
	CHECK(bt_elf__lookup(elf, bt_elf__find_func(plain, "fx_level2")->vaddr, NULL) == NULL);
	CHECK(bt_elf__symbol_source(elf) == BT_ELF_SRC_NONE ||
	      bt_elf__symbol_source(elf) == BT_ELF_SRC_DYNSYM);
	CHECK(bt_elf__debug_file(elf) == NULL);
	CHECK_STR(bt_elf__build_id(elf), bt_elf__build_id(plain));
out:
	bt_elf__close(elf);
	bt_elf__close(plain);
}

static void test_debuglink(void)
{
	struct bt_elf *plain = fx_open("fx_pie"), *elf = fx_open("fx_stripped");
	const struct bt_elf_sym *s, *p;

	if (!elf || !plain)
		goto out;
	CHECK(bt_elf__has_symbols(elf));
	CHECK_INT(bt_elf__symbol_source(elf), BT_ELF_SRC_DEBUGLINK);
	CHECK(bt_elf__debug_file(elf) && strstr(bt_elf__debug_file(elf), "/fx_stripped.debug"));
	s = bt_elf__find_func(elf, "fx_level2");
	p = bt_elf__find_func(plain, "fx_level2");
	CHECK(s && p && s->vaddr == p->vaddr && s->size == p->size && s->from_debug_file);
	check_lookup_roundtrip(elf, "fx_leaf");
out:
	bt_elf__close(elf);
	bt_elf__close(plain);
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ssize_t n;

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, n) != n)
			break;
	}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return in < 0 || out < 0 ? -1 : 0;
}

/* A debuglink file of another build must be refused (build-id mismatch). */
static void test_debuglink_mismatch(void)
{
	char dir[] = "/tmp/bt-sym-XXXXXX", a[512], b[512], src[512];
	struct bt_elf *elf = NULL;

	if (!mkdtemp(dir)) {
		CHECK(0);
		return;
	}
	snprintf(a, sizeof(a), "%s/fx_stripped", dir);
	snprintf(b, sizeof(b), "%s/fx_stripped.debug", dir);
	snprintf(src, sizeof(src), "%s/fx_stripped", FX_DIR);
	CHECK_INT(copy_file(src, a), 0);
	snprintf(src, sizeof(src), "%s/fx_nopie", FX_DIR); /* full symbols, wrong build */
	CHECK_INT(copy_file(src, b), 0);
	CHECK_INT(bt_elf__open(a, NULL, &elf), 0);
	CHECK(bt_elf__find_func(elf, "fx_level2") == NULL);
	CHECK(bt_elf__debug_file(elf) == NULL);
	bt_elf__close(elf);
	/* the same file found through a root prefix: "/fx_stripped" inside root dir */
	CHECK_INT(bt_elf__open(a, dir, &elf), 0);
	bt_elf__close(elf);
	unlink(a);
	unlink(b);
	rmdir(dir);
}

static void test_minidebuginfo(void)
{
	struct bt_elf *plain = fx_open("fx_pie"), *elf = fx_open("fx_minidebug");
	const struct bt_elf_sym *s, *p;

	if (!elf || !plain)
		goto out;
	CHECK_INT(bt_elf__symbol_source(elf), BT_ELF_SRC_DEBUGDATA);
	s = bt_elf__find_func(elf, "fx_level2");
	p = bt_elf__find_func(plain, "fx_level2");
	CHECK(s && p && s->vaddr == p->vaddr && s->from_debug_file);
	check_lookup_roundtrip(elf, "fx_level2");
	check_lookup_roundtrip(elf, "main");
	bt_elf__unload(elf); /* reload after dropping: the LRU does this */
	check_lookup_roundtrip(elf, "fx_leaf");
out:
	bt_elf__close(elf);
	bt_elf__close(plain);
}

/* The system libc: versions from .gnu.version_d, symbols from its build-id debug file. */
static void test_libc(void)
{
	const char *path = "/lib/x86_64-linux-gnu/libc.so.6";
	struct bt_elf *elf = NULL;
	const struct bt_elf_sym *s;
	char dbg[256];

	if (access(path, R_OK)) {
		CHECK(1);
		return;
	}
	CHECK_INT(bt_elf__open(path, NULL, &elf), 0);
	s = bt_elf__find_func(elf, "fopen");
	CHECK(s != NULL);
	CHECK_STR(s ? s->version : NULL, "GLIBC_2.2.5");
	snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", bt_elf__build_id(elf),
		 bt_elf__build_id(elf) + 2);
	if (!access(dbg, R_OK)) {
		/* libc6-dbg: the debug file adds libc's internal functions */
		int src = bt_elf__symbol_source(elf);

		CHECK(src == BT_ELF_SRC_BUILDID || src == BT_ELF_SRC_DEBUGLINK);
		CHECK(bt_elf__find_func(elf, "_IO_new_file_fopen") != NULL);
	}
	bt_elf__close(elf);
}

static void write_file(const char *path, const void *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK_INT(write(fd, buf, len), len);
		close(fd);
	}
}

static int noop_cb(const struct bt_elf_sym *s, void *ctx)
{
	return 0;
}

/* Broken files fail cleanly: -ENOEXEC, or a usable handle whose lookups find nothing. */
static void test_malformed(void)
{
	char path[] = "/tmp/bt-sym-bad-XXXXXX", src[512];
	struct bt_elf *elf = NULL;
	unsigned char *img;
	struct stat st;
	size_t cut;
	int fd, err;

	fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	CHECK_INT(bt_elf__open("/nonexistent/bt-sym", NULL, &elf), -ENOENT);
	CHECK(elf == NULL);
	write_file(path, "", 0);
	CHECK_INT(bt_elf__open(path, NULL, &elf), -ENOEXEC);
	write_file(path, "\177ELF garbage garbage garbage garbage garbage garbage", 52);
	CHECK_INT(bt_elf__open(path, NULL, &elf), -ENOEXEC);
	CHECK(bt_elf__open("/tmp", NULL, &elf) < 0);

	snprintf(src, sizeof(src), "%s/fx_pie", FX_DIR);
	fd = open(src, O_RDONLY);
	CHECK(fd >= 0 && !fstat(fd, &st));
	img = malloc(st.st_size);
	CHECK(img && read(fd, img, st.st_size) == st.st_size);
	close(fd);
	/* every truncation: never a crash, never a symbol past the cut */
	for (cut = 0; cut < (size_t)st.st_size; cut += cut < 4096 ? 61 : 997) {
		write_file(path, img, cut);
		err = bt_elf__open(path, NULL, &elf);
		CHECK(err == 0 || err == -ENOEXEC);
		if (!err) {
			bt_elf__foreach_func(elf, noop_cb, NULL);
			bt_elf__lookup(elf, 0x1000, NULL);
			bt_elf__close(elf);
		}
	}
	/* corrupt section header fields: sizes and offsets far out of range */
	{
		Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
		Elf64_Shdr *sh = (Elf64_Shdr *)(img + eh->e_shoff);
		unsigned int i;

		for (i = 0; i < eh->e_shnum; i++) {
			sh[i].sh_size ^= 0x7fff0000;
			sh[i].sh_link ^= 3;
		}
		write_file(path, img, st.st_size);
		err = bt_elf__open(path, NULL, &elf);
		CHECK(err == 0 || err == -ENOEXEC);
		if (!err) {
			bt_elf__foreach_func(elf, noop_cb, NULL);
			bt_elf__lookup(elf, 0x1000, NULL);
			bt_elf__close(elf);
		}
	}
	free(img);
	unlink(path);
	bt_elf__close(NULL);
}

int main(void)
{
	BT_RUN(test_pie);
	BT_RUN(test_nopie);
	BT_RUN(test_shared_lib);
	BT_RUN(test_foreach);
	BT_RUN(test_stripped);
	BT_RUN(test_debuglink);
	BT_RUN(test_debuglink_mismatch);
	BT_RUN(test_minidebuginfo);
	BT_RUN(test_libc);
	BT_RUN(test_malformed);
	return bt_test_done();
}
