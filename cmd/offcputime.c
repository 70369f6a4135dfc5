// SPDX-License-Identifier: GPL-2.0
/* offcputime: summarize off-CPU time by stack, as BCC's offcputime does. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "bt_args.h"
#include "bt_cmd.h"
#include "bt_err.h"
#include "bt_loop.h"
#include "bt_offcpu_opts.h"
#include "bt_skel.h"
#include "bt_stack_out.h"
#include "bt_stack_row.h"
#include "bt_stack_table.h"
#include "bt_stacks.h"
#include "offcputime.h"
#include "offcputime.skel.h"

static struct bt_offcpu_opts opts = BT_OFFCPU_OPTS_INIT;

/* The shared block's options, and one check offwaketime does not share (its wakers have user
 * stacks whatever the sleeper is). */
static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	const struct bt_offcpu_opts *o = state->input;

	/* argp ends the children first: the shared block's checks have passed here */
	if (key == ARGP_KEY_END && o->kernel_threads && o->user_only)
		return bt_argp_error(state, "-k and -U together: kernel threads have no user "
					    "stacks to show");
	return bt_offcpu_parser(key, arg, state);
}

static const struct argp argp = {
	.parser = parse_opt,
	.children = bt_offcpu_children,
	.args_doc = "[duration]",
	.doc = "Summarize off-CPU time by stack trace.\v"
	       "examples:\n"
	       "    offcputime             # trace off-CPU stack time until Ctrl-C\n"
	       "    offcputime 5           # trace for 5 seconds only\n"
	       "    offcputime -f 5        # 5 seconds, and output in folded format\n"
	       "    offcputime -s 5        # 5 seconds, and show symbol offsets\n"
	       "    offcputime -m 1000     # trace only events that last more than 1000 usec\n"
	       "    offcputime -M 10000    # trace only events that last less than 10000 usec\n"
	       "    offcputime -p 185      # only trace threads for PID 185\n"
	       "    offcputime -t 188      # only trace thread 188\n"
	       "    offcputime -u          # only trace user threads (no kernel)\n"
	       "    offcputime -k          # only trace kernel threads (no user)\n"
	       "    offcputime -U          # only show user space stacks (no kernel)\n"
	       "    offcputime -K          # only show kernel space stacks (no user)\n"
	       "    offcputime --state 2   # only trace threads in TASK_UNINTERRUPTIBLE",
};

struct state {
	struct bt_stacks *stacks;
	struct bt_stack_rows rows;
	struct bt_stack_table table;
	struct bt_stack_out *out; /* --flamegraph, --pprof */
	struct bt_offcpu_counts counts;
};

/* comm;user stack;-;kernel stack, as BCC's -f; its block is the other way up, the comm last */
static const struct bt_row_part row[] = {
	{ BT_ROW_COMM, .line = "    -                %.*s (%u)\n", .tid = true, .json = true },
	{ BT_ROW_USER },
	{ BT_ROW_DELIM, .delim = BT_ROW_DELIM_STORED, .line = "    --\n" },
	{ BT_ROW_KERNEL },
	{ BT_ROW_END },
};

/* One row of the table, without its total, which bt_offcpu_summary() prints. */
static int add_row(void *ctx, const void *key, const void *value)
{
	const struct offcputime_key *k = key;
	struct state *s = ctx;
	struct bt_row_proc p = {
		.comm = k->comm,
		.comm_len = BT_OFFCPU_COMM_LEN,
		.pid = k->tgid,
		.tid = k->tid,
		.proc = BT_PROC(k->tgid, k->cookie),
		.user_stack = k->user_stack,
		.kernel_stack = k->kernel_stack,
	};

	return bt_stack_rows__add(&s->rows, &s->table, &p, k->tgid, *(const __u64 *)value);
}

static int print_summary(void *ctx)
{
	struct state *s = ctx;

	return bt_offcpu_summary(&opts, &s->counts) ?: bt_stack_out__write(s->out);
}

static void print_banner(void)
{
	char who[64 + 12 * BT_OFFCPU_MAX_IDS];

	bt_offcpu_threads(&opts, who, sizeof(who));
	bt_offcpu_banner(&opts, "Tracing off-CPU time (us) of %s by %s stack", who,
			 bt_offcpu_stacks(&opts));
}

/* the in-flight tables (probes/bt_offcpu.bpf.h), in slot order */
static const struct bt_inflight_table inflight[] = {
	{ "bt_offcpu_starts", "blocks not timed", "threads off-CPU" },
	{ NULL },
};

static int run(const struct bt_cmd *cmd)
{
	struct bt_stacks_opts sopts = {
		.storage_size = opts.storage,
		.user = !opts.kernel_only,
		.unwind = opts.unwind,
		.note_running = !opts.kernel_only && !opts.ntgids && !opts.ntids,
	};
	struct offcputime_bpf *skel;
	struct state s = { 0 };
	int err;

	err = bt_stack_out__new(&opts.out,
				&(struct bt_profile_opts){ .title = "Off-CPU Time Flame Graph",
							   .sample_type = "off_cpu",
							   .unit = "microseconds" },
				&s.out);
	if (err)
		return err;
	err = BT_SKEL_OPEN(offcputime, &skel);
	if (err)
		goto cleanup;
	err = bt_offcpu_start(skel->skeleton, &opts, cmd->probes, &sopts, "sched:sched_switch",
			      &s.stacks);
	if (err)
		goto cleanup;
	s.rows = bt_offcpu_rows(&opts, row, s.stacks, s.out);
	bt_offcpu_counts_init(&s.counts, s.stacks, skel->maps.counts,
			      offsetof(struct offcputime_key, gen), add_row, &s, &s.table,
			      "off_cpu_us");

	print_banner();
	if (bt_output_closed())
		goto cleanup;
	err = bt_offcpu_loop(&opts, s.stacks, skel->obj, inflight, print_summary, &s);
cleanup:
	offcputime_bpf__destroy(skel);
	bt_stacks__free(s.stacks);
	bt_stack_out__free(s.out);
	bt_stack_table__free(&s.table);
	return err;
}

/* sched_switch with its switch-out state (5.18+), else the state read from the task. */
static const struct bt_probe probes[] = {
	{ "offcpu_btf_state", "offcpu_raw_state",
	  "?, struct task_struct *, struct task_struct *, unsigned int" },
	{ "offcpu_btf", "offcpu_raw", "?, struct task_struct *, struct task_struct *",
	  BT_PROBE_ALT },
	{ NULL },
};

BT_COMMAND(offcputime) = {
	.name = "offcputime",
	.summary = "Summarize off-CPU time by stack trace",
	.argp = &argp,
	.opts = &opts,
	.probes = probes,
	.run = run,
	.flags = BT_NEED_PRIV,
	.uses = BT_USES_TP_BTF | BT_USES_STACKS,
};
