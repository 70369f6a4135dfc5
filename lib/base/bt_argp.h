/* SPDX-License-Identifier: GPL-2.0 */
/*
 * argp set-up (-h/--help, --usage), usage errors, numbers, id lists, interval/count
 * positionals and the -p/-t checks: what every parser needs, below every layer that parses.
 */
#ifndef BT_ARGP_H
#define BT_ARGP_H

#include <argp.h>
#include <stdbool.h>

#include "bt_cmd.h"

/*
 * Parse argv with the command's argp plus the common options (-h/--help, --usage). Returns 0,
 * 1 when help or usage was printed (the caller stops and exits 0), or -BT_EUSAGE.
 */
int bt_args_parse(const struct bt_cmd *cmd, int argc, char **argv);
/* The command bt_args_parse() parses (or parsed last): its parsers' way to their descriptor. */
const struct bt_cmd *bt_args_cmd(void);

/*
 * Every option of a command as bt_args_parse() reads it: its own table, its argp children's
 * (lib/cli/bt_args.h blocks), and --btf where it loads BPF; at most BT_ARGP_OPTIONS_MAX into v.
 * Completion lists them, and finds the option a word names as the parser would.
 */
#define BT_ARGP_OPTIONS_MAX 256
size_t bt_argp_options(const struct bt_cmd *cmd, const struct argp_option **v);
/*
 * The option a command-line word names ("-p", "--pid", "--pid=12"; the last letter of "-vp"),
 * an alias as the option it follows, or NULL; *arg: what follows "=", else NULL.
 */
const struct argp_option *bt_argp_find_option(const struct bt_cmd *cmd, const char *w,
					      const char **arg);
/* Whether key is an option's letter: keys past 0x100 are long-only (isalnum() of those is UB). */
bool bt_argp_short_key(int key);

/*
 * --btf FILE, which every command that loads BPF (BT_NEED_PRIV) takes: the file given, or NULL.
 * main() hands it to the layer that reads the kernel's types (lib/kernel/bt_vmlinux_btf.h).
 */
extern const struct argp bt_argp_btf;
const char *bt_args_btf_file(void);

/*
 * In an argp parser: print "CMD: <message>" and the usage line to stderr, return EINVAL.
 * After -h/--help/--usage it does nothing and returns 0: help wins over other complaints.
 */
int bt_argp_error(struct argp_state *state, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The usage line on stderr after a usage error; not in JSON mode, where stderr is JSON. */
void bt_argp_usage_hint(struct argp_state *state);

/*
 * The parser of a command whose options are its first child's (a family's block: the off-CPU
 * tools', the irq tools'), or what the command's parser returns for the keys it leaves: the
 * child gets argp's input, the command's options struct.
 */
error_t bt_argp_to_child(int key, char *arg, struct argp_state *state);

/*
 * Parse a whole decimal number in [min, max] into *out. On failure print
 * "invalid WHAT 'S': ..." and return -BT_EUSAGE.
 */
int bt_parse_ulong(const char *s, const char *what, unsigned long min, unsigned long max,
		   unsigned long *out);
int bt_parse_long(const char *s, const char *what, long min, long max, long *out);

/*
 * A number >= 0, fractions allowed, whose value times scale fits in 63 bits (a threshold of
 * funcslower's in units of scale nanoseconds); else "invalid WHAT 'S': expected a number of
 * UNIT >= 0" and the usage line. 0 or EINVAL.
 */
int bt_argp_fraction(struct argp_state *state, const char *s, const char *what, const char *unit,
		     double scale, double *out);

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

#endif
