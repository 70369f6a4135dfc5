/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --flamegraph=FILE and --pprof=FILE for the commands that aggregate stacks (stackcount,
 * offcputime, offwaketime, funcslower): one argp block, and one path from a command's rows to
 * an SVG flame graph (bt_flame.h) and a gzipped pprof profile (bt_pprof.h). These are extra
 * outputs: the command prints what it always prints.
 *
 * A row's frames come from lib/stacks/bt_stack_row.h, named once for the folded line and the
 * profile, and the kind of each frame from the symbolizer's result (kernel, user, inlined,
 * JIT, missed), not from its name:
 *
 *	static struct tool_opts { struct bt_stack_out_opts out; ... } opts;
 *	...argp child { &bt_stack_out_argp, 0, NULL, 0 }, its input &opts.out (a command
 *	   gives it as .out of its struct bt_opt_vals, lib/cli/bt_args.h)
 *	bt_stack_out__new(&opts.out, &(struct bt_profile_opts){ .unit = "count" }, &so);
 *	...rows.out = so; per row: bt_stack_rows__write(&rows, f, procs, value);
 *	...after each output (interval), or at the end:
 *	bt_stack_out__write(so);
 *	bt_stack_out__free(so);
 *
 * The files hold everything since the start, rewritten at each write: an interval tool's
 * files grow with the intervals while its printed summaries are per interval.
 */
#ifndef BT_STACK_OUT_H
#define BT_STACK_OUT_H

#include <argp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bt_flame.h"
#include "bt_stacks.h"

struct bt_stack_out_opts {
	const char *flamegraph; /* --flamegraph=FILE: the SVG */
	const char *pprof;	/* --pprof=FILE: profile.proto, gzipped */
};

extern const struct argp bt_stack_out_argp;

static inline bool bt_stack_out_wanted(const struct bt_stack_out_opts *o)
{
	return o->flamegraph || o->pprof;
}

struct bt_stack_out;

/*
 * Open (create or truncate) the files asked for, so that an unwritable path fails before
 * tracing starts. *out is NULL when neither was asked for: every call below then does
 * nothing. Returns 0 or -errno (said on stderr, naming the file).
 */
int bt_stack_out__new(const struct bt_stack_out_opts *o, const struct bt_profile_opts *popts,
		      struct bt_stack_out **out);
void bt_stack_out__free(struct bt_stack_out *so); /* NULL is fine */
/*
 * A profile in memory only (no file): for a caller that writes it where it wants with
 * bt_stack_out__pprof() (the exporter's /debug/pprof). 0 or -ENOMEM.
 */
int bt_stack_out__new_profile(const struct bt_profile_opts *popts, struct bt_stack_out **out);
/* The profile so far as gzipped pprof to out. 0 or -errno. */
int bt_stack_out__pprof(struct bt_stack_out *so, FILE *out);

/* A frame that is not code (a process name, a delimiter): at most len bytes of name. */
void bt_stack_out__name(struct bt_stack_out *so, const char *name, size_t len,
			enum bt_prof_kind kind);
/* A frame named as the folded line names it (at most len bytes), with its file or NULL. */
void bt_stack_out__frame(struct bt_stack_out *so, const char *name, size_t len, const char *module,
			 enum bt_prof_kind kind);
/*
 * The last frame's place in its source, an interpreted function's (BT_PROF_INTERP): pprof
 * names it func in file at line, the function starting at start_line (0: not known;
 * lib/output/bt_flame.h). Escaped by the caller.
 */
void bt_stack_out__source(struct bt_stack_out *so, const char *func, const char *file,
			  unsigned int line, unsigned int start_line);
/*
 * A label of the row being built: its sample's in pprof (the flame graph has none), a string
 * (str) or, str NULL, the number num. key must outlive the row (a literal); at most
 * BT_STACK_OUT_LABELS a row, the rest ignored.
 */
#define BT_STACK_OUT_LABELS 8
void bt_stack_out__label(struct bt_stack_out *so, const char *key, const char *str, int64_t num);
/*
 * The row's value: the frames named (and labels given) since the last add become one sample.
 * 0 or -errno.
 */
int bt_stack_out__add(struct bt_stack_out *so, uint64_t value);
/* Write every file asked for: the whole profile so far. 0 or -errno (said on stderr). */
int bt_stack_out__write(struct bt_stack_out *so);

/* What a resolved frame is, from the symbolizer's result (pid as given to resolve). */
enum bt_prof_kind bt_stack_out_kind(const struct bt_frame *f, int pid);

#endif
