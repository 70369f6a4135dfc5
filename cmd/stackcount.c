// SPDX-License-Identifier: GPL-2.0
/* stackcount: count events and their stack traces, as BCC's stackcount does. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "bt_args.h"
#include "bt_attach.h"
#include "bt_cmd.h"
#include "bt_err.h"
#include "bt_json.h"
#include "bt_loop.h"
#include "bt_skel.h"
#include "bt_stack_out.h"
#include "bt_stack_row.h"
#include "bt_stack_table.h"
#include "bt_stacks.h"
#include "bt_trace.h"
#include "bt_unwinder.h"
#include "stackcount.h"
#include "stackcount.skel.h"

enum {
	OPT_DEBUGINFO = 0x100,
	OPT_DEBUGINFOD,
};

static struct stackcount_opts {
	struct bt_common_opts c; /* -p, --max-probes, --attach; -i and -D its own (SECONDS) */
	long cpu;
	bool timestamp, regex, perpid, verbose;
	bool debuginfo, debuginfod;
	const char *pattern;
	/* -U/-K -d -f -a -s, stack storage, --unwind, --flamegraph, --pprof */
	struct bt_stack_args st;
} opts = { .c = BT_COMMON_OPTS_INIT, .cpu = -1, .st = { .storage = 16384 } };

static const struct bt_opt_vals vals = {
	BT_COMMON_VALS(opts.c),
	.cpu = &opts.cpu,
	.timestamp = &opts.timestamp,
	.regex = &opts.regex,
	.stack = &opts.st,
	.flags = BT_ARGP_FLAGS({ 'P', &opts.perpid }, { 'v', &opts.verbose },
			       { OPT_DEBUGINFO, &opts.debuginfo },
			       { OPT_DEBUGINFOD, &opts.debuginfod }),
	.word = &opts.pattern,
	.word_missing = "missing the pattern to trace",
};

/*
 * BCC's stackcount has -D for the duration (its -d is --delimited), and here both take
 * SECONDS: not the blocks of -i and -d.
 */
static const struct argp_option options[] = {
	{ "interval", 'i', "SECONDS", 0, "Summary interval, seconds", 0 },
	{ "duration", 'D', "SECONDS", 0, "Total duration of trace, seconds", 0 },
	{ "perpid", 'P', NULL, 0, "Display stacks separately for each process", 0 },
	{ "verbose", 'v', NULL, 0, "Show raw addresses (and why a frame is unknown)", 0 },
	{ "debuginfo", OPT_DEBUGINFO, NULL, 0,
	  "Show source lines and inlined frames from DWARF debug info", 0 },
	{ "debuginfod", OPT_DEBUGINFOD, NULL, 0,
	  "Allow fetching debug info from debuginfod servers (DEBUGINFOD_URLS)", 0 },
	{ NULL },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct stackcount_opts *o = state->input;

	switch (key) {
	case 'i':
		return bt_argp_ulong(state, arg, "interval", 1, BT_FOREVER, &o->c.interval);
	case 'D':
		return bt_argp_ulong(state, arg, "duration", 1, BT_FOREVER, &o->c.duration);
	case ARGP_KEY_END:
		if (bt_argp_words_end(state))
			return EINVAL;
		if (o->st.folded && bt_json_mode())
			return bt_argp_error(state, "-f and --json are mutually exclusive");
		if (o->st.kernel_only && o->st.user_only)
			return bt_argp_error(state, "-K and -U are mutually exclusive; "
						    "both stacks is the default");
		if (o->c.pid)
			o->perpid = true; /* as BCC: one process is shown by itself */
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
	.children = BT_ARGP_CHILDREN(bt_argp_pid, bt_argp_cpu, bt_argp_timestamp, bt_argp_regexp,
				     bt_argp_offset, bt_argp_stacks_only, bt_argp_delimited,
				     bt_argp_folded, bt_argp_annotate, bt_argp_debug, storage_argp,
				     bt_argp_max_probes, bt_argp_attach, bt_stack_out_argp,
				     bt_argp_json, bt_argp_unwind),
	.args_doc = "PATTERN",
	.doc = "Count events and their stack traces.\v"
	       "PATTERN: func, p:lib:func, lib:func, /path:func, t:cat:event, u:lib:probe, "
	       "syscall:name; '*' wildcards, or regular expressions with -r.\n\n"
	       "examples:\n"
	       "    stackcount submit_bio         # count kernel stack traces for submit_bio\n"
	       "    stackcount -d ip_output       # include a user/kernel stack delimiter\n"
	       "    stackcount -s ip_output       # show symbol offsets\n"
	       "    stackcount -sv ip_output      # show offsets and raw addresses (verbose)\n"
	       "    stackcount 'tcp_send*'        # count stacks for funcs matching tcp_send*\n"
	       "    stackcount -r '^tcp_send.*'   # same as above, using regular expressions\n"
	       "    stackcount -Ti 5 ip_output    # output every 5 seconds, with timestamps\n"
	       "    stackcount -p 185 ip_output   # count ip_output stacks for PID 185 only\n"
	       "    stackcount -c 1 put_prev_entity   # count put_prev_entity stacks for CPU 1 "
	       "only\n"
	       "    stackcount -p 185 c:malloc    # count stacks for malloc in PID 185\n"
	       "    stackcount t:sched:sched_fork # count stacks for sched_fork tracepoint\n"
	       "    stackcount -p 185 u:node:*    # count stacks for all USDT probes in node\n"
	       "    stackcount -K t:sched:sched_switch   # kernel stacks only\n"
	       "    stackcount -U t:sched:sched_switch   # user stacks only\n"
	       "    stackcount -P -f t:syscalls:sys_enter_write > out.folded   # flame graph input",
};

struct state {
	int counts_fd;
	struct bt_stacks *stacks;
	struct bt_stack_rows rows;
	struct bt_stack_table table;
	struct bt_stack_out *out; /* --flamegraph, --pprof */
};

/*
 * [comm;]user stack[;-];kernel stack, as BCC's -f; its block is the other way up, the comm
 * last (-P, and BCC prints it only when tracing every process). Without -P BCC's folded line
 * starts with an empty name; an empty root frame helps nobody, so print_counts() drops the
 * ";" before the first frame. --json: a row's text is its object without the count ({"comm",
 * "pid", "kernel_stack", "user_stack"}), so that the table merges equal stacks as it merges
 * printed ones.
 */
static const struct bt_row_part row[] = {
	{ BT_ROW_COMM, .line = "    %.*s [%u]\n", .json = true },
	{ BT_ROW_USER },
	{ BT_ROW_DELIM, .line = "    --\n" },
	{ BT_ROW_KERNEL },
	{ BT_ROW_END },
};

static int add_row(void *ctx, const void *key, const void *value)
{
	const struct stackcount_key *k = key;
	struct state *s = ctx;
	struct bt_row_proc p = {
		.comm = k->comm,
		.comm_len = sizeof(k->comm),
		.pid = k->tgid,
		.proc = BT_PROC(k->tgid, k->cookie),
		.user_stack = k->user_stack,
		.user_caller = k->user_caller,
		.kernel_stack = k->kernel_stack,
	};

	return bt_stack_rows__add(&s->rows, &s->table, &p, *(const __u64 *)value);
}

/* The closed generation's counts, into the table. */
static int drain_counts(void *ctx)
{
	struct state *s = ctx;

	return bt_stacks__drain(s->stacks, s->counts_fd, sizeof(struct stackcount_key),
				sizeof(__u64), offsetof(struct stackcount_key, gen), add_row, s);
}

/*
 * Counts so far into the table, named now and merged: before each output, and whenever
 * exited processes wait to be named (lib/stacks/bt_stacks.h).
 */
static int collect_counts(void *ctx)
{
	struct state *s = ctx;
	int err;

	err = bt_stacks__cycle(
		s->stacks, &(struct bt_stacks_cycle){ .consume = drain_counts, .consume_ctx = s });
	if (err < 0) {
		bt_err("cannot read the stack counts: %s", strerror(-err));
		return err;
	}
	return 0;
}

/* The table's rows, sorted, in this run's form. 0 or -errno. */
static int print_rows(struct bt_stack_table *t)
{
	struct bt_stack_row r;
	size_t i;
	int err;

	err = bt_stack_table__sort(t);
	/* one line per interval: {"ts", "val_type": "count", "stacks": [{"count", ...row}]} */
	if (!err && bt_json_mode())
		return bt_stack_table__json_line(t, stdout, "count", "stacks", "count");
	for (i = 0; !err && i < bt_stack_table__count(t); i++) {
		err = bt_stack_table__row(t, i, &r);
		if (err)
			break;
		if (opts.st.folded)
			printf("%s %llu\n", r.text[0] == ';' ? r.text + 1 : r.text, r.value);
		else
			printf("%s    %llu\n\n", r.text, r.value);
	}
	return err;
}

static int print_counts(void *ctx)
{
	struct state *s = ctx;
	int err;

	if (!opts.st.folded && !bt_json_mode())
		printf("\n");
	if (opts.timestamp && !bt_json_mode()) {
		bt_print_time(stdout, "%H:%M:%S");
		printf("\n");
	}
	err = collect_counts(s);
	if (err)
		return err;
	err = print_rows(&s->table);
	if (err)
		bt_err("cannot print the stack counts: %s", strerror(-err));
	bt_stack_table__report(&s->table);
	bt_stack_table__clear(&s->table);
	return err ?: bt_stack_out__write(s->out);
}

/* The row as this run prints it: the parts asked for, as BCC's block, folded or JSON. */
static void declare_rows(struct state *s)
{
	s->rows = (struct bt_stack_rows){
		.parts = row,
		.stacks = s->stacks,
		.style = { .indent = "  ",
			   .fmt = (opts.st.offset ? BT_FMT_OFFSET : 0) |
				  (opts.verbose ? BT_FMT_REASON : 0) |
				  (opts.debuginfo ? BT_FMT_SOURCE : 0),
			   .addresses = opts.verbose,
			   .annotate = opts.st.annotate },
		.form = bt_json_mode()	 ? BT_ROW_JSON
			: opts.st.folded ? BT_ROW_FOLDED
					 : BT_ROW_TEXT,
		.hide = (opts.perpid ? 0 : BT_ROW_HIDE(BT_ROW_COMM)) |
			(opts.st.kernel_only ? BT_ROW_HIDE(BT_ROW_USER) : 0) |
			(opts.st.user_only ? BT_ROW_HIDE(BT_ROW_KERNEL) : 0) |
			(opts.st.delimited ? 0 : BT_ROW_HIDE(BT_ROW_DELIM)),
		.text_hide = opts.c.pid ? BT_ROW_HIDE(BT_ROW_COMM) : 0,
		.out = s->out,
	};
}

static int run(const struct bt_cmd *cmd)
{
	struct bt_resolve_opts ropts = bt_common_resolve(&opts.c, opts.regex);
	struct bt_stacks_opts sopts = { .storage_size = opts.st.storage,
					.generations = opts.c.interval != 0,
					.user = !opts.st.kernel_only,
					.note_running = !opts.c.pid,
					.verbose = opts.verbose,
					.unwind = opts.st.unwind,
					.sym = { .debuginfo = opts.debuginfo,
						 .debuginfod = opts.debuginfod } };
	struct bt_interval iv = bt_interval_every(opts.c.interval, opts.c.duration);
	struct bt_filters filters = BT_FILTERS_NONE;
	struct bt_targets targets = { 0 };
	struct bt_attach *attach = NULL;
	struct stackcount_bpf *skel = NULL;
	struct state s = { 0 };
	char title[256];
	int err;

	snprintf(title, sizeof(title), "stackcount %s", opts.pattern);
	err = bt_stack_out__new(&opts.st.out,
				&(struct bt_profile_opts){
					.title = title, .sample_type = "events", .unit = "count" },
				&s.out);
	if (!err) /* the number of targets, or -errno */
		err = bt_targets__from_pattern(opts.pattern, &ropts, &targets);
	if (err > 0)
		err = BT_SKEL_OPEN(stackcount, &skel);
	if (err)
		goto cleanup;
	skel->rodata->want_kernel = !opts.st.user_only;
	skel->rodata->want_user = !opts.st.kernel_only;
	skel->rodata->per_pid = opts.perpid;
	filters.tgid = opts.c.pid;
	filters.cpu = opts.cpu;
	err = bt_trace__configure_stacks(skel->obj, &sopts);
	if (!err)
		err = bt_trace__load(skel->skeleton, &targets, &filters, opts.c.mode, &attach);
	if (!err)
		err = bt_trace__new_stacks(skel->obj, &sopts, opts.c.pid, &targets, &s.stacks);
	if (err)
		goto cleanup;
	declare_rows(&s);
	s.counts_fd = bpf_map__fd(skel->maps.counts);
	bt_stacks__set_collector(s.stacks, collect_counts, &s);

	/* folded output is data only: the banner goes where messages go */
	bt_trace__banner_for(opts.st.folded ? stderr : stdout, targets.n, opts.pattern,
			     opts.c.duration);
	if (bt_output_closed())
		goto cleanup;
	err = bt_stacks__interval_loop(s.stacks, &iv, print_counts, &s);
	if (!err && !opts.st.folded && !bt_json_mode() && !bt_output_closed())
		printf("Detaching...\n");
	bt_stacks__report_lost(s.stacks);
cleanup:
	bt_attach__destroy(attach);
	stackcount_bpf__destroy(skel);
	bt_stacks__free(s.stacks);
	bt_stack_out__free(s.out);
	bt_stack_table__free(&s.table);
	bt_targets__free(&targets);
	return err;
}

BT_TOOL_COMMAND(stackcount, "Count events and their stack traces", .vals = &vals,
		.uses = BT_USES_KFUNC | BT_USES_TRACEPOINT | BT_USES_UPROBE | BT_USES_STACKS,
		.pattern = BT_PATTERN_ANY);
