// SPDX-License-Identifier: GPL-2.0
#include "bt_err.h"
#include "bt_inflight.h"
#include "bt_percpu.h"

uint64_t bt_inflight_lost(struct bpf_object *obj, unsigned int i)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, "bt_inflight_lost");
	uint64_t n = 0;

	if (!map || i >= BT_INFLIGHT_TABLES || bt_percpu_sum(bpf_map__fd(map), i, &n, 1))
		return 0;
	return n;
}

void bt_inflight_reset(struct bpf_object *obj)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, "bt_inflight_lost");
	unsigned int i;

	for (i = 0; map && i < BT_INFLIGHT_TABLES; i++)
		bt_percpu_zero(bpf_map__fd(map), i, 1);
}

void bt_inflight_report(struct bpf_object *obj, const struct bt_inflight_table *tables)
{
	unsigned int i;

	for (i = 0; i < BT_INFLIGHT_TABLES && tables[i].map; i++) {
		struct bpf_map *map = bpf_object__find_map_by_name(obj, tables[i].map);
		uint64_t n = bt_inflight_lost(obj, i);

		if (n)
			bt_warn("%llu %s: the table of %s (%u entries) was full",
				(unsigned long long)n, tables[i].lost, tables[i].what,
				map ? bpf_map__max_entries(map) : 0);
	}
}
