// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "bt_collector.h"
#include "bt_err.h"
#include "bt_irq.h"
#include "bt_irq_opts.h"
#include "bt_loop.h"
#include "hardirqs.h"

static const struct argp_option options[] = {
	{ "nanoseconds", 'N', NULL, 0, "Output in nanoseconds", 0 },
	{ "count", 'C', NULL, 0, "Show event counts instead of timing", 0 },
	{ "dist", 'd', NULL, 0, "Show distributions as histograms", 0 },
	{ NULL },
};

/* -T, -c CPU, --json */
static const struct argp_child children[] = {
	BT_ARGP_CHILD(bt_argp_timestamp),
	BT_ARGP_CHILD(bt_argp_cpu),
	BT_ARGP_CHILD(bt_argp_json),
	{ NULL },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct bt_irq_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		o->vals = (struct bt_opt_vals){
			.timestamp = &o->timestamp,
			.cpu = &o->cpu,
			.json = &o->json,
		};
		bt_argp_vals_init(state, &bt_irq_argp, &o->vals);
		break;
	case 'N':
		o->nanoseconds = true;
		break;
	case 'C':
		o->count = true;
		break;
	case 'd':
		o->dist = true;
		break;
	case ARGP_KEY_ARG:
		return bt_argp_interval_arg(state, arg, &o->iv);
	case ARGP_KEY_END:
		if (o->count && (o->dist || o->nanoseconds))
			return bt_argp_error(state, "-C/%s cannot be used with -d or -N",
					     o->count_name);
		if (o->count) {
			o->unit = "count";
			o->unit_ns = 1;
		} else if (o->nanoseconds) {
			o->unit = "nsecs";
			o->unit_ns = 1;
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp bt_irq_argp = {
	.options = options,
	.parser = parse_opt,
	.children = children,
};

int bt_irq_start(struct bpf_object_skeleton *skel, const struct bt_irq_opts *o,
		 const struct bt_probe *probes, const char *what)
{
	struct bt_filters filters = { .cpu = o->cpu };
	__u64 unit_ns = o->unit_ns;
	int err;

	err = bt_rodata_set(*skel->obj, "count_only", &o->count, sizeof(bool));
	if (!err)
		err = bt_rodata_set(*skel->obj, "want_dist", &o->dist, sizeof(bool));
	if (!err)
		err = bt_rodata_set(*skel->obj, "hist_unit_ns", &unit_ns, sizeof(unit_ns));
	if (err) {
		bt_err("cannot set up the BPF programs: %s", strerror(-err));
		return err;
	}
	return bt_skel_start(skel, &filters, probes, what);
}

int bt_irq_run(const struct bt_irq_opts *o, int err, const char *what, bt_print_fn print, void *ctx)
{
	if (err)
		return err;
	/* JSON readers get JSON only on stdout: the banner is an info line on stderr */
	bt_banner(stdout, "Tracing %s %s... Hit Ctrl-C to end.\n", what,
		  o->count ? "events" : "event time");
	return bt_interval_run(&o->iv, print, ctx);
}

int bt_irq_print(const struct bt_irq_opts *o, struct bt_summary *sum, const struct bt_irq_view *v,
		 void *ctx)
{
	int err = bt_summary__collect(sum);

	if (err)
		return err;
	if (o->dist)
		bt_summary__sort_by_key(sum, v->key_cmp, NULL, false);
	else
		bt_summary__sort_by_value(sum, v->by[o->count], true);
	if (o->json) {
		bt_summary__json_line(sum, stdout, o->unit, v->list, v->json_row, ctx);
		return 0;
	}
	bt_print_interval_head(o->timestamp);
	if (o->dist)
		return bt_summary__print_hists(sum, stdout, v->section, v->key_name, NULL, o->unit);
	/* every unit is five letters ("usecs", "nsecs", "count"): BCC's TOTAL_usecs column */
	printf("%-*s TOTAL_%s\n", v->width, v->column, o->unit);
	return bt_summary__print_rows(sum, stdout, v->print_row, ctx);
}

static int add_name(void *ctx, unsigned int irq, const char *name)
{
	char key[HARDIRQ_NAME_LEN] = { 0 };

	(void)irq;
	/*
	 * An action without a name reads "(null)" in sysfs, and "" in the probe (its name read
	 * fails): its zero series would be a second one, named as no run of it is.
	 */
	if (!strcmp(name, "(null)"))
		return 0;
	/* the probe's copy, a C string in the key: the same label, however long the name */
	snprintf(key, sizeof(key), "%s", name);
	return bt_keys_add(ctx, key);
}

int bt_irq_name_keys(void *run, struct bt_keys *k)
{
	(void)run;
	bt_irq_each_action(add_name, k);
	return 0;
}
