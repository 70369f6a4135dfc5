// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_calls.h"
#include "bt_err.h"
#include "bt_rodata.h"
#include "bt_trace.h"

/* Only what has a return can be timed; the tool puts the return probe on itself. */
static int check_spec(const struct bt_probe_spec *spec)
{
	if (spec->retprobe)
		return bt_usage_err("'%s': %s probes entry and return itself; drop the 'r:'",
				    spec->text, bt_progname());
	if (spec->kind == BT_SPEC_TRACEPOINT || spec->kind == BT_SPEC_USDT)
		return bt_usage_err("cannot time '%s': a %s has no return; give a function or "
				    "syscall:NAME",
				    spec->text,
				    spec->kind == BT_SPEC_USDT ? "USDT probe" : "tracepoint");
	return 0;
}

/* An entry's name: the spec as given (BCC), or the function a wildcard matched. */
static char *entry_name(const struct bt_probe_spec *spec, const struct bt_target *t)
{
	char *name = NULL;
	int n;

	if (!strpbrk(spec->pattern, "*?["))
		return strdup(spec->text);
	if (spec->kind == BT_SPEC_UFUNC)
		n = asprintf(&name, "%s:%s", spec->module, t->name);
	else if (spec->kind == BT_SPEC_SYSCALL)
		n = asprintf(&name, "syscall:%s", t->name);
	else
		n = asprintf(&name, "%s", t->name);
	return n < 0 ? NULL : name;
}

/* Resolve one spec into more entries, each named. */
static int add_spec(struct bt_calls *c, const char *text, const struct bt_resolve_opts *opts,
		    size_t max)
{
	struct bt_probe_spec spec = { 0 };
	size_t first = c->targets.n, i;
	char **names;
	int n;

	n = bt_probe_spec__parse(text, &spec);
	if (!n)
		n = check_spec(&spec);
	if (!n)
		n = bt_targets__resolve(&spec, opts, &c->targets);
	if (n < 0)
		goto cleanup;
	n = 0;
	if (max && c->targets.n > max) {
		n = bt_usage_err("more than %zu functions to trace (--max-probes)", max);
		goto cleanup;
	}
	names = realloc(c->names, c->targets.n * sizeof(*names));
	if (!names) {
		n = -ENOMEM;
		bt_err("out of memory");
		goto cleanup;
	}
	c->names = names;
	for (i = first; i < c->targets.n; i++)
		names[i] = NULL;
	c->n = c->targets.n;
	for (i = first; i < c->targets.n && !n; i++) {
		names[i] = entry_name(&spec, &c->targets.v[i]);
		if (!names[i]) {
			n = -ENOMEM;
			bt_err("out of memory");
		}
	}
cleanup:
	bt_probe_spec__free(&spec);
	return n;
}

int bt_calls__resolve(struct bt_calls *c, const char *const *specs, size_t nspecs,
		      const struct bt_resolve_opts *opts, size_t max)
{
	size_t i;
	int err = 0;

	/* every spec checked before any is resolved: a usage error comes first */
	for (i = 0; i < nspecs && !err; i++) {
		struct bt_probe_spec spec = { 0 };

		err = bt_probe_spec__parse(specs[i], &spec);
		if (!err)
			err = check_spec(&spec);
		bt_probe_spec__free(&spec);
	}
	for (i = 0; i < nspecs && !err; i++)
		err = add_spec(c, specs[i], opts, max);
	if (!err) {
		err = bt_targets__add_returns(&c->targets);
		if (err)
			bt_err("out of memory");
	}
	return err;
}

int bt_calls__load(const struct bt_calls *c, struct bpf_object_skeleton *skel,
		   const struct bt_filters *filters, enum bt_attach_mode mode,
		   struct bt_attach **out)
{
	uint32_t n = c->n;
	int err;

	err = bt_rodata_set(*skel->obj, "bt_call_entries", &n, sizeof(n));
	if (err) {
		bt_err("internal error: the BPF object has no bt_call_entries "
		       "(probes/bt_call.bpf.h)");
		return err;
	}
	return bt_trace__load(skel, &c->targets, filters, mode, out);
}

void bt_calls__free(struct bt_calls *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; c->names && i < c->n; i++)
		free(c->names[i]);
	free(c->names);
	c->names = NULL;
	c->n = 0;
	bt_targets__free(&c->targets);
}
