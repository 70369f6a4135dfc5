// SPDX-License-Identifier: GPL-2.0
/* biolatency: block I/O latency as log2 histograms, as BCC's biolatency (plus -c from libbpf-tools). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_args.h"
#include "bt_block.h"
#include "bt_block_probes.h"
#include "bt_cmd.h"
#include "bt_disk.h"
#include "bt_err.h"
#include "bt_hist.h"
#include "bt_inflight.h"
#include "bt_json.h"
#include "bt_loop.h"
#include "bt_prom.h"
#include "bt_skel.h"
#include "bt_summary.h"
#include "biolatency.h"
#include "biolatency.skel.h"

static struct biolatency_opts {
	bool timestamp;
	bool queued;
	bool milliseconds;
	bool disks;
	bool flags;
	bool extension;
	bool json;
	const char *disk;
	const char *cgroup;
	struct bt_interval iv;
} opts = { .iv = { .interval = BT_FOREVER, .count = BT_FOREVER } };

static const struct bt_opt_vals vals = {
	.timestamp = &opts.timestamp,
	.milliseconds = &opts.milliseconds,
	.json = &opts.json,
	.disk = &opts.disk,
	.cgroup = &opts.cgroup,
};

static const struct argp_option options[] = {
	{ "queued", 'Q', NULL, 0, "Include OS queued time in I/O time", 0 },
	{ "disks", 'D', NULL, 0, "Print a histogram per disk device", 0 },
	{ "flags", 'F', NULL, 0, "Print a histogram per set of I/O flags", 0 },
	{ "extension", 'e', NULL, 0, "Summarize average/total value", 0 },
	{ NULL },
};

static const struct argp_child children[] = {
	BT_ARGP_CHILD(bt_argp_timestamp), BT_ARGP_CHILD(bt_argp_milliseconds),
	BT_ARGP_CHILD(bt_argp_json_j),	  BT_ARGP_CHILD(bt_argp_disk),
	BT_ARGP_CHILD(bt_argp_cgroup),	  { NULL },
};

static const struct argp argp;

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct biolatency_opts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		bt_argp_vals_init(state, &argp, &vals);
		break;
	case 'Q':
		o->queued = true;
		break;
	case 'D':
		o->disks = true;
		break;
	case 'F':
		o->flags = true;
		break;
	case 'e':
		o->extension = true;
		break;
	case ARGP_KEY_ARG:
		return bt_argp_interval_arg(state, arg, &o->iv);
	case ARGP_KEY_END:
		if (o->disks && o->flags)
			return bt_argp_error(state, "can only use -D or -F");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.children = children,
	.args_doc = "[interval [count]]",
	.doc = "Summarize block device I/O latency as a histogram.\v"
	       "examples:\n"
	       "    biolatency                    # summarize block I/O latency as a histogram\n"
	       "    biolatency 1 10               # print 1 second summaries, 10 times\n"
	       "    biolatency -mT 1              # 1s summaries, milliseconds, and timestamps\n"
	       "    biolatency -Q                 # include OS queued time in I/O time\n"
	       "    biolatency -D                 # show each disk device separately\n"
	       "    biolatency -F                 # show I/O flags separately\n"
	       "    biolatency -j                 # print JSON\n"
	       "    biolatency -e                 # show extension summary(total, average)\n"
	       "    biolatency -d sdc             # Trace sdc only\n"
	       "    biolatency -c /sys/fs/cgroup/system.slice   # I/O issued from this cgroup",
};

/* BCC's names (blk_fill_rwbs() order), and the operations BCC does not know */
static const char *const op_names[] = {
	[BT_OP_READ] = "Read",
	[BT_OP_WRITE] = "Write",
	[BT_OP_FLUSH] = "Flush",
	[BT_OP_DISCARD] = "Discard",
	[BT_OP_SECURE_ERASE] = "SecureErase",
	[BT_OP_ZONE_RESET] = "ZoneReset",
	[BT_OP_WRITE_SAME] = "WriteSame",
	[BT_OP_WRITE_ZEROES] = "WriteZeros",
	[BT_OP_ZONE_APPEND] = "ZoneAppend",
	[BT_OP_UNKNOWN] = "Unknown",
};

/* Outermost first, as BCC's flags_print() prefixes them. */
static const struct {
	unsigned int bit;
	const char *name;
} flag_names[] = {
	{ BT_RQ_NOWAIT, "NoWait" },
	{ BT_RQ_BACKGROUND, "Background" },
	{ BT_RQ_RAHEAD, "ReadAhead" },
	{ BT_RQ_IDLE, "Idle" },
	{ BT_RQ_NOMERGE, "NoMerge" },
	{ BT_RQ_PRIO, "Priority" },
	{ BT_RQ_FUA, "ForcedUnitAccess" },
	{ BT_RQ_META, "Metadata" },
	{ BT_RQ_SYNC, "Sync" },
};

static void flags_str(__u32 key_flags, char *buf, size_t size)
{
	unsigned int op = key_flags & 0xff, flags = key_flags >> 8;
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < sizeof(flag_names) / sizeof(flag_names[0]); i++)
		if (flags & flag_names[i].bit)
			len += snprintf(buf + len, len < size ? size - len : 0, "%s-",
					flag_names[i].name);
	snprintf(buf + len, len < size ? size - len : 0, "%s",
		 op_names[op < BT_OP_UNKNOWN ? op : BT_OP_UNKNOWN]);
}

struct state {
	struct bt_summary *sum;
	struct bt_disk_cache *disks;
	const char *label;
};

static const char *disk_name(struct state *s, __u32 dev)
{
	const struct bt_disk *d = bt_disk_cache__get(s->disks, dev);

	return d ? d->name : "?"; /* BCC's name for a disk it cannot find */
}

static void print_section(FILE *out, const void *key, void *ctx)
{
	const struct biolat_key *k = key;
	char buf[256];

	if (opts.disks) {
		fputs(disk_name(ctx, k->dev), out);
		return;
	}
	flags_str(k->flags, buf, sizeof(buf));
	fputs(buf, out);
}

static int cmp_disk(const void *a, const void *b, void *ctx)
{
	const struct biolat_key *x = a, *y = b;
	int c = strcmp(disk_name(ctx, x->dev), disk_name(ctx, y->dev));

	return c ? c : (x->dev > y->dev) - (x->dev < y->dev);
}

static void json_row(struct bt_json *j, const void *key, const uint64_t *val, void *ctx)
{
	const struct biolat_key *k = key;
	char buf[256];

	(void)val;
	if (opts.disks) {
		bt_json_string(j, "disk", disk_name(ctx, k->dev));
	} else {
		flags_str(k->flags, buf, sizeof(buf));
		bt_json_string(j, "flags", buf);
	}
}

static void print_json(struct state *s, uint64_t total, uint64_t count)
{
	struct bt_json j;

	bt_summary_json_begin(&j, stdout, s->label);
	if (opts.disks || opts.flags) {
		bt_summary__json(s->sum, &j, opts.disks ? "disks" : "flags", json_row, s);
	} else {
		static const uint64_t none[BIOLAT_SLOTS];
		const struct biolat_val *v =
			bt_summary__len(s->sum) ? (const void *)bt_summary__value(s->sum, 0) : NULL;

		bt_json_hist(&j, "hist", BT_SUMMARY_LOG2, v ? (const uint64_t *)v->slots : none,
			     BIOLAT_SLOTS);
	}
	if (opts.extension) {
		bt_json_uint(&j, "total", total);
		bt_json_uint(&j, "count", count);
	}
	bt_summary_json_end(&j);
}

static int print_interval(void *ctx)
{
	struct state *s = ctx;
	uint64_t total, count;
	int err;

	err = bt_summary__collect(s->sum);
	if (err)
		return err;
	if (opts.disks)
		bt_summary__sort_by_key(s->sum, cmp_disk, s, false);
	else
		bt_summary__sort_by_key(s->sum, NULL, NULL, false);
	total = bt_summary__total(s->sum, offsetof(struct biolat_val, total) / 8);
	count = bt_summary__total(s->sum, offsetof(struct biolat_val, count) / 8);
	if (opts.json) { /* JSON Lines: no blank or time lines between objects ("ts" has it) */
		print_json(s, total, count);
		return 0;
	}
	bt_print_interval_head(opts.timestamp);
	if (opts.disks || opts.flags)
		err = bt_summary__print_hists(s->sum, stdout, opts.disks ? "disk" : "flags",
					      print_section, s, s->label);
	else
		err = bt_summary__print_hists(s->sum, stdout, NULL, NULL, NULL, s->label);
	if (err)
		return err;
	if (opts.extension)
		bt_hist_print_avg(stdout, total, count, s->label);
	return 0;
}

/* A request of the traced ones issued and not completed: its completion was not seen. */
static bool issued_not_done(const void *value, void *ctx)
{
	const struct biolat_start *s = value;

	/* no bio: the flush request, which the kernel reuses (left out as the stale check does) */
	return s->issued && s->bio && (!opts.cgroup || s->passed);
}

/* probes/biolatency.bpf.c's in-flight tables, in slot order */
static const struct bt_inflight_table inflight[] = {
	{ "starts", "requests not timed", "requests in flight" },
	{ NULL },
};

static const struct bt_summary_opts sum_opts = {
	.key_size = sizeof(struct biolat_key),
	.value_size = sizeof(struct biolat_val),
	.hist = BT_SUMMARY_LOG2,
	.hist_off = offsetof(struct biolat_val, slots) / 8,
	.nslots = BIOLAT_SLOTS,
	.what = "histograms",
};

static int run(const struct bt_cmd *cmd)
{
	struct bt_block_run want = { .cgroup = opts.cgroup,
				     .queue_start = opts.queued,
				     .submitter = opts.cgroup != NULL,
				     .count_merges = opts.cgroup != NULL };
	struct biolatency_bpf *skel;
	struct state s = { .label = opts.milliseconds ? "msecs" : "usecs" };
	unsigned long long left;
	int err;

	err = bt_block_disk_arg(opts.disk, &want.dev);
	if (err)
		return err;
	s.disks = bt_disk_cache__new();
	if (!s.disks)
		return -ENOMEM;
	err = BT_SKEL_OPEN(biolatency, &skel);
	if (err)
		goto cleanup;
	skel->rodata->per_disk = opts.disks;
	skel->rodata->per_flags = opts.flags;
	skel->rodata->unit_ns = opts.milliseconds ? 1000000 : 1000;
	skel->rodata->queued = opts.queued;
	/* a preallocated per-CPU entry is 536 bytes per CPU: 1024 of them are 35 MB on 64 CPUs */
	if (opts.disks || opts.flags)
		err = bpf_map__set_map_flags(skel->maps.dist, BPF_F_NO_PREALLOC);
	else
		err = bpf_map__set_max_entries(skel->maps.dist, 1);
	if (err) {
		bt_err("cannot size the histogram map: %s", strerror(-err));
		goto cleanup;
	}
	err = bt_block_prepare(skel->obj, &want, cmd->probes, NULL) ?:
	      bt_skel_load_attach(skel->skeleton, "the block tracepoints") ?:
	      bt_summary__open(&s.sum, bpf_map__fd(skel->maps.dist), &sum_opts);
	if (err)
		goto cleanup;
	/* JSON mode: an info line on stderr, the same "attached" signal as every tool's */
	bt_banner(stdout, "Tracing block device I/O... Hit Ctrl-C to end.\n");
	if (bt_output_closed())
		goto cleanup;
	err = bt_interval_loop(&opts.iv, print_interval, &s);
	left = bt_block_left(&skel->bss->draining, bpf_map__fd(skel->maps.starts),
			     sizeof(struct biolat_start), issued_not_done, NULL);
	bt_block_warn_unseen(skel->obj, skel->bss->unseen + left);
	bt_inflight_report(skel->obj, inflight);
	if (skel->bss->merged) /* docs/biolatency.md, "Merged I/O" */
		bt_warn("%llu I/Os from %s made no request of their own (merged into another "
			"request, counted only if its maker is in the cgroup too)",
			(unsigned long long)skel->bss->merged, opts.cgroup);
	if (skel->bss->uncounted)
		bt_warn("%llu requests left out: no room for another histogram",
			(unsigned long long)skel->bss->uncounted);
cleanup:
	bt_summary__free(s.sum);
	biolatency_bpf__destroy(skel);
	bt_disk_cache__free(s.disks);
	return err;
}

/*
 * The exporter's: a latency histogram per disk and operation since the start, in seconds
 * (microsecond log2 slots, BCC's default unit, as le bounds).
 */
struct collector {
	struct biolatency_bpf *skel;
	struct bt_summary *sum;
	struct bt_disk_cache *disks;
};

static void collector_stop(void *state)
{
	struct collector *c = state;

	if (!c)
		return;
	bt_summary__free(c->sum);
	biolatency_bpf__destroy(c->skel);
	bt_disk_cache__free(c->disks);
	free(c);
}

static int collector_start(const char *spec, void **state)
{
	struct bt_block_run want = { 0 };
	struct bt_summary_opts o = sum_opts;
	struct collector *c;
	int err;

	(void)spec;
	o.running = true;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->disks = bt_disk_cache__new();
	err = c->disks ? BT_SKEL_OPEN(biolatency, &c->skel) : -ENOMEM;
	if (err)
		goto cleanup;
	c->skel->rodata->per_disk = true;
	c->skel->rodata->per_flags = true;
	c->skel->rodata->op_only = true;
	c->skel->rodata->unit_ns = 1000;
	err = bpf_map__set_map_flags(c->skel->maps.dist, BPF_F_NO_PREALLOC);
	if (err) {
		bt_err("cannot size the histogram map: %s", strerror(-err));
		goto cleanup;
	}
	err = bt_block_prepare(c->skel->obj, &want, bt_block_probes, NULL) ?:
	      bt_skel_load_attach(c->skel->skeleton, "the block tracepoints") ?:
	      bt_summary__open(&c->sum, bpf_map__fd(c->skel->maps.dist), &o);
	if (err)
		goto cleanup;
	*state = c;
	return 0;
cleanup:
	collector_stop(c);
	return err;
}

/* One disk's series at 0, for each operation every disk has, where it has none yet. */
struct zero_series {
	struct collector *c;
	struct bt_prom *p;
	int err; /* the writer's */
};

static int zero_series(void *ctx, const struct bt_disk *disk)
{
	static const unsigned int ops[] = { BT_OP_READ, BT_OP_WRITE };
	static const uint64_t none[BIOLAT_SLOTS];
	struct zero_series *z = ctx;
	size_t i, k, n = bt_summary__len(z->c->sum);
	int err = 0;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]) && err >= 0; i++) {
		const char *labels[] = { "disk", disk->name, "op", bt_block_op_label(ops[i]),
					 NULL };
		struct biolat_key key = { bt_kdev(disk->major, disk->minor), ops[i] };
		bool seen = false;

		for (k = 0; k < n && !seen; k++) {
			const struct biolat_key *have = bt_summary__key(z->c->sum, k);

			seen = have->dev == key.dev && (have->flags & 0xff) == key.flags;
		}
		if (!seen)
			err = bt_prom_log2_hist(z->p, labels, none, BIOLAT_SLOTS, 1e-6, 0);
	}
	z->err = err < 0 ? err : 0;
	return z->err;
}

static int collector_collect(void *state, struct bt_prom *p)
{
	struct collector *c = state;
	struct zero_series z = { c, p, 0 };
	size_t i;
	int err;

	err = bt_summary__collect(c->sum);
	if (err)
		return err;
	bt_summary__sort_by_key(c->sum, NULL, NULL, false);
	err = bt_prom_family(p, "bpftools_bio_latency_seconds", BT_PROM_HISTOGRAM,
			     "Block I/O latency from issue to completion, per disk and operation.");
	for (i = 0; err >= 0 && i < bt_summary__len(c->sum); i++) {
		const struct biolat_key *k = bt_summary__key(c->sum, i);
		const struct biolat_val *v = (const void *)bt_summary__value(c->sum, i);
		const struct bt_disk *d = bt_disk_cache__get(c->disks, k->dev);
		const char *labels[] = { "disk", d ? d->name : "?", "op",
					 bt_block_op_label(k->flags & 0xff), NULL };

		err = bt_prom_log2_hist(p, labels, (const uint64_t *)v->slots, BIOLAT_SLOTS, 1e-6,
					v->total / 1e6);
	}
	/*
	 * Every disk's reads and writes are there from the scrape after it appears, at 0: a
	 * series born with its first burst would already hold it, and Prometheus sees no increase
	 * in a counter's first sample (a failed sysfs read leaves only what was counted)
	 */
	if (err >= 0) {
		bt_disk_each(zero_series, &z);
		err = z.err;
	}
	return err < 0 ? err : 0;
}

static const struct bt_collector collector = {
	.help = "block I/O latency histograms per disk and operation",
	.flags = BT_COLLECT_DEFAULT,
	.start = collector_start,
	.collect = collector_collect,
	.stop = collector_stop,
};

BT_COMMAND(biolatency) = {
	.name = "biolatency",
	.summary = "Summarize block device I/O latency as a histogram",
	.argp = &argp,
	.opts = &opts,
	.probes = bt_block_probes,
	.run = run,
	.flags = BT_NEED_PRIV,
	.uses = BT_USES_TP_BTF,
	.collector = &collector,
};
