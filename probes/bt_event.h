/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by probes/bt_events.bpf.h and lib/: the slots of bt_events_lost. */
#ifndef BT_EVENTS_SHARED_H
#define BT_EVENTS_SHARED_H

#define BT_EVENTS_LOST_TOOL 0 /* a tool's own events */
#define BT_EVENTS_LOST_PIDS 1 /* process announcements (probes/bt_stack.bpf.h) */
#define BT_EVENTS_LOST_SLOTS 2

#endif
