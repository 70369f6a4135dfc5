// SPDX-License-Identifier: GPL-2.0
/*
 * Unwind tables kept across runs (lib/stacks/bt_unwind_cache.c): a table comes back as it was
 * kept, one over a quarter of the directory's bound is not kept, a kept file that fails its
 * checks is refused and removed, and the switch keeps nothing. In the real directory (root's,
 * under /run), with build-ids of this run's own that no file has; each case removes its files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bt_unwind_cache.h"
#include "harness.h"

static unsigned int run_id;

static struct bt_unwind_cache_key key_of(unsigned int n, unsigned long long size)
{
	struct bt_unwind_cache_key k = { .build_id_len = 20, .size = size };
	unsigned int i;

	/* "bt-test" marked: no real file's build-id */
	memcpy(k.build_id, "bt-test-", 8);
	memcpy(k.build_id + 8, &run_id, sizeof(run_id));
	memcpy(k.build_id + 12, &n, sizeof(n));
	for (i = 16; i < 20; i++)
		k.build_id[i] = (unsigned char)(0xa0 + i);
	return k;
}

/* The file key is kept in, as the cache names it. */
static void path_of(const struct bt_unwind_cache_key *k, char *path, size_t len)
{
	char hex[41];
	unsigned int i;

	for (i = 0; i < k->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", k->build_id[i]);
	snprintf(path, len, "%s/%s-%llx-%s.uwt", BT_UNWIND_CACHE_DIR, hex, k->size,
		 k->a64 ? "a64" : "x64");
}

/* A table of nr sorted rows, each row's fields from its index. */
static struct bt_unwind_table *table_of(size_t nr)
{
	struct bt_unwind_table *t = calloc(1, sizeof(*t));
	size_t i;

	if (!t)
		return NULL;
	t->rows = calloc(nr, sizeof(*t->rows));
	if (!t->rows) {
		free(t);
		return NULL;
	}
	for (i = 0; i < nr; i++) {
		t->rows[i].pc = (__u32)(0x1000 + 4 * i);
		t->rows[i].cfa_offset = (__s32)(8 + (i % 64) * 8);
		t->rows[i].rbp_offset = (__s16) - (int)(i % 7);
		t->rows[i].cfa_rule = (__u8)(1 + i % 2);
		t->rows[i].rbp_rule = (__u8)(i % 3);
	}
	t->nr = nr;
	return t;
}

static void test_round_trip(void)
{
	struct bt_unwind_cache_key k = key_of(1, 123456);
	struct bt_unwind_table *t = table_of(5000), *back = NULL;
	char path[512];
	struct stat st;

	path_of(&k, path, sizeof(path));
	CHECK(t != NULL);
	CHECK_INT(bt_unwind_cache__store(&k, t), 1);
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(st.st_mode & 07777, 0600);
	CHECK_INT(st.st_uid, geteuid());
	CHECK_INT(bt_unwind_cache__load(&k, &back), 0);
	CHECK(back && back->nr == t->nr);
	if (back && back->nr == t->nr)
		CHECK(!memcmp(back->rows, t->rows, t->nr * sizeof(*t->rows)));
	bt_unwind_table_free(back);
	back = NULL;
	/* another file of the same build-id and another size is another key */
	k.size++;
	CHECK_INT(bt_unwind_cache__load(&k, &back), -ENOENT);
	k.size--;
	unlink(path);
	bt_unwind_table_free(t);
}

/*
 * A quarter of the directory's bound is the largest table kept: one row more is not kept,
 * and nothing is at its path (a table that size would push out most of the others).
 */
static void test_too_large(void)
{
	size_t hdr = 64, row = sizeof(struct bt_unwind_row);
	size_t fits = (BT_UNWIND_CACHE_BYTES / 4 - hdr) / row;
	struct bt_unwind_cache_key small = key_of(2, 1), big = key_of(3, 1);
	struct bt_unwind_table *t = table_of(fits + 1), *back = NULL;
	char path[512];

	CHECK(t != NULL);
	if (!t)
		return;
	path_of(&big, path, sizeof(path));
	CHECK_INT(bt_unwind_cache__store(&big, t), 0);
	CHECK(access(path, F_OK) != 0);
	CHECK_INT(bt_unwind_cache__load(&big, &back), -ENOENT);
	unlink(path); /* (kept by a broken bound) */
	/* the header's size is what the bound counts: at the bound, kept */
	t->nr = fits;
	path_of(&small, path, sizeof(path));
	CHECK_INT(bt_unwind_cache__store(&small, t), 1);
	CHECK_INT(bt_unwind_cache__load(&small, &back), 0);
	CHECK(back && back->nr == fits);
	bt_unwind_table_free(back);
	unlink(path);
	bt_unwind_table_free(t);
}

/* A kept file cut short, or with its rows out of order, is refused and removed. */
static void test_refused(void)
{
	struct bt_unwind_cache_key k = key_of(4, 77);
	struct bt_unwind_table *t = table_of(300), *back = NULL;
	struct bt_unwind_row r;
	char path[512];
	struct stat st;
	FILE *f;

	path_of(&k, path, sizeof(path));
	CHECK_INT(bt_unwind_cache__store(&k, t), 1);
	CHECK_INT(stat(path, &st), 0);
	CHECK_INT(truncate(path, st.st_size - 1), 0);
	CHECK_INT(bt_unwind_cache__load(&k, &back), -ENOENT);
	CHECK(access(path, F_OK) != 0);

	CHECK_INT(bt_unwind_cache__store(&k, t), 1);
	/* the last row's pc below the one before it */
	f = fopen(path, "r+");
	CHECK(f != NULL);
	if (f) {
		r = t->rows[t->nr - 1];
		r.pc = 0;
		fseek(f, -(long)sizeof(r), SEEK_END);
		fwrite(&r, sizeof(r), 1, f);
		fclose(f);
	}
	CHECK_INT(bt_unwind_cache__load(&k, &back), -ENOENT);
	CHECK(access(path, F_OK) != 0);
	CHECK(back == NULL);
	bt_unwind_table_free(back);
	unlink(path);
	bt_unwind_table_free(t);
}

static void test_switch_off(void)
{
	struct bt_unwind_cache_key k = key_of(5, 9);
	struct bt_unwind_table *t = table_of(10), *back = NULL;
	char path[512];

	path_of(&k, path, sizeof(path));
	setenv("BPFTOOLS_NO_UNWIND_CACHE", "1", 1);
	CHECK_INT(bt_unwind_cache__store(&k, t), 0);
	CHECK(access(path, F_OK) != 0);
	unsetenv("BPFTOOLS_NO_UNWIND_CACHE");
	/* kept, then not read with the switch on */
	CHECK_INT(bt_unwind_cache__store(&k, t), 1);
	setenv("BPFTOOLS_NO_UNWIND_CACHE", "1", 1);
	CHECK_INT(bt_unwind_cache__load(&k, &back), -ENOENT);
	unsetenv("BPFTOOLS_NO_UNWIND_CACHE");
	unlink(path);
	bt_unwind_table_free(t);
}

int main(void)
{
	run_id = (unsigned int)getpid() ^ (unsigned int)time(NULL);
	if (geteuid()) {
		printf("# not root: the cache directory (%s) is root's; skipped\n",
		       BT_UNWIND_CACHE_DIR);
		return 0;
	}
	BT_RUN(test_round_trip);
	BT_RUN(test_too_large);
	BT_RUN(test_refused);
	BT_RUN(test_switch_off);
	return bt_test_done();
}
