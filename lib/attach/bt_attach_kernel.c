// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel-function half of the attach layer: per target, fentry/fexit when the kernel
 * really takes it (probed once, lib/kernel/bt_features.c) and the function has BTF, else
 * kprobe/kretprobe; many kprobes go through one kprobe.multi link when the kernel has it.
 *
 * fentry's target is fixed when a program is loaded, so N functions need N programs: the
 * command's generic program is loaded once as a template (attached to the first target), and
 * every other target gets a clone of its final instructions loaded with that function's BTF
 * id, as retsnoop's mass attacher does. Every link carries its target's index as the attach
 * cookie (probes/bt_attach.bpf.h), which fentry supports from 5.19 and kprobes from 5.15. On
 * older kernels one target needs no index; several get a program each, fentry and kprobe alike,
 * with its index patched into the instructions ("inline index"), as libbpf-tools' funclatency
 * does with a program per function. Each fentry/fexit program also gets its function's number
 * of arguments patched in, which is how one reads arguments and the return value without
 * bpf_get_func_arg()/bpf_get_func_ret() (5.17; probes/bt_attach.bpf.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "bt_attach_index.h"
#include "bt_attach_internal.h"
#include "bt_err.h"
#include "bt_features.h"
#include "bt_kernel.h"
#include "bt_kfuncs.h"
#include "bt_loop.h"
#include "bt_progress.h"
#include "bt_rodata.h"
#include "bt_vmlinux_btf.h"

enum kmech {
	KM_NONE,
	KM_FENTRY,
	KM_KPROBE,
	KM_KPROBE_MULTI,
};

static const char *const mech_names[] = {
	[KM_NONE] = "failed",
	[KM_FENTRY] = "fentry",
	[KM_KPROBE] = "kprobe",
	[KM_KPROBE_MULTI] = "kprobe.multi",
};

static const char *const return_mech_names[] = {
	[KM_NONE] = "failed",
	[KM_FENTRY] = "fexit",
	[KM_KPROBE] = "kretprobe",
	[KM_KPROBE_MULTI] = "kretprobe.multi",
};

struct ktarget {
	size_t idx; /* position in the caller's targets: the cookie */
	const struct bt_target *t;
	enum kmech how;
	int btf_id;	       /* fentry: the function's vmlinux BTF id */
	__u32 nargs;	       /* fentry: its number of arguments (BT_ATTACH_NARGS_TAG) */
	struct bpf_link *link; /* kprobe */
	int prog_fd, link_fd;  /* fentry: a clone (-1: the template itself) and its link;
				* kprobe with an inline index: a clone and its perf event */
};

struct bt_kattach {
	const struct bt_attach_progs *progs;
	struct ktarget *v;
	size_t n;
	size_t ntargets;
	ssize_t *pos;		   /* target index -> position in v, -1 for other kinds */
	struct bt_target *copies;  /* the targets' compiler copies, each after its target in v */
	struct bpf_link *multi[2]; /* kprobe.multi for entries [0] and returns [1] */
	bool use_multi[2];
	const char *tmpl_func[2]; /* the function each fentry/fexit template was loaded for */
	bool inline_index;	  /* no attach cookies: the index is in each program's code */
	ssize_t kp_tmpl[2];	  /* inline index: the kprobe/kretprobe template's target (in v) */
	size_t attached, failed;
};

int bt_attach_mode_parse(const char *s, enum bt_attach_mode *mode)
{
	if (!strcmp(s, "auto"))
		*mode = BT_ATTACH_AUTO;
	else if (!strcmp(s, "fentry"))
		*mode = BT_ATTACH_FENTRY;
	else if (!strcmp(s, "kprobe"))
		*mode = BT_ATTACH_KPROBE;
	else
		return bt_usage_err("unknown attach mode '%s' (auto, fentry or kprobe)", s);
	return 0;
}

const char *bt_attach_mode_name(enum bt_attach_mode mode)
{
	switch (mode) {
	case BT_ATTACH_AUTO:
		return "auto";
	case BT_ATTACH_FENTRY:
		return "fentry";
	case BT_ATTACH_KPROBE:
		return "kprobe";
	}
	return "?";
}

static struct bpf_program *entry_prog(const struct bt_attach_progs *p, bool ret, enum kmech m)
{
	switch (m) {
	case KM_FENTRY:
		return ret ? p->fexit : p->fentry;
	case KM_KPROBE:
		return ret ? p->kretprobe : p->kprobe;
	case KM_KPROBE_MULTI:
		return ret ? p->kretprobe_multi : p->kprobe_multi;
	default:
		return NULL;
	}
}

/* Why fentry cannot take this target, or NULL when it can. */
static const char *fentry_why_not(const struct bt_attach_progs *p, const struct ktarget *k,
				  char *buf, size_t size)
{
	const struct bt_feature *f = bt_feature(BT_FEAT_FENTRY);
	char why[96];

	if (!entry_prog(p, k->t->retprobe, KM_FENTRY))
		return k->t->retprobe ? "this tool has no fexit program"
				      : "this tool has no fentry program";
	if (!f->ok) {
		if (f->refused) {
			bt_errno_why(why, sizeof(why), f->err);
			snprintf(buf, size, "fentry refused (%s)", why);
		} else {
			snprintf(buf, size, "fentry: %.160s", f->why);
		}
		return buf;
	}
	f = bt_feature(BT_FEAT_FENTRY_COOKIE);
	if (!f->ok)
		return "fentry attach cookies need kernel 5.19 or later";
	if (k->btf_id <= 0) {
		snprintf(buf, size, "'%s' has no BTF, which fentry needs", k->t->func);
		return buf;
	}
	return NULL;
}

static const char *kprobe_why_not(const struct bt_attach_progs *p, const struct ktarget *k,
				  char *buf, size_t size)
{
	const struct bt_feature *f;
	char why[96];

	if (!entry_prog(p, k->t->retprobe, KM_KPROBE) &&
	    !entry_prog(p, k->t->retprobe, KM_KPROBE_MULTI))
		return k->t->retprobe ? "this tool has no kretprobe program"
				      : "this tool has no kprobe program";
	f = bt_feature(k->t->retprobe ? BT_FEAT_KRETPROBES : BT_FEAT_KPROBES);
	if (f->ok)
		return NULL;
	if (f->refused) {
		bt_errno_why(why, sizeof(why), f->err);
		snprintf(buf, size, "%s refused (%s)", k->t->retprobe ? "kretprobes" : "kprobes",
			 why);
		return buf;
	}
	return f->why;
}

enum bt_kfunc_how bt_kfunc_choose(enum bt_attach_mode mode, const struct bt_kfunc_facts *f)
{
	bool fentry = f->fentry_prog && f->fentry_works && f->fentry_cookie && f->has_btf;
	bool kprobe = f->kprobe_prog && f->kprobes_work;

	/* fentry first: cheaper per call than a kprobe's trap, and no kprobe blacklist */
	if (mode != BT_ATTACH_KPROBE && fentry)
		return BT_KFUNC_FENTRY;
	if (mode != BT_ATTACH_FENTRY && kprobe)
		return BT_KFUNC_KPROBE;
	return BT_KFUNC_NONE;
}

/* The fentry half of the facts, probing no more than fentry_why_not() would. */
static void fentry_facts(const struct bt_attach_progs *p, const struct ktarget *k,
			 struct bt_kfunc_facts *f)
{
	f->fentry_prog = entry_prog(p, k->t->retprobe, KM_FENTRY) != NULL;
	f->fentry_works = f->fentry_prog && bt_feature(BT_FEAT_FENTRY)->ok;
	f->fentry_cookie = f->fentry_works && bt_feature(BT_FEAT_FENTRY_COOKIE)->ok;
	f->has_btf = k->btf_id > 0;
}

/* bpf_get_attach_cookie() in kprobe programs: 5.15, with the perf-event links that carry it. */
static bool kprobe_cookie_ok(void)
{
	static int ok = -1;

	if (ok < 0)
		ok = bt_kernel_has_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_get_attach_cookie);
	return ok;
}

/* Set val in the low half of every 64-bit immediate load whose high half is tag. */
static int patch_tag(struct bpf_insn *insns, size_t n, __u32 tag, __u32 val)
{
	size_t i;
	int found = 0;

	for (i = 0; i + 1 < n; i++) {
		if (insns[i].code != (BPF_LD | BPF_IMM | BPF_DW))
			continue;
		if (!insns[i].src_reg && (__u32)insns[i + 1].imm == tag) {
			insns[i].imm = (__s32)val;
			found++;
		}
		i++; /* the second half of the 16-byte load */
	}
	return found;
}

int bt_attach_patch_index(struct bpf_insn *insns, size_t n, __u32 idx)
{
	return patch_tag(insns, n, BT_ATTACH_INDEX_TAG, idx);
}

/* The number of arguments of function id (its prototype's parameters); 0 when unknown. */
static __u32 func_nargs(const struct btf *btf, int id)
{
	const struct btf_type *t = id > 0 ? btf__type_by_id(btf, id) : NULL;

	t = t && btf_is_func(t) ? btf__type_by_id(btf, t->type) : NULL;
	return t && btf_is_func_proto(t) ? btf_vlen(t) : 0;
}

/* Before load: the fentry/fexit template serves a function of nargs arguments. */
static int set_template_nargs(struct bpf_program *prog, __u32 nargs)
{
	size_t n = bpf_program__insn_cnt(prog);
	struct bpf_insn *insns = malloc(n * sizeof(*insns));
	int err = 0;

	if (!insns)
		return -ENOMEM;
	memcpy(insns, bpf_program__insns(prog), n * sizeof(*insns));
	if (patch_tag(insns, n, BT_ATTACH_NARGS_TAG, nargs))
		err = bpf_program__set_insns(prog, insns, n);
	free(insns);
	return err;
}

/* A copy of prog's instructions (final ones once loaded) with the index idx; NULL on ENOMEM. */
static struct bpf_insn *insns_with_index(const struct bpf_program *prog, __u32 idx)
{
	size_t n = bpf_program__insn_cnt(prog);
	struct bpf_insn *insns = malloc(n * sizeof(*insns));

	if (insns) {
		memcpy(insns, bpf_program__insns(prog), n * sizeof(*insns));
		bt_attach_patch_index(insns, n, idx);
	}
	return insns;
}

/* Before load: the template program serves target idx. */
static int set_template_index(struct bpf_program *prog, __u32 idx)
{
	struct bpf_insn *insns = insns_with_index(prog, idx);
	int err;

	if (!insns)
		return -ENOMEM;
	err = bpf_program__set_insns(prog, insns, bpf_program__insn_cnt(prog));
	free(insns);
	return err;
}

static void kprobe_facts(const struct bt_attach_progs *p, const struct ktarget *k,
			 struct bt_kfunc_facts *f)
{
	bool ret = k->t->retprobe;

	f->kprobe_prog = entry_prog(p, ret, KM_KPROBE) || entry_prog(p, ret, KM_KPROBE_MULTI);
	f->kprobes_work =
		f->kprobe_prog && bt_feature(ret ? BT_FEAT_KRETPROBES : BT_FEAT_KPROBES)->ok;
}

static void disable(struct bpf_program *prog)
{
	if (prog) {
		bpf_program__set_autoload(prog, false);
		bpf_program__set_autoattach(prog, false);
	}
}

static void enable(struct bpf_program *prog)
{
	if (prog) {
		bpf_program__set_autoload(prog, true);
		/* Never through skel__attach(): only this layer knows the targets. */
		bpf_program__set_autoattach(prog, false);
	}
}

/* One error line for a target nothing can attach: what was tried and why each failed. */
static void report_unattachable(const struct bt_kattach *k, const struct ktarget *kt,
				enum bt_attach_mode mode, size_t nbad)
{
	char fb[256], kb[256], more[48] = "";
	const char *fw = NULL, *kw = NULL, *why;

	/* A function the kernel cannot trace by any means: say that, not how each mode failed. */
	why = bt_kfuncs_why_not(kt->t->func);
	if (nbad > 1)
		snprintf(more, sizeof(more), " (and %zu more)", nbad - 1);
	if (why && (!strcmp(why, "no such function") || !strncmp(why, "function is not", 15) ||
		    !strcmp(why, "not a function"))) {
		bt_err("cannot trace '%s'%s: %s", kt->t->func, more, why);
		return;
	}
	if (mode != BT_ATTACH_KPROBE)
		fw = fentry_why_not(k->progs, kt, fb, sizeof(fb));
	if (mode != BT_ATTACH_FENTRY)
		kw = kprobe_why_not(k->progs, kt, kb, sizeof(kb));
	bt_err("cannot trace '%s'%s: %s%s%s", kt->t->func, more, fw ? fw : "", fw && kw ? "; " : "",
	       kw ? kw : "");
}

/*
 * k->v: the kernel-function targets in order, each followed by its compiler copies when it
 * asks for them (t->copies), which share its index.
 */
static int list_ktargets(struct bt_kattach *k, const struct bt_targets *targets)
{
	const char **names = NULL;
	size_t i, j, m, ncopies = 0, used = 0;
	int err = 0;

	for (i = 0; i < targets->n; i++)
		if (targets->v[i].kind == BT_SPEC_KFUNC && targets->v[i].copies)
			ncopies += bt_kfunc_copies(targets->v[i].func, NULL, 0);
	k->pos = malloc((targets->n ? targets->n : 1) * sizeof(*k->pos));
	k->v = calloc(targets->n + ncopies ? targets->n + ncopies : 1, sizeof(*k->v));
	k->copies = calloc(ncopies ? ncopies : 1, sizeof(*k->copies));
	names = calloc(ncopies ? ncopies : 1, sizeof(*names));
	if (!k->pos || !k->v || !k->copies || !names) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (i = 0; i < targets->n; i++) {
		const struct bt_target *t = &targets->v[i];

		k->pos[i] = -1;
		if (t->kind != BT_SPEC_KFUNC)
			continue;
		k->pos[i] = k->n;
		k->v[k->n].idx = i;
		k->v[k->n++].t = t;
		m = t->copies ? bt_kfunc_copies(t->func, names + used, ncopies - used) : 0;
		for (j = 0; j < m && used < ncopies; j++, used++) {
			struct bt_target *c = &k->copies[used];

			*c = *t;
			c->func = (char *)names[used];
			c->copies = false;
			bt_debug("'%s' has a compiler copy '%s': attached too", t->func, c->func);
			k->v[k->n].idx = i;
			k->v[k->n++].t = c;
		}
	}
	for (i = 0; i < k->n; i++)
		k->v[i].prog_fd = k->v[i].link_fd = -1;
cleanup:
	free(names);
	return err;
}

int bt_kattach__prepare(struct bpf_object *obj, const struct bt_attach_progs *progs,
			const struct bt_targets *targets, enum bt_attach_mode mode,
			struct bt_kattach **out)
{
	struct bpf_program *tmpl[2] = {};
	struct bt_kfunc_facts facts;
	struct btf *btf = NULL;
	struct bt_kattach *k;
	size_t i, nkp[2] = {}, nbad = 0, nbad_entry = 0, nentry = 0, first_bad = 0, nuser = 0;
	bool nofentry_cookie = false, nokprobe_cookie = false;
	int err = 0;

	*out = NULL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->progs = progs;
	k->ntargets = targets->n;
	k->kp_tmpl[0] = k->kp_tmpl[1] = -1;
	for (i = 0; i < targets->n; i++)
		nuser += targets->v[i].kind != BT_SPEC_KFUNC;
	err = list_ktargets(k, targets);
	if (err)
		goto cleanup;
	disable(progs->fentry);
	disable(progs->fexit);
	disable(progs->kprobe);
	disable(progs->kretprobe);
	disable(progs->kprobe_multi);
	disable(progs->kretprobe_multi);

	for (i = 0; i < k->n; i++) {
		struct ktarget *kt = &k->v[i];
		const struct bt_target *t = kt->t;

		memset(&facts, 0, sizeof(facts));
		if (mode != BT_ATTACH_KPROBE) {
			if (!btf)
				btf = bt_vmlinux_btf();
			/* A ".isra.0" copy has no BTF of its own; only its base name does. */
			kt->btf_id = btf && !strcmp(t->func, t->name)
					     ? btf__find_by_name_kind(btf, t->func, BTF_KIND_FUNC)
					     : -ENOENT;
			kt->nargs = btf ? func_nargs(btf, kt->btf_id) : 0;
			fentry_facts(progs, kt, &facts);
			/*
			 * Without fentry cookies, one target needs no index, and several kernel
			 * functions get one fentry program each with its index inline; only user
			 * targets beside them (which take the same programs' index from a cookie)
			 * leave fentry to kprobes.
			 */
			if (facts.fentry_works && !facts.fentry_cookie && !nuser) {
				facts.fentry_cookie = true;
				nofentry_cookie = true;
			}
			if (bt_kfunc_choose(mode, &facts) == BT_KFUNC_FENTRY) {
				kt->how = KM_FENTRY;
				if (!tmpl[t->retprobe]) {
					tmpl[t->retprobe] =
						entry_prog(progs, t->retprobe, KM_FENTRY);
					k->tmpl_func[t->retprobe] = t->func;
					err = bpf_program__set_attach_target(tmpl[t->retprobe], 0,
									     t->func)
						      ?: set_template_nargs(tmpl[t->retprobe],
									    kt->nargs);
					if (err) {
						bt_err("cannot set the fentry target '%s': %s",
						       t->func, strerror(-err));
						goto cleanup;
					}
				}
				continue;
			}
		}
		if (mode != BT_ATTACH_FENTRY)
			kprobe_facts(progs, kt, &facts);
		if (bt_kfunc_choose(mode, &facts) == BT_KFUNC_KPROBE) {
			kt->how = KM_KPROBE;
			if (k->kp_tmpl[t->retprobe] < 0)
				k->kp_tmpl[t->retprobe] = i;
			nkp[t->retprobe]++;
			continue;
		}
		if (!nbad++)
			first_bad = i;
		nbad_entry += !t->retprobe;
	}
	/* A function's entry and return probes are one function to the user. */
	for (i = 0; i < k->n; i++)
		nentry += !k->v[i].t->retprobe;
	if (nbad) {
		/*
		 * Drop what cannot be attached as long as something remains: a wildcard under
		 * --attach=fentry still matches .isra copies, which only kprobes can take.
		 */
		if (nbad == k->n) {
			report_unattachable(k, &k->v[first_bad], mode,
					    nbad_entry ? nbad_entry : nbad);
			err = -EOPNOTSUPP;
			goto cleanup;
		}
		bt_warn("%zu of %zu kernel functions cannot be traced, '%s' among them",
			nentry ? nbad_entry : nbad, nentry ? nentry : k->n,
			k->v[first_bad].t->func);
	}
	enable(tmpl[0]);
	enable(tmpl[1]);
	/* Several targets and no cookie for a mechanism in use: every program its own index. */
	nokprobe_cookie = (nkp[0] || nkp[1]) && !kprobe_cookie_ok();
	if (targets->n > 1 && (nofentry_cookie || nokprobe_cookie) && !nuser) {
		bool on = true;

		err = bt_rodata_set(obj, "bt_attach_index_inline", &on, sizeof(on));
		if (err) {
			bt_err("cannot trace several kernel functions on this kernel (no attach "
			       "cookies) with this tool's programs: %s",
			       strerror(-err));
			goto cleanup;
		}
		k->inline_index = true;
		for (i = 0; i < k->n; i++) {
			struct ktarget *kt = &k->v[i];
			bool ret = kt->t->retprobe;

			if (kt->how == KM_FENTRY && !strcmp(k->tmpl_func[ret], kt->t->func))
				err = set_template_index(tmpl[ret], kt->idx);
			else if (kt->how == KM_KPROBE && k->kp_tmpl[ret] == (ssize_t)i)
				err = set_template_index(entry_prog(progs, ret, KM_KPROBE),
							 kt->idx);
			if (err)
				goto cleanup;
		}
		bt_debug("no attach cookies for %s%s%s: one program per kernel function",
			 nofentry_cookie ? "fentry" : "",
			 nofentry_cookie && nokprobe_cookie ? ", " : "",
			 nokprobe_cookie ? "kprobes" : "");
	}
	for (i = 0; i < 2; i++) {
		struct bpf_program *multi = entry_prog(progs, i, KM_KPROBE_MULTI);
		struct bpf_program *single = entry_prog(progs, i, KM_KPROBE);

		if (!nkp[i])
			continue;
		/* kprobe.multi programs take the index from the cookie only */
		k->use_multi[i] = multi && (nkp[i] > 1 || !single) && !k->inline_index &&
				  bt_feature(BT_FEAT_KPROBE_MULTI)->ok;
		if (k->use_multi[i])
			enable(multi);
		/* The single program also loads with multi: the fallback if the batch fails. */
		enable(single);
		if (!k->use_multi[i] && !single) {
			bt_err("cannot trace kernel functions: this tool has only kprobe.multi "
			       "programs "
			       "and the kernel has no kprobe.multi (%s)",
			       bt_feature(BT_FEAT_KPROBE_MULTI)->why);
			err = -EOPNOTSUPP;
			goto cleanup;
		}
	}
	for (i = 0; i < k->n; i++)
		if (k->v[i].how == KM_KPROBE && k->use_multi[k->v[i].t->retprobe])
			k->v[i].how = KM_KPROBE_MULTI;
	*out = k;
	k = NULL;
cleanup:
	bt_kattach__destroy(k);
	return err;
}

/*
 * Load a copy of prog's final instructions for kt: its index patched in when inline, and an
 * fentry/fexit program's argument count.
 */
static int load_copy(const struct bt_kattach *k, const struct bpf_program *prog,
		     enum bpf_prog_type type, const struct ktarget *kt,
		     struct bpf_prog_load_opts *popts)
{
	const struct bpf_insn *insns = bpf_program__insns(prog);
	size_t n = bpf_program__insn_cnt(prog);
	struct bpf_insn *copy = NULL;
	int fd;

	if (k->inline_index || type == BPF_PROG_TYPE_TRACING) {
		copy = k->inline_index ? insns_with_index(prog, kt->idx)
				       : malloc(n * sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		if (!k->inline_index)
			memcpy(copy, insns, n * sizeof(*copy));
		/* the template's own count is in its final instructions: this function's */
		if (type == BPF_PROG_TYPE_TRACING)
			patch_tag(copy, n, BT_ATTACH_NARGS_TAG, kt->nargs);
		insns = copy;
	}
	fd = bpf_prog_load(type, bpf_program__name(prog), "GPL", insns, bpf_program__insn_cnt(prog),
			   popts);
	if (fd < 0)
		fd = -errno;
	free(copy);
	return fd;
}

/*
 * A kprobe for a program loaded here (libbpf attaches only its own): through the kprobe PMU,
 * which every kernel without kprobe cookies that runs BPF CO-RE has (4.17+). The perf event's
 * fd is the link: closing it removes the probe.
 */
static int perf_kprobe_attach(const char *func, bool ret, int prog_fd)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	char buf[32];
	int fd, err, bit = 0;
	FILE *f;

	f = fopen("/sys/bus/event_source/devices/kprobe/type", "re");
	if (!f)
		return -errno;
	err = fgets(buf, sizeof(buf), f) ? 0 : -EIO;
	fclose(f);
	if (err)
		return err;
	attr.type = atoi(buf);
	if (ret) {
		f = fopen("/sys/bus/event_source/devices/kprobe/format/retprobe", "re");
		if (f) {
			if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "config:%d", &bit) != 1)
				bit = 0;
			fclose(f);
		}
		attr.config = 1ULL << bit;
	}
	attr.config1 = (__u64)(unsigned long)func;
	fd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static int attach_fentry(struct bt_kattach *k, struct ktarget *kt)
{
	struct bpf_program *prog = entry_prog(k->progs, kt->t->retprobe, KM_FENTRY);
	enum bpf_attach_type type = kt->t->retprobe ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY;
	LIBBPF_OPTS(bpf_link_create_opts, lopts, .tracing.cookie = kt->idx);
	LIBBPF_OPTS(bpf_prog_load_opts, popts, .expected_attach_type = type);
	int fd = bpf_program__fd(prog);

	/* The template was loaded for one of the targets and serves that one itself. */
	if (strcmp(k->tmpl_func[kt->t->retprobe], kt->t->func)) {
		popts.attach_btf_id = kt->btf_id;
		popts.prog_flags = bpf_program__flags(prog);
		fd = load_copy(k, prog, BPF_PROG_TYPE_TRACING, kt, &popts);
		if (fd < 0)
			return fd;
		kt->prog_fd = fd;
	}
	/* without cookies (before 5.19) the field is not there: the index is in the code */
	if (k->inline_index || k->ntargets == 1)
		lopts.tracing.cookie = 0;
	kt->link_fd = bpf_link_create(fd, 0, type, &lopts);
	if (kt->link_fd < 0)
		return -errno;
	return 0;
}

static int attach_kprobe(struct bt_kattach *k, struct ktarget *kt)
{
	LIBBPF_OPTS(bpf_kprobe_opts, opts, .bpf_cookie = kt->idx, .retprobe = kt->t->retprobe);
	struct bpf_program *prog = entry_prog(k->progs, kt->t->retprobe, KM_KPROBE);

	if (!prog)
		return -EOPNOTSUPP;
	if (k->inline_index) {
		LIBBPF_OPTS(bpf_prog_load_opts, popts);
		int fd;

		/* the template serves its own target, with no cookie (a perf link needs 5.15) */
		opts.bpf_cookie = 0;
		if (k->kp_tmpl[kt->t->retprobe] != kt - k->v) {
			popts.prog_flags = bpf_program__flags(prog);
			fd = load_copy(k, prog, BPF_PROG_TYPE_KPROBE, kt, &popts);
			if (fd < 0)
				return fd;
			kt->prog_fd = fd;
			fd = perf_kprobe_attach(kt->t->func, kt->t->retprobe, fd);
			if (fd < 0)
				return fd;
			kt->link_fd = fd;
			return 0;
		}
	}
	kt->link = bpf_program__attach_kprobe_opts(prog, kt->t->func, &opts);
	if (!kt->link)
		return -errno;
	return 0;
}

/* All kprobe targets of one direction in one link; on failure they go one by one. */
static int attach_multi(struct bt_kattach *k, bool ret, struct bt_progress *p)
{
	LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .retprobe = ret);
	const char **syms = NULL;
	__u64 *cookies = NULL;
	size_t i, n = 0;
	int err = 0;

	syms = calloc(k->n, sizeof(*syms));
	cookies = calloc(k->n, sizeof(*cookies));
	if (!syms || !cookies) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (i = 0; i < k->n; i++) {
		if (k->v[i].how != KM_KPROBE_MULTI || k->v[i].t->retprobe != ret)
			continue;
		syms[n] = k->v[i].t->func;
		cookies[n++] = k->v[i].idx;
	}
	opts.syms = syms;
	opts.cookies = cookies;
	opts.cnt = n;
	k->multi[ret] = bpf_program__attach_kprobe_multi_opts(
		entry_prog(k->progs, ret, KM_KPROBE_MULTI), NULL, &opts);
	if (!k->multi[ret]) {
		err = -errno;
		bt_debug("kprobe.multi with %zu functions failed (%s); one link per function", n,
			 strerror(-err));
		for (i = 0; i < k->n; i++)
			if (k->v[i].how == KM_KPROBE_MULTI && k->v[i].t->retprobe == ret)
				k->v[i].how = KM_KPROBE;
		err = 0;
	} else {
		k->attached += n;
		bt_progress_add(p, n);
	}
cleanup:
	free(syms);
	free(cookies);
	return err;
}

int bt_kattach__commit(struct bt_kattach *k, struct bt_progress *p)
{
	const struct ktarget *first_fail = NULL;
	int first_err = 0, err;
	char why[96];
	size_t i, pass;

	if (!k || !k->n)
		return 0;
	for (i = 0; i < 2; i++) {
		if (!k->use_multi[i])
			continue;
		if (bt_stop_requested())
			return -EINTR;
		err = attach_multi(k, i, p);
		if (err)
			return err;
	}
	/*
	 * Returns first: kprobes at one address run newest first, and a kretprobe's runs replace
	 * the return address on the stack with its trampoline, which the kernel's unwinder before
	 * 5.14 cannot step through ("do_nanosleep; elfcorehdr_read" for a whole syscall path in an
	 * entry program's kernel stack on 5.10). Attached after, the entry runs first.
	 */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < k->n; i++) {
			struct ktarget *kt = &k->v[i];

			if ((kt->how != KM_FENTRY && kt->how != KM_KPROBE) ||
			    kt->t->retprobe != !pass)
				continue;
			if (bt_stop_requested())
				return -EINTR;
			err = kt->how == KM_FENTRY ? attach_fentry(k, kt) : attach_kprobe(k, kt);
			bt_progress_add(p, 1);
			if (err) {
				bt_debug("cannot attach %s to '%s': %s", mech_names[kt->how],
					 kt->t->func, strerror(-err));
				if (!first_fail) {
					first_fail = kt;
					first_err = err;
				}
				kt->how = KM_NONE;
				k->failed++;
				continue;
			}
			k->attached++;
		}
	}
	if (bt_debug_enabled()) {
		size_t cnt[4] = {};

		for (i = 0; i < k->n; i++)
			cnt[k->v[i].how]++;
		bt_debug("kernel functions: %zu fentry, %zu kprobe, %zu kprobe.multi, %zu failed",
			 cnt[KM_FENTRY], cnt[KM_KPROBE], cnt[KM_KPROBE_MULTI], cnt[KM_NONE]);
	}
	if (k->failed) {
		const char *reason = bt_kfuncs_why_not(first_fail->t->func);

		bt_progress_clear(p);
		bt_errno_why(why, sizeof(why), -first_err);
		if (!reason)
			reason = why;
		if (!k->attached) {
			if (k->n == 1)
				bt_err("cannot attach to '%s': %s", first_fail->t->func, reason);
			else
				bt_err("cannot attach to any of %zu kernel functions ('%s': %s)",
				       k->n, first_fail->t->func, reason);
			return first_err;
		}
		bt_warn("%zu of %zu kernel functions could not be attached ('%s': %s)", k->failed,
			k->n, first_fail->t->func, reason);
	}
	return 0;
}

size_t bt_kattach__count(const struct bt_kattach *k)
{
	return k ? k->n : 0;
}

const char *bt_kattach__how(const struct bt_kattach *k, size_t i)
{
	const struct ktarget *kt;

	if (!k || i >= k->ntargets || k->pos[i] < 0)
		return NULL;
	/* a target with compiler copies: how the first of them that is attached is */
	for (kt = &k->v[k->pos[i]]; kt < k->v + k->n && kt->idx == i && !kt->how; kt++)
		;
	if (kt == k->v + k->n || kt->idx != i)
		kt = &k->v[k->pos[i]];
	return (kt->t->retprobe ? return_mech_names : mech_names)[kt->how];
}

void bt_kattach__destroy(struct bt_kattach *k)
{
	unsigned int seen = bt_stop_signals();
	size_t i;

	if (!k)
		return;
	for (i = 0; i < 2; i++)
		bpf_link__destroy(k->multi[i]);
	for (i = 0; k->v && i < k->n; i++) {
		struct ktarget *kt = &k->v[i];

		if (kt->link || kt->link_fd >= 0)
			bt_detach_note(&seen, k->n - i, k->n, "kernel function probes");

		/* libbpf removes a legacy tracefs kprobe event with its link. */
		bpf_link__destroy(kt->link);
		if (kt->link_fd >= 0)
			close(kt->link_fd);
		if (kt->prog_fd >= 0)
			close(kt->prog_fd);
	}
	free(k->v);
	free(k->pos);
	free(k->copies);
	free(k);
}
