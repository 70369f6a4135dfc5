/* SPDX-License-Identifier: GPL-2.0 */
/*
 * opensnoop's probe tables (cmd/opensnoop.c), in a header of their own so that
 * test/unit/test_variant.c drives the very tables the command declares through every kernel.
 */
#ifndef OPENSNOOP_PROBES_H
#define OPENSNOOP_PROBES_H

#include "bt_cmd.h"

/*
 * Each syscall's tracepoints only where the kernel has them (no open(2) on arm64, say), an
 * entry only with its return; one syscall at least.
 */
#define SYSCALLS "the open, openat and openat2 syscall tracepoints"
static const struct bt_probe opensnoop_probes[] = {
	{ "enter_open", .flags = BT_PROBE_OPTIONAL | BT_PROBE_ANY, .what = SYSCALLS },
	{ "exit_open", .flags = BT_PROBE_OPTIONAL | BT_PROBE_PAIRED },
	{ "enter_openat", .flags = BT_PROBE_OPTIONAL | BT_PROBE_ANY },
	{ "exit_openat", .flags = BT_PROBE_OPTIONAL | BT_PROBE_PAIRED },
	{ "enter_openat2", .flags = BT_PROBE_OPTIONAL | BT_PROBE_ANY },
	{ "exit_openat2", .flags = BT_PROBE_OPTIONAL | BT_PROBE_PAIRED },
	{ NULL },
};

/*
 * -F: the returns that resolve the directory (probes/opensnoop.bpf.c), through BTF pointers
 * (6.2+, lockdown or not), else through kernel reads (5.17 to 6.1, where lockdown allows).
 */
#define FULL_BTF (BT_NEEDS_LOOP | BT_NEEDS_RDONLY_CAST)
#define FULL_READ (BT_NEEDS_LOOP | BT_NEEDS_KERNEL_READS)
static const struct bt_probe opensnoop_probes_full[] = {
	{ "enter_open", .flags = BT_PROBE_OPTIONAL | BT_PROBE_ANY, .what = SYSCALLS },
	{ "exit_open_full", .flags = BT_PROBE_OPTIONAL | BT_PROBE_PAIRED, .needs = FULL_BTF,
	  .what = "-F" },
	{ "exit_open_fullr", .flags = BT_PROBE_ALT, .needs = FULL_READ },
	{ "enter_openat", .flags = BT_PROBE_OPTIONAL | BT_PROBE_ANY },
	{ "exit_openat_full", .flags = BT_PROBE_OPTIONAL | BT_PROBE_PAIRED, .needs = FULL_BTF,
	  .what = "-F" },
	{ "exit_openat_fullr", .flags = BT_PROBE_ALT, .needs = FULL_READ },
	{ "enter_openat2", .flags = BT_PROBE_OPTIONAL | BT_PROBE_ANY },
	{ "exit_openat2_full", .flags = BT_PROBE_OPTIONAL | BT_PROBE_PAIRED, .needs = FULL_BTF,
	  .what = "-F" },
	{ "exit_openat2_fullr", .flags = BT_PROBE_ALT, .needs = FULL_READ },
	{ NULL },
};

#endif
