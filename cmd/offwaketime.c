// SPDX-License-Identifier: GPL-2.0
/* offwaketime: summarize blocked time by the sleeper's and the waker's stacks, as BCC's. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>

#include "bt_args.h"
#include "bt_cmd.h"
#include "bt_err.h"
#include "bt_loop.h"
#include "bt_offcpu_opts.h"
#include "bt_skel.h"
#include "bt_stack_out.h"
#include "bt_stack_row.h"
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
	struct bt_stack_rows rows;
	struct bt_stack_table table;
	struct bt_stack_out *out; /* --flamegraph, --pprof */
	struct bt_offcpu_counts counts;
};

/*
 * target;its user stack;-;its kernel stack;--;waker's kernel stack;-;waker's user stack;waker,
 * as BCC's -f. Its block is the other way up: the waker's stacks outermost first, "--", the
 * sleeper's innermost first. -d's "-" only where both stacks are there to separate, as BCC
 * and offcputime print it (a side without its user stack, a kernel thread's, has none).
 */
static const struct bt_row_part row[] = {
	{ BT_ROW_COMM, .proc = 0, .line = "    target:          %.*s %u\n", .tid = true,
	  .json = true },
	{ BT_ROW_USER, .proc = 0 },
	{ BT_ROW_DELIM, .proc = 0, .delim = BT_ROW_DELIM_STORED, .line = "    -\n" },
	{ BT_ROW_KERNEL, .proc = 0 },
	{ BT_ROW_MARK, .proc = 0, .word = "--", .line = "    --               --\n" },
	{ BT_ROW_KERNEL, .proc = 1, .reversed = true },
	{ BT_ROW_DELIM, .proc = 1, .delim = BT_ROW_DELIM_STORED, .line = "    -\n" },
	{ BT_ROW_USER, .proc = 1, .reversed = true },
	{ BT_ROW_COMM, .proc = 1, .line = "    waker:           %.*s %u\n", .tid = true,
	  .json = true, .word = "[unknown]" },
	{ BT_ROW_END },
};

static struct bt_row_proc task(const char *comm, __u32 tgid, __u32 tid, __u32 cookie,
			       __u64 user_stack, __u64 kernel_stack)
{
	return (struct bt_row_proc){ .comm = comm,
				     .comm_len = BT_OFFCPU_COMM_LEN,
				     .pid = tgid,
				     .tid = tid,
				     .proc = BT_PROC(tgid, cookie),
				     .user_stack = user_stack,
				     .kernel_stack = kernel_stack };
}

/* One row of the table, without its total, which bt_offcpu_summary() prints. */
static int add_row(void *ctx, const void *key, const void *value)
{
	const struct offwaketime_key *k = key;
	struct state *s = ctx;
	struct bt_row_proc p[] = {
		task(k->target, k->target_tgid, k->target_tid, k->target_cookie,
		     k->target_user_stack, k->target_kernel_stack),
		task(k->waker, k->waker_tgid, k->waker_tid, k->waker_cookie, k->waker_user_stack,
		     k->waker_kernel_stack),
	};

	return bt_stack_rows__add(&s->rows, &s->table, p, k->target_tgid, *(const __u64 *)value);
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
		.user = !opts.kernel_only,
		.unwind = opts.unwind,
		.note_running = !opts.kernel_only,
	};
	struct offwaketime_bpf *skel;
	struct state s = { 0 };
	int err;

	err = bt_stack_out__new(&opts.out,
				&(struct bt_profile_opts){ .title = "Off-Wake Time Flame Graph",
							   .sample_type = "off_cpu",
							   .unit = "microseconds" },
				&s.out);
	if (err)
		return err;
	err = BT_SKEL_OPEN(offwaketime, &skel);
	if (err)
		goto cleanup;
	/* wakers can be any process: every running one is snapshotted (note_running) */
	err = bt_offcpu_start(skel->skeleton, &opts, cmd->probes, &sopts,
			      "sched:sched_switch and sched:sched_waking", &s.stacks);
	if (err)
		goto cleanup;
	s.rows = bt_offcpu_rows(&opts, row, s.stacks, s.out);
	s.rows.objects[0] = "target";
	s.rows.objects[1] = "waker";
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
