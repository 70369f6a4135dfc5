/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The option blocks commands share, as argp children (lib/base/bt_argp.h, which this includes, has
 * the argp set-up and number parsing every parser uses).
 */
#ifndef BT_ARGS_H
#define BT_ARGS_H

#include <argp.h>

#include "bt_argp.h"
#include "bt_attach.h"

/*
 * The options many commands share, as argp children, one block per kind so that a command
 * takes exactly the ones it has: list them in the command's argp .children and hand them all
 * the command's struct bt_common_opts in ARGP_KEY_INIT.
 *
 *	static struct tool_opts { struct bt_common_opts c; bool timestamp; } opts = {
 *		.c = BT_COMMON_OPTS_INIT,
 *	};
 *	static const struct argp_child children[] = {
 *		{ &bt_argp_pid, 0, NULL, 0 }, { &bt_argp_interval, 0, NULL, 0 }, { NULL },
 *	};
 *	static const struct argp argp = { options, parse_opt, ..., .children = children };
 *	...in parse_opt:
 *	case ARGP_KEY_INIT:
 *		bt_argp_common_init(state, &argp, &o->c);
 *		break;
 *
 * Bad values are usage errors naming the option ("invalid PID 'x': ..."), exit 2.
 */
struct bt_common_opts {
	long pid;		  /* -p/--pid; 0: every process */
	unsigned long interval;	  /* -i/--interval, seconds; 0: not given */
	unsigned long duration;	  /* -d/--duration, seconds; 0: not given */
	enum bt_attach_mode mode; /* --attach=auto|fentry|kprobe */
	unsigned long max_probes; /* --max-probes; 1000 unless given */
};
#define BT_COMMON_OPTS_INIT        \
	{                          \
		.max_probes = 1000 \
	}

extern const struct argp bt_argp_pid;	   /* -p, --pid PID */
extern const struct argp bt_argp_interval; /* -i, --interval SECS and -d, --duration SECS */
extern const struct argp bt_argp_duration; /* -d, --duration SECS alone */
extern const struct argp bt_argp_attach;   /* --attach MODE and --max-probes N */
/*
 * --json: JSON Lines on stdout and messages as JSON on stderr (bt_set_json_mode()); takes
 * any input (none is written), the command reads bt_json_mode().
 */
extern const struct argp bt_argp_json;

/* In the command's ARGP_KEY_INIT: give each of argp's children c as its input. */
void bt_argp_common_init(struct argp_state *state, const struct argp *argp,
			 struct bt_common_opts *c);

/* --attach=MODE in an argp parser: 0, or EINVAL after the message and the usage line. */
int bt_argp_attach_mode(struct argp_state *state, const char *arg, enum bt_attach_mode *mode);

/*
 * --unwind=auto|fp|dwarf, as an argp child for every tool that takes user stacks. Its input
 * (state->child_inputs[i] in ARGP_KEY_INIT, i its place in .children) is the command's enum
 * bt_unwind_mode, which the command passes on in struct bt_stacks_opts: the unwinder gets its
 * mode from its options, never from the command line behind the command's back.
 */
extern const struct argp bt_argp_unwind;

#endif
