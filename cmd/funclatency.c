// SPDX-License-Identifier: GPL-2.0
/* funclatency: time kernel and user functions, print log2 histograms, as BCC's. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>

#include "bt_args.h"
#include "bt_attach.h"
#include "bt_calls.h"
#include "bt_inflight.h"
#include "bt_cmd.h"
#include "bt_collector.h"
#include "bt_err.h"
#include "bt_hist.h"
#include "bt_json.h"
#include "bt_loop.h"
#include "bt_skel.h"
#include "bt_summary.h"
#include "bt_trace.h"
#include "funclatency.h"
#include "funclatency.skel.h"

static struct funclatency_opts {
	struct bt_common_opts c; /* -p, -i, -d, --attach, --max-probes */
	unsigned long level;	 /* 0: innermost calls only */
	bool timestamp, usecs, msecs, per_func, regex, verbose;
	const char *pattern;
} opts = { .c = BT_COMMON_OPTS_INIT };

static const struct bt_opt_vals vals = {
	BT_COMMON_VALS(opts.c),
	.timestamp = &opts.timestamp,
	.regex = &opts.regex,
	.milliseconds = &opts.msecs,
	.flags = BT_ARGP_FLAGS({ 'u', &opts.usecs }, { 'F', &opts.per_func },
			       { 'v', &opts.verbose }),
	BT_ARGP_PATTERN(opts.pattern),
};

static const struct argp_option options[] = {
	{ "microseconds", 'u', NULL, 0, "Microsecond histogram", 0 },
	{ "function", 'F', NULL, 0, "Show a separate histogram per function", 0 },
	{ "level", 'l', "LEVEL", 0, "Time the outermost LEVEL levels of nested or recursive calls",
	  0 },
	{ "verbose", 'v', NULL, 0, "Print what each function is attached with", 0 },
	{ NULL },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct funclatency_opts *o = state->input;

	switch (key) {
	case 'l':
		return bt_argp_ulong(state, arg, "level", 1, FL_MAX_LEVEL, &o->level);
	case ARGP_KEY_END:
		if (bt_argp_words_end(state))
			return EINVAL;
		if (o->usecs && o->msecs)
			return bt_argp_error(state, "-u and -m are mutually exclusive");
		break;
	default:
		return bt_argp_own(key, arg, state);
	}
	return 0;
}

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.children = BT_ARGP_CHILDREN(bt_argp_pid, bt_argp_interval, bt_argp_duration,
				     bt_argp_timestamp, bt_argp_regexp, bt_argp_attach,
				     bt_argp_max_probes, bt_argp_json, bt_argp_milliseconds),
	.args_doc = "PATTERN",
	.doc = "Time functions and print latency as a histogram.\v"
	       "PATTERN: func, p:func (kernel); lib:func, c:func, /path/bin:func, prog:func\n"
	       "(user); syscall:name; '*' wildcards, or regular expressions with -r.\n"
	       "\n"
	       "examples:\n"
	       "    funclatency do_sys_open       # time the do_sys_open() kernel function\n"
	       "    funclatency c:read            # time the read() C library function\n"
	       "    funclatency -u vfs_read       # time vfs_read(), in microseconds\n"
	       "    funclatency -m do_nanosleep   # time do_nanosleep(), in milliseconds\n"
	       "    funclatency -i 2 -d 10 c:open # output every 2 seconds, for duration 10s\n"
	       "    funclatency -mTi 5 vfs_read   # output every 5 seconds, with timestamps\n"
	       "    funclatency -p 181 vfs_read   # time process 181 only\n"
	       "    funclatency 'vfs_fstat*'      # time both vfs_fstat() and vfs_fstatat()\n"
	       "    funclatency 'c:*printf'       # time the *printf family of functions\n"
	       "    funclatency -F 'vfs_r*'       # show one histogram per matched function\n"
	       "    funclatency -l 3 ./a.out:walk # time the 3 outer levels of recursion\n"
	       "    funclatency -u syscall:openat # time the openat() system call\n"
	       "    funclatency --json -i 1 c:read   # one line of JSON per second",
};

struct state {
	struct bt_target_rows rows; /* first: the shared rows' callbacks take the state */
	struct bt_summary *sum;
	bool user; /* sections print "NAME [PID]" */
	const char *label;
	uint64_t div;
	struct funclatency_bpf *skel;
};
_Static_assert(offsetof(struct state, rows) == 0,
	       "bt_target_rows' callbacks take the state as its rows");

/* Its units (-m, -u), and its rows: functions that share a name print as one (funccount's). */
static int init_state(struct state *s, const struct bt_calls *calls)
{
	s->user = calls->targets.v[0].kind == BT_SPEC_UFUNC;
	s->label = opts.msecs ? "msecs" : opts.usecs ? "usecs" : "nsecs";
	s->div = opts.msecs ? 1000000 : opts.usecs ? 1000 : 1;
	if (!bt_target_rows__init(&s->rows, &calls->targets, calls->n))
		return 0;
	bt_err("out of memory");
	return -ENOMEM;
}

static size_t row_of(const struct state *s, const struct fl_hist_key *k)
{
	return k->func < s->rows.n ? s->rows.row_of[k->func] : 0;
}

/* Sections by function row, then process: keys of one name and process print as one. */
static int cmp_section(const void *a, const void *b, void *ctx)
{
	const struct fl_hist_key *x = a, *y = b;
	size_t rx = row_of(ctx, x), ry = row_of(ctx, y);

	if (rx != ry)
		return rx < ry ? -1 : 1;
	return x->tgid < y->tgid ? -1 : x->tgid > y->tgid;
}

static void print_section(FILE *out, const void *key, void *ctx)
{
	const struct state *s = ctx;
	const struct fl_hist_key *k = key;

	if (s->user)
		fprintf(out, "\nFunction = %s [%u]\n", bt_target_rows__name(&s->rows, k->func),
			k->tgid);
	else
		fprintf(out, "\nFunction = %s\n", bt_target_rows__name(&s->rows, k->func));
}

static void json_section(struct bt_json *j, const void *key, const uint64_t *val, void *ctx)
{
	const struct state *s = ctx;
	const struct fl_hist_key *k = key;

	(void)val;
	bt_json_string(j, "function", bt_target_rows__name(&s->rows, k->func));
	if (s->user)
		bt_json_uint(j, "pid", k->tgid);
}

static int print_interval(void *ctx)
{
	struct state *s = ctx;
	uint64_t total_ns, count = 0;
	size_t i, j;
	int err;

	err = bt_summary__collect(s->sum);
	if (err)
		return err;
	bt_summary__sort_by_key(s->sum, cmp_section, s, true);
	total_ns = bt_summary__total(s->sum, offsetof(struct fl_hist, total_ns) / 8);
	for (i = 0; i < bt_summary__len(s->sum); i++) {
		const struct fl_hist *h = (const void *)bt_summary__value(s->sum, i);

		for (j = 0; j < FL_SLOTS; j++)
			count += h->slots[j];
	}
	/*
	 * One line per interval, as biolatency's: "hist" for the one histogram, or "functions"
	 * (with -F, or user functions per process) of {"function", "pid", "hist"}; "total" in the
	 * unit and "count", the calls timed.
	 */
	if (bt_json_mode()) {
		bt_summary__json_hists_line(
			s->sum, stdout, s->label, s->skel->rodata->key_func ? "functions" : NULL,
			json_section, s, (const uint64_t[]){ total_ns / s->div, count });
		return 0;
	}
	bt_print_interval_head(opts.timestamp);
	bt_summary__print_hists(s->sum, stdout, NULL,
				s->skel->rodata->key_func ? print_section : NULL, s, s->label);
	/* BCC divides the ns total, then the average is that over the count, truncated */
	bt_hist_print_avg(stdout, total_ns / s->div, count, s->label);
	return 0;
}

/* -v: what each function is attached with; BCC prints its generated program instead. */
static void describe(const struct bt_targets *t, const struct bt_attach *a, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct bt_target *e = &t->v[i];
		const char *in = bt_attach__how(a, i), *out = bt_attach__how(a, n + i);

		if (e->kind == BT_SPEC_UFUNC)
			bt_note("'%s' (%s+0x%llx): entry %s, return %s", e->name, e->path,
				(unsigned long long)e->offset, in ? in : "none",
				out ? out : "none");
		else if (e->kind == BT_SPEC_SYSCALL)
			bt_note("'%s' (%s:%s + %s): entry %s, return %s", e->name, e->category,
				e->event, t->v[n + i].event, in ? in : "none", out ? out : "none");
		else
			bt_note("'%s' (%s): entry %s, return %s", e->name, e->func,
				in ? in : "none", out ? out : "none");
	}
}

/* Map sizes for what this run keeps; a map that is not used gets one entry. */
static int size_maps(struct funclatency_bpf *skel, size_t nfuncs)
{
	size_t nhists = 1;
	int err;

	if (skel->rodata->key_tgid)
		nhists = nfuncs > FL_MAX_HISTS ? nfuncs : FL_MAX_HISTS;
	else if (skel->rodata->key_func)
		nhists = nfuncs;
	err = bpf_map__set_max_entries(skel->maps.hists, nhists);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.starts, opts.level ? 1 : FL_MAX_THREADS);
	if (!err)
		err = bpf_map__set_max_entries(skel->maps.stacks, opts.level ? FL_MAX_THREADS : 1);
	if (err)
		bt_err("cannot size the maps: %s", strerror(-err));
	return err;
}

/* probes/funclatency.bpf.c's in-flight tables, in slot order (stacks: with -l) */
static const struct bt_inflight_table inflight[] = {
	{ "starts", "calls not timed", "calls in flight" },
	{ "stacks", "calls not timed", "threads in traced calls" },
	{ NULL },
};

/*
 * Running totals, intervals as their growth; keys of processes that stopped calling are taken
 * out of the map once idle, so per-process keys do not fill it.
 */
static const struct bt_summary_opts sum_opts = {
	BT_SUMMARY_LOG2_ROWS(struct fl_hist_key, struct fl_hist, slots, FL_SLOTS),
	.retire_idle = true,
	.what = "histograms",
};

/* A run: its calls attached, their histograms as rows. */
struct run {
	struct state s; /* first: the collector's callbacks take the run as the state */
	struct bt_calls calls;
	struct bt_attach *attach;
};

static void stop(void *run)
{
	struct run *r = run;

	/* links before the object: every probe is gone before the programs are unloaded */
	bt_attach__destroy(r->attach);
	funclatency_bpf__destroy(r->s.skel);
	bt_summary__free(r->s.sum);
	bt_target_rows__free(&r->s.rows);
	bt_calls__free(&r->calls);
}

/*
 * The command's run with its options, or the exporter's (a histogram per function of the
 * pattern, all processes together, in nanoseconds, running totals).
 */
static int start(struct run *r, const char *pattern, const struct bt_common_opts *c, bool regex,
		 bool exporter)
{
	struct bt_resolve_opts ropts = bt_common_resolve(c, regex);
	struct bt_filters filters = { .cpu = -1, .tgid = c->pid };
	struct bt_summary_opts so = sum_opts;
	struct funclatency_bpf *skel;
	int err;

	r->s.rows.spec = pattern;
	err = bt_calls__resolve(&r->calls, &r->s.rows.spec, 1, &ropts, 0);
	if (err < 0)
		return err;
	err = init_state(&r->s, &r->calls) ?: BT_SKEL_OPEN(funclatency, &r->s.skel);
	if (err)
		return err;
	skel = r->s.skel;
	skel->rodata->level = opts.level;
	skel->rodata->unit_div = exporter ? 1 : r->s.div;
	/* BCC: a histogram per function with -F, and per function and process for user
	 * functions traced everywhere (printed "NAME [PID]") */
	skel->rodata->key_func = exporter || opts.per_func || (r->s.user && !c->pid);
	skel->rodata->key_tgid = !exporter && skel->rodata->key_func && r->s.user;
	so.running = exporter;
	if (exporter)
		so.what = NULL; /* the exporter names the collector */
	return size_maps(skel, r->s.rows.n) ?:
	       bt_calls__load(&r->calls, skel->skeleton, &filters, c->mode, &r->attach) ?:
	       bt_summary__open(&r->s.sum, bpf_map__fd(skel->maps.hists), &so);
}

static int run(const struct bt_cmd *cmd)
{
	struct bt_interval iv = bt_interval_every(opts.c.interval, opts.c.duration);
	struct run r = { 0 };
	int err;

	(void)cmd;
	err = start(&r, opts.pattern, &opts.c, opts.regex, false);
	if (err)
		goto cleanup;
	if (opts.verbose)
		describe(&r.calls.targets, r.attach, r.s.rows.n);
	err = bt_trace__run(r.s.rows.n, opts.pattern, &iv, print_interval, &r.s);
	if (!err && r.s.skel->bss->lost)
		bt_warn("%llu latencies not recorded: more than %zu histograms",
			(unsigned long long)r.s.skel->bss->lost, (size_t)FL_MAX_HISTS);
	if (!err)
		bt_inflight_report(r.s.skel->obj, inflight);
cleanup:
	stop(&r);
	return err;
}

/*
 * The exporter's `--funclatency SPEC`: every function of the spec from the first scrape, at 0
 * until it is called; a function's compiler copies in its row.
 */
BT_COLLECTOR_START(collector_start,
		   start(run, spec, &(const struct bt_common_opts)BT_COMMON_OPTS_INIT, false, true))

static const struct bt_collector collector = {
	.help = "latency histograms per function of a probe spec (--funclatency SPEC, repeatable)",
	.flags = BT_COLLECT_SPEC,
	BT_COLLECTOR_RUN(struct run, s.sum, collector_start, stop),
	BT_TARGET_ROWS_SERIES(cmp_section),
	.families = {
		{ "bpftools_funclatency_seconds", BT_PROM_HISTOGRAM,
		  "Time in each function of a --funclatency spec, from entry to return.",
		  BT_LOG2_SECONDS(struct fl_hist, total_ns, slots, 1e9) },
	},
};

BT_TOOL_COMMAND(funclatency, "Time functions and print latency as a histogram", .vals = &vals,
		.uses = BT_USES_KFUNC | BT_USES_UPROBE | BT_USES_TRACEPOINT | BT_USES_TP_BTF,
		.pattern = BT_PATTERN_KFUNC | BT_PATTERN_UFUNC | BT_PATTERN_SYSCALL,
		.collector = &collector);
