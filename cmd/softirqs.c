// SPDX-License-Identifier: GPL-2.0
/* softirqs: summarize soft IRQ time (or counts) per vector, as BCC's softirqs does. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "bt_args.h"
#include "bt_cmd.h"
#include "bt_hist.h"
#include "bt_irq_opts.h"
#include "bt_json.h"
#include "bt_loop.h"
#include "bt_prom.h"
#include "bt_summary.h"
#include "bt_skel.h"
#include "softirqs.h"
#include "softirqs.skel.h"

static struct softirqs_opts {
	struct bt_irq_opts irq;
} opts = { .irq = BT_IRQ_OPTS_INIT("--events") };

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
	struct softirqs_opts *o = state->input;

	(void)arg;
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->irq;
		break;
	case OPT_EVENTS:
		o->irq.count = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {
	{ &bt_irq_argp, 0, NULL, 0 },
	{ NULL },
};

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.children = children,
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
	if (opts.irq.dist)
		return; /* the histogram follows */
	bt_json_uint(j, "count", st->count);
	if (!opts.irq.count)
		bt_json_uint(j, "total", st->total_ns / opts.irq.unit_ns);
}

/* BCC's "%-16s %11d" row */
static void print_row(FILE *out, const void *key, const uint64_t *val, void *ctx)
{
	const struct softirq_stat *st = (const void *)val;
	(void)ctx;

	fprintf(out, "%-16s %11llu\n", vec_names[*(const __u32 *)key],
		(unsigned long long)(st->total_ns / opts.irq.unit_ns));
}

static int print_stats(void *ctx)
{
	struct state *s = ctx;
	int err;

	err = bt_summary__collect(s->sum);
	if (err)
		return err;
	if (opts.irq.dist) /* vector order */
		bt_summary__sort_by_key(s->sum, NULL, NULL, false);
	else /* ties keep vector order */
		bt_summary__sort_by_value(s->sum, offsetof(struct softirq_stat, total_ns) / 8,
					  true);
	if (opts.irq.json) {
		struct bt_json j;

		bt_summary_json_begin(&j, stdout, opts.irq.unit);
		bt_summary__json(s->sum, &j, "softirqs", json_row, s);
		bt_summary_json_end(&j);
		return 0;
	}
	bt_print_interval_head(opts.irq.timestamp);
	if (opts.irq.dist)
		return bt_summary__print_hists(s->sum, stdout, "softirq", print_vec, NULL,
					       opts.irq.unit);
	printf("%-16s TOTAL_%5s\n", "SOFTIRQ", opts.irq.unit);
	return bt_summary__print_rows(s->sum, stdout, print_row, s);
}

static int run(const struct bt_cmd *cmd)
{
	struct softirqs_bpf *skel;
	struct state s = { 0 };
	/* the map holds running totals; bt_summary reports each interval's growth */
	const struct bt_summary_opts sum_opts = {
		.key_size = sizeof(__u32),
		.value_size = sizeof(struct softirq_stat),
		.hist = opts.irq.dist ? BT_SUMMARY_LOG2 : BT_SUMMARY_NONE,
		.hist_off = offsetof(struct softirq_stat, slots) / 8,
		.nslots = SOFTIRQ_SLOTS,
		.what = "softirq counters",
	};
	int err;

	err = BT_SKEL_OPEN(softirqs, &skel);
	if (err)
		return err;
	err = bt_irq_start(skel->skeleton, &opts.irq, cmd->probes, "irq:softirq_entry/exit")
		      ?: bt_summary__open(&s.sum, bpf_map__fd(skel->maps.stats), &sum_opts);
	if (err)
		goto cleanup;
	bt_irq_banner(&opts.irq, "soft irq");
	err = bt_interval_run(&opts.irq.iv, print_stats, &s);
cleanup:
	bt_summary__free(s.sum);
	softirqs_bpf__destroy(skel);
	return err;
}

static const struct bt_probe probes[] = {
	{ "softirq_entry_btf", "softirq_entry_raw" },
	{ "softirq_exit_btf", "softirq_exit_raw" },
	{ NULL },
};

/* The exporter's: time and runs per vector since the start, every vector always shown. */
struct collector {
	struct softirqs_bpf *skel;
	struct bt_summary *sum;
};

static void collector_stop(void *state)
{
	struct collector *c = state;

	if (!c)
		return;
	bt_summary__free(c->sum);
	softirqs_bpf__destroy(c->skel);
	free(c);
}

static int collector_start(const char *spec, void **state)
{
	struct bt_irq_opts o = BT_IRQ_OPTS_INIT("--events");
	const struct bt_summary_opts sum_opts = {
		.key_size = sizeof(__u32),
		.value_size = sizeof(struct softirq_stat),
		.running = true,
		.what = "softirq counters",
	};
	struct collector *c;
	int err;

	(void)spec;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	err = BT_SKEL_OPEN(softirqs, &c->skel);
	if (!err)
		err = bt_irq_start(c->skel->skeleton, &o, probes, "irq:softirq_entry/exit")
			      ?: bt_summary__open(&c->sum, bpf_map__fd(c->skel->maps.stats),
						  &sum_opts);
	if (err) {
		collector_stop(c);
		return err;
	}
	*state = c;
	return 0;
}

static int collector_collect(void *state, struct bt_prom *p)
{
	struct collector *c = state;
	uint64_t ns[SOFTIRQ_VECS] = { 0 }, count[SOFTIRQ_VECS] = { 0 };
	size_t i;
	int err;

	err = bt_summary__collect(c->sum);
	if (err)
		return err;
	for (i = 0; i < bt_summary__len(c->sum); i++) {
		__u32 vec = *(const __u32 *)bt_summary__key(c->sum, i);
		const struct softirq_stat *st = (const void *)bt_summary__value(c->sum, i);

		if (vec < SOFTIRQ_VECS) {
			ns[vec] = st->total_ns;
			count[vec] = st->count;
		}
	}
	err = bt_prom_family(p, "bpftools_softirq_seconds", BT_PROM_COUNTER,
			     "Time spent in soft IRQ handlers, per vector.");
	for (i = 0; err >= 0 && i < SOFTIRQ_VECS; i++)
		err = bt_prom_counter(p, (const char *[]){ "vector", vec_names[i], NULL },
				      ns[i] / 1e9);
	if (err >= 0)
		err = bt_prom_family(p, "bpftools_softirqs", BT_PROM_COUNTER,
				     "Soft IRQ handler runs, per vector.");
	for (i = 0; err >= 0 && i < SOFTIRQ_VECS; i++)
		err = bt_prom_counter(p, (const char *[]){ "vector", vec_names[i], NULL },
				      (double)count[i]);
	return err < 0 ? err : 0;
}

static const struct bt_collector collector = {
	.help = "soft IRQ time and runs per vector",
	.flags = BT_COLLECT_DEFAULT,
	.start = collector_start,
	.collect = collector_collect,
	.stop = collector_stop,
};

BT_COMMAND(softirqs) = {
	.name = "softirqs",
	.summary = "Summarize soft IRQ event time per vector",
	.argp = &argp,
	.opts = &opts,
	.probes = probes,
	.run = run,
	.flags = BT_NEED_PRIV,
	.uses = BT_USES_TP_BTF,
	.collector = &collector,
};
