// SPDX-License-Identifier: GPL-2.0
/* funccount: count kernel functions, user functions, tracepoints and USDT probes, as BCC's. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "bt_args.h"
#include "bt_attach.h"
#include "bt_cmd.h"
#include "bt_collector.h"
#include "bt_err.h"
#include "bt_json.h"
#include "bt_loop.h"
#include "bt_skel.h"
#include "bt_summary.h"
#include "bt_trace.h"
#include "funccount.h"
#include "funccount.skel.h"

static struct funccount_opts {
	struct bt_common_opts c; /* -p, -i, -d, --attach, --max-probes */
	bool timestamp;
	bool regex;
	long cpu;
	const char *pattern;
} opts = { .c = BT_COMMON_OPTS_INIT, .cpu = -1 };

static const struct bt_opt_vals vals = {
	BT_COMMON_VALS(opts.c),
	.timestamp = &opts.timestamp,
	.regex = &opts.regex,
	.cpu = &opts.cpu,
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct funccount_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_ARG:
		if (o->pattern)
			return bt_argp_error(state, "one pattern only: '%s' is extra", arg);
		o->pattern = arg;
		break;
	case ARGP_KEY_END:
		if (!o->pattern)
			return bt_argp_error(state, "a pattern to trace is required");
		break;
	default:
		return bt_argp_own(key, arg, state);
	}
	return 0;
}

static const struct argp_child children[] = {
	BT_ARGP_CHILD(bt_argp_pid),
	BT_ARGP_CHILD(bt_argp_interval),
	BT_ARGP_CHILD(bt_argp_duration),
	BT_ARGP_CHILD(bt_argp_cpu),
	BT_ARGP_CHILD(bt_argp_timestamp),
	BT_ARGP_CHILD(bt_argp_regexp),
	BT_ARGP_CHILD(bt_argp_attach),
	BT_ARGP_CHILD(bt_argp_max_probes),
	BT_ARGP_CHILD(bt_argp_json),
	BT_ARGP_CHILD(bt_argp_debug_D),
	{ NULL },
};

static const struct argp argp = {
	.parser = parse_opt,
	.children = children,
	.args_doc = "PATTERN",
	.doc = "Count functions, tracepoints, and USDT probes.\v"
	       "PATTERN: func, p:func (kernel); lib:func, c:func, /path/bin:func, prog:func\n"
	       "(user); t:cat:event (tracepoint); u:lib:probe (USDT); syscall:name.\n"
	       "\n"
	       "examples:\n"
	       "    funccount 'vfs_*'             # count kernel fns starting with \"vfs\"\n"
	       "    funccount -r '^vfs.*'         # same as above, using regular expressions\n"
	       "    funccount -Ti 5 'vfs_*'       # output every 5 seconds, with timestamps\n"
	       "    funccount -d 10 'vfs_*'       # trace for 10 seconds only\n"
	       "    funccount -p 185 'vfs_*'      # count vfs calls for PID 185 only\n"
	       "    funccount t:sched:sched_fork  # count calls to the sched_fork tracepoint\n"
	       "    funccount 'syscall:read*'     # count read system calls, no kprobes needed\n"
	       "    funccount -p 185 u:node:gc*   # count all GC USDT probes in node, PID 185\n"
	       "    funccount c:malloc            # count all malloc() calls in libc\n"
	       "    funccount go:os.*             # count all \"os.*\" calls in libgo\n"
	       "    funccount -p 185 go:os.*      # count all \"os.*\" calls in libgo, PID 185\n"
	       "    funccount ./test:read*        # count \"read*\" calls in the ./test binary\n"
	       "    funccount -c 1 'vfs_*'        # count vfs calls on CPU 1 only\n"
	       "    funccount --json -i 1 c:malloc   # one line of JSON per second",
};

struct row {
	const char *name;
	uint64_t count;
	size_t first; /* lowest target index: ties keep target order, as BCC's stable sort */
};

struct state {
	struct bt_summary *counts; /* per target: what each interval added */
	size_t nrows;
	size_t *row_of; /* target -> row: targets of one name share a row */
	struct row *rows;
};

static int cmp_name_idx(const void *a, const void *b, void *arg)
{
	const struct bt_targets *t = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(t->v[x].name, t->v[y].name);

	return c ? c : (x < y ? -1 : 1);
}

/*
 * Rows by name: kernel functions with compiler copies ("foo" and "foo.isra.0") and user
 * functions with several definitions (static functions, symbol versions) print once, summed.
 */
static int build_rows(struct state *s, const struct bt_targets *t)
{
	size_t *order, i;

	order = calloc(t->n, sizeof(*order));
	s->row_of = calloc(t->n, sizeof(*s->row_of));
	s->rows = calloc(t->n, sizeof(*s->rows));
	if (!order || !s->row_of || !s->rows) {
		free(order);
		return -ENOMEM;
	}
	for (i = 0; i < t->n; i++)
		order[i] = i;
	qsort_r(order, t->n, sizeof(*order), cmp_name_idx, (void *)t);
	for (i = 0; i < t->n; i++) {
		size_t ti = order[i];

		if (!i || strcmp(t->v[ti].name, s->rows[s->nrows - 1].name)) {
			s->rows[s->nrows].name = t->v[ti].name;
			s->rows[s->nrows].first = ti;
			s->nrows++;
		} else if (ti < s->rows[s->nrows - 1].first) {
			s->rows[s->nrows - 1].first = ti;
		}
		s->row_of[ti] = s->nrows - 1;
	}
	free(order);
	return 0;
}

static void free_rows(struct state *s)
{
	free(s->row_of);
	free(s->rows);
	bt_summary__free(s->counts);
}

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

/* One line per interval: {"ts", "val_type": "count", "functions": [{"function", "count"}]}. */
static void print_json(const struct row *rows, size_t n)
{
	struct bt_json j;
	size_t i;

	bt_summary_json_begin(&j, stdout, "count");
	bt_json_begin_array(&j, "functions");
	for (i = 0; i < n; i++) {
		if (!rows[i].count)
			continue;
		bt_json_begin_object(&j, NULL);
		bt_json_string(&j, "function", rows[i].name);
		bt_json_uint(&j, "count", rows[i].count);
		bt_json_end_object(&j);
	}
	bt_json_end_array(&j);
	bt_summary_json_end(&j);
}

static int print_counts(void *ctx)
{
	struct state *s = ctx;
	struct row *sorted;
	size_t i;
	int err;

	err = bt_summary__collect(s->counts);
	if (err)
		return err;
	for (i = 0; i < s->nrows; i++)
		s->rows[i].count = 0;
	for (i = 0; i < bt_summary__len(s->counts); i++)
		s->rows[s->row_of[*(const __u32 *)bt_summary__key(s->counts, i)]].count +=
			bt_summary__value(s->counts, i)[0];
	sorted = malloc(s->nrows * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, s->rows, s->nrows * sizeof(*sorted));
	qsort(sorted, s->nrows, sizeof(*sorted), cmp_row);

	if (bt_json_mode()) {
		print_json(sorted, s->nrows);
		free(sorted);
		return 0;
	}
	bt_print_interval_head(opts.timestamp);
	printf("%-36s %8s\n", "FUNC", "COUNT");
	for (i = 0; i < s->nrows; i++)
		if (sorted[i].count)
			printf("%-36s %8llu\n", sorted[i].name,
			       (unsigned long long)sorted[i].count);
	free(sorted);
	return 0;
}

/* a count per target, only ever added to: each interval prints what it gained */
static const struct bt_summary_opts counts_opts = {
	.key_size = sizeof(__u32),
	.value_size = sizeof(__u64),
	.what = "counters",
};

/* A run: its pattern's targets attached, and their counts as rows. */
struct run {
	const char *spec;
	struct bt_targets targets;
	struct bt_attach *attach;
	struct funccount_bpf *skel;
	struct state s;
};

static void stop(void *run)
{
	struct run *r = run;

	/* links before the object: every probe is gone before the programs are unloaded */
	bt_attach__destroy(r->attach);
	funccount_bpf__destroy(r->skel);
	free_rows(&r->s);
	bt_targets__free(&r->targets);
}

static int start(struct run *r, const char *pattern, const struct bt_common_opts *c, bool regex,
		 long cpu, bool running)
{
	struct bt_resolve_opts ropts = bt_common_resolve(c, regex);
	struct bt_filters filters = { .cpu = cpu, .tgid = c->pid };
	struct bt_summary_opts so = counts_opts;
	int err;

	so.running = running;
	r->spec = pattern;
	err = bt_targets__from_pattern(pattern, &ropts, &r->targets);
	if (err < 0)
		return err;
	err = build_rows(&r->s, &r->targets) ?: BT_SKEL_OPEN(funccount, &r->skel);
	if (err)
		return err;
	err = bpf_map__set_max_entries(r->skel->maps.counts, r->targets.n);
	if (err) {
		bt_err("cannot size the counters for %zu targets: %s", r->targets.n,
		       strerror(-err));
		return err;
	}
	return bt_trace__load(r->skel->skeleton, &r->targets, &filters, c->mode, &r->attach)
		       ?: bt_summary__open(&r->s.counts, bpf_map__fd(r->skel->maps.counts), &so);
}

static int run(const struct bt_cmd *cmd)
{
	struct bt_interval iv = bt_interval_every(opts.c.interval, opts.c.duration);
	struct run r = { 0 };
	int err;

	(void)cmd;
	err = start(&r, opts.pattern, &opts.c, opts.regex, opts.cpu, false);
	if (!err)
		err = bt_trace__run(r.targets.n, opts.pattern, &iv, print_counts, &r.s);
	stop(&r);
	return err;
}

/*
 * The exporter's `--funccount SPEC`: SPEC is a pattern as above, with the defaults of every
 * option (all processes, --max-probes 1000, the attach layer's mechanism), counted for the
 * exporter's life: every function of the pattern, 0 included (a series there from the start
 * rates well), a target's count in its name's row.
 */
static int collector_start(void *run, const char *spec)
{
	static const struct bt_common_opts defaults = BT_COMMON_OPTS_INIT;

	return start(run, spec, &defaults, false, -1, true);
}

static int by_row(const void *a, const void *b, void *run)
{
	const size_t *row_of = ((const struct run *)run)->s.row_of;
	size_t x = row_of[*(const __u32 *)a], y = row_of[*(const __u32 *)b];

	return x < y ? -1 : x > y;
}

static void function(void *run, const void *key, struct bt_labels *l)
{
	const struct run *r = run;

	l->v[0] = r->spec;
	l->v[1] = r->s.rows[r->s.row_of[*(const __u32 *)key]].name;
}

static int every_row(void *run, struct bt_keys *k)
{
	const struct run *r = run;
	size_t i;
	int err = 0;

	for (i = 0; !err && i < r->s.nrows; i++)
		err = bt_keys_add(k, &(__u32){ (__u32)r->s.rows[i].first });
	return err;
}

static const struct bt_collector collector = {
	.help = "calls per function of a probe spec (--funccount SPEC, repeatable)",
	.flags = BT_COLLECT_SPEC,
	BT_COLLECTOR_RUN(struct run, s.counts, collector_start, stop),
	.labels = { "spec", "function" },
	.label = function,
	.cmp = by_row,
	.merge = true,
	.zeros = every_row,
	.families = (const struct bt_family[]){ { "bpftools_funccount_calls", BT_PROM_COUNTER,
						  "Calls of each function, tracepoint or USDT "
						  "probe of a --funccount spec." },
						{ NULL } },
};

BT_COMMAND(funccount) = {
	.name = "funccount",
	.summary = "Count functions, tracepoints, and USDT probes",
	.argp = &argp,
	.opts = &opts,
	.vals = &vals,
	.run = run,
	.flags = BT_NEED_PRIV,
	.uses = BT_USES_KFUNC | BT_USES_TRACEPOINT | BT_USES_UPROBE,
	.collector = &collector,
};
