/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unwind tables for x86-64 and aarch64 user code (by the file's machine): a file's call frame
 * information (.eh_frame, plus .debug_frame from the file or its separate debug file where
 * .eh_frame does not cover the code) compiled into the sorted struct bt_unwind_row array of probes/bt_unwind.h, which the
 * loader copies into BPF maps. See docs/unwind.md for the rules and what is not followed.
 *
 * Row pcs are the file's link-time virtual addresses; the caller adds the load bias it gets
 * from /proc/PID/maps and the PT_LOAD headers.
 */
#ifndef BT_UNWIND_TABLE_H
#define BT_UNWIND_TABLE_H

#include <linux/types.h>
#include <stddef.h>

#include "bt_unwind.h"

enum bt_unwind_source {
	BT_UNWIND_SRC_EH_FRAME = 1,    /* the file's .eh_frame */
	BT_UNWIND_SRC_DEBUG_FRAME = 2, /* the file's own .debug_frame */
	BT_UNWIND_SRC_DEBUG_FILE = 4,  /* .debug_frame of the separate debug file */
};

struct bt_unwind_table {
	struct bt_unwind_row *rows; /* sorted by pc, no two with the same pc or the same rule */
	size_t nr;
	unsigned char build_id[64];
	size_t build_id_len;  /* 0 when the file has no build-id */
	unsigned int sources; /* enum bt_unwind_source bits that contributed FDEs */
	int a64;	      /* aarch64's rows (probes/bt_unwind.h), else x86-64's */

	/* for -v and the bench */
	size_t nr_cies;
	size_t nr_fdes;	       /* FDEs compiled into rows */
	size_t nr_bad;	       /* CIEs/FDEs skipped as malformed or unusable (partial table) */
	size_t nr_overlap;     /* FDEs dropped because an earlier one covers their start */
	size_t nr_outside;     /* FDEs of no loaded code (discarded functions' leftovers) */
	size_t nr_unsupported; /* rows marked BT_CFA_UNSUPPORTED */
	size_t nr_plt;	       /* rows marked BT_CFA_PLT */
	int plt_without_fde;   /* .plt/.plt.sec exist but no FDE covers them: walk by fp there */
};

/*
 * Build the table of the ELF file at 'path'. Returns 0 or -errno: -ENOENT/-EACCES (file),
 * -ENOEXEC (not ELF, or neither x86-64 nor aarch64), -ENODATA (no usable call frame
 * information at all), -E2BIG (addresses above 4 GiB, or an absurd number of rows), -ENOMEM. A partly corrupt
 * section gives a table of what could be read (nr_bad > 0).
 */
int bt_unwind_table_build(const char *path, struct bt_unwind_table **out);
/*
 * The same for an open descriptor (e.g. /proc/PID/map_files/...); 'path' names the file for
 * the .gnu_debuglink lookup, 'root' is where debug files are looked up (NULL for "/", or
 * "/proc/PID/root" for a process in another mount namespace). The fd is not kept.
 */
int bt_unwind_table_build_fd(int fd, const char *path, const char *root,
			     struct bt_unwind_table **out);
/* An ELF image in memory (unit tests, fuzzer); no separate debug file is looked up. */
int bt_unwind_table_from_memory(const void *image, size_t size, struct bt_unwind_table **out);

/*
 * The row covering link-time address vaddr, or NULL where the table has no rule: before the
 * first row, and in gaps between FDEs (BT_CFA_NONE rows are never returned). O(log nr).
 */
const struct bt_unwind_row *bt_unwind_table_find(const struct bt_unwind_table *t, __u64 vaddr);

/* Bytes of rows (what the BPF map holds). */
static inline size_t bt_unwind_table_bytes(const struct bt_unwind_table *t)
{
	return t ? t->nr * sizeof(*t->rows) : 0;
}

void bt_unwind_table_free(struct bt_unwind_table *t); /* NULL is fine */

#endif
