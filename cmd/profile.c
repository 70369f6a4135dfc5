// SPDX-License-Identifier: GPL-2.0
/*
 * profile: sample stacks on every CPU at a timed interval, as BCC's profile does; --wall adds
 * the selected threads' time off-CPU, so that each thread's widths add up to its wall time.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_args.h"
#include "bt_cmd.h"
#include "bt_err.h"
#include "bt_offcpu_opts.h"
#include "bt_perf.h"
#include "bt_rodata.h"
#include "bt_skel.h"
#include "bt_stack_row.h"
#include "profile.h"
#include "profile.skel.h"

enum {
	OPT_WALL = 0x100,
	OPT_EVENT,
};

#define NSEC_PER_SEC 1000000000UL
/* the kernel raises a shorter cpu-clock period to this (its hrtimer's floor, in ns) */
#define MIN_CLOCK_PERIOD 10000UL

static struct profile_opts {
	struct bt_offcpu_opts oc; /* what the run of lib/tools/bt_offcpu_opts.h reads */
	unsigned long freq;	  /* -F; 0: not given */
	unsigned long period;	  /* -c; 0: not given */
	bool include_idle;	  /* -I */
	bool wall;		  /* --wall */
	bool cycles;		  /* --event cycles */
	long cpu;		  /* -C; -1: every CPU */
	const char *cgroupmap, *mntnsmap;
	/* a count per thread and CPU, which the output shows: --json, --pprof, the exporter's */
	bool by_thread;
} opts = { .oc = BT_OFFCPU_OPTS_INIT, .cpu = -1 };

static const struct bt_opt_vals vals = {
	BT_OFFCPU_VALS(opts.oc), /* its -s (offset) is not among profile's blocks */
	.cgroupmap = &opts.cgroupmap,
	.mntnsmap = &opts.mntnsmap,
	.duration_arg = &opts.oc.duration,
	.flags = BT_ARGP_FLAGS({ 'I', &opts.include_idle }, { OPT_WALL, &opts.wall }),
};

static const struct argp_option options[] = {
	{ "pid", 'p', "PIDS", 0, "Profile these PIDs only (comma-separated)", 0 },
	{ "tid", 'L', "TIDS", 0, "Profile these TIDs only (comma-separated)", 0 },
	{ "frequency", 'F', "HZ", 0, "Sample frequency, Hertz (default 49)", 0 },
	{ "count", 'c', "PERIOD", 0,
	  "Sample period, number of events (cpu-clock: nanoseconds of CPU time)", 0 },
	{ "include-idle", 'I', NULL, 0, "Include CPU idle stacks", 0 },
	{ "cpu", 'C', "CPU", 0, "Trace this CPU only", 0 },
	{ "wall", OPT_WALL, NULL, 0,
	  "Wall-clock time (us) of each thread: on-CPU samples weighted by the period, and "
	  "off-CPU time by stack and state ([off-cpu: S])",
	  0 },
	{ "event", OPT_EVENT, "EVENT", 0,
	  "Sample on cpu-clock (the default: works without a PMU) or cycles (a hardware PMU)", 0 },
	{ NULL },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct profile_opts *o = state->input;

	switch (key) {
	case 'p':
		o->oc.tgid_arg = arg;
		return bt_argp_id_list(state, arg, "PID", o->oc.tgids, BT_OFFCPU_MAX_IDS,
				       &o->oc.ntgids);
	case 'L':
		o->oc.tid_arg = arg;
		return bt_argp_id_list(state, arg, "TID", o->oc.tids, BT_OFFCPU_MAX_IDS,
				       &o->oc.ntids);
	case 'F':
		/* a period under the cpu-clock floor would be raised by the kernel */
		return bt_argp_ulong(state, arg, "frequency", 1, NSEC_PER_SEC / MIN_CLOCK_PERIOD,
				     &o->freq);
	case 'c':
		return bt_argp_ulong(state, arg, "sample period", 1, ULONG_MAX, &o->period);
	case 'C':
		return bt_argp_long(state, arg, "CPU", 0, libbpf_num_possible_cpus() - 1, &o->cpu);
	case OPT_EVENT:
		if (strcmp(arg, "cpu-clock") && strcmp(arg, "cycles"))
			return bt_argp_error(state, "invalid event '%s': cpu-clock or cycles", arg);
		o->cycles = !strcmp(arg, "cycles");
		break;
	case ARGP_KEY_END:
		if (o->freq && o->period)
			return bt_argp_error(state, "-F and -c are mutually exclusive");
		if (o->oc.ntgids && o->oc.ntids)
			return bt_argp_error(state, "-p and -L are mutually exclusive");
		if (bt_offcpu_check_stacks(state, &o->oc))
			return EINVAL;
		if (!o->cycles && o->period && o->period < MIN_CLOCK_PERIOD)
			return bt_argp_error(state,
					     "-c %lu: a cpu-clock period is at least %lu ns "
					     "(the kernel raises a shorter one)",
					     o->period, MIN_CLOCK_PERIOD);
		if (o->wall && o->cycles)
			return bt_argp_error(state, "--wall weighs samples by time: it takes the "
						    "cpu-clock event, not cycles");
		if (o->wall && (o->cpu >= 0 || o->cgroupmap || o->mntnsmap))
			return bt_argp_error(state,
					     "--wall selects threads with -p or -L (or all): "
					     "not with -C, --cgroupmap or --mntnsmap");
		if (o->wall && o->include_idle)
			return bt_argp_error(state, "--wall accounts threads' time: the idle task "
						    "(-I) has none off-CPU");
		if (!o->freq && !o->period)
			o->freq = 49;
		/* argp ends the children first: --pprof is known here */
		o->by_thread = o->oc.json || o->oc.out.pprof;
		break;
	default:
		return bt_argp_own(key, arg, state);
	}
	return 0;
}

BT_ARGP_STACK_STORAGE(storage_argp, 16384);

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.children = BT_ARGP_CHILDREN(bt_argp_stacks_only, bt_argp_delimited, bt_argp_folded,
				     bt_argp_annotate, storage_argp, bt_argp_json, bt_argp_debug,
				     bt_stack_out_argp, bt_argp_unwind, bt_argp_ns_maps),
	.args_doc = "[duration]",
	.doc = "Profile CPU stack traces at a timed interval.\v"
	       "examples:\n"
	       "    profile             # profile stack traces at 49 Hertz until Ctrl-C\n"
	       "    profile -F 99       # profile stack traces at 99 Hertz\n"
	       "    profile -c 1000000  # profile stack traces every 1 in a million events\n"
	       "    profile 5           # profile at 49 Hertz for 5 seconds only\n"
	       "    profile -f 5        # output in folded format for flame graphs\n"
	       "    profile -p 185      # only profile process with PID 185\n"
	       "    profile -L 185      # only profile thread with TID 185\n"
	       "    profile -U          # only show user space stacks (no kernel)\n"
	       "    profile -K          # only show kernel space stacks (no user)\n"
	       "    profile --cgroupmap mappath  # only trace cgroups in this BPF map\n"
	       "    profile --mntnsmap mappath   # only trace mount namespaces in the map\n"
	       "    profile --wall -p 185 --flamegraph w.svg 10  # on- and off-CPU time, 10 s",
};

/* The sampling period in the event's unit: -c, or one second over -F (cpu-clock's ns). */
static unsigned long period_of(const struct profile_opts *o)
{
	return o->period ? o->period : o->cycles ? 0 : NSEC_PER_SEC / o->freq;
}

/*
 * comm;user stack;-;kernel stack, as BCC's -f; its block is the other way up, the comm last.
 * BCC counts by process: the comm line gives the pid. --wall counts by thread, and an
 * off-CPU row ends in its state.
 */
static const struct bt_row_part row[] = {
	{ BT_ROW_COMM, .line = "    -                %.*s (%u)\n", .json = true },
	{ BT_ROW_USER },
	{ BT_ROW_DELIM, .delim = BT_ROW_DELIM_STORED, .line = "    --\n" },
	{ BT_ROW_KERNEL },
	{ BT_ROW_END },
};

/* --wall: each thread under its process, so that a thread's frame is its wall time */
static const struct bt_row_part wall_row[] = {
	{ BT_ROW_PROCESS },
	{ BT_ROW_COMM, .line = "    -                %.*s (%u)\n", .tid = true, .json = true },
	{ BT_ROW_USER },
	{ BT_ROW_DELIM, .delim = BT_ROW_DELIM_STORED, .line = "    --\n" },
	{ BT_ROW_KERNEL },
	{ BT_ROW_STATE, .line = "    %s\n", .json = true, .json_member = "state" },
	{ BT_ROW_END },
};

/* A row's one process. */
static unsigned int key_procs(const void *key, struct bt_row_proc *p)
{
	const struct profile_key *k = key;

	*p = bt_offcpu_task(k->comm, k->tgid, k->tid, k->cookie, k->user_stack, k->kernel_stack);
	p->state = k->state == PROFILE_ON_CPU ? NULL : bt_offcpu_state_frame(k->state);
	p->cpu = k->cpu == PROFILE_NO_CPU ? -1 : (int)k->cpu;
	return k->tgid;
}

/* BCC's: "Sampling at 49 Hertz of all threads by user + kernel stack on CPU#1 for 5 secs." */
static void print_banner(const struct bt_offcpu_opts *oc)
{
	/* the block the run was given is the first member of its options */
	const struct profile_opts *o = (const struct profile_opts *)oc;
	char who[64 + 12 * BT_OFFCPU_MAX_IDS], rate[64], cpu[32] = "";

	if (oc->ntgids)
		snprintf(who, sizeof(who), "PID %s", oc->tgid_arg);
	else if (oc->ntids)
		snprintf(who, sizeof(who), "TID %s", oc->tid_arg);
	else
		snprintf(who, sizeof(who), "all threads");
	if (o->period)
		snprintf(rate, sizeof(rate), "every %lu events", o->period);
	else
		snprintf(rate, sizeof(rate), "%lu Hertz", o->freq);
	if (o->cpu >= 0)
		snprintf(cpu, sizeof(cpu), " on CPU#%ld", o->cpu);
	if (o->wall)
		bt_offcpu_banner(oc, "Sampling wall-clock time (us) at %s of %s by %s stack%s",
				 rate, who, bt_offcpu_stacks(oc), cpu);
	else
		bt_offcpu_banner(oc, "Sampling at %s of %s by %s stack%s", rate, who,
				 bt_offcpu_stacks(oc), cpu);
}

/* A run: its options, and the sampling events attach() opened. */
struct profile_run {
	const struct profile_opts *o;
	struct bt_perf *perf;
};

/* Before load: what a sample counts, idle, --wall, by thread, the cgroup and mount ns maps. */
static int prepare(void *ctx, struct bpf_object *obj)
{
	const struct profile_opts *o = ((struct profile_run *)ctx)->o;
	struct bt_filters f = BT_FILTERS_NONE;
	__u64 value = o->wall ? period_of(o) / 1000 : 1;
	int err;

	f.cgroupmap = o->cgroupmap;
	f.mntnsmap = o->mntnsmap;
	err = bt_rodata_set(obj, "include_idle", &o->include_idle, sizeof(bool));
	if (!err)
		err = bt_rodata_set(obj, "wall", &o->wall, sizeof(bool));
	if (!err)
		err = bt_rodata_set(obj, "sample_value", &value, sizeof(value));
	if (!err)
		err = bt_rodata_set(obj, "by_thread", &o->by_thread, sizeof(bool));
	if (err) {
		bt_err("cannot set up the BPF programs: %s", strerror(-err));
		return err;
	}
	return bt_filters_apply(obj, &f);
}

/* Once the skeleton is attached (--wall's sched_switch): the sampling events. */
static int attach(void *ctx, struct bpf_object *obj)
{
	struct profile_run *run = ctx;
	const struct profile_opts *o = run->o;
	struct bt_perf_opts po = {
		.period = period_of(o),
		.freq_hz = o->freq,
		.cycles = o->cycles,
		.cpu = (int)o->cpu,
	};

	return bt_perf__attach(bpf_object__find_program_by_name(obj, "profile_sample"), &po,
			       &run->perf);
}

/* The summary is next: no sample is taken while it is read and named. */
static void stop(void *ctx)
{
	struct profile_run *run = ctx;

	bt_perf__destroy(run->perf);
	run->perf = NULL;
}

/* the in-flight tables (probes/bt_offcpu.bpf.h), in slot order: --wall's */
static const struct bt_inflight_table inflight[] = {
	BT_OFFCPU_STARTS_INFLIGHT,
	{ NULL },
};

/* sched_switch with its switch-out state (5.18+), else the state read from the task. */
static const struct bt_probe wall_probes[] = {
	{ "wall_btf_state", "wall_raw_state",
	  "?, struct task_struct *, struct task_struct *, unsigned int" },
	{ "wall_btf", "wall_raw", "?, struct task_struct *, struct task_struct *", BT_PROBE_ALT },
	{ NULL },
};
static const struct bt_probe no_probes[] = { { NULL } };

/* What a run counts and how it is named, from its options. */
static void tool_init(struct bt_offcpu_tool *t, struct profile_run *run)
{
	const struct profile_opts *o = run->o;

	*t = (struct bt_offcpu_tool){
		.procs = key_procs,
		.gen_offset = offsetof(struct profile_key, gen),
		.inflight = inflight,
		.banner = print_banner,
		.prepare = prepare,
		.attach = attach,
		.stop = stop,
		.ctx = run,
		.thread = o->by_thread,
	};
	if (o->wall) {
		t->title = "Wall-Clock Time Flame Graph (hot: on-CPU, cold: off-CPU)";
		t->attach_to = "sched:sched_switch";
		t->row = wall_row;
		t->value_name = "us";
		t->profile =
			(struct bt_profile_opts){ .sample_type = "wall", .unit = "microseconds" };
		return;
	}
	t->title = "CPU Flame Graph";
	t->attach_to = "the sampling events";
	t->row = row;
	t->value_name = "samples";
	t->profile = (struct bt_profile_opts){ .sample_type = "samples", .unit = "count" };
	if (!o->cycles) {
		/* each sample stands for a period of CPU time */
		t->profile.sample_type2 = "cpu";
		t->profile.unit2 = "nanoseconds";
		t->profile.value2_scale = period_of(o);
	}
}

static int run(const struct bt_cmd *cmd)
{
	const struct bt_probe *probes = opts.wall ? cmd->probes : no_probes;
	struct profile_run pr = { .o = &opts };
	struct profile_bpf *skel = NULL;
	struct bt_offcpu_tool tool;
	struct bt_offcpu_run r;
	int err;

	tool_init(&tool, &pr);
	err = bt_offcpu_run__init(&r, &tool, &opts.oc) ?: BT_SKEL_OPEN(profile, &skel);
	if (!err)
		err = bt_offcpu_run(&r, skel->skeleton, skel->maps.counts, probes);
	bt_perf__destroy(pr.perf);
	profile_bpf__destroy(skel);
	bt_offcpu_run__free(&r);
	return err;
}

/* The exporter's profiles' run: its options, tool and skeleton, together until freed. */
struct pprof_run {
	struct profile_opts o;
	struct profile_run pr;
	struct bt_offcpu_tool tool;
	struct profile_bpf *skel;
};

/* The exporter's /debug/pprof/profile: every CPU at 49 Hz, whole stacks, by thread and CPU. */
static int profile_pprof(struct bt_offcpu_pprof *p)
{
	struct pprof_run *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return -ENOMEM;
	w->o = (struct profile_opts){
		.oc = BT_OFFCPU_OPTS_INIT, .freq = 49, .cpu = -1, .by_thread = true
	};
	w->pr.o = &w->o;
	tool_init(&w->tool, &w->pr);
	err = BT_SKEL_OPEN(profile, &w->skel);
	BT_OFFCPU_PPROF(p, &w->tool, &w->o.oc, w->skel, no_probes, w);
	return err;
}

BT_TOOL_COMMAND(profile, "Profile CPU stack traces at a timed interval", .vals = &vals,
		.probes = wall_probes, .pprof = profile_pprof,
		.uses = BT_USES_PERF | BT_USES_TP_BTF | BT_USES_STACKS);
