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
#include "bt_json.h"
#include "bt_loop.h"
#include "bt_skel.h"
#include "bt_stack_table.h"
#include "bt_stacks.h"
#include "offcputime.h"
#include "offcputime.skel.h"

enum {
	OPT_STORAGE = 0x100,
	OPT_STATE,
	OPT_JSON,
	OPT_DEBUG,
};

static struct offcputime_opts {
	unsigned int tgids[BT_OFFCPU_MAX_IDS], ntgids;
	unsigned int tids[BT_OFFCPU_MAX_IDS], ntids;
	const char *tgid_arg, *tid_arg;
	bool user_threads, kernel_threads, user_only, kernel_only;
	bool delimited, folded, offset, json;
	unsigned long storage;
	unsigned long min_us, max_us;
	long state;
	unsigned long duration;
} opts = { .storage = 16384, .min_us = 1, .max_us = ULONG_MAX, .state = -1 };

static const struct argp_option options[] = {
	{ "pid", 'p', "PIDS", 0, "Trace these PIDs only (comma-separated)", 0 },
	{ "tid", 't', "TIDS", 0, "Trace these TIDs only (comma-separated)", 0 },
	{ "user-threads-only", 'u', NULL, 0, "User threads only (no kernel threads)", 0 },
	{ "kernel-threads-only", 'k', NULL, 0, "Kernel threads only (no user threads)", 0 },
	{ "user-stacks-only", 'U', NULL, 0, "Show stacks from user space only (no kernel stacks)",
	  0 },
	{ "kernel-stacks-only", 'K', NULL, 0, "Show stacks from kernel space only (no user stacks)",
	  0 },
	{ "delimited", 'd', NULL, 0, "Insert delimiter between kernel/user stacks", 0 },
	{ "folded", 'f', NULL, 0, "Output folded format", 0 },
	{ "offset", 's', NULL, 0, "Show address offsets", 0 },
	{ "stack-storage-size", OPT_STORAGE, "N", 0,
	  "The number of unique stack traces that can be stored and displayed (default 16384)", 0 },
	{ "min-block-time", 'm', "US", 0,
	  "The amount of time in microseconds over which we store traces (default 1)", 0 },
	{ "max-block-time", 'M', "US", 0,
	  "The amount of time in microseconds under which we store traces (default U64_MAX)", 0 },
	{ "state", OPT_STATE, "N", 0,
	  "Filter on this thread state bitmask (eg, 2 == TASK_UNINTERRUPTIBLE); 0 means "
	  "exactly TASK_RUNNING (preempted). See include/linux/sched.h",
	  0 },
	{ "json", OPT_JSON, NULL, 0, "One JSON object per stack (JSON Lines)", 0 },
	{ "debug", OPT_DEBUG, NULL, 0, "Print libbpf's log and the attach decisions", 0 },
	{ NULL },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct offcputime_opts *o = state->input;

	switch (key) {
	case 'p':
		o->tgid_arg = arg;
		return bt_argp_id_list(state, arg, "PID", o->tgids, BT_OFFCPU_MAX_IDS, &o->ntgids);
	case 't':
		o->tid_arg = arg;
		return bt_argp_id_list(state, arg, "TID", o->tids, BT_OFFCPU_MAX_IDS, &o->ntids);
	case 'u':
		o->user_threads = true;
		break;
	case 'k':
		o->kernel_threads = true;
		break;
	case 'U':
		o->user_only = true;
		break;
	case 'K':
		o->kernel_only = true;
		break;
	case 'd':
		o->delimited = true;
		break;
	case 'f':
		o->folded = true;
		break;
	case 's':
		o->offset = true;
		break;
	case OPT_STORAGE:
		return bt_argp_ulong(state, arg, "stack storage size", 1, 1 << 24, &o->storage);
	case 'm':
		return bt_argp_ulong(state, arg, "minimum block time", 1, ULONG_MAX, &o->min_us);
	case 'M':
		return bt_argp_ulong(state, arg, "maximum block time", 1, ULONG_MAX, &o->max_us);
	case OPT_STATE:
		return bt_argp_long(state, arg, "thread state", 0, 0xffff, &o->state);
	case OPT_JSON:
		o->json = true;
		break;
	case OPT_DEBUG:
		bt_set_debug(true);
		break;
	case ARGP_KEY_ARG:
		if (o->duration)
			return bt_argp_error(state, "unexpected argument '%s'", arg);
		return bt_argp_ulong(state, arg, "duration", 1, BT_FOREVER, &o->duration);
	case ARGP_KEY_END:
		if ((o->ntgids > 0) + (o->ntids > 0) + o->user_threads + o->kernel_threads > 1)
			return bt_argp_error(state, "-p, -t, -u and -k are mutually exclusive");
		if (o->user_only && o->kernel_only)
			return bt_argp_error(state, "-U and -K are mutually exclusive; both stacks "
						    "is the default");
		if (o->folded && o->offset)
			return bt_argp_error(state, "can only use -f or -s");
		if (o->folded && o->json)
			return bt_argp_error(state, "can only use -f or --json");
		if (o->min_us >= o->max_us)
			return bt_argp_error(state, "-m (%lu) must be less than -M (%lu)",
					     o->min_us, o->max_us);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
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
	struct bt_stack_style style;
	struct bt_stack_table table;
	struct bt_json json;
	int counts_fd;
};

static bool want_kernel(void)
{
	return !opts.user_only;
}

static bool want_user(void)
{
	return !opts.kernel_only;
}

static void put_json(struct state *s, const struct offcputime_key *k, unsigned long long us)
{
	bt_json_begin_object(&s->json, NULL);
	bt_json_string(&s->json, "comm", k->comm);
	bt_json_uint(&s->json, "pid", k->tgid);
	bt_json_uint(&s->json, "tid", k->tid);
	bt_json_uint(&s->json, "off_cpu_us", us);
	if (want_kernel())
		bt_stacks__json(s->stacks, &s->json, "kernel_stack", &s->style, BT_PID_KERNEL,
				k->kernel_stack, 0);
	if (want_user())
		bt_stacks__json(s->stacks, &s->json, "user_stack", &s->style, k->tgid,
				k->user_stack, 0);
	bt_json_end_object(&s->json);
	bt_json_finish(&s->json);
}

/* One row of the table: BCC's multi-line block or folded line, without the value. */
static int add_row(void *ctx, const void *key, const void *value)
{
	const struct offcputime_key *k = key;
	unsigned long long us = *(const __u64 *)value;
	struct state *s = ctx;
	bool delimit = opts.delimited && BT_STACK_STORED(k->kernel_stack) &&
		       BT_STACK_STORED(k->user_stack);
	FILE *f = bt_stack_table__begin(&s->table);

	if (!f)
		return -ENOMEM;
	if (opts.json) {
		struct bt_json j = s->json;

		s->json.out = f;
		put_json(s, k, us);
		s->json = j;
	} else if (opts.folded) {
		fprintf(f, "%.*s", BT_OFFCPU_COMM_LEN, k->comm);
		if (want_user())
			bt_stacks__fold(s->stacks, f, &s->style, k->tgid, k->user_stack, 0, false);
		if (delimit)
			fputs(";-", f);
		if (want_kernel())
			bt_stacks__fold(s->stacks, f, &s->style, BT_PID_KERNEL, k->kernel_stack, 0,
					false);
	} else {
		if (want_kernel())
			bt_stacks__print(s->stacks, f, &s->style, BT_PID_KERNEL, k->kernel_stack,
					 0);
		if (delimit)
			fputs("    --\n", f);
		if (want_user())
			bt_stacks__print(s->stacks, f, &s->style, k->tgid, k->user_stack, 0);
		fprintf(f, "    %-16s %.*s (%u)\n", "-", BT_OFFCPU_COMM_LEN, k->comm, k->tid);
	}
	return bt_stack_table__end(&s->table, k->tgid, us);
}

static int print_summary(void *ctx)
{
	struct state *s = ctx;
	int gen, err = 0;
	size_t i;

	/* both generations: everything counted until now, whichever was current */
	for (gen = 0; gen < 2 && !err; gen++) {
		err = bt_stacks__flip(s->stacks);
		if (err >= 0)
			err = bt_stacks__drain(s->stacks, s->counts_fd,
					       sizeof(struct offcputime_key), sizeof(__u64),
					       offsetof(struct offcputime_key, gen), add_row, s);
	}
	if (err < 0) {
		bt_err("cannot read the off-CPU counts: %s", strerror(-err));
		return err;
	}
	if (!opts.folded && !opts.json)
		printf("\n");
	bt_stack_table__sort(&s->table);
	for (i = 0; i < s->table.n; i++) {
		const struct bt_stack_row *r = &s->table.rows[i];

		if (opts.json)
			fputs(r->text, stdout);
		else if (opts.folded)
			printf("%s %llu\n", r->text, r->value);
		else
			printf("%s        %llu\n\n", r->text, r->value);
	}
	bt_stack_table__clear(&s->table);
	return 0;
}

static void print_banner(void)
{
	char who[64 + 12 * BT_OFFCPU_MAX_IDS];
	FILE *out = opts.folded || opts.json ? stderr : stdout;

	if (opts.ntgids)
		snprintf(who, sizeof(who), "PIDs %s", opts.tgid_arg);
	else if (opts.ntids)
		snprintf(who, sizeof(who), "TIDs %s", opts.tid_arg);
	else
		snprintf(who, sizeof(who), "%s threads",
			 opts.user_threads     ? "user"
			 : opts.kernel_threads ? "kernel"
					       : "all");
	fprintf(out, "Tracing off-CPU time (us) of %s by %s stack", who,
		opts.user_only	   ? "user"
		: opts.kernel_only ? "kernel"
				   : "user + kernel");
	if (opts.duration)
		fprintf(out, " for %lu secs.\n", opts.duration);
	else
		fprintf(out, "... Hit Ctrl-C to end.\n");
}

static void set_filters(struct offcputime_bpf *skel)
{
	struct offcputime_bpf__rodata *r = skel->rodata;

	r->want_kernel = want_kernel();
	r->want_user = want_user();
	r->bt_offcpu_ntgids = opts.ntgids;
	memcpy((void *)r->bt_offcpu_tgids, opts.tgids, sizeof(opts.tgids));
	r->bt_offcpu_ntids = opts.ntids;
	memcpy((void *)r->bt_offcpu_tids, opts.tids, sizeof(opts.tids));
	r->bt_offcpu_user_threads = opts.user_threads;
	r->bt_offcpu_kernel_threads = opts.kernel_threads;
	r->bt_offcpu_by_state = opts.state >= 0;
	r->bt_offcpu_state = opts.state >= 0 ? opts.state : 0;
	r->bt_offcpu_min_us = opts.min_us;
	r->bt_offcpu_max_us = opts.max_us;
}

static int run(const struct bt_cmd *cmd)
{
	struct bt_stacks_opts sopts = {
		.storage_size = opts.storage,
		.user = want_user(),
		.note_running = want_user() && !opts.ntgids && !opts.ntids,
	};
	struct bt_interval iv = {
		.interval = opts.duration ? opts.duration : BT_FOREVER,
		.duration = opts.duration,
		.count = 1,
	};
	struct offcputime_bpf *skel;
	struct state s = { 0 };
	struct bt_poll poll;
	unsigned int i;
	int err;

	s.style =
		(struct bt_stack_style){ .indent = "    ", .fmt = opts.offset ? BT_FMT_OFFSET : 0 };
	bt_json_init(&s.json, stdout);
	skel = offcputime_bpf__open();
	if (!skel) {
		err = -errno;
		bt_err("cannot open the BPF object: %s", strerror(errno));
		return err;
	}
	set_filters(skel);
	err = bt_stacks__configure(skel->obj, &sopts);
	if (err) {
		bt_err("cannot set up the stack maps: %s", strerror(-err));
		goto cleanup;
	}
	err = bt_skel_select(skel->obj, cmd->probes);
	if (err)
		goto cleanup;
	err = offcputime_bpf__load(skel);
	if (err) {
		bt_err("cannot load the BPF programs: %s", strerror(-err));
		goto cleanup;
	}
	err = bt_stacks__new(skel->obj, &sopts, &s.stacks);
	if (err) {
		bt_err("cannot set up stack symbolization: %s", strerror(-err));
		goto cleanup;
	}
	/* the listed processes are snapshotted now: one may exit before its first event is read */
	for (i = 0; want_user() && i < opts.ntgids; i++)
		bt_stacks__note_pid(s.stacks, opts.tgids[i]);
	err = offcputime_bpf__attach(skel);
	if (err) {
		bt_err("cannot attach to sched:sched_switch: %s", strerror(-err));
		goto cleanup;
	}
	s.counts_fd = bpf_map__fd(skel->maps.counts);

	print_banner();
	if (bt_output_closed())
		goto cleanup;
	poll = (struct bt_poll){ bt_stacks__fd(s.stacks), bt_stacks__poll, s.stacks };
	err = bt_interval_loop_poll(&iv, print_summary, &s, &poll);
	bt_stacks__report_lost(s.stacks);
cleanup:
	offcputime_bpf__destroy(skel);
	bt_stacks__free(s.stacks);
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
