// SPDX-License-Identifier: GPL-2.0
/* features: what this kernel offers bpftools, probed for real, and which tools can run here. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#include "bt_args.h"
#include "bt_cmd.h"
#include "bt_err.h"
#include "bt_features.h"
#include "bt_json.h"
#include "bt_kfuncs.h"
#include "bt_unwinder.h"

static struct features_opts {
	bool json;
} opts;

static const struct bt_opt_vals vals = { .json = &opts.json, .no_args = true };

static const struct argp argp = {
	.parser = bt_argp_own,
	.children = BT_ARGP_CHILDREN(bt_argp_json_j),
	.doc = "Report which kernel facilities bpftools can use here, and which tools can run.\v"
	       "Each facility is tried for real (a program loaded and attached, a probe created "
	       "and\n"
	       "removed), so the answer includes what lockdown or a missing config option "
	       "refuses.\n"
	       "examples:\n"
	       "    features            # the report, one facility per line\n"
	       "    features --json     # the same facts as JSON",
};

/* The facilities in report order. */
static const enum bt_feat order[] = {
	BT_FEAT_BTF,	       BT_FEAT_KPROBES,	      BT_FEAT_KRETPROBES,
	BT_FEAT_FENTRY,	       BT_FEAT_FENTRY_COOKIE, BT_FEAT_KPROBE_MULTI,
	BT_FEAT_UPROBES,       BT_FEAT_UPROBE_MULTI,  BT_FEAT_UPROBE_SESSION,
	BT_FEAT_USDT,	       BT_FEAT_TP_BTF,	      BT_FEAT_RAW_TP,
	BT_FEAT_RAW_TP_COOKIE, BT_FEAT_TRACEPOINTS,   BT_FEAT_RINGBUF,
	BT_FEAT_STACKS,	       BT_FEAT_PERF_EVENTS,
};
#define NORDER (sizeof(order) / sizeof(order[0]))

/* The facilities in report order: the kernel's, then the unwinder's check (lib/stacks/bt_unwinder.h). */
static const struct bt_feature *facility(size_t i)
{
	return i < NORDER ? bt_feature(order[i]) : bt_unwind_feature();
}
#define NFACILITIES (NORDER + 1)

/* How a command's declared needs are met here: one entry per need. */
struct need {
	unsigned int bit;
	const char *what;
	const char *how; /* the mechanism used, or NULL when none works */
	char why[448];
};

static void why_from(char *buf, size_t size, const char *name, const struct bt_feature *f)
{
	snprintf(buf, size, "%s: %.96s", name, f->why);
}

/* Pick the mechanism for one need: the first that works, else the reasons all failed. */
static void resolve_need(struct need *n)
{
	/* the needs one facility meets alone, by its name */
	static const struct {
		unsigned int bit;
		const char *what;
		enum bt_feat feat;
	} single[] = {
		{ BT_USES_TRACEPOINT, "tracepoints", BT_FEAT_TRACEPOINTS },
		{ BT_USES_UPROBE, "user functions", BT_FEAT_UPROBES },
		{ BT_USES_PERF, "perf events", BT_FEAT_PERF_EVENTS },
		{ BT_USES_STACKS, "stacks", BT_FEAT_STACKS },
	};
	const struct bt_feature *a, *b;
	char wa[128];
	size_t i;

	n->how = NULL;
	n->why[0] = '\0';
	switch (n->bit) {
	case BT_USES_KFUNC:
		n->what = "kernel functions";
		a = bt_feature(BT_FEAT_FENTRY);
		if (a->ok && bt_feature(BT_FEAT_FENTRY_COOKIE)->ok) {
			n->how = "fentry";
			return;
		}
		b = bt_feature(BT_FEAT_KPROBES);
		if (b->ok) {
			n->how = bt_feature(BT_FEAT_KPROBE_MULTI)->ok ? "kprobe.multi" : "kprobe";
			return;
		}
		if (a->ok)
			why_from(wa, sizeof(wa), "fentry", bt_feature(BT_FEAT_FENTRY_COOKIE));
		else
			why_from(wa, sizeof(wa), "fentry", a);
		snprintf(n->why, sizeof(n->why), "%s; kprobes: %s", wa, b->why);
		return;
	case BT_USES_TP_BTF:
		n->what = "BTF tracepoints";
		a = bt_feature(BT_FEAT_TP_BTF);
		b = bt_feature(BT_FEAT_RAW_TP);
		n->how = a->ok ? "tp_btf" : b->ok ? "raw_tp" : NULL;
		if (!n->how)
			snprintf(n->why, sizeof(n->why), "tp_btf: %s; raw_tp: %s", a->why, b->why);
		return;
	}
	for (i = 0; i < sizeof(single) / sizeof(single[0]) && single[i].bit != n->bit; i++)
		;
	if (i == sizeof(single) / sizeof(single[0])) {
		n->what = "?";
		snprintf(n->why, sizeof(n->why), "unknown need");
		return;
	}
	n->what = single[i].what;
	a = bt_feature(single[i].feat);
	if (a->ok)
		n->how = a->key;
	else
		snprintf(n->why, sizeof(n->why), "%s", a->why);
}

static size_t cmd_needs(const struct bt_cmd *c, struct need *v)
{
	size_t n = 0;
	unsigned int bit;

	for (bit = 1; bit <= BT_USES_STACKS; bit <<= 1) {
		if (!(c->uses & bit))
			continue;
		v[n].bit = bit;
		resolve_need(&v[n]);
		n++;
	}
	return n;
}

/* "yes", "partly" or "no", and "how" as "tp_btf" or "fentry+tracepoints". */
static const char *cmd_verdict(const struct need *v, size_t n)
{
	size_t i, ok = 0;

	for (i = 0; i < n; i++)
		ok += v[i].how != NULL;
	if (!n)
		return "unknown";
	return ok == n ? "yes" : ok ? "partly" : "no";
}

static const char *kfuncs_source(const struct bt_kfuncs_info *ki)
{
	switch (ki->source) {
	case BT_KFUNCS_FILTER_FUNCTIONS:
		return "available_filter_functions";
	case BT_KFUNCS_KALLSYMS_BTF:
		return "kallsyms+btf";
	default:
		return "none";
	}
}

static void print_text(const char *lockdown, int kptr, int kptr_err, int paranoid, int paranoid_err,
		       const struct bt_kfuncs_info *ki)
{
	const struct bt_cmd *c;
	struct need needs[8];
	struct utsname u;
	size_t i, n;
	int ci;

	if (uname(&u) == 0)
		printf("%-22s %s %s\n", "kernel", u.release, u.machine);
	for (i = 0; i < NFACILITIES; i++) {
		const struct bt_feature *f = facility(i);

		if (f->ok)
			printf("%-22s yes\n", f->name);
		else
			printf("%-22s no (%s)\n", f->name, f->why);
	}
	printf("%-22s %s\n", "lockdown", lockdown ? lockdown : "unknown (no securityfs)");
	if (kptr_err)
		printf("%-22s unknown (%s)\n", "kptr_restrict", strerror(-kptr_err));
	else
		printf("%-22s %d\n", "kptr_restrict", kptr);
	if (paranoid_err)
		printf("%-22s unknown (%s)\n", "perf_event_paranoid", strerror(-paranoid_err));
	else
		printf("%-22s %d\n", "perf_event_paranoid", paranoid);
	if (ki->err)
		printf("%-22s none (%s)\n", "kernel functions", strerror(ki->err));
	else if (ki->source == BT_KFUNCS_KALLSYMS_BTF)
		printf("%-22s %zu traceable (kallsyms+BTF; available_filter_functions: %s)\n",
		       "kernel functions", ki->count,
		       strerrorname_np(ki->filter_err) ? strerrorname_np(ki->filter_err) : "?");
	else
		printf("%-22s %zu traceable (available_filter_functions)\n", "kernel functions",
		       ki->count);

	printf("\n%-22s %s\n", "TOOL", "CAN RUN");
	bt_for_each_cmd(c, ci) {
		if (!c->uses)
			continue;
		n = cmd_needs(c, needs);
		printf("%-22s %s", c->name, cmd_verdict(needs, n));
		for (i = 0; i < n; i++) {
			if (needs[i].how)
				printf("%s%s: %s", i ? "; " : " (", needs[i].what, needs[i].how);
			else
				printf("%s%s: no (%s)", i ? "; " : " (", needs[i].what,
				       needs[i].why);
		}
		printf("%s\n", n ? ")" : "");
	}
}

static void print_json(const char *lockdown, int kptr, int kptr_err, int paranoid, int paranoid_err,
		       const struct bt_kfuncs_info *ki)
{
	const struct bt_cmd *c;
	struct need needs[8];
	struct bt_json j;
	struct utsname u;
	size_t i, n;
	int ci;

	bt_json_line(&j, stdout);
	if (uname(&u) == 0) {
		bt_json_string(&j, "kernel", u.release);
		bt_json_string(&j, "machine", u.machine);
	}
	bt_json_begin_object(&j, "facilities");
	for (i = 0; i < NFACILITIES; i++) {
		const struct bt_feature *f = facility(i);

		bt_json_begin_object(&j, f->key);
		bt_json_bool(&j, "available", f->ok);
		if (!f->ok) {
			bt_json_string(&j, "reason", f->why);
			bt_json_string(&j, "errno", f->err ? strerrorname_np(f->err) : NULL);
		}
		bt_json_end_object(&j);
	}
	bt_json_end_object(&j);
	bt_json_string(&j, "lockdown", lockdown);
	if (kptr_err)
		bt_json_null(&j, "kptr_restrict");
	else
		bt_json_int(&j, "kptr_restrict", kptr);
	if (paranoid_err)
		bt_json_null(&j, "perf_event_paranoid");
	else
		bt_json_int(&j, "perf_event_paranoid", paranoid);
	bt_json_begin_object(&j, "kernel_functions");
	bt_json_string(&j, "source", kfuncs_source(ki));
	bt_json_int(&j, "traceable", ki->count);
	bt_json_string(&j, "filter_functions_error",
		       ki->filter_err ? strerrorname_np(ki->filter_err) : NULL);
	bt_json_string(&j, "blacklist_error",
		       ki->blacklist_err ? strerrorname_np(ki->blacklist_err) : NULL);
	bt_json_double(&j, "load_ms", ki->load_ms);
	bt_json_end_object(&j);

	bt_json_begin_object(&j, "tools");
	bt_for_each_cmd(c, ci) {
		if (!c->uses)
			continue;
		n = cmd_needs(c, needs);
		bt_json_begin_object(&j, c->name);
		bt_json_string(&j, "can_run", cmd_verdict(needs, n));
		bt_json_begin_array(&j, "needs");
		for (i = 0; i < n; i++) {
			bt_json_begin_object(&j, NULL);
			bt_json_string(&j, "what", needs[i].what);
			bt_json_string(&j, "mechanism", needs[i].how);
			if (!needs[i].how)
				bt_json_string(&j, "reason", needs[i].why);
			bt_json_end_object(&j);
		}
		bt_json_end_array(&j);
		bt_json_end_object(&j);
	}
	bt_json_end_object(&j);
	bt_json_end_object(&j);
	bt_json_finish(&j);
}

static int run(const struct bt_cmd *cmd)
{
	struct bt_kfuncs_info ki;
	int kptr = 0, paranoid = 0, kptr_err, paranoid_err;
	const char *lockdown = bt_lockdown();

	kptr_err = bt_sysctl_int("/proc/sys/kernel/kptr_restrict", &kptr);
	paranoid_err = bt_sysctl_int("/proc/sys/kernel/perf_event_paranoid", &paranoid);
	bt_kfuncs_info(&ki); /* a failure is part of the report */
	if (opts.json)
		print_json(lockdown, kptr, kptr_err, paranoid, paranoid_err, &ki);
	else
		print_text(lockdown, kptr, kptr_err, paranoid, paranoid_err, &ki);
	return 0;
}

BT_COMMAND(features) = {
	.name = "features",
	.summary = "Report which kernel facilities bpftools can use here",
	.argp = &argp,
	.opts = &opts,
	.vals = &vals,
	.run = run,
	.flags = BT_NEED_PRIV | BT_NO_LINK,
};
