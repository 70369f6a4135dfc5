// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bt_stack_row.h"
#include "bt_escape.h"

static bool shown(const struct bt_stack_rows *r, enum bt_row_kind kind)
{
	return !(r->hide & BT_ROW_HIDE(kind));
}

/* frames: of the stack before it in the folded line (-1 in the text form: not known) */
static bool delim_shown(const struct bt_stack_rows *r, const struct bt_row_part *p,
			const struct bt_row_proc *pr, int frames)
{
	if (!shown(r, BT_ROW_DELIM) || !shown(r, BT_ROW_USER) || !shown(r, BT_ROW_KERNEL))
		return false;
	switch (p->delim) {
	case BT_ROW_DELIM_STORED:
		return BT_STACK_STORED(pr->user_stack) && BT_STACK_STORED(pr->kernel_stack);
	case BT_ROW_DELIM_FRAMES:
		if (frames < 0)
			frames = pr->user_stack != BT_STACK_NONE;
		return frames > 0 && pr->kernel_stack != BT_STACK_NONE;
	default:
		return true;
	}
}

/* A COMM part's name (its first *len bytes), or its stand-in for an empty name */
static const char *comm_of(const struct bt_row_part *p, const struct bt_row_proc *pr, size_t *len)
{
	*len = strnlen(pr->comm, pr->comm_len);
	if (*len || !p->word)
		return pr->comm;
	*len = strlen(p->word);
	return p->word;
}

/* The folded line and the profile's sample: one name goes to both. */
struct sink {
	FILE *f; /* NULL: only the profile */
	struct bt_stack_out *out;
	bool started; /* a frame is written: the next one has a ";" before it */
};

/*
 * suffix: after the name on the folded line only (-a's "_[k]": the profile has the kind).
 * The name is the traced side's (a comm, a symbol, a perf map's line): escaped, its ';' too,
 * for both, so that it stays one frame of one line.
 */
static void put_as(struct sink *k, const char *name, size_t len, const char *module,
		   enum bt_prof_kind kind, bool opens, const char *suffix)
{
	char esc[BT_ESC_SIZE(1024)], mod[BT_ESC_SIZE(256)];

	len = bt_escape(esc, sizeof(esc), name, len, BT_ESC_FOLDED);
	if (k->f)
		fprintf(k->f, "%s%.*s%s", opens && !k->started ? "" : ";", (int)len, esc, suffix);
	k->started = true;
	if (module && bt_escape_needed(module, strlen(module), 0))
		module = bt_esc(mod, sizeof(mod), module, strlen(module));
	bt_stack_out__frame(k->out, esc, len, module, kind);
}

/* A Python function's name and file, the traced process's bytes: escaped as every name is */
static void put_source(struct sink *k, const struct bt_frame *f)
{
	char func[BT_ESC_SIZE(256)], file[BT_ESC_SIZE(256)];

	bt_stack_out__source(k->out, bt_esc(func, sizeof(func), f->name, strlen(f->name)),
			     bt_esc(file, sizeof(file), f->file, strlen(f->file)), f->line,
			     f->start_line);
}

static void put(struct sink *k, const char *name, size_t len, const char *module,
		enum bt_prof_kind kind, bool opens)
{
	put_as(k, name, len, module, kind, opens, "");
}

/*
 * -a's suffix of a frame of this kind: perf's and flamegraph.pl's, read back by
 * bpftools flamegraph (bt_profile_add_folded); a user frame has none.
 */
static const char *annotation(enum bt_prof_kind kind)
{
	switch (kind) {
	case BT_PROF_KERNEL:
		return "_[k]";
	case BT_PROF_JIT:
		return "_[j]";
	case BT_PROF_INLINED:
		return "_[i]";
	default:
		return "";
	}
}

/* The frames written (a lost stack's placeholder is one). */
static int fold_stack(const struct bt_stack_rows *r, struct sink *k, const struct bt_row_part *p,
		      const struct bt_row_proc *pr)
{
	bool kernel = p->kind == BT_ROW_KERNEL;
	uint64_t proc = kernel ? (uint64_t)BT_PID_KERNEL : pr->proc;
	const struct bt_frame *frames;
	char name[1024];
	int n, i;

	if ((kernel ? pr->kernel_stack : pr->user_stack) == BT_STACK_NONE)
		return 0; /* not taken: nothing to name (and no stacks needed to say so) */
	n = bt_stacks__frames(r->stacks, proc, kernel ? pr->kernel_stack : pr->user_stack,
			      kernel ? 0 : pr->user_caller, &frames);
	if (n < 0) {
		const char *m = kernel ? "[Missed Kernel Stack]" : "[Missed User Stack]";

		put(k, m, strlen(m), NULL, BT_PROF_MISSED, false);
		return 1;
	}
	for (i = 0; i < n; i++) {
		const struct bt_frame *f = &frames[p->reversed ? i : n - 1 - i];
		enum bt_prof_kind kind = bt_stack_out_kind(f, bt_proc_pid(proc));

		/* a folded line has no room for why a frame is unknown, nor for its address */
		bt_frame__format(f, r->style.fmt & ~(BT_FMT_REASON | BT_FMT_ADDR), name,
				 sizeof(name));
		/* an unknown frame's file says nothing a flame graph can merge by */
		put_as(k, name, strlen(name), kind != BT_PROF_MISSED ? f->module : NULL, kind,
		       false, r->style.annotate ? annotation(kind) : "");
		if (kind == BT_PROF_INTERP && f->file)
			put_source(k, f);
	}
	return n;
}

/*
 * "NAME (PID)" of a row's process: the BPF key has the thread's comm, not the process's, so
 * the name is the one /proc has now, read once the samples are counted (the process sampled
 * a moment ago: -p names it, and it still runs); gone, the pid alone.
 */
static int process_frame(const struct bt_row_proc *pr, char *buf, size_t size)
{
	char path[64], name[32] = "";
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%u/comm", pr->pid);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(name, sizeof(name), f))
			name[0] = '\0';
		name[strcspn(name, "\n")] = '\0';
		fclose(f);
	}
	n = name[0] ? snprintf(buf, size, "%s (%u)", name, pr->pid)
		    : snprintf(buf, size, "pid %u", pr->pid);
	return n < 0 ? 0 : (size_t)n >= size ? (int)size - 1 : n;
}

/* The folded line to f (NULL: none), and its frames to the profile. */
static void fold(const struct bt_stack_rows *r, FILE *f, struct bt_stack_out *out,
		 const struct bt_row_proc *procs)
{
	struct sink k = { f, out, false };
	const struct bt_row_part *p;
	const char *name;
	int frames = 0;
	size_t len;

	for (p = r->parts; p->kind != BT_ROW_END; p++) {
		const struct bt_row_proc *pr = &procs[p->proc];

		if (!shown(r, p->kind))
			continue;
		switch (p->kind) {
		case BT_ROW_COMM:
			name = comm_of(p, pr, &len);
			put(&k, name, len, NULL, BT_PROF_OTHER, true);
			break;
		case BT_ROW_USER:
		case BT_ROW_KERNEL:
			frames = fold_stack(r, &k, p, pr);
			break;
		case BT_ROW_DELIM:
			if (delim_shown(r, p, pr, frames))
				put(&k, "-", 1, NULL, BT_PROF_OTHER, false);
			break;
		case BT_ROW_MARK:
			put(&k, p->word, strlen(p->word), NULL,
			    p->missed ? BT_PROF_MISSED : BT_PROF_OTHER, false);
			break;
		case BT_ROW_STATE:
			if (pr->state && p->profile_only) {
				struct sink profile = { NULL, out, true };

				put(&profile, pr->state, strlen(pr->state), NULL, BT_PROF_OFFCPU,
				    false);
			} else if (pr->state) {
				put(&k, pr->state, strlen(pr->state), NULL, BT_PROF_OFFCPU, false);
			}
			break;
		case BT_ROW_PROCESS: {
			char pname[64];

			put(&k, pname, process_frame(pr, pname, sizeof(pname)), NULL, BT_PROF_OTHER,
			    true);
			break;
		}
		default:
			break;
		}
	}
}

/* BCC's block: the parts the other way round, each stack the other way up. */
static void text(const struct bt_stack_rows *r, FILE *f, const struct bt_row_proc *procs)
{
	const struct bt_row_part *p = r->parts;
	struct bt_stack_style style = r->style;
	char comm[BT_ESC_SIZE(64)];
	const char *name;
	size_t n = 0, len;

	while (p[n].kind != BT_ROW_END)
		n++;
	while (n--) {
		const struct bt_row_proc *pr = &procs[p[n].proc];

		if (!shown(r, p[n].kind) || (r->text_hide & BT_ROW_HIDE(p[n].kind)))
			continue;
		switch (p[n].kind) {
		case BT_ROW_COMM:
			name = comm_of(&p[n], pr, &len);
			len = bt_escape(comm, sizeof(comm), name, len, 0);
			if (p[n].line)
				fprintf(f, p[n].line, (int)len, comm, p[n].tid ? pr->tid : pr->pid);
			break;
		case BT_ROW_USER:
			style.root_first = p[n].reversed;
			if (pr->user_stack != BT_STACK_NONE)
				bt_stacks__print(r->stacks, f, &style, pr->proc, pr->user_stack,
						 pr->user_caller);
			break;
		case BT_ROW_KERNEL:
			style.root_first = p[n].reversed;
			if (pr->kernel_stack != BT_STACK_NONE)
				bt_stacks__print(r->stacks, f, &style, BT_PID_KERNEL,
						 pr->kernel_stack, 0);
			break;
		case BT_ROW_DELIM:
			if (p[n].line && delim_shown(r, &p[n], pr, -1))
				fputs(p[n].line, f);
			break;
		case BT_ROW_MARK:
			if (p[n].line)
				fputs(p[n].line, f);
			break;
		case BT_ROW_STATE:
			if (p[n].line && pr->state)
				fprintf(f, p[n].line, pr->state);
			break;
		default:
			break;
		}
	}
}

/* The part of kind for process proc, or NULL */
static const struct bt_row_part *part_of(const struct bt_stack_rows *r, unsigned int proc,
					 enum bt_row_kind kind)
{
	const struct bt_row_part *p;

	for (p = r->parts; p->kind != BT_ROW_END; p++)
		if (p->proc == proc && p->kind == kind && shown(r, kind))
			return p;
	return NULL;
}

void bt_stack_rows__json(const struct bt_stack_rows *r, struct bt_json *j,
			 const struct bt_row_proc *procs)
{
	const struct bt_row_part *p;
	unsigned int i;

	for (i = 0; i < BT_ROW_PROCS; i++) {
		const struct bt_row_proc *pr = &procs[i];
		bool any = false;

		for (p = r->parts; p->kind != BT_ROW_END; p++)
			any |= p->proc == i;
		if (!any)
			continue;
		if (r->objects[i])
			bt_json_begin_object(j, r->objects[i]);
		p = part_of(r, i, BT_ROW_COMM);
		if (p && p->json) {
			char comm[256];

			snprintf(comm, sizeof(comm), "%.*s", (int)pr->comm_len, pr->comm);
			bt_json_string(j, "comm", comm);
			bt_json_uint(j, "pid", pr->pid);
			if (p->tid || (r->thread && i == 0))
				bt_json_uint(j, "tid", pr->tid);
			if (r->thread && i == 0 && pr->cpu >= 0)
				bt_json_uint(j, "cpu", pr->cpu);
		}
		if (part_of(r, i, BT_ROW_KERNEL))
			bt_stacks__json(r->stacks, j, "kernel_stack", &r->style, BT_PID_KERNEL,
					pr->kernel_stack, 0);
		if (part_of(r, i, BT_ROW_USER))
			bt_stacks__json(r->stacks, j, "user_stack", &r->style, pr->proc,
					pr->user_stack, pr->user_caller);
		for (p = r->parts; p->kind != BT_ROW_END; p++)
			if (p->proc == i && p->kind == BT_ROW_MARK && p->json)
				bt_json_bool(j, p->json_member, true);
			else if (p->proc == i && p->kind == BT_ROW_STATE && p->json && pr->state)
				bt_json_string(j, p->json_member, pr->state);
		if (r->objects[i])
			bt_json_end_object(j);
	}
}

/* A thread's row: its sample's labels, the names Parca gives them (docs/profile.md). */
static void label(const struct bt_stack_rows *r, struct bt_stack_out *out,
		  const struct bt_row_proc *pr)
{
	char comm[256];

	if (!r->thread || !out)
		return;
	bt_escape(comm, sizeof(comm), pr->comm, pr->comm_len, 0);
	bt_stack_out__label(out, "pid", NULL, pr->pid);
	bt_stack_out__label(out, "thread_id", NULL, pr->tid);
	bt_stack_out__label(out, "thread_name", comm, 0);
	if (pr->cpu >= 0)
		bt_stack_out__label(out, "cpu", NULL, pr->cpu);
}

int bt_stack_rows__write(const struct bt_stack_rows *r, FILE *f, const struct bt_row_proc *procs,
			 uint64_t value)
{
	struct bt_json j;

	if (r->form == BT_ROW_FOLDED) {
		fold(r, f, r->out, procs);
		label(r, r->out, procs);
		return bt_stack_out__add(r->out, value);
	}
	if (r->form == BT_ROW_JSON) {
		bt_json_line(&j, f);
		bt_stack_rows__json(r, &j, procs);
		bt_json_end_object(&j);
	} else {
		text(r, f, procs);
	}
	/* the profile's frames are the folded line's, whatever form is printed */
	return bt_stack_rows__profile(r, r->out, procs, value);
}

int bt_stack_rows__profile(const struct bt_stack_rows *r, struct bt_stack_out *out,
			   const struct bt_row_proc *procs, uint64_t value)
{
	if (!out)
		return 0;
	fold(r, NULL, out, procs);
	label(r, out, procs);
	return bt_stack_out__add(out, value);
}

/* The [other] row's text in r's form: what a row past the cap is printed as a part of. */
static int other_text(const struct bt_stack_rows *r, struct bt_stack_table *t)
{
	char text[64];

	if (r->form == BT_ROW_FOLDED)
		snprintf(text, sizeof(text), "[other]");
	else if (r->form == BT_ROW_JSON)
		snprintf(text, sizeof(text), "{\"other\": true}");
	else
		snprintf(text, sizeof(text), "%s[other]\n", r->style.indent ? r->style.indent : "");
	return bt_stack_table__other(t, text);
}

int bt_stack_rows__add(const struct bt_stack_rows *r, struct bt_stack_table *t,
		       const struct bt_row_proc *procs, uint64_t value)
{
	FILE *f = bt_stack_table__begin(t);
	int err;

	if (!f)
		return -ENOMEM;
	err = bt_stack_rows__write(r, f, procs, value) ?: bt_stack_table__end(t, value);
	if (err == 1)
		err = t->other_text ? 0 : other_text(r, t);
	return err;
}
