/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What hardirqs and softirqs share: BCC's -T -N -C -d -c and --json as one argp child (-T, -c
 * and --json the shared blocks of lib/cli/bt_args.h), the unit they imply, the options written
 * into the programs, and the banner.
 *
 *	static struct bt_irq_opts opts = BT_IRQ_OPTS_INIT("--count");
 *	static const struct argp argp = { .parser = bt_argp_to_child,
 *					  .children = BT_ARGP_CHILDREN(bt_irq_argp), ... };
 */
#ifndef BT_IRQ_OPTS_H
#define BT_IRQ_OPTS_H

#include <argp.h>
#include <stdbool.h>

#include "bt_args.h"
#include "bt_loop.h"
#include "bt_skel.h"
#include "bt_summary.h"

struct bt_irq_opts {
	bool timestamp, nanoseconds, count, dist, json;
	long cpu;		/* -c; -1: every CPU */
	struct bt_interval iv;	/* the positional [interval [count]] */
	const char *count_name; /* -C's long name in the command's words, for messages */
	/* set once parsing is done: */
	const char *unit;	    /* "usecs", "nsecs" or "count" */
	unsigned long long unit_ns; /* nanoseconds a printed unit holds (1 for counts) */
	struct bt_opt_vals vals;    /* the shared blocks' places in this (-T, -c, --json) */
};
#define BT_IRQ_OPTS_INIT(count_long_name)                                         \
	{                                                                         \
		.cpu = -1, .iv = { .interval = BT_FOREVER, .count = BT_FOREVER }, \
		.count_name = count_long_name, .unit = "usecs", .unit_ns = 1000   \
	}

/* -T -N -C/--count -d -c CPU --json, and the positionals [interval [count]]. */
extern const struct argp bt_irq_argp;

/*
 * From the opened skeleton to tracing: -C, -d and the unit in the read-only data both probes
 * declare (count_only, want_dist, hist_unit_ns), -c as the CPU filter, then bt_skel_start()
 * (probes, what for the message). 0 or -errno, said on stderr.
 */
int bt_irq_start(struct bpf_object_skeleton *skel, const struct bt_irq_opts *o,
		 const struct bt_probe *probes, const char *what);

/*
 * A started tool's run (err: its start's result, returned as it is when not 0): "Tracing soft
 * irq event time... Hit Ctrl-C to end." (what: "soft irq"; on stderr in JSON mode), then
 * print(ctx) every interval of o->iv. 0 or -errno.
 */
int bt_irq_run(const struct bt_irq_opts *o, int err, const char *what, bt_print_fn print,
	       void *ctx);

/* How an irq tool shows its rows: what differs between hardirqs and softirqs. */
struct bt_irq_view {
	const char *list;	     /* --json: the rows' member ("irqs") */
	bt_summary_json_fn json_row; /* --json: a row's members */
	const char *section;	     /* -d: what a histogram is of ("hardirq") */
	bt_summary_name_fn key_name; /* -d: a histogram's name */
	bt_summary_cmp_fn key_cmp;   /* -d: the histograms' order (NULL: the keys as numbers) */
	size_t by[2]; /* the totals' order: the u64 sorted by, largest first (without -C, with) */
	const char *column;	     /* the totals' first column ("HARDIRQ") */
	int width;		     /* ... and its width */
	bt_summary_row_fn print_row; /* a total's row, as wide */
};
/*
 * An interval of sum, collected and sorted (-d: by key, else by the total, largest first), as
 * BCC's tools print it: one JSON line, or the interval's head and then the histograms (-d) or
 * the totals under their header. 0 or -errno.
 */
int bt_irq_print(const struct bt_irq_opts *o, struct bt_summary *sum, const struct bt_irq_view *v,
		 void *ctx);

/*
 * hardirqs' collector (lib/output/bt_collector.h): every handler sysfs has as a key at 0 (a
 * name of HARDIRQ_NAME_LEN bytes, as the probe keys it), read at each scrape, as handlers come
 * and go with their drivers.
 */
struct bt_keys;
int bt_irq_name_keys(void *run, struct bt_keys *k);

#endif
