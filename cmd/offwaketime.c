// SPDX-License-Identifier: GPL-2.0
/* offwaketime: summarize blocked time by the sleeper's and the waker's stacks, as BCC's. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>

#include "bt_args.h"
#include "bt_core_btf.h"
#include "bt_cmd.h"
#include "bt_err.h"
#include "bt_json.h"
#include "bt_loop.h"
#include "bt_offcpu_opts.h"
#include "bt_skel.h"
#include "bt_stack_out.h"
#include "bt_stack_table.h"
#include "bt_stacks.h"
#include "offwaketime.h"
#include "offwaketime.skel.h"

static struct bt_offcpu_opts opts = BT_OFFCPU_OPTS_INIT;

static const struct argp argp = {
	.parser = bt_offcpu_parser,
	.children = bt_offcpu_children,
	.args_doc = "[duration]",
	.doc = "Summarize blocked time by kernel stack trace + waker stack.\v"
	       "examples:\n"
	       "    offwaketime             # trace off-CPU + waker stack time until Ctrl-C\n"
	       "    offwaketime 5           # trace for 5 seconds only\n"
	       "    offwaketime -f 5        # 5 seconds, and output in folded format\n"
	       "    offwaketime -m 1000     # trace only events that last more than 1000 usec\n"
	       "    offwaketime -M 9000     # trace only events that last less than 9000 usec\n"
	       "    offwaketime -p 185      # only trace threads for PID 185\n"
	       "    offwaketime -t 188      # only trace thread 188\n"
	       "    offwaketime -u          # only trace user threads (no kernel)\n"
	       "    offwaketime -k          # only trace kernel threads (no user)\n"
	       "    offwaketime -U          # only show user space stacks (no kernel)\n"
	       "    offwaketime -K          # only show kernel space stacks (no user)",
};

struct state {
	struct bt_stacks *stacks;
	struct bt_stack_style leaf_first, root_first;
	struct bt_stack_table table;
	struct bt_stack_out *out; /* --flamegraph, --pprof */
	struct bt_offcpu_counts counts;
};

static bool want_kernel(void)
{
	return !opts.user_only;
}

static bool want_user(void)
{
	return !opts.kernel_only;
}

/*
 * -d's "-" between a task's user and kernel stacks: only where both are there to separate, as
 * BCC and offcputime print it (a side without its user stack, a kernel thread's, has none).
 */
static bool delimit(__u64 kernel_stack, __u64 user_stack)
{
	return opts.delimited && want_kernel() && want_user() && BT_STACK_STORED(kernel_stack) &&
	       BT_STACK_STORED(user_stack);
}

static bool delimit_target(const struct offwaketime_key *k)
{
	return delimit(k->target_kernel_stack, k->target_user_stack);
}

static bool delimit_waker(const struct offwaketime_key *k)
{
	return delimit(k->waker_kernel_stack, k->waker_user_stack);
}

static void put_json_task(struct state *s, struct bt_json *j, const char *key, const char *comm,
			  __u32 tgid, __u32 cookie, __u32 tid, __u64 kstack, __u64 ustack)
{
	bt_json_begin_object(j, key);
	bt_json_string(j, "comm", comm);
	bt_json_uint(j, "pid", tgid);
	bt_json_uint(j, "tid", tid);
	if (want_kernel())
		bt_stacks__json(s->stacks, j, "kernel_stack", &s->leaf_first, BT_PID_KERNEL, kstack,
				0);
	if (want_user())
		bt_stacks__json(s->stacks, j, "user_stack", &s->leaf_first, BT_PROC(tgid, cookie),
				ustack, 0);
	bt_json_end_object(j);
}

/* The row without its total, which bt_offcpu_summary() puts in as blocked_us. */
static void put_json(struct state *s, FILE *f, const struct offwaketime_key *k)
{
	struct bt_json j;

	bt_json_init_compact(&j, f);
	bt_json_begin_object(&j, NULL);
	put_json_task(s, &j, "target", k->target, k->target_tgid, k->target_cookie, k->target_tid,
		      k->target_kernel_stack, k->target_user_stack);
	put_json_task(s, &j, "waker", k->waker, k->waker_tgid, k->waker_cookie, k->waker_tid,
		      k->waker_kernel_stack, k->waker_user_stack);
	bt_json_end_object(&j);
	bt_json_finish(&j);
}

/* target;its user stack;-;its kernel stack;--;waker's kernel stack;-;waker's user stack;waker */
static void put_folded(struct state *s, FILE *f, const struct offwaketime_key *k)
{
	fprintf(f, "%.*s", BT_OFFCPU_COMM_LEN, k->target);
	if (want_user())
		bt_stacks__fold(s->stacks, f, &s->leaf_first,
				BT_PROC(k->target_tgid, k->target_cookie), k->target_user_stack, 0,
				false);
	if (delimit_target(k))
		fputs(";-", f);
	if (want_kernel())
		bt_stacks__fold(s->stacks, f, &s->leaf_first, BT_PID_KERNEL, k->target_kernel_stack,
				0, false);
	fputs(";--", f);
	if (want_kernel())
		bt_stacks__fold(s->stacks, f, &s->leaf_first, BT_PID_KERNEL, k->waker_kernel_stack,
				0, true);
	if (delimit_waker(k))
		fputs(";-", f);
	if (want_user())
		bt_stacks__fold(s->stacks, f, &s->leaf_first,
				BT_PROC(k->waker_tgid, k->waker_cookie), k->waker_user_stack, 0,
				true);
	fprintf(f, ";%.*s", BT_OFFCPU_COMM_LEN, k->waker[0] ? k->waker : "[unknown]");
}

/* BCC's block: the waker's stacks outermost first, "--", the sleeper's innermost first. */
static void put_block(struct state *s, FILE *f, const struct offwaketime_key *k)
{
	fprintf(f, "    %-16s %.*s %u\n", "waker:", BT_OFFCPU_COMM_LEN,
		k->waker[0] ? k->waker : "[unknown]", k->waker_tid);
	if (want_user())
		bt_stacks__print(s->stacks, f, &s->root_first,
				 BT_PROC(k->waker_tgid, k->waker_cookie), k->waker_user_stack, 0);
	if (delimit_waker(k))
		fputs("    -\n", f);
	if (want_kernel())
		bt_stacks__print(s->stacks, f, &s->root_first, BT_PID_KERNEL, k->waker_kernel_stack,
				 0);
	fprintf(f, "    %-16s %s\n", "--", "--");
	if (want_kernel())
		bt_stacks__print(s->stacks, f, &s->leaf_first, BT_PID_KERNEL,
				 k->target_kernel_stack, 0);
	if (delimit_target(k))
		fputs("    -\n", f);
	if (want_user())
		bt_stacks__print(s->stacks, f, &s->leaf_first,
				 BT_PROC(k->target_tgid, k->target_cookie), k->target_user_stack,
				 0);
	fprintf(f, "    %-16s %.*s %u\n", "target:", BT_OFFCPU_COMM_LEN, k->target, k->target_tid);
}

/* --flamegraph/--pprof: the folded line's frames (put_folded), whatever was printed */
static int put_profile(struct state *s, const struct offwaketime_key *k, __u64 us)
{
	const char *waker = k->waker[0] ? k->waker : "[unknown]";

	bt_stack_out__name(s->out, k->target, BT_OFFCPU_COMM_LEN, BT_PROF_OTHER);
	if (want_user())
		bt_stack_out__stack(s->out, s->stacks, &s->leaf_first,
				    BT_PROC(k->target_tgid, k->target_cookie), k->target_user_stack,
				    0, false);
	if (delimit_target(k))
		bt_stack_out__name(s->out, "-", 1, BT_PROF_OTHER);
	if (want_kernel())
		bt_stack_out__stack(s->out, s->stacks, &s->leaf_first, BT_PID_KERNEL,
				    k->target_kernel_stack, 0, false);
	bt_stack_out__name(s->out, "--", 2, BT_PROF_OTHER);
	if (want_kernel())
		bt_stack_out__stack(s->out, s->stacks, &s->leaf_first, BT_PID_KERNEL,
				    k->waker_kernel_stack, 0, true);
	if (delimit_waker(k))
		bt_stack_out__name(s->out, "-", 1, BT_PROF_OTHER);
	if (want_user())
		bt_stack_out__stack(s->out, s->stacks, &s->leaf_first,
				    BT_PROC(k->waker_tgid, k->waker_cookie), k->waker_user_stack, 0,
				    true);
	bt_stack_out__name(s->out, waker, BT_OFFCPU_COMM_LEN, BT_PROF_OTHER);
	return bt_stack_out__add(s->out, us);
}

static int add_row(void *ctx, const void *key, const void *value)
{
	const struct offwaketime_key *k = key;
	__u64 us = *(const __u64 *)value;
	struct state *s = ctx;
	FILE *f = bt_stack_table__begin(&s->table);

	if (!f)
		return -ENOMEM;
	if (opts.json)
		put_json(s, f, k);
	else if (opts.folded)
		put_folded(s, f, k);
	else
		put_block(s, f, k);
	return put_profile(s, k, us) ?: bt_stack_table__end(&s->table, k->target_tgid, us);
}

static int print_summary(void *ctx)
{
	struct state *s = ctx;

	return bt_offcpu_summary(&opts, &s->counts) ?: bt_stack_out__write(s->out);
}

static void print_banner(void)
{
	bt_offcpu_banner(&opts, "Tracing blocked time (us) by %s off-CPU and waker stack",
			 bt_offcpu_stacks(&opts));
}

/* the in-flight tables (probes/bt_offcpu.bpf.h), in slot order */
static const struct bt_inflight_table inflight[] = {
	{ "bt_offcpu_starts", "blocks not timed", "threads off-CPU" },
	{ "wakers", "wake-ups not recorded", "threads woken" },
	{ NULL },
};

static int run(const struct bt_cmd *cmd)
{
	struct bt_stacks_opts sopts = {
		.storage_size = opts.storage,
		.user = want_user(),
		.unwind = opts.unwind,
		.note_running = want_user(),
	};
	struct offwaketime_bpf *skel;
	struct state s = { 0 };
	int err;

	s.leaf_first =
		(struct bt_stack_style){ .indent = "    ", .fmt = opts.offset ? BT_FMT_OFFSET : 0 };
	s.root_first = s.leaf_first;
	s.root_first.root_first = true;
	err = bt_stack_out__new(&opts.out,
				&(struct bt_profile_opts){ .title = "Off-Wake Time Flame Graph",
							   .sample_type = "off_cpu",
							   .unit = "microseconds" },
				&s.out);
	if (err)
		return err;
	skel = offwaketime_bpf__open_opts(bt_core_btf_open_opts(offwaketime_bpf__elf_bytes));
	if (!skel) {
		err = -errno;
		bt_err("cannot open the BPF object: %s", strerror(errno));
		goto cleanup;
	}
	/* wakers can be any process: every running one is snapshotted (note_running) */
	err = bt_offcpu_start(skel->skeleton, &opts, cmd->probes, &sopts,
			      "sched:sched_switch and sched:sched_waking", &s.stacks);
	if (err)
		goto cleanup;
	bt_offcpu_counts_init(&s.counts, s.stacks, skel->maps.counts,
			      offsetof(struct offwaketime_key, gen), add_row, &s, &s.table,
			      "blocked_us");

	print_banner();
	if (bt_output_closed())
		goto cleanup;
	err = bt_offcpu_loop(&opts, s.stacks, skel->obj, inflight, print_summary, &s);
cleanup:
	offwaketime_bpf__destroy(skel);
	bt_stacks__free(s.stacks);
	bt_stack_out__free(s.out);
	bt_stack_table__free(&s.table);
	return err;
}

static const struct bt_probe probes[] = {
	/* sched_switch with its switch-out state (5.18+), else the state read from the task */
	{ "owt_switch_btf_state", "owt_switch_raw_state",
	  "?, struct task_struct *, struct task_struct *, unsigned int" },
	{ "owt_switch_btf", "owt_switch_raw", "?, struct task_struct *, struct task_struct *",
	  BT_PROBE_ALT },
	{ "owt_waking_btf", "owt_waking_raw" },
	{ NULL },
};

BT_COMMAND(offwaketime) = {
	.name = "offwaketime",
	.summary = "Summarize blocked time by off-CPU stack and waker stack",
	.argp = &argp,
	.opts = &opts,
	.probes = probes,
	.run = run,
	.flags = BT_NEED_PRIV,
	.uses = BT_USES_TP_BTF | BT_USES_STACKS,
};
