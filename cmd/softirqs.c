// SPDX-License-Identifier: GPL-2.0
/* softirqs: summarize soft IRQ time (or counts) per vector, as BCC's softirqs does. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "bt_args.h"
#include "bt_cmd.h"
#include "bt_collector.h"
#include "bt_hist.h"
#include "bt_irq_opts.h"
#include "bt_json.h"
#include "bt_summary.h"
#include "bt_skel.h"
#include "softirqs.h"
#include "softirqs.skel.h"

static struct bt_irq_opts opts = BT_IRQ_OPTS_INIT("--events");

/* kernel/softirq.c softirq_to_name[] */
static const char *const vec_names[SOFTIRQ_VECS] = {
	"hi",	    "timer",   "net_tx", "net_rx",  "block",
	"irq_poll", "tasklet", "sched",	 "hrtimer", "rcu",
};

enum {
	OPT_EVENTS = 0x100,
};

/* BCC's softirqs calls -C --events; the shared block names it --count, as hardirqs does */
static const struct argp_option options[] = {
	{ "events", OPT_EVENTS, NULL, 0, "Show the number of soft irq events (-C)", 0 },
	{ NULL },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	if (key != OPT_EVENTS)
		return bt_argp_to_child(key, arg, state);
	((struct bt_irq_opts *)state->input)->count = true;
	return 0;
}

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.children = BT_ARGP_CHILDREN(bt_irq_argp),
	.args_doc = "[interval [count]]",
	.doc = "Summarize soft irq event time as histograms.\v"
	       "examples:\n"
	       "    softirqs            # sum soft irq event time\n"
	       "    softirqs -C         # show the number of soft irq events\n"
	       "    softirqs -d         # show soft irq event time as histograms\n"
	       "    softirqs 1 10       # print 1 second summaries, 10 times\n"
	       "    softirqs -NT 1      # 1s summaries, nanoseconds, and timestamps\n"
	       "    softirqs -c 1       # sum soft irq event time on CPU 1 only\n"
	       "    softirqs -C --json 5 1  # counts over 5 seconds, as JSON",
};

struct state {
	struct softirqs_bpf *skel;
	struct bt_summary *sum;
};

static void print_vec(FILE *out, const void *key, void *ctx)
{
	(void)ctx;
	fputs(vec_names[*(const __u32 *)key], out);
}

static void json_row(struct bt_json *j, const void *key, const uint64_t *val, void *ctx)
{
	const struct softirq_stat *st = (const void *)val;
	(void)ctx;

	bt_json_string(j, "name", vec_names[*(const __u32 *)key]);
	if (opts.dist)
		return; /* the histogram follows */
	bt_json_uint(j, "count", st->count);
	if (!opts.count)
		bt_json_uint(j, "total", st->total_ns / opts.unit_ns);
}

static void print_row(FILE *out, const void *key, const uint64_t *val, void *ctx)
{
	const struct softirq_stat *st = (const void *)val;
	(void)ctx;

	fprintf(out, "%-16s %11llu\n", vec_names[*(const __u32 *)key],
		(unsigned long long)(st->total_ns / opts.unit_ns));
}

static int print_stats(void *ctx)
{
	static const struct bt_irq_view view = {
		.list = "softirqs",
		.json_row = json_row,
		.section = "softirq",
		.key_name = print_vec, /* -d: in vector order (no key_cmp), as totals' ties */
		/* -C counts in total_ns too, as BCC's probe does */
		.by = { offsetof(struct softirq_stat, total_ns) / 8,
			offsetof(struct softirq_stat, total_ns) / 8 },
		.column = "SOFTIRQ",
		.width = 16,
		.print_row = print_row, /* BCC's "%-16s %11d" */
	};
	struct state *s = ctx;

	return bt_irq_print(&opts, s->sum, &view, s);
}

static const struct bt_probe probes[] = {
	{ "softirq_entry_btf", "softirq_entry_raw" },
	{ "softirq_exit_btf", "softirq_exit_raw" },
	{ NULL },
};

static void stop(void *run)
{
	struct state *s = run;

	bt_summary__free(s->sum);
	softirqs_bpf__destroy(s->skel);
}

/* The map holds running totals: bt_summary reports each interval's growth, or (running) all. */
static int start(struct state *s, struct bt_irq_opts *o, bool running)
{
	const struct bt_summary_opts sum_opts = {
		.key_size = sizeof(__u32),
		.value_size = sizeof(struct softirq_stat),
		.hist = o->dist ? BT_SUMMARY_LOG2 : BT_SUMMARY_NONE,
		.hist_off = offsetof(struct softirq_stat, slots) / 8,
		.nslots = SOFTIRQ_SLOTS,
		.running = running,
		.what = "softirq counters",
	};

	return BT_SKEL_OPEN(softirqs, &s->skel) ?:
	       bt_irq_start(s->skel->skeleton, o, probes, "irq:softirq_entry/exit") ?:
	       bt_summary__open(&s->sum, bpf_map__fd(s->skel->maps.stats), &sum_opts);
}

static int run(const struct bt_cmd *cmd)
{
	struct state s = { 0 };
	int err;

	(void)cmd;
	err = bt_irq_run(&opts, start(&s, &opts, false), "soft irq", print_stats, &s);
	stop(&s);
	return err;
}

/* The exporter's: time and runs per vector since the start, every vector always shown. */
BT_COLLECTOR_START(collector_start,
		   start(run, &(struct bt_irq_opts)BT_IRQ_OPTS_INIT("--events"), true))

static const struct bt_collector collector = {
	.help = "soft IRQ time and runs per vector",
	.flags = BT_COLLECT_DEFAULT,
	BT_COLLECTOR_RUN(struct state, sum, collector_start, stop),
	.labels = { "vector" },
	.names = vec_names,
	.index_keys = SOFTIRQ_VECS,
	.families = {
		{ "bpftools_softirq_seconds", BT_PROM_COUNTER,
		  "Time spent in soft IRQ handlers, per vector.",
		  BT_FIELD(struct softirq_stat, total_ns), 1e9 },
		{ "bpftools_softirqs", BT_PROM_COUNTER, "Soft IRQ handler runs, per vector.",
		  BT_FIELD(struct softirq_stat, count) },
	},
};

BT_TOOL_COMMAND(softirqs, "Summarize soft IRQ event time per vector", .probes = probes,
		.uses = BT_USES_TP_BTF, .collector = &collector);
