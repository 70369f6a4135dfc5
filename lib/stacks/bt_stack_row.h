/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stack row declared once. The tools that sum stacks print each row four ways: BCC's
 * multi-line block, a folded line, a JSON object, and a sample of the flame graph and pprof
 * profile (lib/stacks/bt_stack_out.h). A command lists its row's parts once, in folded order (root
 * first), and one printer writes every form from that list:
 *
 *	folded: the parts in order, ";" before each frame (not before a process name that opens
 *		the line), a stack root first (leaf first when reversed);
 *	profile: the folded line's frames, named once for both: the flame graph and the profile
 *		hold the folded lines by construction, whatever form is printed;
 *	text:   the parts the other way round, a stack leaf first (root first when reversed), a
 *		name, delimiter or mark as its line (nothing when it has none);
 *	JSON:   per process {"comm", "pid", "tid", "kernel_stack", "user_stack"}, as far as its
 *		parts are shown, in an object of its own or in the row's ("tid" and "cpu" of a
 *		thread's row);
 *
 * Per-tool details of BCC's formats (the indent, the delimiter's line, the comm line) are
 * data in the parts. offcputime's row:
 *
 *	static const struct bt_row_part row[] = {
 *		{ BT_ROW_COMM, .line = "    -                %.*s (%u)\n", .tid = true, .json = true },
 *		{ BT_ROW_USER },
 *		{ BT_ROW_DELIM, .delim = BT_ROW_DELIM_STORED, .line = "    --\n" },
 *		{ BT_ROW_KERNEL },
 *		{ BT_ROW_END },
 *	};
 *	struct bt_stack_rows rows = { .parts = row, .stacks = st, .style = style,
 *				      .form = BT_ROW_FOLDED, .hide = BT_ROW_HIDE(BT_ROW_KERNEL) };
 *	...per key:
 *	struct bt_row_proc p = { .comm = k->comm, .comm_len = sizeof(k->comm), .pid = k->tgid,
 *				 .tid = k->tid, .proc = BT_PROC(k->tgid, k->cookie),
 *				 .user_stack = k->user_stack, .kernel_stack = k->kernel_stack };
 *	bt_stack_rows__add(&rows, &table, &p, value);
 */
#ifndef BT_STACK_ROW_H
#define BT_STACK_ROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bt_json.h"
#include "bt_stack_out.h"
#include "bt_stack_table.h"
#include "bt_stacks.h"

enum bt_row_kind {
	BT_ROW_END,    /* ends the list */
	BT_ROW_COMM,   /* a process's name; in JSON with its pid (and tid) */
	BT_ROW_USER,   /* its user stack */
	BT_ROW_KERNEL, /* its kernel stack */
	BT_ROW_DELIM,  /* -d's "-" between its two stacks */
	BT_ROW_MARK,   /* a word of its own: offwaketime's "--" between sleeper and waker */
	/*
	 * the row's own word, when it has one (struct bt_row_proc.state): profile --wall's
	 * "[off-cpu: S]", a frame of off-CPU time (BT_PROF_OFFCPU); in JSON json_member's value
	 */
	BT_ROW_STATE,
	/*
	 * the row's process, "NAME (PID)" (NAME from /proc/PID/comm while it runs, else "pid PID"),
	 * a frame of the folded line and the profile only: a thread (BT_ROW_COMM with tid) under
	 * its process, so that the threads' widths add up to each one's time (profile --wall)
	 */
	BT_ROW_PROCESS,
};

/* When a delimiter shows, beside its two stacks being shown at all. */
enum bt_row_delim {
	BT_ROW_DELIM_ALWAYS, /* stackcount -d, as BCC: around an empty or lost stack too */
	BT_ROW_DELIM_STORED, /* only between two stored stacks (offcputime, offwaketime) */
	/*
	 * after a stack that had frames (or was lost), before one that is not none (funcslower);
	 * the text form, where no tool prints it, takes "had frames" as "is not none"
	 */
	BT_ROW_DELIM_FRAMES,
};

struct bt_row_part {
	enum bt_row_kind kind;
	unsigned int
		proc;  /* which of the row's processes (offwaketime: 0 the sleeper, 1 the waker) */
	bool reversed; /* a stack: leaf first in the folded line, root first in the text */
	bool tid;      /* COMM: a thread: its line and JSON give the tid (pid otherwise) */
	bool json;     /* COMM: "comm" and "pid" (and "tid") members; MARK: json_member true */
	bool missed;   /* MARK: a flame graph's missed frame rather than a name */
	/*
	 * STATE: a frame of the profile (flame graph, pprof) only, not of the folded line, whose
	 * format is BCC's (offcputime -f): rows that differ only by it print as one
	 */
	bool profile_only;
	enum bt_row_delim delim;
	/*
	 * The text form's line. COMM: a format of the name ("%.*s": its length, then it) and the
	 * id ("%u"); STATE: a format of its word ("%s"); DELIM and MARK: printed as they are.
	 * NULL: none.
	 */
	const char *line;
	const char *word; /* MARK: its frame; COMM: what stands for an empty name (or none) */
	const char *json_member; /* MARK and STATE with json */
};

/* One process of a row: what its parts name. */
struct bt_row_proc {
	const char *comm; /* at most comm_len bytes */
	size_t comm_len;
	unsigned int pid, tid;
	uint64_t proc; /* BT_PROC(pid, cookie): whose mappings name the user stack */
	uint64_t user_stack, user_caller, kernel_stack;
	const char *state; /* what a BT_ROW_STATE part shows; NULL: nothing */
	int cpu;	   /* with rows.thread: the CPU the sample was taken on; -1: none */
};

#define BT_ROW_PROCS 2

enum bt_row_form { BT_ROW_TEXT, BT_ROW_FOLDED, BT_ROW_JSON };

#define BT_ROW_HIDE(kind) (1U << (kind))

/* A command's rows as this run prints them. */
struct bt_stack_rows {
	const struct bt_row_part *parts;
	const char *objects[BT_ROW_PROCS]; /* JSON: a process's members in an object so named */
	struct bt_stacks *stacks;
	struct bt_stack_style style; /* of every stack; root_first comes from the part */
	enum bt_row_form form;
	unsigned int hide;	  /* BT_ROW_HIDE(kind)s left out of every form (-U, -K, no -d) */
	unsigned int text_hide;	  /* ... and out of the text form only */
	struct bt_stack_out *out; /* --flamegraph, --pprof; NULL: none */
	/*
	 * Each row is the samples of one thread on one CPU (profile's --json and --pprof): the
	 * JSON form gives the first process's tid and cpu (none when -1), and its profile sample is
	 * labelled pid, thread_id, thread_name (the comm) and cpu, as Parca labels its samples.
	 */
	bool thread;
};

/*
 * Write one row (its processes procs) in r's form to f (JSON: an object of its own, without a
 * newline), and add it to the profile with value. 0 or -errno (of the profile).
 */
int bt_stack_rows__write(const struct bt_stack_rows *r, FILE *f, const struct bt_row_proc *procs,
			 uint64_t value);
/* Only the profile's sample (out): for a row printed apart from what is profiled. */
int bt_stack_rows__profile(const struct bt_stack_rows *r, struct bt_stack_out *out,
			   const struct bt_row_proc *procs, uint64_t value);
/*
 * bt_stack_rows__write(), as the next row of t: added to the row that prints alike, or past
 * t's cap to its [other] row, whose text (r's form: "[other]", a block of that line,
 * {"other": true}) it sets then. 0 or -errno.
 */
int bt_stack_rows__add(const struct bt_stack_rows *r, struct bt_stack_table *t,
		       const struct bt_row_proc *procs, uint64_t value);
/* The JSON form's members, in an object the caller has open. */
void bt_stack_rows__json(const struct bt_stack_rows *r, struct bt_json *j,
			 const struct bt_row_proc *procs);

#endif
