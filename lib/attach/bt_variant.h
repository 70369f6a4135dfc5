/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probe variants: which of a command's declared alternatives (struct bt_probe groups) this
 * kernel takes, decided by the kernel's BTF (a tracepoint's btf_trace_NAME prototype, a
 * function's FUNC prototype), never by its version. lib/attach/bt_skel.c applies the choice to a
 * skeleton; the logic is here, apart from any kernel, so the unit tests can drive it.
 */
#ifndef BT_VARIANT_H
#define BT_VARIANT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bt_cmd.h"

struct btf;

/* What a program's section attaches to, for the signature check. */
enum bt_point_kind {
	BT_POINT_OTHER,	     /* nothing to check (uprobes, perf events, ...) */
	BT_POINT_TP_BTF,     /* tp_btf/NAME */
	BT_POINT_RAW_TP,     /* raw_tp/NAME, raw_tracepoint/NAME */
	BT_POINT_TRACEPOINT, /* tracepoint/CAT/NAME, tp/CAT/NAME */
	BT_POINT_KPROBE,     /* kprobe/FUNC, kretprobe/FUNC */
	BT_POINT_FENTRY,     /* fentry/FUNC, fexit/FUNC */
};

struct bt_point {
	enum bt_point_kind kind;
	char category[64]; /* tracepoint/CAT/NAME only */
	char name[128];	   /* the tracepoint or the function */
};

/* Parse a section name ("?tp_btf/block_rq_issue", ...). Unknown sections are BT_POINT_OTHER. */
void bt_point_parse(const char *section, struct bt_point *pt);

/*
 * The C text of a BTF type ("struct request *", "const char **", "blk_status_t"):
 * typedefs are not resolved, qualifiers are kept. Returns 0, or -ENOSPC when buf is too small.
 */
int bt_btf_type_str(const struct btf *btf, __u32 id, char *buf, size_t size);

/*
 * Whether the probe point's prototype in btf matches sig (struct bt_probe.sig): 1 it does,
 * 0 it does not (why says how: "takes (struct request *)"), -ENOENT btf has no such
 * tracepoint or function. Types compare as text, white space aside. Tracepoints are looked up as the btf_trace_NAME typedef, whose
 * first parameter (the tracepoint's private data) is not part of sig.
 */
int bt_sig_match(const struct btf *btf, const struct bt_point *pt, const char *sig, char *why,
		 size_t whysize);

/* What the choice asks of the kernel; lib/attach/bt_skel.c asks the real one, the unit tests a fake. */
struct bt_probe_ops {
	/*
	 * Whether the kernel can take program 'prog' (its name) at its probe point, in the form
	 * declared with 'sig': 1 yes, 0 no ('why' says why), -errno when it cannot tell (tracefs
	 * unreadable: not "this kernel has none").
	 */
	int (*fits)(void *ctx, const char *prog, const char *sig, char *why, size_t whysize);
	/*
	 * Whether the kernel gives 'prog' one need (an enum bt_probe_needs bit); when not, 'why'
	 * may say why ("which lockdown=confidentiality refuses"). NULL: every need is met.
	 */
	bool (*has)(void *ctx, const char *prog, unsigned int need, char *why, size_t whysize);
	/* The program's section, for messages; NULL, or returning NULL: not named. */
	const char *(*section)(void *ctx, const char *prog);
	void *ctx;
};

struct bt_choice {
	const char *chosen; /* the program to load; NULL: none fits */
	int n;		    /* entries in the group (the caller's next group is probes + n) */
	bool optional;	    /* the group is BT_PROBE_OPTIONAL */
	int err;	    /* the first -errno of ops->fits: whether it fits is not known */
	bool unmet;	    /* a program's probe point is there, a need of it is not */
	char why[256];	    /* when nothing fits: each program and why it did not */
	char needs[192];    /* when unmet: "bpf_loop() (Linux 5.17) and ..., or ..." */
};

/*
 * The group of alternatives starting at probes[0] (that entry plus the BT_PROBE_ALT entries
 * after it): the first program that fits, with all its needs, trying each entry's prog, then
 * its fallback, in declaration order.
 */
void bt_probe_choose(const struct bt_probe *probes, const struct bt_probe_ops *ops,
		     struct bt_choice *out);

/*
 * A whole table ({ NULL }-terminated): which programs load. chosen has an element per entry:
 * at a group's first entry the program it loads, else NULL. Applies every rule of struct
 * bt_probe (groups, optional, paired, any, with, needs). Returns 0; -EOPNOTSUPP with the
 * one line saying why in msg; or the -errno of ops->fits (msg empty).
 */
int bt_probes_select(const struct bt_probe *probes, const struct bt_probe_ops *ops,
		     const char **chosen, char *msg, size_t msgsize);

/* How many entries a table has, its { NULL } aside. */
size_t bt_probes_count(const struct bt_probe *probes);

#endif
