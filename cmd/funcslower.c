// SPDX-License-Identifier: GPL-2.0
/* funcslower: show kernel or user function calls slower than a threshold, as BCC's funcslower. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "bt_args.h"
#include "bt_attach.h"
#include "bt_calls.h"
#include "bt_cmd.h"
#include "bt_err.h"
#include "bt_evrun.h"
#include "bt_inflight.h"
#include "bt_loop.h"
#include "bt_perf.h"
#include "bt_skel.h"
#include "bt_stack_out.h"
#include "bt_stack_lines.h"
#include "bt_stack_row.h"
#include "bt_stacks.h"
#include "bt_escape.h"
#include "bt_trace.h"
#include "bt_unwinder.h"
#include "funcslower.h"
#include "funcslower.skel.h"

#define DEFAULT_HZ 49

static struct funcslower_opts {
	struct bt_common_opts c; /* -p, --max-probes, --attach */
	double min_ms, min_us;	 /* < 0: not given */
	unsigned long nargs;
	bool time, timestamp, verbose;
	bool blocked, sampled, json;
	unsigned long hz; /* 0: not given */
	char **funcs;
	int nfuncs;
	struct bt_stack_args st; /* -f, -U/-K, stack storage, --unwind, --flamegraph/--pprof */
} opts = { .c = BT_COMMON_OPTS_INIT, .min_ms = -1, .min_us = -1, .st = { .storage = 2048 } };

static const struct bt_opt_vals vals = {
	BT_COMMON_VALS(opts.c),
	.stack = &opts.st,
	.json = &opts.json,
	.flags =
		BT_ARGP_FLAGS({ 'T', &opts.time }, { 't', &opts.timestamp }, { 'v', &opts.verbose },
			      { 'B', &opts.blocked }, { 'S', &opts.sampled }),
};

static const struct argp_option options[] = {
	{ "min-ms", 'm', "MIN_MS", 0,
	  "Minimum duration to trace (ms; default 1, fractions allowed)", 0 },
	{ "min-us", 'u', "MIN_US", 0, "Minimum duration to trace (us; fractions allowed)", 0 },
	{ "arguments", 'a', "N", 0, "Print this many entry arguments (at most 6), as hex", 0 },
	{ "time", 'T', NULL, 0, "Show HH:MM:SS timestamp", 0 },
	{ "timestamp", 't', NULL, 0, "Show timestamp in seconds at us resolution", 0 },
	{ "verbose", 'v', NULL, 0, "Print what each function resolved to and how it is attached",
	  0 },
	{ "blocked", 'B', NULL, 0,
	  "For each slow call, where it blocked off-CPU: count, first block, span and total "
	  "time per stack (needs -K and/or -U)",
	  0 },
	{ "sampled", 'S', NULL, 0,
	  "For each slow call, where it ran on-CPU: timer samples per stack (needs -K and/or -U)",
	  0 },
	{ "frequency", 'F', "HZ", 0, "Sample frequency of -S (default 49)", 0 },
	{ NULL },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct funcslower_opts *o = state->input;

	switch (key) {
	case 'm':
		return bt_argp_fraction(state, arg, "minimum duration", "milliseconds", 1e6,
					&o->min_ms);
	case 'u':
		return bt_argp_fraction(state, arg, "minimum duration", "microseconds", 1e3,
					&o->min_us);
	case 'a':
		return bt_argp_ulong(state, arg, "argument count", 0, FUNCSLOWER_MAX_ARGS,
				     &o->nargs);
	case 'F':
		return bt_argp_ulong(state, arg, "sample frequency", 1, 10000, &o->hz);
	case ARGP_KEY_ARGS:
		o->funcs = state->argv + state->next;
		o->nfuncs = state->argc - state->next;
		break;
	case ARGP_KEY_END:
		if (!o->nfuncs)
			return bt_argp_error(state, "missing the function(s) to trace");
		/* BCC takes -m then and prints the value in microseconds */
		if (o->min_ms >= 0 && o->min_us >= 0)
			return bt_argp_error(state, "-m and -u are mutually exclusive");
		/*
		 * BCC prints nothing at all for -f alone; a flame graph of both stacks is what's
		 * meant. Implied here, before the checks, so that -f -B has its stacks too.
		 */
		if (o->st.folded && !o->st.user_stack && !o->st.kernel_stack)
			o->st.user_stack = o->st.kernel_stack = true;
		if ((o->blocked || o->sampled) && !o->st.kernel_stack && !o->st.user_stack)
			return bt_argp_error(state, "-%c needs -K and/or -U: the stacks to show",
					     o->blocked ? 'B' : 'S');
		if (o->hz && !o->sampled)
			return bt_argp_error(state, "-F sets the sample frequency of -S");
		if (o->json && o->st.folded)
			return bt_argp_error(state, "--json and -f are mutually exclusive");
		if (bt_stack_out_wanted(&o->st.out) && !o->st.kernel_stack && !o->st.user_stack &&
		    !o->st.folded)
			return bt_argp_error(state, "--flamegraph and --pprof need the stacks: -K, "
						    "-U or -f");
		if (bt_stack_out_wanted(&o->st.out) && o->blocked && o->sampled)
			return bt_argp_error(state,
					     "--flamegraph and --pprof take the stacks of -B "
					     "or of -S, not both");
		break;
	default:
		return bt_argp_own(key, arg, state);
	}
	return 0;
}

BT_ARGP_STACK_STORAGE(storage_argp, 2048);

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.children = BT_ARGP_CHILDREN(bt_argp_pid, bt_argp_folded, bt_argp_stack_kinds, bt_argp_json,
				     bt_argp_attach, storage_argp, bt_argp_max_probes,
				     bt_stack_out_argp, bt_argp_unwind),
	.args_doc = "FUNCTION...",
	.doc = "Trace slow kernel or user function calls.\v"
	       "FUNCTION: func (kernel), lib:func, c:func, /path:func, prog:func (user), "
	       "syscall:name; '*' wildcards.\n\n"
	       "examples:\n"
	       "    funcslower vfs_write        # trace vfs_write calls slower than 1ms\n"
	       "    funcslower -m 10 vfs_write  # same, but slower than 10ms\n"
	       "    funcslower -u 10 c:open     # trace open calls slower than 10us\n"
	       "    funcslower -p 135 c:open    # trace pid 135 only\n"
	       "    funcslower c:malloc c:free  # trace both malloc and free slower than 1ms\n"
	       "    funcslower -a 2 c:open      # show first two arguments to open\n"
	       "    funcslower -UK -m 10 c:open # Show user and kernel stack frame of open calls "
	       "slower than 10ms\n"
	       "    funcslower -f -UK c:open    # Output in folded format for flame graphs\n"
	       "    funcslower -KB -m 10 syscall:fsync  # where slow fsyncs blocked\n"
	       "    funcslower -US -F 99 ./app:work     # where slow work() calls ran",
};

struct state {
	struct bt_evrun run;
	struct bpf_object *obj;
	struct bt_stacks *stacks;
	const struct bt_calls *calls; /* names: FUNC as printed */
	double divisor;
	bool have_base;
	__u64 base_ns;
	bool profile;			 /* -B or -S: events carry a struct funcslower_profile */
	int entries_fd;			 /* calls in flight: their stacks stay stored */
	int profiles_fd;		 /* ... and the stacks where they blocked or ran */
	unsigned long long no_profile;	 /* slow calls whose profile found no room */
	struct funcslower_profile p;	 /* the event being printed (aligned) */
	struct bt_stack_out *out;	 /* --flamegraph, --pprof */
	struct bt_stack_rows call, line; /* the rows below: how this run prints them */
	struct bt_stack_lines blocks, samples; /* the call's B and S lines */
	struct bpf_link *switch_link;	       /* -B */
	struct bt_perf *perf;		       /* -S */
};

/*
 * A call's stacks: comm;user;-;kernel folded, with BCC's prototype's " 1" after it; below
 * its row otherwise, kernel then user.
 */
static const struct bt_row_part call_row[] = {
	{ BT_ROW_COMM }, /* folded only: the text and JSON forms have it in the call's row */
	{ BT_ROW_USER },
	{ BT_ROW_DELIM, .delim = BT_ROW_DELIM_FRAMES }, /* after user frames, before a stack */
	{ BT_ROW_KERNEL },
	{ BT_ROW_END },
};

/*
 * The process a call's user stacks are named by: its pid and the cookie it was announced with,
 * so that a call printed after its process exited and another took the pid is named from its
 * own process's mappings (probes/bt_stack.h).
 */
static uint64_t proc_of(const struct funcslower_event *e)
{
	return BT_PROC(e->tgid, e->cookie);
}

static struct bt_row_proc call_proc(const struct funcslower_event *e)
{
	return (struct bt_row_proc){ .comm = e->comm,
				     .comm_len = FUNCSLOWER_COMM_LEN,
				     .pid = e->tgid,
				     .proc = proc_of(e),
				     .user_stack = e->user_stack,
				     .user_caller = e->user_caller,
				     .kernel_stack = e->kernel_stack };
}

static int add_block(struct bt_stack_lines *l, const struct funcslower_block *b, bool other)
{
	return bt_stack_lines__add(l, &(struct bt_stack_line){ b->kernel_stack, b->user_stack,
							       b->count, b->first_ns, b->last_ns,
							       b->total_ns, other });
}

/* The call's B and S lines: its slots (s->p) merged by what they print as. */
static int profile_lines(struct state *s)
{
	const struct funcslower_profile *p = &s->p;
	size_t i;
	int err = 0;

	bt_stack_lines__clear(&s->blocks, proc_of(&p->ev));
	bt_stack_lines__clear(&s->samples, proc_of(&p->ev));
	for (i = 0; i < p->nblocks && i < FUNCSLOWER_MAX_STACKS && !err; i++)
		err = add_block(&s->blocks, &p->blocks[i], false);
	if (!err && p->other_blocks.count)
		err = add_block(&s->blocks, &p->other_blocks, true);
	for (i = 0; i < p->nsamples && i < FUNCSLOWER_MAX_STACKS && !err; i++) {
		const struct funcslower_sample *smp = &p->samples[i];

		err = bt_stack_lines__add(
			&s->samples,
			&(struct bt_stack_line){ smp->kernel_stack, smp->user_stack, smp->count });
	}
	if (!err && p->other_samples)
		err = bt_stack_lines__add(
			&s->samples,
			&(struct bt_stack_line){ .count = p->other_samples, .other = true });
	bt_stack_lines__sort(&s->blocks, BT_LINES_BY_FIRST);
	bt_stack_lines__sort(&s->samples, BT_LINES_BY_COUNT);
	return err;
}

/* After the call's row: B lines, then S lines (BCC's prototype's "B %8d %7.2f %7.2f %7.2f"). */
static void print_profile(struct state *s)
{
	size_t i;

	for (i = 0; opts.blocked && i < s->blocks.n; i++) {
		const struct bt_stack_line *l = &s->blocks.v[i];

		printf("B %8llu %7.2f %7.2f %7.2f", (unsigned long long)l->count,
		       (double)(l->first_ns - s->p.ev.start_ns) / s->divisor,
		       (double)(l->last_ns - l->first_ns) / s->divisor,
		       (double)l->total_ns / s->divisor);
		bt_stack_lines__write(&s->blocks, l, stdout, opts.st.folded);
	}
	for (i = 0; opts.sampled && i < s->samples.n; i++) {
		printf("S %8llu", (unsigned long long)s->samples.v[i].count);
		bt_stack_lines__write(&s->samples, &s->samples.v[i], stdout, opts.st.folded);
	}
}

/* One object per slow call; times in nanoseconds, whatever the LAT unit. */
static void print_json(struct state *s, bool profile)
{
	const struct funcslower_profile *p = &s->p;
	const struct funcslower_event *e = &p->ev;
	struct bt_json j;
	size_t i;

	bt_json_line(&j, stdout);
	if (opts.time) {
		char now[16];

		bt_format_time(now, sizeof(now), "%H:%M:%S");
		bt_json_string(&j, "time", now);
	} else if (opts.timestamp) {
		bt_json_uint(&j, "timestamp_ns", e->start_ns - s->base_ns);
	}
	bt_json_stringn(&j, "comm", e->comm, FUNCSLOWER_COMM_LEN);
	bt_json_uint(&j, "pid", e->tgid);
	bt_json_uint(&j, "latency_ns", e->duration_ns);
	bt_json_int(&j, "retval", (long long)e->retval);
	bt_json_string(&j, "function", s->calls->names[e->index]);
	if (opts.nargs) {
		bt_json_begin_array(&j, "args");
		for (i = 0; i < opts.nargs; i++)
			bt_json_uint(&j, NULL, e->args[i]);
		bt_json_end_array(&j);
	}
	if (!s->profile) {
		struct bt_row_proc cp = call_proc(e);

		/* "kernel_stack" and "user_stack", as far as they were asked */
		bt_stack_rows__json(&s->call, &j, &cp);
	}
	if (opts.blocked && profile)
		bt_stack_lines__json(&s->blocks, &j, "blocked", true, e->start_ns);
	if (opts.sampled && profile)
		bt_stack_lines__json(&s->samples, &j, "samples", false, 0);
	bt_json_end_object(&j);
	bt_json_finish(&j);
}

/*
 * --flamegraph/--pprof, whatever was printed: a call's stacks as its folded line (value 1), or
 * its B or S lines' stacks (blocked nanoseconds, or samples).
 */
static int put_profile(struct state *s, bool profile)
{
	struct bt_row_proc p = call_proc(&s->p.ev);

	if (!s->profile)
		return bt_stack_rows__profile(&s->call, s->out, &p, 1);
	if (!profile)
		return 0;
	return bt_stack_lines__profile(opts.blocked ? &s->blocks : &s->samples, s->out,
				       opts.blocked);
}

static void print_row(struct state *s, const struct funcslower_event *e)
{
	char comm[BT_ESC_SIZE(14)];
	unsigned long i;

	if (opts.time) {
		bt_print_time(stdout, "%H:%M:%S");
		fputs("   ", stdout); /* "%-10s " of the 8-character time */
	} else if (opts.timestamp) {
		printf("%-10.6f ", ((double)e->start_ns - (double)s->base_ns) / 1e9);
	}
	printf("%-14s %-6u %7.2f %16llx %s ", bt_esc(comm, sizeof(comm), e->comm, 14), e->tgid,
	       (double)e->duration_ns / s->divisor, (unsigned long long)e->retval,
	       s->calls->names[e->index]);
	for (i = 0; i < opts.nargs; i++)
		printf("%s0x%llx", i ? " " : "", (unsigned long long)e->args[i]);
	putchar('\n');
}

static int on_event(void *ctx, const void *data, size_t size)
{
	struct state *s = ctx;
	struct funcslower_event *e = &s->p.ev;
	bool profile = s->profile && size >= sizeof(s->p);

	if (size < sizeof(*e))
		return 0;
	/* a perf buffer's records are only 4-byte aligned */
	memcpy(&s->p, data, profile ? sizeof(s->p) : sizeof(*e));
	if (e->index >= s->calls->n)
		return 0;
	if (s->profile && !profile)
		s->no_profile++;
	if (s->stacks && opts.st.user_stack)
		bt_stacks__poll(s->stacks); /* a process announced since the last poll */
	if (!s->have_base) {
		s->base_ns = e->start_ns;
		s->have_base = true;
	}
	if (profile && profile_lines(s)) {
		bt_err("out of memory");
		return -ENOMEM;
	}
	if (opts.json) {
		print_json(s, profile);
	} else {
		if (!opts.st.folded || s->profile)
			print_row(s, e);
		if (profile) {
			print_profile(s);
		} else if (s->stacks && !s->profile) {
			struct bt_row_proc p = call_proc(e);

			bt_stack_rows__write(&s->call, stdout, &p, 0);
			if (opts.st.folded) /* BCC's prototype's count */
				printf(" 1\n");
		}
	}
	if (s->out && s->stacks) {
		int err = put_profile(s, profile);

		if (err) {
			bt_err("cannot add to the profile: %s", strerror(-err));
			return err;
		}
	}
	return bt_output_closed() ? -EPIPE : 0;
}

/* The stacks a call in flight refers to: its own, and those its profile has so far. */
static int hold_call(void *ctx, const void *key, const void *value, struct bt_stacks_held *held)
{
	const struct funcslower_inflight *v = value;

	(void)ctx;
	(void)key;
	return bt_stacks__hold(held, v->kernel_stack) ?: bt_stacks__hold(held, v->user_stack);
}

static int hold_profile(void *ctx, const void *key, const void *value, struct bt_stacks_held *held)
{
	const struct funcslower_profile *p = value;
	size_t i;
	int err;

	(void)ctx;
	(void)key;
	err = bt_stacks__hold(held, p->off_kernel_stack)
		      ?: bt_stacks__hold(held, p->off_user_stack);
	for (i = 0; i < FUNCSLOWER_MAX_STACKS && !err; i++) {
		if (i < p->nblocks)
			err = bt_stacks__hold(held, p->blocks[i].kernel_stack)
				      ?: bt_stacks__hold(held, p->blocks[i].user_stack);
		if (!err && i < p->nsamples)
			err = bt_stacks__hold(held, p->samples[i].kernel_stack)
				      ?: bt_stacks__hold(held, p->samples[i].user_stack);
	}
	return err;
}

/*
 * The stacks of calls still in flight, held past the generation cycle, which prints every
 * event queued and frees the closed generation's other stacks (bt_stacks__follow_run()).
 * Noting before printing matters: a call that returns after the note was in flight during it
 * (its stacks are held), and one that returned before it sent its event first (the BPF side
 * outputs, then deletes its entry), so that event is printed in the same cycle.
 */
static int hold_in_flight(void *ctx, struct bt_stacks_held *held)
{
	struct state *s = ctx;
	int err;

	err = bt_stacks__hold_entries(held, s->entries_fd, sizeof(__u64),
				      sizeof(struct funcslower_inflight), hold_call, NULL);
	if (!err && s->profile)
		err = bt_stacks__hold_entries(held, s->profiles_fd, sizeof(__u64),
					      sizeof(struct funcslower_profile), hold_profile,
					      NULL);
	return err;
}

static void describe(const struct bt_calls *c, const struct bt_attach *a)
{
	char *const *names = c->names;
	size_t n = c->n, i;

	for (i = 0; i < n; i++) {
		const struct bt_target *t = &c->targets.v[i], *r = &c->targets.v[n + i];

		if (t->kind == BT_SPEC_UFUNC)
			bt_note("'%s': %s in %s at offset 0x%llx: %s + %s", names[i], t->func,
				t->path, (unsigned long long)t->offset, bt_attach__how(a, i),
				bt_attach__how(a, n + i));
		else if (t->kind == BT_SPEC_SYSCALL)
			bt_note("'%s': %s:%s + %s:%s: %s", names[i], t->category, t->event,
				r->category, r->event, bt_attach__how(a, i));
		else
			bt_note("'%s': kernel function %s: %s + %s", names[i], t->func,
				bt_attach__how(a, i), bt_attach__how(a, n + i));
	}
}

/* -m or -u as given (1 ms by default), in the unit LAT is printed in */
static double threshold(void)
{
	return opts.min_us >= 0 ? opts.min_us : opts.min_ms >= 0 ? opts.min_ms : 1;
}

static void print_header(void *ctx)
{
	const char *unit = opts.min_us >= 0 ? "us" : "ms";
	char lat[16];

	(void)ctx;
	bt_banner(stdout, "Tracing function calls slower than %g %s... Ctrl+C to quit.\n",
		  threshold(), unit);
	if (opts.json)
		return;
	if (opts.time || opts.timestamp)
		printf("%-10s ", "TIME");
	snprintf(lat, sizeof(lat), "LAT(%s)", unit);
	printf("%-14s %-6s %7s %16s %s\n", "COMM", "PID", lat, "RVAL",
	       opts.nargs ? "FUNC ARGS" : "FUNC");
}

/* probes/funcslower.bpf.c's in-flight tables, in slot order */
static const struct bt_inflight_table inflight[] = {
	{ "entries", "calls not timed", "calls in flight" },
	{ NULL },
};

/* After the run, Ctrl-C included: what was not shown, and the profiles. */
static int end(void *ctx, int err)
{
	struct state *s = ctx;

	if (s->stacks)
		bt_stacks__report_lost(s->stacks);
	if (!err)
		err = bt_stack_out__write(s->out);
	if (s->no_profile)
		bt_err("%llu slow calls shown without -B/-S lines: more threads had calls in "
		       "flight than could be followed",
		       s->no_profile);
	return err;
}

/* The rows above, with the stacks asked for, -f or not. */
static void declare_rows(struct state *s)
{
	s->call = (struct bt_stack_rows){
		.parts = call_row,
		.stacks = s->stacks,
		.style = { .indent = "    " },
		.form = opts.st.folded ? BT_ROW_FOLDED : BT_ROW_TEXT,
		.hide = (opts.st.user_stack ? 0 : BT_ROW_HIDE(BT_ROW_USER)) |
			(opts.st.kernel_stack ? 0 : BT_ROW_HIDE(BT_ROW_KERNEL)),
	};
	s->line = s->call;
	s->line.parts = call_row + 1;
	bt_stack_lines__init(&s->blocks, &s->line);
	bt_stack_lines__init(&s->samples, &s->line);
}

/* --flamegraph and --pprof: of the calls (1 each), of -B's blocked time or of -S's samples */
static const struct bt_profile_opts profiles[] = {
	{ .title = "Slow Calls", .sample_type = "slow_calls", .unit = "count" },
	{ .title = "Slow Calls: Off-CPU Stacks",
	  .sample_type = "off_cpu",
	  .unit = "nanoseconds",
	  .offcpu = true },
	{ .title = "Slow Calls: On-CPU Samples", .sample_type = "samples", .unit = "count" },
};

/*
 * -B and -S before load: room for the calls followed (as many threads with a call in flight
 * at once; 1 when unused), and their programs: the sched_switch form the kernel takes, the
 * samples' program.
 */
static int profile_select(struct funcslower_bpf *skel, const struct bt_cmd *cmd, bool profile)
{
	int err = bpf_map__set_max_entries(skel->maps.profiles, profile ? 4096 : 1);

	if (!err && opts.blocked) {
		err = bt_skel_select(skel->obj, cmd->probes);
	} else {
		bpf_program__set_autoload(skel->progs.fs_switch, false);
		bpf_program__set_autoload(skel->progs.fs_switch_raw, false);
	}
	bpf_program__set_autoload(skel->progs.fs_sample, opts.sampled);
	return err;
}

/* -B and -S after load: sched_switch attached, the timer samples started. */
static int profile_attach(struct state *s, struct funcslower_bpf *skel)
{
	unsigned long hz = opts.hz ? opts.hz : DEFAULT_HZ;
	struct bpf_program *prog = bpf_program__autoload(skel->progs.fs_switch)
					   ? skel->progs.fs_switch
					   : skel->progs.fs_switch_raw;
	int err;

	if (opts.blocked) {
		s->switch_link = bpf_program__attach(prog);
		if (!s->switch_link) {
			err = -errno;
			bt_err("cannot attach to sched_switch (%s): %s",
			       bpf_program__section_name(prog), strerror(-err));
			return err;
		}
		if (opts.verbose)
			bt_note("-B: %s", bpf_program__section_name(prog));
	}
	if (!opts.sampled)
		return 0;
	err = bt_perf__attach_cpu_clock(skel->progs.fs_sample, hz, &s->perf);
	if (!err && opts.verbose)
		bt_note("-S: cpu-clock samples at %lu Hz on %d CPUs", hz, bt_perf__cpus(s->perf));
	return err;
}

static int run(const struct bt_cmd *cmd)
{
	struct bt_filters filters = BT_FILTERS_NONE;
	struct bt_resolve_opts ropts = { .pid = opts.c.pid, .max_probes = 2 * opts.c.max_probes };
	bool stacks = opts.st.user_stack || opts.st.kernel_stack;
	/* The stack maps exist either way; without -U/-K they stay minimal and unused. */
	struct bt_stacks_opts sopts = { .storage_size = stacks ? opts.st.storage : 1,
					.generations = true,
					.user = opts.st.user_stack,
					.note_running = opts.st.user_stack && !opts.c.pid,
					.verbose = opts.verbose,
					.unwind = opts.st.unwind };
	struct bt_calls calls = { 0 };
	struct bt_attach *attach = NULL;
	struct funcslower_bpf *skel = NULL;
	struct state s = { .calls = &calls,
			   .profile = opts.blocked || opts.sampled,
			   .divisor = opts.min_us >= 0 ? 1e3 : 1e6 };
	int err;

	/* a spec matching over twice the limit is refused as it resolves, more in all after it */
	err = bt_stack_out__new(&opts.st.out, &profiles[opts.blocked ? 1 : opts.sampled ? 2 : 0],
				&s.out) ?:
	      bt_calls__resolve(&calls, (const char *const *)opts.funcs, opts.nfuncs, &ropts,
				opts.c.max_probes) ?:
	      BT_SKEL_OPEN(funcslower, &skel);
	if (err)
		goto cleanup;
	skel->rodata->min_ns = (__u64)(threshold() * s.divisor);
	skel->rodata->want_args = opts.nargs > 0;
	skel->rodata->want_kernel = opts.st.kernel_stack;
	skel->rodata->want_user = opts.st.user_stack;
	skel->rodata->want_block = opts.blocked;
	skel->rodata->want_samples = opts.sampled;
	filters.tgid = opts.c.pid;
	filters.not_self = true; /* syscall:write: each printed row would be another call */
	s.obj = skel->obj;
	s.run = (struct bt_evrun){ .map = skel->maps.events,
				   .on_event = on_event,
				   .ctx = &s,
				   .header = opts.st.folded ? NULL : print_header,
				   .end = end,
				   .inflight = inflight };
	err = profile_select(skel, cmd, s.profile) ?:
	      bt_trace__configure_stacks(skel->obj, &sopts) ?:
	      bt_evrun__configure(&s.run, skel->obj) ?:
	      bt_calls__load(&calls, skel->skeleton, &filters, opts.c.mode, &attach) ?:
	      profile_attach(&s, skel);
	if (!err && stacks)
		err = bt_trace__new_stacks(skel->obj, &sopts, opts.c.pid, &calls.targets,
					   &s.stacks);
	if (err)
		goto cleanup;
	s.entries_fd = bpf_map__fd(skel->maps.entries);
	s.profiles_fd = bpf_map__fd(skel->maps.profiles);
	declare_rows(&s);
	if (s.stacks)
		bt_stacks__follow_run(s.stacks, &s.run, hold_in_flight, &s);
	/*
	 * Last (after the -p target is indexed, too), so that a script can take these lines to
	 * mean that tracing has started.
	 */
	if (opts.verbose)
		describe(&calls, attach);
	err = bt_evrun__run(&s.run);
cleanup:
	bt_evrun__free(&s.run);
	bt_perf__destroy(s.perf);
	bpf_link__destroy(s.switch_link);
	bt_attach__destroy(attach);
	funcslower_bpf__destroy(skel);
	bt_stacks__free(s.stacks);
	bt_stack_out__free(s.out);
	bt_stack_lines__free(&s.blocks);
	bt_stack_lines__free(&s.samples);
	bt_calls__free(&calls);
	return err;
}

/* -B only: where calls in flight switch off and back on CPU. */
static const struct bt_probe probes[] = {
	{ "fs_switch", "fs_switch_raw", NULL, 0 },
	{ NULL },
};

BT_TOOL_COMMAND(funcslower, "Show kernel or user function calls slower than a threshold",
		.vals = &vals, .probes = probes,
		.uses = BT_USES_KFUNC | BT_USES_UPROBE | BT_USES_TRACEPOINT | BT_USES_STACKS |
			BT_USES_TP_BTF | BT_USES_PERF,
		.pattern = BT_PATTERN_KFUNC | BT_PATTERN_UFUNC | BT_PATTERN_SYSCALL);
