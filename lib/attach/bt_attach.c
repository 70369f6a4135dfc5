// SPDX-License-Identifier: GPL-2.0
/*
 * The public attach layer (lib/attach/bt_attach.h): a target list may mix kernel functions with user
 * functions, tracepoints and USDT probes; each half takes its own and skips the rest, and the
 * indexes (the BPF cookies) stay global.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "bt_attach_internal.h"
#include "bt_err.h"
#include "bt_progress.h"
#include "bt_rodata.h"

struct bt_attach {
	struct bt_kattach *k;
	struct bt_uattach *u;
};

int bt_attach__prepare(struct bpf_object *obj, const struct bt_attach_progs *progs,
		       const struct bt_targets *targets, enum bt_attach_mode mode,
		       struct bt_attach **out)
{
	bool kernel = false, user = false;
	struct bt_attach *a;
	size_t i;
	int err = 0;

	*out = NULL;
	for (i = 0; i < targets->n; i++) {
		if (targets->v[i].kind == BT_SPEC_KFUNC)
			kernel = true;
		else
			user = true;
	}
	/* one target: its programs need not ask for the cookie (probes/bt_attach.bpf.h) */
	if (targets->n == 1) {
		__u32 one = 1;

		err = bt_rodata_set(obj, "bt_attach_ntargets", &one, sizeof(one));
		if (err && err != -ENOENT)
			return err;
		err = 0;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	/* only the halves that have work: a tracepoint tool never probes fentry support */
	if (kernel)
		err = bt_kattach__prepare(obj, progs, targets, mode, &a->k);
	if (!err && user)
		err = bt_uattach__prepare(obj, progs, targets, &a->u);
	if (err) {
		bt_attach__destroy(a);
		return err;
	}
	*out = a;
	return 0;
}

int bt_attach__commit(struct bt_attach *a)
{
	struct bt_progress p;
	int err = 0;

	/*
	 * One line for both halves: "attaching 120/370 probes..." on a terminal; none in JSON
	 * mode, where stderr holds JSON lines only.
	 */
	bt_progress_begin(&p, stderr, isatty(STDERR_FILENO) && !bt_json_mode(),
			  bt_kattach__count(a->k) + bt_uattach__count(a->u));
	if (a->k)
		err = bt_kattach__commit(a->k, &p);
	if (!err && a->u)
		err = bt_uattach__commit(a->u, &p);
	bt_progress_clear(&p);
	return err;
}

const char *bt_attach__how(const struct bt_attach *a, size_t i)
{
	const char *how = NULL;

	if (!a)
		return NULL;
	if (a->k)
		how = bt_kattach__how(a->k, i);
	if (!how && a->u)
		how = bt_uattach__how(a->u, i);
	return how;
}

void bt_attach__destroy(struct bt_attach *a)
{
	if (!a)
		return;
	bt_uattach__destroy(a->u);
	bt_kattach__destroy(a->k);
	free(a);
}
