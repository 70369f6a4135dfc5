/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stack profiles: samples (frames root first, each with a kind, and a value) merged into one
 * tree, written as a self-contained interactive SVG flame graph (here) or as Google's
 * profile.proto, gzipped (bt_pprof.h). No Perl, no protobuf library.
 *
 *	struct bt_profile *p = bt_profile_new(&(struct bt_profile_opts){ .unit = "microseconds" });
 *	bt_profile_add(p, frames, n, value);	   // or bt_profile_add_folded(p, "a;b;c 123")
 *	bt_flame_write(p, svg);
 *	bt_pprof_write(p, pb_gz);
 *	bt_profile_free(p);
 *
 * A tool that already prints folded rows can write them to a memory stream and hand that to
 * bt_flame_from_folded() / bt_pprof_from_folded().
 */
#ifndef BT_FLAME_H
#define BT_FLAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What a frame is; the flame graph colours by it. */
enum bt_prof_kind {
	BT_PROF_USER,
	BT_PROF_KERNEL,
	BT_PROF_INLINED, /* an inlined call, inside the frame below it */
	BT_PROF_JIT,	 /* JIT code: BPF programs, perf-map symbols */
	BT_PROF_MISSED,	 /* a lost stack or an unknown address */
	BT_PROF_OTHER,	 /* not code: a process name, a delimiter */
	/*
	 * a thread's time off-CPU, named by its state ("[off-cpu: S]", profile --wall): the
	 * samples through it are cold, and the frames they make up most of are drawn cold (blue)
	 */
	BT_PROF_OFFCPU,
	/*
	 * an interpreted language's own frame (a Python function, not the interpreter's C code
	 * running it): a palette of its own, as flamegraph.pl's java palette keeps JIT code apart
	 */
	BT_PROF_INTERP,
	BT_PROF_NKINDS,
};

struct bt_prof_frame {
	const char *name;
	const char *module; /* file or kernel module; NULL: none (vmlinux, or unknown) */
	enum bt_prof_kind kind;
	/*
	 * Where an interpreted function is in its source (BT_PROF_INTERP; NULL file: not
	 * known): pprof's Function is then func in file, its Location a Line of it, with no
	 * Mapping; name stays what the flame graph draws. start_line: where func begins (pprof's
	 * Function.start_line; 0: not known)
	 */
	const char *func, *file;
	unsigned int line, start_line;
};

struct bt_profile_opts {
	const char *title;    /* SVG heading; NULL: "Flame Graph" */
	const char *subtitle; /* SVG: a line under the title (what was traced); NULL: none */
	const char
		*sample_type; /* pprof's sample type, e.g. "samples", "off_cpu"; NULL: "samples" */
	/* "count", "microseconds", "nanoseconds"...; NULL: "count" (the SVG says "samples") */
	const char *unit;
	/*
	 * pprof: a second sample type (NULL: none), each sample's value times value2_scale
	 * (profile: the samples counted, then the CPU time they stand for in nanoseconds)
	 */
	const char *sample_type2, *unit2;
	uint64_t value2_scale;
	/* pprof: each sample's first value times this (0: 1; offcputime's us as nanoseconds) */
	uint64_t value_scale;
	unsigned int width; /* SVG width in pixels; 0: 1200 */
	/*
	 * SVG: frames narrower than this many pixels are left out, their time drawn as their
	 * parent's (totals unchanged); 0: 0.1, as flamegraph.pl; negative: draw every frame
	 */
	double minwidth;
	/* Every sample is time off-CPU (offcputime): every frame in the cold palette. */
	bool offcpu;
	/*
	 * Folded input: the first frame of each line is a process name (BT_PROF_OTHER), and the
	 * kind of frames before any "-" delimiter (after it, they are kernel frames; see
	 * bt_profile_add_folded).
	 */
	bool folded_comm;
	enum bt_prof_kind folded_kind;
};

struct bt_profile;

/* NULL opts: the defaults. Returns NULL when out of memory. */
struct bt_profile *bt_profile_new(const struct bt_profile_opts *opts);
void bt_profile_free(struct bt_profile *p);

/*
 * The most a profile's counts may add up to: pprof's values are int64, and past this the
 * totals would wrap (or turn negative) instead of adding up.
 */
#define BT_PROF_MAX_TOTAL INT64_MAX

/*
 * One sample: frames[0] is the outermost caller. value 0 is ignored. 0 or -errno:
 * -EOVERFLOW, the profile left as it was, when the total would pass BT_PROF_MAX_TOTAL.
 */
int bt_profile_add(struct bt_profile *p, const struct bt_prof_frame *frames, size_t n,
		   uint64_t value);

/* A sample's label (profile.proto's Label): a string, or a number, under key. */
struct bt_prof_label {
	const char *key;
	const char *str; /* NULL: the label is num */
	int64_t num;
};

/*
 * bt_profile_add() of a sample with labels (none: as bt_profile_add()). pprof keeps the samples
 * of one stack apart by their labels (profile: the CPU and thread of each); the flame graph
 * merges them. 0 or -errno.
 */
int bt_profile_add_labeled(struct bt_profile *p, const struct bt_prof_frame *frames, size_t n,
			   const struct bt_prof_label *labels, size_t nlabels, uint64_t value);

/*
 * One folded line, "root;...;leaf VALUE" (the value after the last space; a trailing newline
 * allowed). Kinds: a suffix "_[k]", "_[j]", "_[i]" (the collapse scripts' annotations) says
 * kernel, JIT or inlined and is removed; "[unknown]" and "[Missed ... Stack]" are missed;
 * "bpf_prog_..." is JIT; "[off-cpu..." is off-CPU time (BT_PROF_OFFCPU); a frame "-" (BCC's delimiter between user and kernel frames) is
 * BT_PROF_OTHER and switches the kind of the frames after it between folded_kind and kernel
 * ("--", offwaketime's delimiter before the waker's stack, is BT_PROF_OTHER and switches
 * nothing). Blank lines are ignored. -EINVAL for a line without a value.
 */
int bt_profile_add_folded(struct bt_profile *p, const char *line);
/*
 * Every line of an input (lib/base/bt_input.h: a line and the whole bounded); every error is
 * said on stderr (-EINVAL naming the bad line), but for -EINTR (a stop signal). Returns lines
 * added or -errno.
 */
struct bt_lines;
int bt_profile_read_lines(struct bt_profile *p, struct bt_lines *in);
/* The same of a stream. */
int bt_profile_read_folded(struct bt_profile *p, FILE *in);

/* The sum of all values. */
uint64_t bt_profile_total(const struct bt_profile *p);

/* The SVG: search (also Ctrl-F), click to zoom, tooltips with values and percentages. */
int bt_flame_write(const struct bt_profile *p, FILE *out);
/* Folded lines in, SVG out. Returns 0 or -errno. */
int bt_flame_from_folded(FILE *folded, FILE *svg, const struct bt_profile_opts *opts);

#endif
