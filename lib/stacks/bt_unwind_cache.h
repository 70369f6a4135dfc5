/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unwind tables kept across runs (docs/unwind.md, "Tables kept across runs"): a file's rows as
 * the builder made them, in BT_UNWIND_CACHE_DIR, keyed by the file's build-id and size. A
 * system-wide stack tool's start builds the tables of every binary and library that runs, and
 * they rarely change between runs: a warm start reads the rows back instead of converting
 * .eh_frame again. Only files that only root can have written are cached (owned by uid 0, not
 * writable by group or others): a traced process cannot plant rows under another file's
 * build-id. The directory is root's, 0700, bounded to BT_UNWIND_CACHE_BYTES, the least
 * recently used files removed first. BPFTOOLS_NO_UNWIND_CACHE=1 bypasses it.
 */
#ifndef BT_UNWIND_CACHE_H
#define BT_UNWIND_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "bt_unwind_table.h"

#define BT_UNWIND_CACHE_DIR "/run/bpftools/unwind"
/* the directory's whole size: a table over a quarter of it is not kept */
#define BT_UNWIND_CACHE_BYTES (64u << 20)

struct bt_unwind_cache_key {
	unsigned char build_id[20];
	unsigned int build_id_len; /* 0: not cached */
	unsigned long long size;   /* the file's */
	int a64;		   /* the rows' kind: aarch64's, else x86-64's */
};

/* Whether a file with this status may have its table kept (and read back). */
bool bt_unwind_cache__eligible(const struct stat *st);
/*
 * The table kept for key: 0 and *out (free with bt_unwind_table_free()), or -ENOENT (none, or
 * one that fails its checks: removed), or another -errno. Counts as a use (its LRU age).
 */
int bt_unwind_cache__load(const struct bt_unwind_cache_key *key, struct bt_unwind_table **out);
/*
 * Keep t for key, written whole then renamed; older files go past the bound. 1 when kept, 0
 * when not to be (no build-id, too large, the cache off or unusable), or -errno.
 */
int bt_unwind_cache__store(const struct bt_unwind_cache_key *key, const struct bt_unwind_table *t);

#endif
