/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The BPFTOOLS_* switches of the environment (BPFTOOLS_DEBUG, BPFTOOLS_NO_RINGBUF, ...), read
 * in one place so that they all mean the same thing.
 */
#ifndef BT_ENV_H
#define BT_ENV_H

#include <stdbool.h>

/*
 * Whether the boolean switch 'name' is on: unset, empty, "0", "no", "false" and "off" (in any
 * case) are off, anything else is on, so that BPFTOOLS_NO_RINGBUF=0 means what it says.
 */
bool bt_env_flag(const char *name);

/* The value of the switch 'name' (a file, a list), or NULL when it is unset or empty. */
const char *bt_env_value(const char *name);

#endif
