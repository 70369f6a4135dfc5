// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bt_argp.h"
#include "bt_err.h"
#include "bt_output.h"
#include "bt_pprof.h"
#include "bt_stack_out.h"

enum {
	OPT_FLAMEGRAPH = 0x1300,
	OPT_PPROF,
};

static const struct argp_option options[] = {
	{ "flamegraph", OPT_FLAMEGRAPH, "FILE", 0,
	  "Also write the stacks as an interactive SVG flame graph to FILE", 0 },
	{ "pprof", OPT_PPROF, "FILE", 0,
	  "Also write the stacks as a gzipped pprof profile (profile.proto) to FILE", 0 },
	{ NULL },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct bt_stack_out_opts *o = state->input;

	switch (key) {
	case OPT_FLAMEGRAPH:
	case OPT_PPROF:
		if (!*arg)
			return bt_argp_error(state, "--%s needs a file name",
					     key == OPT_PPROF ? "pprof" : "flamegraph");
		*(key == OPT_PPROF ? &o->pprof : &o->flamegraph) = arg;
		break;
	case ARGP_KEY_END:
		if (o->flamegraph && o->pprof && !strcmp(o->flamegraph, o->pprof))
			return bt_argp_error(state,
					     "--flamegraph and --pprof name the same file "
					     "'%s'",
					     o->pprof);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp bt_stack_out_argp = { .options = options, .parser = parse_opt };

struct bt_stack_out {
	struct bt_profile *prof;
	const char *paths[2]; /* SVG, pprof */
	FILE *files[2];
	struct bt_prof_frame *frames; /* the row being built, root first; names owned */
	size_t n, cap;
	struct bt_prof_label labels[BT_STACK_OUT_LABELS]; /* the row's; str owned */
	size_t nlabels;
	int err; /* of the row being built */
	char subtitle[320];
};

static void drop_row(struct bt_stack_out *so)
{
	size_t i;

	for (i = 0; i < so->n; i++) {
		free((char *)so->frames[i].name);
		free((char *)so->frames[i].module);
		free((char *)so->frames[i].func);
		free((char *)so->frames[i].file);
	}
	for (i = 0; i < so->nlabels; i++)
		free((char *)so->labels[i].str);
	so->nlabels = 0;
	so->n = 0;
	so->err = 0;
}

void bt_stack_out__free(struct bt_stack_out *so)
{
	int i;

	if (!so)
		return;
	drop_row(so);
	for (i = 0; i < 2; i++)
		if (so->files[i])
			bt_output_close(so->files[i]);
	free(so->frames);
	bt_profile_free(so->prof);
	free(so);
}

/*
 * The graph's subtitle, unless the command gave one: what ran and when, so that a graph
 * found later says what it shows.
 */
static const struct bt_profile_opts *with_subtitle(struct bt_stack_out *so,
						   const struct bt_profile_opts *popts)
{
	static struct bt_profile_opts o;
	char when[64] = "";
	time_t now = time(NULL);
	struct tm tm;

	if (!popts || popts->subtitle || !*bt_cmdline())
		return popts;
	o = *popts;
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof(when), ", %Y-%m-%d %H:%M:%S UTC", &tm);
	snprintf(so->subtitle, sizeof(so->subtitle), "%s%s", bt_cmdline(), when);
	o.subtitle = so->subtitle;
	return &o;
}

int bt_stack_out__new(const struct bt_stack_out_opts *o, const struct bt_profile_opts *popts,
		      struct bt_stack_out **out)
{
	struct bt_stack_out *so;
	int i, err = 0;

	*out = NULL;
	if (!bt_stack_out_wanted(o))
		return 0;
	so = calloc(1, sizeof(*so));
	if (!so)
		return -ENOMEM;
	so->prof = bt_profile_new(with_subtitle(so, popts));
	if (!so->prof) {
		err = -ENOMEM;
		goto cleanup;
	}
	so->paths[0] = o->flamegraph;
	so->paths[1] = o->pprof;
	for (i = 0; i < 2; i++) {
		if (!so->paths[i])
			continue;
		so->files[i] = bt_output_open(so->paths[i]);
		if (!so->files[i]) {
			err = -errno;
			bt_err("cannot write '%s': %s", so->paths[i], strerror(errno));
			goto cleanup;
		}
	}
	*out = so;
	return 0;
cleanup:
	bt_stack_out__free(so);
	return err;
}

int bt_stack_out__new_profile(const struct bt_profile_opts *popts, struct bt_stack_out **out)
{
	struct bt_stack_out *so = calloc(1, sizeof(*so));

	*out = NULL;
	if (so)
		so->prof = bt_profile_new(popts);
	if (!so || !so->prof) {
		free(so);
		return -ENOMEM;
	}
	*out = so;
	return 0;
}

int bt_stack_out__pprof(struct bt_stack_out *so, FILE *out)
{
	return bt_pprof_write(so->prof, out);
}

/* name and module are the row's own (NULL name: out of memory) */
static void push(struct bt_stack_out *so, char *name, char *module, enum bt_prof_kind kind)
{
	if (so->n == so->cap && !so->err) {
		size_t cap = so->cap ? 2 * so->cap : 64;
		struct bt_prof_frame *v = realloc(so->frames, cap * sizeof(*v));

		if (v) {
			so->frames = v;
			so->cap = cap;
		} else {
			so->err = -ENOMEM;
		}
	}
	if (!name || so->err) {
		so->err = -ENOMEM;
		free(name);
		free(module);
		return;
	}
	so->frames[so->n++] = (struct bt_prof_frame){ name, module, kind };
}

void bt_stack_out__name(struct bt_stack_out *so, const char *name, size_t len,
			enum bt_prof_kind kind)
{
	if (so)
		push(so, strndup(name, len), NULL, kind);
}

void bt_stack_out__frame(struct bt_stack_out *so, const char *name, size_t len, const char *module,
			 enum bt_prof_kind kind)
{
	if (so)
		push(so, strndup(name, len), module ? strdup(module) : NULL, kind);
}

void bt_stack_out__source(struct bt_stack_out *so, const char *func, const char *file,
			  unsigned int line, unsigned int start_line)
{
	struct bt_prof_frame *f;

	if (!so || !so->n || so->err)
		return;
	f = &so->frames[so->n - 1];
	f->func = strdup(func);
	f->file = strdup(file);
	f->line = line;
	f->start_line = start_line;
	if (!f->func || !f->file)
		so->err = -ENOMEM;
}

void bt_stack_out__label(struct bt_stack_out *so, const char *key, const char *str, int64_t num)
{
	struct bt_prof_label *l;

	if (!so || so->nlabels == BT_STACK_OUT_LABELS)
		return;
	l = &so->labels[so->nlabels];
	*l = (struct bt_prof_label){ .key = key, .str = str ? strdup(str) : NULL, .num = num };
	if (str && !l->str)
		so->err = -ENOMEM;
	else
		so->nlabels++;
}

enum bt_prof_kind bt_stack_out_kind(const struct bt_frame *f, int pid)
{
	if (!f->name)
		return BT_PROF_MISSED;
	if (f->inlined)
		return BT_PROF_INLINED;
	/* a Python function, not the interpreter's C code: a palette of its own (docs/python.md) */
	if (bt_frame__is_python(f))
		return BT_PROF_INTERP;
	if (pid == BT_PID_KERNEL)
		/* BPF programs and trampolines: the modules kallsyms gives JIT code */
		return bt_ksym__is_trace_artefact(NULL, f->module) ? BT_PROF_JIT : BT_PROF_KERNEL;
	return f->module && !strcmp(f->module, "[perf-map]") ? BT_PROF_JIT : BT_PROF_USER;
}

int bt_stack_out__add(struct bt_stack_out *so, uint64_t value)
{
	int err;

	if (!so)
		return 0;
	err = so->err ? so->err
		      : bt_profile_add_labeled(so->prof, so->frames, so->n, so->labels, so->nlabels,
					       value);
	drop_row(so);
	return err;
}

int bt_stack_out__write(struct bt_stack_out *so)
{
	int i, err = 0;

	if (!so)
		return 0;
	for (i = 0; i < 2 && !err; i++) {
		FILE *f = so->files[i];

		if (!f)
			continue;
		if (!bt_profile_total(so->prof))
			bt_note("no samples were recorded: '%s' holds an empty %s", so->paths[i],
				i ? "profile" : "flame graph");
		/* the whole profile again, over what the last write left */
		rewind(f);
		if (ftruncate(bt_output_fd(f), 0)) {
			err = -errno;
		} else {
			err = i ? bt_pprof_write(so->prof, f) : bt_flame_write(so->prof, f);
		}
		if (err)
			bt_err("cannot write '%s': %s", so->paths[i], strerror(-err));
	}
	return err;
}
