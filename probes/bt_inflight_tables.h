/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by probes/bt_inflight.bpf.h and lib/bpf/bt_inflight.c: the slots of bt_inflight_lost. */
#ifndef BT_INFLIGHT_TABLES_H
#define BT_INFLIGHT_TABLES_H

#define BT_INFLIGHT_TABLES 4 /* a tool's in-flight tables, numbered from 0 */

#endif
