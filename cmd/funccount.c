// SPDX-License-Identifier: GPL-2.0
/* funccount: count kernel functions, user functions, tracepoints and USDT probes, as BCC's. */
#include <errno.h>
#include <stddef.h>
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
	BT_COMMON_VALS(opts.c), .timestamp = &opts.timestamp,  .regex = &opts.regex,
	.cpu = &opts.cpu,	BT_ARGP_PATTERN(opts.pattern),
};

static const struct argp argp = {
	.parser = bt_argp_own,
	.children = BT_ARGP_CHILDREN(bt_argp_pid, bt_argp_interval, bt_argp_duration, bt_argp_cpu,
				     bt_argp_timestamp, bt_argp_regexp, bt_argp_attach,
				     bt_argp_max_probes, bt_argp_json, bt_argp_debug_D),
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

/* A run: its pattern's targets (first: the shared rows' callbacks take the run), their counts. */
struct run {
	struct bt_target_rows rows; /* by name: targets of one name print as one row, summed */
	struct bt_summary *counts;  /* per target: what each interval added */
	struct bt_targets targets;
	struct bt_attach *attach;
	struct funccount_bpf *skel;
};
_Static_assert(offsetof(struct run, rows) == 0,
	       "bt_target_rows' callbacks take the run as its rows");

/* BCC's order: fewest calls first, ties in target order (its stable sort) */
static int cmp_count(const void *ka, const uint64_t *va, const void *kb, const uint64_t *vb,
		     void *run)
{
	const size_t *row_of = ((const struct run *)run)->rows.row_of;
	size_t x = row_of[*(const __u32 *)ka], y = row_of[*(const __u32 *)kb];

	if (va[0] != vb[0])
		return va[0] < vb[0] ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* One line per interval: {"ts", "val_type": "count", "functions": [{"function", "count"}]}. */
static void json_row(struct bt_json *j, const void *key, const uint64_t *val, void *run)
{
	bt_json_string(j, "function", bt_target_rows__name(run, *(const __u32 *)key));
	bt_json_uint(j, "count", val[0]);
}

static void print_row(FILE *out, const void *key, const uint64_t *val, void *run)
{
	fprintf(out, "%-36s %8llu\n", bt_target_rows__name(run, *(const __u32 *)key),
		(unsigned long long)val[0]);
}

static int print_counts(void *ctx)
{
	struct run *r = ctx;
	int err;

	err = bt_summary__collect(r->counts);
	if (err)
		return err;
	bt_summary__sort_by_key(r->counts, bt_target_rows_cmp, r, true);
	bt_summary__sort(r->counts, cmp_count, r);
	if (bt_json_mode()) {
		bt_summary__json_line(r->counts, stdout, "count", "functions", json_row, r);
		return 0;
	}
	bt_print_interval_head(opts.timestamp);
	printf("%-36s %8s\n", "FUNC", "COUNT");
	bt_summary__print_rows(r->counts, stdout, print_row, r);
	return 0;
}

/* a count per target, only ever added to: each interval prints what it gained */
static const struct bt_summary_opts counts_opts = {
	BT_SUMMARY_ROWS(__u32, __u64),
	.what = "counters",
};

static void stop(void *run)
{
	struct run *r = run;

	/* links before the object: every probe is gone before the programs are unloaded */
	bt_attach__destroy(r->attach);
	funccount_bpf__destroy(r->skel);
	bt_summary__free(r->counts);
	bt_target_rows__free(&r->rows);
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
	r->rows.spec = pattern;
	r->rows.by_name = true;
	err = bt_targets__from_pattern(pattern, &ropts, &r->targets);
	if (err < 0)
		return err;
	err = bt_target_rows__init(&r->rows, &r->targets, r->targets.n)
		      ?: BT_SKEL_OPEN(funccount, &r->skel);
	if (err)
		return err;
	err = bpf_map__set_max_entries(r->skel->maps.counts, r->targets.n);
	if (err) {
		bt_err("cannot size the counters for %zu targets: %s", r->targets.n,
		       strerror(-err));
		return err;
	}
	return bt_trace__load(r->skel->skeleton, &r->targets, &filters, c->mode, &r->attach)
		       ?: bt_summary__open(&r->counts, bpf_map__fd(r->skel->maps.counts), &so);
}

static int run(const struct bt_cmd *cmd)
{
	struct bt_interval iv = bt_interval_every(opts.c.interval, opts.c.duration);
	struct run r = { 0 };
	int err;

	(void)cmd;
	err = start(&r, opts.pattern, &opts.c, opts.regex, opts.cpu, false);
	if (!err)
		err = bt_trace__run(r.targets.n, opts.pattern, &iv, print_counts, &r);
	stop(&r);
	return err;
}

/*
 * The exporter's `--funccount SPEC`: SPEC is a pattern as above, with the defaults of every
 * option (all processes, --max-probes 1000, the attach layer's mechanism), counted for the
 * exporter's life: every function of the pattern, 0 included (a series there from the start
 * rates well), a target's count in its name's row.
 */
BT_COLLECTOR_START(collector_start,
		   start(run, spec, &(const struct bt_common_opts)BT_COMMON_OPTS_INIT, false, -1,
			 true))

static const struct bt_collector collector = {
	.help = "calls per function of a probe spec (--funccount SPEC, repeatable)",
	.flags = BT_COLLECT_SPEC,
	BT_COLLECTOR_RUN(struct run, counts, collector_start, stop),
	BT_TARGET_ROWS_SERIES(bt_target_rows_cmp),
	.families = {
		{ "bpftools_funccount_calls", BT_PROM_COUNTER,
		  "Calls of each function, tracepoint or USDT probe of a --funccount spec." },
	},
};

BT_TOOL_COMMAND(funccount, "Count functions, tracepoints, and USDT probes", .vals = &vals,
		.uses = BT_USES_KFUNC | BT_USES_TRACEPOINT | BT_USES_UPROBE,
		.pattern = BT_PATTERN_ANY, .collector = &collector);
