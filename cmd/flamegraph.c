// SPDX-License-Identifier: GPL-2.0
/*
 * bpftools flamegraph: folded stacks ("a;b;c 123", what -f/--folded prints) to an interactive
 * SVG flame graph or a gzipped pprof profile. A top-level subcommand, not a registry command:
 * a `flamegraph` link on PATH would shadow the other programs of that name (flamegraph.pl's
 * wrapper, inferno, cargo-flamegraph), which take other options.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_args.h"
#include "bt_cmd.h"
#include "bt_err.h"
#include "bt_flame.h"
#include "bt_output.h"
#include "bt_pprof.h"
#include "bt_input.h"
#include "flamegraph.h"

static struct flamegraph_opts {
	struct bt_profile_opts prof;
	bool pprof;
	const char *input;
	const char *output;
} opts;

enum {
	OPT_PPROF = 1000,
	OPT_TITLE,
	OPT_WIDTH,
	OPT_UNIT,
	OPT_TYPE,
	OPT_COMM,
	OPT_KERNEL,
	OPT_SUBTITLE,
	OPT_MINWIDTH,
	OPT_OFFCPU,
};

static const struct argp_option options[] = {
	{ "pprof", OPT_PPROF, NULL, 0, "Write a gzipped pprof profile (profile.proto), not SVG",
	  0 },
	{ "output", 'o', "FILE", 0, "Write to FILE instead of standard output", 0 },
	{ "title", OPT_TITLE, "TEXT", 0, "SVG title (default \"Flame Graph\")", 0 },
	{ "subtitle", OPT_SUBTITLE, "TEXT", 0, "SVG subtitle, a line under the title", 0 },
	{ "minwidth", OPT_MINWIDTH, "PIXELS", 0,
	  "Leave out frames narrower than this, their time drawn as their callers' (default 0.1; "
	  "0: every frame)",
	  0 },
	{ "offcpu", OPT_OFFCPU, NULL, 0,
	  "The counts are time off-CPU (offcputime -f): cool colours, as the tools' own graphs",
	  0 },
	{ "width", OPT_WIDTH, "PIXELS", 0, "SVG width (default 1200)", 0 },
	{ "unit", OPT_UNIT, "UNIT", 0,
	  "What the counts are: count (default), microseconds, nanoseconds...", 0 },
	{ "sample-type", OPT_TYPE, "NAME", 0, "pprof sample type (default samples)", 0 },
	{ "comm", OPT_COMM, NULL, 0, "The first frame of each line is a process name", 0 },
	{ "kernel", OPT_KERNEL, NULL, 0, "Frames not marked otherwise are kernel frames", 0 },
	{ NULL },
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct flamegraph_opts *o = state->input;
	unsigned long width;

	switch (key) {
	case OPT_PPROF:
		o->pprof = true;
		break;
	case 'o':
		o->output = arg;
		break;
	case OPT_TITLE:
		o->prof.title = arg;
		break;
	case OPT_WIDTH:
		if (bt_argp_ulong(state, arg, "width", 100, 100000, &width))
			return EINVAL;
		o->prof.width = width;
		break;
	case OPT_SUBTITLE:
		o->prof.subtitle = arg;
		break;
	case OPT_MINWIDTH: {
		char *end;
		double w;

		errno = 0;
		w = strtod(arg, &end);
		if (end == arg || *end || errno || !(w >= 0 && w <= 100000))
			return bt_argp_error(state, "invalid --minwidth '%s': pixels, 0 to 100000",
					     arg);
		o->prof.minwidth = w ? w : -1; /* 0 here: none; 0 in bt_profile_opts: the default */
		break;
	}
	case OPT_OFFCPU:
		o->prof.offcpu = true;
		break;
	case OPT_UNIT:
		o->prof.unit = arg;
		break;
	case OPT_TYPE:
		o->prof.sample_type = arg;
		break;
	case OPT_COMM:
		o->prof.folded_comm = true;
		break;
	case OPT_KERNEL:
		o->prof.folded_kind = BT_PROF_KERNEL;
		break;
	case ARGP_KEY_ARG:
		if (o->input)
			return bt_argp_error(state, "one input file at most ('%s' too)", arg);
		o->input = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.args_doc = "[FOLDED_FILE]",
	.doc = "Turn folded stacks into an interactive SVG flame graph or a pprof profile.\v"
	       "Input: lines 'frame;frame;...;frame COUNT', root first, from FOLDED_FILE or\n"
	       "standard input (stackcount -f, offcputime -f, funcslower -f ...). Frame kinds: a\n"
	       "suffix _[k] kernel, _[j] JIT, _[i] inlined (the tools' -a writes them); without\n"
	       "one, frames after a '-' delimiter or from a kernel entry point on\n"
	       "(entry_SYSCALL_64..., asm_exc_page_fault, ret_from_fork...) are kernel frames.\n"
	       "examples:\n"
	       "    stackcount -f -a -D 5 t:sched:sched_switch | bpftools flamegraph > s.svg\n"
	       "    offcputime -f -a 5 | bpftools flamegraph --unit=microseconds --comm --offcpu "
	       "\\\n"
	       "        --title 'Off-CPU Time' > o.svg\n"
	       "    bpftools flamegraph --pprof -o o.pb.gz folded.txt  # go tool pprof o.pb.gz",
};

static int run(const struct bt_cmd *cmd)
{
	struct bt_profile *p = NULL;
	struct bt_lines in = { .fd = -1 };
	FILE *out = stdout;
	int err;

	if (opts.pprof && !opts.output && isatty(STDOUT_FILENO))
		return bt_usage_err("--pprof writes gzip data: redirect it, or use -o FILE");
	/* a file must be a regular one (a FIFO or device is refused unread); stdin may be a pipe */
	err = bt_lines_open(&in, opts.input, BT_FOLDED_LINE_MAX, BT_FOLDED_INPUT_MAX);
	if (err)
		return err;
	p = bt_profile_new(&opts.prof);
	if (!p) {
		err = -ENOMEM;
		goto cleanup;
	}
	/* All input first: a bad line must not leave a truncated output file behind. */
	err = bt_profile_read_lines(p, &in);
	if (err == -EINTR) {
		bt_note("stopped while reading %s%s%s: nothing written", in.own ? "'" : "", in.name,
			in.own ? "'" : "");
		goto cleanup;
	}
	if (err < 0) {
		if (err == -EINVAL)
			err = -BT_EUSAGE;
		goto cleanup; /* said */
	}
	if (!bt_profile_total(p)) {
		bt_err("no samples in the folded input: no %s written",
		       opts.pprof ? "profile" : "flame graph");
		err = -ENODATA;
		goto cleanup;
	}
	if (opts.output) {
		out = bt_output_open(opts.output);
		if (!out) {
			err = -errno;
			bt_err("cannot write '%s': %s", opts.output, strerror(errno));
			goto cleanup;
		}
	}
	err = opts.pprof ? bt_pprof_write(p, out) : bt_flame_write(p, out);
	if (err)
		bt_err("cannot write the %s: %s", opts.pprof ? "profile" : "flame graph",
		       strerror(-err));
cleanup:
	if (out != stdout && out) {
		int cerr = bt_output_close(out);

		if (cerr && !err) {
			bt_err("cannot write '%s': %s", opts.output, strerror(-cerr));
			err = cerr;
		}
	}
	bt_lines_close(&in);
	bt_profile_free(p);
	return err;
}

/* Not in cmd/commands.def (see above); main() dispatches `bpftools flamegraph` here. */
const struct bt_cmd bt_flamegraph_cmd = {
	.name = "bpftools flamegraph",
	.summary = "Folded stacks to an SVG flame graph or a pprof profile",
	.argp = &argp,
	.opts = &opts,
	.run = run,
};
