// SPDX-License-Identifier: GPL-2.0
/* offcputime: summarize off-CPU time by stack, as BCC's offcputime does. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_args.h"
#include "bt_cmd.h"
#include "bt_collector.h"
#include "bt_offcpu_opts.h"
#include "bt_skel.h"
#include "bt_stack_row.h"
#include "bt_summary.h"
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
	return bt_argp_to_child(key, arg, state);
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

/* comm;user stack;-;kernel stack, as BCC's -f; its block is the other way up, the comm last */
static const struct bt_row_part row[] = {
	{ BT_ROW_COMM, .line = "    -                %.*s (%u)\n", .tid = true, .json = true },
	{ BT_ROW_USER },
	{ BT_ROW_DELIM, .delim = BT_ROW_DELIM_STORED, .line = "    --\n" },
	{ BT_ROW_KERNEL },
	{ BT_ROW_STATE, .profile_only = true },
	{ BT_ROW_END },
};

/* A row's one process. */
static unsigned int key_procs(const void *key, struct bt_row_proc *p)
{
	const struct offcputime_key *k = key;

	*p = bt_offcpu_task(k->comm, k->tgid, k->tid, k->cookie, k->user_stack, k->kernel_stack);
	p->state = bt_offcpu_state_frame(k->state);
	p->cpu = -1; /* a block is on no CPU */
	return k->tgid;
}

static void print_banner(const struct bt_offcpu_opts *o)
{
	char who[64 + 12 * BT_OFFCPU_MAX_IDS];

	bt_offcpu_threads(o, who, sizeof(who));
	bt_offcpu_banner(o, "Tracing off-CPU time (us) of %s by %s stack", who,
			 bt_offcpu_stacks(o));
}

/* the in-flight tables (probes/bt_offcpu.bpf.h), in slot order */
static const struct bt_inflight_table inflight[] = {
	BT_OFFCPU_STARTS_INFLIGHT,
	{ NULL },
};

static const struct bt_offcpu_tool tool = {
	.title = "Off-CPU Time Flame Graph",
	.attach_to = "sched:sched_switch",
	.row = row,
	.procs = key_procs,
	.gen_offset = offsetof(struct offcputime_key, gen),
	.value_name = "off_cpu_us",
	.inflight = inflight,
	.banner = print_banner,
};

/* sched_switch with its switch-out state (5.18+), else the state read from the task. */
static const struct bt_probe probes[] = {
	{ "offcpu_btf_state", "offcpu_raw_state",
	  "?, struct task_struct *, struct task_struct *, unsigned int" },
	{ "offcpu_btf", "offcpu_raw", "?, struct task_struct *, struct task_struct *",
	  BT_PROBE_ALT },
	{ NULL },
};

static int run(const struct bt_cmd *cmd)
{
	struct offcputime_bpf *skel = NULL;
	struct bt_offcpu_run r;
	int err;

	err = bt_offcpu_run__init(&r, &tool, &opts) ?: BT_SKEL_OPEN(offcputime, &skel);
	if (!err)
		err = bt_offcpu_run(&r, skel->skeleton, skel->maps.counts, cmd->probes);
	offcputime_bpf__destroy(skel);
	bt_offcpu_run__free(&r);
	return err;
}

/* The exporter's profiles' run: its options, tool and skeleton, together until freed. */
struct pprof_run {
	struct bt_offcpu_opts o;
	struct bt_offcpu_tool t;
	struct offcputime_bpf *skel;
};

/*
 * The exporter's off-CPU twin of /debug/pprof/profile: every thread's time off-CPU by stack, in
 * nanoseconds (pprof's unit of time), each sample labelled with its thread.
 */
static int offcputime_pprof(struct bt_offcpu_pprof *p)
{
	struct pprof_run *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return -ENOMEM;
	w->o = (struct bt_offcpu_opts)BT_OFFCPU_OPTS_INIT;
	w->t = tool;
	w->t.thread = true;
	w->t.profile = (struct bt_profile_opts){
		.sample_type = "off_cpu",
		.unit = "nanoseconds",
		.value_scale = 1000, /* the counts are microseconds */
	};
	err = BT_SKEL_OPEN(offcputime, &w->skel);
	BT_OFFCPU_PPROF(p, &w->t, &w->o, w->skel, probes, w);
	return err;
}

/* The exporter's offcputime (lib/tools/bt_offcpu_opts.h): this skeleton, the shared run. */
static int collector_start(void *run, const char *spec)
{
	struct bt_offcpu_comm *c = run;
	struct offcputime_bpf *skel;
	int err;

	(void)spec;
	err = BT_SKEL_OPEN(offcputime, &skel);
	if (err)
		return err;
	c->skel = skel;
	c->skeleton = skel->skeleton;
	return bt_offcpu_comm_start(c, &tool, probes);
}

static const struct bt_collector collector = BT_OFFCPU_COMM_COLLECTOR(collector_start);

BT_TOOL_COMMAND(offcputime, "Summarize off-CPU time by stack trace", .probes = probes,
		.pprof = offcputime_pprof, .collector = &collector,
		.uses = BT_USES_TP_BTF | BT_USES_STACKS);
