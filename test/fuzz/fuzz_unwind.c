// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over the unwind table builder (symbolize/unwind_table.c): whatever the
 * bytes, bt_unwind_table_from_memory either refuses them or gives a table that keeps its
 * promises (pcs strictly increasing, no two neighbours alike, a NONE row last, rules in
 * range), without crashing, hanging or leaking.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bt_unwind_table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bt_unwind_table *t = NULL;
	const struct bt_unwind_row *r;
	size_t i;

	if (bt_unwind_table_from_memory(data, size, &t))
		return 0;
	if (!t->nr || t->rows[t->nr - 1].cfa_rule != BT_CFA_NONE)
		abort();
	for (i = 0; i < t->nr; i++) {
		r = &t->rows[i];
		if (r->cfa_rule > BT_CFA_UNSUPPORTED || r->rbp_rule > BT_RBP_UNDEFINED)
			abort();
		if (i && (r->pc <= r[-1].pc ||
			  !memcmp(&r->cfa_offset, &r[-1].cfa_offset, sizeof(*r) - sizeof(r->pc))))
			abort();
		if (bt_unwind_table_find(t, r->pc) != (r->cfa_rule == BT_CFA_NONE ? NULL : r))
			abort();
	}
	bt_unwind_table_free(t);
	return 0;
}
