// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <strings.h>

#include "bt_env.h"

bool bt_env_flag(const char *name)
{
	static const char *const off[] = { "", "0", "no", "false", "off" };
	const char *v = getenv(name);
	size_t i;

	if (!v)
		return false;
	for (i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		if (!strcasecmp(v, off[i]))
			return false;
	return true;
}

const char *bt_env_value(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}
