/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What offcputime and offwaketime share (probes/bt_offcpu.bpf.h is the kernel side): BCC's
 * thread filters and block-time window, the stack choice and the output forms (the shared
 * blocks of lib/cli/bt_args.h as its own children), as one argp child, and writing the filters
 * into the object's read-only data.
 *
 *	static struct bt_offcpu_opts oo = BT_OFFCPU_OPTS_INIT;
 *	static const struct argp_child children[] = { { &bt_offcpu_argp, 0, NULL, 0 }, { NULL } };
 *	...in the command's parser:  case ARGP_KEY_INIT: state->child_inputs[0] = &oo; break;
 *	...before load:              bt_offcpu_apply(skel->obj, &oo);
 */
#ifndef BT_OFFCPU_OPTS_H
#define BT_OFFCPU_OPTS_H

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>
#include <bpf/libbpf.h>

#include "bt_args.h"
#include "bt_inflight.h"
#include "bt_loop.h"
#include "bt_offcpu.h"
#include "bt_skel.h"
#include "bt_stack_out.h"
#include "bt_stack_row.h"
#include "bt_stack_table.h"
#include "bt_stacks.h"

struct bt_offcpu_opts {
	unsigned int tgids[BT_OFFCPU_MAX_IDS], ntgids; /* -p */
	unsigned int tids[BT_OFFCPU_MAX_IDS], ntids;   /* -t */
	const char *tgid_arg, *tid_arg;		       /* as given, for the banner */
	bool user_threads, kernel_threads;	       /* -u, -k */
	bool user_only, kernel_only;		       /* -U, -K */
	bool delimited, folded, json;		       /* -d, -f, --json */
	bool offset;				       /* -s */
	unsigned long duration;			       /* the positional [duration]; 0: none */
	unsigned long storage;			       /* --stack-storage-size */
	unsigned long min_us, max_us;		       /* -m, -M */
	long state;				       /* --state; -1: any */
	struct bt_stack_out_opts out;		       /* --flamegraph, --pprof */
	enum bt_unwind_mode unwind;		       /* --unwind */
	struct bt_opt_vals vals;		       /* the shared blocks' places in this */
};
#define BT_OFFCPU_OPTS_INIT                                                \
	{                                                                  \
		.storage = 16384, .min_us = 1, .max_us = ~0UL, .state = -1 \
	}

extern const struct argp bt_offcpu_argp;
/*
 * For a command whose options are all the shared block's: its argp's .parser and .children,
 * with its struct bt_offcpu_opts as .opts (the input argp hands the block).
 */
error_t bt_offcpu_parser(int key, char *arg, struct argp_state *state);
extern const struct argp_child bt_offcpu_children[];

/* Write the thread filters, the block-time window and the stacks wanted into obj's read-only
 * data. */
int bt_offcpu_apply(struct bpf_object *obj, const struct bt_offcpu_opts *o);

/* "all threads", "user threads", "kernel threads", "PIDs 185,186" or "TIDs 188", as BCC. */
void bt_offcpu_threads(const struct bt_offcpu_opts *o, char *buf, size_t len);
/* "user + kernel", "user" or "kernel" */
const char *bt_offcpu_stacks(const struct bt_offcpu_opts *o);

/*
 * From an opened skeleton to tracing: the filters and o's stacks set in its read-only data,
 * the stack maps sized (sopts), the programs chosen (probes), loaded, the stacks' user side
 * made (*stacks, to free), the -p processes snapshotted (one may exit before its first count
 * is read), attached (to what, for the message). 0 or -errno (said on stderr).
 */
int bt_offcpu_start(struct bpf_object_skeleton *skel, const struct bt_offcpu_opts *o,
		    const struct bt_probe *probes, const struct bt_stacks_opts *sopts,
		    const char *what, struct bt_stacks **stacks);

/*
 * "Tracing ..." (fmt) and " for N secs." or "... Hit Ctrl-C to end.", on stdout, or on stderr
 * when stdout holds data only (-f, --json).
 */
void bt_offcpu_banner(const struct bt_offcpu_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A tool's rows (its parts, row) as o prints them: BCC's blocks, -f or --json; -U, -K and -d;
 * -s; and the --flamegraph/--pprof files out.
 */
struct bt_stack_rows bt_offcpu_rows(const struct bt_offcpu_opts *o, const struct bt_row_part *row,
				    struct bt_stacks *stacks, struct bt_stack_out *out);

/* Where a tool's off-CPU sums are and how they become rows. */
struct bt_offcpu_counts {
	struct bt_stacks *stacks;
	int fd;			     /* keys of key_size, __u64 values */
	size_t key_size, gen_offset; /* the key's generation (__u32) at gen_offset */
	bt_stacks_entry_fn add_row;  /* one row of table per key (--json: without the sum) */
	void *ctx;		     /* add_row's */
	struct bt_stack_table *table;
	const char *value_name; /* --json: the member the sum is printed as */
};

/*
 * Set *c for a tool's counts map (its keys' stack generation, a __u32, at gen_offset; the key
 * size is the map's), whose keys add_row(ctx) makes rows of table, printed by --json with the
 * sum as value_name; and make bt_offcpu_collect(c) the collector of stacks, so that exited
 * processes waiting to be named have their counts drained into the table. c must live as long
 * as stacks.
 */
void bt_offcpu_counts_init(struct bt_offcpu_counts *c, struct bt_stacks *stacks,
			   const struct bpf_map *counts, size_t gen_offset,
			   bt_stacks_entry_fn add_row, void *ctx, struct bt_stack_table *table,
			   const char *value_name);

/*
 * Every count so far (both stack generations, whichever is current) read and deleted, each
 * made a row of the table, rows that print the same merged. A bt_stacks_collect_fn: it runs
 * whenever exited processes wait to be named (lib/stacks/bt_stacks.h), and before the summary.
 */
int bt_offcpu_collect(void *counts);
/*
 * The summary: bt_offcpu_collect(), then the rows sorted and printed in o's form (BCC's
 * blocks, -f or --json), and the table emptied. 0 or -errno (said on stderr).
 */
int bt_offcpu_summary(const struct bt_offcpu_opts *o, struct bt_offcpu_counts *c);

/*
 * Trace until o's duration is over or Ctrl-C, reading the processes stacks announces as they
 * come; then print(ctx), the summary, and say what was lost: stacks, and the starts the
 * in-flight tables of obj (inflight, probes/bt_inflight.bpf.h) refused. print's result.
 */
int bt_offcpu_loop(const struct bt_offcpu_opts *o, struct bt_stacks *stacks, struct bpf_object *obj,
		   const struct bt_inflight_table *inflight, bt_print_fn print, void *ctx);

#endif
