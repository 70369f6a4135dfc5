/* SPDX-License-Identifier: GPL-2.0 */
#ifndef BT_FLAMEGRAPH_H
#define BT_FLAMEGRAPH_H

#include "bt_cmd.h"

/* `bpftools flamegraph`: a top-level subcommand, deliberately not in the registry. */
extern const struct bt_cmd bt_flamegraph_cmd;

#endif
