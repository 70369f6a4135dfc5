/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by probes/bt_offcpu.bpf.h and the off-CPU commands. */
#ifndef BT_OFFCPU_H
#define BT_OFFCPU_H

#define BT_OFFCPU_MAX_IDS 64 /* entries of a -p or -t list */
#define BT_OFFCPU_COMM_LEN 16

#endif
