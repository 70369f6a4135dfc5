/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The target index inside a program's instructions, for kernels without attach cookies
 * (probes/bt_attach.bpf.h): a 64-bit immediate load whose high half is this tag and whose low
 * half the attach layer sets to the index in each program it loads.
 */
#ifndef BT_ATTACH_INDEX_H
#define BT_ATTACH_INDEX_H

#define BT_ATTACH_INDEX_TAG 0x62746978u /* "btix" */
#define BT_ATTACH_INDEX_TAG_STR "0x6274697800000000"

#endif
