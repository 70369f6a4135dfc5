// SPDX-License-Identifier: GPL-2.0
/*
 * The user-function, USDT, tracepoint and syscall half of the attach layer. Every link carries
 * its target's index as the BPF cookie (uprobe and tracepoint perf links, the USDT cookie), so
 * one generic program per mechanism serves any number of targets.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

#include "bt_argp.h"
#include "bt_attach_internal.h"
#include "bt_env.h"
#include "bt_err.h"
#include "bt_errno.h"
#include "bt_features.h"
#include "bt_loop.h"
#include "bt_procfile.h"
#include "bt_progress.h"
#include "bt_syscalls.h"

/*
 * uprobe.multi (6.6): all the functions of one file in one link, made and removed in one
 * step. Perf-event uprobes are removed one by one, each waiting for an RCU grace period
 * (~0.13 s on 6.18): 320 of them took 40 s to detach, and a Ctrl-C had to wait for that.
 * libbpf 1.1 and these headers predate it, so the link is made with bpf() directly.
 */
#define BT_TRACE_UPROBE_MULTI 48
#define BT_F_UPROBE_MULTI_RETURN 1
/*
 * uprobe.session (6.13): one program runs at a function's entry and, when it returned 0 there,
 * at its return, through one link. Entry and return links would cost two removals at exit,
 * each waiting for the kernel's uprobe grace periods (30-50 ms on 6.18, serialized).
 */
#define BT_TRACE_UPROBE_SESSION 57

/* From this many perf-event probes on, a detach takes a second or more (~0.1 s each). */
#define BT_SLOW_DETACH 10

enum urole {
	UR_OWN = 0,	/* a link (or a share of a uprobe.multi link) of its own */
	UR_SESSION,	/* an entry whose session link also runs at its return */
	UR_SESSION_RET, /* that return: carried by its entry's link */
};

struct bt_umulti_attr { /* union bpf_attr's link_create with its uprobe_multi member */
	__u32 prog_fd;
	__u32 target_fd;
	__u32 attach_type;
	__u32 flags;
	__aligned_u64 path;
	__aligned_u64 offsets;
	__aligned_u64 ref_ctr_offsets;
	__aligned_u64 cookies;
	__u32 cnt;
	__u32 umulti_flags;
	__u32 pid;
};

/* union bpf_attr's raw_tracepoint member, with the cookie 6.10 added (libbpf 1.1 lacks it) */
struct bt_raw_tp_attr {
	__u64 name;
	__u32 prog_fd;
	__u32 pad;
	__u64 cookie;
};

static const char HOW_SYSCALL[] = "raw syscall tracepoint";
static const char HOW_RAW_TP[] = "raw_tp";

struct bt_uattach {
	const struct bt_targets *targets; /* the caller's; must live until destroy */
	struct bt_attach_progs progs;
	struct bpf_object *obj;
	struct bpf_link **links;
	const char **how;
	size_t nuser;
	int *sysnr;		      /* HOW_SYSCALL targets: the system call number; else -1 */
	int *raw_fd;		      /* HOW_RAW_TP targets: the link, once made; else -1 */
	struct bpf_link *sys_link[2]; /* sys_enter, sys_exit: one link each for all syscalls */
	bool sys_used[2];
	bool multi;	     /* user functions through uprobe.multi links */
	unsigned char *role; /* enum urole, per target */
	int *mfd;	     /* those links: one per file, direction and pid */
	size_t nmfd;
};

static bool is_user(const struct bt_target *t)
{
	return t->kind != BT_SPEC_KFUNC;
}

static struct bpf_program *prog_for(const struct bt_attach_progs *p, const struct bt_target *t,
				    const char **how)
{
	switch (t->kind) {
	case BT_SPEC_UFUNC:
		*how = t->retprobe ? "uretprobe" : "uprobe";
		return t->retprobe ? p->uretprobe : p->uprobe;
	case BT_SPEC_USDT:
		*how = "usdt";
		return p->usdt;
	case BT_SPEC_TRACEPOINT:
	case BT_SPEC_SYSCALL:
		*how = "tracepoint";
		return t->retprobe && p->tracepoint_ret ? p->tracepoint_ret : p->tracepoint;
	default:
		return NULL;
	}
}

static const char *kind_name(const struct bt_target *t)
{
	switch (t->kind) {
	case BT_SPEC_UFUNC:
		return t->retprobe ? "user function returns" : "user functions";
	case BT_SPEC_USDT:
		return "USDT probes";
	case BT_SPEC_TRACEPOINT:
		return "tracepoints";
	case BT_SPEC_SYSCALL:
		return "system calls";
	default:
		return "kernel functions";
	}
}

/* BPFTOOLS_NO_UPROBE_SESSION=1 keeps separate entry and return links where sessions work. */
static bool use_session(const struct bt_attach_progs *progs)
{
	if (!progs->usession || bt_env_flag("BPFTOOLS_NO_UPROBE_SESSION"))
		return false;
	return bt_feature(BT_FEAT_UPROBE_SESSION)->ok;
}

/*
 * BPFTOOLS_NO_RAW_TRACEPOINTS=1 takes the perf-event tracepoint path older kernels (and tools
 * without the programs) get: one perf event per tracepoint, each removed in ~75 ms.
 */
static bool use_raw_tracepoints(void)
{
	return !bt_env_flag("BPFTOOLS_NO_RAW_TRACEPOINTS");
}

/*
 * Whether t is a syscall tracepoint (syscall:NAME, or t:syscalls:sys_enter_NAME): its
 * direction (0 entry, 1 return) and system call name, or -1.
 */
static int syscall_dir(const struct bt_target *t, const char **name)
{
	if ((t->kind != BT_SPEC_SYSCALL && t->kind != BT_SPEC_TRACEPOINT) || !t->category ||
	    !t->event || strcmp(t->category, "syscalls"))
		return -1;
	if (!strncmp(t->event, "sys_enter_", 10)) {
		*name = t->event + 10;
		return 0;
	}
	if (!strncmp(t->event, "sys_exit_", 9)) {
		*name = t->event + 9;
		return 1;
	}
	return -1;
}

/*
 * From this many syscall targets of a direction on, they share the raw link. The raw link runs
 * the program on every system call of the machine (+~110 ns each here, traced or not), a
 * perf-event tracepoint only on its own (+~250 ns) but takes the kernel ~75 ms to remove: a
 * few syscalls keep their own tracepoints (under 0.6 s to detach), a wildcard shares the link.
 */
#define BT_SYSCALL_RAW_MIN 8

/* The tracepoint targets that can go through one raw link per direction or a raw_tp link each. */
static void prepare_raw(struct bt_uattach *u, const struct bt_attach_progs *progs)
{
	struct bpf_program *sys[2] = { progs->sys_enter, progs->sys_exit };
	unsigned char *taken = NULL;
	size_t i, nsys[2] = {};
	bool sys_ok, raw_ok, want[2];
	const char *name;

	if (!use_raw_tracepoints())
		return;
	for (i = 0; i < u->targets->n; i++) {
		int dir = syscall_dir(&u->targets->v[i], &name);

		if (dir >= 0 && sys[dir])
			nsys[dir]++;
	}
	want[0] = nsys[0] >= BT_SYSCALL_RAW_MIN;
	want[1] = nsys[1] >= BT_SYSCALL_RAW_MIN;
	sys_ok = (want[0] || want[1]) && bt_feature(BT_FEAT_TP_BTF)->ok;
	raw_ok = progs->raw_tp && progs->tracepoint;
	if (sys_ok)
		taken = calloc(2 * BT_SYSCALL_NR_MAX, 1);
	for (i = 0; i < u->targets->n; i++) {
		const struct bt_target *t = &u->targets->v[i];
		int dir = syscall_dir(t, &name), nr;

		if (dir >= 0) {
			if (!sys_ok || !taken || !want[dir])
				continue;
			nr = bt_syscall_nr(name);
			/* two targets on one system call (two specs): the second keeps its own */
			if (nr < 0 || taken[dir * BT_SYSCALL_NR_MAX + nr]) {
				bt_debug("'%s': %s; a tracepoint of its own", t->name,
					 nr < 0 ? "no number known for this system call"
						: "its system call is traced already");
				continue;
			}
			taken[dir * BT_SYSCALL_NR_MAX + nr] = 1;
			u->sysnr[i] = nr;
			u->how[i] = HOW_SYSCALL;
			u->sys_used[dir] = true;
		} else if (t->kind == BT_SPEC_TRACEPOINT && raw_ok) {
			/* probed only here: a syscall-only run needs no raw_tp feature */
			raw_ok = bt_feature(BT_FEAT_RAW_TP_COOKIE)->ok;
			if (raw_ok)
				u->how[i] = HOW_RAW_TP;
		}
	}
	free(taken);
}

/* BPFTOOLS_NO_UPROBE_MULTI=1 takes the one-link-per-function path older kernels get. */
static bool use_multi(void)
{
	if (bt_env_flag("BPFTOOLS_NO_UPROBE_MULTI"))
		return false;
	return bt_feature(BT_FEAT_UPROBE_MULTI)->ok;
}

/*
 * Each user function's entry with its return (same file, offset and pid), where the tool has a
 * session program: the entry's link then serves both, under the entry's index.
 */
static void pair_sessions(struct bt_uattach *u)
{
	const struct bt_targets *ts = u->targets;
	size_t i, j;

	for (i = 0; i < ts->n; i++) {
		const struct bt_target *e = &ts->v[i];

		if (e->kind != BT_SPEC_UFUNC || e->retprobe)
			continue;
		for (j = 0; j < ts->n; j++) {
			const struct bt_target *r = &ts->v[j];

			if (r->kind == BT_SPEC_UFUNC && r->retprobe && u->role[j] == UR_OWN &&
			    r->offset == e->offset && r->pid == e->pid &&
			    !strcmp(r->path, e->path)) {
				u->role[i] = UR_SESSION;
				u->role[j] = UR_SESSION_RET;
				break;
			}
		}
	}
}

int bt_uattach__prepare(struct bpf_object *obj, const struct bt_attach_progs *progs,
			const struct bt_targets *targets, struct bt_uattach **out)
{
	struct bt_uattach *u;
	size_t i;

	*out = NULL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->targets = targets;
	u->obj = obj;
	u->progs = *progs;
	u->links = calloc(targets->n ? targets->n : 1, sizeof(*u->links));
	u->how = calloc(targets->n ? targets->n : 1, sizeof(*u->how));
	u->role = calloc(targets->n ? targets->n : 1, sizeof(*u->role));
	u->sysnr = malloc((targets->n ? targets->n : 1) * sizeof(*u->sysnr));
	u->raw_fd = malloc((targets->n ? targets->n : 1) * sizeof(*u->raw_fd));
	for (i = 0; u->sysnr && u->raw_fd && i < targets->n; i++)
		u->sysnr[i] = u->raw_fd[i] = -1;
	if (!u->links || !u->how || !u->role || !u->sysnr || !u->raw_fd) {
		free(u->raw_fd);
		u->raw_fd = NULL;
		bt_uattach__destroy(u);
		return -ENOMEM;
	}
	prepare_raw(u, progs);
	for (i = 0; i < 2; i++) {
		struct bpf_program *prog = i ? progs->sys_exit : progs->sys_enter;

		if (u->sys_used[i]) {
			bpf_program__set_autoload(prog, true);
			bpf_program__set_autoattach(prog, false);
		}
	}
	if (use_multi() && use_session(progs))
		pair_sessions(u);
	for (i = 0; i < targets->n; i++) {
		const struct bt_target *t = &targets->v[i];
		struct bpf_program *prog;
		const char *how = NULL;

		if (!is_user(t))
			continue;
		if (u->how[i] == HOW_SYSCALL) {
			u->nuser++;
			continue;
		}
		if (u->how[i] == HOW_RAW_TP) {
			bpf_program__set_autoload(progs->raw_tp, true);
			bpf_program__set_autoattach(progs->raw_tp, false);
			/* the perf-event program loads too: for a tracepoint raw_tp cannot take */
			bpf_program__set_autoload(progs->tracepoint, true);
			u->nuser++;
			continue;
		}
		if (u->role[i] != UR_OWN) {
			prog = progs->usession;
			/* no section libbpf 1.1 knows: the type is set here, and no auto-attach */
			bpf_program__set_autoload(prog, true);
			bpf_program__set_autoattach(prog, false);
			bpf_program__set_type(prog, BPF_PROG_TYPE_KPROBE);
			bpf_program__set_expected_attach_type(prog, BT_TRACE_UPROBE_SESSION);
			u->how[i] = u->role[i] == UR_SESSION ? "uprobe.session"
							     : "uprobe.session (return)";
			u->nuser++;
			u->multi = true;
			continue;
		}
		prog = prog_for(progs, t, &how);
		if (!prog) {
			bt_err("this tool cannot trace %s ('%s')", kind_name(t), t->name);
			bt_uattach__destroy(u);
			return -EOPNOTSUPP;
		}
		/* the generic programs are '?' sections: load only what is used */
		bpf_program__set_autoload(prog, true);
		if (t->kind == BT_SPEC_UFUNC && use_multi())
			bpf_program__set_expected_attach_type(prog, BT_TRACE_UPROBE_MULTI);
		u->how[i] = how;
		u->nuser++;
		u->multi |= t->kind == BT_SPEC_UFUNC && use_multi();
	}
	*out = u;
	return 0;
}

static struct bpf_link *attach_one(struct bt_uattach *u, size_t i)
{
	const struct bt_target *t = &u->targets->v[i];
	const char *how;
	struct bpf_program *prog = prog_for(&u->progs, t, &how);
	pid_t pid = t->pid > 0 ? t->pid : -1;

	switch (t->kind) {
	case BT_SPEC_UFUNC: {
		LIBBPF_OPTS(bpf_uprobe_opts, o, .bpf_cookie = i, .retprobe = t->retprobe);

		/* with a pid the breakpoint is only inserted in that process: others never trap */
		return bpf_program__attach_uprobe_opts(prog, pid, t->path, t->offset, &o);
	}
	case BT_SPEC_USDT: {
		LIBBPF_OPTS(bpf_usdt_opts, o, .usdt_cookie = i);

		return bpf_program__attach_usdt(prog, pid, t->path, t->usdt_provider, t->usdt_name,
						&o);
	}
	case BT_SPEC_TRACEPOINT:
	case BT_SPEC_SYSCALL: {
		LIBBPF_OPTS(bpf_tracepoint_opts, o, .bpf_cookie = i);

		return bpf_program__attach_tracepoint_opts(prog, t->category, t->event, &o);
	}
	default:
		errno = EINVAL;
		return NULL;
	}
}

static void describe(const struct bt_target *t, char *buf, size_t size)
{
	switch (t->kind) {
	case BT_SPEC_UFUNC:
		snprintf(buf, size, "%s at %s+0x%llx", t->func, t->path,
			 (unsigned long long)t->offset);
		break;
	case BT_SPEC_USDT:
		snprintf(buf, size, "%s:%s in %s", t->usdt_provider, t->usdt_name, t->path);
		break;
	default:
		snprintf(buf, size, "%s:%s", t->category, t->event);
	}
}

static bool same_group(const struct bt_target *a, const struct bt_target *b)
{
	return a->kind == BT_SPEC_UFUNC && b->kind == BT_SPEC_UFUNC && a->retprobe == b->retprobe &&
	       a->pid == b->pid && !strcmp(a->path, b->path);
}

/*
 * -p of a process that exited while we attached: the kernel's ESRCH (or a file gone with its
 * /proc/PID/root) would be reported as a fault of the probe; say what happened instead.
 */
static bool target_exited(const struct bt_target *t)
{
	if (t->pid <= 0 || bt_pid_alive(t->pid))
		return false;
	bt_err("process %d exited", (int)t->pid);
	return true;
}

/* The functions of a group the kernel refused, when it took the others. */
struct refusals {
	size_t *idx; /* target indexes */
	size_t n;
	int err; /* the first refusal's */
};

/* An error one function of a batch can cause (an instruction uprobes cannot take, ...). */
static bool one_may_refuse(int err)
{
	return err == -EINVAL || err == -EOPNOTSUPP || err == -524 /* ENOTSUPP */ ||
	       err == -EEXIST || err == -EBUSY || err == -ENOENT || err == -EFAULT;
}

/*
 * One uprobe.multi link for offsets[0..n). The kernel refuses the whole batch when it refuses
 * one function: then each half is tried, and so on down to the refused functions alone, so
 * that k refusals among n cost about 2k log2(n) tries and the rest is attached in a few links.
 */
static int attach_split(struct bt_uattach *u, struct bt_umulti_attr *attr, __u64 *offsets,
			__u64 *cookies, size_t n, struct refusals *r)
{
	int fd, err, *mfd;
	size_t h;

	mfd = realloc(u->mfd, (u->nmfd + 1) * sizeof(*mfd));
	if (!mfd)
		return -ENOMEM;
	u->mfd = mfd;
	attr->offsets = (__u64)(uintptr_t)offsets;
	attr->cookies = (__u64)(uintptr_t)cookies;
	attr->cnt = n;
	fd = syscall(__NR_bpf, BPF_LINK_CREATE, attr, sizeof(*attr));
	if (fd >= 0) {
		u->mfd[u->nmfd++] = fd;
		return 0;
	}
	err = -errno;
	if (!one_may_refuse(err))
		return err;
	if (n == 1) {
		r->idx[r->n++] = cookies[0];
		if (!r->err)
			r->err = err;
		return 0;
	}
	if (bt_stop_requested())
		return -EINTR;
	h = n / 2;
	err = attach_split(u, attr, offsets, cookies, h, r);
	if (!err)
		err = attach_split(u, attr, offsets + h, cookies + h, n - h, r);
	return err;
}

/*
 * Whether the kernel will likely refuse a uprobe at offset of file fd: on x86-64 it cannot
 * single-step VEX and EVEX instructions (0xc4, 0xc5, 0x62 there: "Unknown error 524" for
 * glibc's AVX2 string functions). Only an ordering hint, the kernel decides: a batch without
 * the suspects usually goes in one try, and each suspect is tried alone, where each refusal
 * costs the kernel a grace period (~30 ms) instead of one per bisection step.
 */
static bool likely_refused(int fd, __u64 offset)
{
#if defined(__x86_64__)
	unsigned char b;

	if (fd >= 0 && pread(fd, &b, 1, offset) == 1)
		return b == 0xc4 || b == 0xc5 || b == 0x62;
#else
	(void)fd;
	(void)offset;
#endif
	return false;
}

/* A refused target attaches nothing, nor does the return its session link would have served. */
static void drop_target(struct bt_uattach *u, size_t i)
{
	const struct bt_target *e = &u->targets->v[i];
	size_t j;

	if (u->role[i] == UR_SESSION) {
		for (j = 0; j < u->targets->n; j++) {
			const struct bt_target *r = &u->targets->v[j];

			if (u->role[j] == UR_SESSION_RET && r->offset == e->offset &&
			    r->pid == e->pid && !strcmp(r->path, e->path))
				u->how[j] = NULL;
		}
	}
	u->how[i] = NULL;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* One warning line naming the refused functions (the first ten), and why. */
static void warn_refused(const struct bt_uattach *u, const struct refusals *r, size_t n,
			 const char *path)
{
	char names[512];
	size_t i, len = 0;

	names[0] = '\0';
	for (i = 0; i < r->n && i < 10 && len < sizeof(names); i++)
		len += snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "",
				u->targets->v[r->idx[i]].name);
	bt_warn("cannot trace %zu of %zu functions in '%s' (%s): %s%s", r->n, n, path,
		bt_strerror(r->err), names, r->n > 10 ? ", ..." : "");
}

/* uprobe.multi links for targets first.. that share its file, direction and pid. */
static int attach_group(struct bt_uattach *u, size_t first, bool *done, struct bt_progress *p)
{
	const struct bt_target *t = &u->targets->v[first];
	bool session = u->role[first] == UR_SESSION;
	struct bpf_program *prog = session	 ? u->progs.usession
				   : t->retprobe ? u->progs.uretprobe
						 : u->progs.uprobe;
	struct refusals r = { 0 };
	struct bt_umulti_attr attr;
	__u64 *offsets, *cookies, o, c;
	size_t i, n = 0, nsure, links = u->nmfd;
	int err = 0, fd;

	offsets = calloc(u->targets->n, sizeof(*offsets));
	cookies = calloc(u->targets->n, sizeof(*cookies));
	r.idx = calloc(u->targets->n, sizeof(*r.idx));
	if (!offsets || !cookies || !r.idx) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (i = first; i < u->targets->n; i++) {
		if (done[i] || !u->how[i] || u->role[i] != u->role[first] ||
		    !same_group(t, &u->targets->v[i]))
			continue;
		offsets[n] = u->targets->v[i].offset;
		cookies[n++] = i;
		done[i] = true;
	}
	/* the likely refusals last, and alone */
	fd = bt_procfile_open(-1, t->path, NULL, NULL);
	nsure = n;
	for (i = 0; i < nsure;) {
		if (!likely_refused(fd, offsets[i])) {
			i++;
			continue;
		}
		nsure--;
		o = offsets[i], c = cookies[i];
		offsets[i] = offsets[nsure], cookies[i] = cookies[nsure];
		offsets[nsure] = o, cookies[nsure] = c;
	}
	if (fd >= 0)
		close(fd);
	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = bpf_program__fd(prog);
	attr.attach_type = session ? BT_TRACE_UPROBE_SESSION : BT_TRACE_UPROBE_MULTI;
	attr.path = (__u64)(uintptr_t)t->path;
	attr.umulti_flags = !session && t->retprobe ? BT_F_UPROBE_MULTI_RETURN : 0;
	attr.pid = t->pid > 0 ? t->pid : 0;
	if (nsure)
		err = attach_split(u, &attr, offsets, cookies, nsure, &r);
	for (i = nsure; i < n && !err; i++)
		err = attach_split(u, &attr, offsets + i, cookies + i, 1, &r);
	if (!err && r.n == n) {
		err = r.err;
		bt_progress_clear(p);
		if (target_exited(t))
			goto cleanup;
		bt_err("cannot attach to %s%zu user function%s in '%s' (uprobe.%s%s): %s",
		       n > 1 ? "any of " : "", n, n == 1 ? "" : "s", t->path,
		       session ? "session" : "multi", t->retprobe ? ", returns" : "",
		       bt_strerror(-err));
		goto cleanup;
	}
	if (err) {
		bt_progress_clear(p);
		if (err != -EINTR && !target_exited(t))
			bt_err("cannot attach to %zu user function%s in '%s' (uprobe.%s%s): %s", n,
			       n == 1 ? "" : "s", t->path, session ? "session" : "multi",
			       t->retprobe ? ", returns" : "", bt_strerror(-err));
		goto cleanup;
	}
	if (r.n) {
		bt_progress_clear(p);
		qsort(r.idx, r.n, sizeof(*r.idx), cmp_size); /* in the order they were listed */
		warn_refused(u, &r, n, t->path);
		for (i = 0; i < r.n; i++)
			drop_target(u, r.idx[i]);
	}
	bt_progress_add(p, n);
	bt_debug("%zu user function%s in '%s': %zu uprobe.%s link%s%s", n - r.n,
		 n - r.n == 1 ? "" : "s", t->path, u->nmfd - links, session ? "session" : "multi",
		 u->nmfd - links == 1 ? "" : "s", t->retprobe ? " (returns)" : "");
cleanup:
	free(offsets);
	free(cookies);
	free(r.idx);
	return err;
}

static int attach_multi(struct bt_uattach *u, struct bt_progress *p)
{
	bool *done = calloc(u->targets->n ? u->targets->n : 1, sizeof(*done));
	size_t i;
	int err = 0;

	if (!done)
		return -ENOMEM;
	for (i = 0; i < u->targets->n && !err; i++) {
		if (done[i] || !u->how[i] || u->targets->v[i].kind != BT_SPEC_UFUNC ||
		    u->role[i] == UR_SESSION_RET)
			continue;
		err = bt_stop_requested() ? -EINTR : attach_group(u, i, done, p);
	}
	free(done);
	return err;
}

/* Fill the number -> target map and make the one link of each direction used. */
static int attach_syscalls(struct bt_uattach *u, struct bt_progress *p)
{
	struct bpf_program *sys[2] = { u->progs.sys_enter, u->progs.sys_exit };
	struct bpf_map *map;
	size_t i, n[2] = {};
	int err, dir, fd;

	for (dir = 0; dir < 2; dir++) {
		if (!u->sys_used[dir])
			continue;
		map = bpf_object__find_map_by_name(u->obj, "bt_syscall_targets");
		fd = map ? bpf_map__fd(map) : -1;
		if (fd < 0) {
			bt_err("internal error: the syscall programs have no bt_syscall_targets "
			       "map");
			return -EINVAL;
		}
		for (i = 0; i < u->targets->n; i++) {
			const char *name;
			__u32 key, val = i + 1;

			if (u->how[i] != HOW_SYSCALL ||
			    syscall_dir(&u->targets->v[i], &name) != dir)
				continue;
			key = dir * BT_SYSCALL_NR_MAX + u->sysnr[i];
			if (bpf_map_update_elem(fd, &key, &val, BPF_ANY)) {
				err = -errno;
				bt_err("cannot set up the system call map: %s", bt_strerror(-err));
				return err;
			}
			n[dir]++;
		}
		u->sys_link[dir] = bpf_program__attach_trace(sys[dir]);
		if (!u->sys_link[dir]) {
			err = -errno;
			bt_progress_clear(p);
			bt_err("cannot attach to the raw %s tracepoint for %zu system calls: %s",
			       dir ? "sys_exit" : "sys_enter", n[dir], bt_strerror(-err));
			return err;
		}
		bt_progress_add(p, n[dir]);
		bt_debug("%zu system call %s: one link on the raw %s tracepoint", n[dir],
			 dir ? "returns" : "entries", dir ? "sys_exit" : "sys_enter");
	}
	return 0;
}

/* A raw_tp link carrying target i's index; -errno when the kernel will not. */
static int attach_raw_tp(struct bt_uattach *u, size_t i)
{
	struct bt_raw_tp_attr attr = {
		.name = (__u64)(uintptr_t)u->targets->v[i].event,
		.prog_fd = bpf_program__fd(u->progs.raw_tp),
		.cookie = i,
	};
	int fd = syscall(__NR_bpf, BPF_RAW_TRACEPOINT_OPEN, &attr, sizeof(attr));

	if (fd < 0)
		return -errno;
	u->raw_fd[i] = fd;
	return 0;
}

int bt_uattach__commit(struct bt_uattach *u, struct bt_progress *p)
{
	size_t i, ok = 0, nufunc = 0, skipped = 0;
	char what[512];
	int err = 0;

	for (i = 0; i < u->targets->n; i++)
		nufunc += u->targets->v[i].kind == BT_SPEC_UFUNC;
	if (u->multi) {
		err = attach_multi(u, p);
		if (err)
			return err;
	}
	err = attach_syscalls(u, p);
	if (err)
		return err;
	for (i = 0; i < u->targets->n; i++) {
		const struct bt_target *t = &u->targets->v[i];

		if (!u->how[i] || (u->multi && t->kind == BT_SPEC_UFUNC) ||
		    u->how[i] == HOW_SYSCALL)
			continue;
		/* each uprobe costs the kernel a few ms: a Ctrl-C must not wait for hundreds */
		if (bt_stop_requested())
			return -EINTR;
		if (u->how[i] == HOW_RAW_TP) {
			err = attach_raw_tp(u, i);
			if (!err) {
				bt_progress_add(p, 1);
				ok++;
				continue;
			}
			/* not a kernel tracepoint by that name (a dynamic event): through perf */
			bt_debug("'%s': raw_tp refused (%s); a perf-event tracepoint", t->name,
				 bt_strerror(-err));
			u->how[i] = "tracepoint";
			err = 0;
		}
		u->links[i] = attach_one(u, i);
		bt_progress_add(p, 1);
		describe(t, what, sizeof(what));
		if (!u->links[i]) {
			err = -errno;
			/*
			 * One function of a wildcard that uprobes cannot take (an instruction they
			 * cannot single-step, say) should not cost all the others: skip it, loudly.
			 */
			if (t->kind == BT_SPEC_UFUNC && nufunc > 1 &&
			    (err == -EINVAL || err == -EOPNOTSUPP || err == -524 /* ENOTSUPP */)) {
				bt_progress_clear(p);
				bt_warn("cannot attach to '%s' (%s): %s; skipped", t->name, what,
					bt_strerror(-err));
				u->how[i] = NULL;
				skipped++;
				err = 0;
				continue;
			}
			bt_progress_clear(p);
			if (target_exited(t))
				return err;
			bt_err("cannot attach to '%s' (%s %s): %s", t->name, u->how[i], what,
			       bt_strerror(-err));
			return err;
		}
		ok++;
		bt_debug("target %zu '%s': %s %s", i, t->name, u->how[i], what);
	}
	if (skipped && !ok) {
		bt_err("none of the %zu user functions could be attached", skipped);
		return -EINVAL;
	}
	return 0;
}

size_t bt_uattach__count(const struct bt_uattach *u)
{
	return u ? u->nuser : 0;
}

const char *bt_uattach__how(const struct bt_uattach *u, size_t i)
{
	if (!u || i >= u->targets->n)
		return NULL;
	return u->how[i];
}

void bt_uattach__destroy(struct bt_uattach *u)
{
	unsigned int seen = bt_stop_signals();
	size_t i, left = 0, total;

	if (!u)
		return;
	/* the raw links first: each goes in a fraction of a millisecond */
	for (i = 0; i < 2; i++)
		bpf_link__destroy(u->sys_link[i]);
	for (i = 0; u->raw_fd && i < u->targets->n; i++)
		if (u->raw_fd[i] >= 0)
			close(u->raw_fd[i]);
	for (i = 0; u->links && i < u->targets->n; i++)
		left += u->links[i] != NULL;
	total = left;
	/*
	 * Many slow removals after a stop: say so at once, not only at the next Ctrl-C (the
	 * user would otherwise see nothing happen for seconds).
	 */
	if (total >= BT_SLOW_DETACH && bt_stop_requested())
		seen = 0;
	/*
	 * Each removal waits for the kernel (6.18: ~0.13 s per uprobe, serialized on its
	 * event_mutex, so threads do not help): answer a Ctrl-C meanwhile.
	 * bpf_link__destroy also removes the legacy tracefs uprobe events libbpf may create.
	 */
	for (i = 0; u->links && i < u->targets->n; i++) {
		if (!u->links[i])
			continue;
		bt_detach_note(&seen, left, total, "probes");
		bpf_link__destroy(u->links[i]);
		left--;
	}
	for (i = 0; i < u->nmfd; i++)
		close(u->mfd[i]);
	free(u->mfd);
	free(u->links);
	free(u->how);
	free(u->role);
	free(u->sysnr);
	free(u->raw_fd);
	free(u);
}
