/* SPDX-License-Identifier: GPL-2.0 */
/* Option parsing shared by the commands: argp set-up, numbers, interval/count positionals. */
#ifndef BT_ARGS_H
#define BT_ARGS_H

#include <argp.h>
#include <stdbool.h>

#include "bt_attach.h"
#include "bt_cmd.h"

/*
 * Parse argv with the command's argp plus the common options (-h/--help, --usage). Returns 0,
 * 1 when help or usage was printed (the caller stops and exits 0), or -BT_EUSAGE.
 */
int bt_args_parse(const struct bt_cmd *cmd, int argc, char **argv);

/*
 * In an argp parser: print "CMD: <message>" and the usage line to stderr, return EINVAL.
 * After -h/--help/--usage it does nothing and returns 0: help wins over other complaints.
 */
int bt_argp_error(struct argp_state *state, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The usage line on stderr after a usage error; not in JSON mode, where stderr is JSON. */
void bt_argp_usage_hint(struct argp_state *state);

/*
 * Parse a whole decimal number in [min, max] into *out. On failure print
 * "invalid WHAT 'S': ..." and return -BT_EUSAGE.
 */
int bt_parse_ulong(const char *s, const char *what, unsigned long min, unsigned long max,
		   unsigned long *out);
int bt_parse_long(const char *s, const char *what, long min, long max, long *out);

/* argp wrappers of the above: return 0 or EINVAL after printing the usage line. */
int bt_argp_ulong(struct argp_state *state, const char *s, const char *what, unsigned long min,
		  unsigned long max, unsigned long *out);
int bt_argp_long(struct argp_state *state, const char *s, const char *what, long min, long max,
		 long *out);

/*
 * A comma-separated list of ids in [1, INT_MAX] ("185,186", BCC's -p/-t lists) into
 * ids[0..max); *n is how many. On failure print what was wrong and return EINVAL.
 */
int bt_argp_id_list(struct argp_state *state, const char *s, const char *what, unsigned int *ids,
		    unsigned int max, unsigned int *n);

/*
 * -p/-t of a process or thread that does not exist (0: none given): "no process with PID N"
 * or "no thread with TID N" and -BT_EUSAGE. Checked when the tool starts, not while parsing,
 * so the line is JSON under --json. BCC would trace nothing, silently.
 */
int bt_check_pid(long pid);
int bt_check_tid(long tid);
/* Whether process or thread id runs still: it exists and is not a zombie. */
bool bt_pid_alive(long id);

/* "[interval [count]]" positionals, BCC's convention: both default to "forever". */
struct bt_interval {
	unsigned long interval; /* seconds between outputs */
	unsigned long count;	/* number of outputs */
	unsigned long duration; /* seconds in all, the last interval cut short; 0: no limit */
	int nargs;		/* positionals seen so far */
};
#define BT_FOREVER 99999999UL

/* For ARGP_KEY_ARG in a parser. */
int bt_argp_interval_arg(struct argp_state *state, const char *arg, struct bt_interval *iv);

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

#endif
