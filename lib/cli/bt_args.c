// SPDX-License-Identifier: GPL-2.0
/*
 * The option blocks many commands share (-p, -i/-d, --attach/--max-probes, --json, --unwind),
 * as argp children. Above the attach layer and the unwinder, whose choices they parse: the
 * choice reaches them through the command's options, never read back from here.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "bt_args.h"
#include "bt_err.h"
#include "bt_unwinder.h"

enum {
	OPT_COMMON_ATTACH = 0x1100,
	OPT_COMMON_MAX_PROBES,
	OPT_COMMON_JSON,
};

static const struct argp_option pid_options[] = {
	{ "pid", 'p', "PID", 0, "Trace this PID only", 0 },
	{ NULL },
};

static const struct argp_option interval_options[] = {
	{ "interval", 'i', "INTERVAL", 0, "Summary interval, seconds", 0 },
	{ "duration", 'd', "DURATION", 0, "Total duration of trace, seconds", 0 },
	{ NULL },
};

static const struct argp_option attach_options[] = {
	{ "attach", OPT_COMMON_ATTACH, "MODE", 0, "Kernel functions through auto, fentry or kprobe",
	  0 },
	{ "max-probes", OPT_COMMON_MAX_PROBES, "N", 0,
	  "Refuse patterns matching more than N probes (default 1000)", 0 },
	{ NULL },
};

static const struct argp_option json_options[] = {
	{ "json", OPT_COMMON_JSON, NULL, 0, "Print JSON Lines, messages as JSON on stderr", 0 },
	{ NULL },
};

static error_t parse_common_opt(int key, char *arg, struct argp_state *state)
{
	struct bt_common_opts *c = state->input;

	switch (key) {
	case 'p':
		return bt_argp_long(state, arg, "PID", 1, INT_MAX, &c->pid);
	case 'i':
		return bt_argp_ulong(state, arg, "interval", 1, BT_FOREVER, &c->interval);
	case 'd':
		return bt_argp_ulong(state, arg, "duration", 1, BT_FOREVER, &c->duration);
	case OPT_COMMON_ATTACH:
		return bt_argp_attach_mode(state, arg, &c->mode);
	case OPT_COMMON_MAX_PROBES:
		return bt_argp_ulong(state, arg, "probe limit", 1, 1000000, &c->max_probes);
	case OPT_COMMON_JSON:
		bt_set_json_mode(true);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp bt_argp_pid = { .options = pid_options, .parser = parse_common_opt };
const struct argp bt_argp_interval = { .options = interval_options, .parser = parse_common_opt };
const struct argp bt_argp_duration = { .options = interval_options + 1,
				       .parser = parse_common_opt };
const struct argp bt_argp_attach = { .options = attach_options, .parser = parse_common_opt };
const struct argp bt_argp_json = { .options = json_options, .parser = parse_common_opt };

void bt_argp_common_init(struct argp_state *state, const struct argp *argp,
			 struct bt_common_opts *c)
{
	size_t i;

	for (i = 0; argp->children && argp->children[i].argp; i++)
		state->child_inputs[i] = c;
}

int bt_argp_attach_mode(struct argp_state *state, const char *arg, enum bt_attach_mode *mode)
{
	if (!bt_attach_mode_parse(arg, mode))
		return 0;
	bt_argp_usage_hint(state);
	return EINVAL;
}

enum { OPT_UNWIND = 0x7501 };

static const struct argp_option unwind_options[] = {
	{ "unwind", OPT_UNWIND, "MODE", 0,
	  "User stacks: auto (tables from .eh_frame where possible, else frame pointers), fp, "
	  "dwarf",
	  0 },
	{},
};

/* Its input is the command's enum bt_unwind_mode, handed on in struct bt_stacks_opts. */
static error_t parse_unwind(int key, char *arg, struct argp_state *state)
{
	enum bt_unwind_mode *mode = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		if (mode)
			*mode = BT_UNWIND_AUTO;
		return 0;
	case OPT_UNWIND:
		if (!mode)
			return bt_argp_error(state, "--unwind: the command gave no place for it");
		if (!strcmp(arg, "auto"))
			*mode = BT_UNWIND_AUTO;
		else if (!strcmp(arg, "fp"))
			*mode = BT_UNWIND_FP;
		else if (!strcmp(arg, "dwarf"))
			*mode = BT_UNWIND_DWARF;
		else
			return bt_argp_error(state, "invalid --unwind '%s': auto, fp or dwarf",
					     arg);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp bt_argp_unwind = { .options = unwind_options, .parser = parse_unwind };
