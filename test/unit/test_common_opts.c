// SPDX-License-Identifier: GPL-2.0
/*
 * lib/cli/bt_args: the shared option blocks as argp children, each value put where the command's
 * struct bt_opt_vals says. test/meta/shared_opts.sh checks that every command parses them
 * alike; this checks the blocks themselves.
 */
#include <argp.h>
#include <errno.h>
#include <string.h>

#include "bt_args.h"
#include "bt_err.h"
#include "harness.h"

/* A command with every block that does not clash with another one's letters or names. */
static struct tool_opts {
	struct bt_common_opts c;
	long cpu;
	bool timestamp, regex, json, user_stack, kernel_stack, folded, offset;
	unsigned long storage;
	enum bt_unwind_mode unwind;
	struct bt_stack_out_opts out;
	int own; /* an option of the command's own, beside the shared ones */
} t;

static const struct bt_opt_vals tool_vals = {
	BT_COMMON_VALS(t.c),
	.cpu = &t.cpu,
	.timestamp = &t.timestamp,
	.regex = &t.regex,
	.json = &t.json,
	.user_stack = &t.user_stack,
	.kernel_stack = &t.kernel_stack,
	.folded = &t.folded,
	.offset = &t.offset,
	.storage = &t.storage,
	.unwind = &t.unwind,
	.out = &t.out,
};

static const struct argp_option own_options[] = {
	{ "own", 'o', NULL, 0, "The command's own option", 0 },
	{ NULL },
};

static const struct argp tool_argp;

static error_t parse_own(int key, char *arg, struct argp_state *state)
{
	struct tool_opts *o = state->input;

	(void)arg;
	switch (key) {
	case ARGP_KEY_INIT:
		bt_argp_vals_init(state, &tool_argp, &tool_vals);
		return 0;
	case 'o':
		o->own++;
		return 0;
	default:
		return ARGP_ERR_UNKNOWN;
	}
}

BT_ARGP_STACK_STORAGE(storage_argp, 2048);

static const struct argp_child children[] = {
	BT_ARGP_CHILD(bt_argp_pid),
	BT_ARGP_CHILD(bt_argp_interval),
	BT_ARGP_CHILD(bt_argp_duration),
	BT_ARGP_CHILD(bt_argp_cpu),
	BT_ARGP_CHILD(bt_argp_timestamp),
	BT_ARGP_CHILD(bt_argp_regexp),
	BT_ARGP_CHILD(bt_argp_attach),
	BT_ARGP_CHILD(bt_argp_max_probes),
	BT_ARGP_CHILD(bt_argp_json_j),
	BT_ARGP_CHILD(bt_argp_debug_D),
	BT_ARGP_CHILD(bt_argp_stack_kinds),
	BT_ARGP_CHILD(bt_argp_folded),
	BT_ARGP_CHILD(bt_argp_offset),
	BT_ARGP_CHILD(storage_argp),
	BT_ARGP_CHILD(bt_argp_unwind),
	BT_ARGP_CHILD(bt_stack_out_argp),
	{ NULL },
};

static const struct argp tool_argp = {
	.options = own_options,
	.parser = parse_own,
	.children = children,
};

static void reset_modes(void)
{
	bt_set_json_mode(false);
	bt_set_debug(false);
}

static int parse(int argc, char **argv)
{
	reset_modes();
	t = (struct tool_opts){
		.c = BT_COMMON_OPTS_INIT, .cpu = -1, .storage = 2048, .unwind = BT_UNWIND_DWARF
	};
	return argp_parse(&tool_argp, argc, argv, ARGP_NO_EXIT | ARGP_NO_HELP | ARGP_NO_ERRS, NULL,
			  &t);
}

static void test_all_set(void)
{
	char *argv[] = { "tool",
			 "-p",
			 "42",
			 "-o",
			 "-i5",
			 "--duration=10",
			 "-c",
			 "0",
			 "-T",
			 "-r",
			 "--attach=kprobe",
			 "--max-probes",
			 "7",
			 "-UKfs",
			 "--stack-storage-size=99",
			 "--unwind=fp",
			 "--flamegraph=a.svg",
			 "--pprof",
			 "a.pb.gz",
			 NULL };

	CHECK_INT(parse(19, argv), 0);
	CHECK_INT(t.c.pid, 42);
	CHECK_INT(t.c.interval, 5);
	CHECK_INT(t.c.duration, 10);
	CHECK_INT(t.cpu, 0);
	CHECK(t.timestamp && t.regex);
	CHECK_INT(t.c.mode, BT_ATTACH_KPROBE);
	CHECK_INT(t.c.max_probes, 7);
	CHECK(t.user_stack && t.kernel_stack && t.folded && t.offset);
	CHECK_INT(t.storage, 99);
	CHECK_INT(t.unwind, BT_UNWIND_FP);
	CHECK_STR(t.out.flamegraph, "a.svg");
	CHECK_STR(t.out.pprof, "a.pb.gz");
	CHECK(!t.json && !bt_json_mode() && !bt_debug_enabled());
	CHECK_INT(t.own, 1);
}

static void test_defaults(void)
{
	char *argv[] = { "tool", NULL };

	CHECK_INT(parse(1, argv), 0);
	CHECK_INT(t.c.pid, 0);
	CHECK_INT(t.c.interval, 0);
	CHECK_INT(t.c.duration, 0);
	CHECK_INT(t.cpu, -1);
	CHECK(!t.timestamp && !t.regex && !t.user_stack && !t.kernel_stack && !t.folded);
	CHECK_INT(t.c.mode, BT_ATTACH_AUTO);
	CHECK_INT(t.c.max_probes, 1000);
	CHECK_INT(t.storage, 2048);
	/* --unwind's block starts its mode at auto, whatever the command's struct held */
	CHECK_INT(t.unwind, BT_UNWIND_AUTO);
	CHECK(!t.out.flamegraph && !t.out.pprof);
}

static void test_bad_values(void)
{
	char *pid0[] = { "tool", "-p", "0", NULL };
	char *pidx[] = { "tool", "--pid=12x", NULL };
	char *iv0[] = { "tool", "-i", "0", NULL };
	char *dneg[] = { "tool", "-d", "-3", NULL };
	char *cpu[] = { "tool", "-c", "99999", NULL };
	char *mode[] = { "tool", "--attach=uprobe", NULL };
	char *maxp[] = { "tool", "--max-probes=0", NULL };
	char *st0[] = { "tool", "--stack-storage-size=0", NULL };
	char *stbig[] = { "tool", "--stack-storage-size=1048577", NULL };
	char *unw[] = { "tool", "--unwind=frames", NULL };
	char *flame[] = { "tool", "--flamegraph=", NULL };

	CHECK_INT(parse(3, pid0), EINVAL);
	CHECK_INT(parse(2, pidx), EINVAL);
	CHECK_INT(parse(3, iv0), EINVAL);
	CHECK_INT(parse(3, dneg), EINVAL);
	CHECK_INT(parse(3, cpu), EINVAL);
	CHECK_INT(parse(2, mode), EINVAL);
	CHECK_INT(parse(2, maxp), EINVAL);
	CHECK_INT(parse(2, st0), EINVAL);
	CHECK_INT(parse(2, stbig), EINVAL);
	CHECK_INT(parse(2, unw), EINVAL);
	CHECK_INT(parse(2, flame), EINVAL);
}

/* -j and -D are the same options as --json and --debug: one row but for the letter. */
static void test_spellings(void)
{
	char *j[] = { "tool", "-j", NULL };
	char *json[] = { "tool", "--json", NULL };
	char *d[] = { "tool", "-D", NULL };
	char *debug[] = { "tool", "--debug", NULL };

	CHECK_INT(parse(2, j), 0);
	CHECK(t.json && bt_json_mode());
	CHECK_INT(parse(2, json), 0);
	CHECK(t.json && bt_json_mode());
	CHECK_INT(parse(2, d), 0);
	CHECK(bt_debug_enabled());
	CHECK_INT(parse(2, debug), 0);
	CHECK(bt_debug_enabled());
	reset_modes();
}

/* The other spellings, and the stack blocks whose -d, -U and -K are not tool's. */
static struct {
	bool json, user_only, kernel_only, delimited;
} u;

static const struct bt_opt_vals other_vals = {
	.json = &u.json,
	.user_only = &u.user_only,
	.kernel_only = &u.kernel_only,
	.delimited = &u.delimited,
};

static const struct argp other_argp;

static error_t parse_other(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	if (key != ARGP_KEY_INIT)
		return ARGP_ERR_UNKNOWN;
	bt_argp_vals_init(state, &other_argp, state->input);
	return 0;
}

static const struct argp_child other_children[] = {
	BT_ARGP_CHILD(bt_argp_json),
	BT_ARGP_CHILD(bt_argp_debug),
	BT_ARGP_CHILD(bt_argp_stacks_only),
	BT_ARGP_CHILD(bt_argp_delimited),
	{ NULL },
};

static const struct argp other_argp = { .parser = parse_other, .children = other_children };

static int parse_other_tool(int argc, char **argv, const struct bt_opt_vals *v)
{
	reset_modes();
	memset(&u, 0, sizeof(u));
	return argp_parse(&other_argp, argc, argv, ARGP_NO_EXIT | ARGP_NO_HELP | ARGP_NO_ERRS, NULL,
			  (void *)v);
}

static void test_other_blocks(void)
{
	char *all[] = { "tool", "--json", "--debug", "-U", "-K", "-d", NULL };
	char *j[] = { "tool", "-j", NULL };
	char *json[] = { "tool", "--json", NULL };
	/* a command that reads bt_json_mode() alone gives --json no place: not an error */
	const struct bt_opt_vals mode_only = { .user_only = &u.user_only };

	CHECK_INT(parse_other_tool(6, all, &other_vals), 0);
	CHECK(u.json && bt_json_mode() && bt_debug_enabled());
	CHECK(u.user_only && u.kernel_only && u.delimited);
	CHECK(parse_other_tool(2, j, &other_vals) != 0);
	CHECK_INT(parse_other_tool(2, json, &mode_only), 0);
	CHECK(bt_json_mode() && !u.json);
	reset_modes();
}

/* A block listed without a place for its value is the command's bug, said, not a crash. */
static void test_no_place(void)
{
	char *dflag[] = { "tool", "-d", NULL };
	const struct bt_opt_vals none = { .json = &u.json };

	CHECK_INT(parse_other_tool(2, dflag, &none), EINVAL);
	CHECK(!u.delimited);
}

/* The block tools' -d DISK and -c CGROUP, with -m: strings kept as given. */
static struct {
	const char *disk, *cgroup;
	bool ms;
} b;

static const struct bt_opt_vals block_vals = {
	.disk = &b.disk,
	.cgroup = &b.cgroup,
	.milliseconds = &b.ms,
};

static const struct argp block_argp;

static error_t parse_block_tool(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	if (key != ARGP_KEY_INIT)
		return ARGP_ERR_UNKNOWN;
	bt_argp_vals_init(state, &block_argp, &block_vals);
	return 0;
}

static const struct argp_child block_children[] = {
	BT_ARGP_CHILD(bt_argp_disk),
	BT_ARGP_CHILD(bt_argp_cgroup),
	BT_ARGP_CHILD(bt_argp_milliseconds),
	{ NULL },
};

static const struct argp block_argp = { .parser = parse_block_tool, .children = block_children };

static void test_block_blocks(void)
{
	char *argv[] = { "tool", "-d", "sdc", "--cgroup=/sys/fs/cgroup/x", "-m", NULL };

	memset(&b, 0, sizeof(b));
	CHECK_INT(argp_parse(&block_argp, 5, argv, ARGP_NO_EXIT | ARGP_NO_HELP, NULL, NULL), 0);
	CHECK_STR(b.disk, "sdc");
	CHECK_STR(b.cgroup, "/sys/fs/cgroup/x");
	CHECK(b.ms);
}

/* bt_argp_duration is -d alone: -i stays unknown to a command that takes only a duration. */
static const struct argp_child duration_only[] = {
	BT_ARGP_CHILD(bt_argp_duration),
	{ NULL },
};

static const struct argp dur_argp;

static error_t parse_dur(int key, char *arg, struct argp_state *state)
{
	(void)arg;
	if (key == ARGP_KEY_INIT) {
		bt_argp_vals_init(state, &dur_argp, state->input);
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static const struct argp dur_argp = { .parser = parse_dur, .children = duration_only };

static void test_duration_alone(void)
{
	char *ok[] = { "tool", "-d", "3", NULL };
	char *bad[] = { "tool", "-i", "3", NULL };
	struct bt_common_opts c = BT_COMMON_OPTS_INIT;
	const struct bt_opt_vals v = { BT_COMMON_VALS(c) };

	CHECK_INT(argp_parse(&dur_argp, 3, ok, ARGP_NO_EXIT | ARGP_NO_HELP, NULL, (void *)&v), 0);
	CHECK_INT(c.duration, 3);
	CHECK(argp_parse(&dur_argp, 3, bad, ARGP_NO_EXIT | ARGP_NO_HELP | ARGP_NO_ERRS, NULL,
			 (void *)&v) != 0);
}

/* BT_ARGP_STACK_STORAGE's one row, with the command's default in its help. */
static void test_storage_row(void)
{
	CHECK_STR(storage_argp_options[0].name, "stack-storage-size");
	CHECK_STR(storage_argp_options[0].arg, "N");
	CHECK_STR(storage_argp_options[0].doc,
		  "Number of unique stacks to store (default 2048, at most 1048576)");
	CHECK(storage_argp.parser == bt_argp_stacks_parse);
}

int main(void)
{
	BT_RUN(test_all_set);
	BT_RUN(test_defaults);
	BT_RUN(test_bad_values);
	BT_RUN(test_spellings);
	BT_RUN(test_other_blocks);
	BT_RUN(test_no_place);
	BT_RUN(test_block_blocks);
	BT_RUN(test_duration_alone);
	BT_RUN(test_storage_row);
	return bt_test_done();
}
