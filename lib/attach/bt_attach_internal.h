/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the attach layer only: the kernel-function half (lib/attach/bt_kfuncs.c,
 * lib/attach/bt_attach_kernel.c) and the user/tracepoint half (lib/attach/bt_resolve.c,
 * lib/attach/bt_attach_user.c) behind the public lib/attach/bt_attach.h, composed by lib/attach/bt_attach.c.
 *
 * Every attached target carries its index in struct bt_targets as the BPF attach cookie
 * (kprobe, kprobe.multi, uprobe, tracepoint, fentry via link cookies on 5.19+, USDT through
 * bpf_usdt_cookie()); probes/bt_attach.bpf.h reads it back. Without cookies (fentry before
 * 5.19, kprobes before 5.15) several kernel functions get a program each, the index patched into
 * its code (lib/attach/bt_attach_kernel.c).
 */
#ifndef BT_ATTACH_INTERNAL_H
#define BT_ATTACH_INTERNAL_H

#include "bt_attach.h"

/*
 * Append a BT_SPEC_KFUNC target for every traceable kernel function matching pattern (glob,
 * or POSIX ERE when regex). Traceable: in available_filter_functions when readable, else
 * kallsyms text symbols that have BTF; minus kprobes/blacklist; ".isra.N", ".constprop.N",
 * ".llvm.N" copies match their base name. The function list is read once per run.
 * Returns the number appended, or -errno (-BT_EUSAGE: bad regex, printed).
 */
int bt_kfuncs_match(const char *pattern, bool regex, bool retprobe, struct bt_targets *out);

/* Why a kernel function cannot be traced, for error messages: "no such function", ... */
const char *bt_kfuncs_why_not(const char *name);

/*
 * How one kernel function gets attached, from what is known about it: a pure function, so
 * that the rules (fentry before kprobe under auto, --attach forcing one, fentry needing BTF
 * for the function and attach cookies) are tested without a kernel.
 */
struct bt_kfunc_facts {
	bool fentry_prog;   /* the tool has an fentry (fexit, for returns) program */
	bool fentry_works;  /* the kernel loads and attaches fentry programs (probed) */
	bool fentry_cookie; /* ... and the index reaches the program (cookies, 5.19+, or inline) */
	bool has_btf;	    /* the function has vmlinux BTF (a ".isra.0" copy has none) */
	bool kprobe_prog;   /* the tool has a kprobe or kprobe.multi (kretprobe) program */
	bool kprobes_work;  /* kprobes (kretprobes, for returns) work here */
};
enum bt_kfunc_how {
	BT_KFUNC_NONE,
	BT_KFUNC_FENTRY,
	BT_KFUNC_KPROBE,
};
enum bt_kfunc_how bt_kfunc_choose(enum bt_attach_mode mode, const struct bt_kfunc_facts *f);

/*
 * Set the target index in a program's instructions, for kernels without attach cookies: the
 * low half of the tagged 64-bit constant of probes/bt_attach.bpf.h (the tag stays, so a loaded
 * program's final instructions can be patched again for each copy). Returns how many were set.
 */
struct bpf_insn;
int bt_attach_patch_index(struct bpf_insn *insns, size_t n, __u32 idx);

/* The kernel-function targets of a target list (others are skipped; indexes are global). */
struct bt_kattach;
struct bt_progress;
int bt_kattach__prepare(struct bpf_object *obj, const struct bt_attach_progs *progs,
			const struct bt_targets *targets, enum bt_attach_mode mode,
			struct bt_kattach **out);
/* Attach, counting each target tried into p (the progress line; NULL: none). */
int bt_kattach__commit(struct bt_kattach *k, struct bt_progress *p);
size_t bt_kattach__count(const struct bt_kattach *k);		   /* the targets it will attach */
const char *bt_kattach__how(const struct bt_kattach *k, size_t i); /* NULL: not a kernel target */
void bt_kattach__destroy(struct bt_kattach *k);

/* The user-function, USDT, tracepoint and syscall targets, likewise. */
struct bt_uattach;
int bt_uattach__prepare(struct bpf_object *obj, const struct bt_attach_progs *progs,
			const struct bt_targets *targets, struct bt_uattach **out);
int bt_uattach__commit(struct bt_uattach *u, struct bt_progress *p);
size_t bt_uattach__count(const struct bt_uattach *u);
const char *bt_uattach__how(const struct bt_uattach *u, size_t i);
void bt_uattach__destroy(struct bt_uattach *u);

/* Append a target to a list (copies the strings given). lib/attach/bt_targets.c */
int bt_targets__add(struct bt_targets *t, const struct bt_target *tmpl);
/* Drop the targets from the n-th on: a failed expansion leaves the list as it was. */
void bt_targets__truncate(struct bt_targets *t, size_t n);

#endif
