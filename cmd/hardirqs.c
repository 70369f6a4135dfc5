// SPDX-License-Identifier: GPL-2.0
/* hardirqs: summarize hard IRQ handler time (or counts) per handler name, as BCC's hardirqs. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_args.h"
#include "bt_cmd.h"
#include "bt_collector.h"
#include "bt_err.h"
#include "bt_irq_opts.h"
#include "bt_json.h"
#include "bt_skel.h"
#include "bt_summary.h"
#include "hardirqs.h"
#include "hardirqs.skel.h"

static struct bt_irq_opts opts = BT_IRQ_OPTS_INIT("--count");

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct bt_irq_opts *o = state->input;

	/* BCC calls the second one "outputs"; the interval is the shared block's */
	if (key == ARGP_KEY_ARG && o->iv.nargs == 1) {
		o->iv.nargs++;
		return bt_argp_ulong(state, arg, "number of outputs", 1, ULONG_MAX, &o->iv.count);
	}
	return bt_argp_to_child(key, arg, state);
}

static const struct argp argp = {
	.parser = parse_opt,
	.children = BT_ARGP_CHILDREN(bt_irq_argp),
	.args_doc = "[interval [outputs]]",
	.doc = "Summarize hard irq event time as histograms.\v"
	       "examples:\n"
	       "    hardirqs            # sum hard irq event time\n"
	       "    hardirqs -d         # show hard irq event time as histograms\n"
	       "    hardirqs 1 10       # print 1 second summaries, 10 times\n"
	       "    hardirqs -NT 1      # 1s summaries, nanoseconds, and timestamps\n"
	       "    hardirqs -c 1       # sum hard irq event time on CPU 1 only\n"
	       "    hardirqs -C --json 5 1  # counts over 5 seconds, as JSON",
};

struct state {
	struct hardirqs_bpf *skel;
	struct bt_summary *totals, *dists;
};

/* Handler names come from the kernel: print them as they are, at most the key's 32 bytes. */
static void print_name(FILE *out, const void *key, void *ctx)
{
	const struct hardirq_key *k = key;

	(void)ctx;
	fprintf(out, "%.*s", HARDIRQ_NAME_LEN, k->name);
}

static int cmp_name(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return strncmp(((const struct hardirq_key *)a)->name, ((const struct hardirq_key *)b)->name,
		       HARDIRQ_NAME_LEN);
}

static void json_total(struct bt_json *j, const void *key, const uint64_t *val, void *ctx)
{
	const struct hardirq_total *t = (const void *)val;
	(void)ctx;

	bt_json_stringn(j, "name", ((const struct hardirq_key *)key)->name, HARDIRQ_NAME_LEN);
	bt_json_uint(j, "count", t->count);
	if (!opts.count)
		bt_json_uint(j, "total", t->time_ns / opts.unit_ns);
}

static void json_dist(struct bt_json *j, const void *key, const uint64_t *val, void *ctx)
{
	(void)val;
	(void)ctx;
	bt_json_stringn(j, "name", ((const struct hardirq_key *)key)->name, HARDIRQ_NAME_LEN);
}

static void print_row(FILE *out, const void *key, const uint64_t *val, void *ctx)
{
	const struct hardirq_total *t = (const void *)val;
	const struct hardirq_key *k = key;
	(void)ctx;

	fprintf(out, "%-26.*s %11llu\n", HARDIRQ_NAME_LEN, k->name,
		(unsigned long long)(opts.count ? t->count : t->time_ns / opts.unit_ns));
}

static int print_stats(void *ctx)
{
	const struct bt_irq_view view = {
		.list = "irqs",
		.json_row = opts.dist ? json_dist : json_total,
		.section = "hardirq",
		.key_name = print_name,
		.key_cmp = cmp_name,
		.by = { offsetof(struct hardirq_total, time_ns) / 8,
			offsetof(struct hardirq_total, count) / 8 },
		.column = "HARDIRQ",
		.width = 26,
		.print_row = print_row, /* BCC's "%-26s %11d" */
	};
	struct state *s = ctx;

	return bt_irq_print(&opts, opts.dist ? s->dists : s->totals, &view, s);
}

static const struct bt_probe probes[] = {
	{ "irq_entry_btf", "irq_entry_raw", "int, struct irqaction *" },
	{ "irq_exit_btf", "irq_exit_raw", "int, struct irqaction *, int" },
	{ NULL },
};

static void stop(void *run)
{
	struct state *s = run;

	bt_summary__free(s->dists);
	bt_summary__free(s->totals);
	hardirqs_bpf__destroy(s->skel);
}

/* The maps hold running totals: bt_summary reports each interval's growth, or (running) all. */
static int start(struct state *s, struct bt_irq_opts *o, bool running)
{
	const struct bt_summary_opts totals_opts = {
		BT_SUMMARY_ROWS(struct hardirq_key, struct hardirq_total),
		.running = running,
		.what = "irq counters",
	};
	const struct bt_summary_opts dists_opts = {
		BT_SUMMARY_LOG2_ROWS(struct hardirq_key, struct hardirq_dist, slots, HARDIRQ_SLOTS),
		.what = "irq counters",
	};
	int err;

	err = BT_SKEL_OPEN(hardirqs, &s->skel);
	if (err)
		return err;
	err = bpf_map__set_max_entries(s->skel->maps.dists, o->dist ? HARDIRQ_MAX_NAMES : 1);
	if (err) {
		bt_err("cannot size the maps: %s", strerror(-err));
		return err;
	}
	return bt_irq_start(s->skel->skeleton, o, probes, "irq:irq_handler_entry/exit") ?:
	       bt_summary__open(&s->totals, bpf_map__fd(s->skel->maps.totals), &totals_opts) ?:
	       (running ? 0 :
			  bt_summary__open(&s->dists, bpf_map__fd(s->skel->maps.dists), &dists_opts));
}

static int run(const struct bt_cmd *cmd)
{
	struct state s = { 0 };
	int err;

	(void)cmd;
	err = bt_irq_run(&opts, start(&s, &opts, false), "hard irq", print_stats, &s);
	if (!err && s.skel->bss->lost)
		bt_warn("%llu interrupts not counted: more than %d handler names",
			(unsigned long long)s.skel->bss->lost, HARDIRQ_MAX_NAMES);
	stop(&s);
	return err;
}

/* The exporter's: time and runs per handler name since the start. */
BT_COLLECTOR_START(collector_start,
		   start(run, &(struct bt_irq_opts)BT_IRQ_OPTS_INIT("--count"), true))

static const struct bt_collector collector = {
	.help = "hard IRQ time and runs per handler",
	.flags = BT_COLLECT_DEFAULT,
	BT_COLLECTOR_RUN(struct state, totals, collector_start, stop),
	.labels = { "handler" },
	.label = bt_label_key_string,
	.cmp = cmp_name,
	.zeros = bt_irq_name_keys,
	.max_zeros = HARDIRQ_MAX_NAMES, /* as many as the probe's map holds */
	.families = {
		{ "bpftools_hardirq_seconds", BT_PROM_COUNTER,
		  "Time spent in hard IRQ handlers, per handler name.",
		  BT_FIELD(struct hardirq_total, time_ns), 1e9 },
		{ "bpftools_hardirqs", BT_PROM_COUNTER, "Hard IRQ handler runs, per handler name.",
		  BT_FIELD(struct hardirq_total, count) },
	},
};

BT_TOOL_COMMAND(hardirqs, "Summarize hard IRQ event time per handler", .probes = probes,
		.uses = BT_USES_TP_BTF, .collector = &collector);
