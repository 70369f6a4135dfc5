/* SPDX-License-Identifier: GPL-2.0 */
/* What probes/funccount.bpf.c and cmd/funccount.c share. */
#ifndef BT_FUNCCOUNT_H
#define BT_FUNCCOUNT_H

/*
 * The 'counts' map is a per-CPU array of __u64, one slot per target (its index in struct
 * bt_targets, carried to the program as the attach cookie). Its size is set before load to
 * the number of targets; the programs never see an index outside it (the lookup fails).
 */

#endif
