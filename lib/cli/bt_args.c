// SPDX-License-Identifier: GPL-2.0
/*
 * The option blocks commands share, as argp children: each option's row, its one help text
 * and its parsing, written once. Above the attach layer and the unwinder, whose choices they
 * parse: the choice reaches them through the command's options, never read back from here.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bt_args.h"
#include "bt_err.h"
#include "bt_stacks.h"

/* the help text of --stack-storage-size (BT_ARGP_STACK_STORAGE) says it */
_Static_assert(BT_STACK_STORAGE_MAX == 1048576, "--stack-storage-size's help says 1048576");

enum {
	OPT_ATTACH = 0x1100,
	OPT_MAX_PROBES,
	OPT_JSON,
	OPT_DEBUG,
	OPT_UNWIND,
	OPT_NO_PYTHON,
	OPT_CGROUPMAP,
	OPT_MNTNSMAP,
};

/* One help text per option, for both spellings of the two that have two. */
#define JSON_DOC "Print JSON Lines, messages as JSON on stderr"
#define DEBUG_DOC "Print what is attached and how, and libbpf's log"

static const struct argp_option pid_options[] = {
	{ "pid", 'p', "PID", 0, "Trace this PID only", 0 },
	{ NULL },
};

static const struct argp_option interval_options[] = {
	{ "interval", 'i', "INTERVAL", 0, "Summary interval, seconds", 0 },
	{ NULL },
};

static const struct argp_option duration_options[] = {
	{ "duration", 'd', "DURATION", 0, "Total duration of trace, seconds", 0 },
	{ NULL },
};

static const struct argp_option cpu_options[] = {
	{ "cpu", 'c', "CPU", 0, "Trace this CPU only", 0 },
	{ NULL },
};

static const struct argp_option timestamp_options[] = {
	{ "timestamp", 'T', NULL, 0, "Include timestamp on output", 0 },
	{ NULL },
};

static const struct argp_option regexp_options[] = {
	{ "regexp", 'r', NULL, 0, "Use regular expressions. Default is \"*\" wildcards only.", 0 },
	{ NULL },
};

static const struct argp_option milliseconds_options[] = {
	{ "milliseconds", 'm', NULL, 0, "Millisecond histogram", 0 },
	{ NULL },
};

static const struct argp_option attach_options[] = {
	{ "attach", OPT_ATTACH, "MODE", 0,
	  "How to attach kernel functions: auto, fentry or kprobe (default auto)", 0 },
	{ NULL },
};

static const struct argp_option max_probes_options[] = {
	{ "max-probes", OPT_MAX_PROBES, "N", 0,
	  "Refuse patterns matching more than N probes (default 1000)", 0 },
	{ NULL },
};

static const struct argp_option json_options[] = {
	{ "json", OPT_JSON, NULL, 0, JSON_DOC, 0 },
	{ NULL },
};

static const struct argp_option json_j_options[] = {
	{ "json", 'j', NULL, 0, JSON_DOC, 0 },
	{ NULL },
};

static const struct argp_option debug_options[] = {
	{ "debug", OPT_DEBUG, NULL, 0, DEBUG_DOC, 0 },
	{ NULL },
};

static const struct argp_option debug_D_options[] = {
	{ "debug", 'D', NULL, 0, DEBUG_DOC, 0 },
	{ NULL },
};

/* p, or NULL after the message: the command listed the block but gave no place for its value */
static void *dest(struct argp_state *state, void *p, const char *option)
{
	if (!p)
		bt_argp_error(state, "%s: the command gave no place for it", option);
	return p;
}

/* Where the command keeps member (v, the block's input, and state in scope), or NULL. */
#define DEST(member, option) dest(state, v ? (void *)v->member : NULL, option)
/* ... a stack block's: in its struct bt_stack_args when it keeps one, else as DEST. */
#define STACK(v, member) \
	(!(v) ? NULL : (v)->stack ? (void *)&(v)->stack->member : (void *)(v)->member)
#define STACK_DEST(member, option) dest(state, STACK(v, member), option)

static error_t set_flag(bool *flag)
{
	if (!flag)
		return EINVAL;
	*flag = true;
	return 0;
}

static error_t long_opt(struct argp_state *state, const char *arg, const char *what, long min,
			long max, long *out)
{
	return out ? bt_argp_long(state, arg, what, min, max, out) : EINVAL;
}

static error_t ulong_opt(struct argp_state *state, const char *arg, const char *what,
			 unsigned long min, unsigned long max, unsigned long *out)
{
	return out ? bt_argp_ulong(state, arg, what, min, max, out) : EINVAL;
}

static error_t parse_common(int key, char *arg, struct argp_state *state)
{
	const struct bt_opt_vals *v = state->input;
	enum bt_attach_mode *mode;

	switch (key) {
	case 'p':
		return long_opt(state, arg, "PID", 1, INT_MAX, DEST(pid, "-p"));
	case 'i':
		return ulong_opt(state, arg, "interval", 1, BT_FOREVER, DEST(interval, "-i"));
	case 'd':
		return ulong_opt(state, arg, "duration", 1, BT_FOREVER, DEST(duration, "-d"));
	case 'c':
		return long_opt(state, arg, "CPU", 0, libbpf_num_possible_cpus() - 1,
				DEST(cpu, "-c"));
	case 'T':
		return set_flag(DEST(timestamp, "-T"));
	case 'r':
		return set_flag(DEST(regex, "-r"));
	case 'm':
		return set_flag(DEST(milliseconds, "-m"));
	case OPT_ATTACH:
		mode = DEST(mode, "--attach");
		return mode ? bt_argp_attach_mode(state, arg, mode) : EINVAL;
	case OPT_MAX_PROBES:
		return ulong_opt(state, arg, "probe limit", 1, 1000000,
				 DEST(max_probes, "--max-probes"));
	case 'j':
	case OPT_JSON:
		/* messages on stderr as JSON too; the command may read bt_json_mode() alone */
		bt_set_json_mode(true);
		if (v && v->json)
			*v->json = true;
		return 0;
	case 'D':
	case OPT_DEBUG:
		bt_set_debug(true);
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp bt_argp_pid = { .options = pid_options, .parser = parse_common };
const struct argp bt_argp_interval = { .options = interval_options, .parser = parse_common };
const struct argp bt_argp_duration = { .options = duration_options, .parser = parse_common };
const struct argp bt_argp_cpu = { .options = cpu_options, .parser = parse_common };
const struct argp bt_argp_timestamp = { .options = timestamp_options, .parser = parse_common };
const struct argp bt_argp_regexp = { .options = regexp_options, .parser = parse_common };
const struct argp bt_argp_milliseconds = { .options = milliseconds_options,
					   .parser = parse_common };
const struct argp bt_argp_attach = { .options = attach_options, .parser = parse_common };
const struct argp bt_argp_max_probes = { .options = max_probes_options, .parser = parse_common };
const struct argp bt_argp_json = { .options = json_options, .parser = parse_common };
const struct argp bt_argp_json_j = { .options = json_j_options, .parser = parse_common };
const struct argp bt_argp_debug = { .options = debug_options, .parser = parse_common };
const struct argp bt_argp_debug_D = { .options = debug_D_options, .parser = parse_common };

static const struct argp_option stacks_only_options[] = {
	{ "user-stacks-only", 'U', NULL, 0, "Show stacks from user space only (no kernel stacks)",
	  0 },
	{ "kernel-stacks-only", 'K', NULL, 0, "Show stacks from kernel space only (no user stacks)",
	  0 },
	{ NULL },
};

static const struct argp_option delimited_options[] = {
	{ "delimited", 'd', NULL, 0, "Insert delimiter between kernel/user stacks", 0 },
	{ NULL },
};

static const struct argp_option folded_options[] = {
	{ "folded", 'f', NULL, 0, "Output folded format, one line per stack (for flame graphs)",
	  0 },
	{ NULL },
};

static const struct argp_option annotate_options[] = {
	{ "annotations", 'a', NULL, 0,
	  "Folded output: mark kernel frames _[k], JIT frames _[j] and inlined calls _[i], as "
	  "perf and flamegraph.pl do (bpftools flamegraph colours by them)",
	  0 },
	{ NULL },
};

static const struct argp_option offset_options[] = {
	{ "offset", 's', NULL, 0, "Show address offsets", 0 },
	{ NULL },
};

static const struct argp_option unwind_options[] = {
	{ "unwind", OPT_UNWIND, "MODE", 0,
	  "User stacks: auto (tables from .eh_frame where possible, else frame pointers), fp, "
	  "dwarf",
	  0 },
	{ "no-python", OPT_NO_PYTHON, NULL, 0,
	  "User stacks: CPython's evaluator as a native frame, not the Python functions it runs",
	  0 },
	{ NULL },
};

static error_t parse_unwind(struct argp_state *state, const char *arg, enum bt_unwind_mode *mode)
{
	enum bt_unwind_mode flags;

	if (!mode)
		return EINVAL;
	flags = *mode & BT_UNWIND_NO_PYTHON; /* --no-python before --unwind stays */
	if (!strcmp(arg, "auto"))
		*mode = BT_UNWIND_AUTO | flags;
	else if (!strcmp(arg, "fp"))
		*mode = BT_UNWIND_FP | flags;
	else if (!strcmp(arg, "dwarf"))
		*mode = BT_UNWIND_DWARF | flags;
	else
		return bt_argp_error(state, "invalid --unwind '%s': auto, fp or dwarf", arg);
	return 0;
}

/*
 * The stack blocks' parser, not parse_common(): their -d is --delimited, not --duration, and
 * their -U and -K are not parse_stack_kinds()'.
 */
error_t bt_argp_stacks_parse(int key, char *arg, struct argp_state *state)
{
	const struct bt_opt_vals *v = state->input;

	switch (key) {
	case 'U':
		return set_flag(STACK_DEST(user_only, "-U"));
	case 'K':
		return set_flag(STACK_DEST(kernel_only, "-K"));
	case 'd':
		return set_flag(STACK_DEST(delimited, "-d"));
	case 'f':
		return set_flag(STACK_DEST(folded, "-f"));
	case 's':
		return set_flag(STACK_DEST(offset, "-s"));
	case 'a':
		return set_flag(STACK_DEST(annotate, "-a"));
	case BT_OPT_STACK_STORAGE:
		return ulong_opt(state, arg, "stack storage size", 1, BT_STACK_STORAGE_MAX,
				 STACK_DEST(storage, "--stack-storage-size"));
	case OPT_UNWIND:
		return parse_unwind(state, arg, STACK_DEST(unwind, "--unwind"));
	case OPT_NO_PYTHON: {
		enum bt_unwind_mode *mode = STACK_DEST(unwind, "--no-python");

		if (!mode)
			return EINVAL;
		*mode |= BT_UNWIND_NO_PYTHON;
		return 0;
	}
	case ARGP_KEY_INIT: {
		/* the block of --unwind sets its default, whoever declared the variable */
		enum bt_unwind_mode *mode = STACK(v, unwind);

		if (mode)
			*mode = BT_UNWIND_AUTO;
		return 0;
	}
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp bt_argp_stacks_only = { .options = stacks_only_options,
					  .parser = bt_argp_stacks_parse };
const struct argp bt_argp_delimited = { .options = delimited_options,
					.parser = bt_argp_stacks_parse };
const struct argp bt_argp_folded = { .options = folded_options, .parser = bt_argp_stacks_parse };
const struct argp bt_argp_annotate = { .options = annotate_options,
				       .parser = bt_argp_stacks_parse };
const struct argp bt_argp_offset = { .options = offset_options, .parser = bt_argp_stacks_parse };
const struct argp bt_argp_unwind = { .options = unwind_options, .parser = bt_argp_stacks_parse };

static const struct argp_option stack_kinds_options[] = {
	{ "user-stack", 'U', NULL, 0, "Print the user stack", 0 },
	{ "kernel-stack", 'K', NULL, 0, "Print the kernel stack", 0 },
	{ NULL },
};

static error_t parse_stack_kinds(int key, char *arg, struct argp_state *state)
{
	const struct bt_opt_vals *v = state->input;

	(void)arg;
	switch (key) {
	case 'U':
		return set_flag(STACK_DEST(user_stack, "-U"));
	case 'K':
		return set_flag(STACK_DEST(kernel_stack, "-K"));
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp bt_argp_stack_kinds = { .options = stack_kinds_options,
					  .parser = parse_stack_kinds };

static const struct argp_option disk_options[] = {
	{ "disk", 'd', "DISK", 0, "Trace this disk only", 0 },
	{ NULL },
};

static const struct argp_option cgroup_options[] = {
	{ "cgroup", 'c', "CGROUP", 0, "Trace I/O issued by processes in this cgroup (v2 path)", 0 },
	{ NULL },
};

static const struct argp_option ns_maps_options[] = {
	{ "cgroupmap", OPT_CGROUPMAP, "PATH", 0, "Trace cgroups in this BPF map only", 0 },
	{ "mntnsmap", OPT_MNTNSMAP, "PATH", 0, "Trace mount namespaces in this BPF map only", 0 },
	{ NULL },
};

static error_t set_string(const char **s, char *arg)
{
	if (!s)
		return EINVAL;
	*s = arg;
	return 0;
}

/* Not parse_common(): this -d is no duration, this -c no CPU; and the two pinned maps. */
static error_t parse_block(int key, char *arg, struct argp_state *state)
{
	const struct bt_opt_vals *v = state->input;

	switch (key) {
	case 'd':
		return set_string(DEST(disk, "-d"), arg);
	case 'c':
		return set_string(DEST(cgroup, "-c"), arg);
	case OPT_CGROUPMAP:
		return set_string(DEST(cgroupmap, "--cgroupmap"), arg);
	case OPT_MNTNSMAP:
		return set_string(DEST(mntnsmap, "--mntnsmap"), arg);
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

const struct argp bt_argp_disk = { .options = disk_options, .parser = parse_block };
const struct argp bt_argp_cgroup = { .options = cgroup_options, .parser = parse_block };
const struct argp bt_argp_ns_maps = { .options = ns_maps_options, .parser = parse_block };

void bt_argp_vals_init(struct argp_state *state, const struct argp *argp,
		       const struct bt_opt_vals *v)
{
	const struct argp *a;
	size_t i;

	for (i = 0; argp->children && argp->children[i].argp; i++) {
		a = argp->children[i].argp;
		if (a == &bt_stack_out_argp)
			state->child_inputs[i] = v->stack ? &v->stack->out : v->out;
		else if (a->parser == parse_common || a->parser == bt_argp_stacks_parse ||
			 a->parser == parse_stack_kinds || a->parser == parse_block)
			state->child_inputs[i] = (void *)v;
	}
}

error_t bt_argp_words_end(struct argp_state *state)
{
	const struct bt_cmd *cmd = bt_args_cmd();
	const struct bt_opt_vals *v = cmd ? cmd->vals : NULL;

	if (v && v->word && !*v->word)
		return bt_argp_error(state, "%s", v->word_missing);
	return 0;
}

error_t bt_argp_own(int key, char *arg, struct argp_state *state)
{
	const struct bt_cmd *cmd = bt_args_cmd();
	const struct bt_opt_vals *v = cmd ? cmd->vals : NULL;
	const struct bt_argp_flag *f;

	if (!v)
		return ARGP_ERR_UNKNOWN;
	if (key == ARGP_KEY_INIT) {
		bt_argp_vals_init(state, cmd->argp, v);
		return 0;
	}
	if (key == ARGP_KEY_ARG && v->iv)
		return bt_argp_interval_arg(state, arg, v->iv);
	if (key == ARGP_KEY_ARG && v->word) {
		if (*v->word)
			return bt_argp_error(state, v->word_extra ?: "unexpected argument '%s'",
					     arg);
		*v->word = arg;
		return 0;
	}
	if (key == ARGP_KEY_ARG && v->no_args)
		return bt_argp_error(state, "unexpected argument '%s'", arg);
	if (key == ARGP_KEY_ARG && v->duration_arg) {
		if (*v->duration_arg)
			return bt_argp_error(state, "unexpected argument '%s'", arg);
		return bt_argp_ulong(state, arg, "duration", 1, v->duration_max ?: BT_FOREVER,
				     v->duration_arg);
	}
	if (key == ARGP_KEY_END)
		return bt_argp_words_end(state) ?: ARGP_ERR_UNKNOWN;
	for (f = v->flags; f && f->set; f++) {
		if (f->key == key) {
			*f->set = true;
			return 0;
		}
	}
	return ARGP_ERR_UNKNOWN;
}

int bt_argp_attach_mode(struct argp_state *state, const char *arg, enum bt_attach_mode *mode)
{
	if (!bt_attach_mode_parse(arg, mode))
		return 0;
	bt_argp_usage_hint(state);
	return EINVAL;
}

struct bt_resolve_opts bt_common_resolve(const struct bt_common_opts *c, bool regex)
{
	return (struct bt_resolve_opts){
		.pid = c->pid,
		.regex = regex,
		.max_probes = c->max_probes,
	};
}
