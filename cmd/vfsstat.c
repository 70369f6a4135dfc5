// SPDX-License-Identifier: GPL-2.0
/* vfsstat: count some VFS calls per interval, as BCC's vfsstat does. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_args.h"
#include "bt_attach.h"
#include "bt_cmd.h"
#include "bt_collector.h"
#include "bt_err.h"
#include "bt_json.h"
#include "bt_loop.h"
#include "bt_percpu.h"
#include "bt_skel.h"
#include "bt_summary.h"
#include "bt_trace.h"
#include "vfsstat.h"
#include "vfsstat.skel.h"

static struct vfsstat_opts {
	long pid;
	enum bt_attach_mode mode;
	struct bt_interval iv;
} opts = { .iv = { .interval = 1, .count = BT_FOREVER } }; /* BCC: one-second rows, forever */

/* BCC's functions and column labels, in the order of enum vfsstat_col. */
static const struct {
	const char *func;
	const char *label;
	const char *key; /* --json */
} cols[VFSSTAT_NCOLS] = {
	[VFSSTAT_READ] = { "vfs_read", "READ/s", "read" },
	[VFSSTAT_WRITE] = { "vfs_write", "WRITE/s", "write" },
	[VFSSTAT_FSYNC] = { "vfs_fsync_range", "FSYNC/s", "fsync" },
	[VFSSTAT_OPEN] = { "vfs_open", "OPEN/s", "open" },
	[VFSSTAT_CREATE] = { "vfs_create", "CREATE/s", "create" },
	[VFSSTAT_UNLINK] = { "vfs_unlink", "UNLINK/s", "unlink" },
	[VFSSTAT_MKDIR] = { "vfs_mkdir", "MKDIR/s", "mkdir" },
	[VFSSTAT_RMDIR] = { "vfs_rmdir", "RMDIR/s", "rmdir" },
};

static const struct bt_opt_vals vals = { .pid = &opts.pid, .mode = &opts.mode, .iv = &opts.iv };

static const struct argp argp = {
	.parser = bt_argp_own,
	.children = BT_ARGP_CHILDREN(bt_argp_pid, bt_argp_attach, bt_argp_json),
	.args_doc = "[interval [count]]",
	.doc = "Count some VFS calls.\v"
	       "interval: output interval, in seconds (default 1); count: number of outputs.\n"
	       "\n"
	       "examples:\n"
	       "    vfsstat             # count some VFS calls per second\n"
	       "    vfsstat -p 185      # trace PID 185 only\n"
	       "    vfsstat 2 5         # print 2 second summaries, 5 times\n"
	       "    vfsstat --json 1 5  # the same rows as JSON Lines",
};

struct state {
	int fd;
	unsigned long interval;
	uint64_t prev[VFSSTAT_NCOLS]; /* totals at the previous row: the map is never cleared */
};

static int print_row(void *ctx)
{
	struct state *s = ctx;
	uint64_t now[VFSSTAT_NCOLS];
	int i, err;

	/*
	 * Deltas of monotonic counters rather than read-then-zero: a zeroing write would drop
	 * the events that land between the read and the write.
	 */
	for (i = 0; i < VFSSTAT_NCOLS; i++) {
		err = bt_percpu_sum(s->fd, i, &now[i], 1);
		if (err) {
			bt_err("cannot read the counters: %s", strerror(-err));
			return err;
		}
	}
	if (bt_json_mode()) {
		struct bt_json j;

		/* per second, as the columns; "ts" and "val_type" as every interval tool's */
		bt_summary_json_begin(&j, stdout, "per_second");
		bt_json_uint(&j, "interval", s->interval);
		for (i = 0; i < VFSSTAT_NCOLS; i++) {
			bt_json_uint(&j, cols[i].key, (now[i] - s->prev[i]) / s->interval);
			s->prev[i] = now[i];
		}
		bt_summary_json_end(&j);
		return 0;
	}
	bt_print_time(stdout, "%H:%M:%S");
	printf(": ");
	for (i = 0; i < VFSSTAT_NCOLS; i++) {
		/* BCC divides by the full interval, also for the short last one after Ctrl-C */
		printf(" %8llu", (unsigned long long)((now[i] - s->prev[i]) / s->interval));
		s->prev[i] = now[i];
	}
	printf("\n");
	return 0;
}

/*
 * The attach layer names the first function it could not attach; with several missing, say
 * which columns are left at 0. Only the kernel-function half gives targets "failed".
 */
static void warn_unattached(const struct bt_attach *attach)
{
	char list[256] = "";
	size_t len = 0;
	int i, n = 0;

	for (i = 0; i < VFSSTAT_NCOLS; i++) {
		const char *how = bt_attach__how(attach, i);

		if (how && strcmp(how, "failed"))
			continue;
		len += snprintf(list + len, sizeof(list) - len, "%s'%s'", n ? ", " : "",
				cols[i].func);
		n++;
	}
	if (n > 1)
		bt_warn("%d functions are not traced and their columns stay 0: %s", n, list);
}

/* A run: the row printer's state, and what start made. */
struct run {
	struct state s;
	struct bt_attach *attach;
	struct vfsstat_bpf *skel;
	struct bt_summary *sum; /* the exporter's */
};

static void stop(void *run)
{
	struct run *r = run;

	/* links before the object: every probe is gone before the programs are unloaded */
	bt_attach__destroy(r->attach);
	bt_summary__free(r->sum);
	vfsstat_bpf__destroy(r->skel);
}

/*
 * A fixed list, one target per column, so that a target's index is its column. Not through
 * bt_targets__resolve(): it fails on a missing name, and a function a kernel lacks should only
 * leave its column at 0. The layer only reads these strings. The exporter's run (running) reads
 * the counters as a summary.
 */
static int start(struct run *r, long pid, enum bt_attach_mode mode, bool running)
{
	const struct bt_summary_opts sum_opts = {
		BT_SUMMARY_ROWS(__u32, __u64),
		.running = true,
		.what = "counters",
	};
	struct bt_target tv[VFSSTAT_NCOLS] = {};
	struct bt_targets targets = { .v = tv, .n = VFSSTAT_NCOLS };
	struct bt_filters filters = { .cpu = -1, .tgid = pid };
	int i, err;

	for (i = 0; i < VFSSTAT_NCOLS; i++) {
		tv[i].kind = BT_SPEC_KFUNC;
		tv[i].name = tv[i].func = (char *)cols[i].func;
		tv[i].copies = true; /* vfs_rmdir.part.0 on Debian 11's 5.10 */
	}
	err = BT_SKEL_OPEN(vfsstat, &r->skel)
		      ?: bt_trace__load(r->skel->skeleton, &targets, &filters, mode, &r->attach);
	if (err)
		return err;
	warn_unattached(r->attach);
	r->s.fd = bpf_map__fd(r->skel->maps.counts);
	return running ? bt_summary__open(&r->sum, r->s.fd, &sum_opts) : 0;
}

static int run(const struct bt_cmd *cmd)
{
	struct run r = { .s = { .interval = opts.iv.interval } };
	int i, err;

	(void)cmd;
	err = bt_check_pid(opts.pid) ?: start(&r, opts.pid, opts.mode, false);
	if (err)
		goto cleanup;
	/* BCC prints the header once, and no "Tracing..." line; JSON has the info line */
	if (bt_json_mode()) {
		bt_banner(stdout, "Tracing VFS calls... Hit Ctrl-C to end.\n");
	} else {
		printf("%-8s  ", "TIME");
		for (i = 0; i < VFSSTAT_NCOLS; i++)
			printf(" %8s", cols[i].label);
		printf("\n");
	}
	err = bt_interval_run(&opts.iv, print_row, &r.s);
cleanup:
	stop(&r);
	return err;
}

/* The exporter's vfsstat: the same counters, never cleared, as they are. */
BT_COLLECTOR_START(collector_start, start(run, 0, BT_ATTACH_AUTO, true))

static void column(void *run, const void *key, struct bt_labels *l)
{
	(void)run;
	l->v[0] = cols[*(const __u32 *)key].key;
	l->v[1] = cols[*(const __u32 *)key].func;
}

static const struct bt_collector collector = {
	.help = "VFS calls by operation: read, write, fsync, open, create, unlink, mkdir, rmdir",
	.flags = BT_COLLECT_DEFAULT,
	BT_COLLECTOR_RUN(struct run, sum, collector_start, stop),
	.labels = { "operation", "function" },
	.label = column,
	.index_keys = VFSSTAT_NCOLS,
	.families = {
		{ "bpftools_vfs_calls", BT_PROM_COUNTER,
		  "VFS calls by operation (vfsstat's columns; the function in 'function')." },
	},
};

BT_TOOL_COMMAND(vfsstat, "Count some VFS calls", .vals = &vals, .uses = BT_USES_KFUNC,
		.collector = &collector);
