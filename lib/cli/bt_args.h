/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The option blocks commands share, as argp children (lib/base/bt_argp.h, which this includes, has
 * the argp set-up and number parsing every parser uses).
 */
#ifndef BT_ARGS_H
#define BT_ARGS_H

#include <argp.h>
#include <stdbool.h>

#include "bt_argp.h"
#include "bt_attach.h"
#include "bt_stack_out.h"
#include "bt_unwinder.h"

/*
 * Every option more than one command has is declared once, here, with one help text and one
 * parser, as an argp child; a command lists the blocks it takes in its argp's .children and
 * says where each value goes in a struct bt_opt_vals, as git's parse-options.h macros name
 * the variable of each option. The short letters are BCC's, so a few options come in two
 * spellings (--json and -j/--json, --debug and -D/--debug): the same row but for the letter.
 *
 *	static struct tool_opts { long pid; bool json; bool own; } opts;
 *	static const struct bt_opt_vals vals = { .pid = &opts.pid, .json = &opts.json };
 *	static const struct argp argp = { options, parse_opt, ...,
 *		.children = BT_ARGP_CHILDREN(bt_argp_pid, bt_argp_json) };
 *	...in parse_opt, for every key it does not handle itself:
 *	default:
 *		return bt_argp_own(key, arg, state);
 *	...and in the descriptor: .vals = &vals
 *
 * Bad values are usage errors naming the option ("invalid PID 'x': ..."), exit 2, alike in
 * every command. test/meta/shared_opts.py fails when cmd/ declares one of these options
 * itself, test/meta/shared_opts.sh when two commands parse or describe one differently.
 */
struct bt_opt_vals {
	long *pid;		   /* -p, --pid PID: 1..INT_MAX */
	unsigned long *interval;   /* -i, --interval SECS */
	unsigned long *duration;   /* -d, --duration SECS */
	long *cpu;		   /* -c, --cpu CPU: a possible CPU */
	bool *timestamp;	   /* -T, --timestamp */
	bool *regex;		   /* -r, --regexp */
	bool *milliseconds;	   /* -m, --milliseconds */
	enum bt_attach_mode *mode; /* --attach MODE */
	unsigned long *max_probes; /* --max-probes N */
	bool *json;		   /* --json (or -j): NULL if the command reads bt_json_mode() */
	bool *user_only, *kernel_only;	 /* -U, --user-stacks-only and -K, --kernel-stacks-only */
	bool *user_stack, *kernel_stack; /* -U, --user-stack and -K, --kernel-stack */
	bool *delimited;		 /* -d, --delimited */
	bool *folded;			 /* -f, --folded */
	bool *annotate;			 /* -a, --annotations */
	bool *offset;			 /* -s, --offset */
	unsigned long *storage;		 /* --stack-storage-size N (BT_ARGP_STACK_STORAGE) */
	enum bt_unwind_mode *unwind;	 /* --unwind MODE: set to auto first */
	struct bt_stack_out_opts *out;	 /* --flamegraph FILE, --pprof FILE (bt_stack_out_argp) */
	struct bt_stack_args *stack;	 /* or the eleven above, -U to --pprof, in one place */
	const char **disk;		 /* -d, --disk DISK */
	const char **cgroup;		 /* -c, --cgroup CGROUP */
	const char **cgroupmap, **mntnsmap; /* --cgroupmap PATH, --mntnsmap PATH */
	/* The command's own: flags set when given ({ key, &opts.flag }, { 0 }-ended: as
	 * BT_ARGP_FLAGS lists them), and the positional [interval [count]]
	 * (bt_argp_interval_arg()). */
	const struct bt_argp_flag {
		int key;
		bool *set;
	} * flags;
	struct bt_interval *iv;
	/*
	 * Or its one word (PATTERN, FUNCTION), required: a second is the usage error word_extra
	 * (a format of the word; NULL: "unexpected argument '%s'"), none word_missing, said at
	 * ARGP_KEY_END before the command's own checks there (bt_argp_words_end()).
	 */
	const char **word;
	const char *word_extra, *word_missing;
	/* Or its [duration], seconds: 1 to duration_max (0: BT_FOREVER), once. */
	unsigned long *duration_arg;
	unsigned long duration_max;
	/* Or none: any word is the usage error "unexpected argument '%s'". */
	bool no_args;
};

/*
 * The stack blocks' values together, for the stack tools that keep them so: a command's vals
 * .stack puts every one of them here, in place of the members of struct bt_opt_vals one by one.
 */
struct bt_stack_args {
	bool user_only, kernel_only;		  /* bt_argp_stacks_only's -U, -K */
	bool user_stack, kernel_stack;		  /* bt_argp_stack_kinds' -U, -K */
	bool delimited, folded, annotate, offset; /* -d, -f, -a, -s */
	unsigned long storage;	      /* --stack-storage-size: the command's default first */
	enum bt_unwind_mode unwind;   /* --unwind, --no-python */
	struct bt_stack_out_opts out; /* --flamegraph, --pprof */
};

/*
 * The command's argp parser, or what its parser returns for the keys it leaves: at
 * ARGP_KEY_INIT each shared block among the command's children gets the descriptor's vals
 * (bt_argp_vals_init()), its flags are set, its positionals read ([interval [count]], a word
 * or a [duration]); else ARGP_ERR_UNKNOWN.
 */
error_t bt_argp_own(int key, char *arg, struct argp_state *state);

/*
 * In a command's own ARGP_KEY_END, first: the usage error of a missing word (v->word), else 0.
 * bt_argp_own() does the same for a command that leaves ARGP_KEY_END to it.
 */
error_t bt_argp_words_end(struct argp_state *state);

/* In the command's ARGP_KEY_INIT: give each shared block among argp's children v. */
void bt_argp_vals_init(struct argp_state *state, const struct argp *argp,
		       const struct bt_opt_vals *v);

#define BT_ARGP_CHILD(block)         \
	{                            \
		&(block), 0, NULL, 0 \
	}

/* BCC's one PATTERN (funccount, funclatency) for bt_opt_vals: .word and its two messages. */
#define BT_ARGP_PATTERN(pattern)                                             \
	.word = &(pattern), .word_extra = "one pattern only: '%s' is extra", \
	.word_missing = "a pattern to trace is required"

/* A command's own flags for bt_opt_vals: .flags = BT_ARGP_FLAGS({ 'K', &opts.stacks }). */
#define BT_ARGP_FLAGS(...) ((const struct bt_argp_flag[]){ __VA_ARGS__, { 0 } })

/*
 * A command's shared blocks in help order, as the { NULL }-ended children argp wants:
 * `.children = BT_ARGP_CHILDREN(bt_argp_pid, bt_argp_json)`. At most 20 blocks.
 */
#define BT_ARGP_CHILDREN(...) ((const struct argp_child[]){ BT_ARGP_EACH_(__VA_ARGS__){ NULL } })

#define BT_ARGP_EACH_(...) BT_ARGP_CAT_(BT_ARGP_EACH_, BT_ARGP_NARGS_(__VA_ARGS__))(__VA_ARGS__)
#define BT_ARGP_CAT_(a, b) BT_ARGP_CAT2_(a, b)
#define BT_ARGP_CAT2_(a, b) a##b
#define BT_ARGP_NARGS_(...)                                                                        \
	BT_ARGP_NTH_(__VA_ARGS__, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, \
		     2, 1)
#define BT_ARGP_NTH_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, _17, \
		     _18, _19, _20, N, ...)                                                      \
	N
#define BT_ARGP_EACH_1(b) BT_ARGP_CHILD(b),
#define BT_ARGP_EACH_2(b, ...) BT_ARGP_CHILD(b), BT_ARGP_EACH_1(__VA_ARGS__)
#define BT_ARGP_EACH_3(b, ...) BT_ARGP_CHILD(b), BT_ARGP_EACH_2(__VA_ARGS__)
#define BT_ARGP_EACH_4(b, ...) BT_ARGP_CHILD(b), BT_ARGP_EACH_3(__VA_ARGS__)
#define BT_ARGP_EACH_5(b, ...) BT_ARGP_CHILD(b), BT_ARGP_EACH_4(__VA_ARGS__)
#define BT_ARGP_EACH_6(b, ...) BT_ARGP_CHILD(b), BT_ARGP_EACH_5(__VA_ARGS__)
#define BT_ARGP_EACH_7(b, ...) BT_ARGP_CHILD(b), BT_ARGP_EACH_6(__VA_ARGS__)
#define BT_ARGP_EACH_8(b, ...) BT_ARGP_CHILD(b), BT_ARGP_EACH_7(__VA_ARGS__)
#define BT_ARGP_EACH_9(b, ...) BT_ARGP_CHILD(b), BT_ARGP_EACH_8(__VA_ARGS__)
#define BT_ARGP_EACH_10(b, ...) BT_ARGP_CHILD(b), BT_ARGP_EACH_9(__VA_ARGS__)
#define BT_ARGP_EACH_11(b, ...) BT_ARGP_CHILD(b), BT_ARGP_EACH_10(__VA_ARGS__)
#define BT_ARGP_EACH_12(b, ...) BT_ARGP_CHILD(b), BT_ARGP_EACH_11(__VA_ARGS__)
#define BT_ARGP_EACH_13(b, ...) BT_ARGP_CHILD(b), BT_ARGP_EACH_12(__VA_ARGS__)
#define BT_ARGP_EACH_14(b, ...) BT_ARGP_CHILD(b), BT_ARGP_EACH_13(__VA_ARGS__)
#define BT_ARGP_EACH_15(b, ...) BT_ARGP_CHILD(b), BT_ARGP_EACH_14(__VA_ARGS__)
#define BT_ARGP_EACH_16(b, ...) BT_ARGP_CHILD(b), BT_ARGP_EACH_15(__VA_ARGS__)
#define BT_ARGP_EACH_17(b, ...) BT_ARGP_CHILD(b), BT_ARGP_EACH_16(__VA_ARGS__)
#define BT_ARGP_EACH_18(b, ...) BT_ARGP_CHILD(b), BT_ARGP_EACH_17(__VA_ARGS__)
#define BT_ARGP_EACH_19(b, ...) BT_ARGP_CHILD(b), BT_ARGP_EACH_18(__VA_ARGS__)
#define BT_ARGP_EACH_20(b, ...) BT_ARGP_CHILD(b), BT_ARGP_EACH_19(__VA_ARGS__)

extern const struct argp bt_argp_pid;	       /* -p, --pid PID */
extern const struct argp bt_argp_interval;     /* -i, --interval INTERVAL */
extern const struct argp bt_argp_duration;     /* -d, --duration DURATION */
extern const struct argp bt_argp_cpu;	       /* -c, --cpu CPU */
extern const struct argp bt_argp_timestamp;    /* -T, --timestamp */
extern const struct argp bt_argp_regexp;       /* -r, --regexp */
extern const struct argp bt_argp_milliseconds; /* -m, --milliseconds */
extern const struct argp bt_argp_attach;       /* --attach MODE */
extern const struct argp bt_argp_max_probes;   /* --max-probes N */
/* --json: JSON Lines on stdout and messages as JSON on stderr (bt_set_json_mode()). */
extern const struct argp bt_argp_json;
extern const struct argp bt_argp_json_j; /* the same as -j, --json (BCC's biolatency) */
/* --debug: what is attached and how, and libbpf's log (bt_set_debug()) */
extern const struct argp bt_argp_debug;
extern const struct argp bt_argp_debug_D; /* the same as -D, --debug (BCC's funccount) */

/* The stack tools' */
extern const struct argp bt_argp_stacks_only; /* -U/--user-stacks-only, -K/--kernel-stacks-only */
extern const struct argp bt_argp_stack_kinds; /* -U/--user-stack, -K/--kernel-stack */
extern const struct argp bt_argp_delimited;   /* -d, --delimited */
extern const struct argp bt_argp_folded;      /* -f, --folded */
extern const struct argp bt_argp_annotate;    /* -a, --annotations: _[k] _[j] _[i] */
extern const struct argp bt_argp_offset;      /* -s, --offset */
/*
 * --unwind=auto|fp|dwarf, for every tool that takes user stacks. The mode is the command's,
 * which it passes on in struct bt_stacks_opts: the unwinder gets its mode from its options,
 * never from the command line behind the command's back.
 */
extern const struct argp bt_argp_unwind;

/* The block tools' (the name as given: the command looks it up) */
extern const struct argp bt_argp_disk;	 /* -d, --disk DISK */
extern const struct argp bt_argp_cgroup; /* -c, --cgroup CGROUP */
/* BCC's --cgroupmap PATH and --mntnsmap PATH: pinned BPF hashes (lib/attach/bt_skel.h) */
extern const struct argp bt_argp_ns_maps;

/*
 * --stack-storage-size N with the command's default in its help (which the command's options
 * start with): a block named name, defined where this is written.
 */
#define BT_ARGP_STACK_STORAGE(name, def)                                                       \
	static const struct argp_option name##_options[] = {                                   \
		{ "stack-storage-size", BT_OPT_STACK_STORAGE, "N", 0,                          \
		  "Number of unique stacks to store (default " #def ", at most 1048576)", 0 }, \
		{ NULL },                                                                      \
	};                                                                                     \
	static const struct argp name = { .options = name##_options,                           \
					  .parser = bt_argp_stacks_parse }
enum { BT_OPT_STACK_STORAGE = 0x1180 };
/* The parser of the stack blocks, for BT_ARGP_STACK_STORAGE. */
error_t bt_argp_stacks_parse(int key, char *arg, struct argp_state *state);

/*
 * The values of -p, -i, -d, --attach and --max-probes in one struct, for the commands that
 * keep them together: BT_COMMON_VALS(opts.c) in their struct bt_opt_vals.
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
#define BT_COMMON_VALS(c)                                                                         \
	.pid = &(c).pid, .interval = &(c).interval, .duration = &(c).duration, .mode = &(c).mode, \
	.max_probes = &(c).max_probes

/* How a command's pattern resolves under -p and --max-probes (regex: -r given). */
struct bt_resolve_opts bt_common_resolve(const struct bt_common_opts *c, bool regex);

/* --attach=MODE in an argp parser: 0, or EINVAL after the message and the usage line. */
int bt_argp_attach_mode(struct argp_state *state, const char *arg, enum bt_attach_mode *mode);

#endif
