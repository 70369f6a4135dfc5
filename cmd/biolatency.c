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
#include "bt_collector.h"
#include "bt_disk.h"
#include "bt_err.h"
#include "bt_hist.h"
#include "bt_inflight.h"
#include "bt_json.h"
#include "bt_loop.h"
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
	bool op_only; /* the exporter's: the flags hold the operation alone */
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
	.flags = BT_ARGP_FLAGS({ 'Q', &opts.queued }, { 'D', &opts.disks }, { 'F', &opts.flags },
			       { 'e', &opts.extension }),
	.iv = &opts.iv,
};

static const struct argp_option options[] = {
	{ "queued", 'Q', NULL, 0, "Include OS queued time in I/O time", 0 },
	{ "disks", 'D', NULL, 0, "Print a histogram per disk device", 0 },
	{ "flags", 'F', NULL, 0, "Print a histogram per set of I/O flags", 0 },
	{ "extension", 'e', NULL, 0, "Summarize average/total value", 0 },
	{ NULL },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	if (key == ARGP_KEY_END && opts.disks && opts.flags)
		return bt_argp_error(state, "can only use -D or -F");
	return bt_argp_own(key, arg, state);
}

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.children = BT_ARGP_CHILDREN(bt_argp_timestamp, bt_argp_milliseconds, bt_argp_json_j,
				     bt_argp_disk, bt_argp_cgroup),
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
	struct bt_disk_cache *disks; /* first: bt_block_labels() reads it */
	struct bt_summary *sum;
	struct biolatency_bpf *skel;
	const char *label;
};
_Static_assert(offsetof(struct state, disks) == 0,
	       "bt_block_labels() takes the state as its disk cache");

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
		bt_summary__json_hists_line(
			s->sum, stdout, s->label,
			opts.disks ? "disks" : (opts.flags ? "flags" : NULL), json_row, s,
			opts.extension ? (const uint64_t[]){ total, count } : NULL);
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
	BT_SUMMARY_LOG2_ROWS(struct biolat_key, struct biolat_val, slots, BIOLAT_SLOTS),
	.what = "histograms",
};

static void stop(void *run)
{
	struct state *s = run;

	bt_summary__free(s->sum);
	biolatency_bpf__destroy(s->skel);
	bt_disk_cache__free(s->disks);
}

static int start(struct state *s, const struct biolatency_opts *o, bool running)
{
	struct bt_block_run want = { .cgroup = o->cgroup,
				     .queue_start = o->queued,
				     .submitter = o->cgroup != NULL,
				     .count_merges = o->cgroup != NULL };
	struct bt_summary_opts so = sum_opts;
	int err;

	so.running = running;
	err = bt_block_disk_arg(o->disk, &want.dev);
	if (err)
		return err;
	s->disks = bt_disk_cache__new();
	err = s->disks ? BT_SKEL_OPEN(biolatency, &s->skel) : -ENOMEM;
	if (err)
		return err;
	s->skel->rodata->per_disk = o->disks;
	s->skel->rodata->per_flags = o->flags;
	s->skel->rodata->op_only = o->op_only;
	s->skel->rodata->unit_ns = o->milliseconds ? 1000000 : 1000;
	s->skel->rodata->queued = o->queued;
	/* a preallocated per-CPU entry is 536 bytes per CPU: 1024 of them are 35 MB on 64 CPUs */
	if (o->disks || o->flags)
		err = bpf_map__set_map_flags(s->skel->maps.dist, BPF_F_NO_PREALLOC);
	else
		err = bpf_map__set_max_entries(s->skel->maps.dist, 1);
	if (err) {
		bt_err("cannot size the histogram map: %s", strerror(-err));
		return err;
	}
	return bt_block_prepare(s->skel->obj, &want, bt_block_probes, NULL) ?:
	       bt_skel_load_attach(s->skel->skeleton, "the block tracepoints") ?:
	       bt_summary__open(&s->sum, bpf_map__fd(s->skel->maps.dist), &so);
}

static int run(const struct bt_cmd *cmd)
{
	struct state s = { .label = opts.milliseconds ? "msecs" : "usecs" };
	struct biolatency_bpf *skel;
	int err;

	(void)cmd;
	err = start(&s, &opts, false);
	if (err)
		goto cleanup;
	skel = s.skel;
	/* JSON mode: an info line on stderr, the same "attached" signal as every tool's */
	bt_banner(stdout, "Tracing block device I/O... Hit Ctrl-C to end.\n");
	if (bt_output_closed())
		goto cleanup;
	err = bt_interval_loop(&opts.iv, print_interval, &s);
	bt_block_end(skel->obj, &skel->bss->draining, skel->maps.starts,
		     sizeof(struct biolat_start), issued_not_done, &skel->bss->unseen);
	bt_inflight_report(skel->obj, inflight);
	if (skel->bss->merged) /* docs/biolatency.md, "Merged I/O" */
		bt_warn("%llu I/Os from %s made no request of their own (merged into another "
			"request, counted only if its maker is in the cgroup too)",
			(unsigned long long)skel->bss->merged, opts.cgroup);
	if (skel->bss->uncounted)
		bt_warn("%llu requests left out: no room for another histogram",
			(unsigned long long)skel->bss->uncounted);
cleanup:
	stop(&s);
	return err;
}

/*
 * The exporter's: a latency histogram per disk and operation since the start, in seconds
 * (microsecond log2 slots, BCC's default unit, as le bounds).
 */
static const struct biolatency_opts exporter_opts = { .disks = true,
						      .flags = true,
						      .op_only = true };
BT_COLLECTOR_START(collector_start, start(run, &exporter_opts, true))

static const struct bt_collector collector = {
	.help = "block I/O latency histograms per disk and operation",
	.flags = BT_COLLECT_DEFAULT,
	BT_COLLECTOR_RUN(struct state, sum, collector_start, stop),
	BT_BLOCK_SERIES,
	.families = {
		{ "bpftools_bio_latency_seconds", BT_PROM_HISTOGRAM,
		  "Block I/O latency from issue to completion, per disk and operation.",
		  BT_LOG2_SECONDS(struct biolat_val, total, slots, 1e6) },
	},
};

BT_TOOL_COMMAND(biolatency, "Summarize block device I/O latency as a histogram", .vals = &vals,
		.probes = bt_block_probes, .uses = BT_USES_TP_BTF, .collector = &collector);
