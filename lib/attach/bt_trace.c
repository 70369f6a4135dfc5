// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "bt_err.h"
#include "bt_loop.h"
#include "bt_skel.h"
#include "bt_stacks.h"
#include "bt_trace.h"
#include "bt_vmlinux_btf.h"

int bt_targets__from_pattern(const char *pattern, const struct bt_resolve_opts *opts,
			     struct bt_targets *out)
{
	struct bt_probe_spec spec = { 0 };
	int n;

	n = bt_probe_spec__parse(pattern, &spec);
	if (!n)
		n = bt_targets__resolve(&spec, opts, out);
	bt_probe_spec__free(&spec);
	if (n > 0 && bt_stop_requested())
		n = -EINTR;
	return n;
}

static struct bpf_program **progs_slot(struct bt_attach_progs *p, const char *sec)
{
	static const struct {
		const char *kind;
		size_t offset;
	} kinds[] = {
		{ "fentry", offsetof(struct bt_attach_progs, fentry) },
		{ "fexit", offsetof(struct bt_attach_progs, fexit) },
		{ "kprobe", offsetof(struct bt_attach_progs, kprobe) },
		{ "kretprobe", offsetof(struct bt_attach_progs, kretprobe) },
		{ "kprobe.multi", offsetof(struct bt_attach_progs, kprobe_multi) },
		{ "kretprobe.multi", offsetof(struct bt_attach_progs, kretprobe_multi) },
		{ "uprobe", offsetof(struct bt_attach_progs, uprobe) },
		{ "uretprobe", offsetof(struct bt_attach_progs, uretprobe) },
		{ "tracepoint", offsetof(struct bt_attach_progs, tracepoint) },
		{ "usdt", offsetof(struct bt_attach_progs, usdt) },
		{ "uprobe.session", offsetof(struct bt_attach_progs, usession) },
	};
	size_t i, n = strcspn(sec, "/");

	if (!strcmp(sec, "tracepoint/return"))
		return &p->tracepoint_ret;
	if (!strcmp(sec, "tp_btf/sys_enter"))
		return &p->sys_enter;
	if (!strcmp(sec, "tp_btf/sys_exit"))
		return &p->sys_exit;
	if (!strcmp(sec, "raw_tracepoint")) /* "?raw_tp" sections are the tools' own */
		return &p->raw_tp;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strlen(kinds[i].kind) == n && !strncmp(sec, kinds[i].kind, n))
			return (struct bpf_program **)((char *)p + kinds[i].offset);
	return NULL;
}

int bt_attach_progs__find(struct bpf_object *obj, struct bt_attach_progs *progs)
{
	struct bpf_program *prog;

	memset(progs, 0, sizeof(*progs));
	bpf_object__for_each_program(prog, obj)
	{
		const char *sec = bpf_program__section_name(prog);
		struct bpf_program **slot;

		/* only the '?' programs are generic; the others attach as the skeleton says */
		if (bpf_program__autoload(prog))
			continue;
		slot = progs_slot(progs, sec[0] == '?' ? sec + 1 : sec);
		if (!slot)
			continue;
		if (*slot) {
			bt_err("internal error: two generic '%s' programs", sec);
			return -EINVAL;
		}
		*slot = prog;
	}
	return 0;
}

/*
 * A tool's per-thread entries are forgotten as threads exit (probes/bt_thread.bpf.h): its
 * bt_thread_exit program, when it has one, loads and attaches with the probes. The link is the
 * skeleton's, destroyed with it.
 */
static struct bpf_prog_skeleton *thread_exit_prog(struct bpf_object_skeleton *skel)
{
	int i;

	for (i = 0; i < skel->prog_cnt; i++) {
		struct bpf_prog_skeleton *p =
			(void *)((char *)skel->progs + (size_t)i * skel->prog_skel_sz);

		if (!strcmp(p->name, "bt_thread_exit"))
			return p;
	}
	return NULL;
}

static void attach_thread_exit(struct bpf_prog_skeleton *p)
{
	if (!p)
		return;
	*p->link = bpf_program__attach_raw_tracepoint(*p->prog, "sched_process_exit");
	if (!*p->link) {
		/* without it a call that never returns keeps its entry: worth saying, no more */
		bt_warn("cannot follow thread exits: calls left in flight by exiting threads stay "
			"in the maps (%s)",
			strerror(errno));
	}
}

int bt_trace__load(struct bpf_object_skeleton *skel, const struct bt_targets *targets,
		   const struct bt_filters *filters, enum bt_attach_mode mode,
		   struct bt_attach **out)
{
	struct bpf_object *obj = *skel->obj;
	struct bt_attach *attach = NULL;
	struct bpf_prog_skeleton *exit_prog;
	struct bt_attach_progs progs;
	int err;

	err = bt_attach_progs__find(obj, &progs);
	if (!err)
		err = bt_filters_apply(obj, filters);
	/* before the choice of attach methods too, which can fail or take a while */
	if (!err && bt_stop_requested())
		err = -EINTR;
	if (err)
		goto cleanup;
	err = bt_attach__prepare(obj, &progs, targets, mode, &attach);
	if (err)
		goto cleanup;
	exit_prog = thread_exit_prog(skel);
	if (exit_prog)
		bpf_program__set_autoload(*exit_prog->prog, true);
	bt_vmlinux_btf_release();
	/* A stop between phases: -EINTR, which main() turns into a quiet exit 0. */
	if (bt_stop_requested()) {
		err = -EINTR;
		goto cleanup;
	}
	err = bt_skel_load(skel);
	if (err)
		goto cleanup;
	err = bt_stop_requested() ? -EINTR : bt_attach__commit(attach);
	if (err)
		goto cleanup;
	attach_thread_exit(exit_prog);
	*out = attach;
	return 0;
cleanup:
	bt_attach__destroy(attach);
	return err;
}

void bt_trace__index_targets(struct bt_stacks *st, const struct bt_targets *t)
{
	const char *last = NULL;
	size_t i;

	for (i = 0; st && i < t->n; i++) {
		const char *path = t->v[i].path;

		/* a file's targets are found together: each file once */
		if (!path || (last && !strcmp(path, last)))
			continue;
		last = path;
		bt_stacks__index_file(st, path);
	}
}

int bt_trace__configure_stacks(struct bpf_object *obj, const struct bt_stacks_opts *o)
{
	int err = bt_stacks__configure(obj, o);

	if (err && err != -ECANCELED)
		bt_err("cannot set up the stack maps: %s", strerror(-err));
	return err;
}

int bt_trace__new_stacks(struct bpf_object *obj, const struct bt_stacks_opts *o, int pid,
			 const struct bt_targets *t, struct bt_stacks **out)
{
	int err = bt_stacks__new(obj, o, out);

	if (err) {
		bt_err("cannot set up stack symbolization: %s", strerror(-err));
		return err;
	}
	if (o->user && pid)
		bt_stacks__note_pid(*out, pid);
	if (o->user)
		bt_trace__index_targets(*out, t);
	return 0;
}

void bt_trace__banner(FILE *out, size_t n, const char *pattern)
{
	bt_trace__banner_for(out, n, pattern, 0);
}

void bt_trace__banner_for(FILE *out, size_t n, const char *pattern, unsigned long seconds)
{
	if (seconds) /* it ends by itself: Ctrl-C is not what ends it */
		bt_banner(out, "Tracing %zu functions for \"%s\" for %lu secs.\n", n, pattern,
			  seconds);
	else
		bt_banner(out, "Tracing %zu functions for \"%s\"... Hit Ctrl-C to end.\n", n,
			  pattern);
}

int bt_trace__run(size_t n, const char *pattern, const struct bt_interval *iv, bt_print_fn print,
		  void *ctx)
{
	int err;

	bt_trace__banner(stdout, n, pattern);
	err = bt_interval_run(iv, print, ctx);
	if (!err && !bt_output_closed() && !bt_json_mode())
		printf("Detaching...\n");
	return err;
}
