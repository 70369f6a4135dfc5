// SPDX-License-Identifier: GPL-2.0
/* smpcalls: time SMP cross calls per called function, as the BPF Performance Tools' script. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_args.h"
#include "bt_btf_ids.h"
#include "bt_cmd.h"
#include "bt_collector.h"
#include "bt_err.h"
#include "bt_hist.h"
#include "bt_inflight.h"
#include "bt_json.h"
#include "bt_loop.h"
#include "bt_skel.h"
#include "bt_stacks.h"
#include "bt_summary.h"
#include "bt_sym.h"
#include "bt_escape.h"
#include "smpcalls.h"
#include "smpcalls_probes.h"
#include "smpcalls.skel.h"

static struct smpcalls_opts {
	struct bt_common_opts c; /* -p */
	bool timestamp;
	bool stacks;
	bool json;
	struct bt_interval iv;
} opts = { .c = BT_COMMON_OPTS_INIT, .iv = { .interval = BT_FOREVER, .count = BT_FOREVER } };

static const struct bt_opt_vals vals = {
	.pid = &opts.c.pid,
	.timestamp = &opts.timestamp,
	.json = &opts.json,
	.flags = BT_ARGP_FLAGS({ 'K', &opts.stacks }),
	.iv = &opts.iv,
};

/* Not the stack tools' -K, --kernel-stack (bt_argp_stack_kinds): a key, not a stack printed */
static const struct argp_option options[] = {
	{ "kernel-stack", 'K', NULL, 0, "Key by the caller's kernel stack and name too", 0 },
	{ NULL },
};

static const struct argp argp = {
	.options = options,
	.parser = bt_argp_own,
	.children = BT_ARGP_CHILDREN(bt_argp_pid, bt_argp_timestamp, bt_argp_json),
	.args_doc = "[interval [count]]",
	.doc = "Time SMP cross calls (functions run on other CPUs) as histograms of nanoseconds.\v"
	       "examples:\n"
	       "    smpcalls            # histograms per called function, at Ctrl-C\n"
	       "    smpcalls -T 5       # every 5 seconds, with timestamps\n"
	       "    smpcalls -K         # per caller name and kernel stack too\n"
	       "    smpcalls -p 181     # calls made by process 181 only\n"
	       "    smpcalls --json 5 1 # 5 seconds, as JSON",
};

struct state {
	struct smpcalls_bpf *skel;
	struct bt_summary *sum;
	struct bt_ksyms *ksyms;
	struct bt_stacks *stacks;
	struct bt_stack_style style;
	bool ksyms_tried; /* loaded at the first output, once */
	char name[64];
};

/* The map a kind prints as, and its JSON "kind". */
static const char *kind_name(__u32 kind, bool json)
{
	switch (kind) {
	case SMPCALL_QUEUE:
		return json ? "queue" : "queue_ns";
	case SMPCALL_LOCAL:
		return json ? "local" : "local_ns";
	default:
		return json ? "time" : "time_ns";
	}
}

/* The called function's name, as bpftrace's ksym() prints it. */
static const char *func_name(struct state *s, __u64 addr)
{
	const struct bt_ksym *k = s->ksyms ? bt_ksyms__lookup(s->ksyms, addr, NULL) : NULL;

	if (k)
		return k->name;
	snprintf(s->name, sizeof(s->name), "0x%llx", (unsigned long long)addr);
	return s->name;
}

/*
 * As bpftrace prints maps of histograms: each map in turn, its keys by their number of
 * events, fewest first, so the busiest ends next to the prompt; then by name.
 */
static int cmp_rows(const void *ka, const uint64_t *va, const void *kb, const uint64_t *vb,
		    void *ctx)
{
	const struct smpcall_key *x = ka, *y = kb;
	const struct smpcall_hist *hx = (const void *)va, *hy = (const void *)vb;
	char nx[64];
	int c;

	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (hx->count != hy->count)
		return hx->count < hy->count ? -1 : 1;
	snprintf(nx, sizeof(nx), "%s", func_name(ctx, x->func));
	c = strcmp(nx, func_name(ctx, y->func));
	if (c)
		return c;
	c = strncmp(x->comm, y->comm, SMPCALL_COMM_LEN);
	if (c)
		return c;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* "@time_ns[func]:", or with -K bpftrace's [comm, kstack, func] key, a frame per line. */
static void print_header(FILE *out, const void *key, void *ctx)
{
	const struct smpcall_key *k = key;
	struct state *s = ctx;

	fprintf(out, "\n@%s[", kind_name(k->kind, false));
	if (s->stacks) {
		bt_escape_put(out, k->comm, SMPCALL_COMM_LEN, 0);
		fputs(", \n", out);
		bt_stacks__print(s->stacks, out, &s->style, BT_PID_KERNEL, k->stack, 0);
		fputs(", ", out);
	}
	fprintf(out, "%s]:\n", func_name(s, k->func));
}

static void json_row(struct bt_json *j, const void *key, const uint64_t *val, void *ctx)
{
	const struct smpcall_hist *h = (const void *)val;
	const struct smpcall_key *k = key;
	struct state *s = ctx;

	bt_json_string(j, "kind", kind_name(k->kind, true));
	bt_json_string(j, "function", func_name(s, k->func));
	if (s->stacks) {
		bt_json_stringn(j, "comm", k->comm, SMPCALL_COMM_LEN);
		bt_stacks__json(s->stacks, j, "kernel_stack", &s->style, BT_PID_KERNEL, k->stack,
				0);
	}
	bt_json_uint(j, "count", h->count);
	bt_json_uint(j, "total_ns", h->total_ns);
}

/* Kernel symbols, once: at the first output, or at the exporter's start. */
static void load_names(struct state *s, const char *verb)
{
	int err;

	if (s->ksyms || s->ksyms_tried)
		return;
	s->ksyms_tried = true;
	err = bt_ksyms__load_cached(bt_ksyms_cache_dir(), NULL, NULL, &s->ksyms);
	if (err)
		bt_warn("cannot read kernel symbols, functions %s as addresses: %s", verb,
			strerror(-err));
}

static int print_out(void *ctx)
{
	struct state *s = ctx;
	int err;

	err = bt_summary__collect(s->sum);
	if (err)
		return err;
	load_names(s, "print");
	bt_summary__sort(s->sum, cmp_rows, s);
	if (opts.json) {
		bt_summary__json_line(s->sum, stdout, "nsecs", "calls", json_row, s);
		return 0;
	}
	if (opts.timestamp) {
		printf("\n");
		bt_print_time(stdout, "%H:%M:%S");
		printf("\n");
	}
	return bt_summary__print_hists(s->sum, stdout, NULL, print_header, s, "nsecs");
}

/* probes/smpcalls.bpf.c's in-flight tables, in slot order (calls: without csd tracepoints) */
static const struct bt_inflight_table inflight[] = {
	{ "calls", "calls not timed", "calls in flight" },
	{ NULL },
};

static const struct bt_summary_opts sum_opts = {
	BT_SUMMARY_LOG2_ROWS(struct smpcall_key, struct smpcall_hist, slots, SMPCALL_SLOTS),
	.retire_idle = true,
	.what = "histograms",
};

static void stop(void *run)
{
	struct state *s = run;

	bt_summary__free(s->sum);
	bt_stacks__free(s->stacks);
	bt_ksyms__free(s->ksyms);
	smpcalls_bpf__destroy(s->skel);
}

static int start(struct state *s, long pid, bool stacks, bool running)
{
	struct bt_filters filters = { .cpu = -1, .tgid = pid };
	struct bt_stacks_opts sopts = { 0 };
	struct bt_summary_opts so = sum_opts;
	int err;

	so.running = running;
	err = BT_SKEL_OPEN(smpcalls, &s->skel);
	if (err)
		return err;
	s->skel->rodata->want_stack = stacks;
	err = bt_stacks__configure(s->skel->obj, &sopts)
		      ?: bt_skel_start(s->skel->skeleton, &filters, smpcalls_probes,
				       "the cross-call probes");
	if (err)
		return err;
	/* count from here: attaching made cross calls of its own (see armed in the probes) */
	s->skel->bss->armed = true;
	if (stacks) {
		err = bt_stacks__new(s->skel->obj, &sopts, &s->stacks);
		if (err) {
			bt_err("cannot set up the stacks: %s", strerror(-err));
			return err;
		}
	}
	err = bt_summary__open(&s->sum, bpf_map__fd(s->skel->maps.hists), &so);
	if (!err && running)
		load_names(s, "show");
	return err;
}

static int run(const struct bt_cmd *cmd)
{
	struct state s = { .style = { .indent = "        ", .fmt = BT_FMT_OFFSET } };
	int err;

	(void)cmd;
	err = start(&s, opts.c.pid, opts.stacks, false);
	if (err)
		goto cleanup;
	/* JSON readers get JSON only on stdout: the banner is an info line on stderr */
	bt_banner(stdout, "Tracing SMP calls. Hit Ctrl-C to stop.\n");
	err = bt_interval_run(&opts.iv, print_out, &s);
	if (!err && s.skel->bss->lost)
		bt_warn("%llu calls not timed: more than %d histograms",
			(unsigned long long)s.skel->bss->lost, SMPCALL_MAX_KEYS);
	if (!err)
		bt_inflight_report(s.skel->obj, inflight);
	if (!err && s.stacks)
		bt_stacks__report_lost(s.stacks);
cleanup:
	stop(&s);
	return err;
}

/* The exporter's smpcalls: a histogram per called function and kind, all callers together. */
BT_COLLECTOR_START(collector_start, start(run, 0, false, true))

static void called(void *run, const void *key, struct bt_labels *l)
{
	l->v[0] = func_name(run, ((const struct smpcall_key *)key)->func);
	l->v[1] = kind_name(((const struct smpcall_key *)key)->kind, true);
}

static const struct bt_collector collector = {
	.help = "SMP cross-call latency histograms per called function",
	.flags = BT_COLLECT_DEFAULT,
	BT_COLLECTOR_RUN(struct state, sum, collector_start, stop),
	.labels = { "function", "kind" },
	.label = called,
	.sort = cmp_rows,
	.families = {
		{ "bpftools_smpcall_seconds", BT_PROM_HISTOGRAM,
		  "SMP cross calls per called function: kind time (run on the target CPU), queue "
		  "(queued to started), local (a CPU calling itself).",
		  BT_LOG2_SECONDS(struct smpcall_hist, total_ns, slots, 1e9) },
	},
};

/*
 * .uses: csd tracepoints (raw_tp, the BTF-tracepoint row), or on kernels without them kprobes:
 * either gives the whole tool, so kernel functions are not declared as a need of their own
 * (that would make `features` say "partly" where the tracepoints do everything).
 */
BT_TOOL_COMMAND(smpcalls, "Time SMP cross calls per called function", .vals = &vals,
		.probes = smpcalls_probes, .uses = BT_USES_TP_BTF | BT_USES_STACKS,
		.collector = &collector);
