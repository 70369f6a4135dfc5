// SPDX-License-Identifier: GPL-2.0
/* Unwind tables kept across runs: lib/stacks/bt_unwind_cache.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_btf_ids.h"
#include "bt_env.h"
#include "bt_err.h"
#include "bt_unwind_cache.h"

/* the rows' layout: a change of struct bt_unwind_row or of the builder's rules is a new one */
#define CACHE_FORMAT (1u << 16 | (unsigned int)sizeof(struct bt_unwind_row))
/* files looked at when the directory is trimmed */
#define TRIM_FILES 4096

struct cache_hdr {
	char magic[4]; /* "BTUW" */
	__u32 format;
	__u32 a64;
	__u32 build_id_len;
	unsigned char build_id[20];
	__u32 pad;
	__u64 size; /* the file's */
	__u64 nr;   /* rows that follow */
};

bool bt_unwind_cache__eligible(const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_uid == 0 && !(st->st_mode & 022);
}

/* key's file name, or false when it is not to be cached (no build-id, or the cache is off) */
static bool cache_path(const struct bt_unwind_cache_key *key, char *path, size_t len)
{
	static int dir_err = 1;
	char hex[41];
	unsigned int i;

	if (!key->build_id_len || key->build_id_len > sizeof(key->build_id) ||
	    bt_env_flag("BPFTOOLS_NO_UNWIND_CACHE"))
		return false;
	if (dir_err > 0) {
		dir_err = bt_cache_subdir(BT_UNWIND_CACHE_DIR);
		if (dir_err)
			bt_debug("unwind: no table cache in %s: %s", BT_UNWIND_CACHE_DIR,
				 strerror(-dir_err));
	}
	if (dir_err)
		return false;
	for (i = 0; i < key->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", key->build_id[i]);
	snprintf(path, len, "%s/%s-%llx-%s.uwt", BT_UNWIND_CACHE_DIR, hex, key->size,
		 key->a64 ? "a64" : "x64");
	return true;
}

/* rows sorted by pc with no two alike: what the walker's binary search needs */
static bool rows_ok(const struct bt_unwind_row *rows, size_t nr)
{
	size_t i;

	for (i = 1; i < nr; i++)
		if (rows[i].pc <= rows[i - 1].pc)
			return false;
	return true;
}

int bt_unwind_cache__load(const struct bt_unwind_cache_key *key, struct bt_unwind_table **out)
{
	struct bt_unwind_table *t = NULL;
	struct cache_hdr h;
	char path[PATH_MAX];
	struct stat st;
	size_t bytes;
	int fd = -1, err = -ENOENT;

	*out = NULL;
	if (!cache_path(key, path, sizeof(path)))
		return -ENOENT;
	/* no link followed, no FIFO waited on: the directory is root's, but checked anyway */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_size < (off_t)sizeof(h) || st.st_size > BT_UNWIND_CACHE_BYTES / 4 ||
	    pread(fd, &h, sizeof(h), 0) != sizeof(h))
		goto refused;
	bytes = h.nr * sizeof(*t->rows);
	if (memcmp(h.magic, "BTUW", 4) || h.format != CACHE_FORMAT || !h.nr ||
	    h.nr > (__u64)st.st_size || (__u64)st.st_size != sizeof(h) + bytes ||
	    h.a64 != (__u32)key->a64 || h.size != key->size ||
	    h.build_id_len != key->build_id_len ||
	    memcmp(h.build_id, key->build_id, h.build_id_len))
		goto refused;
	t = calloc(1, sizeof(*t));
	if (!t || !(t->rows = malloc(bytes))) {
		err = -ENOMEM;
		goto cleanup;
	}
	if (pread(fd, t->rows, bytes, sizeof(h)) != (ssize_t)bytes || !rows_ok(t->rows, h.nr))
		goto refused;
	t->nr = h.nr;
	t->a64 = key->a64;
	memcpy(t->build_id, key->build_id, key->build_id_len);
	t->build_id_len = key->build_id_len;
	/* its age for the trim: when it was last used, not written */
	futimens(fd, NULL);
	*out = t;
	t = NULL;
	err = 0;
	goto cleanup;
refused:
	bt_debug("unwind: %s: not a table kept by this version: removed", path);
	unlink(path);
	err = -ENOENT;
cleanup:
	bt_unwind_table_free(t);
	close(fd);
	return err;
}

struct aged {
	struct timespec at;
	off_t size;
	char name[NAME_MAX + 1];
};

static int cmp_aged(const void *a, const void *b)
{
	const struct aged *x = a, *y = b;

	if (x->at.tv_sec != y->at.tv_sec)
		return x->at.tv_sec < y->at.tv_sec ? -1 : 1;
	return (x->at.tv_nsec > y->at.tv_nsec) - (x->at.tv_nsec < y->at.tv_nsec);
}

/*
 * The directory's size as this process last counted it, plus what it wrote since; -1 before
 * the first count. A cold start keeps tens of tables: the directory is read once, not once a
 * table, and again only when the sum passes the bound.
 */
static long long dir_bytes = -1;

/* The least recently used files out until the directory holds BT_UNWIND_CACHE_BYTES. */
static void trim(void)
{
	struct aged *v = NULL;
	unsigned long long total = 0;
	struct dirent *d;
	struct stat st;
	size_t n = 0, i;
	DIR *dir;

	dir = opendir(BT_UNWIND_CACHE_DIR);
	if (!dir)
		return;
	v = calloc(TRIM_FILES, sizeof(*v));
	while (v && n < TRIM_FILES && (d = readdir(dir))) {
		if (d->d_name[0] == '.' ||
		    fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		v[n].at = st.st_mtim;
		v[n].size = st.st_size;
		snprintf(v[n].name, sizeof(v[n].name), "%s", d->d_name);
		total += (unsigned long long)st.st_size;
		n++;
	}
	if (v && total > BT_UNWIND_CACHE_BYTES) {
		qsort(v, n, sizeof(*v), cmp_aged);
		for (i = 0; i < n && total > BT_UNWIND_CACHE_BYTES; i++) {
			if (!unlinkat(dirfd(dir), v[i].name, 0))
				total -= (unsigned long long)v[i].size;
		}
	}
	if (v)
		__atomic_store_n(&dir_bytes, (long long)total, __ATOMIC_RELAXED);
	free(v);
	closedir(dir);
}

int bt_unwind_cache__store(const struct bt_unwind_cache_key *key, const struct bt_unwind_table *t)
{
	struct cache_hdr h = { .magic = "BTUW", .format = CACHE_FORMAT };
	char path[PATH_MAX];
	size_t bytes = t->nr * sizeof(*t->rows);
	int err;

	if (!t->nr || sizeof(h) + bytes > BT_UNWIND_CACHE_BYTES / 4 ||
	    !cache_path(key, path, sizeof(path)))
		return 0;
	h.a64 = (__u32)key->a64;
	h.build_id_len = key->build_id_len;
	memcpy(h.build_id, key->build_id, key->build_id_len);
	h.size = key->size;
	h.nr = t->nr;
	err = bt_btf_cache_write(path, &h, sizeof(h), t->rows, bytes);
	if (err) {
		bt_debug("unwind: cannot keep %s: %s", path, strerror(-err));
		return err;
	}
	if (__atomic_load_n(&dir_bytes, __ATOMIC_RELAXED) < 0 ||
	    __atomic_add_fetch(&dir_bytes, (long long)(sizeof(h) + bytes), __ATOMIC_RELAXED) >
		    BT_UNWIND_CACHE_BYTES)
		trim();
	return 1;
}
