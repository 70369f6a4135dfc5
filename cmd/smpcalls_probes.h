/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smpcalls' probe table (cmd/smpcalls.c), in a header of its own so that
 * test/unit/test_variant.c drives the very table the command declares through every kernel.
 */
#ifndef SMPCALLS_PROBES_H
#define SMPCALLS_PROBES_H

#include "bt_cmd.h"

/*
 * The kernel decides the mechanism: the csd tracepoints' queue point, or else the kprobe on
 * smp_call_function_single(); the rest of that mechanism's probes follow, all of it or none.
 * Without the tracepoints: as the original, with what this kernel has of it, an entry only
 * with its return (one without the other times nothing).
 */
static const struct bt_probe smpcalls_probes[] = {
	{ "csd_queue_raw", NULL, "?, ?, ?, ?" },
	{ "kp_single", NULL, "int, smp_call_func_t, void *, int", BT_PROBE_ALT,
	  .note = "no csd tracepoints: timing smp_call_function_*() with kprobes" },
	{ "csd_entry_raw", NULL, "?, ?", .with = "csd_queue_raw" },
	{ "csd_exit_raw", NULL, "?, ?", .with = "csd_queue_raw" },
	{ "kret_single", NULL, .with = "kp_single" },
	{ "kp_many", NULL, "?, smp_call_func_t, ?, ?, ?", BT_PROBE_OPTIONAL, .with = "kp_single" },
	{ "kret_many", NULL, NULL, BT_PROBE_OPTIONAL | BT_PROBE_PAIRED },
	{ "kp_ipi", NULL, NULL, BT_PROBE_OPTIONAL, .with = "kp_single" },
	{ "kret_ipi", NULL, NULL, BT_PROBE_OPTIONAL | BT_PROBE_PAIRED },
	{ NULL },
};

#endif
