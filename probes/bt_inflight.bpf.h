/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tables of what is in flight: a call, an open, a request, from the event that starts it to the
 * one that ends it, by thread or by request. Their size is fixed, and a full hash takes no new
 * entry: that start is lost, its end finds nothing, and the output never shows it. Inserting
 * through bt_inflight_put() counts each refusal in the table's slot of bt_inflight_lost, per
 * CPU; lib/bpf/bt_inflight.h reports the counts at the end. A tool numbers its tables from 0, in the
 * order of its struct bt_inflight_table list. (An LRU table never refuses: it evicts the entry
 * used longest ago instead, which nothing here can see; docs/reliability.md says which are.)
 */
#ifndef BT_INFLIGHT_BPF_H
#define BT_INFLIGHT_BPF_H

#include "bt_inflight_tables.h"

#define BT_INFLIGHT_EEXIST 17

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, BT_INFLIGHT_TABLES);
	__type(key, __u32);
	__type(value, __u64);
} bt_inflight_lost SEC(".maps");

/*
 * bpf_map_update_elem(map, key, value, flags), the failure counted under table: full (E2BIG),
 * no memory, or the map's lock busy on this CPU (a program interrupted while updating it). An
 * entry already there under BPF_NOEXIST is not a loss.
 */
static __always_inline long bt_inflight_put(void *map, __u32 table, const void *key,
					    const void *value, __u64 flags)
{
	long err = bpf_map_update_elem(map, key, value, flags);
	__u64 *n;

	if (!err || err == -BT_INFLIGHT_EEXIST)
		return err;
	n = bpf_map_lookup_elem(&bt_inflight_lost, &table);
	if (n)
		__sync_fetch_and_add(n, 1); /* preemptible programs share a CPU's slot */
	return err;
}

#endif
