// SPDX-License-Identifier: GPL-2.0
/*
 * lib/attach/bt_uprobe.c on binaries built for this test (UA_DIR): symbol -> file offset for PIE,
 * non-PIE, a shared library and a stripped binary with a .gnu_debuglink; aliases reported once;
 * IFUNCs and symbol versions of libc; ld.so.cache, $PATH and /proc/PID/maps lookups; USDT notes.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_err.h"
#include "bt_uprobe.h"
#include "harness.h"

#define MAXS 16

struct found {
	int n;
	char name[MAXS][64];
	uint64_t vaddr[MAXS], offset[MAXS];
};

static int collect(const struct bt_usym *s, void *ctx)
{
	struct found *f = ctx;

	if (f->n < MAXS) {
		snprintf(f->name[f->n], sizeof(f->name[0]), "%s", s->name);
		f->vaddr[f->n] = s->vaddr;
		f->offset[f->n] = s->offset;
	}
	f->n++;
	return 0;
}

static int find(const char *path, const char *pattern, bool regex, struct found *f)
{
	struct bt_match m;
	int n;

	memset(f, 0, sizeof(*f));
	if (bt_match__init(&m, pattern, regex))
		return -1;
	n = bt_uprobe_foreach_match(path, NULL, &m, collect, f);
	bt_match__fini(&m);
	return n;
}

static int index_of(const struct found *f, const char *name)
{
	int i;

	for (i = 0; i < f->n && i < MAXS; i++)
		if (!strcmp(f->name[i], name))
			return i;
	return -1;
}

/*
 * An independent answer: the offset through the section holding the address (libbpf's way),
 * where bt_uprobe goes through the PT_LOAD segments.
 */
static uint64_t offset_by_section(const char *path, uint64_t vaddr)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh;
	uint64_t off = (uint64_t)-1;
	int fd = open(path, O_RDONLY), i;

	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh)) {
		if (fd >= 0)
			close(fd);
		return off;
	}
	for (i = 0; i < eh.e_shnum; i++) {
		if (pread(fd, &sh, sizeof(sh), eh.e_shoff + i * sizeof(sh)) != sizeof(sh))
			break;
		if (sh.sh_type == SHT_PROGBITS && (sh.sh_flags & SHF_EXECINSTR) &&
		    vaddr >= sh.sh_addr && vaddr < sh.sh_addr + sh.sh_size) {
			off = vaddr - sh.sh_addr + sh.sh_offset;
			break;
		}
	}
	close(fd);
	return off;
}

static void check_binary(const char *file, bool has_static)
{
	char path[512];
	struct found f;
	int i;

	snprintf(path, sizeof(path), "%s/%s", UA_DIR, file);
	CHECK_INT(find(path, "ua_*", false, &f), has_static ? 2 : 1);
	/* ua_alpha and its alias share an address: one target, under the better name */
	i = index_of(&f, "ua_alpha");
	CHECK(i >= 0);
	CHECK(index_of(&f, "ua_alpha_longer_alias") < 0);
	if (i >= 0) {
		CHECK(f.offset[i] != 0);
		CHECK_INT(f.offset[i], offset_by_section(path, f.vaddr[i]));
	}
	i = index_of(&f, "ua_beta");
	CHECK(has_static ? i >= 0 : i < 0);
	if (i >= 0)
		CHECK_INT(f.offset[i], offset_by_section(path, f.vaddr[i]));
	/* the alias by its own name */
	CHECK_INT(find(path, "ua_alpha_longer_alias", false, &f), 1);
	CHECK_INT(find(path, "ua_(alpha|beta)", true, &f), has_static ? 2 : 1);
	CHECK_INT(find(path, "ua_zzz*", false, &f), 0);
}

static void test_pie(void)
{
	check_binary("ua_pie", true);
}

static void test_nopie(void)
{
	check_binary("ua_nopie", true);
}

static void test_stripped_debuglink(void)
{
	/* ua_beta is static: only the debug file behind .gnu_debuglink knows it */
	check_binary("ua_stripped", true);
}

static void test_stripped_nolink(void)
{
	char path[512];
	struct found f;

	snprintf(path, sizeof(path), "%s/ua_stripped_nolink", UA_DIR);
	/* a PIE exports nothing: a fully stripped one has no function symbols left */
	CHECK_INT(find(path, "ua_*", false, &f), 0);
}

static void test_shared_library(void)
{
	char path[512];
	struct found f;
	unsigned char file_bytes[16];
	struct link_map *lm = NULL;
	void *h, *fn;
	int i, fd;

	snprintf(path, sizeof(path), "%s/libua_lib.so", UA_DIR);
	CHECK_INT(find(path, "ua_lib_*", false, &f), 1);
	i = index_of(&f, "ua_lib_fn");
	CHECK(i >= 0);
	if (i < 0)
		return;
	CHECK_INT(f.offset[i], offset_by_section(path, f.vaddr[i]));
	/* the code at that file offset is the code the loader maps for the function */
	h = dlopen(path, RTLD_NOW);
	CHECK(h != NULL);
	if (!h)
		return;
	fn = dlsym(h, "ua_lib_fn");
	CHECK(fn != NULL && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	if (fn && lm && fd >= 0) {
		CHECK_INT((uintptr_t)fn - lm->l_addr, f.vaddr[i]);
		CHECK_INT(pread(fd, file_bytes, sizeof(file_bytes), f.offset[i]),
			  sizeof(file_bytes));
		CHECK(!memcmp(file_bytes, fn, sizeof(file_bytes)));
	}
	if (fd >= 0)
		close(fd);
	dlclose(h);
}

static void test_ldcache(void)
{
	char *p = NULL, *q = NULL;

	CHECK_INT(bt_ldcache_lookup(NULL, "c", &p), 0);
	CHECK(p && strstr(p, "/libc.so.6") && access(p, R_OK) == 0);
	CHECK_INT(bt_ldcache_lookup(NULL, "libc", &q), 0);
	CHECK_STR(q, p);
	free(q);
	q = NULL;
	CHECK_INT(bt_ldcache_lookup(NULL, "libc.so.6", &q), 0);
	CHECK_STR(q, p);
	free(q);
	q = NULL;
	/* "c" must not find libcap, libcrypt, ... */
	CHECK_INT(bt_ldcache_lookup(NULL, "no_such_library_xyz", &q), -ENOENT);
	CHECK(q == NULL);
	/* not a cache file */
	CHECK_INT(bt_ldcache_lookup(BT_TEST_SRCDIR "/README.md", "c", &q), -ENOEXEC);
	CHECK_INT(bt_ldcache_lookup("/nonexistent/ld.so.cache", "c", &q), -ENOENT);
	free(p);
}

static void test_path_lookup(void)
{
	char *p = NULL, *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

	setenv("PATH", "/nonexistent:" UA_DIR, 1);
	CHECK_INT(bt_path_lookup("ua_pie", &p), 0);
	CHECK_STR(p, UA_DIR "/ua_pie");
	free(p);
	p = NULL;
	CHECK_INT(bt_path_lookup("libua_lib.so.not", &p), -ENOENT);
	/* through the whole module lookup: a program on $PATH, then a path */
	CHECK_INT(bt_uprobe_find_module("ua_nopie", 0, &p), 0);
	CHECK_STR(p, UA_DIR "/ua_nopie");
	free(p);
	p = NULL;
	CHECK_INT(bt_uprobe_find_module("no_such_program_xyz", 0, &p), -BT_EUSAGE);
	CHECK_INT(bt_uprobe_find_module("/nonexistent/x", 0, &p), -BT_EUSAGE);
	CHECK_INT(bt_uprobe_find_module("/", 0, &p), -BT_EUSAGE);
	if (old)
		setenv("PATH", old, 1);
	free(old);
}

static void test_procmaps(void)
{
	char *p = NULL, want[64];

	CHECK_INT(bt_procmaps_lookup(getpid(), "c", &p), 0);
	/* our own process shares our root: the path as mapped, no /proc/PID/root/ prefix */
	snprintf(want, sizeof(want), "/proc/%d/root/", (int)getpid());
	CHECK(p && p[0] == '/' && strncmp(p, want, strlen(want)) && strstr(p, "libc.so.6"));
	free(p);
	p = NULL;
	CHECK_INT(bt_procmaps_lookup(getpid(), "no_such_library_xyz", &p), -ENOENT);
	CHECK_INT(bt_procmaps_lookup(999999999, "c", &p), -ESRCH);
	CHECK_INT(bt_uprobe_find_module("c", 999999999, &p), -BT_EUSAGE);
}

static void test_libc_ifunc_and_versions(void)
{
	struct link_map *lm = NULL;
	struct found f;
	char *libc = NULL;
	void *h, *impl;
	int i;

	if (bt_ldcache_lookup(NULL, "c", &libc)) {
		CHECK(!"no libc in ld.so.cache");
		return;
	}
	/* strlen is an IFUNC on x86_64 glibc: the uprobe must go on the implementation */
	CHECK_INT(find(libc, "strlen", false, &f), 1);
	i = index_of(&f, "strlen");
	CHECK(i >= 0);
	h = dlopen(libc, RTLD_LAZY | RTLD_NOLOAD);
	CHECK(h != NULL);
	if (h && i >= 0) {
		impl = dlsym(h, "strlen"); /* libc's, not a sanitizer's interceptor */
		CHECK(impl && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0);
		if (impl && lm)
			CHECK_INT(f.vaddr[i], (uintptr_t)impl - lm->l_addr);
	}
	if (h)
		dlclose(h);
	/* versioned names: the default and the old memcpy are different functions */
	CHECK_INT(find(libc, "memcpy@@GLIBC_2.14", false, &f), 1);
	CHECK_INT(find(libc, "memcpy@GLIBC_2.14", false, &f), 1);
	CHECK_INT(find(libc, "memcpy@GLIBC_2.2.5", false, &f), 1);
	CHECK_INT(find(libc, "memcpy@NO_SUCH_VERSION", false, &f), 0);
	/* plain names work on libc's exported functions */
	CHECK_INT(find(libc, "getpid", false, &f), 1);
	free(libc);
}

struct usdt_found {
	int n;
	bool fire, other;
};

static int usdt_cb(const char *provider, const char *name, void *ctx)
{
	struct usdt_found *u = ctx;

	u->n++;
	if (!strcmp(provider, "ua_prov") && !strcmp(name, "ua_fire"))
		u->fire = true;
	if (!strcmp(provider, "ua_prov") && !strcmp(name, "ua_other"))
		u->other = true;
	return 0;
}

static void test_usdt_notes(void)
{
	struct usdt_found u = { 0 };
	char path[512];

	snprintf(path, sizeof(path), "%s/ua_pie", UA_DIR);
	CHECK_INT(bt_usdt_foreach(path, usdt_cb, &u), 2);
	CHECK(u.fire && u.other);
	memset(&u, 0, sizeof(u));
	snprintf(path, sizeof(path), "%s/libua_lib.so", UA_DIR);
	CHECK_INT(bt_usdt_foreach(path, usdt_cb, &u), 0);
	CHECK_INT(bt_usdt_foreach(BT_TEST_SRCDIR "/README.md", usdt_cb, &u), -ENOEXEC);
}

int main(void)
{
	BT_RUN(test_pie);
	BT_RUN(test_nopie);
	BT_RUN(test_stripped_debuglink);
	BT_RUN(test_stripped_nolink);
	BT_RUN(test_shared_library);
	BT_RUN(test_ldcache);
	BT_RUN(test_path_lookup);
	BT_RUN(test_procmaps);
	BT_RUN(test_libc_ifunc_and_versions);
	BT_RUN(test_usdt_notes);
	return bt_test_done();
}
