/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What this kernel offers bpftools, each facility probed for real (a program loaded, a probe
 * created and removed) on first use and cached for the run. The attach layer asks here which
 * mechanism to use; `bpftools features` prints the lot (docs/features.md).
 */
#ifndef BT_FEATURES_H
#define BT_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

enum bt_feat {
	BT_FEAT_BTF,
	BT_FEAT_KPROBES,
	BT_FEAT_KRETPROBES,
	BT_FEAT_FENTRY,	       /* fentry and fexit: the same trampoline */
	BT_FEAT_FENTRY_COOKIE, /* bpf_get_attach_cookie() in fentry/fexit (5.19+) */
	BT_FEAT_KPROBE_MULTI,
	BT_FEAT_UPROBES,
	BT_FEAT_UPROBE_MULTI,
	BT_FEAT_UPROBE_SESSION, /* one program at entry and return of a uprobe.multi link (6.13+) */
	BT_FEAT_USDT,
	BT_FEAT_TP_BTF,
	BT_FEAT_RAW_TP,
	BT_FEAT_RAW_TP_COOKIE, /* bpf_get_attach_cookie() in raw_tp programs (6.10+) */
	BT_FEAT_TRACEPOINTS,
	BT_FEAT_RINGBUF,
	BT_FEAT_STACKS,
	BT_FEAT_PERF_EVENTS,
	BT_FEAT__COUNT,
};

struct bt_feature {
	const char *key;  /* stable identifier, the JSON key: "kprobes", "fentry", ... */
	const char *name; /* for people: "kprobes", "fentry/fexit", ... */
	bool ok;
	bool refused;  /* the kernel has it but said no (err says how: EPERM, ...) */
	char why[192]; /* when !ok: the reason, e.g. "kernel built without kprobes" */
	int err;       /* errno behind the reason, 0 if none */
};

/* Probed on first call for that facility, then cached. Never fails: !ok carries the reason. */
const struct bt_feature *bt_feature(enum bt_feat id);

/* The lockdown mode ("none", "integrity", "confidentiality"), or NULL when unknown. */
const char *bt_lockdown(void);

/* "EPERM; lockdown: confidentiality" (lockdown named when it can explain an EPERM), "ENOTSUPP". */
void bt_errno_why(char *buf, size_t size, int err);

/* An integer from a /proc/sys file: 0 or -errno. */
int bt_sysctl_int(const char *path, int *val);

#endif
