/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What offcputime and offwaketime share (probes/bt_offcpu.bpf.h is the kernel side): BCC's
 * thread filters and block-time window, the stack choice and the output forms (the shared
 * blocks of lib/cli/bt_args.h as its own children), as one argp child, and the whole run, from
 * the opened skeleton to the summary; a tool says only what differs (struct bt_offcpu_tool).
 *
 *	static struct bt_offcpu_opts oo = BT_OFFCPU_OPTS_INIT;
 *	static const struct argp argp = { .parser = bt_argp_to_child,
 *					  .children = bt_offcpu_children, ... };
 *	...run:	err = bt_offcpu_run__init(&r, &tool, &oo) ?: BT_SKEL_OPEN(name, &skel);
 *		if (!err)
 *			err = bt_offcpu_run(&r, skel->skeleton, skel->maps.counts, cmd->probes);
 *		name_bpf__destroy(skel);
 *		bt_offcpu_run__free(&r);
 */
#ifndef BT_OFFCPU_OPTS_H
#define BT_OFFCPU_OPTS_H

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <bpf/libbpf.h>

#include "bt_args.h"
#include "bt_collector.h"
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
	bool annotate;				       /* -a: -f's frames _[k], _[j], _[i] */
	unsigned long duration;			       /* the positional [duration]; 0: none */
	unsigned long storage;			       /* --stack-storage-size */
	unsigned long min_us, max_us;		       /* -m, -M */
	long state;				       /* --state; -1: any */
	struct bt_stack_out_opts out;		       /* --flamegraph, --pprof */
	enum bt_unwind_mode unwind;		       /* --unwind */
	struct bt_opt_vals vals;		       /* the shared blocks' places in this */
};
/* The shared blocks' places in o, a struct bt_offcpu_opts: the block's vals, or a command's. */
#define BT_OFFCPU_VALS(o)                                                                          \
	.user_only = &(o).user_only, .kernel_only = &(o).kernel_only, .delimited = &(o).delimited, \
	.folded = &(o).folded, .annotate = &(o).annotate, .offset = &(o).offset,                   \
	.storage = &(o).storage, .json = &(o).json, .unwind = &(o).unwind, .out = &(o).out
#define BT_OFFCPU_OPTS_INIT                                                \
	{                                                                  \
		.storage = 16384, .min_us = 1, .max_us = ~0UL, .state = -1 \
	}

extern const struct argp bt_offcpu_argp;
/*
 * For a command whose options are all the shared block's: its argp's .children, with
 * bt_argp_to_child as .parser and its struct bt_offcpu_opts as .opts (the block's input).
 */
extern const struct argp_child bt_offcpu_children[];
/*
 * In a parser's ARGP_KEY_END (the block's, profile's): -U with -K, or -f with --json, as the
 * usage error bt_argp_error() makes, else 0.
 */
error_t bt_offcpu_check_stacks(struct argp_state *state, const struct bt_offcpu_opts *o);

/* Write the thread filters, the block-time window and the stacks wanted into obj's read-only
 * data. */
int bt_offcpu_apply(struct bpf_object *obj, const struct bt_offcpu_opts *o);

/* "all threads", "user threads", "kernel threads", "PIDs 185,186" or "TIDs 188", as BCC. */
void bt_offcpu_threads(const struct bt_offcpu_opts *o, char *buf, size_t len);
/* "user + kernel", "user" or "kernel" */
const char *bt_offcpu_stacks(const struct bt_offcpu_opts *o);
/*
 * A thread's state as it left the CPU (the TASK_* bits of include/linux/sched.h), as ps names
 * it: 'R' preempted (runnable, waiting for a CPU), 'S', 'D', 'I' (an idle D: TASK_NOLOAD),
 * 'T', 't', 'P', else '?'.
 */
char bt_offcpu_state_letter(unsigned int state);
/* The frame that names it in a graph: "[off-cpu: S]" (profile --wall, offcputime, offwaketime). */
const char *bt_offcpu_state_frame(unsigned int state);
/* A task's part of a row as the off-CPU keys hold it: name, ids, stacks (no state, CPU 0). */
struct bt_row_proc bt_offcpu_task(const char *comm, unsigned int tgid, unsigned int tid,
				  unsigned int cookie, uint64_t user_stack, uint64_t kernel_stack);

struct bt_offcpu_tool;

/*
 * From an opened skeleton to tracing: the filters and o's stacks set in its read-only data
 * (and the tool's own, t->prepare), the stack maps sized (sopts), the programs chosen
 * (probes), loaded, the stacks' user side made (*stacks, to free), the -p processes
 * snapshotted (one may exit before its first count is read), attached (to t->attach_to, for
 * the message; then t->attach). 0 or -errno (said on stderr).
 */
int bt_offcpu_start(struct bpf_object_skeleton *skel, const struct bt_offcpu_opts *o,
		    const struct bt_offcpu_tool *t, const struct bt_probe *probes,
		    const struct bt_stacks_opts *sopts, struct bt_stacks **stacks);

/*
 * offcputime's exporter collector (lib/output/bt_collector.h): off-CPU seconds per command
 * name and state, no stacks (a bounded series set on a host where threads come and go, and no
 * stack walk per switch). Its run holds the command's skeleton (skel, opened by the command,
 * and its ->skeleton), the stacks and the summary; bt_offcpu_comm_stop() ends it all.
 */
struct bt_summary;
struct bt_labels;
struct bt_offcpu_comm {
	void *skel;
	struct bpf_object_skeleton *skeleton;
	struct bt_stacks *stacks;
	struct bt_summary *sum;
};
/*
 * t's run over every thread with no stacks, its off-CPU time summed per command name and state
 * in the object's comm_counts map (keys struct offcputime_comm_key), read as running totals
 * (c->sum). Keys of one name and state letter are one series (bt_offcpu_comm_cmp), labelled
 * comm and state (bt_offcpu_comm_label). 0 or -errno (said on stderr).
 */
int bt_offcpu_comm_start(struct bt_offcpu_comm *c, const struct bt_offcpu_tool *t,
			 const struct bt_probe *probes);
void bt_offcpu_comm_stop(void *run);
int bt_offcpu_comm_cmp(const void *a, const void *b, void *ctx);
void bt_offcpu_comm_label(void *run, const void *key, struct bt_labels *l);
/* The whole declaration but for its start, the command's (its skeleton opened into the run). */
#define BT_OFFCPU_COMM_COLLECTOR(start_fn)                                                         \
	{                                                                                          \
		.help = "off-CPU seconds per command name and thread state",                       \
		.flags = BT_COLLECT_DEFAULT,                                                       \
		BT_COLLECTOR_RUN(struct bt_offcpu_comm, sum, start_fn, bt_offcpu_comm_stop),       \
		.labels = { "comm", "state" }, .label = bt_offcpu_comm_label,                      \
		.cmp = bt_offcpu_comm_cmp, .merge = true,                                          \
		.families = {                                                                      \
			{ "bpftools_offcpu_seconds", BT_PROM_COUNTER,                              \
			  "Time threads spent off-CPU, by command name and the state they left "   \
			  "the CPU in (R preempted, S sleeping, D uninterruptible, I idle, ...).", \
			  0, 1e6 },                                                                \
		},                                                                                 \
	}

/*
 * "Tracing ..." (fmt) and " for N secs." or "... Hit Ctrl-C to end.", on stdout, or on stderr
 * when stdout holds data only (-f, --json).
 */
void bt_offcpu_banner(const struct bt_offcpu_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The in-flight table every off-CPU tool has (probes/bt_offcpu.bpf.h), first in its list. */
#define BT_OFFCPU_STARTS_INFLIGHT                                         \
	{                                                                 \
		"bt_offcpu_starts", "blocks not timed", "threads off-CPU" \
	}

/*
 * An in-flight map of a tool (beside bt_offcpu_starts) whose entries name stacks that a count
 * written later will use: the offsets of the two stack ids (__u64) in its values.
 */
struct bt_offcpu_holder {
	const char *map;
	size_t value_size, kernel_stack, user_stack;
};

/* Where a tool's off-CPU sums are and how they become rows. */
struct bt_offcpu_counts {
	struct bt_stacks *stacks;
	int fd;			     /* keys of key_size, __u64 values */
	size_t key_size, gen_offset; /* the key's generation (__u32) at gen_offset */
	bt_stacks_entry_fn add_row;  /* one row of table per key (--json: without the sum) */
	void *ctx;		     /* add_row's */
	struct bt_stack_table *table;
	const char *value_name; /* --json: the member the sum is printed as */
	/* the stacks in use past a release: those the keys name, and the in-flight maps' */
	unsigned int (*procs)(const void *key, struct bt_row_proc *procs);
	int starts_fd, holder_fd; /* bt_offcpu_starts, the tool's holder (-1: none) */
	const struct bt_offcpu_holder *holder;
};

/* What makes one off-CPU tool differ from the other, for bt_offcpu_run(). */
struct bt_offcpu_tool {
	const char *title;		   /* --flamegraph's */
	const char *attach_to;		   /* the tracepoints, for the message */
	const struct bt_row_part *row;	   /* a row's parts (lib/stacks/bt_stack_row.h) */
	const char *objects[BT_ROW_PROCS]; /* --json: the object each process is in (or none) */
	/*
	 * The processes of a key of the counts map, in the order row's parts number them; the
	 * pid the row is counted for.
	 */
	unsigned int (*procs)(const void *key, struct bt_row_proc *procs);
	size_t gen_offset;	/* the key's stack generation (a __u32) */
	const char *value_name; /* --json: the member the sum is printed as */
	/* the wakers can be any process: every running one is snapshotted, also with -p or -t */
	bool any_waker;
	const struct bt_inflight_table *inflight; /* probes/bt_inflight.bpf.h, in slot order */
	struct bt_offcpu_holder holder;		  /* map NULL: none */
	void (*banner)(const struct bt_offcpu_opts *o); /* "Tracing ..." (bt_offcpu_banner) */
	/*
	 * --flamegraph/--pprof: the sample type and unit (and title); a NULL sample_type is
	 * "off_cpu" in "microseconds"
	 */
	struct bt_profile_opts profile;
	/*
	 * A tool that samples as well (profile): before load, its own read-only data; once the
	 * skeleton is attached, what it attaches itself (perf events). Each gets ctx; NULL: none.
	 * 0 or -errno (said on stderr).
	 */
	int (*prepare)(void *ctx, struct bpf_object *obj);
	int (*attach)(void *ctx, struct bpf_object *obj);
	/*
	 * At the end, before the summary: what attach attached is taken away, so that the time
	 * spent reading and naming the counts is not sampled too (NULL: nothing)
	 */
	void (*stop)(void *ctx);
	void *ctx;
	/* each key is one thread's on one CPU: rows.thread (lib/stacks/bt_stack_row.h) */
	bool thread;
};

/* A run: what it made, freed by bt_offcpu_run__free() once the skeleton is destroyed. */
struct bt_offcpu_run {
	const struct bt_offcpu_tool *tool;
	const struct bt_offcpu_opts *opts;
	struct bt_stacks *stacks;
	struct bt_stack_rows rows;
	struct bt_stack_table table;
	struct bt_stack_out *out; /* --flamegraph, --pprof */
	struct bt_offcpu_counts counts;
	bool oneshot; /* bt_offcpu_run_pprof(): rows go to the profile only */
};

/*
 * Before the skeleton is opened: *r set for tool and o, and the --flamegraph/--pprof files
 * opened, so that an unwritable path fails before anything loads. 0 or -errno (said).
 */
int bt_offcpu_run__init(struct bt_offcpu_run *r, const struct bt_offcpu_tool *tool,
			const struct bt_offcpu_opts *o);
/*
 * The off-CPU tools' run, from the opened skeleton (its counts map keyed as tool->procs reads
 * it) to the summary: bt_offcpu_start() with probes, the banner, tracing until the duration is
 * over or Ctrl-C while the processes stacks announces are read as they come, then the summary
 * in o's form, the --flamegraph/--pprof files, and what was lost (stacks, and the starts the
 * in-flight tables refused). Nothing is traced when stdout's reader has gone before the banner
 * was flushed. 0 or -errno (said on stderr).
 */
int bt_offcpu_run(struct bt_offcpu_run *r, struct bpf_object_skeleton *skel,
		  const struct bpf_map *counts, const struct bt_probe *probes);
/*
 * The same run as one profile for a long-running caller: for seconds, with a deadline of its
 * own (no look at the stop signals or flag), no banner and nothing on stdout, the counts
 * written to out as gzipped pprof (tool->profile's sample types; the rows' files, if any, are
 * not written). Called again on the same run (lib/tools/bt_offcpu_kept.h), it attaches again
 * what the last call detached, the processes started meanwhile indexed first; counts, stacks
 * and in-flight tables are empty when it returns. Everything it opens, bt_offcpu_run__free()
 * and the caller's destroying the skeleton close. 0 or -errno (said on stderr).
 */
int bt_offcpu_run_pprof(struct bt_offcpu_run *r, struct bpf_object_skeleton *skel,
			const struct bpf_map *counts, const struct bt_probe *probes,
			unsigned int seconds, FILE *out);
/*
 * Between two such profiles: what the exec and exit programs said read (on the descriptor
 * bt_offcpu_run__fd() gives, -1: none), the exited processes' state freed.
 */
int bt_offcpu_run__fd(const struct bt_offcpu_run *r);
void bt_offcpu_run__idle(struct bt_offcpu_run *r);
/*
 * Whether a kept run should be freed and built again rather than profile once more: its
 * unwinder's table ids and bytes are never given back, and over half are used.
 */
bool bt_offcpu_run__worn(const struct bt_offcpu_run *r);
void bt_offcpu_run__free(struct bt_offcpu_run *r);

/*
 * The exporter's /debug/pprof profiles, through a command's pprof hook (struct bt_cmd.pprof):
 * the hook opens the command's skeleton and says how a machine-wide run of it goes, in *p
 * (BT_OFFCPU_PPROF); owner is the block the tool and opts live in, which the caller frees with
 * free() after destroying the skeleton (also when the hook fails part way). 0 or -errno (said
 * on stderr).
 */
struct bt_offcpu_pprof {
	const struct bt_offcpu_tool *tool;
	const struct bt_offcpu_opts *opts;
	void *obj; /* the command's NAME_bpf, for bt_skel_destroy() */
	struct bpf_object_skeleton *skel;
	const struct bpf_map *counts; /* keyed as tool->procs reads it */
	const struct bt_probe *probes;
	void *owner;
};
/* A hook's *p: skel_ its NAME_bpf, or NULL after a failed open; its map "counts" is read. */
#define BT_OFFCPU_PPROF(p, tool_, opts_, skel_, probes_, owner_)                           \
	(*(p) = (struct bt_offcpu_pprof){ .tool = (tool_),                                 \
					  .opts = (opts_),                                 \
					  .obj = (skel_),                                  \
					  .skel = (skel_) ? (skel_)->skeleton : NULL,      \
					  .counts = (skel_) ? (skel_)->maps.counts : NULL, \
					  .probes = (probes_),                             \
					  .owner = (owner_) })
typedef int (*bt_offcpu_pprof_fn)(struct bt_offcpu_pprof *p);

#endif
