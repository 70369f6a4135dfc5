/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user side of probes/bt_inflight.bpf.h: a tool's tables of what is in flight, and the
 * starts each could not take, reported once at the end in the way lost events and stacks are:
 *
 *	static const struct bt_inflight_table inflight[] = {
 *		{ "starts", "opens not traced", "opens in flight" },	// table 0
 *		{ NULL },
 *	};
 *	...at the end:  bt_inflight_report(skel->obj, inflight);
 *
 * prints "260 opens not traced: the table of opens in flight (10240 entries) was full".
 */
#ifndef BT_INFLIGHT_H
#define BT_INFLIGHT_H

#include <stdint.h>
#include <bpf/libbpf.h>

#include "bt_inflight_tables.h"

struct bt_inflight_table {
	const char *map;  /* its name in the object: its size is read from it */
	const char *lost; /* what a refused start loses, plural: "calls not timed" */
	const char *what; /* what it holds, plural: "calls in flight" */
};

/* The starts table i (of tables, ended by a NULL map) could not take; 0 when unknown. */
uint64_t bt_inflight_lost(struct bpf_object *obj, unsigned int i);
/*
 * On stderr, one line per table whose starts were refused: "N LOST: the table of WHAT (M
 * entries) was full". Nothing for an object without bt_inflight_lost.
 */
void bt_inflight_report(struct bpf_object *obj, const struct bt_inflight_table *tables);
/* The starts refused back to 0: a kept run reports each profile's own. */
void bt_inflight_reset(struct bpf_object *obj);

#endif
