// SPDX-License-Identifier: GPL-2.0
/* offwaketime: summarize blocked time by the sleeper's and the waker's stacks, as BCC's. */
#include <stddef.h>
#include <stdio.h>

#include "bt_args.h"
#include "bt_cmd.h"
#include "bt_offcpu_opts.h"
#include "bt_skel.h"
#include "bt_stack_row.h"
#include "offwaketime.h"
#include "offwaketime.skel.h"

static struct bt_offcpu_opts opts = BT_OFFCPU_OPTS_INIT;

static const struct argp argp = {
	.parser = bt_argp_to_child,
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
	{ BT_ROW_STATE, .proc = 0, .profile_only = true },
	{ BT_ROW_MARK, .proc = 0, .word = "--", .line = "    --               --\n" },
	{ BT_ROW_KERNEL, .proc = 1, .reversed = true },
	{ BT_ROW_DELIM, .proc = 1, .delim = BT_ROW_DELIM_STORED, .line = "    -\n" },
	{ BT_ROW_USER, .proc = 1, .reversed = true },
	{ BT_ROW_COMM, .proc = 1, .line = "    waker:           %.*s %u\n", .tid = true,
	  .json = true, .word = "[unknown]" },
	{ BT_ROW_END },
};

/* A row's two processes: the sleeper, counted for, and its waker. */
static unsigned int key_procs(const void *key, struct bt_row_proc *p)
{
	const struct offwaketime_key *k = key;

	p[0] = bt_offcpu_task(k->target, k->target_tgid, k->target_tid, k->target_cookie,
			      k->target_user_stack, k->target_kernel_stack);
	p[0].state = bt_offcpu_state_frame(k->target_state);
	p[1] = bt_offcpu_task(k->waker, k->waker_tgid, k->waker_tid, k->waker_cookie,
			      k->waker_user_stack, k->waker_kernel_stack);
	return k->target_tgid;
}

static void print_banner(const struct bt_offcpu_opts *o)
{
	bt_offcpu_banner(o, "Tracing blocked time (us) by %s off-CPU and waker stack",
			 bt_offcpu_stacks(o));
}

/* the in-flight tables (probes/bt_offcpu.bpf.h), in slot order */
static const struct bt_inflight_table inflight[] = {
	BT_OFFCPU_STARTS_INFLIGHT,
	{ "wakers", "wake-ups not recorded", "threads woken" },
	{ NULL },
};

static const struct bt_offcpu_tool tool = {
	.title = "Off-Wake Time Flame Graph",
	.attach_to = "sched:sched_switch and sched:sched_waking",
	.row = row,
	.objects = { "target", "waker" },
	.procs = key_procs,
	.gen_offset = offsetof(struct offwaketime_key, gen),
	.value_name = "blocked_us",
	/* wakers can be any process: every running one is snapshotted (note_running) */
	.any_waker = true,
	.inflight = inflight,
	.holder = { "wakers", sizeof(struct offwaketime_waker),
		    offsetof(struct offwaketime_waker, kernel_stack),
		    offsetof(struct offwaketime_waker, user_stack) },
	.banner = print_banner,
};

static int run(const struct bt_cmd *cmd)
{
	struct offwaketime_bpf *skel = NULL;
	struct bt_offcpu_run r;
	int err;

	err = bt_offcpu_run__init(&r, &tool, &opts) ?: BT_SKEL_OPEN(offwaketime, &skel);
	if (!err)
		err = bt_offcpu_run(&r, skel->skeleton, skel->maps.counts, cmd->probes);
	offwaketime_bpf__destroy(skel);
	bt_offcpu_run__free(&r);
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

BT_TOOL_COMMAND(offwaketime, "Summarize blocked time by off-CPU stack and waker stack",
		.probes = probes, .uses = BT_USES_TP_BTF | BT_USES_STACKS);
