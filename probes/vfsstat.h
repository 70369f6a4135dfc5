/* SPDX-License-Identifier: GPL-2.0 */
/* What probes/vfsstat.bpf.c and cmd/vfsstat.c share. */
#ifndef BT_VFSSTAT_H
#define BT_VFSSTAT_H

/*
 * The columns, in BCC's order. cmd/vfsstat.c builds its target list in this order, so a
 * target's index (the attach cookie) is its column and its slot in the 'counts' map.
 */
enum vfsstat_col {
	VFSSTAT_READ,
	VFSSTAT_WRITE,
	VFSSTAT_FSYNC,
	VFSSTAT_OPEN,
	VFSSTAT_CREATE,
	VFSSTAT_UNLINK,
	VFSSTAT_MKDIR,
	VFSSTAT_RMDIR,
	VFSSTAT_NCOLS,
};

#endif
