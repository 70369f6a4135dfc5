// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "bt_cmd.h"

#define BT_CMD(n) extern const struct bt_cmd bt_cmd_##n;
#include "commands.def"
#undef BT_CMD

const struct bt_cmd *const bt_cmds[] = {
#define BT_CMD(n) &bt_cmd_##n,
#include "commands.def"
#undef BT_CMD
	NULL,
};

const struct bt_cmd *bt_cmd_find(const char *name)
{
	const struct bt_cmd *c;
	int i;

	/* Exact names only: prefix matching turns every new command into a breaking change. */
	bt_for_each_cmd(c, i)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}
