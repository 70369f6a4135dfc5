// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bt_args.h"
#include "bt_clock.h"
#include "bt_collector.h"
#include "bt_err.h"
#include "bt_loop.h"
#include "bt_offcpu_opts.h"
#include "bt_rodata.h"
#include "bt_skel.h"
#include "bt_stacks.h"
#include "bt_summary.h"
#include "offcputime.h"

enum {
	OPT_STATE = 0x1200,
};

static const struct argp_option options[] = {
	{ "pid", 'p', "PIDS", 0, "Trace these PIDs only (comma-separated)", 0 },
	{ "tid", 't', "TIDS", 0, "Trace these TIDs only (comma-separated)", 0 },
	{ "user-threads-only", 'u', NULL, 0, "User threads only (no kernel threads)", 0 },
	{ "kernel-threads-only", 'k', NULL, 0, "Kernel threads only (no user threads)", 0 },
	{ "min-block-time", 'm', "US", 0,
	  "The amount of time in microseconds over which we store traces (default 1)", 0 },
	{ "max-block-time", 'M', "US", 0,
	  "The amount of time in microseconds under which we store traces (default U64_MAX)", 0 },
	{ "state", OPT_STATE, "N", 0,
	  "Filter on this thread state bitmask (eg, 2 == TASK_UNINTERRUPTIBLE); 0 means "
	  "exactly TASK_RUNNING (preempted). See include/linux/sched.h",
	  0 },
	{ NULL },
};

/* -U -K -d -f -s, --stack-storage-size, --json, --debug, --flamegraph, --pprof, --unwind */
BT_ARGP_STACK_STORAGE(storage_argp, 16384);
static const struct argp_child children[] = {
	BT_ARGP_CHILD(bt_argp_stacks_only),
	BT_ARGP_CHILD(bt_argp_delimited),
	BT_ARGP_CHILD(bt_argp_folded),
	BT_ARGP_CHILD(bt_argp_annotate),
	BT_ARGP_CHILD(bt_argp_offset),
	BT_ARGP_CHILD(storage_argp),
	BT_ARGP_CHILD(bt_argp_json),
	BT_ARGP_CHILD(bt_argp_debug),
	BT_ARGP_CHILD(bt_stack_out_argp),
	BT_ARGP_CHILD(bt_argp_unwind),
	{ NULL },
};

const struct argp bt_offcpu_argp;

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct bt_offcpu_opts *o = state->input;

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
	case 'm':
		return bt_argp_ulong(state, arg, "minimum block time", 1, ULONG_MAX, &o->min_us);
	case 'M':
		return bt_argp_ulong(state, arg, "maximum block time", 1, ULONG_MAX, &o->max_us);
	case OPT_STATE:
		return bt_argp_long(state, arg, "thread state", 0, 0xffff, &o->state);
	case ARGP_KEY_INIT:
		o->vals = (struct bt_opt_vals){ BT_OFFCPU_VALS(*o) };
		bt_argp_vals_init(state, &bt_offcpu_argp, &o->vals);
		break;
	case ARGP_KEY_ARG:
		if (o->duration)
			return bt_argp_error(state, "unexpected argument '%s'", arg);
		return bt_argp_ulong(state, arg, "duration", 1, BT_FOREVER, &o->duration);
	case ARGP_KEY_END:
		if (o->folded && o->offset)
			return bt_argp_error(state, "can only use -f or -s");
		if ((o->ntgids > 0) + (o->ntids > 0) + o->user_threads + o->kernel_threads > 1)
			return bt_argp_error(state, "-p, -t, -u and -k are mutually exclusive");
		if (bt_offcpu_check_stacks(state, o))
			return EINVAL;
		if (o->min_us >= o->max_us)
			return bt_argp_error(state, "-m (%lu) must be less than -M (%lu)",
					     o->min_us, o->max_us);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

error_t bt_offcpu_check_stacks(struct argp_state *state, const struct bt_offcpu_opts *o)
{
	if (o->user_only && o->kernel_only)
		return bt_argp_error(state, "-U and -K are mutually exclusive; both stacks "
					    "is the default");
	if (o->folded && o->json)
		return bt_argp_error(state, "can only use -f or --json");
	return 0;
}

const struct argp bt_offcpu_argp = { .options = options,
				     .parser = parse_opt,
				     .children = children };

int bt_offcpu_apply(struct bpf_object *obj, const struct bt_offcpu_opts *o)
{
	bool by_state = o->state >= 0, want_kernel = !o->user_only, want_user = !o->kernel_only;
	__u32 state = by_state ? o->state : 0;
	__u64 min = o->min_us, max = o->max_us;
	/* system-wide, the tool leaves its own threads out, as the per-event tools do */
	__u32 self = o->ntgids || o->ntids ? 0 : (__u32)getpid();
	int err;

	err = bt_rodata_set(obj, "bt_offcpu_ntgids", &o->ntgids, sizeof(__u32));
	if (!err)
		err = bt_rodata_set(obj, "bt_filter_not_tgid", &self, sizeof(self));
	if (!err)
		err = bt_rodata_set(obj, "bt_offcpu_tgids", o->tgids, sizeof(o->tgids));
	if (!err)
		err = bt_rodata_set(obj, "bt_offcpu_ntids", &o->ntids, sizeof(__u32));
	if (!err)
		err = bt_rodata_set(obj, "bt_offcpu_tids", o->tids, sizeof(o->tids));
	if (!err)
		err = bt_rodata_set(obj, "bt_offcpu_user_threads", &o->user_threads, sizeof(bool));
	if (!err)
		err = bt_rodata_set(obj, "bt_offcpu_kernel_threads", &o->kernel_threads,
				    sizeof(bool));
	if (!err)
		err = bt_rodata_set(obj, "bt_offcpu_by_state", &by_state, sizeof(bool));
	if (!err)
		err = bt_rodata_set(obj, "bt_offcpu_state", &state, sizeof(state));
	if (!err)
		err = bt_rodata_set(obj, "bt_offcpu_min_us", &min, sizeof(min));
	if (!err)
		err = bt_rodata_set(obj, "bt_offcpu_max_us", &max, sizeof(max));
	if (!err)
		err = bt_rodata_set(obj, "bt_offcpu_want_kernel", &want_kernel, sizeof(bool));
	if (!err)
		err = bt_rodata_set(obj, "bt_offcpu_want_user", &want_user, sizeof(bool));
	return err;
}

void bt_offcpu_threads(const struct bt_offcpu_opts *o, char *buf, size_t len)
{
	if (o->ntgids)
		snprintf(buf, len, "PIDs %s", o->tgid_arg);
	else if (o->ntids)
		snprintf(buf, len, "TIDs %s", o->tid_arg);
	else
		snprintf(buf, len, "%s threads",
			 o->user_threads     ? "user"
			 : o->kernel_threads ? "kernel"
					     : "all");
}

const char *bt_offcpu_stacks(const struct bt_offcpu_opts *o)
{
	return o->user_only ? "user" : o->kernel_only ? "kernel" : "user + kernel";
}

char bt_offcpu_state_letter(unsigned int state)
{
	if (state == 0)
		return 'R';
	if (state & 0x2)
		return state & 0x400 ? 'I' : 'D';
	if (state & 0x1)
		return 'S';
	if (state & 0x4)
		return 'T';
	if (state & 0x8)
		return 't';
	if (state & 0x40)
		return 'P';
	return '?';
}

struct bt_row_proc bt_offcpu_task(const char *comm, unsigned int tgid, unsigned int tid,
				  unsigned int cookie, uint64_t user_stack, uint64_t kernel_stack)
{
	return (struct bt_row_proc){ .comm = comm,
				     .comm_len = BT_OFFCPU_COMM_LEN,
				     .pid = tgid,
				     .tid = tid,
				     .proc = BT_PROC(tgid, cookie),
				     .user_stack = user_stack,
				     .kernel_stack = kernel_stack };
}

const char *bt_offcpu_state_frame(unsigned int state)
{
	static const char *const frames[128] = {
		['R'] = "[off-cpu: R]", ['S'] = "[off-cpu: S]", ['D'] = "[off-cpu: D]",
		['I'] = "[off-cpu: I]", ['T'] = "[off-cpu: T]", ['t'] = "[off-cpu: t]",
		['P'] = "[off-cpu: P]", ['?'] = "[off-cpu: ?]",
	};

	return frames[(unsigned char)bt_offcpu_state_letter(state)];
}

#define ONESHOT_INDEX_MS 8000

/*
 * Everything attached: the skeleton's programs, then the tool's own (t->attach). A oneshot
 * profile's seconds (wait) walk every running process whole from the first, if the indexing
 * ends in time. Its caller has a deadline (the exporter's, seconds + 20): past
 * ONESHOT_INDEX_MS, the rest are walked partly until indexed, and said.
 */
static int attach(struct bpf_object_skeleton *skel, const struct bt_offcpu_tool *t,
		  struct bt_stacks *stacks, bool wait)
{
	int err;

	if (wait && bt_stacks__wait_indexed(stacks, ONESHOT_INDEX_MS) == -ETIMEDOUT)
		bt_warn("the running processes were not all indexed within %u s; the stacks of "
			"the rest are walked by frame pointers until they are",
			ONESHOT_INDEX_MS / 1000);
	err = bpf_object__attach_skeleton(skel);
	if (err)
		bt_err("cannot attach to %s: %s", t->attach_to, strerror(-err));
	else if (t->attach)
		err = t->attach(t->ctx, *skel->obj);
	return err;
}

/* bt_offcpu_start(); a oneshot run (bt_offcpu_run_pprof()) does not look at the stop flag. */
static int start(struct bpf_object_skeleton *skel, const struct bt_offcpu_opts *o,
		 const struct bt_offcpu_tool *t, const struct bt_probe *probes,
		 const struct bt_stacks_opts *sopts, struct bt_stacks **stacks, bool oneshot)
{
	struct bpf_object *obj = *skel->obj;
	unsigned int i;
	int err = 0;

	/* a -p/-t list naming one that does not exist: BCC traces the rest, or nothing */
	for (i = 0; i < o->ntgids && !err; i++)
		err = bt_check_pid(o->tgids[i]);
	for (i = 0; i < o->ntids && !err; i++)
		err = bt_check_tid(o->tids[i]);
	if (err)
		return err;
	err = bt_offcpu_apply(obj, o);
	if (!err)
		err = bt_stacks__configure(obj, sopts);
	if (err) {
		if (err != -ECANCELED) /* else said */
			bt_err("cannot set up the BPF maps: %s", strerror(-err));
		return err;
	}
	err = t->prepare ? t->prepare(t->ctx, obj) : 0;
	if (!err)
		err = bt_skel_select(obj, probes);
	if (err)
		return err;
	/* a stop before tracing began, as in bt_skel_load_attach(): -EINTR, a quiet exit 0 */
	if (!oneshot && bt_stop_requested())
		return -EINTR;
	err = bt_skel_load(skel);
	if (err)
		return err;
	err = bt_stacks__new(obj, sopts, stacks);
	if (err) {
		bt_err("cannot set up stack symbolization: %s", strerror(-err));
		return err;
	}
	for (i = 0; sopts->user && i < o->ntgids; i++)
		bt_stacks__note_pid(*stacks, o->tgids[i]);
	if (!oneshot && bt_stop_requested())
		return -EINTR;
	return attach(skel, t, *stacks, oneshot && sopts->note_running);
}

int bt_offcpu_start(struct bpf_object_skeleton *skel, const struct bt_offcpu_opts *o,
		    const struct bt_offcpu_tool *t, const struct bt_probe *probes,
		    const struct bt_stacks_opts *sopts, struct bt_stacks **stacks)
{
	return start(skel, o, t, probes, sopts, stacks, false);
}

const struct argp_child bt_offcpu_children[] = {
	{ &bt_offcpu_argp, 0, NULL, 0 },
	{ NULL },
};

void bt_offcpu_banner(const struct bt_offcpu_opts *o, const char *fmt, ...)
{
	char *what = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&what, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	/* folded: data only on stdout; JSON: an info line on stderr (bt_banner) */
	if (o->duration)
		bt_banner(o->folded ? stderr : stdout, "%s for %lu secs.\n", what, o->duration);
	else
		bt_banner(o->folded ? stderr : stdout, "%s... Hit Ctrl-C to end.\n", what);
	free(what);
}

/*
 * A tool's rows (its parts, row) as o prints them: BCC's blocks, -f or --json; -U, -K and -d;
 * -s; and the --flamegraph/--pprof files out.
 */
static struct bt_stack_rows offcpu_rows(const struct bt_offcpu_opts *o,
					const struct bt_row_part *row, struct bt_stacks *stacks,
					struct bt_stack_out *out)
{
	return (struct bt_stack_rows){
		.parts = row,
		.stacks = stacks,
		.style = { .indent = "    ",
			   .fmt = o->offset ? BT_FMT_OFFSET : 0,
			   .annotate = o->annotate },
		.form = o->json	    ? BT_ROW_JSON
			: o->folded ? BT_ROW_FOLDED
				    : BT_ROW_TEXT,
		.hide = (o->user_only ? BT_ROW_HIDE(BT_ROW_KERNEL) : 0) |
			(o->kernel_only ? BT_ROW_HIDE(BT_ROW_USER) : 0) |
			(o->delimited ? 0 : BT_ROW_HIDE(BT_ROW_DELIM)),
		.out = out,
	};
}

static int offcpu_collect(void *counts);

/*
 * Set *c for a tool's counts map (its keys' stack generation, a __u32, at gen_offset; the key
 * size is the map's), whose keys add_row(ctx) makes rows of table, printed by --json with the
 * sum as value_name; and make offcpu_collect(c) the collector of stacks, so that exited
 * processes waiting to be named have their counts drained into the table. c must live as long
 * as stacks.
 */
static void counts_init(struct bt_offcpu_counts *c, struct bt_stacks *stacks,
			const struct bpf_object *obj, const struct bpf_map *counts,
			const struct bt_offcpu_tool *t, bt_stacks_entry_fn add_row, void *ctx,
			struct bt_stack_table *table)
{
	const struct bpf_map *starts = bpf_object__find_map_by_name(obj, "bt_offcpu_starts");
	const struct bpf_map *holder =
		t->holder.map ? bpf_object__find_map_by_name(obj, t->holder.map) : NULL;

	*c = (struct bt_offcpu_counts){
		.stacks = stacks,
		.fd = bpf_map__fd(counts),
		.key_size = bpf_map__key_size(counts),
		.gen_offset = t->gen_offset,
		.add_row = add_row,
		.ctx = ctx,
		.table = table,
		.value_name = t->value_name,
		.procs = t->procs,
		.starts_fd = starts ? bpf_map__fd(starts) : -1,
		.holder_fd = holder ? bpf_map__fd(holder) : -1,
		.holder = &t->holder,
	};
	bt_stacks__set_collector(stacks, offcpu_collect, c);
}

/*
 * The programs' window (bt_offcpu_from, bt_offcpu_until): from now, for ms (0: until
 * stopped). Set once all is attached: a tool starved of CPU attaches slowly and reads its
 * counts late, and would count beyond the seconds asked for at either end.
 */
static void trace_window(struct bpf_object *obj, unsigned long long ms)
{
	uint64_t *from = bt_bss_var(obj, "bt_offcpu_from", sizeof(*from));
	uint64_t *until = bt_bss_var(obj, "bt_offcpu_until", sizeof(*until));
	uint64_t ns = bt_now_ns();

	if (!from || !until)
		return;
	if (ms)
		*until = ns + ms * 1000000ULL;
	*from = ns;
}

/*
 * Trace until o's duration is over or Ctrl-C, reading the processes stacks announces as they
 * come; then print(ctx), the summary, and say what was lost: stacks, and the starts the
 * in-flight tables of obj (inflight, probes/bt_inflight.bpf.h) refused. print's result.
 */
static int offcpu_loop(const struct bt_offcpu_opts *o, struct bt_stacks *stacks,
		       struct bpf_object *obj, const struct bt_inflight_table *inflight,
		       bt_print_fn print, void *ctx)
{
	struct bt_interval iv = {
		.interval = o->duration ? o->duration : BT_FOREVER,
		.duration = o->duration,
		.count = 1,
	};
	struct bt_poll poll = { bt_stacks__fd(stacks), bt_stacks__poll, stacks };
	int err;

	trace_window(obj, o->duration * 1000ULL);
	err = bt_interval_loop_poll(&iv, print, ctx, &poll);

	bt_stacks__report_lost(stacks);
	bt_inflight_report(obj, inflight);
	return err;
}

/* The closed generation's counts, into the table. */
static int drain_counts(void *counts)
{
	struct bt_offcpu_counts *c = counts;

	return bt_stacks__drain(c->stacks, c->fd, c->key_size, sizeof(__u64), c->gen_offset,
				c->add_row, c->ctx);
}

/* The stacks a thread off-CPU now left in its start, to be named when it is switched in. */
static int hold_start(void *ctx, const void *key, const void *value, struct bt_stacks_held *held)
{
	const struct bt_offcpu_start *s = value;

	if (!s->ts) /* its block is over and counted: what it names is in a count */
		return 0;
	return bt_stacks__hold(held, s->kernel_stack) ?: bt_stacks__hold(held, s->user_stack);
}

static int hold_holder(void *ctx, const void *key, const void *value, struct bt_stacks_held *held)
{
	const struct bt_offcpu_holder *h = ctx;
	uint64_t kernel, user;

	memcpy(&kernel, (const char *)value + h->kernel_stack, sizeof(kernel));
	memcpy(&user, (const char *)value + h->user_stack, sizeof(user));
	return bt_stacks__hold(held, kernel) ?: bt_stacks__hold(held, user);
}

static int hold_key(void *ctx, const void *key, const void *value, struct bt_stacks_held *held)
{
	const struct bt_offcpu_counts *c = ctx;
	struct bt_row_proc procs[BT_ROW_PROCS] = { { 0 } };
	int i, err = 0;

	c->procs(key, procs);
	for (i = 0; i < BT_ROW_PROCS && !err; i++)
		err = bt_stacks__hold(held, procs[i].kernel_stack) ?:
		      bt_stacks__hold(held, procs[i].user_stack) ?:
		      bt_stacks__hold(held, procs[i].user_caller);
	return err;
}

/*
 * The stacks still in use past a release: those of the blocks and wake-ups in flight, whose
 * counts are written later (in the generation their first stack was taken in, perhaps one
 * drained already), and those of every count not drained yet. In that order: the kernel writes
 * a count before it lets go of the start or wake-up, so a count whose start is gone by the
 * time it is looked for is in the counts map by then.
 */
static int offcpu_hold(void *counts, struct bt_stacks_held *held)
{
	struct bt_offcpu_counts *c = counts;
	int err = 0;

	if (c->starts_fd >= 0)
		err = bt_stacks__hold_entries(held, c->starts_fd, sizeof(__u32),
					      sizeof(struct bt_offcpu_start), hold_start, NULL);
	if (!err && c->holder_fd >= 0)
		err = bt_stacks__hold_entries(held, c->holder_fd, sizeof(__u32),
					      c->holder->value_size, hold_holder,
					      (void *)c->holder);
	if (!err)
		err = bt_stacks__hold_entries(held, c->fd, c->key_size, sizeof(__u64), hold_key, c);
	return err;
}

/*
 * Every count so far (both stack generations, whichever is current) read and deleted, each
 * made a row of the table, rows that print the same merged. A bt_stacks_collect_fn: it runs
 * whenever exited processes wait to be named (lib/stacks/bt_stacks.h), and before the summary.
 */
static int offcpu_collect(void *counts)
{
	/* the stacks named are released, but for those still in use: memory stays flat */
	struct bt_stacks_cycle cycle = { .hold = offcpu_hold,
					 .hold_ctx = counts,
					 .consume = drain_counts,
					 .consume_ctx = counts };
	struct bt_offcpu_counts *c = counts;
	int gen, err = 0;

	for (gen = 0; gen < 2 && !err; gen++)
		err = bt_stacks__cycle(c->stacks, &cycle);
	if (err < 0) {
		bt_err("cannot read the off-CPU counts: %s", strerror(-err));
		return err;
	}
	bt_debug("rows: %zu kept in %zu KiB, %llu more in [other]", c->table->n,
		 bt_stack_table__bytes(c->table) >> 10, c->table->other_rows);
	return 0;
}

/*
 * The summary: offcpu_collect(), then the rows sorted and printed in o's form (BCC's blocks,
 * -f or --json), and the table emptied. 0 or -errno (said on stderr).
 */
static int offcpu_summary(const struct bt_offcpu_opts *o, struct bt_offcpu_counts *c)
{
	struct bt_stack_table *t = c->table;
	struct bt_stack_row r;
	int err = offcpu_collect(c);
	size_t i;

	if (err)
		return err; /* said */
	err = bt_stack_table__sort(t);
	if (err)
		goto cleanup;
	if (!o->folded && !o->json)
		printf("\n");
	for (i = 0; i < bt_stack_table__count(t); i++) {
		err = bt_stack_table__row(t, i, &r);
		if (err)
			break;
		if (o->json)
			bt_stack_row__json(&r, c->value_name, stdout);
		else if (o->folded)
			printf("%s %llu\n", r.text, r.value);
		else
			printf("%s        %llu\n\n", r.text, r.value);
	}
	bt_stack_table__report(t);
cleanup:
	if (err)
		bt_err("cannot print the off-CPU counts: %s", strerror(-err));
	bt_stack_table__clear(t);
	return err;
}

/* One row of the table, without its total, which offcpu_summary() prints. */
static int add_row(void *ctx, const void *key, const void *value)
{
	struct bt_offcpu_run *r = ctx;
	struct bt_row_proc procs[BT_ROW_PROCS] = { { 0 } };
	r->tool->procs(key, procs);
	if (r->oneshot && !r->out) /* a kept run between its profiles: nothing counts then */
		return 0;
	if (r->oneshot)
		return bt_stack_rows__profile(&r->rows, r->out, procs, *(const __u64 *)value);
	return bt_stack_rows__add(&r->rows, &r->table, procs, *(const __u64 *)value);
}

static int print_summary(void *ctx)
{
	struct bt_offcpu_run *r = ctx;

	if (r->tool->stop)
		r->tool->stop(r->tool->ctx);
	return offcpu_summary(r->opts, &r->counts) ?: bt_stack_out__write(r->out);
}

/* The profile's options: the tool's (a NULL sample type: off-CPU microseconds), its title. */
static struct bt_profile_opts profile_opts(const struct bt_offcpu_tool *tool)
{
	struct bt_profile_opts popts = tool->profile;

	popts.title = tool->title;
	if (!popts.sample_type) {
		popts.sample_type = "off_cpu";
		popts.unit = "microseconds";
		popts.offcpu = true; /* every sample is time off-CPU: cool colours, as --wall's */
	}
	return popts;
}

int bt_offcpu_run__init(struct bt_offcpu_run *r, const struct bt_offcpu_tool *tool,
			const struct bt_offcpu_opts *o)
{
	struct bt_profile_opts popts = profile_opts(tool);

	*r = (struct bt_offcpu_run){ .tool = tool, .opts = o };
	return bt_stack_out__new(&o->out, &popts, &r->out);
}

/* Whether a run's user stacks may be any process's: every running one is indexed. */
static bool note_running(const struct bt_offcpu_tool *t, const struct bt_offcpu_opts *o)
{
	return !o->kernel_only && (t->any_waker || (!o->ntgids && !o->ntids));
}

/* A run up to tracing: started (start()), its rows and counts set up. 0 or -errno (said). */
static int run_start(struct bt_offcpu_run *r, struct bpf_object_skeleton *skel,
		     const struct bpf_map *counts, const struct bt_probe *probes)
{
	const struct bt_offcpu_tool *t = r->tool;
	const struct bt_offcpu_opts *o = r->opts;
	struct bt_stacks_opts sopts = {
		.storage_size = o->storage,
		.user = !o->kernel_only,
		.unwind = o->unwind,
		.note_running = note_running(t, o),
	};
	int err, i;

	err = start(skel, o, t, probes, &sopts, &r->stacks, r->oneshot);
	if (err)
		return err;
	r->rows = offcpu_rows(o, t->row, r->stacks, r->out);
	r->rows.thread = t->thread;
	for (i = 0; i < BT_ROW_PROCS; i++)
		r->rows.objects[i] = t->objects[i];
	counts_init(&r->counts, r->stacks, *skel->obj, counts, t, add_row, r, &r->table);
	return 0;
}

int bt_offcpu_run(struct bt_offcpu_run *r, struct bpf_object_skeleton *skel,
		  const struct bpf_map *counts, const struct bt_probe *probes)
{
	int err = run_start(r, skel, counts, probes);

	if (err)
		return err;
	r->tool->banner(r->opts);
	if (bt_output_closed())
		return 0;
	return offcpu_loop(r->opts, r->stacks, *skel->obj, r->tool->inflight, print_summary, r);
}

/*
 * A profile's run again (bt_offcpu_run_pprof() on a run it started before): its tables
 * emptied as the last profile left them, the processes started since indexed, all attached.
 */
static int run_again(struct bt_offcpu_run *r, struct bpf_object_skeleton *skel)
{
	const struct bt_offcpu_counts *c = &r->counts;
	int err;

	/* the last profile drained them; a failure part way may have left some */
	err = bt_stacks__empty_map(c->fd, c->key_size) ?:
	      bt_stacks__empty_map(c->starts_fd, sizeof(__u32)) ?:
	      bt_stacks__empty_map(c->holder_fd, sizeof(__u32));
	if (err) {
		bt_err("cannot empty the off-CPU counts: %s", strerror(-err));
		return err;
	}
	/* the warnings at its end are this profile's */
	bt_stacks__reset_counts(r->stacks);
	bt_inflight_reset(*skel->obj);
	if (!note_running(r->tool, r->opts))
		return attach(skel, r->tool, r->stacks, false);
	bt_stacks__index_new(r->stacks);
	return attach(skel, r->tool, r->stacks, true);
}

int bt_offcpu_run_pprof(struct bt_offcpu_run *r, struct bpf_object_skeleton *skel,
			const struct bpf_map *counts, const struct bt_probe *probes,
			unsigned int seconds, FILE *out)
{
	struct bt_profile_opts popts = profile_opts(r->tool);
	struct bt_poll poll;
	int err;

	if (!seconds) {
		bt_err("a profile of 0 seconds");
		return -EINVAL;
	}
	r->oneshot = true;
	/* the rows' profile, in memory: the files of --flamegraph/--pprof are not this run's */
	bt_stack_out__free(r->out);
	r->out = NULL;
	err = bt_stack_out__new_profile(&popts, &r->out);
	if (!err && r->stacks) {
		r->rows.out = r->out;
		err = run_again(r, skel);
	} else if (!err) {
		err = run_start(r, skel, counts, probes);
	}
	if (err)
		return err;
	poll = (struct bt_poll){ bt_stacks__fd(r->stacks), bt_stacks__poll, r->stacks };
	trace_window(*skel->obj, seconds * 1000ULL);
	err = bt_poll_for(seconds * 1000ULL, &poll);
	/* the seconds are over: nothing more counts while the counts are read and named */
	if (r->tool->stop)
		r->tool->stop(r->tool->ctx);
	bt_skel_detach(skel);
	if (!err) /* the processes announced meanwhile */
		err = bt_stacks__poll(r->stacks);
	/*
	 * The blocks in flight end in no count of this profile's: gone before the collection,
	 * their stacks are released with the rest, and a kept run's next profile does not time
	 * a block from one begun now
	 */
	bt_stacks__empty_map(r->counts.starts_fd, sizeof(__u32));
	bt_stacks__empty_map(r->counts.holder_fd, sizeof(__u32));
	if (err >= 0)
		err = offcpu_collect(&r->counts);
	bt_stacks__report_lost(r->stacks);
	bt_inflight_report(*skel->obj, r->tool->inflight);
	if (!err) {
		err = bt_stack_out__pprof(r->out, out);
		if (err)
			bt_err("cannot write the profile: %s", strerror(-err));
	}
	/* written: a kept run holds no profile between its requests */
	bt_stack_out__free(r->out);
	r->out = r->rows.out = NULL;
	return err;
}

int bt_offcpu_run__fd(const struct bt_offcpu_run *r)
{
	return r->stacks ? bt_stacks__fd(r->stacks) : -1;
}

void bt_offcpu_run__idle(struct bt_offcpu_run *r)
{
	if (!r->stacks)
		return;
	bt_stacks__poll(r->stacks);
	bt_stacks__release_exited(r->stacks);
}

bool bt_offcpu_run__worn(const struct bt_offcpu_run *r)
{
	return r->stacks && bt_stacks__unwind_half_spent(r->stacks);
}

void bt_offcpu_run__free(struct bt_offcpu_run *r)
{
	bt_stacks__free(r->stacks);
	bt_stack_out__free(r->out);
	bt_stack_table__free(&r->table);
}

/* No stacks, a count per command name and state: offcputime.bpf.c's by_comm. */
static int comm_prepare(void *ctx, struct bpf_object *obj)
{
	bool yes = true, no = false;
	int err;

	(void)ctx;
	err = bt_rodata_set(obj, "by_comm", &yes, sizeof(yes)) ?:
	      bt_rodata_set(obj, "bt_offcpu_want_kernel", &no, sizeof(no)) ?:
	      bt_rodata_set(obj, "bt_offcpu_want_user", &no, sizeof(no)) ?:
	      bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "comm_counts"),
				       OFFCPU_COMM_KEYS) ?:
	      bpf_map__set_max_entries(bpf_object__find_map_by_name(obj, "counts"), 1);
	if (err)
		bt_err("cannot set up the BPF maps: %s", strerror(-err));
	return err;
}

int bt_offcpu_comm_start(struct bt_offcpu_comm *c, const struct bt_offcpu_tool *t,
			 const struct bt_probe *probes)
{
	static const struct bt_offcpu_opts all = BT_OFFCPU_OPTS_INIT;
	static const struct bt_summary_opts sum_opts = {
		.key_size = sizeof(struct offcputime_comm_key),
		.value_size = sizeof(__u64),
		.retire_idle = true,
		.running = true,
		.what = "off-CPU totals",
	};
	struct bt_stacks_opts sopts = { .unwind = BT_UNWIND_FP };
	struct bt_offcpu_tool comm = *t;

	comm.prepare = comm_prepare;
	return bt_offcpu_start(c->skeleton, &all, &comm, probes, &sopts, &c->stacks)
		       ?: bt_summary__open(&c->sum,
					   bpf_map__fd(bpf_object__find_map_by_name(
						   *c->skeleton->obj, "comm_counts")),
					   &sum_opts);
}

void bt_offcpu_comm_stop(void *run)
{
	struct bt_offcpu_comm *c = run;

	bt_summary__free(c->sum);
	bt_stacks__free(c->stacks);
	bt_skel_destroy(c->skel, c->skeleton);
}

int bt_offcpu_comm_cmp(const void *a, const void *b, void *ctx)
{
	const struct offcputime_comm_key *x = a, *y = b;
	int c = strncmp(x->comm, y->comm, BT_OFFCPU_COMM_LEN);

	(void)ctx;
	if (c)
		return c;
	return bt_offcpu_state_letter(x->state) - bt_offcpu_state_letter(y->state);
}

void bt_offcpu_comm_label(void *run, const void *key, struct bt_labels *l)
{
	const struct offcputime_comm_key *k = key;

	(void)run;
	snprintf(l->buf[0], sizeof(l->buf[0]), "%.*s", BT_OFFCPU_COMM_LEN, k->comm);
	l->buf[1][0] = bt_offcpu_state_letter(k->state);
	l->v[0] = l->buf[0];
	l->v[1] = l->buf[1];
}
