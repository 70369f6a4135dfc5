// SPDX-License-Identifier: GPL-2.0
/*
 * The user-function, USDT, tracepoint and syscall half of the attach layer. Every link carries
 * its target's index as the BPF cookie (uprobe and tracepoint perf links, the USDT cookie), so
 * one generic program per mechanism serves any number of targets.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_attach_internal.h"
#include "bt_err.h"
#include "bt_loop.h"

struct bt_uattach {
	const struct bt_targets *targets; /* the caller's; must live until destroy */
	struct bt_attach_progs progs;
	struct bpf_link **links;
	const char **how;
	size_t nuser;
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
		return p->tracepoint;
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
	u->progs = *progs;
	u->links = calloc(targets->n ? targets->n : 1, sizeof(*u->links));
	u->how = calloc(targets->n ? targets->n : 1, sizeof(*u->how));
	if (!u->links || !u->how) {
		bt_uattach__destroy(u);
		return -ENOMEM;
	}
	for (i = 0; i < targets->n; i++) {
		const struct bt_target *t = &targets->v[i];
		struct bpf_program *prog;
		const char *how = NULL;

		if (!is_user(t))
			continue;
		prog = prog_for(progs, t, &how);
		if (!prog) {
			bt_err("this tool cannot trace %s ('%s')", kind_name(t), t->name);
			bt_uattach__destroy(u);
			return -EOPNOTSUPP;
		}
		/* the generic programs are '?' sections: load only what is used */
		bpf_program__set_autoload(prog, true);
		u->how[i] = how;
		u->nuser++;
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

int bt_uattach__commit(struct bt_uattach *u)
{
	bool progress = u->nuser > 100 && isatty(STDERR_FILENO);
	size_t i, done = 0, ok = 0, nufunc = 0, skipped = 0;
	char what[512];
	int err = 0;

	for (i = 0; i < u->targets->n; i++)
		nufunc += u->targets->v[i].kind == BT_SPEC_UFUNC;
	for (i = 0; i < u->targets->n; i++) {
		const struct bt_target *t = &u->targets->v[i];

		if (!u->how[i])
			continue;
		/* each uprobe costs the kernel a few ms: a Ctrl-C must not wait for hundreds */
		if (bt_stop_requested()) {
			if (progress)
				fputs("\r\033[K", stderr);
			return -EINTR;
		}
		u->links[i] = attach_one(u, i);
		done++;
		if (progress && (done % 50 == 0 || done == u->nuser))
			fprintf(stderr, "\rattaching %zu/%zu", done, u->nuser);
		describe(t, what, sizeof(what));
		if (!u->links[i]) {
			err = -errno;
			/*
			 * One function of a wildcard that uprobes cannot take (an instruction they
			 * cannot single-step, say) should not cost all the others: skip it, loudly.
			 */
			if (t->kind == BT_SPEC_UFUNC && nufunc > 1 &&
			    (err == -EINVAL || err == -EOPNOTSUPP || err == -524 /* ENOTSUPP */)) {
				bt_warn("cannot attach to '%s' (%s): %s; skipped", t->name, what,
					strerror(-err));
				u->how[i] = NULL;
				skipped++;
				err = 0;
				continue;
			}
			if (progress)
				fputc('\n', stderr);
			bt_err("cannot attach to '%s' (%s %s): %s", t->name, u->how[i], what,
			       strerror(-err));
			return err;
		}
		ok++;
		bt_debug("target %zu '%s': %s %s", i, t->name, u->how[i], what);
	}
	if (progress)
		fputs("\r\033[K", stderr);
	if (skipped && !ok) {
		bt_err("none of the %zu user functions could be attached", skipped);
		return -EINVAL;
	}
	return 0;
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
	for (i = 0; u->links && i < u->targets->n; i++)
		left += u->links[i] != NULL;
	total = left;
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
	free(u->links);
	free(u->how);
	free(u);
}
