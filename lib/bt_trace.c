// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

#include "bt_err.h"
#include "bt_kernel.h"
#include "bt_trace.h"

int bt_targets__from_pattern(const char *pattern, const struct bt_resolve_opts *opts,
			     struct bt_targets *out)
{
	struct bt_probe_spec spec = { 0 };
	int n;

	n = bt_probe_spec__parse(pattern, &spec);
	if (!n)
		n = bt_targets__resolve(&spec, opts, out);
	bt_probe_spec__free(&spec);
	return n;
}

int bt_trace__load(struct bpf_object_skeleton *skel, const struct bt_attach_progs *progs,
		   const struct bt_targets *targets, const struct bt_filters *filters,
		   enum bt_attach_mode mode, struct bt_attach **out)
{
	struct bpf_object *obj = *skel->obj;
	struct bt_attach *attach = NULL;
	int err;

	err = bt_filters_apply(obj, filters);
	if (err)
		goto cleanup;
	err = bt_attach__prepare(obj, progs, targets, mode, &attach);
	if (err)
		goto cleanup;
	bt_vmlinux_btf_release();
	err = bpf_object__load_skeleton(skel);
	if (err) {
		bt_err("cannot load the BPF programs: %s", strerror(-err));
		goto cleanup;
	}
	err = bt_attach__commit(attach);
	if (err)
		goto cleanup;
	*out = attach;
	return 0;
cleanup:
	bt_attach__destroy(attach);
	return err;
}

int bt_argp_attach_mode(struct argp_state *state, const char *arg, enum bt_attach_mode *mode)
{
	if (!bt_attach_mode_parse(arg, mode))
		return 0;
	argp_state_help(state, stderr, ARGP_HELP_USAGE);
	return EINVAL;
}
