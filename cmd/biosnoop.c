// SPDX-License-Identifier: GPL-2.0
/*
 * biosnoop: trace block I/O, one line per completed request with the process that issued
 * it, as BCC's biosnoop (plus libbpf-tools' -c, -m, -t and duration).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bt_args.h"
#include "bt_block.h"
#include "bt_block_probes.h"
#include "bt_cmd.h"
#include "bt_collector.h"
#include "bt_disk.h"
#include "bt_env.h"
#include "bt_err.h"
#include "bt_inflight.h"
#include "bt_evrun.h"
#include "bt_json.h"
#include "bt_loop.h"
#include "bt_skel.h"
#include "bt_summary.h"
#include "biosnoop.h"
#include "biosnoop.skel.h"
#include "bt_escape.h"

static struct biosnoop_opts {
	bool queue;
	bool pattern;
	bool timestamp;
	bool json;
	const char *disk;
	const char *cgroup;
	unsigned long min_ms;
	unsigned long duration;
} opts;

static const struct bt_opt_vals vals = {
	.json = &opts.json,
	.disk = &opts.disk,
	.cgroup = &opts.cgroup,
	.duration_arg = &opts.duration,
	.duration_max = 100000000,
	.flags = BT_ARGP_FLAGS({ 'Q', &opts.queue }, { 'P', &opts.pattern },
			       { 't', &opts.timestamp }),
};

static const struct argp_option options[] = {
	{ "queue", 'Q', NULL, 0, "Include OS queued time", 0 },
	{ "queued", 0, NULL, OPTION_ALIAS, NULL, 0 },
	{ "pattern", 'P', NULL, 0, "Display block I/O pattern (sequential or random)", 0 },
	{ "min", 'm', "MIN_MS", 0, "Trace I/O slower than this, in milliseconds", 0 },
	{ "timestamp", 't', NULL, 0, "Print wall-clock time instead of seconds since the first",
	  0 },
	{ NULL },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	if (key == 'm')
		return bt_argp_ulong(state, arg, "minimum latency", 0, 1000000000, &opts.min_ms);
	return bt_argp_own(key, arg, state);
}

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.children = BT_ARGP_CHILDREN(bt_argp_disk, bt_argp_cgroup, bt_argp_json),
	.args_doc = "[duration]",
	.doc = "Trace block I/O.\v"
	       "examples:\n"
	       "    biosnoop           # trace all block I/O\n"
	       "    biosnoop -Q        # include OS queued time\n"
	       "    biosnoop -d sdc    # trace sdc only\n"
	       "    biosnoop -P        # display block I/O pattern\n"
	       "    biosnoop -c /sys/fs/cgroup/system.slice   # I/O issued from this cgroup\n"
	       "    biosnoop -m 10     # I/O slower than 10 ms only\n"
	       "    biosnoop 10        # trace for 10 seconds\n"
	       "    biosnoop --json    # one JSON object per I/O",
};

static const char *const op_names[] = {
	[BT_OP_READ] = "read",
	[BT_OP_WRITE] = "write",
	[BT_OP_FLUSH] = "flush",
	[BT_OP_DISCARD] = "discard",
	[BT_OP_SECURE_ERASE] = "secure-erase",
	[BT_OP_ZONE_RESET] = "zone-reset",
	[BT_OP_WRITE_SAME] = "write-same",
	[BT_OP_WRITE_ZEROES] = "write-zeroes",
	[BT_OP_ZONE_APPEND] = "zone-append",
	[BT_OP_UNKNOWN] = "unknown",
};

struct state {
	struct bt_disk_cache *disks; /* first: bt_block_labels() reads it */
	__u64 first_us;
	struct biosnoop_bpf *skel;
	struct bt_summary *sum; /* the exporter's */
};
_Static_assert(offsetof(struct state, disks) == 0,
	       "bt_block_labels() takes the state as its disk cache");

static void stop(void *run)
{
	struct state *s = run;

	bt_summary__free(s->sum);
	biosnoop_bpf__destroy(s->skel);
	bt_disk_cache__free(s->disks);
}

/*
 * The one start: the skeleton with the options o, the block probes this kernel takes, loaded
 * and attached. ev: the command's event buffer; NULL: the exporter's running totals instead.
 */
static int start(struct state *s, const struct biosnoop_opts *o, struct bt_evrun *ev)
{
	const struct bt_summary_opts so = { BT_SUMMARY_ROWS(struct biosnoop_io_key,
							    struct biosnoop_io_total),
					    .running = true, .what = "I/O totals" };
	struct bt_block_run want = { .cgroup = o->cgroup,
				     .queue_start = o->queue,
				     .submitter = ev != NULL };
	enum bt_block_submitter how;
	const char *drop = bt_env_value("BPFTOOLS_DROP_COMPLETIONS");
	struct biosnoop_bpf *skel;
	int err;

	err = o->disk ? bt_block_disk_arg(o->disk, &want.dev) : 0;
	if (err)
		return err;
	s->disks = bt_disk_cache__new();
	err = s->disks ? BT_SKEL_OPEN(biosnoop, &s->skel) : -ENOMEM;
	if (err)
		return err;
	skel = s->skel;
	skel->rodata->aggregate = !ev;
	skel->rodata->want_pattern = o->pattern;
	skel->rodata->min_ns = o->min_ms * 1000000ULL;
	if (ev && drop)
		skel->rodata->drop_completions = strtoul(drop, NULL, 10);
	if (ev) {
		ev->map = skel->maps.events;
		err = bt_evrun__configure(ev, skel->obj);
	}
	err = err ?: bt_block_prepare(skel->obj, &want, bt_block_probes, &how);
	if (err)
		return err;
	skel->rodata->task_late = ev && how == BT_BLOCK_AT_ISSUE;
	return bt_skel_load_attach(skel->skeleton, "the block tracepoints")
		       ?: (ev ? 0
			      : bt_summary__open(&s->sum, bpf_map__fd(skel->maps.io_totals), &so));
}

static void print_header(void *ctx)
{
	(void)ctx;
	if (opts.timestamp)
		printf("%-12s ", "TIMESTAMP");
	else
		printf("%-11s ", "TIME(s)");
	printf("%-14s %-7s %-9s %-1s %-10s %-7s", "COMM", "PID", "DISK", "T", "SECTOR", "BYTES");
	if (opts.pattern)
		printf("%-1s ", "P");
	if (opts.queue)
		printf("%7s ", "QUE(ms)");
	printf("%7s\n", "LAT(ms)");
}

static void print_json(const struct biosnoop_event *e, const char *disk, __u64 us)
{
	static const char *const patterns[] = { NULL, "sequential", "random" };
	struct bt_json js, *j = &js;
	char dev[32];

	snprintf(dev, sizeof(dev), "%u:%u", BT_KDEV_MAJOR(e->dev), BT_KDEV_MINOR(e->dev));
	bt_json_line(j, stdout);
	bt_json_uint(j, "time_us", us); /* since the first event, as TIME(s) */
	bt_json_string(j, "comm", e->comm);
	bt_json_uint(j, "pid", e->pid);
	bt_json_string(j, "disk", disk);
	bt_json_string(j, "dev", dev);
	bt_json_string(j, "op", op_names[e->op < BT_OP_UNKNOWN ? e->op : BT_OP_UNKNOWN]);
	bt_json_uint(j, "sector", e->sector);
	bt_json_uint(j, "bytes", e->len);
	if (opts.pattern)
		bt_json_string(j, "pattern", patterns[e->pattern <= 2 ? e->pattern : 0]);
	if (opts.queue) {
		if (e->qdelta == BIOSNOOP_NO_QUEUE)
			bt_json_null(j, "queue_ms");
		else
			bt_json_double(j, "queue_ms", e->qdelta / 1e6);
	}
	bt_json_double(j, "latency_ms", e->delta / 1e6);
	bt_json_end_object(j);
	bt_json_finish(j);
}

static int on_event(void *ctx, const void *data, size_t size)
{
	struct state *s = ctx;
	struct biosnoop_event e;
	const struct bt_disk *d;
	const char *disk;
	char comm[sizeof(e.comm) + 1], esc[BT_ESC_SIZE(14)];
	double secs;

	if (size < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e)); /* perf buffer records are not aligned */
	memcpy(comm, e.comm, sizeof(e.comm));
	comm[sizeof(e.comm)] = '\0';
	d = bt_disk_cache__get(s->disks, e.dev);
	disk = d ? d->name : "<unknown>";
	/* BCC's clock: microseconds since the first event printed */
	if (!s->first_us)
		s->first_us = e.ts / 1000;
	secs = (double)(e.ts / 1000 - s->first_us) / 1e6;
	if (opts.json) {
		memcpy(e.comm, comm, sizeof(e.comm));
		print_json(&e, disk, e.ts / 1000 - s->first_us);
		return 0;
	}
	if (opts.timestamp) {
		struct timespec now;
		struct tm tm;
		char hms[16];

		clock_gettime(CLOCK_REALTIME, &now);
		localtime_r(&now.tv_sec, &tm);
		strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
		printf("%-8s.%03ld ", hms, now.tv_nsec / 1000000);
	} else {
		printf("%-11.6f ", secs);
	}
	printf("%-14s %-7u %-9s %-1s %-10llu %-7u", bt_esc(esc, sizeof(esc), comm, 14), e.pid, disk,
	       e.op == BT_OP_WRITE ? "W" : "R", (unsigned long long)e.sector, e.len);
	if (opts.pattern)
		printf("%-1s ", e.pattern == BIOSNOOP_SEQUENTIAL ? "S"
				: e.pattern == BIOSNOOP_RANDOM	 ? "R"
								 : "?");
	if (opts.queue) {
		if (e.qdelta == BIOSNOOP_NO_QUEUE)
			printf("%7s ", "-");
		else
			printf("%7.2f ", e.qdelta / 1e6);
	}
	printf("%7.2f\n", e.delta / 1e6);
	return 0;
}

/* probes/biosnoop.bpf.c's in-flight tables, in slot order */
static const struct bt_inflight_table inflight[] = {
	{ "reqs", "requests not traced", "requests in flight" },
	{ NULL },
};

/* A request of the traced ones issued and not completed: its completion was not seen. */
static bool issued_not_done(const void *value, void *ctx)
{
	const struct biosnoop_req *r = value;

	(void)ctx;
	/* no bio: the flush request, which the kernel reuses (left out as the stale check does) */
	return r->issue_ts && r->bio && (!opts.cgroup || r->has_task);
}

static int end(void *ctx, int err)
{
	struct state *s = ctx;
	struct biosnoop_bpf *skel = s->skel;

	/* docs/biosnoop.md, "Unseen completions": those found stale, and those left at the end */
	bt_block_end(skel->obj, &skel->bss->draining, skel->maps.reqs, sizeof(struct biosnoop_req),
		     issued_not_done, &skel->bss->unseen);
	bt_debug("%llu requests created while tracing completed without an issue seen",
		 (unsigned long long)skel->bss->not_issued);
	bt_inflight_report(skel->obj, inflight);
	return err;
}

static int run(const struct bt_cmd *cmd)
{
	struct state s = { 0 };
	struct bt_evrun ev = {
		.on_event = on_event,
		.ctx = &s,
		.duration_ms = opts.duration * 1000ULL,
		.header = print_header,
		.banner = opts.json ? "Tracing block device I/O... Hit Ctrl-C to end.\n" : NULL,
		.end = end
	};
	int err;

	(void)cmd;
	err = start(&s, &opts, &ev) ?: bt_evrun__run(&ev);
	bt_evrun__free(&ev);
	stop(&s);
	return err;
}

/* The exporter's: requests and bytes per disk and operation since the start. */
BT_COLLECTOR_START(collector_start, start(run, &(const struct biosnoop_opts){ 0 }, NULL))

static const struct bt_collector collector = {
	.help = "block I/O requests and bytes per disk and operation",
	.flags = BT_COLLECT_DEFAULT,
	BT_COLLECTOR_RUN(struct state, sum, collector_start, stop),
	BT_BLOCK_SERIES,
	.families = {
		{ "bpftools_bio_requests", BT_PROM_COUNTER,
		  "Completed block I/O requests, per disk and operation.",
		  BT_FIELD(struct biosnoop_io_total, requests) },
		{ "bpftools_bio_bytes", BT_PROM_COUNTER,
		  "Bytes of completed block I/O requests, per disk and operation.",
		  BT_FIELD(struct biosnoop_io_total, bytes) },
	},
};

BT_TOOL_COMMAND(biosnoop, "Trace block device I/O with the issuing process and latency",
		.vals = &vals, .probes = bt_block_probes, .uses = BT_USES_TP_BTF,
		.collector = &collector);
