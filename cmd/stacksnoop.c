// SPDX-License-Identifier: GPL-2.0
/* stacksnoop: print the stack of every call of a function, as BCC's stacksnoop did. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "bt_args.h"
#include "bt_attach.h"
#include "bt_clock.h"
#include "bt_cmd.h"
#include "bt_err.h"
#include "bt_evrun.h"
#include "bt_json.h"
#include "bt_loop.h"
#include "bt_percpu.h"
#include "bt_skel.h"
#include "bt_stacks.h"
#include "bt_escape.h"
#include "bt_trace.h"
#include "bt_unwinder.h"
#include "stacksnoop.h"
#include "stacksnoop.skel.h"

#define NSEC_PER_SEC 1000000000ULL

static struct stacksnoop_opts {
	struct bt_common_opts c; /* -p, --max-probes, --attach */
	bool verbose, regex;
	/* -s, -K/-U, --unwind; storage: user space keeps a timestamp per possible id, 8 MiB at most */
	struct bt_stack_args st;
	const char *pattern;
} opts = { .c = BT_COMMON_OPTS_INIT, .st = { .storage = 1024 } };

static const struct bt_opt_vals vals = {
	.pid = &opts.c.pid,
	.stack = &opts.st,
	.regex = &opts.regex,
	.max_probes = &opts.c.max_probes,
	.mode = &opts.c.mode,
	.flags = BT_ARGP_FLAGS({ 'v', &opts.verbose }),
	.word = &opts.pattern,
	.word_missing = "missing the function to trace",
};

static const struct argp_option options[] = {
	{ "verbose", 'v', NULL, 0, "Print more fields", 0 },
	{ NULL },
};

BT_ARGP_STACK_STORAGE(storage_argp, 1024);

static const struct argp argp = {
	.options = options,
	.parser = bt_argp_own,
	.children = BT_ARGP_CHILDREN(
		bt_argp_pid, bt_argp_offset, bt_argp_stack_kinds, bt_argp_regexp, bt_argp_debug,
		storage_argp, bt_argp_max_probes, bt_argp_attach, bt_argp_json, bt_argp_unwind),
	.args_doc = "FUNCTION",
	.doc = "Trace and print kernel stack traces for a kernel function.\v"
	       "FUNCTION: a kernel function, or any pattern of the attach layer: p:lib:func, "
	       "lib:func, /path:func, t:cat:event, u:lib:probe, syscall:name; '*' wildcards, or "
	       "regular expressions with -r.\n\n"
	       "examples:\n"
	       "    stacksnoop ext4_sync_fs       # print kernel stack traces for ext4_sync_fs\n"
	       "    stacksnoop -s ext4_sync_fs    # ... also show symbol offsets\n"
	       "    stacksnoop -v ext4_sync_fs    # ... show extra columns\n"
	       "    stacksnoop -p 185 ext4_sync_fs    # ... only for PID 185\n"
	       "    stacksnoop t:sched:sched_process_fork   # stacks of a tracepoint\n"
	       "    stacksnoop -p 185 c:malloc    # user stacks of malloc in PID 185\n"
	       "    stacksnoop -KU -p 185 syscall:write   # kernel and user stacks\n"
	       "    stacksnoop --json t:sched:sched_process_fork   # one JSON object per call",
};

struct state {
	const struct bt_targets *targets;
	struct bt_stacks *stacks;
	struct bt_evrun run;
	struct bt_stack_style style;
	bool kernel, user;
	unsigned long long start_ns;
};

/* "%-18.9f" of seconds, from integer nanoseconds so no digit is lost to rounding. */
static void format_time(char *buf, size_t len, long long ns)
{
	unsigned long long a = ns < 0 ? -(unsigned long long)ns : (unsigned long long)ns;

	snprintf(buf, len, "%s%llu.%09llu", ns < 0 ? "-" : "", a / NSEC_PER_SEC, a % NSEC_PER_SEC);
}

/* One line per call: {"time_ns", "comm", "pid", "cpu", "function", "kernel_stack", "user_stack"}. */
static void print_json(struct state *s, const struct stacksnoop_event *e, const char *comm,
		       const char *fn)
{
	struct bt_json j;

	bt_json_line(&j, stdout);
	bt_json_int(&j, "time_ns", (long long)(e->ts - s->start_ns));
	bt_json_string(&j, "comm", comm);
	bt_json_uint(&j, "pid", e->tgid);
	bt_json_uint(&j, "cpu", e->cpu);
	bt_json_string(&j, "function", fn);
	if (s->kernel)
		bt_stacks__json(s->stacks, &j, "kernel_stack", &s->style, BT_PID_KERNEL,
				e->kernel_stack, 0);
	if (s->user)
		bt_stacks__json(s->stacks, &j, "user_stack", &s->style, BT_PROC(e->tgid, e->cookie),
				e->user_stack, e->user_caller);
	bt_json_end_object(&j);
	bt_json_finish(&j);
}

static int on_event(void *ctx, const void *data, size_t size)
{
	struct state *s = ctx;
	struct stacksnoop_event e;
	char comm[STACKSNOOP_COMM_LEN + 1], esc[BT_ESC_SIZE(12)];
	char when[32];
	const char *fn = "[unknown]";

	if (size < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	memcpy(comm, e.comm, sizeof(e.comm));
	comm[sizeof(e.comm)] = '\0';
	if (e.index < s->targets->n)
		fn = s->targets->v[e.index].name;
	if (bt_json_mode()) {
		print_json(s, &e, comm, fn);
		return 0;
	}
	format_time(when, sizeof(when), (long long)(e.ts - s->start_ns));
	if (opts.verbose)
		printf("%-18s %-12s %-6u %-3u %s\n", when, bt_esc(esc, sizeof(esc), comm, 12),
		       e.tgid, e.cpu, fn);
	else
		printf("%-18s %s\n", when, fn);
	if (s->kernel)
		bt_stacks__print(s->stacks, stdout, &s->style, BT_PID_KERNEL, e.kernel_stack, 0);
	if (s->kernel && s->user)
		printf("\t--\n");
	if (s->user)
		bt_stacks__print(s->stacks, stdout, &s->style, BT_PROC(e.tgid, e.cookie),
				 e.user_stack, e.user_caller);
	printf("\n");
	return 0;
}

static int end(void *ctx, int err)
{
	struct state *s = ctx;

	bt_stacks__report_lost(s->stacks);
	return err;
}

/* -K and -U as given; neither: the stack where the probe fires */
static void choose_stacks(struct state *s, const struct bt_targets *targets)
{
	enum bt_spec_kind kind = targets->v[0].kind;

	s->kernel = opts.st.kernel_stack;
	s->user = opts.st.user_stack;
	if (s->kernel || s->user)
		return;
	/* a uprobe or USDT probe fires in user mode: it has no kernel stack to show */
	s->user = kind == BT_SPEC_UFUNC || kind == BT_SPEC_USDT;
	s->kernel = !s->user;
}

static void print_header(void *ctx)
{
	const struct state *s = ctx;

	if (bt_json_mode())
		bt_trace__banner(stdout, s->targets->n, opts.pattern);
	else if (opts.verbose)
		printf("%-18s %-12s %-6s %-3s %s\n", "TIME(s)", "COMM", "PID", "CPU", "FUNCTION");
	else
		printf("%-18s %s\n", "TIME(s)", "FUNCTION");
}

static int run(const struct bt_cmd *cmd)
{
	struct bt_resolve_opts ropts = bt_common_resolve(&opts.c, opts.regex);
	struct bt_stacks_opts sopts = { .storage_size = opts.st.storage,
					.generations = true,
					.verbose = opts.verbose,
					.unwind = opts.st.unwind };
	struct bt_filters filters = BT_FILTERS_NONE;
	struct bt_targets targets = { 0 };
	struct bt_attach *attach = NULL;
	struct stacksnoop_bpf *skel = NULL;
	struct state s = { .targets = &targets };
	int err;

	s.style = (struct bt_stack_style){ .indent = "\t",
					   .fmt = opts.st.offset ? BT_FMT_OFFSET : 0 };
	err = bt_targets__from_pattern(opts.pattern, &ropts, &targets);
	if (err < 0)
		goto cleanup;
	choose_stacks(&s, &targets);
	sopts.user = s.user;
	sopts.note_running = s.user && !opts.c.pid;

	err = BT_SKEL_OPEN(stacksnoop, &skel);
	if (err)
		goto cleanup;
	skel->rodata->want_kernel = s.kernel;
	skel->rodata->want_user = s.user;
	filters.tgid = opts.c.pid;
	/* syscall:write: each printed row would be another call, and another row */
	filters.not_self = true;
	s.run = (struct bt_evrun){ .map = skel->maps.events,
				   .on_event = on_event,
				   .ctx = &s,
				   .header = print_header,
				   .end = end };
	err = bt_trace__configure_stacks(skel->obj, &sopts);
	if (!err)
		err = bt_evrun__configure(&s.run, skel->obj);
	if (!err)
		err = bt_trace__load(skel->skeleton, &targets, &filters, opts.c.mode, &attach);
	if (err)
		goto cleanup;
	/* BCC counts from when tracing started; the kernel's clock times each call exactly */
	s.start_ns = bt_now_ns();
	err = bt_trace__new_stacks(skel->obj, &sopts, opts.c.pid, &targets, &s.stacks);
	if (err)
		goto cleanup;
	bt_stacks__follow_run(s.stacks, &s.run, NULL, NULL);
	err = bt_evrun__run(&s.run);
cleanup:
	bt_evrun__free(&s.run);
	bt_attach__destroy(attach);
	stacksnoop_bpf__destroy(skel);
	bt_stacks__free(s.stacks);
	bt_targets__free(&targets);
	return err;
}

BT_TOOL_COMMAND(stacksnoop, "Trace a function and print the stack of each call", .vals = &vals,
		.uses = BT_USES_KFUNC | BT_USES_TRACEPOINT | BT_USES_UPROBE | BT_USES_STACKS,
		.pattern = BT_PATTERN_ANY);
